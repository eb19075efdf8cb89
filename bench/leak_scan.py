"""Leak scan: bot-played hands of each game, every message each seat and a spectator
receives checked against what the rules let that viewer see.

    .venv/bin/python bench/leak_scan.py --hands 10000
    .venv/bin/python bench/leak_scan.py --hands 2000 --game zhajinhua --seed 3
    .venv/bin/python bench/leak_scan.py --hands 10000 --no-reseat --json leaks.json

In-process and fast: the server's room core and view code render exactly what the
server sends each connection (``bench/soak/rooms.py``); what each viewer may see comes
from the game documents' rules (``bench/soak/leaks.py``): other players' hole cards,
Zha Jin Hua hands and Dou Dizhu hands and bottom cards stay hidden until the rules
reveal them (showdown; a compare, to its two players; the landlord's bottom cards;
mucked hands never), and the deck order never shows.

``--no-reseat`` keeps newcomers out of the seats of the hand just played until the next
deal (by default they often sit down in them while the room still shows that hand: the
scan found the server sending them the cards dealt to that seat, fixed in
``server/room/view.py``; ``tests/soak/test_leak_scan.py`` keeps it fixed).
Prints, per game: hands scanned, rooms, changes, messages checked, the revealing events
seen, and violations by kind with examples. Exit status 0 only without violations.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import time
from collections.abc import Sequence
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.soak.rooms import GameScan, scan_game  # noqa: E402
from server.games import GAMES  # noqa: E402

REVEALING = ("showdown", "compare", "look", "landlord", "redeal", "hand_over", "timed_out", "leaving", "joined")
EXAMPLES = 3


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--hands", type=int, default=10_000, help="hands of each game (default 10000)")
    p.add_argument("--game", default="all", choices=[*GAMES, "all"], help="one game, or all (default)")
    p.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    p.add_argument("--per-room", type=int, default=200, help="hands per room before a fresh one (default 200)")
    p.add_argument("--no-reseat", action="store_true",
                   help="newcomers never take a seat of the last hand before the next deal")
    p.add_argument("--json", help="write the figures to this file")
    args = p.parse_args(argv)
    if args.hands < 1 or args.per_room < 1:
        p.error("--hands and --per-room must be positive")
    return args


def summary(scan: GameScan, seconds: float) -> dict[str, Any]:
    """One game's figures, as printed and as written with ``--json``."""
    return {
        "game": scan.game, "hands": scan.hands, "rooms": scan.rooms, "changes": scan.changes,
        "messages": scan.messages, "seconds": round(seconds, 1),
        "revealing_events": {k: scan.events[k] for k in REVEALING if scan.events[k]},
        "violations": len(scan.violations), "by_kind": dict(scan.scanner.counts),
        "examples": [str(v) for v in _examples(scan)],
    }


def _examples(scan: GameScan) -> list[Any]:
    """The first violation of each kind and path (up to :data:`EXAMPLES`)."""
    seen: set[tuple[str, str]] = set()
    out = []
    for v in scan.violations:
        key = (v.kind, v.path.split("[")[0])
        if key not in seen:
            seen.add(key)
            out.append(v)
        if len(out) == EXAMPLES:
            break
    return out


def format_summary(figures: dict[str, Any]) -> str:
    lines = [
        f"== {figures['game']} ==",
        f"hands scanned      {figures['hands']:,} in {figures['rooms']} rooms ({figures['changes']:,} changes, "
        f"{figures['seconds']} s)",
        f"messages checked   {figures['messages']:,}",
        "revealing events   " + ", ".join(f"{k} {v:,}" for k, v in figures["revealing_events"].items()),
        f"violations         {figures['violations']:,}"
        + (f" ({', '.join(f'{k} {v:,}' for k, v in figures['by_kind'].items())})" if figures["by_kind"] else ""),
    ]
    for example in figures["examples"]:
        lines.append("  e.g. " + example.replace("\n", "\n  "))
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    logging.getLogger("server.room.core").setLevel(logging.ERROR)  # "cannot deal a hand" is routine here
    games = list(GAMES) if args.game == "all" else [args.game]
    results = []
    for name in games:
        print(f"scanning {args.hands:,} hands of {name}...", flush=True)
        started = time.monotonic()
        scan = scan_game(GAMES[name], args.hands, args.seed, args.per_room, reseat=not args.no_reseat)
        figures = summary(scan, time.monotonic() - started)
        results.append(figures)
        print(format_summary(figures), flush=True)
    total = sum(r["violations"] for r in results)
    note = " (newcomers kept out of the last hand's seats)" if args.no_reseat else ""
    print(f"RESULT: {'PASS' if total == 0 else 'FAIL'}: {total:,} violations in "
          f"{sum(r['messages'] for r in results):,} messages of {sum(r['hands'] for r in results):,} hands{note}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"seed": args.seed, "reseat": not args.no_reseat, "games": results}, f, indent=2)
    return 0 if total == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
