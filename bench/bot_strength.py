"""How much stronger is each ``smart`` bot than ``random``? Engine only, no server.

    .venv/bin/python bench/bot_strength.py            # full run (a few minutes)
    .venv/bin/python bench/bot_strength.py --quick    # a smaller sample (~20 s)
    .venv/bin/python bench/bot_strength.py --seed 7 --markdown

* Hold'em: smart heads-up against random, and smart against five random players
  (blinds 1/2, 100 big blinds each hand): big blinds won per 100 hands, 95% CI.
* Zha Jin Hua: smart against two random players (ante 10, max stake 100, 2,000
  chips each hand): chips won per hand, 95% CI.
* Dou Dizhu: smart against two random players (score bidding, stake 10): games won
  as landlord and as peasant, next to the random players' rates in the same games.

Every matchup is seeded, so a run is reproducible. Progress goes to stderr, the table
to stdout.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from client_demo.bots_cli import Progress, format_table  # noqa: E402
from engine.bots.arena import SimStats, simulate  # noqa: E402


def wilson(wins: int, games: int) -> tuple[float, float]:
    """95% Wilson interval of a win rate."""
    if games == 0:
        return 0.0, 1.0
    z = 1.96
    p = wins / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return max(0.0, centre - half), min(1.0, centre + half)


def run(game: str, names: list[str], hands: int, seed: int, label: str) -> tuple[SimStats, float]:
    progress = Progress(hands)
    print(f"{label}: {hands} hands", file=sys.stderr)
    started = time.perf_counter()
    stats = simulate(game, names, hands, seed=seed, progress=lambda d, _s: progress.update(d))
    progress.finish()
    return stats, time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="smaller samples")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    args = parser.parse_args(argv)
    scale = 0.1 if args.quick else 1.0
    n_hu, n_six, n_zjh, n_ddz = (max(200, int(n * scale)) for n in (20000, 6000, 10000, 4000))

    rows: list[list[str]] = []
    hu, t1 = run("holdem", ["smart", "random"], n_hu, args.seed, "Hold'em heads-up")
    bb, ci = hu.bb_per_100(0)
    rows.append(["Hold'em", "smart vs 1 random", f"{n_hu}", "bb/100", f"{bb:+.0f} ± {ci:.0f}",
                 f"{n_hu / t1:.0f} hands/s"])
    six, t2 = run("holdem", ["smart"] + ["random"] * 5, n_six, args.seed + 1, "Hold'em 6-max")
    bb, ci = six.bb_per_100(0)
    rows.append(["Hold'em", "smart vs 5 random", f"{n_six}", "bb/100", f"{bb:+.0f} ± {ci:.0f}",
                 f"{n_six / t2:.0f} hands/s"])
    zjh, t3 = run("zhajinhua", ["smart", "random", "random"], n_zjh, args.seed + 2, "Zha Jin Hua")
    mean, half = zjh.per_hand(0)
    rows.append(["Zha Jin Hua", "smart vs 2 random", f"{n_zjh}", "chips/hand (ante 10)",
                 f"{mean:+.1f} ± {half:.1f}", f"{n_zjh / t3:.0f} hands/s"])
    ddz, t4 = run("doudizhu", ["smart", "random", "random"], n_ddz, args.seed + 3, "Dou Dizhu")
    for role in ("landlord", "peasant"):
        rate, games = ddz.win_rate(0, role)
        wins = round(rate * games)
        lo, hi = wilson(wins, games)
        r_wins = sum((ddz.landlord_wins if role == "landlord" else ddz.peasant_wins)[s] for s in (1, 2))
        r_games = sum((ddz.landlord_games if role == "landlord" else ddz.peasant_games)[s] for s in (1, 2))
        rows.append(["Dou Dizhu", f"smart as {role}", f"{games}", "win rate",
                     f"{rate:.1%} ({lo:.0%}-{hi:.0%})",
                     f"random as {role}: {r_wins / max(1, r_games):.1%} of {r_games}"])
    rows.append(["Dou Dizhu", "all seats", f"{n_ddz}", "games/s", f"{n_ddz / t4:.0f}", ""])

    headers = ["game", "matchup", "hands", "measure", "smart (95% CI)", "note"]
    if args.markdown:
        print("| " + " | ".join(headers) + " |")
        print("|" + "|".join("---" for _ in headers) + "|")
        for r in rows:
            print("| " + " | ".join(r) + " |")
    else:
        print(format_table(headers, rows))
    print(f"(seed {args.seed}{', quick' if args.quick else ''})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
