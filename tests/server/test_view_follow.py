"""A process shows a room another process owns by making each change again from its
record. Should its table ever differ from the owner's (a bug: a record that does not
replay, or replays with other events), it does not stay wrong: it reloads the room as
stored and sends its viewers a full snapshot.

Two apps (two nodes) in this process share one Redis; alice's app owns the room, bob
watches it from the other. The follower's table is corrupted by hand to stand for the bug."""

from __future__ import annotations

import asyncio

from .conftest import owned


async def follow(make_app, connect):
    a = await make_app()
    b = await make_app()
    alice = await connect("alice", target=a)
    bob = await connect("bob", target=b)
    carol = await connect("carol", target=a)
    room = (await alice.request({"t": "create_room", "game": "highcard", "options": {"seats": 3}}))["room"]
    await owned(a, room)
    assert (await alice.request({"t": "join", "room": room}))["t"] == "room"
    assert (await bob.request({"t": "spectate", "room": room}))["t"] == "room"
    return a, b, alice, bob, carol, room


async def same_table(a, b, room: str) -> None:
    for _ in range(300):
        ours, theirs = b.views.get(room).table, a.directory.actors[room].core.table
        if ours.version == theirs.version and ours == theirs:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"the follower's table stays different: {ours} != {theirs}")


async def test_a_change_that_does_not_replay_reloads_the_room(make_app, connect):
    a, b, alice, bob, carol, room = await follow(make_app, connect)
    b.views.get(room).table.seats[0].sitting_out = True  # here, alice sits out: no hand can start
    await carol.request({"t": "join", "room": room})  # there, a hand starts: here it cannot
    await same_table(a, b, room)
    snap = await bob.expect("room", timeout=5, room=room, playing=True)
    assert not snap["seats"][0]["sitting_out"]


async def test_a_change_replayed_with_other_events_reloads_the_room(make_app, connect):
    a, b, alice, bob, carol, room = await follow(make_app, connect)
    b.views.get(room).table.hand_no += 5  # here, the next hand gets another number
    await carol.request({"t": "join", "room": room})
    await same_table(a, b, room)
    assert b.metrics.view_reloads._value.get() >= 1
    snap = await bob.expect("room", timeout=5, room=room, playing=True)
    assert snap["hand_no"] == a.directory.actors[room].core.table.hand_no


async def test_a_change_it_never_heard_of_is_shown_once_the_next_owner_announces_itself(make_app, connect):
    """With ``--redis-wait-replicas`` a change is published only after the replicas confirm
    it: an owner that dies between storing a change and publishing it leaves the other
    processes without it. The room's next owner announces itself; then they read what they
    missed from Redis (before, they waited for the room's next change: its players, who
    never saw their turn, waited for its clock)."""
    a, b, alice, bob, carol, room = await follow(make_app, connect)
    view = b.views.get(room)
    before = view.table
    assert (await carol.request({"t": "join", "room": room}))["t"] == "room"
    await bob.expect("room", timeout=5, room=room, playing=True)  # a hand started; nobody acts
    await same_table(a, b, room)
    view.table = before  # here, the last changes were never heard of
    await asyncio.sleep(0.3)
    assert b.views.get(room).table is before  # (nothing else brings them)
    bob.drain()
    await a.store.publish_notice(room, {"owner": "n-next", "from": "n-next"})  # the next owner
    await same_table(a, b, room)
    snap = await bob.expect("room", timeout=5, room=room, playing=True)
    assert snap["version"] == a.directory.actors[room].core.table.version
