"""Fuzz soak: hostile frames against a live cardroom server over many connections, while
honest players play a few rooms, then a check that nothing broke.

    .venv/bin/python bench/fuzz_soak.py --frames 100000
    .venv/bin/python bench/fuzz_soak.py --frames 5000 --connections 16 --seed 7 --json soak.json
    .venv/bin/python bench/fuzz_soak.py --url ws://127.0.0.1:8765/ws --redis-url unix:///path/redis.sock \\
        --server-log server.log

Without ``--url`` it starts its own server (``python -m server --port 0`` with an embedded
Redis in a temporary directory, default settings: 20 messages/s, burst 40, 64 KiB and
1 MiB frame limits) and stops it at the end. The fuzzing connections use both
subprotocols; see ``bench/soak/frames.py`` for what they send. Honest players (two seats
in Hold'em and Zha Jin Hua, three in Dou Dizhu, ``engine.bots`` strategies) play
throughout.

It prints a progress line, then: frames sent, replies by code, ``internal_error``
count, closes (expected and unexpected) by code, whether the server crashed, the
server log's ERROR lines and tracebacks, and the chip audit (``Store.chip_audit``)
before and after, with each honest room's chips. Exit status 0 only with no crash, no
``internal_error``, no traceback and chips balanced; 1 otherwise; 2 if the server could
not be started.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import time
from collections.abc import Sequence

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.soak import honest as hp  # noqa: E402
from bench.soak.frames import FrameMaker, World  # noqa: E402
from bench.soak.fuzzer import Acks, FuzzClient, Tally  # noqa: E402
from bench.soak.local import (  # noqa: E402
    LaunchError,
    LocalServer,
    room_chips,
    scan_log,
    settled_audit,
)
from bench.soak.report import HonestResult, SoakResult, failures, format_report  # noqa: E402
from client_demo.tools.loadtest.figures import http_get  # noqa: E402
from client_demo.tools.loadtest.players import PlayStats  # noqa: E402
from server.games import GAMES  # noqa: E402

GRANT = 10_000  # a new player's chips (the server's --grant default)
HONEST_GAMES = ["holdem", "zhajinhua", "doudizhu"]


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--frames", type=int, default=100_000, help="hostile frames to send (default 100000)")
    p.add_argument("--connections", type=int, default=48, help="fuzzing connections at once (default 48)")
    p.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    p.add_argument("--url", help="fuzz this server instead of starting one (ws://HOST:PORT/ws)")
    p.add_argument("--redis-url", help="with --url: the server's Redis, for the chip audit")
    p.add_argument("--server-log", help="with --url: the server's log file, scanned at the end; "
                                        "without: where to keep a copy of our server's log")
    p.add_argument("--honest-rooms", type=int, default=3,
                   help="honest rooms, cycling Hold'em, Zha Jin Hua, Dou Dizhu (default 3; 0: none)")
    p.add_argument("--strategy", default="smart", choices=["smart", "random"], help="honest players' strategy")
    p.add_argument("--exclude", action="append", default=[],
                   help="leave out frames whose label starts with this (a family such as 'flood', a variant "
                        "such as 'bad_msgpack:deep'), or 'surrogates' (lone surrogates in JSON strings), or "
                        "'lobby_watch' (list_rooms with watch); repeatable")
    p.add_argument("--json", help="write every figure to this file")
    p.add_argument("--progress", type=float, default=2.0, help="seconds between progress lines (default 2)")
    args = p.parse_args(argv)
    if args.frames < 1 or args.connections < 1:
        p.error("--frames and --connections must be positive")
    return args


async def fuzz(args: argparse.Namespace, url: str, redis_url: str | None, server: LocalServer | None) -> SoakResult:
    """Open the honest rooms, fuzz until ``args.frames`` are sent, then check the server."""
    result = SoakResult(seed=args.seed, connections=args.connections)
    stats = PlayStats()
    games = [HONEST_GAMES[i % 3] for i in range(args.honest_rooms)]
    rooms = await hp.open_rooms(url, games, stats, args.strategy, args.seed * 1000)
    if redis_url:
        result.audit_before = await settled_audit(redis_url)
    world = World(rooms={r.room: r.game for r in rooms}, honest=[r.room for r in rooms])
    tally, acks, stop = Tally(), Acks(), asyncio.Event()
    master = random.Random(args.seed)
    clients = [FuzzClient(i, url, FrameMaker(random.Random(master.getrandbits(64)), GAMES, frozenset(args.exclude)),
                          world, tally, acks, stop, random.Random(master.getrandbits(64)))
               for i in range(args.connections)]
    started = time.monotonic()
    tasks = [asyncio.create_task(c.run()) for c in clients]
    try:
        await _watch(args, tally, stop, rooms, server, started)
    finally:
        stop.set()
        await asyncio.wait(tasks, timeout=30)
        result.seconds = time.monotonic() - started
        await hp.stop_playing(rooms)
    await _check(result, url, redis_url, rooms, server)
    await hp.close_all(rooms)
    _fill(result, tally, stats)
    return result


async def _watch(args: argparse.Namespace, tally: Tally, stop: asyncio.Event, rooms: list[hp.HonestRoom],
                 server: LocalServer | None, started: float) -> None:
    """Print progress until enough frames are sent (or the server exits)."""
    last = time.monotonic()
    while tally.frames < args.frames:
        await asyncio.sleep(0.1)
        if server is not None and server.crashed() is not None:
            print(f"server exited with status {server.crashed()}", file=sys.stderr)
            return
        if time.monotonic() - last >= args.progress:
            last = time.monotonic()
            elapsed = last - started
            hands = sum(r.hands for r in rooms)
            print(f"[{elapsed:6.1f}s] frames {tally.frames:,}/{args.frames:,} ({tally.frames / elapsed:,.0f}/s), "
                  f"replies {sum(tally.replies.values()):,}, internal_error {tally.replies['internal_error']}, "
                  f"connections {tally.connections:,}, unexpected closes {sum(tally.unexpected_closes.values())}, "
                  f"honest hands {hands}", flush=True)


async def _check(result: SoakResult, url: str, redis_url: str | None, rooms: list[hp.HonestRoom],
                 server: LocalServer | None) -> None:
    """Is the server alive and serving; do the chips balance, globally and per honest room?"""
    if server is not None and server.crashed() is not None:
        result.crashed, result.exit_code = True, server.crashed()
        result.server_alive_at_end = False
        return
    result.server_alive_at_end = _healthy(url)
    if not redis_url:
        return
    result.audit_after = await settled_audit(redis_url)
    for r in rooms:
        players = [p.player_id for p in r.players if p.player_id]
        chips = await room_chips(redis_url, r.room, players)
        strangers = sorted(set().union(*(p.strangers for p in r.players)))
        result.honest.append(HonestResult(r.game, r.room, len(players), r.hands, chips["wallets"] + chips["stacks"],
                                          GRANT * len(players), strangers))


def _healthy(ws_url: str) -> bool:
    http = ws_url.replace("ws://", "http://", 1).removesuffix("/ws") + "/healthz"
    try:
        return http_get(http, timeout=5.0)[0] == 200
    except OSError:
        return False


def _fill(result: SoakResult, tally: Tally, stats: PlayStats) -> None:
    """Copy the connections' counts into the result."""
    result.frames, result.bytes_sent = tally.frames, tally.bytes_sent
    result.families = dict(tally.families)
    result.replies = dict(tally.replies)
    result.internal_errors = tally.replies.get("internal_error", 0)
    result.internal_error_examples = tally.internal_errors
    result.expected_closes = dict(tally.expected_closes)
    result.unexpected_closes = dict(tally.unexpected_closes)
    result.close_examples = tally.close_examples
    result.missing_closes = dict(tally.missing_closes)
    result.mismatches = dict(tally.mismatches)
    result.mismatch_examples = tally.mismatch_examples
    result.replay_mismatches = tally.replay_mismatches
    result.undecodable = tally.undecodable
    result.sessions = tally.connections
    result.handshakes_refused = tally.handshakes_refused
    result.connect_failures = dict(tally.connect_failures)
    result.honest_errors = dict(stats.errors)
    result.honest_acks = stats.acks


def _read_log(result: SoakResult, text: str | None) -> None:
    if text is None:
        result.log_checked = False
        return
    found = scan_log(text)
    result.error_lines = found.error_lines
    result.tracebacks = found.distinct_tracebacks()
    result.traceback_examples = found.first_of_each()
    result.warnings = found.warnings


def run(args: argparse.Namespace) -> int:
    """The whole soak; returns the exit status."""
    server = None
    url, redis_url = args.url, args.redis_url
    if url is None:
        server = LocalServer()
        try:
            server.start()
        except LaunchError as exc:
            print(f"the server did not start: {exc}", file=sys.stderr)
            server.cleanup()
            return 2
        url, redis_url = server.url, server.redis_url
        print(f"server on {url} (log {server.log_path})", flush=True)
    try:
        result = asyncio.run(fuzz(args, url, redis_url, server))
        if server is not None:
            code = server.stop()
            if not result.crashed:
                result.exit_code = code
            _read_log(result, server.log())
            if args.server_log:
                with open(args.server_log, "w", encoding="utf-8") as f:
                    f.write(server.log())
        else:
            _read_log(result, open(args.server_log, encoding="utf-8", errors="replace").read()
                      if args.server_log else None)
    finally:
        if server is not None:
            server.stop()
            server.cleanup()
    print(format_report(result))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            f.write(result.to_json())
    return 0 if not failures(result) else 1


def main(argv: Sequence[str] | None = None) -> int:
    return run(parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
