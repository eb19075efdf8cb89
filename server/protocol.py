"""The wire protocol in one place: message type names, field schemas and error codes.

Every frame carries one message: a map with a type field ``t``. Requests may carry a
``ref`` (a string or an integer) that the server echoes in its reply or error.
``docs/protocol.md`` documents each name defined here; a test fails when one is missing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

SUBPROTOCOL_MSGPACK = "cardroom.msgpack"
SUBPROTOCOL_JSON = "cardroom.json"
SUBPROTOCOLS = (SUBPROTOCOL_MSGPACK, SUBPROTOCOL_JSON)

#: WebSocket close codes the server uses (besides 1000 and websockets' own 1009/1011).
CLOSE_NORMAL = 1000  # an idle connection closed after --idle-timeout
CLOSE_GOING_AWAY = 1001  # server shutting down
CLOSE_POLICY = 1008  # persistent flooding, or a client too slow to read its messages


@dataclass(frozen=True)
class Field:
    """One field of a client message: name, kind, whether required, and bounds."""

    name: str
    kind: str  # "str", "int", "bool", "map"
    required: bool = True
    min: int | None = None  # str: min length; int: min value
    max: int | None = None  # str: max length; int: max value


# Client -> server messages and their fields (``t`` and ``ref`` are implicit).
CLIENT_MESSAGES: dict[str, tuple[Field, ...]] = {
    "hello": (
        Field("name", "str", required=False, min=1, max=32),
        Field("token", "str", required=False, min=1, max=128),
    ),
    "list_rooms": (
        Field("game", "str", required=False, min=1, max=32),
        Field("watch", "bool", required=False),
    ),
    "create_room": (
        Field("game", "str", min=1, max=32),
        Field("options", "map", required=False),
        Field("config", "map", required=False),
    ),
    "join": (
        Field("room", "str", min=1, max=64),
        Field("seat", "int", required=False, min=0, max=1000),
        Field("buy_in", "int", required=False, min=0, max=10**12),
        Field("code", "str", required=False, min=1, max=16),
    ),
    "spectate": (
        Field("room", "str", min=1, max=64),
        Field("code", "str", required=False, min=1, max=16),
    ),
    "leave": (Field("room", "str", min=1, max=64),),
    "sit_out": (Field("room", "str", min=1, max=64),),
    "sit_in": (Field("room", "str", min=1, max=64),),
    "act": (
        Field("room", "str", min=1, max=64),
        Field("action", "map"),
        Field("id", "str", min=1, max=64),
    ),
    "ping": (),
}

# Server -> client message types.
SERVER_MESSAGES: dict[str, str] = {
    "welcome": "reply to hello: your player id, name, session token, wallet and the seats you hold",
    "rooms": "the room list (reply to list_rooms, and pushed on lobby changes when watching)",
    "room": "a full room snapshot for this viewer (reply to create_room/join/spectate, and after every change)",
    "event": "one thing that happened in a room, filtered for this viewer, with the room version",
    "ack": "an act was accepted (or had already been accepted): room, action id, version",
    "left": "you left a seat (or stopped watching); pending while your hand is still being played",
    "pong": "reply to ping, with the server clock",
    "error": "a request failed: stable code, message, the request's ref",
}

# Room events the server itself adds to a room's event stream (engine events pass through).
ROOM_EVENTS: dict[str, str] = {
    "joined": "a player sat down: seat, player, name, stack (and bot: true for a bot seat)",
    "left": "a player stood up: seat, player, stack (returned to the wallet), reason",
    "sat_out": "a seat is sitting out (not dealt in): seat, reason",
    "sat_in": "a seat is back in: seat",
    "leaving": "a seated player asked to leave during a hand: seat",
    "hand_started": "a new hand: hand number, button seat, seats dealt in",
    "timed_out": "a seat's clock ran out and the server acted for it: seat, action",
    "hand_ended": "the hand is over: hand number, final stacks by seat",
    "rebuy": "a busted (or too short) bot seat bought in again with newly granted chips: seat, player, amount, stack",
    "room_closed": "nobody sat in the room for --empty-room-minutes: it is closed (reason empty); its history stays",
}

# Server error codes. Engine IllegalAction codes (not_your_turn, bad_amount, ...) are
# passed through unchanged in addition to these.
ERROR_CODES: dict[str, str] = {
    "bad_frame": "the frame could not be decoded (bad JSON or msgpack, or the wrong frame kind)",
    "frame_too_large": "the frame is larger than the configured limit (default 64 KiB)",
    "bad_message": "the message is not a map with a string t, or a field is missing or has the wrong type",
    "unknown_type": "no client message has this t",
    "not_authenticated": "send hello first",
    "already_authenticated": "this connection already said hello",
    "bad_token": "no player has this session token",
    "no_such_game": "the server hosts no game with this name",
    "bad_config": "a room option or game option is invalid; field names it",
    "no_such_room": "no room has this id",
    "bad_code": "the room is private and the join code is missing or wrong",
    "bad_seat": "the seat number is outside the table",
    "room_full": "every seat is taken",
    "seat_taken": "someone already sits in that seat",
    "already_seated": "you already hold a seat in this room",
    "not_seated": "you hold no seat in this room (and are not watching it)",
    "no_hand": "no hand is being played in this room",
    "bad_buy_in": "the buy-in is outside the room's buy_in_min..buy_in_max",
    "insufficient_funds": "your wallet holds less than the buy-in",
    "rate_limited": "too many messages; slow down (persistent flooding closes the connection with 1008)",
    "unavailable": "the server is shutting down, or Redis or the room's process is briefly unreachable; retry",
    "internal_error": "the server failed unexpectedly; nothing changed",
}


class ProtocolError(Exception):
    """A request the server rejects with a stable error ``code`` (and optional ``field``)."""

    def __init__(self, code: str, message: str, field: str | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.field = field


def validate_message(msg: Any) -> tuple[str, dict[str, Any]]:
    """Check a decoded frame against the schema; return ``(type, message)``.

    Raises :class:`ProtocolError` with ``bad_message`` or ``unknown_type``. Unknown
    extra fields are ignored (forward compatible).
    """
    if not isinstance(msg, dict):
        raise ProtocolError("bad_message", "a message must be a map with a type field t")
    t = msg.get("t")
    if not isinstance(t, str):
        raise ProtocolError("bad_message", "field t must be a string", "t")
    ref = msg.get("ref")
    if ref is not None:
        if isinstance(ref, bool) or not isinstance(ref, str | int):
            raise ProtocolError("bad_message", "field ref must be a string or an integer", "ref")
        if isinstance(ref, str) and len(ref) > 64:
            raise ProtocolError("bad_message", "field ref is longer than 64 characters", "ref")
    fields = CLIENT_MESSAGES.get(t)
    if fields is None:
        raise ProtocolError("unknown_type", f"unknown message type {t[:40]!r}")
    _check_values(msg, t, depth=0)
    for f in fields:
        value = msg.get(f.name)
        if value is None:
            if f.required:
                raise ProtocolError("bad_message", f"{t}: field {f.name} is required", f.name)
            continue
        _check_field(t, f, value)
    return t, msg


#: Numbers anywhere in a message stay within what every encoding and store carries
#: exactly (JSON's safe integers); deeper nesting than this is refused.
SAFE_INTEGER = 2**53 - 1
MAX_DEPTH = 16


def _check_values(value: Any, path: str, depth: int) -> None:
    """Refuse non-finite or huge numbers and absurd nesting anywhere in a message."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return
    if isinstance(value, int):
        if not -SAFE_INTEGER <= value <= SAFE_INTEGER:
            raise ProtocolError("bad_message", f"{path}: numbers must be between -(2**53 - 1) and 2**53 - 1",
                                path.partition(".")[2] or None)
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ProtocolError("bad_message", f"{path}: numbers must be finite", path.partition(".")[2] or None)
        return
    if depth >= MAX_DEPTH:
        raise ProtocolError("bad_message", f"{path}: nested more than {MAX_DEPTH} levels deep")
    if isinstance(value, dict):
        for k, v in value.items():
            _check_values(v, f"{path}.{k}", depth + 1)
    elif isinstance(value, list | tuple):
        for i, v in enumerate(value):
            _check_values(v, f"{path}[{i}]", depth + 1)


def _check_field(t: str, f: Field, value: Any) -> None:
    where = f"{t}: field {f.name}"
    if f.kind == "str":
        if not isinstance(value, str):
            raise ProtocolError("bad_message", f"{where} must be a string", f.name)
        if f.min is not None and len(value) < f.min:
            raise ProtocolError("bad_message", f"{where} must not be empty", f.name)
        if f.max is not None and len(value) > f.max:
            raise ProtocolError("bad_message", f"{where} is longer than {f.max} characters", f.name)
    elif f.kind == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            raise ProtocolError("bad_message", f"{where} must be a whole number", f.name)
        if f.min is not None and value < f.min:
            raise ProtocolError("bad_message", f"{where} must be at least {f.min}", f.name)
        if f.max is not None and value > f.max:
            raise ProtocolError("bad_message", f"{where} must be at most {f.max}", f.name)
    elif f.kind == "bool":
        if not isinstance(value, bool):
            raise ProtocolError("bad_message", f"{where} must be true or false", f.name)
    elif f.kind == "map":
        if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
            raise ProtocolError("bad_message", f"{where} must be a map with string keys", f.name)
    else:  # pragma: no cover - schema typo
        raise AssertionError(f"unknown field kind {f.kind}")


def error_message(code: str, message: str, ref: Any = None, field: str | None = None, **extra: Any) -> dict[str, Any]:
    """Build an ``error`` message."""
    msg: dict[str, Any] = {"t": "error", "code": code, "message": message}
    if ref is not None:
        msg["ref"] = ref
    if field is not None:
        msg["field"] = field
    msg.update(extra)
    return msg
