"""The room creator's moderation over real sockets: removing a seat between its hands (its
chips back to the wallet) and locking the room; everyone else, and every bad request,
changes nothing."""

from __future__ import annotations

from .test_play import new_room, seated_pair


async def waiting_room(connect, **options):
    """alice made a three-seat room where no hand starts before three players sit; alice and
    bob sit in it."""
    a, b = await connect("alice"), await connect("bob")
    room = await new_room(a, seats=3, first_hand_players=3, **options)
    assert (await a.request({"t": "join", "room": room, "seat": 0, "buy_in": 300}))["t"] == "room"
    assert (await b.request({"t": "join", "room": room, "seat": 1, "buy_in": 400}))["t"] == "room"
    return a, b, room


async def test_the_creator_removes_a_seat_and_its_chips_go_back_to_the_wallet(app, connect):
    a, b, room = await waiting_room(connect)
    snap = await a.request({"t": "remove_seat", "room": room, "seat": 1})
    assert snap["t"] == "room" and snap["seats"][1] is None and snap["creator"] == a.player
    left = await b.expect("left", room=room)
    assert (left["seat"], left["stack"], left["reason"], left["wallet"]) == (1, 400, "removed", 10_000)
    event = await a.expect("event", room=room, event=lambda e: e["type"] == "left")
    assert event["event"]["reason"] == "removed" and event["event"]["player"] == b.player
    audit = await app.store.chip_audit()
    assert audit["grants"] == audit["wallets"] + audit["tables"] + audit["pending"]
    # bob may sit down again: the room is not locked
    assert (await b.request({"t": "join", "room": room, "seat": 2}))["t"] == "room"


async def test_only_the_creator_removes_and_never_a_seat_in_the_hand_or_its_own(connect):
    a, b, room = await waiting_room(connect)
    before = (await a.request({"t": "sync", "room": room}))["version"]
    for who, seat, code in ((b, 0, "not_room_creator"), (a, 0, "bad_seat"), (a, 2, "seat_empty"),
                            (a, 3, "bad_seat")):
        reply = await who.request({"t": "remove_seat", "room": room, "seat": seat})
        assert (reply["t"], reply["code"]) == ("error", code), reply
    assert (await a.request({"t": "sync", "room": room}))["version"] == before
    c, d, playing = await seated_pair(connect)
    await c.expect("room", room=playing, playing=True)
    reply = await c.request({"t": "remove_seat", "room": playing, "seat": 1})
    assert reply["code"] == "hand_not_over", reply


async def test_a_locked_room_takes_nobody_new_and_leaves_the_lobby_and_quick_matches(app, connect):
    a, b, room = await waiting_room(connect)
    assert (await b.request({"t": "lock", "room": room, "locked": True}))["code"] == "not_room_creator"
    snap = await a.request({"t": "lock", "room": room, "locked": True})
    assert snap["locked"] is True
    c = await connect("carol")
    assert (await c.request({"t": "join", "room": room}))["code"] == "room_locked"
    assert (await c.request({"t": "spectate", "room": room}))["t"] == "room"  # watching is open
    listed = (await c.request({"t": "list_rooms"}))["rooms"]
    assert [r.get("locked") for r in listed if r["room"] == room] == [True]
    match = await c.request({"t": "quick_match", "game": "highcard"})
    assert match.get("room") != room
    # players seated there stay; opened again, carol sits down
    assert (await a.request({"t": "lock", "room": room, "locked": False}))["locked"] is False
    d = await connect("dave")
    assert (await d.request({"t": "join", "room": room}))["t"] == "room"


async def test_a_bots_seat_removed_takes_its_granted_chips_back(make_app):
    from server.games import GAMES

    from .wsclient import Client

    app = await make_app(games=GAMES)
    a = await Client.connect(app.ws_url)
    await a.hello("alice")
    room = (await a.request({"t": "create_room", "game": "holdem", "options": {
        "seats": 3, "first_hand_players": 3, "bots": 1, "buy_in_default": 700}}))["room"]
    granted = int(await app.store.redis.hget(app.store.keys.room(room), "granted"))
    assert granted == 700
    snap = await a.request({"t": "remove_seat", "room": room, "seat": 1})
    assert snap["seats"][1] is None
    event = await a.expect("event", room=room, event=lambda e: e["type"] == "left")
    assert (event["event"]["bot"], event["event"]["stack"], event["event"]["reason"]) == (True, 700, "removed")
    assert int(await app.store.redis.hget(app.store.keys.room(room), "granted")) == 0
    audit = await app.store.chip_audit()
    assert audit["grants"] == audit["wallets"] + audit["tables"] + audit["pending"]
    assert audit["pending"] == 0  # nothing owed to a bot
    await a.close()
