"""Hostile frames for the fuzz soak, drawn from a seeded :class:`random.Random`.

:class:`FrameMaker` turns a connection's state (:class:`Me`) and what every connection
knows (:class:`World`) into the next frame(s) to send: raw garbage, broken encodings,
valid encodings of wrong shapes, requests with missing or mistyped fields, NaN, inf and
huge numbers anywhere, deep nesting, long strings, frames at and beyond the size limits,
frames of the wrong kind, and well-formed requests aimed at the wrong state, the wrong
room or seat, replayed action ids, bad tokens, random room options, and floods.

Each :class:`Frame` carries a ``label`` (its family and variant, for the report) and,
when the protocol document fixes the answer, an :class:`Expect` for the reply that
carries its ``ref``. :func:`schema_verdict` is an independent reading of the rules of
``docs/protocol.md`` ("Conventions" and each message's fields), used for that.
"""

from __future__ import annotations

import copy
import json
import math
import random
import string
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import msgpack

from engine.game import Game
from server.room.options import room_options

JSON = "cardroom.json"
MSGPACK = "cardroom.msgpack"
SUBPROTOCOLS = (MSGPACK, JSON)
MAX_FRAME = 65_536  # the protocol limit (--max-frame default)
HARD_MAX_FRAME = 1 << 20  # the WebSocket library's limit (--hard-max-frame default)
SAFE_INTEGER = 2**53 - 1
MAX_DEPTH = 16
CLOSE_BAD_DATA = 1007  # the library's answer to a text frame that is not UTF-8
CLOSE_POLICY = 1008  # persistent flooding
CLOSE_TOO_BIG = 1009  # a frame over the hard limit

#: every client message and its fields as docs/protocol.md lists them:
#: name -> (kind, required, min, max); str bounds are lengths
SCHEMA: dict[str, dict[str, tuple[str, bool, int | None, int | None]]] = {
    "hello": {"name": ("str", False, 1, 32), "token": ("str", False, 1, 128), "id_token": ("str", False, 1, 8192),
              "protocol": ("int", False, 1, 1_000_000)},
    "list_rooms": {"game": ("str", False, 1, 32), "watch": ("bool", False, None, None)},
    "create_room": {"game": ("str", True, 1, 32), "options": ("map", False, None, None),
                    "config": ("map", False, None, None)},
    "join": {"room": ("str", True, 1, 64), "seat": ("int", False, 0, 1000),
             "buy_in": ("int", False, 0, 10**12), "code": ("str", False, 1, 16)},
    "spectate": {"room": ("str", True, 1, 64), "code": ("str", False, 1, 16)},
    "leave": {"room": ("str", True, 1, 64)},
    "sit_out": {"room": ("str", True, 1, 64)},
    "sit_in": {"room": ("str", True, 1, 64)},
    "act": {"room": ("str", True, 1, 64), "action": ("map", True, None, None),
            "id": ("str", True, 1, 64)},
    "say": {"room": ("str", True, 1, 64), "text": ("str", True, 1, 1000)},
    "ping": {},
}
ROOM_REQUESTS = ("join", "spectate", "leave", "sit_out", "sit_in", "act", "say")
#: chat lines the fuzzer says: fine, tidied, as long as allowed, too long once tidied, empty once tidied
CHAT_LINES = ("gl hf", "  nice \n\n hand  ", "好牌！", "y" * 200, "z" * 201, " \t\n ", "\x00\x1b[2J", "🂡 🎉",
              "<script>alert(1)</script>")

#: actions of each game, as the game docs list them (types and their fields)
ACTION_TYPES: dict[str, tuple[str, ...]] = {
    "holdem": ("fold", "check", "call", "raise", "bet", "all_in"),
    "zhajinhua": ("look", "call", "raise", "compare", "fold", "all_in"),
    "doudizhu": ("bid", "pass", "call", "rob", "play"),
}
JUNK_TYPES = ("", "FOLD", "check ", "act", "hello", "__proto__", "constructor", "_settled",
              "timeout", "redeal", "look\x00", "all-in", "showdown")
DDZ_RANKS = "3456789TJQKA2BR"


@dataclass(frozen=True)
class Expect:
    """What the reply to a frame's ``ref`` may be: its ``t``, or its ``code`` for an
    ``error``. ``allowed`` (None: anything) and ``forbidden`` both name such kinds;
    ``rate_limited`` and ``unavailable`` are always acceptable."""

    allowed: frozenset[str] | None = None
    forbidden: frozenset[str] = frozenset()

    def accepts(self, kind: str) -> bool:
        if kind in ("rate_limited", "unavailable"):
            return True
        if kind in self.forbidden:
            return False
        return self.allowed is None or kind in self.allowed


@dataclass
class Frame:
    """One thing to send: ``data`` (a list: the fragments of one message), as a text
    frame or not, its ``label``, the ``ref`` it carries, what its answer may be, and the
    close code it provokes (``closes``)."""

    data: bytes | str | list[bytes] | list[str]
    label: str
    text: bool
    ref: int | str | None = None
    expect: Expect | None = None
    closes: int | None = None

    def size(self) -> int:
        parts = self.data if isinstance(self.data, list) else [self.data]
        return sum(len(p.encode("utf-8", "surrogatepass")) if isinstance(p, str) else len(p) for p in parts)

    def excerpt(self, limit: int = 200) -> str:
        """The frame as a short printable text (for the report and reproductions)."""
        parts = self.data if isinstance(self.data, list) else [self.data]
        shown = "".join(p if isinstance(p, str) else p.hex() if not self.text else repr(p) for p in parts)
        shown = shown.encode("ascii", "backslashreplace").decode("ascii")
        kind = "text" if self.text else "binary"
        return f"{kind} {self.size()} B: {shown[:limit]}{'...' if len(shown) > limit else ''}"


@dataclass
class World:
    """What every connection may aim at: rooms by id (-> game), the honest players' rooms,
    and session tokens seen."""

    rooms: dict[str, str] = field(default_factory=dict)
    honest: list[str] = field(default_factory=list)
    tokens: list[str] = field(default_factory=list)
    codes: dict[str, str] = field(default_factory=dict)  # private room -> its join code

    def add_room(self, room: str, game: str) -> None:
        if room not in self.rooms and len(self.rooms) < 5000:
            self.rooms[room] = game


@dataclass
class Me:
    """One connection's state, as its reader learned it from the server's messages."""

    subprotocol: str
    said_hello: bool = False
    authenticated: bool = False
    token: str | None = None
    seated: dict[str, int] = field(default_factory=dict)  # room -> seat
    created: list[str] = field(default_factory=list)
    acked: list[tuple[str, str, dict[str, Any]]] = field(default_factory=list)  # (room, id, action)
    last_ref: int = 0

    @property
    def binary(self) -> bool:
        return self.subprotocol == MSGPACK

    def new_ref(self) -> int:
        self.last_ref += 1
        return self.last_ref


# --- hostile values -------------------------------------------------------------------


def _nested(depth: int, leaf: Any = 1, as_map: bool = False) -> Any:
    """A value ``depth`` containers deep (lists, or maps with key ``"a"``)."""
    value = leaf
    for _ in range(depth):
        value = {"a": value} if as_map else [value]
    return value


HUGE_INTS = (2**53 - 1, 2**53, -(2**53), 2**63 - 1, 2**63, -(2**63), 2**64 - 1, 10**12, 10**12 + 1)
JSON_ONLY_INTS = (2**64, -(2**64) - 1, 2**100, 10**300)
FLOATS = (0.5, -0.0, 1e308, -1e308, 5e-324, 1e16, float("nan"), float("inf"), float("-inf"))
STRINGS = ("", " ", "\t\n", "x", "x" * 32, "x" * 33, "x" * 64, "x" * 65, "x" * 129, "y" * 5000,
           "\x00", "\x1b[31m", "\u202eevil", "😀" * 20, "炸金花", "r-00000000", "../../etc/passwd",
           "%s%s%n", "<script>alert(1)</script>", "null", "NaN", "1e999", "r-" + "f" * 62)
SURROGATES = ("\ud800", "a\udfffb", "\udc80" * 3)


def hostile_scalar(rng: random.Random, binary: bool, surrogates: bool) -> Any:
    """A value that is wrong somewhere: odd types, boundaries, NaN/inf, huge ints, strings."""
    pick = rng.random()
    if pick < 0.2:
        return rng.choice((None, True, False, 0, -1, 1, 7, 1000, 1001))
    if pick < 0.4:
        return rng.choice(HUGE_INTS + (() if binary else JSON_ONLY_INTS))
    if pick < 0.55:
        return rng.choice(FLOATS)
    if pick < 0.8:
        pool = STRINGS + (SURROGATES if surrogates and not binary else ())
        return rng.choice(pool)
    if pick < 0.9:  # a fresh container each time: planting values must never link two messages
        return copy.deepcopy(rng.choice(([], {}, [1, 2, 3], {"t": "ping"}, [None], {"": None}))) \
            if rng.random() < 0.7 else _nested(rng.randint(2, 20))
    if binary:
        return rng.choice((b"", b"\xff\xfe", b"bytes", msgpack.ExtType(7, b"x"), msgpack.ExtType(127, b"\0" * 4),
                           msgpack.Timestamp(0, 0), bytearray(b"ab")))
    return rng.choice(("\u0000" * 3, "\\u0000", "\"quoted\""))


def msgpack_safe(value: Any) -> Any:
    """``value`` with what msgpack cannot carry replaced (ints beyond 64 bits, lone
    surrogates), so that a JSON-minded value still makes a frame."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return max(-(2**63), min(2**64 - 1, value))
    if isinstance(value, str):
        return value.encode("utf-8", "replace").decode("utf-8")
    if isinstance(value, dict):
        return {msgpack_safe(k): msgpack_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [msgpack_safe(v) for v in value]
    return value


def encode(me: Me, msg: Any, rng: random.Random) -> tuple[bytes | str, bool]:
    """``msg`` in the connection's encoding: ``(data, text frame?)``."""
    if me.binary:
        return msgpack.packb(msgpack_safe(msg), use_bin_type=True), False
    ascii_only = rng.random() < 0.5 or _has_surrogate(msg)
    return json.dumps(msg, ensure_ascii=ascii_only, allow_nan=True, default=repr), True


def _has_surrogate(value: Any) -> bool:
    if isinstance(value, str):
        return any("\ud800" <= c <= "\udfff" for c in value)
    if isinstance(value, dict):
        return any(_has_surrogate(k) or _has_surrogate(v) for k, v in value.items())
    if isinstance(value, list | tuple):
        return any(_has_surrogate(v) for v in value)
    return False


# --- the protocol document's rules, read independently ---------------------------------------


def _number_ok(value: Any) -> bool:
    if isinstance(value, bool):
        return True
    if isinstance(value, int):
        return -SAFE_INTEGER <= value <= SAFE_INTEGER
    if isinstance(value, float):
        return math.isfinite(value)
    return True


def _values_ok(value: Any, depth: int) -> bool:
    """Numbers finite and within +-(2**53 - 1), containers at most 16 deep (the message
    itself is the first level)."""
    if isinstance(value, dict | list | tuple):
        if depth >= MAX_DEPTH:
            return False
        items = value.values() if isinstance(value, dict) else value
        return all(_values_ok(v, depth + 1) for v in items)
    return _number_ok(value)


def _field_ok(kind: str, lo: int | None, hi: int | None, value: Any) -> bool:
    if kind == "str":
        return isinstance(value, str) and (lo is None or len(value) >= lo) and (hi is None or len(value) <= hi)
    if kind == "int":
        return (isinstance(value, int) and not isinstance(value, bool)
                and (lo is None or value >= lo) and (hi is None or value <= hi))
    if kind == "bool":
        return isinstance(value, bool)
    return isinstance(value, dict) and all(isinstance(k, str) for k in value)


def schema_verdict(msg: Any) -> str | None:
    """``bad_message`` or ``unknown_type`` when docs/protocol.md says the server must
    refuse ``msg`` before doing anything, else None (a missing field is one that is
    absent or null)."""
    if not isinstance(msg, dict) or not isinstance(msg.get("t"), str):
        return "bad_message"
    ref = msg.get("ref")
    if ref is not None and (isinstance(ref, bool) or not isinstance(ref, str | int)
                            or (isinstance(ref, str) and len(ref) > 64)):
        return "bad_message"
    fields = SCHEMA.get(msg["t"])
    if fields is None:
        return "unknown_type"
    if not all(_values_ok(msg[name], 1) for name in fields if name in msg):
        return "bad_message"  # unknown extra fields are ignored, whatever they hold
    for name, (kind, required, lo, hi) in fields.items():
        value = msg.get(name)
        if value is None:
            if required:
                return "bad_message"
        elif not _field_ok(kind, lo, hi, value):
            return "bad_message"
    return None


def reply_ref(msg: Any) -> int | str | None:
    """The ``ref`` the server will copy into its reply (a string or a non-bool int)."""
    ref = msg.get("ref") if isinstance(msg, dict) else None
    return ref if isinstance(ref, str | int) and not isinstance(ref, bool) else None


# --- the generator ---------------------------------------------------------------------------


class FrameMaker:
    """Draws the next frame(s) for a connection. ``exclude`` names what to leave out:
    families or variants by the start of their label (``flood``, ``bad_msgpack:deep``),
    ``surrogates`` (lone surrogates in JSON strings) or ``lobby_watch`` (the ``watch``
    field of ``list_rooms``)."""

    def __init__(self, rng: random.Random, games: dict[str, Game], exclude: frozenset[str] = frozenset()) -> None:
        self.rng = rng
        self.games = games
        self.exclude = exclude
        self.surrogates = "surrogates" not in exclude
        self.families: list[tuple[str, float, Callable[[Me, World], list[Frame]]]] = [
            (name, weight, fn) for name, weight, fn in (
                ("bytes", 4, self.random_bytes),
                ("bad_json", 4, self.bad_json),
                ("bad_msgpack", 4, self.bad_msgpack),
                ("wrong_kind", 2, self.wrong_kind),
                ("shape", 5, self.wrong_shape),
                ("unknown_type", 3, self.unknown_type),
                ("fields", 20, self.bad_fields),
                ("values", 10, self.bad_values),
                ("deep", 3, self.deep),
                ("long", 3, self.long_strings),
                ("size", 2.5, self.sizes),
                ("fragmented", 1, self.fragmented),
                ("state", 25, self.in_state),
                ("replay", 4, self.replay),
                ("token", 2, self.tokens),
                ("create", 6, self.create),
                ("over_hard", 0.08, self.over_hard),
                ("invalid_utf8", 0.15, self.invalid_utf8),
                ("flood", 0.12, self.flood),
            ) if name not in exclude
        ]
        self._weights = [w for _, w, _ in self.families]

    def next(self, me: Me, world: World) -> list[Frame]:
        """The next frame(s) to send on ``me``'s connection (none whose label starts
        with an excluded name)."""
        for _ in range(50):
            _, _, make = self.rng.choices(self.families, self._weights)[0]
            frames = make(me, world)
            if not any(f.label.startswith(x) for f in frames for x in self.exclude):
                return frames
        return [self.frame(me, {"t": "ping", "ref": self._ref(me)}, "ping")]

    # --- helpers ------------------------------------------------------------------------

    def frame(self, me: Me, msg: Any, label: str, expect: Expect | None = None) -> Frame:
        """``msg`` encoded for ``me``'s connection, with what its answer may be."""
        data, text = encode(me, msg, self.rng)
        ref = reply_ref(msg)
        if expect is None and ref is not None:
            expect = self._expect_for(me, msg, data)
        if isinstance(msg, dict) and msg.get("t") == "hello":
            me.said_hello = True  # even if refused: from now on "before hello" is not certain
        return Frame(data, label, text, ref, expect)

    def _expect_for(self, me: Me, msg: Any, data: bytes | str) -> Expect | None:
        """What docs/protocol.md fixes about the answer to ``msg`` as encoded."""
        if not me.binary and isinstance(data, str) and ("NaN" in data or "Infinity" in data):
            return None  # JSON cannot carry them: refused as bad_frame, without a ref
        verdict = schema_verdict(msg if not me.binary else msgpack_safe(msg))
        if verdict is not None:
            return Expect(frozenset({verdict}))
        t = msg["t"]
        if t == "ping":
            return Expect(frozenset({"pong"}))
        if not me.said_hello and t != "hello":
            return Expect(frozenset({"not_authenticated"}))
        if me.authenticated and t == "hello":
            return Expect(frozenset({"already_authenticated"}))
        # an act's action is checked against its game's declared actions, whose shapes
        # this oracle does not model: there bad_message is as documented as an engine code
        # (a say's text too: its length counts once its spaces are tidied)
        shape_errors = {"bad_message"} if t not in ("hello", "act", "say") else set()
        return Expect(forbidden=frozenset({"unknown_type", "internal_error"} | shape_errors))

    def _ref(self, me: Me) -> int:
        return me.new_ref()

    def _room(self, me: Me, world: World) -> str:
        pick = self.rng.random()
        if pick < 0.4 and me.seated:
            return self.rng.choice(list(me.seated))
        if pick < 0.6 and world.honest:
            return self.rng.choice(world.honest)
        if pick < 0.85 and world.rooms:
            return self.rng.choice(list(world.rooms))
        if pick < 0.9 and me.created:
            return self.rng.choice(me.created)
        return self.rng.choice(("r-00000000", "r-deadbeef", "x", "r-" + "0" * 62, "lobby", "*", "r-1a2b3c4d"))

    def _game_of(self, room: str, world: World) -> str:
        return world.rooms.get(room) or self.rng.choice(list(self.games))

    def _int(self) -> int:
        return self.rng.choice((0, 1, 2, 3, 5, 10, 20, 40, 99, 100, 200, 1000, 5000, 10**6, -1, -100))

    def action(self, game: str) -> dict[str, Any]:
        """A plausible action of ``game`` (often illegal, sometimes not)."""
        rng = self.rng
        kind = rng.choice(ACTION_TYPES.get(game, ("fold",))) if rng.random() < 0.9 else rng.choice(JUNK_TYPES)
        action: dict[str, Any] = {"type": kind}
        if kind in ("raise", "bet"):
            action["to" if game == "holdem" else "stake"] = self._int()
        elif kind == "compare":
            action["target"] = rng.choice((0, 1, 2, 3, 8, 9, -1))
        elif kind == "bid":
            action["value"] = rng.choice((0, 1, 2, 3, 4))
        elif kind == "play":
            if rng.random() < 0.5:
                action["cards"] = "".join(rng.choice(DDZ_RANKS) for _ in range(rng.randint(0, 8)))
            else:
                action["cards"] = [rng.randrange(-2, 56) for _ in range(rng.randint(0, 6))]
        return action

    def request(self, me: Me, world: World, t: str | None = None) -> dict[str, Any]:
        """A message that passes the schema: ``t`` (or a random type) with plausible fields."""
        rng = self.rng
        t = t or rng.choice(("hello", "list_rooms", "create_room", "ping") + ROOM_REQUESTS * 3)
        msg: dict[str, Any] = {"t": t, "ref": self._ref(me)}
        if t == "hello":
            if me.token and rng.random() < 0.3:
                msg["token"] = me.token
            elif world.tokens and rng.random() < 0.2:
                msg["token"] = rng.choice(world.tokens)
            else:
                msg["name"] = rng.choice(("fuzz", "  spaced  out ", "名字", "x" * 32, "a\tb", "\u200b"))
        elif t == "list_rooms":
            if rng.random() < 0.5:
                msg["game"] = rng.choice(list(self.games) + ["poker", "x"])
            if rng.random() < 0.5 and "lobby_watch" not in self.exclude:
                msg["watch"] = rng.random() < 0.5
        elif t == "create_room":
            msg.update(self.room_request())
        elif t in ROOM_REQUESTS:
            msg["room"] = self._room(me, world)
            if t in ("join", "spectate") and rng.random() < 0.3:
                code = world.codes.get(msg["room"])
                msg["code"] = code if code and rng.random() < 0.7 else rng.choice(("ABCDEFGH", "x", "k7qx3mpa", "0" * 16))
            if t == "join":
                if rng.random() < 0.5:
                    msg["seat"] = rng.choice((0, 1, 2, 3, 5, 9, 1000))
                if rng.random() < 0.5:
                    msg["buy_in"] = rng.choice((0, 1, 50, 100, 1000, 9999, 10_000, 10_001, 10**12))
            elif t == "say":
                msg["text"] = rng.choice(CHAT_LINES)
            elif t == "act":
                msg["action"] = self.action(self._game_of(msg["room"], world))
                msg["id"] = f"f{me.last_ref}" if rng.random() < 0.9 else rng.choice(("a", "x" * 64, "v1", "bot-v3"))
        return msg

    def room_request(self) -> dict[str, Any]:
        """``game``, ``options`` and ``config`` of a create_room: mostly sensible, with
        random wrong keys and values."""
        rng = self.rng
        name = rng.choice(list(self.games)) if rng.random() < 0.93 else rng.choice(("poker", "", "HOLDEM", "x" * 32))
        out: dict[str, Any] = {"game": name}
        game = self.games.get(name)
        if game is None:
            return out
        options: dict[str, Any] = {}
        for opt in room_options(game):
            if rng.random() < 0.35:
                options[opt.name] = self._option_value(opt.type, opt.min, opt.max, opt.choices)
        if rng.random() < 0.6:  # rooms where hands move: short clocks, sometimes bots
            options.setdefault("action_seconds", rng.choice((0.1, 0.5, 1, 2)))
            options.setdefault("between_hands_seconds", rng.choice((0, 0.2, 1)))
            options.setdefault("bot_delay_seconds", rng.choice((0, 0.05, 0.3)))
            if rng.random() < 0.5:
                options.setdefault("bots", rng.randint(1, max(1, min(3, game.max_players - 1))))
        if rng.random() < 0.1:
            options[rng.choice(("colour", "seats ", "", "__class__"))] = hostile_scalar(rng, False, False)
        config: dict[str, Any] = {}
        for opt in game.options:
            if rng.random() < 0.3:
                config[opt.name] = self._option_value(opt.type, opt.min, opt.max, opt.choices)
        if rng.random() < 0.1:
            config[rng.choice(("button", "deck", "seats", "unknown"))] = hostile_scalar(rng, False, False)
        if options or rng.random() < 0.5:
            out["options"] = options
        if config or rng.random() < 0.5:
            out["config"] = config
        return out

    def _option_value(self, kind: type, lo: Any, hi: Any, choices: Any) -> Any:
        rng = self.rng
        if rng.random() < 0.15:
            return hostile_scalar(rng, False, self.surrogates)
        if choices:
            return rng.choice(list(choices) + ["", "nope"])
        if kind is bool:
            return rng.random() < 0.5
        if kind is str:
            return rng.choice(("table", "x" * 64, "x" * 65, "  ", "ok table", "名"))
        edges = [v for v in (lo, hi) if v is not None]
        near = [e + d for e in edges for d in (-1, 0, 1)]
        value = rng.choice(near + [0, 1, 2, 3, 5, 10, 10**12, 10**12 + 1])
        return float(value) + rng.choice((0, 0.5)) if kind is float else value

    # --- families ----------------------------------------------------------------------

    def random_bytes(self, me: Me, world: World) -> list[Frame]:
        data = self.rng.randbytes(self.rng.choice((0, 1, 2, 7, 64, 600)))
        if me.binary or self.rng.random() < 0.3:
            return [Frame(data, "bytes:binary", False)]
        text = data.decode("latin-1")  # valid UTF-8 once encoded: garbage, not a UTF-8 error
        return [Frame(text, "bytes:text", True)]

    def bad_json(self, me: Me, world: World) -> list[Frame]:
        ref = self._ref(me)
        variants = {
            "truncated": f'{{"t":"ping","ref":{ref}',
            "trailing": f'{{"t":"ping","ref":{ref}}} {{}}',
            "nan": f'{{"t":"ping","ref":{ref},"x":NaN}}',
            "infinity": f'{{"t":"ping","ref":{ref},"x":-Infinity}}',
            "exp_overflow": f'{{"t":"ping","ref":{ref},"x":1e999}}',
            "long_int": f'{{"t":"ping","ref":{ref},"x":{"9" * 5000}}}',
            "deep": "[" * 100_000 + "]" * 100_000,
            "single_quotes": "{'t':'ping'}",
            "comment": '{"t":"ping"} // hi',
            "bom": '\ufeff{"t":"ping"}',
            "empty": "",
            "control": '{"t":"pi\x01ng"}',
            "dup_keys": f'{{"t":"act","t":"ping","ref":{ref}}}',
        }
        name = self.rng.choice(list(variants))
        data = variants[name]
        expect = None
        if name == "exp_overflow":  # 1e999 is infinity, but in a field pings do not have: ignored
            expect = Expect(frozenset({"pong"}))
        elif name == "dup_keys":  # the last key wins, as in every JSON reader used here
            expect = Expect(frozenset({"pong"}))
        if me.binary:
            return [Frame(data, f"bad_json:{name}:on_msgpack", True)]
        return [Frame(data, f"bad_json:{name}", True, ref if expect else None, expect)]

    def bad_msgpack(self, me: Me, world: World) -> list[Frame]:
        good = msgpack.packb({"t": "ping", "ref": self._ref(me)})
        variants = {
            "truncated": good[:-1],
            "trailing": good + b"\xc0",
            "bad_utf8_str": b"\x82\xa1t\xa4pi\xffg\xa3ref\x01",
            "surrogate_str": b"\x81\xa1t\xa3\xed\xa0\x80",
            "int_key": msgpack.packb({1: "ping"}),
            "bin_key": msgpack.packb({b"t": "ping"}, use_bin_type=True),
            "deep": b"\x91" * 5000 + b"\xc0",
            "never_used": b"\xc1",
            "huge_len": b"\xdb\xff\xff\xff\xff",
            "ext": msgpack.packb(msgpack.ExtType(3, b"abc")),
            "nil": b"\xc0",
            "float_key": b"\x81\xcb" + b"\0" * 8 + b"\x01",
        }
        name = self.rng.choice(list(variants))
        if not me.binary:
            return [Frame(variants[name], f"bad_msgpack:{name}:on_json", False)]
        return [Frame(variants[name], f"bad_msgpack:{name}", False)]

    def wrong_kind(self, me: Me, world: World) -> list[Frame]:
        msg = {"t": "ping", "ref": self._ref(me)}
        if me.binary:
            return [Frame(json.dumps(msg), "wrong_kind:text_on_msgpack", True)]
        return [Frame(msgpack.packb(msg), "wrong_kind:binary_on_json", False)]

    def wrong_shape(self, me: Me, world: World) -> list[Frame]:
        ref = self._ref(me)
        shapes: list[tuple[str, Any]] = [
            ("list", [{"t": "ping", "ref": ref}]), ("number", 42), ("float", 1.5), ("string", "ping"),
            ("null", None), ("true", True), ("empty_map", {}), ("t_int", {"t": 5, "ref": ref}),
            ("t_list", {"t": ["ping"], "ref": ref}), ("t_map", {"t": {"t": "ping"}, "ref": ref}),
            ("t_null", {"t": None, "ref": ref}), ("T_upper", {"T": "ping", "ref": ref}),
            ("nested_maps", {"t": "ping", "ref": ref, "a": {"b": {"c": {"d": {}}}}}),
            ("list_of_maps", [{"t": "hello", "name": "x"}, {"t": "ping"}]),
            ("ref_float", {"t": "ping", "ref": 1.0}), ("ref_bool", {"t": "ping", "ref": True}),
            ("ref_list", {"t": "ping", "ref": [ref]}), ("ref_long", {"t": "ping", "ref": "r" * 65}),
            ("ref_64", {"t": "ping", "ref": "s" + "r" * 62 + str(ref % 10)}),
        ]
        name, msg = self.rng.choice(shapes)
        return [self.frame(me, msg, f"shape:{name}")]

    def unknown_type(self, me: Me, world: World) -> list[Frame]:
        t = self.rng.choice(JUNK_TYPES + ("PING", "pong", "welcome", "error", "room", "event", "ack", "x" * 1000))
        return [self.frame(me, {"t": t, "ref": self._ref(me), "room": self._room(me, world)}, "unknown_type")]

    def bad_fields(self, me: Me, world: World) -> list[Frame]:
        msg = self.request(me, world)
        names = [n for n in list(SCHEMA[msg["t"]]) + [k for k in msg if k not in ("t", "ref")]]
        how = self.rng.choice(("drop", "retype", "extra", "null"))
        if how == "drop" or not names:
            required = [n for n, spec in SCHEMA[msg["t"]].items() if spec[1]]
            if required:
                msg.pop(self.rng.choice(required), None)
            how = "drop"
        elif how == "retype":
            msg[self.rng.choice(names)] = hostile_scalar(self.rng, me.binary, self.surrogates)
        elif how == "null":
            msg[self.rng.choice(names)] = None
        else:
            for _ in range(self.rng.randint(1, 5)):
                key = self.rng.choice(("x", "extra", "__proto__", "only", "secret", "seat", "player", "ref2", "é"))
                msg[key] = hostile_scalar(self.rng, me.binary, self.surrogates)
        return [self.frame(me, msg, f"fields:{msg['t']}:{how}")]

    def bad_values(self, me: Me, world: World) -> list[Frame]:
        """NaN, inf or a huge int at a random place of a well-formed request."""
        msg = self.request(me, world)
        value = self.rng.choice((float("nan"), float("inf"), float("-inf"), 2**53, -(2**53), 2**63, 2**64 - 1)
                                + (() if me.binary else (2**64, 2**70, -(2**65))))
        path = _plant(msg, value, self.rng)
        return [self.frame(me, msg, f"values:{msg['t']}:{path}")]

    def deep(self, me: Me, world: World) -> list[Frame]:
        total = self.rng.choice((15, 16, 17, 18, 40))  # levels, the message itself included
        as_map = self.rng.random() < 0.5
        msg = {"t": "ping", "ref": self._ref(me), "x": _nested(total - 1, 1, as_map)}
        return [self.frame(me, msg, f"deep:{total}:{'maps' if as_map else 'lists'}")]

    def long_strings(self, me: Me, world: World) -> list[Frame]:
        rng = self.rng
        length = rng.choice((32, 33, 64, 65, 128, 129, 1000, 30_000))
        filler = rng.choice(("x", "é", "😀"))
        t, key = rng.choice((("hello", "name"), ("hello", "token"), ("join", "room"), ("act", "id"),
                             ("list_rooms", "game"), ("create_room", "game"), ("ping", "ref")))
        msg = self.request(me, world, t)
        msg[key] = filler * length
        return [self.frame(me, msg, f"long:{t}.{key}:{length}")]

    def sizes(self, me: Me, world: World) -> list[Frame]:
        """A ping padded to one byte under the protocol limit, exactly to it, one byte
        over it, or far over it (but under the hard limit)."""
        target = self.rng.choice((MAX_FRAME - 1, MAX_FRAME, MAX_FRAME + 1, 300_000, HARD_MAX_FRAME - 64))
        ref = self._ref(me)
        msg = {"t": "ping", "ref": ref, "pad": ""}
        base = _size(encode(me, msg, self.rng)[0])
        data: bytes | str = b""
        text = False
        for shrink in range(8):  # msgpack's length prefix grows with the string
            msg["pad"] = "p" * max(0, target - base - shrink)
            data, text = encode(me, msg, self.rng)
            if _size(data) <= target:
                break
        size = _size(data)
        if size <= MAX_FRAME:
            return [Frame(data, f"size:{size}", text, ref, Expect(frozenset({"pong"})))]
        return [Frame(data, f"size:{size}", text)]

    def fragmented(self, me: Me, world: World) -> list[Frame]:
        msg = {"t": "ping", "ref": self._ref(me)}
        data, text = encode(me, msg, self.rng)
        cut = max(1, len(data) // 3)
        parts = [data[:cut], data[cut:2 * cut], data[2 * cut:]]
        if text:
            return [Frame([str(p) for p in parts], "fragmented", True, msg["ref"], Expect(frozenset({"pong"})))]
        return [Frame([bytes(p) for p in parts], "fragmented", False, msg["ref"], Expect(frozenset({"pong"})))]

    def in_state(self, me: Me, world: World) -> list[Frame]:
        """A well-formed request, whatever the connection's state: before hello, hello
        twice, join twice, act with no hand or out of turn, leave what is not held, act
        in other players' rooms."""
        rng = self.rng
        if not me.said_hello and rng.random() < 0.4:
            msg = self.request(me, world, rng.choice(("join", "act", "list_rooms", "create_room", "leave")))
            return [self.frame(me, msg, f"state:before_hello:{msg['t']}")]
        if me.seated and rng.random() < 0.5:  # act, often out of turn, in a room we sit in
            room = rng.choice(list(me.seated))
            msg = {"t": "act", "ref": self._ref(me), "room": room, "action": self.action(self._game_of(room, world)),
                   "id": f"f{me.last_ref}"}
            return [self.frame(me, msg, "state:act_seated")]
        msg = self.request(me, world)
        where = "honest" if msg.get("room") in world.honest else "any"
        return [self.frame(me, msg, f"state:{msg['t']}:{where}")]

    def replay(self, me: Me, world: World) -> list[Frame]:
        """An action id that was accepted before, resent (with its action or another)."""
        if not me.acked:
            return self.in_state(me, world)
        room, aid, action = self.rng.choice(me.acked[-40:])
        if self.rng.random() < 0.5:
            action = self.action(self._game_of(room, world))
        msg = {"t": "act", "ref": self._ref(me), "room": room, "action": action, "id": aid}
        return [self.frame(me, msg, "replay:act")]

    def tokens(self, me: Me, world: World) -> list[Frame]:
        rng = self.rng
        token = rng.choice((
            "0" * 32, "f" * 128, "g" * 32, "' OR 1=1 --", "*", "token:*", rng.randbytes(16).hex(),
            (me.token or "x")[:-1] + "0", (me.token or "x").upper(), " " + (me.token or "x"),
        ))
        msg = {"t": "hello", "ref": self._ref(me), "token": token}
        if rng.random() < 0.3:  # an identity token, forged or junk (the server may take none)
            msg = {"t": "hello", "ref": self._ref(me), "id_token": rng.choice((
                "eyJhbGciOiJub25lIn0.eyJzdWIiOiJhZG1pbiIsImV4cCI6OTk5OTk5OTk5OX0.", "a.b.c", "x" * 8192,
                "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln"))}
        return [self.frame(me, msg, "token:bad")]

    def create(self, me: Me, world: World) -> list[Frame]:
        msg = {"t": "create_room", "ref": self._ref(me), **self.room_request()}
        return [self.frame(me, msg, f"create:{msg['game'][:12]}")]

    def over_hard(self, me: Me, world: World) -> list[Frame]:
        size = HARD_MAX_FRAME + self.rng.choice((1, 1000, 100_000))
        if me.binary:
            return [Frame(b"\x00" * size, "over_hard", False, closes=CLOSE_TOO_BIG)]
        return [Frame("x" * size, "over_hard", True, closes=CLOSE_TOO_BIG)]

    def invalid_utf8(self, me: Me, world: World) -> list[Frame]:
        data = self.rng.choice((b'{"t":"ping","x":"\xff"}', b"\xc3\x28", b"\xed\xa0\x80", b"\xf8\x88\x80\x80\x80"))
        return [Frame(data, "invalid_utf8:text", True, closes=CLOSE_BAD_DATA)]

    def flood(self, me: Me, world: World) -> list[Frame]:
        """More frames at once than the rate limit lets through (it may close with 1008)."""
        count = self.rng.randint(50, 110)
        frames = []
        for _ in range(count):
            msg = {"t": "ping", "ref": self._ref(me)} if self.rng.random() < 0.7 else self.request(me, world)
            frames.append(self.frame(me, msg, "flood", Expect()))
        return frames


def _plant(msg: dict[str, Any], value: Any, rng: random.Random) -> str:
    """Put ``value`` somewhere in ``msg`` (a new key at any level, or a list item);
    returns where, as a path."""
    containers: list[tuple[str, Any]] = [("", msg)]
    stack: list[tuple[str, Any]] = [("", msg)]
    while stack:
        path, node = stack.pop()
        items = node.items() if isinstance(node, dict) else enumerate(node)
        for k, v in items:
            if isinstance(v, dict | list):
                sub = f"{path}.{k}" if path else str(k)
                containers.append((sub, v))
                stack.append((sub, v))
    path, node = rng.choice(containers)
    if isinstance(node, list):
        node.append(value)
        return f"{path}[]"
    key = rng.choice(("x", "z", "n")) if rng.random() < 0.5 or path == "" else rng.choice(list(node) or ["x"])
    if path == "" and key in ("t", "ref"):
        key = "x"
    node[key] = value
    return f"{path}.{key}" if path else key


def _size(data: bytes | str) -> int:
    return len(data.encode("utf-8")) if isinstance(data, str) else len(data)


def random_name(rng: random.Random) -> str:
    return "fz-" + "".join(rng.choice(string.ascii_lowercase) for _ in range(6))
