"""A Redis failover to a replica that had not received the last writes: Redis goes back
to an older version of a room (and may lose the lease). The owner notices at its next
renewal or write, puts back the state it acknowledged, and old action ids keep their
answers."""

from __future__ import annotations

import asyncio

import pytest

from server.room.log import load_room

from .conftest import owned
from .test_durability import seated_pair

pytestmark = pytest.mark.each_redis  # run on each binary


async def redis_state(redis, keys, room: str) -> dict[str, bytes]:
    """What Redis holds of the room now (to go back to with :func:`lose_writes`)."""
    snap, snapv, version = await redis.hmget(keys.room(room), ["snap", "snapv", "version"])
    return {"snap": snap, "snapv": snapv, "version": version}


async def lose_writes(redis, keys, room: str, state: dict[str, bytes]) -> None:
    """Redis goes back to ``state``, as after a failover to a replica that had not received
    the writes since: the room's fields as they were, the stream's later entries gone."""
    await redis.hset(keys.room(room), mapping=state)
    for sid, fields in await redis.xrevrange(keys.events(room), count=100):
        if int(fields[b"v"]) > int(state["version"]):
            await redis.xdel(keys.events(room), sid)


async def test_the_owner_restores_acknowledged_writes_that_redis_lost(connect, app):
    a, b, room = await seated_pair(connect)
    snap = await b.expect("room", room=room, playing=True)
    keys = app.store.keys
    older = await redis_state(app.store.redis, keys, room)
    assert int(older["version"]) == snap["version"]
    ack1 = await b.request({"t": "act", "room": room, "action": {"type": "bet", "amount": 3}, "id": "b1"})
    assert ack1["t"] == "ack" and ack1["version"] == snap["version"] + 1

    # the failover: Redis holds the state from before b1, and no lease
    await lose_writes(app.store.redis, keys, room, older)
    await app.store.redis.delete(keys.lease(room))

    ack2 = await a.request({"t": "act", "room": room, "action": {"type": "bet", "amount": 4}, "id": "a1"})
    assert ack2["t"] == "ack" and ack2["version"] == ack1["version"] + 1  # after the restored b1
    stored = await load_room(app.store, room, app.games)
    assert stored["version"] == ack2["version"]
    answered = {(aid, v) for ids in stored["answers"].values() for aid, v in ids}
    assert {("b1", ack1["version"]), ("a1", ack2["version"])} <= answered  # b1 was put back
    again = await b.request({"t": "act", "room": room, "action": {"type": "bet", "amount": 3}, "id": "b1"})
    assert again["t"] == "ack" and again["version"] == ack1["version"]  # answered as before, not replayed
    assert 'cardroom_lost_writes_total 1.0' in app.metrics.render().decode()
    assert await app.store.redis.get(keys.lease(room)) is not None  # the owner holds it again


async def wait_lease(app, room: str, timeout: float = 5.0) -> str:
    """The room's lease value once some node holds it again (the renewals run every third
    of the lease)."""
    key = app.store.keys.lease(room)
    deadline = asyncio.get_running_loop().time() + timeout
    while (value := await app.store.redis.get(key)) is None:
        assert asyncio.get_running_loop().time() < deadline, "nobody took the lease back"
        await asyncio.sleep(0.02)
    return value.decode()


async def test_a_lease_redis_lost_is_taken_back_by_its_owner_without_dropping_the_room(connect, app):
    a, b, room = await seated_pair(connect)
    snap = await b.expect("room", room=room, playing=True)
    actor = app.directory.actors[room]
    fence = actor.lease.fence
    await app.store.redis.delete(app.store.keys.lease(room))  # lost by a failover; the room is intact

    assert await wait_lease(app, room) == f"{app.node_id} {fence + 1}"  # taken back at the next renewal
    assert app.directory.actors[room] is actor and actor.lease.fence == fence + 1
    ack = await b.request({"t": "act", "room": room, "action": {"type": "bet", "amount": 3}, "id": "b1"})
    assert ack["t"] == "ack" and ack["version"] == snap["version"] + 1
    text = app.metrics.render().decode()
    assert 'cardroom_room_ownership_total{change="dropped"}' not in text
    assert "cardroom_lost_writes_total 0.0" in text


async def test_writes_and_lease_redis_lost_are_put_back_before_anyone_asks(connect, app):
    """A failover that lost the room's last write and its lease, and no request after it:
    the owner's next renewal finds the lease gone, takes it back and restores the room."""
    a, b, room = await seated_pair(connect)
    await b.expect("room", room=room, playing=True)
    keys = app.store.keys
    older = await redis_state(app.store.redis, keys, room)
    ack = await b.request({"t": "act", "room": room, "action": {"type": "bet", "amount": 3}, "id": "b1"})
    await lose_writes(app.store.redis, keys, room, older)
    await app.store.redis.delete(keys.lease(room))

    await wait_lease(app, room)
    deadline = asyncio.get_running_loop().time() + 5
    while (stored := await load_room(app.store, room, app.games))["version"] != ack["version"]:
        assert asyncio.get_running_loop().time() < deadline, f"Redis stays at version {stored['version']}"
        await asyncio.sleep(0.02)
    answered = {(aid, v) for ids in stored["answers"].values() for aid, v in ids}
    assert ("b1", ack["version"]) in answered
    assert "cardroom_lost_writes_total 1.0" in app.metrics.render().decode()
    fold = await a.request({"t": "act", "room": room, "action": {"type": "fold"}, "id": "a1"})
    assert fold["t"] == "ack" and fold["version"] == ack["version"] + 1


async def test_writes_redis_lost_under_a_lease_it_kept_are_put_back_and_reach_a_process_that_missed_them(
        make_app, connect):
    """Redis restarted on a file cut short: the room goes back some versions, the lease
    (written earlier) is still the owner's. Nobody acts, and the other process never heard
    of the last change (its publication was lost with Redis): before, its player, whose
    turn it was, never saw it, and the owner waited for a change to find the loss. Now the
    owner's next renewal finds Redis behind and puts its state back, and the other
    process shows it."""
    a = await make_app(lease_ms=900)
    b = await make_app(lease_ms=900)
    alice = await connect("alice", target=a)
    bob = await connect("bob", target=b)
    room = (await alice.request({"t": "create_room", "game": "highcard", "options": {"seats": 2}}))["room"]
    await owned(a, room)
    assert (await alice.request({"t": "join", "room": room}))["t"] == "room"
    view = await wait_view(b, room, bob)
    keys = a.store.keys
    older = await redis_state(a.store.redis, keys, room)
    before = view.table
    assert (await bob.request({"t": "join", "room": room}))["t"] == "room"
    await bob.expect("room", timeout=5, room=room, playing=True)  # a hand started; nobody acts
    acknowledged = a.directory.actors[room].core.table.version
    assert acknowledged > int(older["version"])
    await lose_writes(a.store.redis, keys, room, older)
    view.table = before  # here, the last changes were never heard of
    bob.drain()

    deadline = asyncio.get_running_loop().time() + 10
    while (stored := await load_room(a.store, room, a.games))["version"] != acknowledged:
        assert asyncio.get_running_loop().time() < deadline, f"Redis stays at version {stored['version']}"
        await asyncio.sleep(0.05)
    snap = await bob.expect("room", timeout=5, room=room, playing=True)
    assert snap["version"] == acknowledged and view.table.version == acknowledged
    assert a.directory.actors[room].lease.fence == 1  # kept: never taken back
    assert "cardroom_lost_writes_total 1.0" in a.metrics.render().decode()


async def wait_view(app, room: str, client, timeout: float = 5.0):
    """``client`` (on ``app``, not the owner) watches ``room``: the view ``app`` keeps of it."""
    assert (await client.request({"t": "spectate", "room": room}))["t"] == "room"
    deadline = asyncio.get_running_loop().time() + timeout
    while app.views.get(room) is None:
        assert asyncio.get_running_loop().time() < deadline, "no view of the room"
        await asyncio.sleep(0.02)
    return app.views.get(room)
