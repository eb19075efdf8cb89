"""Durable before visible, exactly-once actions, restart recovery, fencing, shutdown."""

from __future__ import annotations

import asyncio

import pytest
from websockets.exceptions import ConnectionClosed

from server.room import table as tbl
from server.room.log import load_room
from server.store import Fenced, VersionConflict
from server.store import pack as store_pack

from .highcard import GAME as HIGHCARD
from .test_play import seated_pair
from .wsclient import Client

pytestmark = pytest.mark.each_redis  # restarts on what Redis kept: run on each binary


async def test_every_acknowledged_change_is_already_in_redis_with_its_events(connect, app):
    a, b, room = await seated_pair(connect)
    await b.expect("room", room=room, playing=True)
    ack = await b.request({"t": "act", "room": room, "action": {"type": "bet", "amount": 7}, "id": "k"})
    stored = await load_room(app.store, room, app.games)
    assert stored["version"] == ack["version"]
    assert stored["hand"]["pot"] == 10 + 10 + 7
    stream = await app.store.room_events(room)
    assert stream[-1][0] == ack["version"]
    assert stream[-1][1][0]["type"] == "bet" and stream[-1][1][0]["card"] is not None  # full history


async def test_a_resent_action_id_gets_the_original_ack_and_applies_nothing(connect, app):
    a, b, room = await seated_pair(connect)
    await b.expect("room", room=room, playing=True)
    first = await b.request({"t": "act", "room": room, "action": {"type": "bet", "amount": 7}, "id": "same"})
    again = await b.request({"t": "act", "room": room, "action": {"type": "bet", "amount": 7}, "id": "same"})
    assert again["t"] == "ack" and again["version"] == first["version"]
    stored = await load_room(app.store, room, app.games)
    assert stored["version"] == first["version"] and stored["hand"]["pot"] == 27


async def test_restart_loads_rooms_and_the_turn_clock_keeps_its_deadline(make_app, prefix):
    app1 = await make_app()
    a = await Client.connect(app1.ws_url)
    await a.hello("alice")
    b = await Client.connect(app1.ws_url)
    await b.hello("bob")
    room = (await a.request({"t": "create_room", "game": "highcard",
                             "options": {"seats": 2, "action_seconds": 600}}))["room"]
    await a.request({"t": "join", "room": room})
    await b.request({"t": "join", "room": room})
    before = await a.expect("room", room=room, playing=True)
    ack = await b.request({"t": "act", "room": room, "action": {"type": "bet", "amount": 3}, "id": "1"})
    await a.close()
    await b.close()
    await app1.stop()

    app2 = await make_app()
    a2 = await Client.connect(app2.ws_url)
    welcome = await a2.hello(token=a.token)
    assert welcome["player"] == a.player
    assert welcome["seats"] == [{"room": room, "game": "highcard", "seat": 0}]
    snap = await a2.expect("room", room=room)
    assert snap["version"] == ack["version"] and snap["timer"]["seat"] == 0
    assert snap["timer"]["deadline_ms"] > before["timer"]["deadline_ms"] - 1  # re-armed by the act, persisted
    stored = await load_room(app2.store, room, app2.games)
    assert stored["deadline_ms"] == snap["timer"]["deadline_ms"]
    ack2 = await a2.request({"t": "act", "room": room, "action": {"type": "fold"}, "id": "2"})
    assert ack2["version"] == ack["version"] + 1
    await a2.close()


async def test_a_deadline_that_passed_while_the_server_was_down_fires_on_start(make_app):
    app1 = await make_app()
    a = await Client.connect(app1.ws_url)
    await a.hello("alice")
    b = await Client.connect(app1.ws_url)
    await b.hello("bob")
    room = (await a.request({"t": "create_room", "game": "highcard",
                             "options": {"seats": 2, "action_seconds": 0.5, "between_hands_seconds": 600}}))["room"]
    await a.request({"t": "join", "room": room})
    await b.request({"t": "join", "room": room})
    await a.expect("room", room=room, playing=True)
    await a.close()
    await b.close()
    # stop without running the clock: the room actor is stopped first
    for r in list(app1.directory.actors.values()):
        await r.stop()
    await app1.stop()
    await asyncio.sleep(0.6)
    app2 = await make_app()
    for _ in range(50):
        stored = await load_room(app2.store, room, app2.games)
        if stored["hand"]["is_over"]:
            break
        await asyncio.sleep(0.05)
    assert stored["hand"]["is_over"] and stored["hand"]["folded"] == [1]
    events = [e["type"] for _, evs in await app2.store.room_events(room) for e in evs]
    assert "timed_out" in events


async def test_a_stale_writer_is_fenced_by_the_lease_token_and_the_version(app):
    store = app.store
    table = tbl.Table(room="r-fence", game="highcard", options={"name": "x"}, config={}, seats=[None, None], version=1)
    assert await store.create_room("r-fence", "highcard", tbl.to_dict(table, HIGHCARD), [], 0, "n-old", 60_000)
    snap = store_pack(tbl.to_dict(table, HIGHCARD))
    assert await store.commit("r-fence", "n-old 1", 1, snap, [{"type": "x"}]) == 2
    # n-old's lease runs out; n-new takes the room with a larger fencing token
    await store.redis.delete(store.keys.lease("r-fence"))
    got = await store.acquire("r-fence", "n-new", 60_000)
    assert got.fence == 2 and got.previous == "n-old" and got.version == 2
    with pytest.raises(Fenced) as fenced:
        await store.commit("r-fence", "n-old 1", 2, snap, [{"type": "stale"}])
    assert fenced.value.holder == "n-new"
    assert await store.acquire("r-fence", "n-old", 60_000) == "n-new"  # held: not taken
    with pytest.raises(VersionConflict):
        await store.commit("r-fence", "n-new 2", 1, snap, [{"type": "y"}])
    assert await store.commit("r-fence", "n-new 2", 2, snap, [{"type": "z"}]) == 3
    assert [(v, [e["type"] for e in evs]) for v, evs in await store.room_events("r-fence")] == [(2, ["x"]), (3, ["z"])]


async def test_graceful_shutdown_closes_sockets_with_1001_after_persisting(make_app):
    app = await make_app()
    c = await Client.connect(app.ws_url)
    await c.hello("alice")
    room = (await c.request({"t": "create_room", "game": "highcard"}))["room"]
    await c.send({"t": "join", "room": room, "ref": "j"})
    await app.stop()
    got_reply = False
    with pytest.raises(ConnectionClosed) as info:
        while True:
            m = await c.expect(None, timeout=5)
            got_reply = got_reply or m.get("ref") == "j"
    assert info.value.rcvd.code == 1001
    assert got_reply  # the in-flight join was finished and answered before the close


async def test_when_redis_refuses_a_write_the_action_fails_and_nothing_is_visible(connect, app, monkeypatch):
    a, b, room = await seated_pair(connect)
    snap = await b.expect("room", room=room, playing=True)
    real_commit = app.store.commit

    async def failing_commit(*args, **kwargs):
        raise ConnectionError("redis went away")

    monkeypatch.setattr(app.store, "commit", failing_commit)
    err = await b.request({"t": "act", "room": room, "action": {"type": "bet", "amount": 9}, "id": "w1"})
    assert err["code"] == "unavailable" and err["room"] == room
    monkeypatch.setattr(app.store, "commit", real_commit)
    now = await a.request({"t": "spectate", "room": room})
    assert now["version"] == snap["version"] and now["view"]["pot"] == 20
    assert not [m for m in a.inbox if m.get("t") == "event" and m["event"]["type"] == "bet"]
    ack = await b.request({"t": "act", "room": room, "action": {"type": "bet", "amount": 9}, "id": "w1"})
    assert ack["t"] == "ack" and ack["version"] == snap["version"] + 1


async def test_session_tokens_are_stored_hashed_and_expire(app, redis):
    from server.store import Store

    store = Store(redis, app.store.keys.prefix, token_seconds=1)
    player, token, _ = await store.create_player("alice")
    keys = [k.decode() async for k in redis.scan_iter(match=app.store.keys.prefix + "*")]
    assert not any(token in k for k in keys)  # no key names the token
    for k in keys:
        if await redis.type(k) == b"string":
            assert token.encode() not in (await redis.get(k) or b"")
    assert await store.player_by_token(token) == (player, "alice")
    await asyncio.sleep(1.2)
    assert await store.player_by_token(token) is None  # expired
