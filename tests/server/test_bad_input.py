"""Bad input over real sockets: each gets a stable error code, changes nothing, and the
connection survives (except for floods and oversize frames, which close it)."""

from __future__ import annotations

import asyncio
import json

import msgpack
import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus

from server.app import App
from server.room.log import load_room

from .test_play import new_room, seated_pair
from .wsclient import Client


async def still_alive(c: Client) -> None:
    assert (await c.request({"t": "ping"}))["t"] == "pong"


async def test_malformed_json_is_bad_frame(connect):
    c = await connect("alice")
    await c.send_raw('{"t": "ping", ')
    err = await c.expect("error")
    assert err["code"] == "bad_frame"
    await still_alive(c)


async def test_malformed_msgpack_is_bad_frame(connect):
    c = await connect("alice", subprotocol="cardroom.msgpack")
    await c.send_raw(b"\xc1\xff\x00garbage")
    assert (await c.expect("error"))["code"] == "bad_frame"
    await still_alive(c)


async def test_text_frame_on_msgpack_and_binary_on_json_are_bad_frames(connect):
    m = await connect("alice", subprotocol="cardroom.msgpack")
    await m.send_raw(json.dumps({"t": "ping"}))
    assert (await m.expect("error"))["code"] == "bad_frame"
    j = await connect("bob")
    await j.send_raw(msgpack.packb({"t": "ping"}))
    assert (await j.expect("error"))["code"] == "bad_frame"


async def test_json_nan_is_refused(connect):
    c = await connect("alice")
    await c.send_raw('{"t": "join", "room": "r", "buy_in": NaN}')
    assert (await c.expect("error"))["code"] == "bad_frame"


@pytest.mark.parametrize("msg, field", [
    ({"t": "join", "room": 5}, "room"),
    ({"t": "join", "room": "r", "seat": "1"}, "seat"),
    ({"t": "join", "room": "r", "seat": True}, "seat"),
    ({"t": "join", "room": "r", "buy_in": -5}, "buy_in"),
    ({"t": "act", "room": "r", "action": "fold", "id": "1"}, "action"),
    ({"t": "act", "room": "r", "action": {"type": "fold"}}, "id"),
    ({"t": "list_rooms", "watch": "yes"}, "watch"),
    ({"t": 7}, "t"),
])
async def test_wrong_field_types_are_bad_message_naming_the_field(connect, msg, field):
    c = await connect("alice")
    await c.send(dict(msg, ref="r1"))
    err = await c.expect("error", ref="r1")
    assert err["code"] == "bad_message" and err["field"] == field


async def test_a_message_that_is_not_a_map_is_bad_message(connect):
    c = await connect("alice")
    await c.send_raw("[1, 2, 3]")
    assert (await c.expect("error"))["code"] == "bad_message"


async def test_unknown_type(connect):
    c = await connect("alice")
    err = await c.request({"t": "teleport"})
    assert err["code"] == "unknown_type"


async def test_requests_before_hello_are_not_authenticated(connect):
    c = await connect()
    err = await c.request({"t": "list_rooms"})
    assert err["code"] == "not_authenticated"
    assert (await c.request({"t": "hello", "token": "0" * 32}))["code"] == "bad_token"
    assert (await c.hello("alice"))["t"] == "welcome"
    assert (await c.request({"t": "hello", "name": "again"}))["code"] == "already_authenticated"


async def test_a_client_of_another_protocol_version_is_told_which_one_the_server_speaks(connect):
    from server.edge.protocol import PROTOCOL_VERSION

    c = await connect()
    err = await c.request({"t": "hello", "name": "alice", "protocol": PROTOCOL_VERSION + 1})
    assert err["code"] == "unsupported_protocol" and err["field"] == "protocol"
    assert err["protocol"] == PROTOCOL_VERSION and f"version {PROTOCOL_VERSION}" in err["message"]
    assert (await c.request({"t": "list_rooms"}))["code"] == "not_authenticated"  # nobody was made
    assert (await c.request({"t": "hello", "name": "alice", "protocol": 0}))["code"] == "bad_message"
    welcome = await c.request({"t": "hello", "name": "alice", "protocol": PROTOCOL_VERSION})
    assert welcome["t"] == "welcome" and welcome["protocol"] == PROTOCOL_VERSION
    plain = await (await connect()).request({"t": "hello", "name": "bob"})  # a client that says none
    assert plain["t"] == "welcome" and plain["protocol"] == PROTOCOL_VERSION


async def test_frame_over_the_protocol_limit_is_frame_too_large_and_the_connection_survives(connect):
    c = await connect("alice")
    await c.send_raw(json.dumps({"t": "ping", "pad": "x" * 70_000, "ref": 9}))
    err = await c.expect("error")
    assert err["code"] == "frame_too_large"
    await still_alive(c)


async def test_frame_over_the_hard_limit_closes_with_1009(connect):
    c = await connect("alice")
    await c.send_raw("x" * (1024 * 1024 + 10))
    with pytest.raises(ConnectionClosed) as info:
        for _ in range(10):
            await c.expect("nothing", timeout=5)
    assert info.value.rcvd.code == 1009


async def test_flood_is_rate_limited_then_closed_with_1008(make_app):
    app = await make_app(rate=5, burst=5, abuse_limit=10)
    c = await Client.connect(app.ws_url)
    await c.hello("flooder")
    for i in range(40):
        try:
            await c.send({"t": "ping", "ref": i})
        except ConnectionClosed:
            break
    codes, refused = [], []
    with pytest.raises(ConnectionClosed) as info:
        while True:
            m = await c.expect(None, timeout=5)
            if m["t"] == "error":
                codes.append(m["code"])
                refused.append(m.get("ref"))
    # every refusal before the close reached the flooder (the close waits for them)
    assert codes.count("rate_limited") == 10 - 1
    assert all(isinstance(ref, int) for ref in refused), "each refusal names the refused request"
    assert info.value.rcvd.code == 1008


async def test_a_client_offering_no_known_subprotocol_is_refused(app: App):
    with pytest.raises(InvalidStatus) as info:
        await Client.connect(app.ws_url, subprotocol="chat")
    assert info.value.response.status_code == 400
    assert b"cardroom.json" in info.value.response.body


async def test_room_errors_have_stable_codes_and_change_nothing(connect):
    a, b, room = await seated_pair(connect)
    c = await connect("carol")
    assert (await c.request({"t": "join", "room": "r-nothere"}))["code"] == "no_such_room"
    assert (await c.request({"t": "join", "room": room}))["code"] == "room_full"
    assert (await a.request({"t": "join", "room": room}))["code"] == "already_seated"
    room3 = await new_room(c, seats=3)
    assert (await c.request({"t": "join", "room": room3, "seat": 7}))["code"] == "bad_seat"
    assert (await c.request({"t": "join", "room": room3, "buy_in": 2_000_000}))["code"] == "bad_buy_in"
    assert (await c.request({"t": "join", "room": room3, "buy_in": 20_000}))["code"] == "insufficient_funds"
    assert (await a.request({"t": "join", "room": room3, "seat": 1, "buy_in": 10}))["t"] == "room"
    assert (await c.request({"t": "join", "room": room3, "seat": 1}))["code"] == "seat_taken"
    assert (await c.request({"t": "sit_out", "room": room}))["code"] == "not_seated"
    assert (await c.request({"t": "act", "room": room, "action": {"type": "fold"}, "id": "1"}))["code"] == "not_seated"
    assert (await c.request({"t": "leave", "room": room}))["code"] == "not_seated"
    w = await c.request({"t": "list_rooms"})
    counts = {r["room"]: r["players"] for r in w["rooms"]}
    assert counts[room] == 2 and counts[room3] == 1


async def test_create_room_validates_options_and_config(connect):
    c = await connect("alice")
    err = await c.request({"t": "create_room", "game": "highcard", "options": {"seats": 9}})
    assert err["code"] == "bad_config" and err["field"] == "seats"
    err = await c.request({"t": "create_room", "game": "highcard", "options": {"colour": "red"}})
    assert err["code"] == "bad_config" and err["field"] == "colour"
    err = await c.request({"t": "create_room", "game": "highcard", "options": {"buy_in_min": 50, "buy_in_max": 10}})
    assert err["code"] == "bad_config" and err["field"] == "buy_in_max"
    err = await c.request({"t": "create_room", "game": "highcard", "config": {"ante": -1}})
    assert err["code"] == "bad_config" and err["field"] == "config.ante"
    err = await c.request({"t": "create_room", "game": "chess"})
    assert err["code"] == "no_such_game"
    assert (await c.request({"t": "list_rooms"}))["rooms"] == []


async def test_out_of_turn_and_illegal_amounts_pass_engine_codes_and_change_nothing(connect):
    a, b, room = await seated_pair(connect)
    snap = await a.expect("room", room=room, playing=True)
    err = await a.request({"t": "act", "room": room, "action": {"type": "bet", "amount": 5}, "id": "1"})
    assert err["code"] == "not_your_turn"
    err = await b.request({"t": "act", "room": room, "action": {"type": "bet", "amount": 10_000}, "id": "2"})
    assert err["code"] == "bad_amount"
    err = await b.request({"t": "act", "room": room, "action": {"type": "bet", "amount": "5"}, "id": "3"})
    assert err["code"] == "bad_amount"
    err = await b.request({"t": "act", "room": room, "action": {"type": "dance"}, "id": "4"})
    assert err["code"] == "bad_action"
    after = await a.request({"t": "spectate", "room": room})
    assert after["version"] == snap["version"] and after["seats"] == snap["seats"]


async def test_an_exception_inside_the_engine_is_internal_error_and_the_room_survives(connect, app: App):
    a, b, room = await seated_pair(connect)
    snap = await b.expect("room", room=room, playing=True)
    err = await b.request({"t": "act", "room": room, "action": {"type": "boom"}, "id": "b1"})
    assert err["code"] == "internal_error"
    stored = await load_room(app.store, room, app.games)
    assert stored["version"] == snap["version"]
    ack = await b.request({"t": "act", "room": room, "action": {"type": "bet", "amount": 5}, "id": "b2"})
    assert ack["t"] == "ack" and ack["version"] == snap["version"] + 1


async def test_acting_with_no_hand_is_no_hand(connect):
    a = await connect("alice")
    room = await new_room(a)
    await a.request({"t": "join", "room": room})
    err = await a.request({"t": "act", "room": room, "action": {"type": "fold"}, "id": "1"})
    assert err["code"] == "no_hand"


async def test_slow_reader_is_disconnected_instead_of_growing_memory():
    from server.edge.codec import Codec
    from server.edge.session import Session

    class StuckSocket:
        closed_with = None

        async def send(self, data):
            await asyncio.sleep(3600)

        async def close(self, code, reason):
            self.closed_with = code

    ws = StuckSocket()
    s = Session(ws, Codec("cardroom.json", 65536), rate=10, burst=10, queue_size=8)
    for i in range(20):
        s.send({"t": "pong", "ref": i})
    await asyncio.sleep(0.01)
    assert s.closed and ws.closed_with == 1008


async def test_non_finite_and_huge_numbers_are_refused_at_the_edge(connect, app):
    c = await Client.connect(app.ws_url, "cardroom.msgpack")
    await c.hello("nan")
    cases = [
        ({"t": "create_room", "game": "highcard", "options": {"action_seconds": float("nan")}}, "options.action_seconds"),
        ({"t": "create_room", "game": "highcard", "options": {"between_hands_seconds": float("inf")}},
         "options.between_hands_seconds"),
        ({"t": "create_room", "game": "highcard", "config": {"ante": 2**63}}, "config.ante"),
        ({"t": "act", "room": "r-x", "id": "1", "action": {"type": "bet", "amount": -(2**60)}}, "action.amount"),
    ]
    for i, (msg, field) in enumerate(cases):
        await c.send_raw(msgpack.packb(dict(msg, ref=i), use_bin_type=True))
        err = await c.expect("error", ref=i)
        assert err["code"] == "bad_message" and err["field"] == field, err
    # bounded options: a huge but finite number is refused by the option's own range
    err = await c.request({"t": "create_room", "game": "highcard", "options": {"buy_in_max": 10**15}})
    assert err["code"] == "bad_config" and err["field"] == "buy_in_max"
    assert (await c.request({"t": "list_rooms"}))["rooms"] == []  # nothing was created
    await c.close()


async def test_a_null_buy_in_means_the_default(connect, app):
    a = await connect("alice")
    room = await new_room(a)
    joined = await a.request({"t": "join", "room": room, "buy_in": None})
    assert joined["t"] == "room" and joined["seats"][joined["your_seat"]]["stack"] == 1000
