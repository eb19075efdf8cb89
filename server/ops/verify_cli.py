"""``cardroom verify``: check the fairness proof of a stored or exported hand.

``--room ID --hand N`` reads the room's event stream from Redis (found as ``cardroom
history`` finds it) and checks the hand with every card the server recorded.
``--file F`` checks hands exported by ``cardroom history --format jsonl`` (one JSON
object per line, a single object or a JSON list of them: ``room``, ``game`` and
``events``, as that viewer saw them), so a player can check a hand without access to the
server; an export's own ``fairness`` object must be the proof its events carry
(:func:`server.records.verify.verify_export`). A file of anything else (the per-event lines of
``cardroom history --json``, its room list, text) is refused with the command that writes
what ``--file`` needs.

Prints one verdict line per hand. Exit status: 0 when every hand checked verifies, 1 when
one does not (or Redis cannot be reached), 2 for a bad argument, an unreadable file, an
unknown room or a missing hand.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

import redis

from ..records.history import VIEW_ALL, select_hands, split_hands, visible_events
from ..records.verify import Verdict, verify_export, verify_hand
from .history_cli import HistoryError, connect, load_snapshot, read_entries


def add_command(subparsers: Any) -> None:
    """Add the ``verify`` subcommand to a ``cardroom`` argparse parser."""
    p = subparsers.add_parser(
        "verify", help="check the provably fair deal of a hand (stored, or exported as JSON)",
        description="Check a hand's fairness proof: the revealed server seed matches its commitment and "
                    "every card in the history is where the deck derived from the seeds puts it "
                    "(docs/fairness.md).")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--room", default=None, help="a room id (with --hand): read the hand from Redis")
    src.add_argument("--file", default=None,
                     help="a file of hands exported by `cardroom history --format jsonl` (one JSON object "
                          "per hand; not the per-event lines of --json) or saved by the browser ('-': stdin)")
    p.add_argument("--hand", type=int, default=None, metavar="N", help="the hand number (with --room)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--data-dir", default=None,
                       help="data directory of the embedded Redis (default ./data) [env CARDROOM_DATA_DIR]")
    where.add_argument("--redis-url", default=None, help="Redis URL [env REDIS_URL or CARDROOM_REDIS_URL]")
    p.add_argument("--prefix", default=None, help="Redis key prefix (default cardroom:) [env CARDROOM_KEY_PREFIX]")
    p.add_argument("--json", action="store_true", help="print one JSON verdict per hand")
    p.set_defaults(func=verify_command)


def verify_command(args: argparse.Namespace, out: Any = print) -> int:
    """Run ``cardroom verify``; returns the exit status."""
    try:
        if args.room is not None:
            if args.hand is None or args.hand < 1:
                raise HistoryError("--room needs --hand N (N >= 1)", 2)
            results = [_stored_hand(args)]
        else:
            results = _file_hands(args.file)
    except HistoryError as exc:
        print(f"cardroom verify: {exc}", file=sys.stderr)
        return exc.status
    except redis.RedisError as exc:
        print(f"cardroom verify: Redis failed: {exc}", file=sys.stderr)
        return 1
    for (room, hand_no), verdict in results:
        if args.json:
            out(json.dumps({"room": room, "hand": hand_no, "ok": verdict.ok, "problems": verdict.problems,
                            "cards_checked": verdict.cards_checked,
                            "commitment": (verdict.proof or {}).get("commitment"),
                            "server_seed": (verdict.proof or {}).get("server_seed")}, ensure_ascii=False))
        else:
            out(f"room {room} hand {hand_no}: {verdict.summary()}")
    return 0 if all(v.ok for _, v in results) else 1


def _stored_hand(args: argparse.Namespace) -> tuple[tuple[str, int], Verdict]:
    ns = argparse.Namespace(redis_url=args.redis_url, prefix=args.prefix, data_dir=args.data_dir)
    with connect(ns) as (client, keys):
        snapshot = load_snapshot(client, keys, args.room)
        if snapshot is None:
            raise HistoryError(f"no room {args.room!r} (list the rooms with: cardroom history)", 2)
        hands = select_hands(split_hands(read_entries(client, keys, args.room), snapshot.get("seats")), args.hand)
    if not hands:
        raise HistoryError(f"room {args.room} has no hand {args.hand} in its event stream", 2)
    events = [item.event for item in visible_events(hands[0], VIEW_ALL)]
    return (args.room, args.hand), verify_hand(snapshot["game"], args.room, events)


def _file_hands(path: str) -> list[tuple[tuple[str, int], Verdict]]:
    """Verify every hand of the file (``-``: stdin); :class:`HistoryError` (status 2) when
    it cannot be read or holds something other than exported hands."""
    name = "stdin" if path == "-" else path
    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise HistoryError(f"cannot read {path}: {exc.strerror}", 2) from None
    except UnicodeDecodeError:
        raise HistoryError(f"{name} is not JSON (or JSON lines): not UTF-8 text; {_needs()}", 2) from None
    objects = _parse(name, text)
    if not objects:
        raise HistoryError(f"{name} holds no hands; {_needs()}", 2)
    for n, obj in enumerate(objects, 1):
        if not _is_hand(obj):
            raise HistoryError(_not_a_hand(name, n, obj, objects), 2)
    return [((obj["room"], obj.get("hand", obj.get("hand_no", n))), verify_export(obj))
            for n, obj in enumerate(objects, 1)]


def _parse(name: str, text: str) -> list[Any]:
    """The file's JSON values: one value (an object, or a list of them) or JSON lines."""
    try:
        whole = json.loads(text)
    except json.JSONDecodeError:
        pass
    else:
        return whole if isinstance(whole, list) else [whole]
    values = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            values.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise HistoryError(f"{name} is not JSON (or JSON lines): line {number}: {exc.msg}; {_needs()}",
                               2) from None
    return values


def _is_hand(obj: Any) -> bool:
    """An exported hand: an object with ``room``, ``game`` and a list of ``events``."""
    return isinstance(obj, dict) and isinstance(obj.get("events"), list) \
        and isinstance(obj.get("room"), str) and isinstance(obj.get("game"), str)


def _not_a_hand(name: str, n: int, obj: Any, objects: list[Any]) -> str:
    """Why value ``n`` of the file is not an exported hand, and the command that exports one.
    The per-event lines of ``cardroom history --json`` and its room list are recognised."""
    if isinstance(obj, dict) and isinstance(obj.get("event"), dict) and "events" not in obj:
        records = [o for o in objects if isinstance(o, dict) and isinstance(o.get("event"), dict)]
        rooms = {_text(o.get("room")) for o in records}
        hands = {_text(o.get("hand")) for o in records}
        return f"{name} holds one line per event (cardroom history --json); {_needs(rooms, hands)}"
    if isinstance(obj, dict) and "seats" in obj and "hands" in obj and "events" not in obj:
        rooms = {_text(o.get("room")) for o in objects if isinstance(o, dict)}
        return f"{name} holds the list of rooms (cardroom history --json without --room); {_needs(rooms)}"
    return f"{name}: hand {n} is not an exported hand (room, game and events expected); {_needs()}"


def _text(value: Any) -> str:
    """A room id or hand number of a record as text ("" for anything else)."""
    return str(value) if isinstance(value, str | int) and not isinstance(value, bool) else ""


def _needs(rooms: set[str] | None = None, hands: set[str] | None = None) -> str:
    """What ``--file`` takes and the command that writes it: with the room (and hand) when
    ``rooms`` (and ``hands``) name exactly one (a room id, a hand number)."""
    room = next(iter(rooms)) if rooms and len(rooms) == 1 else ""
    hand = next(iter(hands)) if hands and len(hands) == 1 else ""
    room = room if re.fullmatch(r"[\w.:-]+", room) else "ROOM"
    only = f" --hand {hand}" if re.fullmatch(r"[1-9][0-9]*", hand) else ""
    return f"--file needs one JSON object per hand, written by: cardroom history --room {room}{only} --format jsonl"
