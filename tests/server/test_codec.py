"""Decoding and schema checks, unit level."""

from __future__ import annotations

import asyncio
import json

import msgpack
import pytest

from server.edge.codec import Codec
from server.edge.messages import Act, Ping
from server.edge.messages import parse as validate_message
from server.edge.protocol import ProtocolError
from server.edge.session import TokenBucket


def code_of(fn, *args):
    with pytest.raises(ProtocolError) as info:
        fn(*args)
    return info.value.code


def test_both_codecs_round_trip_the_same_message():
    msg = {"t": "act", "room": "r", "action": {"type": "raise", "amount": 40}, "id": "1", "ref": 3}
    for proto in ("cardroom.json", "cardroom.msgpack"):
        c = Codec(proto, 65536)
        assert c.decode(c.encode(msg)) == msg
    assert isinstance(Codec("cardroom.msgpack", 65536).encode(msg), bytes)
    assert isinstance(Codec("cardroom.json", 65536).encode(msg), str)


@pytest.mark.parametrize("frame", ["{", "[1,", "\ud800", '{"a": Infinity}', "[" * 100_000])
def test_undecodable_json_is_bad_frame(frame):
    assert code_of(Codec("cardroom.json", 10**6).decode, frame) == "bad_frame"


@pytest.mark.parametrize("frame", [b"\xc1", b"\x92\x01", msgpack.packb({1: 2}), b"\x91" * 5000, msgpack.ExtType(1, b"x") and msgpack.packb(msgpack.ExtType(1, b"x"))])
def test_undecodable_msgpack_is_bad_frame(frame):
    c = Codec("cardroom.msgpack", 65536)
    try:
        decoded = c.decode(frame)
    except ProtocolError as exc:
        assert exc.code == "bad_frame"
    else:  # decodes, but is no valid message
        assert code_of(validate_message, decoded) == "bad_message"


def test_size_limit_counts_utf8_bytes():
    c = Codec("cardroom.json", 300)
    assert code_of(c.decode, json.dumps({"t": "ping", "x": "é" * 200}, ensure_ascii=False)) == "frame_too_large"


@pytest.mark.parametrize("msg, code", [
    ([], "bad_message"),
    ({"x": 1}, "bad_message"),
    ({"t": "nope"}, "unknown_type"),
    ({"t": "ping", "ref": [1]}, "bad_message"),
    ({"t": "ping", "ref": True}, "bad_message"),
    ({"t": "ping", "ref": "x" * 65}, "bad_message"),
    ({"t": "hello", "name": ""}, "bad_message"),
    ({"t": "hello", "name": "x" * 33}, "bad_message"),
    ({"t": "act", "room": "r", "id": "1", "action": {1: 2}}, "bad_message"),
])
def test_shape_errors(msg, code):
    assert code_of(validate_message, msg) == code


def test_unknown_extra_fields_are_ignored():
    assert validate_message({"t": "ping", "extra": 1}) == Ping()
    deep: list = []
    for _ in range(40):
        deep = [deep]
    assert validate_message({"t": "ping", "extra": deep, "nan": float("nan"), "big": 2**70}) == Ping()


def test_a_message_becomes_its_typed_struct_and_errors_name_the_field():
    msg = validate_message({"t": "act", "room": "r-1", "action": {"type": "bet", "amount": 5}, "id": "a1", "ref": 9})
    assert msg == Act(room="r-1", action={"type": "bet", "amount": 5}, id="a1", ref=9) and msg.t == "act"
    for bad, field in [({"t": "join", "room": "r", "seat": "3"}, "seat"), ({"t": "join", "room": "r", "seat": 1001}, "seat"),
                       ({"t": "join"}, None), ({"t": "join", "room": "r", "buy_in": 1.5}, "buy_in"),
                       ({"t": "create_room", "game": "g", "options": {"x": [[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]}},
                        None)]:
        with pytest.raises(ProtocolError) as info:
            validate_message(bad)
        assert info.value.code == "bad_message"
        if field:
            assert info.value.field == field, info.value.message


def test_token_bucket_allows_a_burst_then_the_rate():
    now = [0.0]
    b = TokenBucket(rate=2, burst=3, clock=lambda: now[0])
    assert [b.take() for _ in range(4)] == [True, True, True, False]
    now[0] += 0.5
    assert b.take() and not b.take()


# --- frames shared by many connections --------------------------------------------------------


class CapturingSocket:
    """A connection that keeps what the session's writer sends it."""

    def __init__(self) -> None:
        self.sent: list[tuple[bytes, bool]] = []

    async def send_many(self, payloads, text):
        self.sent.extend((p, text) for p in payloads)


class ReadySocket(CapturingSocket):
    """One that also takes a frame at once (as server.edge.transport.Connection.send_now)."""

    def send_now(self, payload, text):
        self.sent.append((payload, text))
        return True


async def _flushed(*sockets: CapturingSocket, count: int) -> None:
    for _ in range(100):
        if all(len(s.sent) >= count for s in sockets):
            return
        await asyncio.sleep(0)
    raise AssertionError([s.sent for s in sockets])


@pytest.mark.parametrize("socket", [CapturingSocket, ReadySocket], ids=["queued", "at_once"])
async def test_one_message_sent_to_many_connections_is_encoded_once_per_encoding(socket):
    from server.edge.session import Session, TurnFrames

    frames = TurnFrames()
    sockets = [socket() for _ in range(4)]
    codecs = ["cardroom.json", "cardroom.json", "cardroom.json", "cardroom.msgpack"]
    sessions = [Session(ws, Codec(c, 65536), rate=10, burst=10, queue_size=8, frames=frames)
                for ws, c in zip(sockets, codecs, strict=True)]
    update = {"t": "update", "room": "r-1", "version": 7, "base": 6, "events": [], "patch": {"hand_no": 3}}
    for s in sessions:
        s.send(update)
    await _flushed(*sockets, count=1)
    (a, text_a), (b, _), (c, _), (d, text_d) = (ws.sent[0] for ws in sockets)
    assert a is b is c and text_a is True  # the JSON connections share one encoding
    assert json.loads(a) == update and msgpack.unpackb(d) == update and text_d is False


@pytest.mark.parametrize("socket", [CapturingSocket, ReadySocket], ids=["queued", "at_once"])
async def test_a_later_message_is_never_sent_as_an_earlier_ones_frame(socket):
    """Frames are kept by message object for one turn only: a new message, even one that
    happens to get a freed message's ``id``, is encoded anew."""
    from server.edge.session import Session, TurnFrames

    frames = TurnFrames()
    ws = socket()
    s = Session(ws, Codec("cardroom.json", 65536), rate=10, burst=10, queue_size=8, frames=frames)
    for i in range(50):
        s.send({"t": "pong", "ref": i})  # a new dict each time: ids of freed ones come back
        await _flushed(ws, count=i + 1)
    assert [json.loads(p)["ref"] for p, _ in ws.sent] == list(range(50))


def test_the_payload_is_the_frame_as_bytes():
    msg = {"t": "error", "code": "bad_message", "message": "généreux 炸金花", "ref": 1}
    json_codec, msgpack_codec = Codec("cardroom.json", 65536), Codec("cardroom.msgpack", 65536)
    assert json_codec.payload(msg) == json_codec.encode(msg).encode()
    assert msgpack_codec.payload(msg) == msgpack_codec.encode(msg)
