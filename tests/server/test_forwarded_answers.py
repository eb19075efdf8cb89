"""Answers to requests forwarded to another process's room arrive exactly once, even when
this process misses the room's change on pub/sub or the forward times out.

Two apps (two nodes) in this one process share one Redis; alice's app owns the room, bob
is connected to the other. Losing a pub/sub message is done by dropping it on arrival
at bob's app (``drop_changes``): Redis and the sockets are real."""

from __future__ import annotations

import asyncio

from server.store import ChangeMessage, parse_room_message

from .conftest import owned


def drop_changes(app, room: str, count: int | None) -> list[int]:
    """Make ``app`` miss the next ``count`` (None: every) change message of ``room``;
    returns the versions it missed, as they come."""
    missed: list[int] = []
    on_message = app.views.on_message

    async def lossy(room_id: str, data: bytes) -> None:
        msg = parse_room_message(data)
        if room_id == room and isinstance(msg, ChangeMessage) and (count is None or len(missed) < count):
            missed.append(msg.version)
            return
        await on_message(room_id, data)

    app.views.on_message = lossy
    return missed


async def two_apps(make_app, connect, **settings):
    a = await make_app(**settings)
    b = await make_app(**settings)
    alice = await connect("alice", target=a)
    bob = await connect("bob", target=b)
    room = (await alice.request({"t": "create_room", "game": "highcard", "options": {"seats": 3}}))["room"]
    await owned(a, room)
    assert (await bob.request({"t": "spectate", "room": room}))["t"] == "room"
    return a, b, alice, bob, room


async def test_an_answer_in_a_missed_change_arrives_when_the_gap_is_filled(make_app, connect):
    """bob's join is applied, but bob's app misses the change that carries its answer; the
    next change shows the gap, the missed change is made again from Redis, and its answer
    (bob's room snapshot, seated) is delivered then: not lost until a timeout."""
    a, b, alice, bob, room = await two_apps(make_app, connect, forward_timeout=30)
    missed = drop_changes(b, room, 1)
    joining = asyncio.create_task(bob.request({"t": "join", "room": room}, timeout=10))
    for _ in range(200):
        if missed:
            break
        await asyncio.sleep(0.01)
    assert missed, "the join's change never reached bob's app"
    assert not joining.done()
    await alice.request({"t": "join", "room": room})  # the next change: bob's app sees the gap
    joined = await joining
    assert joined["t"] == "room" and joined["your_seat"] == 0, joined
    assert b.metrics.forward_timeouts._value.get() == 0


async def test_a_join_sent_again_after_its_forward_timed_out_answers_with_the_room(make_app, connect):
    """bob's app never hears of the change its join made, so the forward times out and the
    join is sent again; the owner finds bob already in the seat it asked for: the answer
    is bob's room snapshot (made current from Redis), not ``already_seated``, and the
    buy-in left the wallet once."""
    a, b, alice, bob, room = await two_apps(make_app, connect, forward_timeout=0.3)
    drop_changes(b, room, None)
    joined = await bob.request({"t": "join", "room": room, "seat": 1}, timeout=10)
    assert joined["t"] == "room" and joined["your_seat"] == 1, joined
    assert b.metrics.forward_timeouts._value.get() >= 1
    table = a.directory.actors[room].core.table
    bob_id = joined["seats"][1]["player"]
    assert [s.player for s in table.seats if s is not None] == [bob_id]
    wallet = await a.store.wallet(bob_id)
    assert wallet == b.settings.grant - table.seats[1].stack  # taken once


async def test_a_second_join_from_the_player_is_still_already_seated(make_app, connect):
    """A join the player sends twice itself (not a re-route) keeps its answer."""
    a, b, alice, bob, room = await two_apps(make_app, connect)
    assert (await bob.request({"t": "join", "room": room}))["your_seat"] == 0
    again = await bob.request({"t": "join", "room": room})
    assert again["code"] == "already_seated"
