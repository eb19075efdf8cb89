"""``cardroom verify``: check the fairness proof of a stored or exported hand.

``--room ID --hand N`` reads the room's event stream from Redis (found as ``cardroom
history`` finds it) and checks the hand with every card the server recorded.
``--file F`` checks hands exported by ``cardroom history --format jsonl`` (one JSON
object per line, or a single object: ``room``, ``game`` and ``events``, as that viewer
saw them), so a player can check a hand without access to the server.

Prints one verdict line per hand. Exit status: 0 when every hand checked verifies, 1 when
one does not (or Redis cannot be reached), 2 for a bad argument, an unreadable file, an
unknown room or a missing hand.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import redis

from .history import VIEW_ALL, select_hands, split_hands, visible_events
from .history_cli import HistoryError, _connect, _load_snapshot, _read_entries
from .verify import Verdict, verify_hand


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
                     help="a file of hands exported by `cardroom history --format jsonl` ('-': stdin)")
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
    with _connect(ns) as (client, keys):
        snapshot = _load_snapshot(client, keys, args.room)
        if snapshot is None:
            raise HistoryError(f"no room {args.room!r} (list the rooms with: cardroom history)", 2)
        hands = select_hands(split_hands(_read_entries(client, keys, args.room), snapshot.get("seats")), args.hand)
    if not hands:
        raise HistoryError(f"room {args.room} has no hand {args.hand} in its event stream", 2)
    events = [item.event for item in visible_events(hands[0], VIEW_ALL)]
    return (args.room, args.hand), verify_hand(snapshot["game"], args.room, events)


def _file_hands(path: str) -> list[tuple[tuple[str, int], Verdict]]:
    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise HistoryError(f"cannot read {path}: {exc.strerror}", 2) from None
    try:
        objects = [json.loads(text)] if text.lstrip().startswith("{") and "\n{" not in text.strip() else \
            [json.loads(line) for line in text.splitlines() if line.strip()]
    except json.JSONDecodeError as exc:
        raise HistoryError(f"{path} is not JSON (or JSON lines): {exc}", 2) from None
    results = []
    for n, obj in enumerate(objects, 1):
        if not isinstance(obj, dict) or not isinstance(obj.get("events"), list) \
                or not isinstance(obj.get("room"), str) or not isinstance(obj.get("game"), str):
            raise HistoryError(f"{path}: hand {n} is not an exported hand (room, game and events expected)", 2)
        events = [e.get("event", e) if isinstance(e, dict) else e for e in obj["events"]]
        events = [e for e in events if isinstance(e, dict)]
        results.append(((obj["room"], obj.get("hand", obj.get("hand_no", n))), verify_hand(obj["game"], obj["room"], events)))
    return results
