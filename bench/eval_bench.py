"""Hand-evaluator benchmark: ours (pure Python and NumPy batch) against treys and eval7.

    .venv/bin/python bench/eval_bench.py            # full run (well under 2 minutes)
    .venv/bin/python bench/eval_bench.py --quick    # a few seconds

Every contender evaluates the same random 7-card hands (seeded) in the same run. It
prints: how long our tables take to build (that happens at import), how many of
100,000 random pairs of hands our ordering disagrees with treys and with eval7 on
(must be 0), hands/s for each contender and the ratios against the targets of the
issue (pure Python >= 15x treys per call, batch >= 5x eval7 per hand).

Speeds are CPU time of the process (``time.process_time``), best of many short passes
over 10,000-hand slices, the contenders taking turns on each slice (each timed pass
after an untimed warm-up pass): other load on a shared machine then skews them less,
and alike.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

RANK_CHARS = "23456789TJQKA"
SUIT_CHARS = "cdhs"
NAMES = [r + s for r in RANK_CHARS for s in SUIT_CHARS]
TREYS_TARGET = 15.0
EVAL7_TARGET = 5.0
SLICE = 10_000  # hands per timed pass


def say(text: str) -> None:
    print(text, flush=True)


def rate(run: Callable[[], object], count: int) -> float:
    """Hands/s of one call of ``run``, which evaluates ``count`` hands (CPU time).

    ``run`` runs once untimed first, so every contender finds its data in the caches.
    """
    run()
    start = time.process_time()
    run()
    return count / max(time.process_time() - start, 1e-9)


def random_hands(count: int, seed: int) -> list[tuple[int, ...]]:
    rng = random.Random(seed)
    deck = range(52)
    return [tuple(rng.sample(deck, 7)) for _ in range(count)]


def sign(x: int) -> int:
    return (x > 0) - (x < 0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, a few seconds")
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args(argv)
    pairs = 10_000 if args.quick else 100_000
    timed = 20_000 if args.quick else 200_000
    rounds = 5 if args.quick else 3

    say(f"Python {sys.version.split()[0]}; {'quick' if args.quick else 'full'} run, "
        f"seed {args.seed}")

    start = time.perf_counter()
    from engine.holdem import tables
    from engine.holdem.evaluator import evaluate, evaluate7
    say(f"[1/6] import engine.holdem.evaluator: {time.perf_counter() - start:.3f} s "
        "(includes the package and its table build)")
    start = time.perf_counter()
    tables._hand_classes()
    tables._flush_values()
    tables._nonflush_values()
    say(f"      table build alone (rebuilt here): {time.perf_counter() - start:.3f} s")

    import eval7
    import numpy as np
    from treys import Card, Evaluator

    from engine.holdem.batch import _nonflush_lut, evaluate_many
    start = time.perf_counter()
    _nonflush_lut(7)
    say(f"      batch 7-card lookup array, built on first use: "
        f"{time.perf_counter() - start:.3f} s")

    n_hands = max(2 * pairs, timed)
    say(f"[2/6] dealing {n_hands:,} random 7-card hands and converting them for "
        "treys and eval7 ...")
    hands = random_hands(n_hands, args.seed)
    treys_cards = [Card.new(name) for name in NAMES]
    eval7_cards = [eval7.Card(name) for name in NAMES]
    treys_hands = [([treys_cards[c] for c in h[:2]], [treys_cards[c] for c in h[2:]])
                   for h in hands]
    eval7_hands = [[eval7_cards[c] for c in h] for h in hands]
    treys = Evaluator()

    say(f"[3/6] ordering check on {pairs:,} random pairs of hands ...")
    ours = [evaluate(h) for h in hands[:2 * pairs]]
    theirs_treys = [treys.evaluate(hole, board) for hole, board in treys_hands[:2 * pairs]]
    theirs_eval7 = [eval7.evaluate(h) for h in eval7_hands[:2 * pairs]]
    ours_batch = evaluate_many(np.array(hands[:2 * pairs], dtype=np.intp)).tolist()
    vs_treys = sum(sign(ours[i] - ours[i + 1]) != sign(theirs_treys[i + 1] - theirs_treys[i])
                   for i in range(0, 2 * pairs, 2))  # treys: lower is better
    vs_eval7 = sum(sign(ours[i] - ours[i + 1]) != sign(theirs_eval7[i] - theirs_eval7[i + 1])
                   for i in range(0, 2 * pairs, 2))
    batch_differs = sum(a != b for a, b in zip(ours, ours_batch, strict=True))
    say(f"      disagreements with treys: {vs_treys}   with eval7: {vs_eval7}   "
        f"evaluate_many != evaluate: {batch_differs}   (all must be 0)")

    slices = [slice(i, i + SLICE) for i in range(0, timed, SLICE)]
    say(f"[4/6] pure Python: {timed:,} hands in slices of {SLICE:,}, {rounds} rounds; each "
        "contender timed on every slice in turn, best slice kept ...")

    def ours_per_call(part: slice) -> None:
        for h in hands[part]:
            evaluate(h)

    def ours_seven_args(part: slice) -> None:
        for a, b, c, d, e, f, g in hands[part]:
            evaluate7(a, b, c, d, e, f, g)

    def treys_per_call(part: slice) -> None:
        for hole, board in treys_hands[part]:
            treys.evaluate(hole, board)

    def eval7_per_call(part: slice) -> None:
        for h in eval7_hands[part]:
            eval7.evaluate(h)

    contenders = {"ours evaluate(cards)": ours_per_call,
                  "ours evaluate7(a, ..., g)": ours_seven_args,
                  "treys Evaluator.evaluate": treys_per_call,
                  "eval7.evaluate (Cython)": eval7_per_call}
    best = dict.fromkeys(contenders, 0.0)
    for round_no in range(rounds):
        for part in slices:
            for name, run in contenders.items():
                best[name] = max(best[name], rate(lambda: run(part), SLICE))  # noqa: B023
        say(f"      after round {round_no + 1}/{rounds}, best so far: " + ", ".join(
            f"{name.split('(')[0].strip()} {value / 1e6:.2f}M/s" for name, value in best.items()))
    for name, value in best.items():
        say(f"      {name:<32}{value:>14,.0f} hands/s")
    rate_ours = best["ours evaluate(cards)"]
    rate_ours7 = best["ours evaluate7(a, ..., g)"]
    rate_treys = best["treys Evaluator.evaluate"]
    rate_eval7 = best["eval7.evaluate (Cython)"]

    batch_passes = 5 * rounds
    say(f"[5/6] NumPy batch: one array of the same {timed:,} hands (int64, shape "
        f"({timed}, 7)), best of {batch_passes} ...")
    rows = np.array(hands[:timed], dtype=np.int64)
    rate_batch = rate_unchecked = 0.0
    for _ in range(batch_passes):
        rate_batch = max(rate_batch, rate(lambda: evaluate_many(rows), timed))
        rate_unchecked = max(rate_unchecked,
                             rate(lambda: evaluate_many(rows, check=False), timed))
    say(f"      {'ours evaluate_many(hands)':<32}{rate_batch:>14,.0f} hands/s")
    say(f"      {'ours evaluate_many(check=False)':<32}{rate_unchecked:>14,.0f} hands/s")

    say("[6/6] against the targets")
    ratio = rate_ours / rate_treys
    ratio7 = rate_ours7 / rate_treys
    batch_ratio = rate_batch / rate_eval7
    ok = ratio >= TREYS_TARGET and batch_ratio >= EVAL7_TARGET
    ok = ok and vs_treys == 0 and vs_eval7 == 0 and batch_differs == 0
    say(f"      evaluate per call   / treys  = {ratio:6.1f}x  (target >= {TREYS_TARGET:.0f}x) "
        f"{'ok' if ratio >= TREYS_TARGET else 'BELOW TARGET'}")
    say(f"      evaluate7 unpacked  / treys  = {ratio7:6.1f}x")
    say(f"      evaluate per call   / eval7  = {rate_ours / rate_eval7:6.2f}x")
    say(f"      evaluate_many       / eval7  = {batch_ratio:6.1f}x  "
        f"(target >= {EVAL7_TARGET:.0f}x) {'ok' if batch_ratio >= EVAL7_TARGET else 'BELOW TARGET'}")
    say(f"      ordering disagreements: {vs_treys + vs_eval7 + batch_differs}")
    say("all targets met" if ok else "SOME TARGET MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
