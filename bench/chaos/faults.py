"""The faults the chaos soak injects, and the scheduler that injects them at random,
overlapping, for as long as the soak runs.

Each fault is a coroutine that breaks something and undoes it (a process restarted as a
supervisor would restart it, a relay let flow again); a :class:`Fault` records when it
started, when its injection was undone (``ended``) and when every room had changed again
after that (``resumed``). The scheduler keeps the system recoverable and nothing more:
never every server down at once, one Redis fault at a time, a Redis node killed only
while the primary has both replicas in sync (what a failover needs), no rolling restart
while Redis is broken (a server's shutdown hands its rooms over through Redis); everything
else may overlap (a server killed while Redis fails over, a paused server waking during a
takeover, players cut off meanwhile).
"""

from __future__ import annotations

import asyncio
import random
import signal
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from tests.redis_link import RedisLink

from .players import Progress
from .topology import RedisHA, Server


@dataclass
class Fault:
    kind: str
    target: str
    started: float
    ended: float | None = None  # when the injection was undone
    resumed: float | None = None  # when every room had changed after ``ended``
    detail: str = ""
    waiting: set[str] = field(default_factory=set)  # rooms not changed since ``ended``
    violation: str | None = None  # what went wrong undoing it (a server that did not stop, say)


#: kind -> (what it is, for the report; its weight: server and network faults are the common ones)
KINDS: dict[str, tuple[str, float]] = {
    "server-kill": ("server SIGKILLed, restarted", 3.0),
    "server-pause": ("server SIGSTOPped, woken", 2.0),
    "client-cut": ("players' connections to a server cut", 3.0),
    "client-stall": ("players' connections to a server stalled", 3.0),
    "primary-kill": ("Redis primary SIGKILLed (failover)", 1.2),
    "replica-kill": ("Redis replica SIGKILLed, restarted", 1.2),
    "primary-stall": ("Redis primary's network stalled", 1.5),
    "primary-cut": ("Redis primary's connections cut", 1.5),
    "rolling-restart": ("every server restarted with SIGTERM, in turn", 0.4),
}
SERVER_FAULTS = {"server-kill", "server-pause", "rolling-restart"}
REDIS_FAULTS = {"primary-kill", "replica-kill", "primary-stall", "primary-cut"}


class Chaos:
    """Random faults on ``redis`` and ``servers``; ``rooms`` are the ids every fault waits
    to see change again (through ``progress``)."""

    def __init__(self, redis: RedisHA, servers: list[Server], progress: Progress, rooms: list[str],
                 rng: random.Random, lease_seconds: float, say: Callable[[str], None],
                 kinds: list[str] | None = None) -> None:
        self.kinds = kinds or list(KINDS)  # the kinds of fault to inject
        self.redis = redis
        self.servers = servers
        self.rooms = rooms
        self.rng = rng
        self.lease_seconds = lease_seconds
        self.say = say
        self.faults: list[Fault] = []
        self.busy: set[str] = set()  # "redis", server names (down or paused), "relay:<server>"
        self._tasks: set[asyncio.Task[None]] = set()
        self._recovering: list[Fault] = []  # undone, some room not changed since
        progress.watchers.append(self._room_changed)

    # --- the scheduler ---------------------------------------------------------------------

    async def run(self, seconds: float, mean_gap: float,
                  quiet_check: Callable[[], Awaitable[None]], check_every: float) -> None:
        """Inject faults for ``seconds``, one every ``mean_gap`` seconds on average
        (exponential gaps), overlapping. At a quiet point (no fault active, every room moving
        again) at most every ``check_every`` seconds, inject nothing until ``quiet_check``
        has run. Returns once every fault has been undone."""
        end = time.monotonic() + seconds
        last_check = time.monotonic()
        rolled = False
        while time.monotonic() < end:
            await asyncio.sleep(min(self.rng.expovariate(1 / mean_gap), max(0.0, end - time.monotonic())))
            if time.monotonic() >= end:
                break
            if self.quiet() and time.monotonic() - last_check >= check_every:
                await quiet_check()
                last_check = time.monotonic()
            # one rolling restart in every run (in its last third, if chance has not brought one)
            if (not rolled and "rolling-restart" in self.kinds and time.monotonic() > end - seconds / 3
                    and self._allowed("rolling-restart")):
                kind = "rolling-restart"
            else:
                kind = self._pick()
            if kind is None:
                continue
            rolled |= kind == "rolling-restart"
            self._start(kind)
        while self._tasks:
            await asyncio.gather(*self._tasks)

    def recovering(self) -> list[Fault]:
        """The faults undone after which some table has not moved yet."""
        return list(self._recovering)

    def quiet(self) -> bool:
        return not self._tasks and not self._recovering

    def _pick(self) -> str | None:
        kinds = [k for k in self.kinds if self._allowed(k)]
        if not kinds:
            return None
        return self.rng.choices(kinds, [KINDS[k][1] for k in kinds])[0]

    def _allowed(self, kind: str) -> bool:
        up = [s for s in self.servers if s.name not in self.busy]
        if kind == "rolling-restart":  # a deploy: with Redis well (a shutdown must reach it to hand over)
            return len(up) == len(self.servers) and "redis" not in self.busy
        if kind in SERVER_FAULTS:
            return len(up) >= 2  # one stays up
        if kind.startswith("client"):
            return any(f"relay:{s.name}" not in self.busy for s in self.servers)
        return "redis" not in self.busy

    def _start(self, kind: str) -> None:
        task = asyncio.create_task(self._inject(kind))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _inject(self, kind: str) -> None:
        fault = Fault(kind, "", time.monotonic())
        self.faults.append(fault)
        try:
            if kind in SERVER_FAULTS:
                await self._server_fault(fault)
            elif kind.startswith("client"):
                await self._relay_fault(fault)
            else:
                await self._redis_fault(fault)
        except Exception as exc:  # a fault that could not be undone is a finding, not a crash
            fault.violation = f"{kind} failed: {exc!r}"
        if fault.ended is None:
            self._undone(fault)
        self.say(f"{fault.kind} {fault.target or '?'} ({fault.detail}) undone after {fault.ended - fault.started:.1f} s"
                 + (f": {fault.violation}" if fault.violation else ""))

    def _undone(self, fault: Fault) -> None:
        """The fault's injection is undone now: from here every room must change again."""
        fault.ended = time.monotonic()
        fault.waiting = set(self.rooms)
        self._recovering.append(fault)

    def _room_changed(self, room: str, now: float) -> None:
        for f in list(self._recovering):
            f.waiting.discard(room)
            if not f.waiting:
                f.resumed = now
                self._recovering.remove(f)
                self.say(f"every table moving again {now - f.ended:.1f} s after {f.kind} {f.target} was undone")

    # --- the faults --------------------------------------------------------------------------

    async def _server_fault(self, fault: Fault) -> None:
        if fault.kind == "rolling-restart":
            targets = list(self.servers)
        else:
            targets = [self.rng.choice([s for s in self.servers if s.name not in self.busy])]
        fault.target = ", ".join(s.name for s in targets)
        held = {s.name for s in targets} | ({"redis"} if fault.kind == "rolling-restart" else set())
        self.busy |= held
        try:
            if fault.kind == "server-kill":
                down = self.rng.uniform(1.0, 4.0)
                targets[0].process.kill9()
                await asyncio.sleep(down)
                await targets[0].start()
                fault.detail = f"restarted after {down:.1f} s"
            elif fault.kind == "server-pause":
                # up to past a lease: the process wakes to find its rooms taken over
                paused = self.rng.uniform(1.0, 1.4 * self.lease_seconds)
                targets[0].process.signal(signal.SIGSTOP)
                await asyncio.sleep(paused)
                targets[0].process.signal(signal.SIGCONT)
                fault.detail = f"paused {paused:.1f} s"
            else:
                took = []
                for s in targets:
                    t0 = time.monotonic()
                    status = await s.process.terminate(30)
                    took.append(time.monotonic() - t0)
                    if status != 0:
                        fault.violation = f"{s.name} exited with status {status} on SIGTERM"
                    await s.start()
                fault.detail = "each stopped in " + ", ".join(f"{t:.1f}" for t in took) + " s and restarted"
        finally:
            self._undone(fault)
            self.busy -= held

    async def _relay_fault(self, fault: Fault) -> None:
        server = self.rng.choice([s for s in self.servers if f"relay:{s.name}" not in self.busy])
        fault.target = f"{server.name}'s players"
        self.busy.add(f"relay:{server.name}")
        try:
            await self._break_link(fault, server.link, cut=fault.kind == "client-cut", longest_stall=5.0)
        finally:
            self._undone(fault)
            self.busy.discard(f"relay:{server.name}")

    async def _break_link(self, fault: Fault, link: RedisLink, cut: bool, longest_stall: float) -> None:
        """Cut ``link`` (every connection closed, new ones refused) for up to 2 s, or stall
        it (its traffic held both ways) for up to ``longest_stall`` s; then let it flow."""
        if cut:
            held = self.rng.uniform(0.2, 2.0)
            link.cut()
            fault.detail = f"every connection closed, new ones refused {held:.1f} s"
        else:
            held = self.rng.uniform(0.5, longest_stall)
            link.stall()
            fault.detail = f"traffic held {held:.1f} s"
        await asyncio.sleep(held)
        link.flow()

    async def _redis_fault(self, fault: Fault) -> None:
        self.busy.add("redis")
        try:
            kills = fault.kind.endswith("kill")
            if kills and not await self.redis.wait_healthy(120):
                fault.violation = "Redis never had a primary with both replicas in sync to break"
                return
            primary = await self.redis.primary()
            if primary is None:
                fault.violation = "the sentinels did not agree on a primary"
                return
            if fault.kind == "primary-kill":
                fault.target = primary.name
                primary.kill9()
                promoted = await self._wait_promoted(primary, 60)
                fault.detail = f"{promoted.name} promoted after {time.monotonic() - fault.started:.1f} s"
                await asyncio.sleep(self.rng.uniform(1.0, 4.0))
                await primary.start()  # it comes back as a replica of the new primary
            elif fault.kind == "replica-kill":
                replica = self.rng.choice([n for n in self.redis.nodes if n is not primary])
                fault.target = replica.name
                down = self.rng.uniform(2.0, 8.0)
                replica.kill9()
                await asyncio.sleep(down)
                await replica.start()
                fault.detail = f"restarted after {down:.1f} s"
            else:  # (stalls shorter than Sentinel's down-after: a network hiccup, not a failover)
                fault.target = primary.name
                await self._break_link(fault, primary.link, cut=fault.kind == "primary-cut", longest_stall=3.0)
            self._undone(fault)
            if kills and not await self.redis.wait_healthy(120):
                fault.violation = "Redis did not have both replicas in sync again within 120 s"
        finally:
            for node in self.redis.nodes:  # (a fault that failed half-way leaves none down)
                node.link.flow()
                if not node.alive():
                    await node.start()
            self.busy.discard("redis")

    async def _wait_promoted(self, dead: object, timeout: float) -> object:
        deadline = time.monotonic() + timeout
        while True:
            primary = await self.redis.primary()
            if primary is not None and primary is not dead:
                return primary
            if time.monotonic() > deadline:
                raise TimeoutError(f"no replica promoted in {timeout:.0f} s")
            await asyncio.sleep(0.1)
