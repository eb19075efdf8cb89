"""``cardroom bots`` (bot clients against a server) and ``cardroom simulate`` (engine only).

Both are added to the ``cardroom`` command by :func:`add_commands`::

    cardroom simulate --game doudizhu --strategies smart,random,random --games 1000 --seed 7
    cardroom bots --url ws://127.0.0.1:8765/ws --game holdem --count 5 --create --hands 20
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import signal
import sys
import time
from collections.abc import Sequence
from typing import Any, TextIO
from urllib.parse import urlsplit, urlunsplit

from engine.config import config_from_arguments
from engine.errors import ConfigError


def games_with_bots() -> list[str]:
    """The installed games that have bot strategies (:func:`engine.bots.games`)."""
    from engine.bots import games

    return games()


def default_strategies(game: str) -> str:
    """``cardroom simulate``'s seats when ``--strategies`` is not given: the game's first
    strategy against its second (``smart`` against ``random``), at its practice table."""
    from engine.registry import installed

    g = installed()[game]
    first, *rest = list(g.bots)
    return ",".join([first] + [rest[0] if rest else first] * (g.practice_seats - 1))


def add_commands(subparsers: Any) -> None:
    """Add the ``bots`` and ``simulate`` subcommands to a ``cardroom`` argparse parser."""
    sim = subparsers.add_parser(
        "simulate", help="play bot strategies against each other through the engine only (no server)",
        description="Plays built-in bot strategies against each other through the game engines "
                    "only (no server, no Redis) and prints one row per seat: chips won, with 95% "
                    "confidence intervals. The same --seed gives the same results.")
    sim.add_argument("--game", required=True, choices=games_with_bots(),
                     help="the game to simulate (an installed game with bot strategies)")
    sim.add_argument("--strategies", default=None,
                     help="one strategy per seat, comma separated: the game's bot strategies (smart, random, "
                          "and calling_station in the betting games) (default: smart against random, at the "
                          "game's practice table)")
    sim.add_argument("--games", "--hands", dest="games", type=int, default=1000,
                     help="hands (games) to play (default 1000)")
    sim.add_argument("--seed", type=int, default=None, help="seed for decks and bots (default: random, printed)")
    sim.add_argument("--stack", type=int, default=None, help="stack each seat starts every hand with")
    sim.add_argument("--config", action="append", default=[], metavar="JSON|KEY=VALUE",
                     help="the game's hand options: a JSON object, e.g. '{\"big_blind\": 4}', or "
                          "KEY=VALUE, e.g. big_blind=4 (repeatable; values read as JSON, else text)")
    sim.add_argument("--json", action="store_true", help="print the results as JSON instead of a table")
    sim.add_argument("--quiet", action="store_true", help="no progress bar")
    sim.set_defaults(func=simulate_command)

    bots = subparsers.add_parser(
        "bots", help="run bot clients against a cardroom server",
        description="Connects COUNT bot clients to a running cardroom server, seats them in one "
                    "room (--room, a new one with --create, or the first of --game with a free "
                    "seat) and plays until --hands hands are done, no further hand can start, or "
                    "Ctrl-C (or SIGTERM); then prints each bot's result.")
    bots.add_argument("--url", default=None,
                      help="server WebSocket URL (default ws://127.0.0.1:$CARDROOM_PORT/ws, port 8765 "
                           "when unset, as make run serves); the page's address http(s)://HOST:PORT/ is "
                           "taken as ws(s)://HOST:PORT/ws")
    bots.add_argument("--game", choices=games_with_bots(), default=None,
                      help="game to play (needed with --create or without --room)")
    bots.add_argument("--count", type=int, default=2, help="bot clients, each its own connection")
    where = bots.add_mutually_exclusive_group()
    where.add_argument("--room", default=None, help="join this room id")
    where.add_argument("--create", action="store_true",
                       help="create a new room with one seat per bot; every bot sits before the first hand")
    bots.add_argument("--strategy", choices=("smart", "random", "calling_station"), default="smart",
                      help="how the bots play (default smart; calling_station: Hold'em and Zha Jin Hua only)")
    bots.add_argument("--hands", type=int, default=None, help="stop after this many hands (default: until Ctrl-C)")
    bots.add_argument("--name", default="bot", help="bot name prefix (default bot: bot1, bot2 ...)")
    bots.add_argument("--buy-in", type=int, default=None, help="chips each bot brings (default: the room's)")
    bots.add_argument("--seed", type=int, default=None, help="seed of the bots' decisions")
    bots.add_argument("--delay", type=float, default=0.0, help="seconds to wait before each action")
    bots.add_argument("--option", action="append", default=[], metavar="JSON|KEY=VALUE",
                      help="room options for --create, e.g. between_hands_seconds=0.5 or bots=1 "
                           "(repeatable; the same forms as --config)")
    bots.add_argument("--config", action="append", default=[], metavar="JSON|KEY=VALUE",
                      help="the game's hand options for --create: a JSON object, e.g. "
                           "'{\"big_blind\": 20}', or KEY=VALUE, e.g. big_blind=20 "
                           "(repeatable; values read as JSON, else text)")
    bots.add_argument("--quiet", action="store_true", help="no live progress")
    bots.set_defaults(func=bots_command)


def options_argument(flag: str, values: Sequence[str]) -> dict[str, Any]:
    """The values of a repeatable options flag (``--config``, ``--option``) as one dict
    (:func:`engine.config.config_from_arguments`); ``ValueError("--config: ...")`` for a
    value that is neither a JSON object nor ``KEY=VALUE``."""
    try:
        return config_from_arguments(values)
    except ConfigError as exc:
        raise ValueError(f"{flag}: {exc.message}") from None


def strategy_problem(game: str, name: str) -> str | None:
    """Why ``name`` is no strategy of ``game`` (listing the game's strategies), or None."""
    from engine.bots import strategies

    if name in strategies(game):
        return None
    known = ", ".join(sorted(strategies(game)))
    return f"no strategy {name!r} for {game} (its strategies: {known})"


def websocket_url(url: str) -> str:
    """The server's WebSocket URL from ``--url``: ``ws://`` and ``wss://`` URLs unchanged;
    the browser page's ``http(s)://HOST:PORT/`` as ``ws(s)://HOST:PORT/ws`` (another
    path is kept, only the scheme changes). ``ValueError`` (in words) for anything else."""
    try:
        parts = urlsplit(url.strip())
        parts.port  # noqa: B018 -- raises ValueError for a port out of range
    except ValueError as exc:
        raise ValueError(f"--url {url!r}: {exc}") from None
    scheme = parts.scheme.lower()
    if scheme not in ("ws", "wss", "http", "https"):
        raise ValueError(f"--url must be a ws://, wss://, http:// or https:// URL such as "
                         f"ws://127.0.0.1:8765/ws, got {url!r}")
    if not parts.hostname:
        raise ValueError(f"--url names no host, got {url!r}")
    if scheme in ("ws", "wss"):
        return urlunsplit(parts._replace(scheme=scheme))
    path = parts.path if parts.path not in ("", "/") else "/ws"
    return urlunsplit(parts._replace(scheme="ws" if scheme == "http" else "wss", path=path))


# ------------------------------------------------------------------ progress and tables


class Progress:
    """A one-line progress bar on a terminal (plain lines, sparingly, elsewhere)."""

    def __init__(self, total: int | None, out: TextIO | None = None, enabled: bool = True) -> None:
        self.total = total
        self.out = out = out or sys.stderr
        self.enabled = enabled
        self.tty = out.isatty()
        self.started = time.monotonic()
        self.last = 0.0

    def update(self, done: int, note: str = "", force: bool = False) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if not force and now - self.last < (0.1 if self.tty else 2.0) and done != self.total:
            return
        self.last = now
        rate = done / max(now - self.started, 1e-9)
        if self.total:
            filled = int(30 * done / self.total)
            bar = f"[{'#' * filled}{'.' * (30 - filled)}] {done}/{self.total}"
        else:
            bar = f"{done} done"
        line = f"{bar}  {rate:.1f}/s  {note}".rstrip()
        if self.tty:
            self.out.write("\r\033[K" + line)
        else:
            self.out.write(line + "\n")
        self.out.flush()

    def finish(self) -> None:
        if self.enabled and self.tty:
            self.out.write("\n")
            self.out.flush()


def format_table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A plain-text table with right-aligned columns."""
    cells = [[str(h) for h in headers]] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = ["  ".join(c.rjust(w) for c, w in zip(r, widths, strict=True)) for r in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def simulation_table(stats: Any) -> str:
    """The results of :func:`engine.bots.arena.simulate` as a table."""
    rows = []
    # "bb/100" counts hands, "points/game" games: the word after the slash, when a word
    per = stats.unit.rpartition("/")[2]
    hands = f"{per}s" if per.isalpha() else "hands"
    table = stats.table()
    roles = bool(table) and "landlord_rate" in table[0]
    headers = ["seat", "strategy", hands, "chips", stats.unit, "95% CI"]
    if roles:
        headers += ["landlord won", "peasant won"]
    for r in table:
        row = [r["seat"], r["strategy"], r["hands"], f"{r['chips']:+d}",
               f"{r['per_unit']:+.2f}", f"±{r['unit_ci95']:.2f}"]
        if roles:
            row += [f"{r['landlord_rate']:.1%} of {r['landlord_games']}",
                    f"{r['peasant_rate']:.1%} of {r['peasant_games']}"]
        rows.append(row)
    return format_table(headers, rows)


# ------------------------------------------------------------------ simulate


def simulate_command(args: argparse.Namespace) -> int:
    """``cardroom simulate``: bad arguments (a strategy the game lacks, a ``--config``
    value of neither form) get one line on stderr and exit status 2, before any hand."""
    from engine.bots.arena import simulate

    names = [n.strip() for n in (args.strategies or default_strategies(args.game)).split(",") if n.strip()]
    seed = args.seed if args.seed is not None else random.randrange(1 << 31)
    try:
        config = options_argument("--config", args.config)
        for name in names:
            if (problem := strategy_problem(args.game, name)) is not None:
                raise ValueError(problem)
    except ValueError as exc:
        print(f"cardroom simulate: {exc}", file=sys.stderr)
        return 2
    if args.games < 1:
        print("cardroom simulate: --games must be at least 1", file=sys.stderr)
        return 2
    progress = Progress(args.games, enabled=not args.quiet)
    print(f"simulating {args.games} {args.game} hands: {', '.join(names)} (seed {seed})", file=sys.stderr)
    try:
        stats = simulate(args.game, names, args.games, seed=seed, config=config, stack=args.stack,
                         progress=lambda done, _s: progress.update(done))
    except (KeyError, ValueError) as exc:
        progress.finish()
        print(f"cardroom simulate: {exc.args[0] if exc.args else exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        progress.finish()
        print("interrupted", file=sys.stderr)
        return 130
    progress.finish()
    if args.json:
        print(json.dumps({"game": args.game, "seed": seed, "strategies": names, "rows": stats.table()}))
    else:
        print(simulation_table(stats))
        if stats.redeals:
            print(f"({stats.redeals} redeals: everyone passed in the auction)")
    return 0


# ------------------------------------------------------------------ bots


async def run_bots(url: str, game: str | None, count: int, *, room: str | None = None,
                   create: bool = False, strategy: str = "smart", hands: int | None = None,
                   name: str = "bot", buy_in: int | None = None, seed: int | None = None,
                   delay: float = 0.0, options: dict[str, Any] | None = None,
                   config: dict[str, Any] | None = None, stop: asyncio.Event | None = None,
                   out: TextIO | None = None, quiet: bool = False,
                   grace: float | None = None) -> list[Any]:
    """Run ``count`` bots (each its own connection) in one room; returns their :class:`BotStats`.

    With ``create`` the room gets one seat per bot and every bot sits down before the
    first hand. The bots stop when the room has finished ``hands`` hands since they
    started, when ``stop`` is set (e.g. by Ctrl-C), or when no further hand can start
    (players busted, left or sitting out, for ``grace`` seconds); each then leaves its
    seat. Why they stopped is printed to ``out`` (unless ``quiet``). Until the first hand
    can start (too few players seated) they wait, and say once, even when ``quiet``, what
    for (again whenever that changes).

    ``ValueError`` before anything is created or joined for a bad ``url``
    (:func:`websocket_url`), a ``strategy`` that ``game`` lacks, or a private room
    created with too few bots for a hand (nobody else could join it).
    """
    from ..sdk.bot import SHORT_TABLE_GRACE, BotStats, StrategyBot, find_or_create_room, run_in_room
    from ..sdk.bot import min_players as players_needed
    from ..sdk.client import CardroomClient, ServerError

    url = websocket_url(url)
    if count < 1:
        raise ValueError("--count must be at least 1")
    if game is not None:
        _check_before_creating(game, strategy, count, create, options or {})
    grace = SHORT_TABLE_GRACE if grace is None else grace
    stop = stop or asyncio.Event()
    out = out or sys.stderr
    rng = random.Random(seed)
    clients = [CardroomClient(url, name=f"{name}{i + 1}") for i in range(count)]
    ended: set[Any] = set()
    progress = Progress(hands, out=out, enabled=not quiet)
    all_stats = [BotStats(name=c.name or "") for c in clients]
    reasons: list[str] = []

    reported: dict[Any, set[str]] = {}  # hand_no -> bots that saw it end
    last_hand: list[Any] = []  # the hand_no that completes ``hands``

    def on_hand(stats: BotStats, ev: dict[str, Any]) -> None:
        hand_no = ev.get("hand_no", len(ended))
        reported.setdefault(hand_no, set()).add(stats.name)
        if last_hand and hand_no == last_hand[0]:
            playing = {st.name for st in all_stats if st.seat is not None and not st.stop_reason}
            if playing <= reported[hand_no]:
                stop.set()  # every bot has counted the last hand: stop now
        if hand_no in ended:
            return
        ended.add(hand_no)
        # every bot's result from this hand's final stacks (each bot's own stats may not
        # have seen this hand_ended yet), so the line always adds up
        stacks = ev.get("stacks") or []
        nets = []
        for st in all_stats:
            if st.seat is None:
                continue
            stack = stacks[st.seat] if st.seat < len(stacks) and stacks[st.seat] is not None else st.stack
            nets.append(f"{st.name}:{stack - st.buy_in:+d}")
        progress.update(len(ended), " ".join(nets), force=True)
        if hands is not None and len(ended) >= hands and not last_hand:
            reasons.append(f"played the {hands} hand(s) asked for")
            last_hand.append(hand_no)
            # the other bots count this hand when its end reaches them; stop once they all
            # have (at once when this bot plays alone, after a second at most otherwise)
            if {st.name for st in all_stats if st.seat is not None and not st.stop_reason} <= reported[hand_no]:
                stop.set()
            else:
                asyncio.get_running_loop().call_later(1.0, stop.set)

    try:
        await asyncio.gather(*(c.connect() for c in clients))
        if room is None:
            if game is None:
                raise ValueError("give --room, or --game (with or without --create)")
            room_options = dict(options or {})
            if create:
                room_options.setdefault("seats", max(count, players_needed(game)))
                room_options.setdefault("first_hand_players", min(count, room_options["seats"]))
            room = await find_or_create_room(clients[0], game, create, room_options, config)
        if not quiet:
            print(f"{count} {strategy} bot(s) playing in room {room} at {url}", file=out)
        if game is None:
            game = (await clients[0].spectate(room))["game"]
            await clients[0].leave(room)
        if (problem := strategy_problem(game, strategy)) is not None:
            raise ValueError(problem)
        failures: list[Exception] = []
        joined: list[dict[str, Any] | None] = [None] * count
        if create:
            joined = await _sit_down_together(clients, room, buy_in, all_stats, failures, out, quiet)

        async def one_bot(i: int, client: Any, bot: Any) -> None:
            if create and joined[i] is None:
                return  # could not sit down (reported above)
            try:
                await run_in_room(bot, client, room, buy_in=buy_in, stop=stop, on_hand=on_hand,
                                  delay=delay, stats=all_stats[i], joined=joined[i], grace=grace)
            except ServerError as exc:  # e.g. room_full: the other bots play on
                all_stats[i].errors.append(f"{exc.code}: {exc.message}")
                if not quiet:
                    print(f"{client.name}: {exc.code}: {exc.message}", file=out)
                failures.append(exc)

        tasks = []
        for i, client in enumerate(clients):
            bot = StrategyBot(game, strategy, seed=rng.getrandbits(64))
            tasks.append(asyncio.create_task(one_bot(i, client, bot)))
        min_players = await _min_players(clients[0], game)
        hint = ""
        if create and count + _server_bots(options or {}) < min_players:
            hint = f" (or run --count {min_players}, or --option bots={min_players - count} for server-side bots)"
        watcher = asyncio.create_task(
            _stop_when_table_breaks(clients, room, tasks, ended, min_players, stop, reasons, grace,
                                    all_stats=all_stats, out=out, hint=hint))
        try:
            await asyncio.gather(*tasks)
        finally:
            watcher.cancel()
        if failures and len(failures) == len(clients):
            raise failures[0]
    finally:
        progress.finish()
        await asyncio.gather(*(c.close() for c in clients), return_exceptions=True)
    busted = [st.name for st in all_stats if st.stop_reason.startswith("busted")]
    why = reasons[0] if reasons else next((st.stop_reason for st in all_stats if st.stop_reason
                                           and not st.stop_reason.startswith(("busted", "stopped"))), "")
    if busted and not why.startswith("played"):
        why = f"{', '.join(busted)} busted; " + (why or "no further hand could start")
    if hands is not None and len(ended) < hands and why:
        why = f"stopped after {len(ended)} of {hands} hands: {why}"
    if why and not quiet:
        print(why, file=out)
    return all_stats


async def _sit_down_together(clients: Sequence[Any], room: str, buy_in: int | None, all_stats: Sequence[Any],
                             failures: list[Exception], out: TextIO, quiet: bool) -> list[dict[str, Any] | None]:
    """Seat every bot in a new room before its first hand (the room was created with
    ``first_hand_players`` = the number of bots, so the first deal waits for all of them).
    Returns each bot's snapshot (None: it found no seat)."""
    from ..sdk.client import ServerError

    joined: list[dict[str, Any] | None] = [None] * len(clients)
    for i, client in enumerate(clients):
        try:
            joined[i] = await client.join(room, buy_in=buy_in)
        except ServerError as exc:
            all_stats[i].errors.append(f"{exc.code}: {exc.message}")
            if not quiet:
                print(f"{client.name}: {exc.code}: {exc.message}", file=out)
            failures.append(exc)
    return joined


async def _min_players(client: Any, game: str) -> int:
    try:
        listing = await client.list_rooms(game=game)
    except Exception:
        listing = {}
    for g in listing.get("games", []):
        if g.get("game") == game:
            return int(g.get("min_players", 2))
    from ..sdk.bot import min_players

    return min_players(game)


def _check_before_creating(game: str, strategy: str, count: int, create: bool,
                           options: dict[str, Any]) -> None:
    """``ValueError`` for bots that could never play, found before any room is made: a
    strategy ``game`` lacks, or a new private room with fewer bots (and server-side bot
    seats) than a hand needs, since nobody else can find it."""
    from ..sdk.bot import min_players

    if (problem := strategy_problem(game, strategy)) is not None:
        raise ValueError(problem)
    need = min_players(game)
    if create and options.get("private") is True and count + _server_bots(options) < need:
        raise ValueError(f"a {game} hand needs {need} players and nobody else can join a private "
                         f"room: use --count {need}, or --option bots=N for server-side bots")


def _server_bots(options: dict[str, Any]) -> int:
    """The server-side bot seats room ``options`` ask for (0 for a value the server
    will refuse anyway: it says why)."""
    bots = options.get("bots", 0)
    return bots if isinstance(bots, int) and not isinstance(bots, bool) else 0


def waiting_line(snapshot: dict[str, Any], room: str, hint: str = "") -> str | None:
    """What bots seated in ``room`` wait for before its first hand, in one line (None
    when a hand can start): the players missing, the free seats others may take, and
    ``hint`` (how to start without them)."""
    from ..sdk.bot import short_table

    reason = short_table(snapshot)
    if reason is None:
        return None
    free = sum(1 for s in snapshot.get("seats") or [] if not s)
    where = (f"{free} free seat(s) in room {room} for other players{hint}" if free
             else f"no free seat in room {room}")
    return f"waiting for players: {reason}; {where}; Ctrl-C stops"


async def _stop_when_table_breaks(clients: Sequence[Any], room: str, tasks: Sequence[asyncio.Task],
                                  ended: set[Any], min_players: int, stop: asyncio.Event,
                                  reasons: list[str], grace: float, *, all_stats: Sequence[Any] = (),
                                  out: TextIO | None = None, hint: str = "") -> None:
    """Stop the bots once no further hand can start: fewer than ``min_players`` seats are
    ready (the others busted, left, or sit out) for ``grace`` seconds after a hand.
    Before the first hand, once every bot has sat down (or failed to), prints to ``out``
    what they wait for (:func:`waiting_line`) each time that changes."""
    from ..sdk.bot import ready_players, short_table

    short_since: float | None = None
    said = ""
    while not stop.is_set():
        await asyncio.sleep(0.25)
        if all(t.done() for t in tasks):
            return
        snaps = [c.rooms[room] for c in clients if room in c.rooms]
        if not snaps:
            continue
        latest = max(snaps, key=lambda m: m.get("version", 0))
        if not ended:
            seated = all(st.seat is not None or t.done() for st, t in zip(all_stats, tasks, strict=True))
            line = waiting_line(latest, room, hint) if seated and out is not None else None
            if line is not None and line != said:
                said = line
                print(line, file=out, flush=True)
            continue
        if latest.get("playing") or len(ready_players(latest)) >= min_players:
            short_since = None
            continue
        now = time.monotonic()
        if short_since is None:
            short_since = now
        elif now - short_since >= grace:
            reasons.append(f"no further hand can start: {short_table(latest) or 'too few players'}")
            stop.set()


def bots_summary(all_stats: Sequence[Any]) -> str:
    rows = [[s.name, s.seat if s.seat is not None else "-", s.hands, s.actions, s.rejected,
             s.buy_in, s.stack, f"{s.net:+d}", s.reconnects] for s in all_stats]
    return format_table(["bot", "seat", "hands", "actions", "rejected", "buy-in", "stack", "net",
                         "reconnects"], rows)


DEFAULT_PORT = 8765  # the server's own default (server/config.py)


def local_url() -> str:
    """The local server's WebSocket URL: ``ws://127.0.0.1:$CARDROOM_PORT/ws``, port 8765
    when ``CARDROOM_PORT`` is unset or empty (as ``cardroom healthcheck`` does)."""
    return f"ws://127.0.0.1:{os.environ.get('CARDROOM_PORT') or DEFAULT_PORT}/ws"


def bots_command(args: argparse.Namespace) -> int:
    """``cardroom bots``: one line on stderr and exit status 2 for bad arguments, found
    before any room is created (a bad ``--url``, ``--option`` or ``--config``, a strategy
    the game lacks); 1 when the server cannot be reached, is no cardroom WebSocket, or
    refuses; 130 after a second Ctrl-C."""
    from websockets.exceptions import InvalidHandshake, InvalidURI

    from ..sdk.client import ServerError

    if args.room is None and args.game is None:
        print("cardroom bots: give --room ID, or --game (and --create for a new room)", file=sys.stderr)
        return 2
    try:
        options = options_argument("--option", args.option)
        config = options_argument("--config", args.config)
        url = websocket_url(args.url or local_url())
        if args.game is not None:
            _check_before_creating(args.game, args.strategy, args.count, args.create, options)
    except ValueError as exc:
        print(f"cardroom bots: {exc}", file=sys.stderr)
        return 2

    async def main() -> list[Any]:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        current = asyncio.current_task()
        presses = 0

        def interrupted() -> None:
            nonlocal presses
            presses += 1
            if presses == 1:
                print("\nstopping: the bots leave their seats (Ctrl-C again to quit at once)",
                      file=sys.stderr)
                stop.set()
            elif current is not None:
                current.cancel()

        # SIGTERM (kill, a service manager, a container's stop) as Ctrl-C: the bots leave
        # their seats, their chips go back to their wallets, the summary is printed
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.add_signal_handler(sig, interrupted)
        return await run_bots(url, args.game, args.count, room=args.room, create=args.create,
                              strategy=args.strategy, hands=args.hands, name=args.name,
                              buy_in=args.buy_in, seed=args.seed, delay=args.delay,
                              options=options, config=config, stop=stop, quiet=args.quiet)

    try:
        all_stats = asyncio.run(main())
    except ServerError as exc:
        print(f"cardroom bots: the server refused: {exc.code}: {exc.message}", file=sys.stderr)
        return 1
    except (OSError, ConnectionError, TimeoutError) as exc:
        print(f"cardroom bots: cannot reach {url}: {exc}", file=sys.stderr)
        return 1
    except InvalidHandshake as exc:
        where = "" if urlsplit(url).path == "/ws" else " (a cardroom server's is at /ws: ws://HOST:PORT/ws)"
        print(f"cardroom bots: {url} is no cardroom WebSocket: {exc}{where}", file=sys.stderr)
        return 1
    except (ValueError, InvalidURI) as exc:
        print(f"cardroom bots: {exc}", file=sys.stderr)
        return 2
    except (KeyboardInterrupt, asyncio.CancelledError):
        print("cardroom bots: interrupted", file=sys.stderr)
        return 130
    print(bots_summary(all_stats))
    return 0


__all__ = ["add_commands", "run_bots", "simulate_command", "bots_command", "format_table",
           "options_argument", "simulation_table", "strategy_problem", "waiting_line", "websocket_url"]
