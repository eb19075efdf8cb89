"""``cardroom history``: rooms and hand histories read from Redis, for people running rooms.

Redis: ``--redis-url`` (or ``REDIS_URL`` / ``CARDROOM_REDIS_URL``) if given; else the
embedded Redis of ``--data-dir``: the socket of the one a running server started, or,
when no server runs, a redis-server started (by :class:`EmbeddedRedis`, as the server
does) just for this command and stopped after it. The command only reads.

Formats (``--format``): ``text`` (the default: readable lines), ``jsonl`` (one JSON object
per hand, :func:`server.records.history.hand_object`, what ``cardroom verify --file`` reads; ``json``
is the same), and each format a hosted game exports of its own (``Game.exports``, e.g.
Hold'em's ``pokerstars``, the PokerStars hand-history layout; only for that game's rooms,
finished hands only). ``--json`` is the older per-event JSON lines
(:func:`server.records.history.hand_records`), kept as it was.

Exit status: 0, 1 when Redis cannot be reached, 2 for a bad argument, an unknown room,
an ``--as-seat`` the room's table does not have, or a hand the room does not have (or,
for a game's own format, a room of another game or a hand that is not finished).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import unicodedata
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import redis

from ..games import GAMES
from ..records.history import (
    VIEW_ALL,
    Entry,
    hand_lines,
    hand_object,
    hand_records,
    select_hands,
    split_hands,
)
from ..sentinel import is_sentinel_url, parse_sentinel_url
from ..store import Keys, unpack
from .operator_redis import OperatorError, locate_redis

Out = Callable[[str], None]
FORMATS = ("text", "jsonl", "json")


def game_formats() -> dict[str, list[str]]:
    """The hand-history formats the hosted games export of their own: format -> its games."""
    formats: dict[str, list[str]] = {}
    for game in GAMES.values():
        for name in game.exports:
            formats.setdefault(name, []).append(game.name)
    return formats


class HistoryError(Exception):
    """A failure to report in one line, with the exit status to use."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


def add_command(subparsers: Any) -> None:
    """Add the ``history`` subcommand to a ``cardroom`` argparse parser."""
    p = subparsers.add_parser(
        "history", help="list rooms, or print a room's hand histories from the event stream (read-only)",
        description="Without --room: list the rooms. With --room: print each hand of the room as a readable "
                    "history (the operator's full view unless --as-seat or --spectator).")
    p.add_argument("--room", default=None, help="the room id (see the list without --room)")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--hand", type=int, default=None, metavar="N", help="only hand number N")
    which.add_argument("--last", type=int, default=None, metavar="K", help="only the last K hands")
    view = p.add_mutually_exclusive_group()
    view.add_argument("--as-seat", type=int, default=None, metavar="S",
                      help="show only what seat S (0 to the table's seats - 1) saw: its own private cards, "
                           "nobody else's")
    view.add_argument("--spectator", action="store_true", help="show only what a spectator saw")
    own = "".join(f"; {name}: {', '.join(GAMES[g].title for g in games)} rooms only, "
                  f"{GAMES[games[0]].exports[name].doc or 'the game’s own layout'}"
                  for name, games in game_formats().items())
    p.add_argument("--format", choices=FORMATS + tuple(game_formats()), default=None,
                   help="text (default): readable lines; jsonl: one JSON object per hand (seats, events, "
                        "result, fairness proof), what `cardroom verify --file` checks; json: the same as "
                        f"jsonl (unlike --json){own}")
    p.add_argument("--json", action="store_true",
                   help="the older per-event form, kept for scripts: one JSON line per event (or per room "
                        "without --room), not one per hand, so not what `cardroom verify --file` reads "
                        "(that is --format jsonl)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--data-dir", default=None,
                       help="data directory of the embedded Redis (default ./data) [env CARDROOM_DATA_DIR]")
    where.add_argument("--redis-url", default=None, help="Redis URL [env REDIS_URL or CARDROOM_REDIS_URL]")
    p.add_argument("--prefix", default=None, help="Redis key prefix (default cardroom:) [env CARDROOM_KEY_PREFIX]")
    p.set_defaults(func=history_command)


def history_command(args: argparse.Namespace, out: Out = print) -> int:
    """Run ``cardroom history``; returns the exit status (errors go to stderr in one line)."""
    try:
        _check_args(args)
        with connect(args) as (client, keys):
            if args.room is None:
                _list_rooms(client, keys, args.json or args.format in ("jsonl", "json"), out)
            else:
                _print_room(client, keys, args, out)
    except HistoryError as exc:
        print(f"cardroom history: {exc}", file=sys.stderr)
        return exc.status
    except redis.RedisError as exc:
        print(f"cardroom history: Redis failed: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # the reader went away (| head): not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    return 0


def _check_args(args: argparse.Namespace) -> None:
    if args.room is None and (args.hand is not None or args.last is not None or args.as_seat is not None
                              or args.spectator):
        raise HistoryError("--hand, --last, --as-seat and --spectator need --room", 2)
    if args.json and args.format not in (None, "text"):
        raise HistoryError(f"--json and --format {args.format} do not go together", 2)
    if args.room is None and args.format not in (None, *FORMATS):
        raise HistoryError(f"--format {args.format} needs --room", 2)
    if args.hand is not None and args.hand < 1:
        raise HistoryError("--hand must be at least 1", 2)
    if args.last is not None and args.last < 1:
        raise HistoryError("--last must be at least 1", 2)
    if args.as_seat is not None and args.as_seat < 0:
        raise HistoryError("--as-seat must be a seat number (0 or more)", 2)


@contextmanager
def connect(args: argparse.Namespace) -> Iterator[tuple[redis.Redis, Keys]]:
    """A Redis client and the key layout, per the flags and environment (see the module doc)."""
    try:
        located = locate_redis(args.redis_url, args.data_dir, args.prefix)
    except OperatorError as exc:
        raise HistoryError(str(exc), exc.status) from None
    url, where = located.url, located.where
    client: Any
    if is_sentinel_url(url):
        target = parse_sentinel_url(url)
        client = target.sync_manager(5, 30).master_for(target.service, socket_connect_timeout=5, socket_timeout=30)
    else:
        client = redis.Redis.from_url(url, socket_connect_timeout=5, socket_timeout=30)
    try:
        try:
            if not is_sentinel_url(url) and int(client.info("cluster").get("cluster_enabled", 0)) == 1:
                client.close()
                client = redis.RedisCluster.from_url(url, socket_connect_timeout=5, socket_timeout=30)
            client.ping()
        except (redis.RedisError, OSError) as exc:
            raise HistoryError(f"cannot reach Redis at {where}: {exc}", 1) from None
        yield client, Keys(located.key_prefix)
    finally:
        client.close()
        located.stop()


def load_snapshot(client: redis.Redis, keys: Keys, room: str) -> dict[str, Any] | None:
    raw = client.hget(keys.room(room), "snap")
    return None if raw is None else unpack(raw)


def _room_summary(room: str, snapshot: dict[str, Any]) -> dict[str, Any]:
    seats = snapshot.get("seats") or []
    return {
        "room": room,
        "game": snapshot.get("game"),
        "name": (snapshot.get("options") or {}).get("name"),
        "hands": snapshot.get("hand_no", 0),
        "seats": [None if s is None else {"seat": i, "player": s.get("player"), "name": s.get("name"),
                                           "stack": s.get("stack"), "bot": bool(s.get("bot"))}
                  for i, s in enumerate(seats)],
    }


def _list_rooms(client: redis.Redis, keys: Keys, as_json: bool, out: Out) -> None:
    rooms = sorted(m.decode() for m in client.smembers(keys.rooms))
    summaries = [_room_summary(r, snap) for r in rooms if (snap := load_snapshot(client, keys, r)) is not None]
    if as_json:
        for s in summaries:
            out(json.dumps(s, ensure_ascii=False))
        return
    if not summaries:
        out(f"no rooms (key prefix {keys.prefix!r})")
        return
    rows = [("ROOM", "GAME", "NAME", "HANDS", "SEATS")]
    for s in summaries:
        taken = [x for x in s["seats"] if x is not None]
        who = ", ".join(f"{x['seat']}: {x['name']} ({x['stack']})" for x in taken) or "-"
        rows.append((s["room"], str(s["game"]), str(s["name"]), str(s["hands"]),
                     f"{len(taken)}/{len(s['seats'])} {who}"))
    widths = [max(_width(r[i]) for r in rows) for i in range(4)]
    for r in rows:
        out("  ".join(c + " " * (w - _width(c)) for c, w in zip(r[:4], widths, strict=True)) + "  " + r[4])


def _width(text: str) -> int:
    """Terminal columns of ``text`` (CJK wide characters take two)."""
    return sum(2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1 for ch in text)


def read_entries(client: redis.Redis, keys: Keys, room: str) -> list[Entry]:
    entries = client.xrange(keys.events(room))
    return [Entry(sid.decode(), int(fields[b"v"]), unpack(fields[b"e"])) for sid, fields in entries
            if b"e" in fields]


def _print_room(client: redis.Redis, keys: Keys, args: argparse.Namespace, out: Out) -> None:
    room = args.room
    snapshot = load_snapshot(client, keys, room)
    if snapshot is None:
        raise HistoryError(f"no room {room!r} (list the rooms with: cardroom history)", 2)
    game = GAMES.get(snapshot.get("game", ""))  # None: a game this build does not host (generic lines)
    title = game.title if game is not None else str(snapshot.get("game"))
    _check_seat(args.as_seat, room, snapshot.get("seats"))
    hands = split_hands(read_entries(client, keys, room), snapshot.get("seats"))
    chosen = select_hands(hands, args.hand, args.last)
    if args.hand is not None and not chosen:
        have = f"hands {hands[0].number}..{hands[-1].number}" if hands else "no hands yet"
        raise HistoryError(f"room {room} has no hand {args.hand} in its event stream ({have})", 2)
    viewer: int | str | None = VIEW_ALL
    if args.spectator:
        viewer = None
    elif args.as_seat is not None:
        viewer = args.as_seat
    if args.json:
        for hand in chosen:
            for record in hand_records(hand, viewer, room):
                out(json.dumps(record, ensure_ascii=False))
        return
    if args.format in ("jsonl", "json"):
        for hand in chosen:
            out(json.dumps(hand_object(hand, snapshot.get("game"), viewer, room), ensure_ascii=False))
        return
    if args.format not in (None, *FORMATS):
        _print_export(snapshot, room, chosen, viewer, args, out)
        return
    if not chosen:
        out(f"room {room} ({title}) has no hands yet")
        return
    for i, hand in enumerate(chosen):
        if i:
            out("")
        for line in hand_lines(hand, game, viewer, room, title):
            out(line)


def _check_seat(seat: int | None, room: str, seats: Any) -> None:
    """Refuse ``--as-seat seat`` (status 2, naming the valid seats) when the room's table
    (``seats``: its snapshot's seat list, empty seats included) has no such seat."""
    if seat is None or not isinstance(seats, list) or 0 <= seat < len(seats):
        return
    valid = "seat 0" if len(seats) == 1 else f"seats 0-{len(seats) - 1}"
    raise HistoryError(f"--as-seat {seat}: room {room} has no seat {seat} (its table has {valid})", 2)


def _print_export(snapshot: dict[str, Any], room: str, chosen: list[Any],
                  viewer: int | str | None, args: argparse.Namespace, out: Out) -> None:
    """Finished hands in a format of the room's game's own (``Game.exports``), two blank
    lines between hands (an unfinished hand, the one being played, is left out: it has no
    result yet)."""
    game = GAMES.get(snapshot.get("game") or "")
    export = game.exports.get(args.format) if game is not None else None
    if export is None:
        games = ", ".join(GAMES[g].title for g in game_formats().get(args.format, []))
        raise HistoryError(f"--format {args.format} is for {games} rooms; room {room} plays "
                           f"{snapshot.get('game')}", 2)
    if args.hand is not None and not chosen[0].finished:
        raise HistoryError(f"hand {args.hand} of room {room} is not finished", 2)
    table = (snapshot.get("options") or {}).get("name") or room
    size = len(snapshot.get("seats") or ()) or None
    first = True
    for hand in chosen:
        if not hand.finished:
            continue
        if not first:
            out("")
            out("")
        first = False
        for line in export.write(hand_object(hand, game.name, viewer, room), table, size):
            out(line)
