"""Real processes on loopback for the scale-out tests: Redis (one server, or a 3-master
Redis Cluster), several ``cardroom serve`` processes, and players that behave like a
careful client (resend an action with the same id after ``unavailable``, reconnect to
another process and resume with the token when their process goes away)."""

from __future__ import annotations

import asyncio
import os
import random
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from redis.asyncio import Redis
from websockets.exceptions import ConnectionClosed

from client_demo.tools.loadtest.launcher import free_port as launcher_free_port
from engine import bots
from server.redis_embedded import redis_server_binary
from server.room.log import load_room
from tests.server.wsclient import Client

ROOT = Path(__file__).resolve().parents[2]
URL_LINE = re.compile(r"open (http://127\.0\.0\.1:(\d+)/) .*as node (n-\S+)")


def free_port(cluster_bus: bool = False) -> int:
    """A free loopback port (see the launcher's :func:`free_port`); with ``cluster_bus``,
    one whose Redis Cluster bus port (port + 10000) is free too."""
    return launcher_free_port(also=10_000 if cluster_bus else 0)


def wait_port(port: int, timeout: float = 10.0, proc: subprocess.Popen[bytes] | None = None,
              logs: tuple[Path, ...] = ()) -> None:
    """Until something listens on ``port``. With ``proc``, the process that should: if it
    exits first, fail at once with the last lines of its ``logs`` (what it said about why)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"the process for port {port} exited with status {proc.returncode}"
                               + "".join(_tail(log) for log in logs))
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise TimeoutError(f"nothing listens on port {port}" + "".join(_tail(log) for log in logs))


def _tail(log: Path, lines: int = 8) -> str:
    try:
        text = log.read_text(errors="replace").splitlines()[-lines:]
    except OSError:
        return ""
    return f"\n{log}:\n" + "\n".join(text) if text else ""


def popen_logged(args: list[str], directory: Path) -> subprocess.Popen[bytes]:
    """Start ``args`` in ``directory``, what it prints going to ``output.log`` there (a
    redis-server that refuses its configuration says why there, not in its log file)."""
    with open(directory / "output.log", "ab") as output:
        return subprocess.Popen(args, cwd=directory, stdout=output, stderr=subprocess.STDOUT)


class RedisProcess:
    """One redis-server on a loopback TCP port, append-only in ``dir``; restartable."""

    def __init__(self, directory: Path, port: int | None = None, cluster: bool = False,
                 binary: str | None = None, extra: tuple[str, ...] = ()) -> None:
        self.dir = directory
        self.port = port or free_port(cluster_bus=cluster)
        self.cluster = cluster
        self.binary = binary or redis_server_binary()
        self.extra = extra  # more redis-server arguments (``--replicaof``, say)
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        args = [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.dir),
                "--appendonly", "yes", "--appendfsync", "everysec", "--save", "", "--logfile", "redis.log"]
        if self.cluster:
            args += ["--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                     "--cluster-node-timeout", "2000"]
        args += self.extra
        self.proc = popen_logged(args, self.dir)
        wait_port(self.port, proc=self.proc, logs=(self.dir / "output.log", self.dir / "redis.log"))

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)
        self.proc = None


class RedisCluster3:
    """A Redis Cluster of three masters (no replicas), slots assigned by this test."""

    def __init__(self, directory: Path) -> None:
        self.nodes = [RedisProcess(directory / f"node{i}", cluster=True) for i in range(3)]

    @property
    def url(self) -> str:
        return self.nodes[0].url

    async def start(self) -> None:
        for n in self.nodes:
            n.start()
        clients = [Redis(port=n.port) for n in self.nodes]
        try:
            for c in clients[1:]:
                await c.execute_command("CLUSTER", "MEET", "127.0.0.1", self.nodes[0].port)
            bounds = [(0, 5460), (5461, 10922), (10923, 16383)]
            for c, (lo, hi) in zip(clients, bounds, strict=True):
                await c.execute_command("CLUSTER", "ADDSLOTS", *range(lo, hi + 1))
            deadline = time.monotonic() + 20
            while True:
                infos = [await c.execute_command("CLUSTER", "INFO") for c in clients]
                texts = [i.decode() if isinstance(i, bytes) else str(i) for i in infos]
                known = [await c.execute_command("CLUSTER", "NODES") for c in clients]
                if all("cluster_state:ok" in t for t in texts) and all(
                        (k.decode() if isinstance(k, bytes) else str(k)).count("master") >= 3 for k in known):
                    return
                if time.monotonic() > deadline:
                    raise TimeoutError(f"the cluster did not form: {texts}")
                await asyncio.sleep(0.1)
        finally:
            for c in clients:
                await c.aclose()

    def stop(self) -> None:
        for n in self.nodes:
            n.stop()


class ServerProcess:
    """``python -m server serve`` on a free port, its output in a log file."""

    def __init__(self, redis_url: str, log: Path, *extra: str, env: dict[str, str] | None = None) -> None:
        self.redis_url = redis_url
        self.log = log
        self.extra = list(extra)
        self.env = env or {}
        self.proc: subprocess.Popen[bytes] | None = None
        self.port: int | None = None
        self.node: str | None = None

    def start(self, timeout: float = 30.0) -> None:
        self._spawn()
        deadline = time.monotonic() + timeout
        while not self._ready():
            if time.monotonic() > deadline:
                break
            time.sleep(0.05)
        self._check_started()

    async def astart(self, timeout: float = 30.0) -> None:
        """:meth:`start` without blocking the event loop (e.g. a relay runs in it)."""
        self._spawn()
        deadline = time.monotonic() + timeout
        while not self._ready():
            if time.monotonic() > deadline:
                break
            await asyncio.sleep(0.05)
        self._check_started()

    def _spawn(self) -> None:
        self._log_from = self.log.stat().st_size if self.log.exists() else 0  # a restart appends
        self.port = self.node = None
        env = dict(os.environ, PYTHONUNBUFFERED="1", **self.env)
        env.pop("REDIS_URL", None)
        out = open(self.log, "ab")  # noqa: SIM115 - the child writes it
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "server", "--port", "0", "--redis-url", self.redis_url,
             "--log-level", "INFO", *self.extra],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
        )
        out.close()

    def _ready(self) -> bool:
        assert self.proc is not None
        if self.proc.poll() is not None:
            return True
        m = URL_LINE.search(self.log.read_bytes()[self._log_from:].decode(errors="replace"))
        if m:
            self.port, self.node = int(m.group(2)), m.group(3)
        return m is not None

    def _check_started(self) -> None:
        if self.port is None or not self.alive():
            raise AssertionError(f"server did not start:\n{self.log.read_text(errors='replace')[-3000:]}")

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    @property
    def http_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def signal(self, sig: int) -> None:
        assert self.proc is not None
        self.proc.send_signal(sig)

    def kill9(self) -> None:
        self.signal(signal.SIGKILL)
        assert self.proc is not None
        self.proc.wait(10)

    async def terminate(self, timeout: float = 30.0) -> int:
        """SIGTERM, then wait for the exit without blocking the event loop (the clients
        in this process must answer the server's closing handshake meanwhile)."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + timeout
        while self.proc.poll() is None:
            if time.monotonic() > deadline:
                raise TimeoutError("the server did not stop")
            await asyncio.sleep(0.02)
        return self.proc.returncode

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGCONT)
            self.proc.kill()
            self.proc.wait(10)

    def output(self) -> str:
        return self.log.read_text(errors="replace")


class Player:
    """A seated player that plays its turns with a built-in strategy and survives its
    process going away: it resends with the same action id after ``unavailable`` (or no
    answer), and reconnects to the next process in ``urls`` with its token."""

    def __init__(self, name: str, game: str, urls: list[str], home: int, strategy: str = "random") -> None:
        self.name = name
        self.game = game
        self.urls = urls
        self.home = home  # index of the process it is connected to
        self.strategy = strategy
        self.rng = random.Random(hash(name) & 0xFFFF)
        self.client: Client | None = None
        self.welcome: dict[str, Any] = {}
        self.token: str | None = None
        self.player: str | None = None
        self.room: str | None = None
        self.seat: int | None = None
        self.acks: list[dict[str, Any]] = []  # every ack received: id, version
        self.errors: list[dict[str, Any]] = []  # every error received
        self.hands_seen: set[int] = set()
        self.latest: dict[str, Any] | None = None
        self.reconnects = 0
        self.stop = asyncio.Event()
        self.avoid: set[int] = set()  # processes not to reconnect to

    async def connect(self) -> None:
        self.client = await Client.connect(self.urls[self.home])
        welcome = await (self.client.hello(token=self.token) if self.token else self.client.hello(self.name))
        assert welcome["t"] == "welcome", welcome
        self.token, self.player, self.welcome = welcome["token"], welcome["player"], welcome

    async def reconnect(self) -> None:
        """Move to another process (the next one not avoided) and resume."""
        candidates = [i for i in range(len(self.urls)) if i != self.home and i not in self.avoid] or [self.home]
        for attempt in range(100):
            self.home = candidates[attempt % len(candidates)]
            try:
                await self.connect()
                self.reconnects += 1
                return
            except (OSError, ConnectionClosed, TimeoutError, AssertionError):
                await asyncio.sleep(0.2)
        raise AssertionError(f"{self.name} could not reconnect")

    async def request(self, msg: dict[str, Any], timeout: float = 15.0) -> dict[str, Any]:
        assert self.client is not None
        return await self.client.request(msg, timeout)

    async def play(self, until: Callable[[Player], bool]) -> None:
        """Play turns until ``until(self)`` or :attr:`stop` is set."""
        while not self.stop.is_set() and not until(self):
            try:
                await self._step()
            except (ConnectionClosed, OSError):
                await self.reconnect()

    async def _step(self) -> None:
        assert self.client is not None and self.room is not None
        try:
            msg = await self.client.expect(None, timeout=0.5)
        except TimeoutError:
            msg = None
        if msg is not None:
            self._note(msg)
        snap = self.latest
        if snap is None or not snap["playing"] or snap["view"] is None:
            return
        view = snap["view"]
        if view.get("to_act") != snap["your_seat"] or view.get("legal") is None:
            return
        action = self._choose(view)
        if action is None:
            return
        await self._act(action, f"{self.name}-v{snap['version']}")

    def _choose(self, view: dict[str, Any]) -> dict[str, Any] | None:
        if self.strategy == "passive":  # Hold'em: check or call, so nobody ever busts
            legal = view["legal"]
            return {"type": "check"} if legal.get("check") else {"type": "call"}
        return bots.decide(self.game, self.strategy, view, self.rng)

    async def _act(self, action: dict[str, Any], action_id: str) -> None:
        """Send until answered: the same id again after ``unavailable`` or silence."""
        for _ in range(200):
            try:
                reply = await self.request({"t": "act", "room": self.room, "action": action, "id": action_id})
            except TimeoutError:
                continue
            if reply["t"] == "ack":
                self.acks.append(reply)
                return
            self.errors.append(reply)
            if reply.get("code") != "unavailable":
                return  # e.g. not_your_turn: our snapshot was stale; a newer one follows
            await asyncio.sleep(0.2)
        raise AssertionError(f"{self.name}: {action_id} never answered")

    def _note(self, msg: dict[str, Any]) -> None:
        if msg.get("t") == "room" and msg.get("room") == self.room:
            if self.latest is None or msg["version"] >= self.latest["version"]:
                self.latest = msg
        elif msg.get("t") == "event" and msg["event"].get("type") == "hand_ended":
            self.hands_seen.add(msg["event"]["hand_no"])
        elif msg.get("t") == "error":
            self.errors.append(msg)


async def wait_for(predicate: Callable[[], bool], timeout: float, what: str | Callable[[], str]) -> None:
    """Wait until ``predicate()``; past ``timeout`` seconds fail, naming ``what`` (a
    callable: called then, to say what things look like at that moment)."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what() if callable(what) else what}")
        await asyncio.sleep(0.05)


async def lease_holder(redis_url: str, room: str, prefix: str = "cardroom:") -> str | None:
    from server.store.connect import connect
    from server.store.keys import Keys

    clients = await connect(redis_url, 4)
    try:
        value = await clients.main.get(Keys(prefix).lease(room))
        return None if value is None else value.decode().split(" ")[0]
    finally:
        await clients.aclose()


async def audit(redis_url: str, prefix: str = "cardroom:") -> dict[str, int]:
    """Chip totals (``Store.chip_audit``)."""
    from server.store import Store
    from server.store.connect import connect

    clients = await connect(redis_url, 4)
    try:
        return await Store(clients.main, prefix).chip_audit()
    finally:
        await clients.aclose()


async def room_stream(redis_url: str, room: str, prefix: str = "cardroom:") -> list[tuple[int, list]]:
    from server.store import Store
    from server.store.connect import connect

    clients = await connect(redis_url, 4)
    try:
        return await Store(clients.main, prefix).room_events(room)
    finally:
        await clients.aclose()


async def room_snapshot(redis_url: str, room: str, prefix: str = "cardroom:") -> dict[str, Any]:
    from server.store import Store
    from server.store.connect import connect

    clients = await connect(redis_url, 4)
    try:
        return await load_room(Store(clients.main, prefix), room)
    finally:
        await clients.aclose()


async def open_buy_ins(redis_url: str, player: str, prefix: str = "cardroom:") -> int:
    """How many of the player's buy-ins are still open in the journal."""
    from server.store.connect import connect
    from server.store.keys import Keys

    clients = await connect(redis_url, 4)
    try:
        return int(await clients.main.hlen(Keys(prefix).journal(player)))
    finally:
        await clients.aclose()


def acks_of(players: list[Player]) -> list[tuple[str, dict[str, Any]]]:
    """Every ack the players received, with the player it answered."""
    return [(p.player, a) for p in players for a in p.acks]


async def check_nothing_lost_or_doubled(redis_url: str, room: str, players: list[Player]) -> dict[str, Any]:
    """Every acknowledged action is in the durable record: its version is in the room's
    stream, and each player's latest action ids (the ones a client may still resend) are
    remembered at the versions they were acked with, once; the stream has each version
    once, in order; chips add up exactly."""
    from server.room.table import ANSWERS_KEPT

    snap = await room_snapshot(redis_url, room)
    answers = [(p, aid) for p, ids in snap["answers"].items() for aid, _ in ids]
    assert len(answers) == len(set(answers)), "an action id was applied twice"
    recorded = {(p, aid): v for p, ids in snap["answers"].items() for aid, v in ids}
    versions = [v for v, _ in await room_stream(redis_url, room)]
    assert versions == sorted(set(versions)), "a version was written twice"
    stored = set(versions)
    assert any(p.acks for p in players), "nothing was played"
    for p in players:
        for ack in p.acks:
            assert ack["version"] in stored, f"acknowledged {ack} lost"
        for ack in p.acks[-ANSWERS_KEPT:]:
            assert recorded.get((p.player, ack["id"])) == ack["version"], f"{ack} not remembered"
    await wait_for_conservation(redis_url)
    return snap


async def wait_for_conservation(redis_url: str, timeout: float = 30.0) -> dict[str, int]:
    """Chips balance exactly, and every transfer completes (pending drops to zero).

    The audit reads key after key, so a transfer that completes while it reads can be seen
    on neither side (ci37: the wallet read before a cash-out's credit, the room after the
    table forgot it: 700 chips short, once). A count that does not balance is therefore
    read again; chips really lost never balance, and fail at the deadline."""
    deadline = time.monotonic() + timeout
    while True:
        totals = await audit(redis_url)
        balanced = totals["grants"] == totals["wallets"] + totals["tables"] + totals["pending"]
        if balanced and totals["pending"] == 0:
            return totals
        if time.monotonic() > deadline:
            raise AssertionError(f"chips do not balance: {totals}" if not balanced
                                 else f"transfers never completed: {totals}")
        await asyncio.sleep(0.2)
