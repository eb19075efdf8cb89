"""``--redis-wait-replicas``: a change is shown to anyone only once a replica holds it, and
one whose wait for the replica timed out (in doubt) reaches every process once it is
found stored: a real primary and replica, the replication stream through a relay the test
holds back, two server processes in this one."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from redis.asyncio import Redis

from server.app import App
from server.config import Settings

from ..redis_link import RedisLink
from .conftest import fixed_deck
from .highcard import GAME as HIGHCARD
from .test_play import seated_pair
from .test_script_link import own_redis, until_up
from .wsclient import Client

pytestmark = pytest.mark.each_redis


@pytest_asyncio.fixture
async def primary_and_replica(tmp_path: Path) -> AsyncIterator[tuple[int, RedisLink]]:
    """A primary's port, and the relay its replica replicates through."""
    primary, port = own_redis(tmp_path, "--repl-diskless-sync-delay", "0")
    link = RedisLink(port)
    await link.start()
    (tmp_path / "replica").mkdir()
    replica, replica_port = own_redis(tmp_path / "replica", "--replicaof", "127.0.0.1", str(link.port))
    client = Redis(port=port)
    try:
        await until_up(client)
        for _ in range(200):  # until the replica has made its first copy and confirms writes
            if await client.execute_command("WAIT", 1, 100) == 1:
                break
            await asyncio.sleep(0.05)
        else:
            raise AssertionError(f"the replica on port {replica_port} never confirmed a write")
        yield port, link
    finally:
        link.flow()
        await client.aclose()
        await link.stop()
        for proc in (replica, primary):  # (nothing to keep: a primary SIGTERMed waits for its replicas)
            proc.kill()
            proc.wait(10)


async def test_a_change_whose_wait_for_the_replica_timed_out_reaches_the_other_processes(
        primary_and_replica: tuple[int, RedisLink], prefix: str) -> None:
    """The owner commits a change; the replica does not confirm it within ``--redis-wait-ms``
    (replication held back): the player is answered ``unavailable`` and nobody is shown it.
    Once replication flows, the owner finds it stored and confirmed, and shows it: on its own
    process and on the other one, whose spectator must see it without another change
    coming (before, only the owner's viewers did: the commit publishes after the wait, and a
    timed-out wait published nothing)."""
    port, replication = primary_and_replica
    apps: list[App] = []
    clients: list[Client] = []
    try:
        for _ in range(2):
            app = App(Settings(host="127.0.0.1", port=0, redis_url=f"redis://127.0.0.1:{port}/0", key_prefix=prefix,
                               redis_wait_replicas=1, redis_wait_ms=1000), {"highcard": HIGHCARD}, deck=fixed_deck)
            await app.start()
            apps.append(app)
        owner, other = apps

        async def connect(name: str, app: App = owner) -> Client:
            c = await Client.connect(app.ws_url)
            clients.append(c)
            welcome = await c.hello(name)
            assert welcome["t"] == "welcome", welcome
            return c

        _a, b, room = await seated_pair(connect)
        snap = await b.expect("room", room=room, playing=True)
        watcher = await connect("watcher", other)
        watched = await watcher.request({"t": "spectate", "room": room})
        assert watched["t"] == "room" and watched["version"] == snap["version"], watched

        replication.stall()
        bet = {"t": "act", "room": room, "action": {"type": "bet", "amount": 3}, "id": "b1"}
        held = await b.request(bet)
        assert held["t"] == "error" and held["code"] == "unavailable", held
        await asyncio.sleep(0.5)
        assert not [m for m in watcher.inbox if m.get("version", 0) > snap["version"]], "shown before a replica had it"

        replication.flow()  # the owner settles the change (about a second later) and shows it
        seen: dict[str, Any] = await watcher.expect("room", timeout=10, room=room,
                                                    version=lambda v: v == snap["version"] + 1)
        assert seen["version"] == snap["version"] + 1
        again = await b.request(bet)  # and the player's retry is answered as stored, once
        assert again["t"] == "ack" and again["version"] == snap["version"] + 1, again
    finally:
        for c in clients:
            await c.close()
        for app in apps:
            await app.stop()
