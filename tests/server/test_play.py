"""Playing through the server with the High Card test game: seats, hands, acks, events."""

from __future__ import annotations

from server.app import App

from .wsclient import Client


async def new_room(c: Client, **options) -> str:
    reply = await c.request({"t": "create_room", "game": "highcard", "options": options})
    assert reply["t"] == "room", reply
    return reply["room"]


async def seated_pair(connect, **options):
    a = await connect("alice")
    b = await connect("bob")
    options.setdefault("between_hands_seconds", 60)
    options.setdefault("seats", 2)
    room = await new_room(a, **options)
    ra = await a.request({"t": "join", "room": room, "seat": 0, "buy_in": 500})
    assert ra["t"] == "room" and ra["your_seat"] == 0, ra
    rb = await b.request({"t": "join", "room": room, "seat": 1, "buy_in": 500})
    assert rb["t"] == "room" and rb["your_seat"] == 1, rb
    return a, b, room


async def test_new_player_gets_a_token_and_ten_thousand_chips(connect):
    c = await connect()
    w = await c.hello("alice")
    assert w["t"] == "welcome" and w["wallet"] == 10_000 and w["name"] == "alice"
    assert len(w["token"]) == 32 and int(w["token"], 16) >= 0
    assert w["seats"] == []


async def test_a_hand_starts_when_two_players_sit_and_the_snapshot_shows_it(connect):
    a, b, room = await seated_pair(connect)
    snap = await a.expect("room", room=room, playing=True)
    assert snap["hand_no"] == 1 and snap["button"] == 0
    assert snap["timer"]["seat"] == 1 and snap["timer"]["deadline_ms"] > 0
    # each sees its own card only
    assert snap["view"]["cards"][0] is not None and snap["view"]["cards"][1] is None
    assert [s["stack"] for s in snap["seats"]] == [490, 490]
    assert snap["seats"][0]["connected"] and snap["seats"][1]["name"] == "bob"


async def test_an_accepted_action_is_acked_then_broadcast_with_the_same_version(connect):
    a, b, room = await seated_pair(connect)
    await b.expect("room", room=room, playing=True)
    ack = await b.request({"t": "act", "room": room, "action": {"type": "bet", "amount": 20}, "id": "x1"})
    assert ack["t"] == "ack" and ack["id"] == "x1" and ack["room"] == room
    ev_a = await a.expect("event", version=ack["version"], event=lambda e: e["type"] == "bet")
    ev_b = await b.expect("event", version=ack["version"], event=lambda e: e["type"] == "bet")
    assert "card" not in ev_a["event"]  # private part reaches only the bettor
    assert ev_b["event"]["card"] is not None


async def test_hand_ends_stacks_settle_and_chips_are_conserved(connect, app: App):
    a, b, room = await seated_pair(connect)
    await b.expect("room", room=room, playing=True)
    await b.request({"t": "act", "room": room, "action": {"type": "bet", "amount": 20}, "id": "1"})
    ack = await a.request({"t": "act", "room": room, "action": {"type": "bet", "amount": 30}, "id": "1"})
    assert ack["t"] == "ack"
    ended = await a.expect("event", event=lambda e: e["type"] == "hand_ended")
    # fixed deck: cards go out in seat order, so seat 1 holds the higher card and wins
    # the pot of 10 + 10 antes + 20 + 30
    assert ended["event"]["stacks"] == [460, 540]
    totals = await app.store.chip_audit()
    assert totals["grants"] == totals["wallets"] + totals["tables"] + totals["pending"] == 20_000


async def test_msgpack_clients_play_like_json_clients(connect):
    a = await connect("alice", subprotocol="cardroom.msgpack")
    room = await new_room(a)
    reply = await a.request({"t": "join", "room": room, "buy_in": 100})
    assert reply["t"] == "room" and reply["your_seat"] == 0
    assert (await a.request({"t": "ping"}))["t"] == "pong"


async def test_creator_is_not_seated_until_join(connect):
    a = await connect("alice")
    reply = await a.request({"t": "create_room", "game": "highcard", "options": {"seats": 3}})
    assert reply["your_seat"] is None and reply["seats"] == [None, None, None] and reply["version"] == 1
