"""Redis out of reach for less than a lease, the owner's side of it (``cluster.md``: "Redis
unavailable for seconds"): requests are answered ``unavailable`` and nothing is applied;
the owner keeps its rooms and the state it acknowledged, and a commit whose answer never
came is settled from what Redis holds before anything else is decided.

The server reaches Redis through a :class:`~tests.redis_link.RedisLink` (a real TCP relay)
which the tests cut, or make drop Redis's replies; the test reads and edits Redis
directly, past the link."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio

from server.app import App
from server.config import Settings
from server.room.log import load_room
from server.store import UNAVAILABLE

from ..redis_link import RedisLink
from .conftest import fixed_deck
from .highcard import GAME as HIGHCARD
from .test_lost_writes import lose_writes, redis_state
from .test_play import seated_pair
from .wsclient import Client

pytestmark = pytest.mark.each_redis  # run on each binary


@pytest_asyncio.fixture
async def link(redis_url: str) -> AsyncIterator[RedisLink]:
    link = RedisLink(redis_url)
    await link.start()
    yield link
    await link.stop()


@pytest_asyncio.fixture
async def linked(link: RedisLink, prefix: str) -> AsyncIterator[App]:
    """A server whose every Redis connection goes through ``link``."""
    app = App(Settings(host="127.0.0.1", port=0, redis_url=link.url, key_prefix=prefix),
              {"highcard": HIGHCARD}, deck=fixed_deck)
    await app.start()
    yield app
    link.flow()
    await app.stop()


@pytest_asyncio.fixture
async def players(linked: App) -> AsyncIterator[Any]:
    clients: list[Client] = []

    async def open_client(name: str) -> Client:
        c = await Client.connect(linked.ws_url)
        clients.append(c)
        assert (await c.hello(name))["t"] == "welcome"
        return c

    yield open_client
    for c in clients:
        await c.close()


def metric(app: App, line: str) -> bool:
    return line in app.metrics.render().decode()


async def test_a_commit_whose_answer_was_lost_is_found_stored_and_kept(players, linked, link, redis):
    a, b, room = await seated_pair(players)
    snap = await b.expect("room", room=room, playing=True)
    actor = linked.directory.actors[room]
    fence = actor.lease.fence

    link.deafen()  # the commit reaches Redis; its answer does not come back
    bet = {"t": "act", "room": room, "action": {"type": "bet", "amount": 3}, "id": "b1"}
    lost = await b.request(bet)
    assert lost["t"] == "error" and lost["code"] == "unavailable", lost
    assert link.replies_dropped > 0
    keys = linked.store.keys
    assert int(await redis.hget(keys.room(room), "version")) == snap["version"] + 1  # stored after all

    link.flow()
    again = await b.request(bet)  # the client retries with the same id: answered as stored, once
    assert again["t"] == "ack" and again["version"] == snap["version"] + 1, again
    fold = await a.request({"t": "act", "room": room, "action": {"type": "fold"}, "id": "a1"})
    assert fold["t"] == "ack" and fold["version"] == snap["version"] + 2, fold
    stored = await load_room(linked.store, room, linked.games)
    assert stored["version"] == fold["version"]
    # the same owner all along: no drop, no new fence
    assert linked.directory.actors[room] is actor and actor.lease.fence == fence
    assert metric(linked, 'cardroom_commits_in_doubt_total{outcome="stored"} 1.0')
    assert not metric(linked, 'cardroom_room_ownership_total{change="dropped"} 1.0')


async def test_an_action_sent_while_redis_is_cut_off_is_applied_once_when_resent(players, linked, link):
    a, b, room = await seated_pair(players)
    snap = await b.expect("room", room=room, playing=True)
    actor = linked.directory.actors[room]

    link.cut()
    bet = {"t": "act", "room": room, "action": {"type": "bet", "amount": 3}, "id": "b1"}
    refused = await b.request(bet)
    assert refused["t"] == "error" and refused["code"] == "unavailable", refused
    link.flow()
    ack = await b.request(bet)
    assert ack["t"] == "ack" and ack["version"] == snap["version"] + 1, ack
    assert (await b.request(bet))["version"] == ack["version"]  # and only once
    stored = await load_room(linked.store, room, linked.games)
    assert stored["version"] == ack["version"] and stored["hand"]["pot"] == 10 + 10 + 3
    assert linked.directory.actors[room] is actor


async def test_writes_redis_loses_during_an_outage_are_put_back_by_the_owner(players, linked, link, redis):
    """The fault suite's lost-writes case with a request in the outage: Redis goes down
    while a player acts (answered ``unavailable``) and comes back without the room's last
    acknowledged write. The owner kept that state; it finds Redis older at its next commit
    and writes it back, so the acknowledged action keeps its version."""
    a, b, room = await seated_pair(players)
    snap = await b.expect("room", room=room, playing=True)
    keys = linked.store.keys
    older = await redis_state(redis, keys, room)
    ack1 = await b.request({"t": "act", "room": room, "action": {"type": "bet", "amount": 3}, "id": "b1"})
    assert ack1["t"] == "ack" and ack1["version"] == snap["version"] + 1

    link.cut()
    fold = {"t": "act", "room": room, "action": {"type": "fold"}, "id": "a1"}
    assert (await a.request(fold))["code"] == "unavailable"
    # Redis comes back without the last write (b1): the room as it was before it
    await lose_writes(redis, keys, room, older)
    link.flow()

    ack2 = await a.request(fold)
    assert ack2["t"] == "ack" and ack2["version"] == ack1["version"] + 1, ack2  # after the restored b1
    stored = await load_room(linked.store, room, linked.games)
    answered = {(aid, v) for ids in stored["answers"].values() for aid, v in ids}
    assert {("b1", ack1["version"]), ("a1", ack2["version"])} <= answered
    again = await b.request({"t": "act", "room": room, "action": {"type": "bet", "amount": 3}, "id": "b1"})
    assert again["t"] == "ack" and again["version"] == ack1["version"]
    assert metric(linked, "cardroom_lost_writes_total 1.0")
    assert metric(linked, 'cardroom_commits_in_doubt_total{outcome="not_stored"} 1.0')


async def test_channels_given_up_while_redis_was_away_are_not_subscribed_again(linked, link, redis):
    """A view closed during an outage cannot unsubscribe; the client subscribes every channel
    it had once it reconnects, so the node drops the ones it no longer wants (else their
    messages would come to this process for good). One asked for meanwhile is subscribed."""
    node = linked.node
    keys = linked.store.keys
    given_up, asked = keys.room_channel("r-given-up"), keys.room_channel("r-asked")
    await node.subscribe(given_up)

    async def subscribers(channel: str) -> int:
        return dict(await redis.pubsub_numsub(channel))[channel.encode()]

    assert await subscribers(given_up) == 1
    link.cut()
    await node.unsubscribe(given_up)  # fails quietly: no connection
    with pytest.raises(UNAVAILABLE):
        await node.subscribe(asked)
    link.flow()
    deadline = asyncio.get_running_loop().time() + 10
    while (await subscribers(given_up), await subscribers(asked)) != (0, 1):
        assert asyncio.get_running_loop().time() < deadline, "subscriptions not reconciled in 10 s"
        await asyncio.sleep(0.05)
