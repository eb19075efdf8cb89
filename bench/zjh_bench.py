"""Zha Jin Hua: compares per second of ``compare_hands`` on random pairs of hands.

    .venv/bin/python bench/zjh_bench.py                 # 1,000,000 pairs, default rules
    .venv/bin/python bench/zjh_bench.py --pairs 200000 --rules suit_tiebreak=true
    .venv/bin/python bench/zjh_bench.py --no-naive      # skip the naive baseline

Prints progress while it runs, then the figure for the table lookup and (unless
``--no-naive``) for a straightforward evaluator that classifies both hands on every
call, measured on the same pairs in the same run, and their ratio.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from collections.abc import Callable, Sequence

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from engine.zhajinhua import Rules, compare_hands  # noqa: E402

Hand = tuple[int, int, int]


def random_pairs(count: int, seed: int) -> list[tuple[Hand, Hand]]:
    """``count`` pairs of disjoint hands, as two players at one table would hold."""
    rng = random.Random(seed)
    deck = list(range(52))
    pairs = []
    for _ in range(count):
        a, b, c, d, e, f = rng.sample(deck, 6)
        pairs.append(((a, b, c), (d, e, f)))
    return pairs


def naive_key(cards: Sequence[int], rules: Rules) -> tuple:
    """Classify a hand from scratch (what a direct implementation does per compare)."""
    ranks = sorted((c >> 2 for c in cards), reverse=True)
    suits = {c & 3 for c in cards}
    hi, mid, lo = ranks
    if hi == lo:
        cat, tie = "trips", (hi,)
    elif hi == mid or mid == lo:
        pair, kicker = (hi, lo) if hi == mid else (mid, hi)
        cat, tie = "pair", (pair, kicker)
    elif hi - lo == 2 or ranks == [12, 1, 0]:
        top = hi * 2 if ranks != [12, 1, 0] else (2 if rules.a23 == "lowest" else 23)
        cat, tie = ("straight_flush" if len(suits) == 1 else "straight"), (top,)
    else:
        cat, tie = ("flush" if len(suits) == 1 else "high_card"), tuple(ranks)
    order = (["high_card", "pair", "straight", "flush", "straight_flush", "trips"]
             if rules.order == "common" else
             ["high_card", "pair", "flush", "straight", "trips", "straight_flush"])
    special = (rules.special_235 != "off" and sorted(ranks) == [0, 1, 3]
               and (len(suits) > 1 if rules.special_235 == "offsuit" else len(suits) == 3))
    return order.index(cat), tie, special


def naive_compare(a: Sequence[int], b: Sequence[int], rules: Rules) -> int:
    ka, kb = naive_key(a, rules), naive_key(b, rules)
    trips = 5 if rules.order == "common" else 4
    if ka[2] and kb[0] == trips:
        return 1
    if kb[2] and ka[0] == trips:
        return -1
    return (ka[:2] > kb[:2]) - (ka[:2] < kb[:2])


def measure(name: str, compare: Callable[[Hand, Hand, Rules], int],
            pairs: list[tuple[Hand, Hand]], rules: Rules, chunks: int = 10) -> float:
    """Compares per second over all pairs, printing progress per chunk."""
    size = max(1, len(pairs) // chunks)
    elapsed = 0.0
    done = 0
    for start in range(0, len(pairs), size):
        chunk = pairs[start:start + size]
        t0 = time.perf_counter()
        for a, b in chunk:
            compare(a, b, rules)
        elapsed += time.perf_counter() - t0
        done += len(chunk)
        print(f"  {name}: {done:>9,}/{len(pairs):,} pairs, "
              f"{done / elapsed:>12,.0f} compares/s so far", flush=True)
    return done / elapsed


def parse_rules(items: list[str]) -> Rules:
    kwargs: dict[str, object] = {}
    for item in items:
        key, _, value = item.partition("=")
        kwargs[key] = value.lower() == "true" if key == "suit_tiebreak" else value
    return Rules(**kwargs)  # type: ignore[arg-type]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rules", nargs="*", default=[], metavar="KEY=VALUE",
                        help="rule options, e.g. a23=second order=probability")
    parser.add_argument("--no-naive", action="store_true", help="skip the naive baseline")
    args = parser.parse_args()

    rules = parse_rules(args.rules)
    print(f"python {sys.version.split()[0]}, rules {rules}")
    t0 = time.perf_counter()
    _ = rules.table
    print(f"rank table for 22,100 hands built in {1000 * (time.perf_counter() - t0):.0f} ms")
    print(f"generating {args.pairs:,} random pairs (seed {args.seed}) ...", flush=True)
    pairs = random_pairs(args.pairs, args.seed)

    if not args.no_naive:
        mismatches = sum(
            (compare_hands(a, b, rules) > 0) - (compare_hands(a, b, rules) < 0)
            != naive_compare(a, b, rules) for a, b in pairs[:20_000])
        print(f"table vs naive on 20,000 pairs: {mismatches} disagreements"
              + (" (the naive baseline ignores suit_tiebreak)" if rules.suit_tiebreak else ""))

    print("table lookup (compare_hands):")
    fast = measure("compare_hands", compare_hands, pairs, rules)
    print(f"compare_hands: {fast:,.0f} compares/s")
    if not args.no_naive:
        naive_pairs = pairs[: max(1, len(pairs) // 5)]
        print("naive baseline (classify both hands on every call):")
        slow = measure("naive", naive_compare, naive_pairs, rules)
        print(f"naive:         {slow:,.0f} compares/s")
        print(f"speed-up:      {fast / slow:.1f}x")


if __name__ == "__main__":
    main()
