"""A Redis failover to a replica that had not received the last writes: Redis goes back
to an older version of a room (and loses the lease). The owner notices at its next write,
puts back the state it acknowledged, and old action ids keep their answers."""

from __future__ import annotations

from .test_durability import seated_pair


async def test_the_owner_restores_acknowledged_writes_that_redis_lost(connect, app):
    a, b, room = await seated_pair(connect)
    snap = await b.expect("room", room=room, playing=True)
    keys = app.store.keys
    raw = await app.store.redis.hget(keys.room(room), "snap")
    older = (raw, snap["version"])
    ack1 = await b.request({"t": "act", "room": room, "action": {"type": "bet", "amount": 3}, "id": "b1"})
    assert ack1["t"] == "ack" and ack1["version"] == snap["version"] + 1

    # the failover: Redis holds the state from before b1, and no lease
    await app.store.redis.hset(keys.room(room), mapping={"snap": older[0], "version": older[1]})
    await app.store.redis.delete(keys.lease(room))

    ack2 = await a.request({"t": "act", "room": room, "action": {"type": "bet", "amount": 4}, "id": "a1"})
    assert ack2["t"] == "ack" and ack2["version"] == ack1["version"] + 1  # after the restored b1
    stored = await app.store.load_room(room)
    assert stored["version"] == ack2["version"]
    answered = {(aid, v) for ids in stored["answers"].values() for aid, v in ids}
    assert {("b1", ack1["version"]), ("a1", ack2["version"])} <= answered  # b1 was put back
    again = await b.request({"t": "act", "room": room, "action": {"type": "bet", "amount": 3}, "id": "b1"})
    assert again["t"] == "ack" and again["version"] == ack1["version"]  # answered as before, not replayed
    assert 'cardroom_lost_writes_total 1.0' in app.metrics.render().decode()
    assert await app.store.redis.get(keys.lease(room)) is not None  # the owner holds it again
