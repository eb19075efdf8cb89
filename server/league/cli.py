"""``cardroom league``: create a league, enter bots, run its matches, read the standings,
export everything (see docs/league.md). ``standings`` and ``export`` also read a league
the servers run (made over the protocol) from their Redis.

The league's files live under ``--dir`` (default ``./leagues``); ``enter`` and ``run``
also need the server's Redis (``--redis-url``, or the embedded Redis of ``--data-dir``,
as ``cardroom history`` finds it), and ``run`` a running server for the entrants to play
on (``--url``, default ``ws://127.0.0.1:$CARDROOM_PORT/ws``, port 8765 when unset, as
``cardroom healthcheck`` finds the local server). ``run`` records only matches that count:
it checks first that a cardroom server answers at that URL, and stops with exit status 1
at a void match (an entrant that did not play: :func:`server.league.match.void_reason`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from engine import bots

from ..games import GAMES
from ..ops.operator_redis import OperatorError, locate_redis
from ..store import Store
from ..store.connect import connect
from . import stats
from .define import new_league
from .files import Entrant, LeagueDir, LeagueError
from .match import run_match
from .report import published, report, row_json
from .schedule import groups

PROBE_SECONDS = 3.0  # how long run waits for the server to answer before starting anything
Out = Callable[[str], None]


class RunStopped(LeagueError):
    """``league run`` stopped: the server did not answer, or a match was void."""


def default_url() -> str:
    """The local server's WebSocket URL: ``ws://127.0.0.1:$CARDROOM_PORT/ws``, the server's
    default port when ``CARDROOM_PORT`` is unset or empty (as ``cardroom bots`` does)."""
    from ..config import Settings

    return f"ws://127.0.0.1:{os.environ.get('CARDROOM_PORT') or Settings.port}/ws"


def add_command(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "league", help="bot leagues: duplicate matches, standings with confidence intervals, ratings",
        description=__doc__.split("\n\n")[0])
    p.set_defaults(func=league_command)
    sub = p.add_subparsers(dest="league_command", required=True)

    def common(q: argparse.ArgumentParser, redis: bool = False) -> None:
        q.add_argument("name", help="the league's name (letters, digits, _ . -)")
        q.add_argument("--dir", default="leagues", help="where leagues are kept (default ./leagues)")
        if redis:
            where = q.add_mutually_exclusive_group()
            where.add_argument("--data-dir", default=None, help="data directory of the embedded Redis (default ./data)")
            where.add_argument("--redis-url", default=None, help="the server's Redis URL [env REDIS_URL]")
            q.add_argument("--prefix", default=None, help="Redis key prefix (default cardroom:)")

    c = sub.add_parser("create", help="create a league")
    common(c)
    c.add_argument("--game", required=True, choices=sorted(GAMES))
    c.add_argument("--hands", type=int, default=100, help="deals per match (default 100)")
    c.add_argument("--seats", type=int, default=None, help="players per match (default 2; 3 for Dou Dizhu)")
    c.add_argument("--stack", type=int, default=None,
                   help="every seat's stack at the start of each hand (default 200 big blinds, 1000 antes or stakes)")
    c.add_argument("--action-seconds", type=float, default=5.0,
                   help="a bot's turn clock; the timeout action plays when it runs out (default 5)")
    c.add_argument("--config", action="append", default=[], metavar="JSON|KEY=VALUE",
                   help="the game's options: a JSON object, e.g. '{\"big_blind\": 20}', or KEY=VALUE, "
                        "e.g. big_blind=20 (repeatable; values read as JSON, else text)")
    c.add_argument("--no-duplicate", action="store_true", help="one room per match instead of one per seating")
    c.add_argument("--format", choices=("deals", "sng"), default="deals",
                   help="deals: stacks reset every hand, results in chips (default); sng: a Hold'em sit-and-go, "
                        "stacks kept, blinds rising, results in finishing places (--hands caps its length)")
    c.add_argument("--level-hands", type=int, default=10, help="sng: hands per blind level (default 10)")
    c.set_defaults(league_func=_create)

    e = sub.add_parser("enter", help="register an entrant: a built-in strategy or your bot's command")
    common(e, redis=True)
    e.add_argument("--entrant", required=True, help="the entrant's name in the standings")
    how = e.add_mutually_exclusive_group(required=True)
    how.add_argument("--strategy", help="a built-in strategy of the game (random, smart, ...)")
    how.add_argument("--command", help="the program that plays a seat (started per seat with CARDROOM_URL, "
                                       "CARDROOM_TOKEN and CARDROOM_ROOM set)")
    e.set_defaults(league_func=_enter)

    r = sub.add_parser("run", help="play rounds of the round robin on a running server")
    common(r, redis=True)
    r.add_argument("--url", default=None, help="the server the entrants play on (default "
                                               "ws://127.0.0.1:$CARDROOM_PORT/ws, port 8765 when unset)")
    r.add_argument("--rounds", type=int, default=1, help="round robins to play (default 1)")
    r.set_defaults(league_func=_run)

    s = sub.add_parser("standings", help="print the standings")
    common(s, redis=True)
    s.add_argument("--json", action="store_true", help="one JSON object per entrant")
    s.set_defaults(league_func=_standings)

    x = sub.add_parser("export", help="write the standings and every hand to a directory")
    common(x, redis=True)
    x.add_argument("--out", required=True, help="directory to write standings.json, matches.jsonl, hands.jsonl "
                                                "(and hands.txt in PokerStars format for Hold'em)")
    x.set_defaults(league_func=_export)


def league_command(args: argparse.Namespace, out: Out = print) -> int:
    try:
        return args.league_func(args, out)
    except (LeagueError, OperatorError) as exc:
        print(f"cardroom league: {exc}", file=sys.stderr)
        return exc.status


# --- subcommands -------------------------------------------------------------------------


def _create(args: argparse.Namespace, out: Out) -> int:
    leagues = LeagueDir(args.dir)
    if leagues.exists(args.name):
        raise LeagueError(f"league {args.name!r} exists already in {args.dir}")
    from engine.config import config_from_arguments
    from engine.errors import ConfigError

    try:
        config = config_from_arguments(args.config) or None
    except ConfigError as exc:
        raise LeagueError(f"--config: {exc.message}", 2) from None
    league = new_league(args.name, args.game, hands=args.hands, seats=args.seats, stack=args.stack,
                        action_seconds=args.action_seconds, config=config, duplicate=not args.no_duplicate,
                        format=args.format, level_hands=args.level_hands)
    leagues.save(league)
    what = (f"sit-and-go of at most {args.hands} hands, blinds up every {args.level_hands} hands"
            if league.format == "sng" else f"{args.hands} deals per match")
    out(f"league {args.name}: {args.game}, {league.seats} per match, {what}"
        f"{' (duplicate)' if league.duplicate else ''}, stack {league.stack}; "
        f"enter bots with: cardroom league enter {args.name} --entrant NAME --strategy smart")
    return 0


def _enter(args: argparse.Namespace, out: Out) -> int:
    leagues = LeagueDir(args.dir)
    league = leagues.load(args.name)
    if any(e.name == args.entrant for e in league.entrants):
        raise LeagueError(f"league {args.name} has an entrant {args.entrant!r} already")
    known = sorted(bots.strategies(league.game))
    if args.strategy is not None and args.strategy not in known:
        raise LeagueError(f"no strategy {args.strategy!r} for {league.game} (built in: {', '.join(known)})", 2)

    async def register(store: Store) -> tuple[str, str]:
        player, token, _ = await store.create_player(args.entrant)
        return player, token

    player, token = _with_store(args, register)
    league.entrants.append(Entrant(args.entrant, player, token, args.strategy, args.command))
    leagues.save(league)
    how = f"strategy {args.strategy}" if args.strategy else f"command {args.command!r}"
    out(f"league {args.name}: {args.entrant} entered ({how}) as player {player}")
    return 0


def _run(args: argparse.Namespace, out: Out) -> int:
    """``league run``: its errors say ``cardroom league run: ...`` (one line, status 1;
    2 for a bad ``--url``)."""
    try:
        return _run_league(args, out)
    except (LeagueError, OperatorError) as exc:
        print(f"cardroom league run: {exc}", file=sys.stderr)
        return exc.status


def _run_league(args: argparse.Namespace, out: Out) -> int:
    leagues = LeagueDir(args.dir)
    league = leagues.load(args.name)
    if len(league.entrants) < league.seats:
        raise LeagueError(f"league {args.name} needs at least {league.seats} entrants (has {len(league.entrants)})")
    url = args.url or default_url()
    asyncio.run(_probe_server(url))  # before anything is started or written
    matches = groups([e.name for e in league.entrants], league.seats)
    logs = leagues.path(args.name) / "logs"

    def say(line: str) -> None:
        out(f"[{time.strftime('%H:%M:%S')}] {line}")

    async def play(store: Store) -> int:
        if await store.league_definition(league.name) is not None:
            raise LeagueError(f"the servers run a league {league.name!r} made over the protocol: "
                              f"give yours another name")
        incomplete = 0

        async def publish(new: list[dict[str, Any]], replace: bool = False) -> None:
            await store.add_league_matches(league.name, new, replace)
            await store.publish_league(league.name, published(report(league, leagues.matches(league.name),
                                                                     int(time.time() * 1000))))

        await publish(leagues.matches(league.name), replace=True)  # the league as its files have it
        for round_no in range(1, args.rounds + 1):
            say(f"round {round_no}/{args.rounds}: {len(matches)} match(es) at once")
            records = await asyncio.gather(*(run_match(store, league, g, url, logs, say) for g in matches))
            void = [r for r in records if r["status"] == "void"]
            for record in records:
                if record["status"] == "void":
                    say(f"match {record['match']} void, not recorded: {record['void']}")
                    continue
                record["round"] = round_no
                leagues.add_match(league.name, record)
                await publish([record])
                incomplete += record["status"] != "done"
                say(f"match {record['match']} {record['status']}: " + ", ".join(
                    f"{name} {sum(h['results'].get(name, 0) for h in record['hands']):+d}"
                    for name in record["entrants"]) + ("" if record["same_decks"] else " (DECKS DIFFER)"))
            if void:
                more = f" (and {len(void) - 1} more void match(es): see above)" if len(void) > 1 else ""
                raise RunStopped(f"{void[0]['void']}; match {void[0]['match']} is void: not recorded, "
                                 f"the run stopped{more}")
        return incomplete

    incomplete = _with_store(args, play)
    out(stats.format_standings(stats.standings(leagues.matches(league.name))))
    if incomplete:
        out(f"{incomplete} match(es) did not finish in time (status incomplete: left out of the ratings)")
    return 0


async def _probe_server(url: str, timeout: float = PROBE_SECONDS) -> None:
    """Raise :class:`RunStopped` unless a cardroom server answers at ``url``: a WebSocket
    opened with the ``cardroom.json`` subprotocol within ``timeout`` seconds (and closed at
    once: no hello, no player made). A URL that is not ws:// or wss:// is bad usage
    (status 2)."""
    from websockets.asyncio.client import connect as ws_connect
    from websockets.exceptions import InvalidURI, WebSocketException

    try:
        async with ws_connect(url, subprotocols=["cardroom.json"], open_timeout=timeout) as ws:
            if ws.subprotocol != "cardroom.json":
                raise RunStopped(f"the server at {url} is not a cardroom server (no cardroom.json subprotocol); "
                                 f"nothing was played")
    except InvalidURI:
        raise RunStopped(f"--url {url!r} is not a ws:// or wss:// URL", 2) from None
    except (OSError, WebSocketException) as exc:  # refused, timed out, not a WebSocket endpoint
        raise RunStopped(f"no cardroom server answers at {url} ({exc or type(exc).__name__}): start one "
                         f"(make run) or give its address with --url; nothing was played") from None


def _league_matches(args: argparse.Namespace) -> tuple[str, list[dict[str, Any]]]:
    """The league's game and match records: from its files, or for a league the servers
    run (made over the protocol) from their Redis."""
    leagues = LeagueDir(args.dir)
    if leagues.exists(args.name):
        return leagues.load(args.name).game, leagues.matches(args.name)

    async def read(store: Store) -> tuple[str, list[dict[str, Any]]] | None:
        definition = await store.league_definition(args.name)
        return None if definition is None else (definition["game"], await store.league_matches(args.name))

    try:
        found = _with_store(args, read)
    except (OperatorError, LeagueError) as exc:  # no server's Redis to look in
        raise LeagueError(f"no league {args.name!r} in {args.dir} (nor could the servers' Redis be read: {exc})") from None
    if found is None:
        raise LeagueError(f"no league {args.name!r} in {args.dir}, nor one the servers run")
    return found


def _standings(args: argparse.Namespace, out: Out) -> int:
    _game, matches = _league_matches(args)
    if not matches:
        out(f"league {args.name}: no match played yet (cardroom league run {args.name})")
        return 0
    rows = stats.standings(matches)
    if args.json:
        for row in rows:
            out(json.dumps(row_json(row)))
    else:
        out(stats.format_standings(rows))
    return 0


def _export(args: argparse.Namespace, out: Out) -> int:
    from ..ops.history_cli import history_command

    game, matches = _league_matches(args)
    target = Path(args.out)
    target.mkdir(parents=True, exist_ok=True)
    (target / "standings.json").write_text(json.dumps([row_json(r) for r in stats.standings(matches)]
                                                      if matches else [], indent=1))
    (target / "matches.jsonl").write_text("".join(json.dumps(m) + "\n" for m in matches))
    own = GAMES[game].exports if game in GAMES else {}
    formats = [("jsonl", "hands.jsonl")] + [(name, export.file) for name, export in own.items()]
    for fmt, file in formats:
        lines: list[str] = []
        for m in matches:
            for room in m["rooms"]:
                ns = argparse.Namespace(room=room["room"], hand=None, last=None, as_seat=None, spectator=False,
                                        format=fmt, json=False, data_dir=args.data_dir, redis_url=args.redis_url,
                                        prefix=args.prefix)
                if history_command(ns, out=lines.append) != 0:
                    raise LeagueError(f"could not read the hands of room {room['room']}")
        (target / file).write_text("".join(line + "\n" for line in lines))
    out(f"league {args.name}: {len(matches)} match(es) written to {target}/ "
        f"(standings.json, matches.jsonl, {', '.join(f for _, f in formats)})")
    return 0


# --- helpers ---------------------------------------------------------------------------


def _with_store(args: argparse.Namespace, job: Callable[[Store], Any]) -> Any:
    located = locate_redis(args.redis_url, args.data_dir, args.prefix)

    async def main() -> Any:
        try:
            clients = await connect(located.url)
        except Exception as exc:
            raise LeagueError(f"cannot reach Redis at {located.where}: {exc}") from None
        store = Store(clients.main, prefix=located.key_prefix)
        try:
            return await job(store)
        finally:
            await store.aclose()
            await clients.aclose()

    try:
        return asyncio.run(main())
    finally:
        located.stop()
