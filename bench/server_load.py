"""Server load test: heads-up Hold'em tables played flat out against one server process.

    .venv/bin/python bench/server_load.py                      # 20 tables, 30 s, random play
    .venv/bin/python bench/server_load.py --quick              # 3 tables, 5 s
    .venv/bin/python bench/server_load.py --tables 50 --hands 2000 --strategy smart
    .venv/bin/python bench/server_load.py --url ws://127.0.0.1:8765/ws   # an existing server

Unless ``--url`` is given it starts its own server (``python -m server`` on a free
127.0.0.1 port, embedded Redis in a temporary data dir, the per-connection rate limit
raised so the load clients are not throttled, a large chip grant so busted players can
buy in again) and waits for ``/healthz``. Then it opens 2 connections per table
(``cardroom.msgpack``), creates a 2-seat Hold'em room (no pause between hands) for each
pair, seats both and lets them play with an ``engine.bots`` strategy as fast as the server
acknowledges. A busted player buys in again.

Every few seconds it prints the hands played and the acks per second; at the end a table:
connections, tables, hands, actions acked, actions/s, the latency from sending ``act`` to
receiving its ``ack`` (p50/p90/p99/max), errors by code, the CPU time and resident memory
of the server and its Redis (from ``/proc``, when the bench started them) and the summary of the server's own
``cardroom_action_seconds`` histogram (from ``/metrics``, the difference over the run).

The client is deliberately lean (``websockets`` + ``msgpack``, no SDK pacing or
reconnects) so the figures measure the server. Ctrl-C (or SIGTERM) stops the run early,
prints the figures so far and cleans up: clients closed, the server sent SIGTERM, the
temporary directory removed. Exit status: 0 on a clean run, 1 when there were errors or
no action was acknowledged, 2 when the server could not be started.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import msgpack
import websockets

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from engine.bots import decide  # noqa: E402

#: server flags for a self-started server: no throttling of the load clients
SERVER_FLAGS = [
    "--rate", "1000000", "--burst", "1000000", "--abuse-limit", "1000000",
    "--send-queue", "4096", "--grant", "1000000000", "--log-level", "WARNING",
]
#: room options of every bench table: heads-up, no pause between hands, a long clock
ROOM_OPTIONS = {"seats": 2, "between_hands_seconds": 0, "action_seconds": 60, "buy_in_default": 1000}
ACTION_HISTOGRAM = "cardroom_action_seconds"
SETUP_TIMEOUT = 20.0  # seconds for one setup request (hello, create_room, join)
DRAIN_SECONDS = 3.0  # at the end, how long to wait for acks still in flight
RETRY_SECONDS = 0.1  # after a rate_limited act, wait this long before acting again


@dataclass
class Stats:
    """Counters shared by every client of the run."""

    hands: int = 0
    acks: int = 0
    latencies: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    in_flight: int = 0
    go: bool = False  # players act only once every table is open (the measured period)
    hand_goal: int | None = None  # --hands: no new action once this many hands ended
    stop: asyncio.Event = field(default_factory=asyncio.Event)  # end the run now

    def goal_met(self) -> bool:
        return self.hand_goal is not None and self.hands >= self.hand_goal


class Player:
    """One connection playing one seat: acts whenever its snapshot says it is to act.

    Runs a single reader loop; requests are matched to replies by ``ref``. An ``act`` is
    sent at most once per snapshot version and never while another ``act`` of this
    player awaits its ``ack``.
    """

    def __init__(self, url: str, name: str, strategy: str, stats: Stats, seed: int,
                 counts_hands: bool) -> None:
        self.url = url
        self.name = name
        self.strategy = strategy
        self.stats = stats
        self.rng = random.Random(seed)
        self.counts_hands = counts_hands  # one player per table counts its hand_ended events
        self.ws: Any = None
        self.reader: asyncio.Task[None] | None = None
        self.replies: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.next_ref = 0
        self.room: str | None = None
        self.playing = False  # set once seated: act, and buy in again after busting
        self.stopping = False
        self.act_ref: int | None = None
        self.act_sent = 0.0
        self.acted_version = -1
        self.join_ref: int | None = None
        self.last_room: dict[str, Any] | None = None
        self.retry: asyncio.TimerHandle | None = None
        self.tasks: set[asyncio.Future[None]] = set()
        self.idle = asyncio.Event()  # set whenever no act awaits its ack
        self.idle.set()

    async def connect(self) -> None:
        self.ws = await websockets.connect(
            self.url, subprotocols=["cardroom.msgpack"], max_size=2**20, compression=None,
            open_timeout=SETUP_TIMEOUT,
        )
        self.reader = asyncio.create_task(self._read_loop())
        await self.request({"t": "hello", "name": self.name})

    def _ref(self) -> int:
        self.next_ref += 1
        return self.next_ref

    async def _send(self, msg: dict[str, Any]) -> None:
        await self.ws.send(msgpack.packb(msg))

    async def request(self, msg: dict[str, Any]) -> dict[str, Any]:
        """Send a setup request and wait for its reply; an ``error`` reply raises."""
        ref = self._ref()
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.replies[ref] = fut
        await self._send({**msg, "ref": ref})
        reply = await asyncio.wait_for(fut, SETUP_TIMEOUT)
        if reply.get("t") == "error":
            raise RuntimeError(f"{self.name}: {msg['t']} failed: {reply.get('code')}: {reply.get('message')}")
        return reply

    async def _read_loop(self) -> None:
        try:
            async for frame in self.ws:
                await self._handle(msgpack.unpackb(frame))
        except websockets.ConnectionClosed as exc:
            if not self.stopping:
                self.stats.errors[f"closed_{exc.code}"] += 1
        except Exception as exc:  # a bug on the client side: count it, stop this player
            self.stats.errors[f"client_{type(exc).__name__}"] += 1
            print(f"{self.name}: client failure: {exc!r}", file=sys.stderr)
        finally:
            for fut in self.replies.values():
                if not fut.done():
                    fut.set_exception(ConnectionError(f"{self.name}: connection closed"))
            self._act_done()

    def _act_done(self) -> None:
        if self.act_ref is not None:
            self.act_ref = None
            self.stats.in_flight -= 1
        self.idle.set()

    async def _handle(self, msg: dict[str, Any]) -> None:
        t = msg.get("t")
        ref = msg.get("ref")
        if ref is not None and ref == self.act_ref:
            if t == "ack":
                self.stats.latencies.append(time.perf_counter() - self.act_sent)
                self.stats.acks += 1
            else:
                code = str(msg.get("code"))
                self.stats.errors[code] += 1
                if code == "rate_limited" and not self.stopping:
                    # nothing else changes the room while we hold the turn: try again soon
                    self.acted_version = -1
                    self.retry = asyncio.get_running_loop().call_later(RETRY_SECONDS, self._retry)
            self._act_done()
            return
        if ref is not None and ref == self.join_ref:
            self.join_ref = None
            if t == "error":
                self.stats.errors[str(msg.get("code"))] += 1
                self.playing = False  # cannot buy in again: stop playing
                return
        elif ref is not None and ref in self.replies:
            self.replies.pop(ref).set_result(msg)
            return
        if t == "error":
            self.stats.errors[str(msg.get("code"))] += 1
        elif t == "event":
            if self.counts_hands and (msg.get("event") or {}).get("type") == "hand_ended":
                self.stats.hands += 1
                if self.stats.goal_met():
                    self.stats.stop.set()
        elif t == "room":
            await self._on_room(msg)

    def _retry(self) -> None:
        task = asyncio.ensure_future(self.start())
        self.tasks.add(task)  # keep a reference until it is done
        task.add_done_callback(self.tasks.discard)

    async def start(self) -> None:
        """Begin playing from the latest snapshot (called once ``stats.go`` is set)."""
        if self.last_room is not None:
            await self._on_room(self.last_room)

    async def _on_room(self, snap: dict[str, Any]) -> None:
        if snap.get("room") != self.room:
            return
        self.last_room = snap
        if not self.stats.go or not self.playing or self.stopping or self.stats.goal_met():
            return
        if snap.get("your_seat") is None:  # busted and stood up: buy in again
            if self.join_ref is None:
                self.join_ref = self._ref()
                await self._send({"t": "join", "room": self.room, "ref": self.join_ref})
            return
        version = snap.get("version", 0)
        view = snap.get("view")
        if self.act_ref is not None or version <= self.acted_version or not view:
            return
        action = decide("holdem", self.strategy, view, self.rng)
        if action is None:
            return
        self.acted_version = version
        self.act_ref = self._ref()
        self.stats.in_flight += 1
        self.idle.clear()
        self.act_sent = time.perf_counter()
        await self._send({"t": "act", "room": self.room, "action": action,
                          "id": f"a{self.act_ref}", "ref": self.act_ref})

    async def close(self) -> None:
        self.stopping = True
        if self.retry is not None:
            self.retry.cancel()
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.ws.close(), 5)
        if self.reader is not None:
            self.reader.cancel()
            with contextlib.suppress(BaseException):
                await self.reader


async def open_table(url: str, index: int, strategy: str, stats: Stats) -> list[Player]:
    """Two connected players seated at a fresh heads-up Hold'em room."""
    a = Player(url, f"load{index}a", strategy, stats, seed=2 * index, counts_hands=True)
    b = Player(url, f"load{index}b", strategy, stats, seed=2 * index + 1, counts_hands=False)
    players = [a, b]
    try:
        await asyncio.gather(a.connect(), b.connect())
        created = await a.request({"t": "create_room", "game": "holdem", "options": ROOM_OPTIONS})
        for p in players:
            p.room = created["room"]
        for p in players:
            p.playing = True  # before the join: the hand may start in its reply
            await p.request({"t": "join", "room": p.room})
    except BaseException:
        await asyncio.gather(*(p.close() for p in players))
        raise
    return players


# ---------------------------------------------------------------- the server process

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _die_with_parent() -> None:
    """In the child: get SIGTERM if the bench dies, however (Linux only)."""
    with contextlib.suppress(Exception):
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def http_get(url: str, timeout: float = 5.0) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp:
            return resp.status, resp.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as exc:
        return exc.code, ""


class LocalServer:
    """``python -m server`` on a free port with an embedded Redis in a temporary dir."""

    def __init__(self) -> None:
        self.tmp = tempfile.mkdtemp(prefix="cardroom-load-")
        self.port = free_port()
        self.log_path = os.path.join(self.tmp, "server.log")
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def start(self, timeout: float = 30.0) -> None:
        cmd = [sys.executable, "-m", "server", "--port", str(self.port),
               "--data-dir", os.path.join(self.tmp, "data"), *SERVER_FLAGS]
        with open(self.log_path, "wb") as log:
            self.proc = subprocess.Popen(
                cmd, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                start_new_session=True,  # Ctrl-C reaches the bench only; it stops the server
                preexec_fn=_die_with_parent,
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited with {self.proc.returncode}:\n{self.log_tail()}")
            with contextlib.suppress(OSError):
                if http_get(f"http://127.0.0.1:{self.port}/healthz", timeout=1.0)[0] == 200:
                    return
            time.sleep(0.1)
        raise RuntimeError(f"server not healthy after {timeout:.0f} s:\n{self.log_tail()}")

    def log_tail(self, lines: int = 20) -> str:
        with contextlib.suppress(OSError), open(self.log_path, encoding="utf-8", errors="replace") as f:
            return "".join(f.readlines()[-lines:])
        return ""

    def cpu_seconds(self) -> dict[str, float]:
        """CPU time (user + system) used so far by the server and by its children."""
        if self.proc is None:
            return {}
        found = {}
        for pid, who in [(self.proc.pid, "server"),
                         *((c, _comm_of(c) or f"pid {c}") for c in _children_of(self.proc.pid))]:
            cpu = _cpu_of(pid)
            if cpu is not None:
                found[who] = cpu
        return found

    def rss(self) -> dict[str, int]:
        """Resident memory in bytes of the server and of its children (the embedded Redis)."""
        if self.proc is None:
            return {}
        found = {}
        server = _rss_of(self.proc.pid)
        if server is not None:
            found["server"] = server
        for child in _children_of(self.proc.pid):
            size = _rss_of(child)
            if size is not None:
                found[_comm_of(child) or f"pid {child}"] = size
        return found

    def stop(self) -> None:
        """SIGTERM (a graceful shutdown), SIGKILL after 15 s, then remove the temp dir."""
        try:
            if self.proc is not None and self.proc.poll() is None:
                self.proc.terminate()
                try:
                    self.proc.wait(15)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait(5)
        finally:
            shutil.rmtree(self.tmp, ignore_errors=True)


def _rss_of(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def _children_of(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children", encoding="ascii") as f:
            return [int(p) for p in f.read().split()]
    except (OSError, ValueError):
        return []


def _cpu_of(pid: int) -> float | None:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def _comm_of(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/comm", encoding="ascii", errors="replace") as f:
            return f.read().strip()
    except OSError:
        return ""


# ---------------------------------------------------------------- metrics and figures

_BUCKET = re.compile(r'^(\w+)_bucket\{le="([^"]+)"\}\s+(\S+)$')
_SCALAR = re.compile(r"^(\w+)_(count|sum)\s+(\S+)$")


def parse_histogram(text: str, name: str) -> dict[str, Any]:
    """``{"buckets": [(le, cumulative count)], "count": n, "sum": s}`` of an unlabelled histogram."""
    buckets: list[tuple[float, float]] = []
    hist: dict[str, Any] = {"buckets": buckets, "count": 0.0, "sum": 0.0}
    for line in text.splitlines():
        m = _BUCKET.match(line)
        if m and m.group(1) == name:
            buckets.append((float(m.group(2)), float(m.group(3))))
            continue
        m = _SCALAR.match(line)
        if m and m.group(1) == name:
            hist[m.group(2)] = float(m.group(3))
    return hist


def histogram_delta(after: dict[str, Any], before: dict[str, Any] | None) -> dict[str, Any]:
    if not before:
        return after
    earlier = dict(before["buckets"])
    return {
        "buckets": [(le, n - earlier.get(le, 0.0)) for le, n in after["buckets"]],
        "count": after["count"] - before["count"],
        "sum": after["sum"] - before["sum"],
    }


def histogram_quantile(hist: dict[str, Any], q: float) -> float | None:
    """The upper bound of the bucket holding quantile ``q`` (inf: above the last bound)."""
    total = hist["count"]
    if total <= 0:
        return None
    for le, cumulative in sorted(hist["buckets"]):
        if cumulative >= q * total:
            return le
    return float("inf")


def percentile(sorted_values: list[float], q: float) -> float:
    """Nearest-rank percentile of an already sorted, non-empty list."""
    index = min(len(sorted_values) - 1, max(0, int(q * len(sorted_values) + 0.5) - 1))
    return sorted_values[index]


def ms(seconds: float | None, bound: bool = False) -> str:
    if seconds is None:
        return "n/a"
    if seconds == float("inf"):
        return "> last bucket"
    return f"{'<= ' if bound else ''}{seconds * 1000:.1f} ms"


def fetch_metrics(http_base: str) -> str | None:
    try:
        status, text = http_get(f"{http_base}/metrics")
    except OSError:
        return None
    return text if status == 200 else None


def final_table(*, connections: int, tables: int, stats: Stats, elapsed: float,
                rss: dict[str, int] | None, server_hist: dict[str, Any] | None,
                cpu: dict[str, float] | None = None) -> str:
    lat = sorted(stats.latencies)
    rows: list[tuple[str, str]] = [
        ("connections", str(connections)),
        ("tables", str(tables)),
        ("seconds", f"{elapsed:.1f}"),
        ("hands played", str(stats.hands)),
        ("actions acked", str(stats.acks)),
        ("actions/s", f"{stats.acks / elapsed:.1f}" if elapsed > 0.1 else "n/a"),
        ("hands/s", f"{stats.hands / elapsed:.1f}" if elapsed > 0.1 else "n/a"),
    ]
    if lat:
        rows += [
            ("ack latency p50", ms(percentile(lat, 0.50))),
            ("ack latency p90", ms(percentile(lat, 0.90))),
            ("ack latency p99", ms(percentile(lat, 0.99))),
            ("ack latency max", ms(lat[-1])),
        ]
    else:
        rows.append(("ack latency", "n/a (no ack)"))
    errors = ", ".join(f"{code}={n}" for code, n in sorted(stats.errors.items()) if n) or "none"
    rows.append(("errors", errors))
    for who, seconds in (cpu or {}).items():
        share = f" ({100 * seconds / elapsed:.0f}% of one core)" if elapsed > 0.1 else ""
        rows.append((f"CPU {who}", f"{seconds:.1f} s{share}"))
    if rss:
        for who, size in rss.items():
            rows.append((f"RSS {who}", f"{size / 2**20:.1f} MiB"))
    else:
        rows.append(("server RSS", "n/a (not a local process)"))
    if server_hist is not None and server_hist["count"] > 0:
        count = server_hist["count"]
        rows += [
            ("server action_seconds n", f"{count:.0f}"),
            ("server action_seconds mean", ms(server_hist["sum"] / count)),
            ("server action_seconds p50", ms(histogram_quantile(server_hist, 0.50), bound=True)),
            ("server action_seconds p90", ms(histogram_quantile(server_hist, 0.90), bound=True)),
            ("server action_seconds p99", ms(histogram_quantile(server_hist, 0.99), bound=True)),
        ]
    else:
        rows.append(("server action_seconds", "n/a (no /metrics data)"))
    width = max(len(k) for k, _ in rows)
    lines = ["", "== cardroom server load test =="]
    lines += [f"{k.ljust(width)}  {v}" for k, v in rows]
    return "\n".join(lines)


# ---------------------------------------------------------------- the run

async def run(args: argparse.Namespace, url: str, server: LocalServer | None) -> int:
    stats = Stats(hand_goal=args.hands)
    stop = stats.stop  # set by Ctrl-C, SIGTERM, a failed setup or the --hands goal
    loop = asyncio.get_running_loop()
    interrupts = 0

    def on_signal() -> None:
        nonlocal interrupts
        interrupts += 1
        if interrupts == 1:
            print("\ninterrupted: stopping (Ctrl-C again to abort at once)", flush=True)
            stop.set()
        else:
            main.cancel()

    main = asyncio.current_task()
    assert main is not None
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, on_signal)

    http_base = "http" + url[len("ws"):].rsplit("/ws", 1)[0]
    metrics_before = await asyncio.to_thread(fetch_metrics, http_base)
    players: list[Player] = []
    started = time.perf_counter()
    elapsed = 0.0
    cpu: dict[str, float] = {}
    try:
        print(f"opening {args.tables} tables ({2 * args.tables} connections) on {url} ...", flush=True)
        setup_limit = asyncio.Semaphore(8)

        async def open_one(i: int) -> list[Player]:
            async with setup_limit:
                return await open_table(url, i, args.strategy, stats)

        # every open_table ends within its timeouts, even when Ctrl-C comes meanwhile
        results = await asyncio.gather(*(open_one(i) for i in range(args.tables)), return_exceptions=True)
        failures = [r for r in results if isinstance(r, BaseException)]
        for r in results:
            if isinstance(r, list):
                players += r
        if failures:
            stats.errors["setup_failed"] += len(failures)
            print(f"setup failed for {len(failures)} table(s): {failures[0]!r}", file=sys.stderr)
            stop.set()
        started = time.perf_counter()
        cpu_before = server.cpu_seconds() if server is not None else {}
        bench_cpu_before = time.process_time()
        stats.go = True
        await asyncio.gather(*(p.start() for p in players), return_exceptions=True)
        limit = args.max_seconds if args.hands else args.seconds
        deadline = started + limit
        goal = f"{args.hands} hands (at most {limit:g} s)" if args.hands else f"{limit:g} s"
        if not stop.is_set():
            print(f"playing ({args.strategy} strategy) for {goal}", flush=True)
        last_t, last_acks = started, 0
        next_report = started + args.progress
        while not stop.is_set():
            now = time.perf_counter()
            if now >= deadline or (args.hands and stats.hands >= args.hands):
                break
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), min(0.1, deadline - now))
            now = time.perf_counter()
            if now >= next_report:
                rate = (stats.acks - last_acks) / (now - last_t)
                errors = sum(stats.errors.values())
                print(f"[{now - started:5.1f} s] hands {stats.hands:7d}  acks {stats.acks:8d}  "
                      f"{rate:8.1f} acks/s  errors {errors}", flush=True)
                last_t, last_acks = now, stats.acks
                next_report = now + args.progress
        elapsed = time.perf_counter() - started
        cpu = {who: t - cpu_before.get(who, 0.0)
               for who, t in (server.cpu_seconds() if server is not None else {}).items()}
        cpu["bench clients"] = time.process_time() - bench_cpu_before
        # stop acting, let the acks in flight arrive (bounded), then close
        for p in players:
            p.stopping = True
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.gather(*(p.idle.wait() for p in players)), DRAIN_SECONDS)
        if stats.in_flight:
            stats.errors["no_ack_at_end"] += stats.in_flight
    finally:
        await asyncio.gather(*(p.close() for p in players), return_exceptions=True)
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.remove_signal_handler(sig)

    rss = server.rss() if server is not None else None
    metrics_after = await asyncio.to_thread(fetch_metrics, http_base)
    server_hist = None
    if metrics_after is not None:
        before = parse_histogram(metrics_before, ACTION_HISTOGRAM) if metrics_before else None
        server_hist = histogram_delta(parse_histogram(metrics_after, ACTION_HISTOGRAM), before)
    print(final_table(connections=2 * args.tables, tables=args.tables, stats=stats,
                      elapsed=elapsed, rss=rss, server_hist=server_hist, cpu=cpu), flush=True)
    if stats.errors.get("rate_limited"):
        print("note: the server throttled the load clients; start it with "
              + " ".join(SERVER_FLAGS[:6]) + " to measure it unthrottled", flush=True)
    return 0 if stats.acks > 0 and not stats.errors else 1


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", help="WebSocket URL of a running server (default: start one); "
                        "start it with high --rate/--burst/--abuse-limit and --grant, like "
                        "the bench's own server, or the clients get rate_limited")
    parser.add_argument("--tables", type=int, default=20, help="heads-up tables (default 20)")
    parser.add_argument("--seconds", type=float, default=30.0, help="how long to play (default 30)")
    parser.add_argument("--hands", type=int, default=None,
                        help="stop after this many hands in total, across all tables (instead of --seconds)")
    parser.add_argument("--max-seconds", type=float, default=600.0,
                        help="with --hands: stop after this long anyway (default 600)")
    parser.add_argument("--strategy", choices=("random", "smart"), default="random",
                        help="how the players choose (engine.bots; default random)")
    parser.add_argument("--progress", type=float, default=5.0, help="seconds between progress lines (default 5)")
    parser.add_argument("--quick", action="store_true", help="3 tables for 5 s")
    args = parser.parse_args(argv)
    if args.quick:
        args.tables, args.seconds = 3, 5.0
    if args.tables < 1 or args.seconds <= 0 or args.max_seconds <= 0 or args.progress <= 0:
        parser.error("--tables, --seconds, --max-seconds and --progress must be positive")
    if args.hands is not None and args.hands < 1:
        parser.error("--hands must be at least 1")
    return args


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    server: LocalServer | None = None
    # outside the event loop (starting, stopping) SIGTERM cleans up like Ctrl-C
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        if args.url:
            url = args.url
        else:
            server = LocalServer()
            print(f"starting the server on 127.0.0.1:{server.port} (data in {server.tmp}) ...", flush=True)
            try:
                server.start()
            except RuntimeError as exc:
                print(f"server_load: {exc}", file=sys.stderr)
                return 2
            url = server.ws_url
        try:
            return asyncio.run(run(args, url, server))
        finally:
            signal.signal(signal.SIGTERM, _interrupt)  # the loop reset it on closing
    except (KeyboardInterrupt, asyncio.CancelledError):
        print("aborted", file=sys.stderr)
        return 130
    finally:
        if server is not None:
            server.stop()
            print("server stopped, temporary directory removed", flush=True)


if __name__ == "__main__":
    sys.exit(main())
