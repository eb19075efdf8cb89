"""``cardroom loadtest``: the command line, and the order of the phases.

Without ``--url`` the servers are started here (``launcher.py``) and stopped before the
echo baseline runs (``--baseline-echo``), so the two never share the machine; the table
is printed once everything is stopped.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
from typing import Any

from engine.bots import games

from .launcher import EchoServer, LaunchError, LocalServers
from .players import default_seats
from .probe import Probe
from .report import exit_status, format_table, write_json
from .runner import echo_phase, idle_phase, play_phase, raise_nofile_limit, say

EPILOG = """\
Without --url it starts its own server (python -m server on a free 127.0.0.1 port,
embedded Redis in a temporary directory, rate limits lifted, a large chip grant); with
--servers N, one standalone Redis and N servers sharing it, the connections spread
round-robin over them. A server given with --url must be started with the same lifted
limits (--rate 1000000 --burst 1000000 --abuse-limit 1000000 --send-queue 4096
--grant 1000000000), or the players get rate_limited.

Exit status: 0 clean run, 1 errors (or no action acknowledged, or fewer idle
connections than asked), 2 the server could not start (or bad arguments)."""


def add_command(subparsers: Any) -> None:
    """Add the ``loadtest`` subcommand to a ``cardroom`` argparse parser."""
    p = subparsers.add_parser(
        "loadtest", help="measure servers under rooms played flat out by bot clients",
        description="Plays --rooms rooms of --seats seats (one msgpack WebSocket per seat, "
                    "engine.bots strategies, acting the moment it is their turn) for --seconds, "
                    "then prints actions/s, hands/s, ack and action-to-broadcast latency, errors, "
                    "and the servers' CPU and memory.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--url", action="append", default=None, metavar="ws://HOST:PORT/ws",
                   help="a running server to load (repeat for several; default: start our own)")
    p.add_argument("--servers", type=int, default=None,
                   help="without --url: how many server processes to start (default 1)")
    choices = games()
    p.add_argument("--game", choices=choices, default=choices[0] if choices else None,
                   help=f"an installed game with bot strategies (default {choices[0] if choices else 'none'}: "
                        "the first installed)")
    p.add_argument("--rooms", type=int, default=20, help="rooms played at once (default 20)")
    p.add_argument("--seats", type=int, default=None,
                   help="seats (connections) per room (default: the game's practice table, "
                        "Hold'em 2, Zha Jin Hua and Dou Dizhu 3)")
    p.add_argument("--seconds", type=float, default=30.0, help="the measured period (default 30)")
    p.add_argument("--think-ms", type=float, default=0.0,
                   help="milliseconds a player waits before acting, on average (each wait is drawn "
                        "from 50%% to 150%% of it; default 0: at once)")
    p.add_argument("--strategy", choices=("random", "smart"), default="random",
                   help="engine.bots strategy of every player (default random)")
    p.add_argument("--baseline-echo", action="store_true",
                   help="afterwards, drive a bare msgpack echo server with as many connections "
                        "for as long, and print the ratio of actions/s to echo round trips/s")
    p.add_argument("--json", metavar="FILE", default=None, help="also write the figures to FILE")
    p.add_argument("--idle-connections", type=int, default=None, metavar="N",
                   help="instead of playing: hold N connections that said hello for --seconds "
                        "and report the server's memory per connection")
    p.add_argument("--progress", type=float, default=5.0, help="seconds between progress lines (default 5)")
    p.set_defaults(func=loadtest_command)


def check_args(args: argparse.Namespace) -> str | None:
    """Fill in the defaults that depend on others; the first problem, or None."""
    if args.seats is None:
        args.seats = default_seats(args.game)
    if args.url and args.servers is not None:
        return "--servers starts servers; it cannot be combined with --url"
    args.servers = args.servers or 1
    if args.idle_connections is not None and args.baseline_echo:
        return "--baseline-echo compares playing with echoing; it does not apply to --idle-connections"
    positive = {"--rooms": args.rooms, "--seats": args.seats, "--seconds": args.seconds,
                "--progress": args.progress, "--servers": args.servers}
    if args.idle_connections is not None:
        positive["--idle-connections"] = args.idle_connections
    for flag, value in positive.items():
        if value <= 0:
            return f"{flag} must be positive, got {value:g}"
    if args.think_ms < 0:
        return f"--think-ms must not be negative, got {args.think_ms:g}"
    return None


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _run_phase(phase: Any, *args: Any) -> dict[str, Any]:
    """``asyncio.run`` one phase; outside the loop SIGTERM cleans up like Ctrl-C."""
    try:
        return asyncio.run(phase(*args))
    finally:
        signal.signal(signal.SIGTERM, _interrupt)  # the loop reset it when it closed


def game_phase(args: argparse.Namespace) -> dict[str, Any] | None:
    """Start the servers unless ``--url``, play (or hold idle connections), stop them;
    None when they could not start."""
    local = None
    try:
        if args.url:
            urls = list(args.url)
        else:
            local = LocalServers(args.servers)
            redis = "an embedded Redis" if args.servers == 1 else "one shared Redis"
            say(f"starting {args.servers} server(s) with {redis} (data in {local.tmp}) ...")
            try:
                local.start()
            except LaunchError as exc:
                print(f"cardroom loadtest: {exc}", file=sys.stderr)
                return None
            say("serving on 127.0.0.1 ports " + ", ".join(map(str, local.ports)))
            urls = local.urls
        phase = idle_phase if args.idle_connections is not None else play_phase
        return _run_phase(phase, args, urls, Probe(urls, local))
    finally:
        if local is not None:
            local.stop()
            say("servers stopped, temporary directory removed")


def baseline_phase(args: argparse.Namespace, connections: int) -> dict[str, Any] | None:
    """Run the echo server and drive it; None when it could not start."""
    echo = EchoServer()
    try:
        echo.start()
        return _run_phase(echo_phase, echo.url, connections, args.seconds, args.progress, echo.cpu_seconds)
    except LaunchError as exc:
        print(f"cardroom loadtest: {exc}", file=sys.stderr)
        return None
    finally:
        echo.stop()


def cpu_ratio(figures: dict[str, Any]) -> float | None:
    """The echo server's CPU per round trip over the game server's CPU per action: what
    share of the bare transport's efficiency the game server keeps, whichever side (the
    load clients or the server) limited the rates."""
    echo, server = figures.get("echo_cpu_us_per_round_trip"), figures.get("server_cpu_us_per_action")
    return echo / server if echo and server else None


def loadtest_command(args: argparse.Namespace) -> int:
    """Run ``cardroom loadtest``; returns the exit status."""
    problem = check_args(args)
    if problem:
        print(f"cardroom loadtest: {problem}", file=sys.stderr)
        return 2
    raise_nofile_limit()  # before the servers start: they inherit it
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        figures = game_phase(args)
        if figures is None:
            return 2
        if args.baseline_echo and not figures["interrupted"]:
            echo = baseline_phase(args, figures["connections"])
            if echo is None:
                return 2
            figures.update(echo)
            rate = figures["echo_round_trips_per_s"]
            figures["ratio_to_echo"] = figures["actions_per_s"] / rate if rate and figures["actions_per_s"] else None
            figures["cpu_ratio_to_echo"] = cpu_ratio(figures)
        print(format_table(figures), flush=True)
        if args.json:
            write_json(args.json, figures)
        return exit_status(figures)
    except (KeyboardInterrupt, asyncio.CancelledError):
        print("cardroom loadtest: aborted", file=sys.stderr)
        return 130
    finally:
        signal.signal(signal.SIGTERM, previous)
