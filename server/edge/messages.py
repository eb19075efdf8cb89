"""The messages a client sends, declared once as typed ``msgspec`` structs.

Each message is a struct tagged by its ``t``; :data:`ClientMessage` is their union. A
decoded frame (JSON or msgpack: the same schema) becomes a typed message, or a
:class:`~server.edge.protocol.ProtocolError` naming the field at fault, in one call
(:func:`parse`): wrong types, out-of-range numbers, over-long strings and unknown types
never get past the edge. ``docs/protocol.md`` is checked against these declarations
(``tests/server/test_protocol_doc.py``).

The maps a message carries through to a room (``options``, ``config``, ``action``) are
checked against the game's declared options and actions (:mod:`server.room.actions`) where the
game is known; here only their shape (string keys) and that every number in them is
finite and within ±(2**53 - 1).
"""

from __future__ import annotations

import math
import re
from typing import Annotated, Any, Union

import msgspec
from msgspec import Meta, Struct

from .protocol import ProtocolError

SAFE_INTEGER = 2**53 - 1  # what JSON carries exactly
MAX_DEPTH = 16

Ref = Annotated[str, Meta(max_length=64)] | Annotated[int, Meta(ge=-SAFE_INTEGER, le=SAFE_INTEGER)]
RoomId = Annotated[str, Meta(min_length=1, max_length=64)]
GameName = Annotated[str, Meta(min_length=1, max_length=32)]
JoinCode = Annotated[str, Meta(min_length=1, max_length=16)]
ClientSeed = Annotated[str, Meta(min_length=1, max_length=64, pattern="^[A-Za-z0-9_-]+$")]
Map = dict[str, Any]
LeagueName = Annotated[str, Meta(min_length=1, max_length=64)]


class Message(Struct, tag_field="t", kw_only=True):
    """Every request may carry ``ref``, echoed in its answer."""

    ref: Ref | None = None

    @property
    def t(self) -> str:
        return self.__struct_config__.tag  # type: ignore[return-value]


class Hello(Message, tag="hello"):
    name: Annotated[str, Meta(min_length=1, max_length=32)] | None = None
    token: Annotated[str, Meta(min_length=1, max_length=128)] | None = None
    id_token: Annotated[str, Meta(min_length=1, max_length=8192)] | None = None  # the operator's JWT
    protocol: Annotated[int, Meta(ge=1, le=1_000_000)] | None = None  # the version the client speaks


class ListRooms(Message, tag="list_rooms"):
    game: GameName | None = None
    watch: bool | None = None


class CreateRoom(Message, tag="create_room"):
    game: GameName
    options: Map | None = None
    config: Map | None = None


class Join(Message, tag="join"):
    room: RoomId
    seat: Annotated[int, Meta(ge=0, le=1000)] | None = None
    buy_in: Annotated[int, Meta(ge=0, le=10**12)] | None = None
    code: JoinCode | None = None
    seed: ClientSeed | None = None


class Spectate(Message, tag="spectate"):
    room: RoomId
    code: JoinCode | None = None


class Sync(Message, tag="sync"):
    """Send me the room's full snapshot again (an ``update`` did not apply)."""

    room: RoomId
    code: JoinCode | None = None


class Leave(Message, tag="leave"):
    room: RoomId


class SitOut(Message, tag="sit_out"):
    room: RoomId


class SitIn(Message, tag="sit_in"):
    room: RoomId


class Show(Message, tag="show"):
    room: RoomId


class AddBot(Message, tag="add_bot"):
    room: RoomId


class AutoPlay(Message, tag="auto_play"):
    """Hand my seat to the server's auto-play (托管) or take it back."""

    room: RoomId
    on: bool


class SetSeed(Message, tag="set_seed"):
    room: RoomId
    seed: ClientSeed


class Act(Message, tag="act"):
    room: RoomId
    action: Map
    id: Annotated[str, Meta(min_length=1, max_length=64)]


class QuickMatch(Message, tag="quick_match"):
    game: GameName
    stake: Annotated[int, Meta(ge=1, le=10**12)] | None = None
    seats: Annotated[int, Meta(ge=2, le=10)] | None = None
    buy_in: Annotated[int, Meta(ge=0, le=10**12)] | None = None
    seed: ClientSeed | None = None


class FindRoom(Message, tag="find_room"):
    """Which private room has this join code? (The code alone, typed by a player.)"""

    code: JoinCode


class History(Message, tag="history"):
    room: RoomId
    last: Annotated[int, Meta(ge=1, le=50)] | None = None


class MyRecord(Message, tag="my_record"):
    """Your own record: hands played and chips won per game, and your last results."""

    last: Annotated[int, Meta(ge=1, le=50)] | None = None


class ListLeagues(Message, tag="list_leagues"):
    pass


class LeagueInfo(Message, tag="league"):
    name: LeagueName


class LeagueCreate(Message, tag="league_create"):
    name: LeagueName
    game: GameName
    hands: Annotated[int, Meta(ge=1, le=100_000)] | None = None
    seats: Annotated[int, Meta(ge=2, le=10)] | None = None
    stack: Annotated[int, Meta(ge=1, le=10**12)] | None = None
    action_seconds: Annotated[float, Meta(ge=0.1, le=600)] | None = None
    config: Map | None = None
    duplicate: bool | None = None
    format: Annotated[str, Meta(min_length=1, max_length=16)] | None = None
    level_hands: Annotated[int, Meta(ge=1, le=100_000)] | None = None


class LeagueEnter(Message, tag="league_enter"):
    name: LeagueName
    entrant: Annotated[str, Meta(min_length=1, max_length=32)] | None = None
    strategy: Annotated[str, Meta(min_length=1, max_length=32)] | None = None


class LeagueRun(Message, tag="league_run"):
    name: LeagueName
    rounds: Annotated[int, Meta(ge=1, le=100)] | None = None


class LeagueExport(Message, tag="league_export"):
    name: LeagueName


class Say(Message, tag="say"):
    """A line in the room's chat (at most 200 characters once its spaces are tidied)."""

    room: RoomId
    text: Annotated[str, Meta(min_length=1, max_length=1000)]


class RemoveSeat(Message, tag="remove_seat"):
    """The room's creator frees a seat (between its hands)."""

    room: RoomId
    seat: Annotated[int, Meta(ge=0, le=1000)]


class Lock(Message, tag="lock"):
    """The room's creator locks the room, or opens it again."""

    room: RoomId
    locked: bool


class Ping(Message, tag="ping"):
    pass


CLIENT_TYPES: tuple[type[Message], ...] = (Hello, ListRooms, CreateRoom, Join, Spectate, Sync, Leave, SitOut, SitIn,
                                           Show, AddBot, AutoPlay, SetSeed, Act, QuickMatch, FindRoom, History,
                                           MyRecord, ListLeagues, LeagueInfo, LeagueCreate, LeagueEnter, LeagueRun,
                                           LeagueExport, Say, RemoveSeat, Lock, Ping)
ClientMessage = Union[CLIENT_TYPES]  # noqa: UP007 - a runtime union of the tuple
#: message type -> its field names (besides ``t``), for the docs check
CLIENT_MESSAGES: dict[str, tuple[str, ...]] = {
    c.__struct_config__.tag: tuple(f.name for f in msgspec.structs.fields(c)) for c in CLIENT_TYPES  # type: ignore[misc]
}

_AT = re.compile(r" - at `\$\.?(.*)`$")
_MISSING = re.compile(r"missing required field `(\w+)`")


_DECODERS = {"json": msgspec.json.Decoder(ClientMessage), "msgpack": msgspec.msgpack.Decoder(ClientMessage)}


def decode(data: bytes, binary: bool) -> Message | None:
    """The typed message of a frame's bytes in one step (the fast path), or None when
    it is not one: :func:`parse` of the frame's decoded value then names the fault."""
    try:
        msg = _DECODERS["msgpack" if binary else "json"].decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError, ValueError, RecursionError):
        return None
    check_carried(msg)
    return msg


def check_carried(msg: Message) -> None:
    """The maps a message carries on (``options``, ``config``, ``action``): finite,
    bounded numbers, string keys, at most :data:`MAX_DEPTH` deep."""
    for name in ("options", "config", "action"):
        value = getattr(msg, name, None)
        if value is not None:
            _check_values(value, name, 1)


def parse(decoded: Any) -> Message:
    """The typed message a decoded frame holds; raises :class:`ProtocolError`
    (``bad_message`` with the field's path, or ``unknown_type``)."""
    if not isinstance(decoded, dict):
        raise ProtocolError("bad_message", "a message must be a map with a type field t")
    t = decoded.get("t")
    if not isinstance(t, str):
        raise ProtocolError("bad_message", "field t must be a string", "t")
    if t not in CLIENT_MESSAGES:
        raise ProtocolError("unknown_type", f"unknown message type {t[:40]!r}")
    try:
        msg = msgspec.convert(decoded, ClientMessage, strict=True)
    except msgspec.ValidationError as exc:
        raise ProtocolError("bad_message", f"{t}: {exc}", error_path(exc) or None) from None
    check_carried(msg)
    return msg


def error_path(exc: msgspec.ValidationError) -> str:
    """The path of the field a validation error is about (``options.seats``,
    ``cards[3]``), empty for the message itself."""
    text = str(exc)
    at, missing = _AT.search(text), _MISSING.search(text)
    path = ".".join(x for x in (at.group(1) if at else "", missing.group(1) if missing else "") if x)
    return path.replace(".[", "[")


def _check_values(value: Any, path: str, depth: int) -> None:
    """Refuse non-finite or huge numbers and absurd nesting inside a carried map."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return
    if isinstance(value, int):
        if not -SAFE_INTEGER <= value <= SAFE_INTEGER:
            raise ProtocolError("bad_message", f"{path}: numbers must be between -(2**53 - 1) and 2**53 - 1", path)
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ProtocolError("bad_message", f"{path}: numbers must be finite", path)
        return
    if depth >= MAX_DEPTH:
        raise ProtocolError("bad_message", f"{path}: nested more than {MAX_DEPTH} levels deep", path)
    if isinstance(value, dict):
        for k, v in value.items():
            if not isinstance(k, str):
                raise ProtocolError("bad_message", f"{path}: keys must be strings", path)
            _check_values(v, f"{path}.{k}", depth + 1)
    elif isinstance(value, list | tuple):
        for i, v in enumerate(value):
            _check_values(v, f"{path}[{i}]", depth + 1)
    else:
        raise ProtocolError("bad_message", f"{path}: {type(value).__name__} values are not allowed", path)
