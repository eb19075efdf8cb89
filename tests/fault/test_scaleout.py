"""Several ``cardroom serve`` processes on one Redis, with real processes and signals.

Every test prints what it measured (takeover time, resume time) with ``-s``; the waits
bound how long recovery may take, so a test fails if a room is never taken over."""

from __future__ import annotations

import asyncio
import signal
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from server.redis_embedded import wheel_redis_server

from .harness import (
    Player,
    RedisCluster3,
    RedisProcess,
    ServerProcess,
    acks_of,
    audit,
    check_nothing_lost_or_doubled,
    lease_holder,
    open_buy_ins,
    room_snapshot,
    room_stream,
    wait_for,
    wait_for_conservation,
)

pytestmark = [pytest.mark.slow, pytest.mark.each_redis]  # Redis restarted, stopped, a Cluster: run on each binary

# small stakes and (in Hold'em) check-or-call play, so that nobody busts and the table
# keeps playing hand after hand
TABLES: dict[str, dict[str, Any]] = {
    "holdem": {"config": {"small_blind": 1, "big_blind": 2}, "strategy": "passive"},
    "zhajinhua": {"config": {"ante": 1, "max_stake": 4}, "strategy": "random"},
    "doudizhu": {"config": {"stake": 1}, "strategy": "random"},
}
BUY_IN = 5000


@pytest.fixture
def redis(tmp_path: Path):
    r = RedisProcess(tmp_path / "redis")
    r.start()
    yield r
    r.stop()


class Cluster:
    """N server processes on one Redis, and the players of one room spread over them."""

    def __init__(self, tmp_path: Path, redis_url: str, n: int = 3, *extra: str,
                 env: dict[int, dict[str, str]] | None = None) -> None:
        self.redis_url = redis_url
        self.servers = [ServerProcess(redis_url, tmp_path / f"server{i}.log", *extra, env=(env or {}).get(i))
                        for i in range(n)]
        self.players: list[Player] = []
        self.room: str | None = None
        self.tasks: list[asyncio.Task[None]] = []

    def start(self) -> None:
        for s in self.servers:
            s.start()

    @property
    def urls(self) -> list[str]:
        return [s.ws_url for s in self.servers]

    async def seat(self, game: str, seats: int = 3, **options: Any) -> str:
        """A room created on process 0 (which owns it), one player per process."""
        self.players = [Player(f"p{i}", game, self.urls, home=i % len(self.servers),
                               strategy=TABLES[game]["strategy"]) for i in range(seats)]
        for p in self.players:
            await p.connect()
        opts = {"seats": seats, "action_seconds": 60, "between_hands_seconds": 0.2, **options}
        created = await self.players[0].request({"t": "create_room", "game": game, "options": opts,
                                                 "config": TABLES[game]["config"]})
        assert created["t"] == "room", created
        self.room = created["room"]
        for i, p in enumerate(self.players):
            p.room = self.room
            joined = await p.request({"t": "join", "room": self.room, "seat": i, "buy_in": BUY_IN})
            assert joined["t"] == "room", joined
            p.seat, p.latest = i, joined
        return self.room

    def play(self) -> None:
        for p in self.players:
            self.tasks.append(asyncio.create_task(p.play(lambda _p: False)))

    async def stop_playing(self) -> None:
        for p in self.players:
            p.stop.set()
        await asyncio.gather(*self.tasks)
        self.tasks.clear()

    def acks(self) -> list[tuple[str, dict[str, Any]]]:
        return acks_of(self.players)

    def hands_done(self) -> int:
        return min((max(p.hands_seen) if p.hands_seen else 0) for p in self.players)

    async def owner(self) -> ServerProcess:
        node = await lease_holder(self.redis_url, self.room)
        matches = [s for s in self.servers if s.node == node]
        assert matches, f"the lease of {self.room} names {node}, no process of ours"
        return matches[0]

    def stop(self) -> None:
        for s in self.servers:
            s.stop()


async def kill_the_owner_mid_hand(cluster: Cluster, game: str) -> float:
    """Play a hand, SIGKILL the room's owner during the next one, and play on until two
    more hands end; returns the seconds from the kill to the next acknowledged action."""
    cluster.play()
    await wait_for(lambda: cluster.hands_done() >= 1, 60, "the first hand")
    acked = len(cluster.acks())
    await wait_for(lambda: len(cluster.acks()) >= acked + 2, 60, "play in the second hand")
    owner = await cluster.owner()
    index = cluster.servers.index(owner)
    for p in cluster.players:
        p.avoid.add(index)
    killed_at = time.monotonic()
    owner.kill9()
    last = (await room_snapshot(cluster.redis_url, cluster.room))["version"]  # all the dead owner stored
    await wait_for(lambda: any(a["version"] > last for _, a in cluster.acks()), 30, "play after the kill")
    resumed = time.monotonic() - killed_at
    hands = cluster.hands_done()
    await wait_for(lambda: cluster.hands_done() >= hands + 2, 120, "two more hands after the kill")
    await cluster.stop_playing()
    new_owner = await cluster.owner()
    assert new_owner is not owner and new_owner.alive()
    print(f"\n{game}: owner {owner.node} SIGKILLed mid-hand; play resumed after {resumed:.2f} s "
          f"on {new_owner.node}")
    return resumed


@pytest.mark.parametrize("game", sorted(TABLES))
async def test_three_processes_play_one_table_and_survive_the_owner_being_killed(tmp_path, redis, game):
    cluster = Cluster(tmp_path, redis.url)
    try:
        cluster.start()
        await cluster.seat(game)
        await kill_the_owner_mid_hand(cluster, game)
        await check_nothing_lost_or_doubled(cluster.redis_url, cluster.room, cluster.players)
        moved = [p for p in cluster.players if p.reconnects]
        assert len(moved) == 1  # the player whose process died resumed on another one
    finally:
        cluster.stop()


async def test_the_same_on_redis_6_2(tmp_path):
    redis = RedisProcess(tmp_path / "redis62", binary=wheel_redis_server())  # no SPUBLISH, older commands
    redis.start()
    cluster = Cluster(tmp_path, redis.url)
    try:
        cluster.start()
        await cluster.seat("holdem")
        await kill_the_owner_mid_hand(cluster, "holdem (Redis 6.2)")
        await check_nothing_lost_or_doubled(cluster.redis_url, cluster.room, cluster.players)
    finally:
        cluster.stop()
        redis.stop()


async def test_the_same_on_a_redis_cluster_of_three_masters(tmp_path):
    redis_cluster = RedisCluster3(tmp_path / "cluster")
    try:
        await redis_cluster.start()
        cluster = Cluster(tmp_path, redis_cluster.url)
        try:
            cluster.start()
            await cluster.seat("holdem")
            await kill_the_owner_mid_hand(cluster, "holdem (Redis Cluster)")
            await check_nothing_lost_or_doubled(cluster.redis_url, cluster.room, cluster.players)
        finally:
            cluster.stop()
    finally:
        redis_cluster.stop()


async def test_a_paused_owner_is_fenced_out_and_sends_nothing_stale(tmp_path, redis):
    cluster = Cluster(tmp_path, redis.url, 2, "--lease-ms", "1000", "--forward-timeout", "1")
    try:
        cluster.start()
        room = await cluster.seat("holdem", seats=2)
        stale_side, other = cluster.players  # p0 sits on the owner's process, p1 on the other
        # a spectator on the owner's process records everything it is sent
        watcher = Player("watcher", "holdem", cluster.urls, home=0, strategy="passive")
        await watcher.connect()
        watcher.room = room
        await watcher.request({"t": "spectate", "room": room})
        cluster.play()
        await wait_for(lambda: cluster.hands_done() >= 1, 60, "a hand")
        owner = await cluster.owner()
        assert owner is cluster.servers[0]
        owner.signal(signal.SIGSTOP)  # frozen past its lease (1 s)
        paused_at = time.monotonic()
        frozen_version = max(a["version"] for _, a in cluster.acks())
        # p1 (on the other process) keeps playing: its requests go unanswered, then the
        # room is taken over; p0's requests wait on the frozen process
        await wait_for(lambda: any(a["version"] > frozen_version for a in other.acks), 30,
                       "the other process to take the room")
        took = time.monotonic() - paused_at
        assert (await cluster.owner()) is cluster.servers[1]
        await asyncio.sleep(1.0)  # the room moves on without the frozen process
        owner.signal(signal.SIGCONT)
        await wait_for(lambda: "dropped" in owner.output(), 15, "the old owner to drop the room")
        await wait_for(lambda: cluster.hands_done() >= 3, 90, "more hands after the resume")
        await cluster.stop_playing()
        await check_nothing_lost_or_doubled(cluster.redis_url, cluster.room, cluster.players)
        # everything the watcher on the old owner's process got matches what Redis stored
        stored = dict(await room_stream(redis.url, room))
        seen = [m for m in watcher.client.inbox if m.get("t") == "event" and m.get("room") == room]
        while True:
            try:
                m = await watcher.client.expect("event", timeout=0.3, room=room)
                seen.append(m)
            except TimeoutError:
                break
        assert seen
        for m in seen:
            ev = m["event"]
            assert m["version"] in stored, m
            assert ev["type"] in {e["type"] for e in stored[m["version"]]}, m
        metrics = urllib.request.urlopen(owner.http_url + "metrics", timeout=5).read().decode()
        assert 'cardroom_room_ownership_total{change="dropped"} 1.0' in metrics
        print(f"\nowner frozen (SIGSTOP, lease 1 s): the other process played on after {took:.2f} s; "
              "on SIGCONT the old owner dropped the room without writing")
    finally:
        cluster.stop()


async def test_a_rolling_restart_hands_the_room_over_at_once(tmp_path, redis):
    cluster = Cluster(tmp_path, redis.url)
    try:
        cluster.start()
        await cluster.seat("holdem")
        cluster.play()
        await wait_for(lambda: cluster.hands_done() >= 1, 60, "a hand")
        owner = await cluster.owner()
        index = cluster.servers.index(owner)
        for p in cluster.players:
            p.avoid.add(index)
        before = {id(a) for _, a in cluster.acks()}
        t0 = time.monotonic()
        assert await owner.terminate() == 0  # SIGTERM: finish, store, release, close with 1001
        stopped = time.monotonic() - t0
        await wait_for(lambda: any(id(a) not in before for _, a in cluster.acks()), 30, "play after the restart")
        resumed = time.monotonic() - t0
        hands = cluster.hands_done()
        await wait_for(lambda: cluster.hands_done() >= hands + 1, 60, "a hand after the restart")
        await cluster.stop_playing()
        await check_nothing_lost_or_doubled(cluster.redis_url, cluster.room, cluster.players)
        out = owner.output()
        assert "no longer owned" in out and "(stopped)" in out
        print(f"\nSIGTERM of the owner: it stopped in {stopped:.2f} s; play resumed {resumed:.2f} s "
              "after the signal (including the players' reconnects)")
    finally:
        cluster.stop()


async def test_redis_stopped_for_five_seconds_mid_hand(tmp_path, redis):
    cluster = Cluster(tmp_path, redis.url, 2)
    try:
        cluster.start()
        await cluster.seat("holdem", seats=2)
        cluster.play()
        await wait_for(lambda: cluster.hands_done() >= 1, 60, "a hand")
        await cluster.stop_playing()
        # a hand is running and someone is to act; then Redis goes away for 5 s
        players = cluster.players
        for _ in range(100):
            snap = await players[0].request({"t": "spectate", "room": cluster.room})
            if snap["playing"] and snap["view"]["to_act"] is not None:
                break
            await asyncio.sleep(0.1)
        to_act = players[snap["view"]["to_act"]]
        view = (await to_act.request({"t": "spectate", "room": cluster.room}))["view"]
        action = to_act._choose(view)
        redis.stop()
        down_at = time.monotonic()
        acting = asyncio.create_task(to_act._act(action, "during-the-outage"))  # resent until acked
        await asyncio.sleep(5)
        assert not acting.done()
        codes = [e.get("code") for e in to_act.errors]
        assert codes and set(codes) == {"unavailable"}, codes  # told at once, and nothing else
        redis.start()
        await acting
        back = time.monotonic() - down_at - 5
        assert to_act.acks[-1]["id"] == "during-the-outage"
        for p in players:
            p.stop.clear()
        cluster.play()
        hands = cluster.hands_done()
        await wait_for(lambda: cluster.hands_done() >= hands + 2, 60, "hands after Redis is back")
        await cluster.stop_playing()
        await check_nothing_lost_or_doubled(cluster.redis_url, cluster.room, cluster.players)
        for s in cluster.servers:
            assert s.alive()
        print(f"\nRedis down 5 s: the player to act got 'unavailable' ({len(codes)} tries); "
              f"the same action was acknowledged {back:.2f} s after Redis came back")
    finally:
        cluster.stop()


@pytest.mark.parametrize("point", ["after_debit", "after_join_commit", "after_leave_commit"])
async def test_a_crash_between_the_two_steps_of_a_chip_transfer(tmp_path, redis, point):
    # process 0 kills itself (SIGKILL) at the crash point; process 1 finds the transfer
    # half done and completes it (the sweeper for a buy-in, the room's next owner for a
    # cash-out)
    cluster = Cluster(tmp_path, redis.url, 2, "--lease-ms", "1000", env={0: {"CARDROOM_FAULT": point}})
    try:
        cluster.start()
        a = Player("a", "holdem", cluster.urls, home=0)
        await a.connect()
        room = (await a.request({"t": "create_room", "game": "holdem", "options": {"seats": 2}}))["room"]
        if point == "after_leave_commit":
            assert (await a.request({"t": "join", "room": room, "buy_in": 700}))["t"] == "room"
            await a.client.send({"t": "leave", "room": room})
        else:
            await a.client.send({"t": "join", "room": room, "buy_in": 700})
        await wait_for(lambda: not cluster.servers[0].alive(), 15, "the crash")
        mid = await audit(redis.url)  # half done: the chips are between wallet and table
        if point == "after_join_commit":
            assert mid["pending"] == 0 and await open_buy_ins(redis.url, a.player) == 1
        else:
            assert mid["pending"] == 700
        deadline = time.monotonic() + 30
        while await open_buy_ins(redis.url, a.player):  # the sweeper closes the journal entry
            assert time.monotonic() < deadline, "the buy-in's journal entry was never closed"
            await asyncio.sleep(0.2)
        totals = await wait_for_conservation(redis.url)
        a.avoid.add(0)
        await a.reconnect()  # to process 1: what does the player hold now?
        seats = a.welcome["seats"]
        if point == "after_debit":  # the seat was never stored: the buy-in came back
            assert seats == [] and totals["wallets"] == 10_000 and totals["tables"] == 0
        elif point == "after_join_commit":  # the seat was stored: the buy-in stays on the table
            assert seats == [{"room": room, "game": "holdem", "seat": 0}]
            assert totals["wallets"] == 9_300 and totals["tables"] == 700
        else:  # the departure was stored: the stack reached the wallet
            assert seats == [] and totals["wallets"] == 10_000 and totals["tables"] == 0
        assert totals["grants"] == 10_000
        print(f"\ncrash {point}: recovered by {cluster.servers[1].node}, chips {totals}")
    finally:
        cluster.stop()
