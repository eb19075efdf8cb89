"""How much stronger is each smart bot than random players and a calling station? Engine only.

    .venv/bin/python bench/bot_strength.py            # full run (a few minutes)
    .venv/bin/python bench/bot_strength.py --quick    # a smaller sample (~30 s)
    .venv/bin/python bench/bot_strength.py --seed 7 --markdown

* Hold'em: smart heads-up against random and against a calling station (checks or
  calls everything), and smart against five random players (blinds 1/2, 100 big
  blinds each hand): chips and big blinds won per 100 hands, 95% CI.
* Zha Jin Hua (ante 10, max stake 100, 2,000 chips each hand): smart against two
  random players, against one and two calling stations (look, then call every round),
  and three smart players (hand length only): chips won per hand, 95% CI.
* Dou Dizhu: smart against two random players (score bidding, stake 10): games won
  as landlord and as peasant, next to the random players' rates in the same games.

Every row also gives the average hand length in betting rounds (Hold'em: streets
reached, 1-4; Zha Jin Hua: rounds, with the longest hand and how many hands reached
the max_rounds cap of 20) and actions per hand. Every matchup is seeded, so a run is
reproducible. Progress goes to stderr, the table to stdout.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from client_demo.tools.bots_cli import Progress, format_table  # noqa: E402
from engine.bots.arena import SimStats, simulate  # noqa: E402

HEADERS = ["game", "matchup", "hands", "smart: chips/hand (95% CI)", "measure", "smart (95% CI)",
           "rounds/hand (max, at cap)", "actions/hand", "note"]


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


def length(stats: SimStats) -> str:
    capped = f", {stats.capped} at cap" if stats.game == "zhajinhua" else ""
    return f"{stats.rounds_per_hand():.2f} (max {stats.max_rounds}{capped})"


def chips(stats: SimStats, seat: int = 0) -> str:
    mean, half = stats.per_hand(seat)
    return f"{mean:+.1f} ± {half:.1f}"


def matchup_rows(stats: SimStats, game: str, matchup: str, seconds: float) -> list[str]:
    """One table row: chips per hand, the game's own measure, hand length, speed."""
    if game == "Hold'em":
        bb, ci = stats.bb_per_100(0)
        measure, value = "bb/100", f"{bb:+.0f} ± {ci:.0f}"
    else:
        measure, value = "", ""
    return [game, matchup, f"{stats.hands}", chips(stats), measure, value, length(stats),
            f"{stats.actions_per_hand():.1f}", f"{stats.hands / seconds:.0f} hands/s"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="a 10%% sample (at least 200 hands a matchup)")
    parser.add_argument("--seed", type=int, default=2026, help="seed of the first matchup (default 2026)")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    args = parser.parse_args(argv)
    scale = 0.1 if args.quick else 1.0
    n_hu, n_six, n_zjh, n_ddz = (max(200, int(n * scale)) for n in (20000, 6000, 10000, 4000))

    rows: list[list[str]] = []
    seed = args.seed
    for game, names, hands, label in [
        ("holdem", ["smart", "random"], n_hu, "smart vs 1 random"),
        ("holdem", ["smart", "calling_station"], n_hu, "smart vs 1 calling station"),
        ("holdem", ["smart"] + ["random"] * 5, n_six, "smart vs 5 random"),
        ("zhajinhua", ["smart", "random", "random"], n_zjh, "smart vs 2 random"),
        ("zhajinhua", ["smart", "calling_station"], n_zjh, "smart vs 1 calling station"),
        ("zhajinhua", ["smart", "calling_station", "calling_station"], n_zjh, "smart vs 2 calling stations"),
        ("zhajinhua", ["smart", "smart", "smart"], n_zjh, "3 smart (seat 0)"),
    ]:
        pretty = "Hold'em" if game == "holdem" else "Zha Jin Hua"
        stats, secs = run(game, names, hands, seed, f"{pretty} {label}")
        row = matchup_rows(stats, pretty, label, secs)
        if names.count("calling_station") > 1:
            row[-1] += "; once smart folds the stations call on to the cap"
        rows.append(row)
        seed += 1
    ddz, t4 = run("doudizhu", ["smart", "random", "random"], n_ddz, seed, "Dou Dizhu")
    for role in ("landlord", "peasant"):
        rate, games = ddz.win_rate(0, role)
        wins = round(rate * games)
        lo, hi = wilson(wins, games)
        r_wins = sum((ddz.landlord_wins if role == "landlord" else ddz.peasant_wins)[s] for s in (1, 2))
        r_games = sum((ddz.landlord_games if role == "landlord" else ddz.peasant_games)[s] for s in (1, 2))
        rows.append(["Dou Dizhu", f"smart as {role}", f"{games}", "", "win rate",
                     f"{rate:.1%} ({lo:.0%}-{hi:.0%})", "", "",
                     f"random as {role}: {r_wins / max(1, r_games):.1%} of {r_games}"])
    rows.append(["Dou Dizhu", "smart vs 2 random", f"{n_ddz}", chips(ddz), "", "", "",
                 f"{ddz.actions_per_hand():.1f}", f"{n_ddz / t4:.0f} games/s"])

    if args.markdown:
        print("| " + " | ".join(HEADERS) + " |")
        print("|" + "|".join("---" for _ in HEADERS) + "|")
        for r in rows:
            print("| " + " | ".join(r) + " |")
    else:
        print(format_table(HEADERS, rows))
    print(f"(seed {args.seed}{', quick' if args.quick else ''}; Hold'em rounds are streets reached, "
          f"Zha Jin Hua's cap is 20 rounds)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
