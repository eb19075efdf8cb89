"""Redis through Sentinel: every client the server makes follows a failover (a primary
SIGKILLed, a primary demoted on purpose), with real sentinels, a real primary and two
replicas on loopback ports.

Every test here runs on both Redis binaries in CI (``each_redis``): failovers and the
errors a demoted primary answers differ between 6.2 and 7 (a script's write on a replica
is ``READONLY`` on 7, an ``ERR`` wrapping it on 6.2)."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest
from redis.asyncio import Redis

from server.store import UNAVAILABLE, Store
from server.store.connect import connect
from server.store.pubsub import pubsub_for

from .fleet import Fleet, Room, check_rooms, metric
from .harness import ServerProcess, lease_holder, wait_for
from .sentinels import DOWN_AFTER_MS, SERVICE, SentinelRedis

pytestmark = pytest.mark.each_redis
T = TypeVar("T")


async def eventually(call: Callable[[], Awaitable[T]], timeout: float = 15.0) -> T:
    """``call()``'s result once it stops failing as unavailable (Redis failing over)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return await call()
        except UNAVAILABLE:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.1)


async def next_message(sub: Any, timeout: float = 15.0) -> dict[str, Any]:
    """The next published message (not a subscription's confirmation), across a broken
    connection (which the link reports once, then connects again)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            msg = await sub.get_message(timeout=0.5)
        except UNAVAILABLE:
            await asyncio.sleep(0.1)
            continue
        if msg is not None and msg["type"] == "message":
            return msg
    raise TimeoutError("no message")


async def clients_and_store(redis: SentinelRedis) -> tuple[Any, Store, Any]:
    clients = await connect(redis.url, 8)
    store = Store(clients.main, "sentinel-test:", blocking=clients.blocking)
    sub = pubsub_for(clients.pubsub)
    await sub.subscribe("news")
    return clients, store, sub


async def check_every_client(clients: Any, store: Store, sub: Any, primary: int, label: str,
                             player: str) -> None:
    """Each kind of connection reaches the primary at port ``primary``: redis-py's pool,
    the blocking client, the lean script link, pub/sub."""
    assert await eventually(lambda: clients.main.set("k", label))
    assert await eventually(lambda: clients.main.get("k")) == label.encode()
    assert await eventually(lambda: clients.blocking.xadd("s", {"m": label}))
    done, _wallet = await eventually(lambda: store.adjust_wallet(player, 5))  # a script, on the lean link
    assert done

    async def published() -> dict[str, Any]:
        await eventually(lambda: store.publish("news", label.encode()))
        return await next_message(sub, 2.0)

    deadline = time.monotonic() + 15
    while True:  # (a message published before the subscriber came back is not heard)
        try:
            msg = await published()
            break
        except TimeoutError:
            if time.monotonic() > deadline:
                raise
    assert msg["data"] == label.encode()
    for name, client in (("main", clients.main), ("blocking", clients.blocking)):
        info = await client.execute_command("INFO", "server")
        text = info.decode() if isinstance(info, bytes) else str(info)
        port = info.get("tcp_port") if isinstance(info, dict) else int(text.split("tcp_port:")[1].split()[0])
        assert int(port) == primary, (label, name, port, primary)
    peer = store._link._protocol.transport.get_extra_info("peername")  # type: ignore[union-attr]
    assert peer[1] == primary, (label, peer, primary)


@contextlib.asynccontextmanager
async def sentinel_clients(tmp_path: Path) -> AsyncIterator[tuple[SentinelRedis, Any, Store, Any]]:
    """Redis under Sentinel, and the server's clients of it (see :func:`clients_and_store`)."""
    redis = SentinelRedis(tmp_path)
    await redis.start()
    clients = store = sub = None
    try:
        clients, store, sub = await clients_and_store(redis)
        yield redis, clients, store, sub
    finally:
        for closing in (sub, store, clients):
            if closing is not None:
                await closing.aclose()
        await redis.stop()


async def test_every_client_follows_a_primary_killed_to_its_promoted_replica(tmp_path: Path) -> None:
    async with sentinel_clients(tmp_path) as (redis, clients, store, sub):
        player, _token, grant = await store.create_player("ann")
        await check_every_client(clients, store, sub, redis.primary.port, "before", player)
        assert await clients.main.execute_command("WAIT", 2, 5000) == 2  # the replicas have it all

        redis.kill_primary()
        took, promoted = await redis.wait_promoted()
        await check_every_client(clients, store, sub, promoted.port, "after", player)
        assert await clients.main.get("k") == b"after"
        assert await store.wallet(player) == grant + 10  # both credits: the first was replicated
        print(f"\n[sentinel] primary SIGKILLed: the replica promoted {took:.1f} s later "
              f"(down-after {DOWN_AFTER_MS / 1000:g} s); every client on it")


async def test_a_demoted_primary_is_left_for_the_new_one(tmp_path: Path) -> None:
    """``SENTINEL FAILOVER``: the old primary lives on as a replica (it answers writes
    with READONLY, where the sentinels have not closed the connection first)."""
    async with sentinel_clients(tmp_path) as (redis, clients, store, sub):
        player, _token, _grant = await store.create_player("ann")
        await check_every_client(clients, store, sub, redis.primary.port, "before", player)
        # (a switchover does not wait for the replicas: what they lack is lost, as in a failover)
        assert await clients.main.execute_command("WAIT", 2, 5000) == 2
        sentinel = Redis(port=redis.sentinels[0].port)
        try:
            assert await sentinel.execute_command("SENTINEL", "FAILOVER", SERVICE)
        finally:
            await sentinel.aclose()
        _took, promoted = await redis.wait_promoted()
        # the sentinels turn the old primary into a replica a moment after naming the new
        # one, closing its clients' connections (a write that reached it in between is
        # lost, as in any failover: the owner of the room finds and restores it)
        old = Redis(port=redis.primary.port)
        try:
            deadline = time.monotonic() + 40  # (Sentinel looks every 10 s; slower when starved)
            while (await old.info("replication"))["role"] != "slave":
                assert time.monotonic() < deadline, "the old primary was not turned into a replica"
                await asyncio.sleep(0.1)
        finally:
            await old.aclose()
        await check_every_client(clients, store, sub, promoted.port, "after", player)


# --- two servers playing through a failover -----------------------------------------------

#: 30 rooms, ten of each game
FAILOVER_ROOMS = [("holdem", 2), ("zhajinhua", 3), ("doudizhu", 3)] * 10
#: a lease well above what a failover takes (see docs/server.md, "Running Redis for
#: production"): the lease the promoted replica holds was renewed up to a third of a lease
#: before the primary died, and must outlive the failover for the owner to keep its rooms
LEASE_MS = "30000"
HELD_SECONDS = 1.0  # how far the replicas are behind when the primary dies


def acked_versions(room: Room) -> set[int]:
    return {a["version"] for b in room.bots for a in b.acks}


async def missing_versions(redis_url: str, rooms: list[Room]) -> dict[str, set[int]]:
    """Per room, the acknowledged versions its event stream lacks (every entry counts,
    those without events too)."""
    clients = await connect(redis_url, 4)
    try:
        keys = Store(clients.main).keys
        return {r.id: acked_versions(r) - set(await Room(r.game, r.id, r.bots).read_stream(clients.main, keys))
                for r in rooms}
    finally:
        await clients.aclose()


@pytest.mark.parametrize("wait", [0, 1], ids=["asynchronous", "wait-replicas-1"])
async def test_two_servers_play_on_through_a_failover_and_lose_no_acknowledged_action(
        tmp_path: Path, wait: int) -> None:
    """Two server processes play 30 rooms on a primary and two replicas watched by three
    sentinels. The replicas fall behind (their replication streams held for a second of
    play), then the primary is SIGKILLed: Sentinel promotes a replica, which lacks the
    writes of that second.

    Asynchronous (the default): those writes were acknowledged to players. Every room
    plays on; each owner finds its room older than what it acknowledged
    (``cardroom_lost_writes_total``) and writes its state back: every acknowledged action
    id remembered at its version, chips exact.

    With ``--redis-wait-replicas 1`` nothing was acknowledged that the replicas lacked
    (the changes of that second were answered ``unavailable`` once no replica had
    confirmed them within ``--redis-wait-ms``): nothing to put back, nothing lost; the new
    primary's replica (the other one) confirms the changes after the failover."""
    redis = SentinelRedis(tmp_path)
    await redis.start()
    servers: list[ServerProcess] = []
    fleet = Fleet([])
    flags = ("--lease-ms", LEASE_MS, "--redis-wait-replicas", str(wait), "--redis-wait-ms", "500")
    try:
        servers = [ServerProcess(redis.url, tmp_path / f"server{i}.log", *flags) for i in range(2)]
        for s in servers:
            await s.astart()
        fleet.urls.extend(s.ws_url for s in servers)
        await fleet.open(FAILOVER_ROOMS, {"action_seconds": 60, "between_hands_seconds": 0},
                         home=lambda i: i % 2, spread=True)
        fleet.play()
        await fleet.wait_hands([1] * len(fleet.rooms), 120, "a hand in every room")
        fleet.full_speed()

        redis.link.stall()
        held_at = time.monotonic()
        await asyncio.sleep(HELD_SECONDS)
        killed_at = time.monotonic()
        redis.kill_primary()
        acked_while_held = sum(1 for b in fleet.bots for t, _ in b.ack_times if held_at < t <= killed_at)
        promoted, _replica = await redis.wait_promoted()
        await wait_for(lambda: all(r.first_ack_after(killed_at + promoted) for r in fleet.rooms), 60,
                       lambda: "an action in every room after the failover: " + " | ".join(
                           r.describe() for r in fleet.rooms if not r.first_ack_after(killed_at + promoted)))
        resumed = sorted(t - killed_at for t in (r.first_ack_after(killed_at + promoted) for r in fleet.rooms) if t)
        hands = fleet.hands_done()
        await fleet.wait_hands([h + 1 for h in hands], 120, "another hand in every room after the failover")
        await fleet.stop()

        restored = [await metric(s, "cardroom_lost_writes_total") for s in servers]
        lost = await missing_versions(redis.url, fleet.rooms)
        lost_rooms = sum(1 for v in lost.values() if v)
        if wait:
            assert lost_rooms == 0 and sum(restored) == 0, (lost, restored)
        else:
            assert lost_rooms > 0, "the replicas were held back a second: they must lack acknowledged writes"
            assert sum(restored) >= lost_rooms, (restored, lost_rooms)
        checked = await check_rooms(redis.url, fleet.rooms, restored=lost)
        holders = {await lease_holder(redis.url, r.id) for r in fleet.rooms}
        assert holders <= {s.node for s in servers}, holders
        t = checked.totals
        print(f"\n[failover, {'--redis-wait-replicas 1' if wait else 'asynchronous'}] 30 rooms on 2 processes; the replicas held back {HELD_SECONDS:g} s "
              f"({acked_while_held} actions acknowledged meanwhile), then the primary SIGKILLed: "
              f"promoted in {promoted:.1f} s (down-after {DOWN_AFTER_MS / 1000:g} s); every room played on {resumed[0]:.1f}-{resumed[-1]:.1f} s "
              f"after the kill (median {resumed[len(resumed) // 2]:.1f}); replication lost "
              f"{sum(len(v) for v in lost.values())} acknowledged versions in {lost_rooms} rooms, every one "
              f"written back by its owner (cardroom_lost_writes_total {int(sum(restored))}); "
              f"{checked.actions} acknowledged actions checked; chips exact (grants {t['grants']} = wallets "
              f"{t['wallets']} + tables {t['tables']})")
    finally:
        fleet.cancel()
        for s in servers:
            s.stop()
        await redis.stop()
