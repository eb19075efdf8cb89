"""The three phases of ``cardroom loadtest``, each one ``asyncio.run``: play, idle, echo.

Each returns its figures as one flat dict (the keys of ``--json``; see ``report.py`` for
their meaning). Ctrl-C or SIGTERM during a phase ends its measured period early (the
figures say ``interrupted``); a second one cancels it.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import inspect
import resource
import signal
import sys
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import Any

from .conn import Connection, RequestError, bounded, close_all
from .figures import histogram_quantile, latency_summary, metric_value
from .players import Player, PlayStats, open_room
from .probe import Probe, Reading, action_histogram, cpu_used

ROOM_SETUP_CONCURRENCY = 8  # rooms being opened at once
IDLE_OPEN_CONCURRENCY = 200  # idle connections being opened at once
DRAIN_SECONDS = 3.0  # at the end, how long to wait for the acks in flight
ECHO_MESSAGE = {"t": "act", "room": "r-0a1b2c3d", "action": {"type": "call"}, "id": "v17"}


def say(line: str) -> None:
    print(line, flush=True)


class Interrupts:
    """While entered: the first SIGINT/SIGTERM sets ``stop``, the second cancels the phase."""

    def __init__(self) -> None:
        self.stop = asyncio.Event()
        self.count = 0
        self.task = asyncio.current_task()

    def _on_signal(self) -> None:
        self.count += 1
        if self.count == 1:
            say("\ninterrupted: stopping (Ctrl-C again to abort at once)")
            self.stop.set()
        elif self.task is not None:
            self.task.cancel()

    def __enter__(self) -> Interrupts:
        for sig in (signal.SIGINT, signal.SIGTERM):
            asyncio.get_running_loop().add_signal_handler(sig, self._on_signal)
        return self

    def __exit__(self, *exc: object) -> None:
        for sig in (signal.SIGINT, signal.SIGTERM):
            asyncio.get_running_loop().remove_signal_handler(sig)


async def run_for(seconds: float, stop: asyncio.Event, every: float,
                  line: Callable[[float], str | Awaitable[str]]) -> float:
    """Wait ``seconds`` (or until ``stop``), printing ``line(elapsed)`` (a string, or an
    awaitable of one) every ``every`` seconds; returns the seconds that passed."""
    started = time.perf_counter()
    next_line = started + every
    while not stop.is_set():
        now = time.perf_counter()
        if now >= started + seconds:
            break
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), min(0.1, started + seconds - now))
        now = time.perf_counter()
        if now >= next_line:
            text = line(now - started)
            if inspect.isawaitable(text):
                text = await text
            say(f"[{now - started:6.1f} s] {text}")
            next_line = now + every
    return time.perf_counter() - started


def _ms(summary: dict[str, float] | None, prefix: str) -> dict[str, float | None]:
    keys = ("p50", "p90", "p99", "max")
    return {f"{prefix}_{k}_ms": None if summary is None else summary[k] * 1000 for k in keys}


def server_figures(before: Reading, after: Reading, actions: int) -> dict[str, Any]:
    """CPU, RSS and ``cardroom_action_seconds`` of the servers over the measured period."""
    cpu = cpu_used(before, after)
    server_cpu = cpu.get("server")
    hist = action_histogram(before, after)
    figures: dict[str, Any] = {
        "server_cpu_s": server_cpu, "redis_cpu_s": cpu.get("redis"),
        "server_rss_bytes": after.rss.get("server"), "redis_rss_bytes": after.rss.get("redis"),
        "server_cpu_us_per_action": server_cpu / actions * 1e6 if server_cpu is not None and actions else None,
        "server_action_n": None if hist is None else int(hist["count"]),
        "server_connections": [None if p is None else _int(metric_value(p, "cardroom_connections"))
                               for p in after.metrics],
    }
    if hist is not None and hist["count"] > 0:
        figures["server_action_mean_ms"] = hist["sum"] / hist["count"] * 1000
        for q in (50, 90, 99):
            figures[f"server_action_p{q}_le_ms"] = _bound_ms(histogram_quantile(hist, q / 100))
    return figures


def _int(value: float | None) -> int | None:
    return None if value is None else int(value)


def _bound_ms(seconds: float | None) -> float | None:
    return None if seconds is None else seconds * 1000  # inf stays inf: above the last bucket


# ---------------------------------------------------------------- play


async def _open_rooms(args: argparse.Namespace, urls: list[str], stats: PlayStats) -> list[Player]:
    """Open every room, :data:`ROOM_SETUP_CONCURRENCY` at a time; a room that cannot be
    opened counts as an error (its request's error code, or ``setup_<exception>``)."""
    results = await bounded(
        [lambda i=i: open_room(urls, i, args.game, args.seats, args.strategy, stats, args.think_ms / 1000)
         for i in range(args.rooms)], ROOM_SETUP_CONCURRENCY)
    players = [p for r in results if isinstance(r, list) for p in r]
    failures = [r for r in results if isinstance(r, BaseException)]
    for failure in failures:
        code = failure.code if isinstance(failure, RequestError) else f"setup_{type(failure).__name__}"
        stats.errors[code] += 1
    if failures:
        print(f"setup failed for {len(failures)} room(s): {failures[0]!r}", file=sys.stderr)
    return players


async def play_phase(args: argparse.Namespace, urls: list[str], probe: Probe) -> dict[str, Any]:
    """Open the rooms, play for ``args.seconds``, stop, and return the figures."""
    stats = PlayStats()
    players: list[Player] = []
    figures: dict[str, Any] = {"interrupted": False}
    with Interrupts() as interrupts:
        try:
            say(f"opening {args.rooms} {args.game} rooms of {args.seats} seats "
                f"({args.rooms * args.seats} connections) on {', '.join(urls)} ...")
            players = await _open_rooms(args, urls, stats)
            before, client_before = await probe.read(), time.process_time()
            windows = Windows(stats, probe, before.cpu.get("server"))
            stats.go = True
            await asyncio.gather(*(p.maybe_act() for p in players))
            elapsed = 0.0
            if not stats.errors:  # every room opened
                say(f"playing ({args.strategy} strategy"
                    f"{f', {args.think_ms:g} ms thinking' if args.think_ms else ''}) for {args.seconds:g} s")
                elapsed = await run_for(args.seconds, interrupts.stop, args.progress, windows.line)
            stats.go = False
            after, client_cpu = await probe.read(), time.process_time() - client_before
            figures["interrupted"] = interrupts.stop.is_set()
            await _drain(players, stats)
        finally:
            await close_all(players)
    figures.update(_play_figures(args, urls, stats, elapsed))
    figures.update(server_figures(before, after, stats.acks))
    figures["client_cpu_s"] = client_cpu
    figures["windows"] = windows.rows
    return figures


class Windows:
    """The play phase cut at its progress lines: for each stretch between two lines, its
    acks/s, ack p99 and the servers' CPU µs per ack (where their CPU can be read), so
    that a run shows whether the server slows down as it goes. :meth:`line` makes the
    progress line and keeps the stretch in :attr:`rows` (``windows`` in ``--json``)."""

    def __init__(self, stats: PlayStats, probe: Probe, server_cpu: float | None) -> None:
        self.stats = stats
        self.probe = probe
        self.rows: list[dict[str, Any]] = []
        self._last = (0.0, 0, 0, server_cpu)  # elapsed, acks, ack latencies, server CPU s

    async def line(self, elapsed: float) -> str:
        stats = self.stats
        cpu = await self.probe.server_cpu()
        since, acks, latencies, cpu_before = self._last
        done = stats.acks - acks
        p99 = latency_summary(stats.ack_latencies[latencies:])
        used = None if cpu is None or cpu_before is None else cpu - cpu_before
        row = {"end_s": elapsed, "acks_per_s": done / max(elapsed - since, 1e-9),
               "ack_p99_ms": None if p99 is None else p99["p99"] * 1000,
               "server_cpu_us_per_action": used / done * 1e6 if used is not None and done else None}
        self.rows.append(row)
        self._last = (elapsed, stats.acks, len(stats.ack_latencies), cpu)
        per_action = "" if row["server_cpu_us_per_action"] is None else \
            f"  {row['server_cpu_us_per_action']:6.0f} us/action"
        p99_text = "" if row["ack_p99_ms"] is None else f"  ack p99 {row['ack_p99_ms']:7.1f} ms"
        return (f"hands {stats.hands:7d}  acks {stats.acks:8d}  {row['acks_per_s']:8.1f} acks/s"
                f"{per_action}{p99_text}  errors {sum(stats.errors.values())}")


async def _drain(players: list[Player], stats: PlayStats) -> None:
    """Stop acting and wait (bounded) for the acks in flight; the missing ones are errors."""
    for p in players:
        p.stopping = True
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(asyncio.gather(*(p.idle.wait() for p in players)), DRAIN_SECONDS)
    if stats.in_flight:
        stats.errors["no_ack_at_end"] += stats.in_flight


def _play_figures(args: argparse.Namespace, urls: list[str], stats: PlayStats, elapsed: float) -> dict[str, Any]:
    per_s = (lambda n: n / elapsed) if elapsed > 0.1 else (lambda n: None)
    return {
        "mode": "play", "game": args.game, "rooms": args.rooms, "seats": args.seats,
        "connections": args.rooms * args.seats, "servers": len(urls), "strategy": args.strategy,
        "think_ms": args.think_ms, "seconds": elapsed,
        "hands": stats.hands, "hands_started": stats.hands_started, "rejoins": stats.rejoins, "hands_per_s": per_s(stats.hands),
        "actions": stats.acks, "actions_per_s": per_s(stats.acks),
        **_ms(latency_summary(stats.ack_latencies), "ack"),
        **_ms(latency_summary(stats.broadcast_latencies), "broadcast"),
        "broadcast_samples": len(stats.broadcast_latencies),
        "errors": dict(sorted(stats.errors.items())),
    }


# ---------------------------------------------------------------- idle connections


async def _open_all(conns: list[Connection], name: str, errors: Counter[str]) -> list[Connection]:
    """Open the connections, :data:`IDLE_OPEN_CONCURRENCY` at a time, saying hello as
    ``name<i>``; a failure counts as ``open_<exception>``. Returns those that opened."""
    results = await bounded([lambda i=i, c=c: c.open(f"{name}{i}") for i, c in enumerate(conns)],
                            IDLE_OPEN_CONCURRENCY)
    for r in results:
        if isinstance(r, BaseException):
            errors[f"open_{type(r).__name__}"] += 1
    return [c for c, r in zip(conns, results, strict=True) if not isinstance(r, BaseException)]


def raise_nofile_limit() -> int:
    """Raise this process's RLIMIT_NOFILE soft limit to the hard limit; returns the new soft limit
    (children started afterwards, such as the servers, inherit it)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


async def idle_phase(args: argparse.Namespace, urls: list[str], probe: Probe) -> dict[str, Any]:
    """Open ``args.idle_connections`` connections that say hello and stay idle ``args.seconds``;
    returns the servers' memory per connection."""
    asked = args.idle_connections
    limit = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    if asked + 64 > limit:
        say(f"note: {asked} connections cannot all be opened: this process may hold {limit} "
            f"files (RLIMIT_NOFILE hard limit); raise it (ulimit -Hn) to reach {asked}")
    errors: Counter[str] = Counter()
    conns = [Connection(urls[i % len(urls)], errors) for i in range(asked)]
    figures: dict[str, Any] = {"interrupted": False}
    with Interrupts() as interrupts:
        try:
            before = await probe.read()
            say(f"opening {asked} idle connections on {', '.join(urls)} ...")
            started = time.perf_counter()
            opened = await _open_all(conns, "idle", errors)
            say(f"{len(opened)} of {asked} open after {time.perf_counter() - started:.1f} s; "
                f"holding them {args.seconds:g} s")
            elapsed = await run_for(args.seconds, interrupts.stop, args.progress,
                                    lambda _e: f"open {sum(1 for c in opened if c.alive)}  "
                                               f"errors {sum(errors.values())}")
            after = await probe.read()
            figures["interrupted"] = interrupts.stop.is_set()
        finally:
            await close_all(conns)
    return {**figures, **_idle_figures(asked, len(opened), before, after, errors, elapsed, len(urls))}


def _idle_figures(asked: int, opened: int, before: Reading, after: Reading, errors: Counter[str],
                  elapsed: float, servers: int) -> dict[str, Any]:
    grown = (after.rss.get("server", 0) - before.rss["server"]) if "server" in before.rss else None
    return {
        "mode": "idle", "connections": opened, "idle_connections_asked": asked, "servers": servers,
        "seconds": elapsed, "errors": dict(sorted(errors.items())),
        "server_rss_before_bytes": before.rss.get("server"), "server_rss_bytes": after.rss.get("server"),
        "redis_rss_bytes": after.rss.get("redis"),
        "server_rss_per_connection_bytes": grown / opened if grown is not None and opened else None,
    }


# ---------------------------------------------------------------- echo baseline


async def echo_phase(url: str, connections: int, seconds: float, every: float,
                     cpu_seconds: Callable[[], float] | None = None) -> dict[str, Any]:
    """Drive the echo server at ``url`` with ``connections`` closed loops for ``seconds``:
    each sends an act-shaped message and waits for it to come back before the next.
    ``cpu_seconds`` reads the echo server's CPU time: the measured period's is reported
    per round trip."""
    errors: Counter[str] = Counter()
    conns = [Connection(url, errors) for _ in range(connections)]
    rtts: list[float] = []
    running = asyncio.Event()

    async def loop(c: Connection) -> None:
        while running.is_set():
            sent = time.perf_counter()
            await c.request(ECHO_MESSAGE)
            if running.is_set():
                rtts.append(time.perf_counter() - sent)

    with Interrupts() as interrupts:
        loops: list[asyncio.Task[None]] = []
        try:
            say(f"echo baseline: {connections} connections on {url} ...")
            opened = await _open_all(conns, "echo", errors)
            cpu_before = cpu_seconds() if cpu_seconds is not None else None
            running.set()
            loops = [asyncio.create_task(loop(c)) for c in opened]
            elapsed = await run_for(seconds, interrupts.stop, every, lambda e: f"echo round trips {len(rtts)}")
            running.clear()
            done = len(rtts)
            echo_cpu = cpu_seconds() - cpu_before if cpu_seconds is not None and cpu_before is not None else None
            await asyncio.wait(loops, timeout=DRAIN_SECONDS)
        finally:
            for task in loops:
                task.cancel()
            await close_all(conns)
    for task in loops:
        if task.done() and not task.cancelled() and task.exception() is not None:
            errors[f"echo_{type(task.exception()).__name__}"] += 1
    summary = latency_summary(rtts)
    return {"echo_round_trips": done, "echo_round_trips_per_s": done / elapsed if elapsed > 0.1 else None,
            "echo_rtt_p50_ms": None if summary is None else summary["p50"] * 1000,
            "echo_rtt_p99_ms": None if summary is None else summary["p99"] * 1000,
            "echo_errors": dict(sorted(errors.items())), "echo_interrupted": interrupts.stop.is_set(),
            "echo_cpu_s": echo_cpu,
            "echo_cpu_us_per_round_trip": echo_cpu / done * 1e6 if echo_cpu is not None and done else None}
