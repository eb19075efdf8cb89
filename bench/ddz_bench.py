"""Dou Dizhu move generation: ours vs DouZero (and RLCard where it imports), same run.

    .venv/bin/python bench/ddz_bench.py [--hands 1000] [--seed 7] [--repeat 7] [--chunk 250]

For random 17- and 20-card hands (seeded) it times, per generator:

* ``lead``: the full list of plays a hand may lead;
* ``respond``: the plays that beat a previous play (taken from another random hand,
  a kind chosen uniformly, then a play of that kind), including recognising that
  previous play (our ``classify``; DouZero's ``move_detector.get_move_type``; RLCard's
  ``CARD_TYPE`` lookup).

It prints hands per second (best of ``--repeat``, the generators taking turns so that
load on the machine hits them alike), how many times faster ours is than each (target
>= 2x DouZero), and, checked with our classifier under the default rules, how many plays each
generator emits that are not legal (or do not beat the previous play), duplicates of a
play already emitted, and legal plays it misses. Ours must show 0 invalid, 0 duplicate,
0 missing.

Comparison packages (optional; the bench says so when they are missing):
``pip install --no-deps douzero`` and ``pip install --no-deps rlcard termcolor``
(both also need numpy).
"""

from __future__ import annotations

import argparse
import gc
import random
import sys
import time
from collections import deque
from collections.abc import Callable, Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.doudizhu.movegen import cards_for, legal_plays  # noqa: E402
from engine.doudizhu.plays import BOMB, ROCKET, Play, beats, classify  # noqa: E402
from engine.doudizhu.ranks import RANK_NAMES, counts_from_cards, ddz_rank  # noqa: E402

# DouZero writes ranks as 3..14 (3..A), 17 (2), 20 (black joker), 30 (red joker).
_DOUZERO_VALUE = list(range(3, 15)) + [17, 20, 30]
_FROM_DOUZERO = {v: r for r, v in enumerate(_DOUZERO_VALUE)}


def douzero_cards(cards: Sequence[int]) -> list[int]:
    return sorted(_DOUZERO_VALUE[ddz_rank(c)] for c in cards)


def rlcard_string(cards: Sequence[int]) -> str:
    return "".join(RANK_NAMES[r] for r in sorted(ddz_rank(c) for c in cards))


def counts_of_ranks(ranks: Sequence[int]) -> tuple[int, ...]:
    counts = [0] * 15
    for r in ranks:
        counts[r] += 1
    return tuple(counts)


# --------------------------------------------------------------------------- generators


def load_douzero() -> tuple[Callable, Callable, Callable] | str:
    """DouZero's own legal-move function, ``GameEnv.get_legal_card_play_actions``
    (MovesGener, move_detector.get_move_type, move_selector filters, sorted moves and
    the pass ``[]``), called on a minimal stand-in for its game object."""
    try:
        from douzero.env.game import GameEnv
    except Exception as exc:  # noqa: BLE001 - report any import failure
        return f"douzero not importable ({type(exc).__name__}: {exc}); pip install --no-deps douzero"

    def position(hand: list[int], rival: list[int] | None) -> SimpleNamespace:
        return SimpleNamespace(
            info_sets={"landlord": SimpleNamespace(player_hand_cards=hand)},
            acting_player_position="landlord",
            card_play_action_seq=[] if rival is None else [rival])

    def moves(env: SimpleNamespace) -> list[list[int]]:
        return GameEnv.get_legal_card_play_actions(env)

    return position, moves, lambda found: [m for m in found if m]  # drop the pass


def load_rlcard() -> tuple[Callable, Callable, int] | str:
    try:
        from rlcard.games.doudizhu.judger import DoudizhuJudger
        from rlcard.games.doudizhu.utils import CARD_TYPE, get_gt_cards
    except Exception as exc:  # noqa: BLE001 - report any import failure
        return (f"rlcard not importable ({type(exc).__name__}: {exc}); "
                "pip install --no-deps rlcard termcolor")

    def card_objects(text: str) -> list[Any]:
        return [SimpleNamespace(rank="", suit=ch + "J") if ch in "BR"
                else SimpleNamespace(rank=ch, suit="S") for ch in text]

    def lead(hand: str) -> list[str]:
        return list(DoudizhuJudger.playable_cards_from_hand(hand))

    def respond(hand: str, rival: str) -> list[str]:
        player = SimpleNamespace(current_hand=card_objects(hand))
        gt = get_gt_cards(player, SimpleNamespace(played_cards=rival))
        return [m for m in gt if m != "pass"]

    return lead, respond, len(CARD_TYPE[0])


# --------------------------------------------------------------------------- checking


def audit(moves_counts: list[tuple[int, ...]], hand_counts: tuple[int, ...],
          prev: Play | None) -> tuple[int, int, int]:
    """(invalid, duplicate, missing) of one generator's output for one position."""
    seen: set[tuple[int, ...]] = set()
    invalid = duplicate = 0
    for counts in moves_counts:
        play = classify(counts) if all(0 <= n <= 4 for n in counts) and counts[13] <= 1 \
            and counts[14] <= 1 else None
        if play is None or (prev is not None and not beats(play, prev)) or any(
                n > h for n, h in zip(counts, hand_counts, strict=True)):
            invalid += 1
        elif counts in seen:
            duplicate += 1
        else:
            seen.add(counts)
    truth = {p.counts for p in legal_plays(hand_counts, prev)}
    return invalid, duplicate, len(truth - seen)


def random_prev(rng: random.Random) -> tuple[Play, list[int]]:
    """A previous play: a random kind (not bomb/rocket), then a random play of it."""
    other = rng.sample(range(54), 17)
    by_kind: dict[str, list[Play]] = {}
    for p in legal_plays(other):
        if p.kind not in (BOMB, ROCKET):
            by_kind.setdefault(p.kind, []).append(p)
    kind = rng.choice(sorted(by_kind))
    play = rng.choice(by_kind[kind])
    return play, cards_for(play, other)


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hands", type=int, default=1000, help="hands per hand size")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--repeat", type=int, default=7, help="timing rounds, best kept per chunk")
    ap.add_argument("--chunk", type=int, default=250, help="positions per timed chunk")
    args = ap.parse_args(argv)

    douzero = load_douzero()
    rlcard = load_rlcard()
    print(f"python {sys.version.split()[0]}; {args.hands} hands per size; seed {args.seed}")
    if isinstance(douzero, str):
        print(douzero)
    if isinstance(rlcard, str):
        print(rlcard)
    else:
        print(f"rlcard action table: {rlcard[2]} entries (ours: 27,471 plays + pass)")

    for size in (17, 20):
        bench_size(size, args, douzero, rlcard)


def bench_size(size: int, args: argparse.Namespace, douzero: Any, rlcard: Any) -> None:
    rng = random.Random(f"{args.seed}-{size}")
    hands = [rng.sample(range(54), size) for _ in range(args.hands)]
    prevs = [random_prev(rng) for _ in range(args.hands)]
    prev_plays = [p for p, _ in prevs]
    prev_cards = [c for _, c in prevs]
    hand_counts = [counts_from_cards(h) for h in hands]
    n = len(hands)

    # (generator, task, function, its arguments per position, output -> counts,
    #  prev plays to audit against, positions it runs)
    Job = tuple[str, str, Callable[..., list[Any]], list[tuple[Any, ...]],
                Callable[[Any], tuple[int, ...]], list[Play] | None, list[int]]
    jobs: list[Job] = []
    everyone = list(range(n))
    jobs.append(("ours", "lead", legal_plays, [(h,) for h in hands],
                 lambda p: p.counts, None, everyone))
    jobs.append(("ours", "respond", legal_plays, list(zip(hands, prev_cards, strict=True)),
                 lambda p: p.counts, prev_plays, everyone))
    if not isinstance(douzero, str):
        dz_position, dz_moves, dz_plays = douzero
        dz_hands = [douzero_cards(h) for h in hands]
        dz_prevs = [douzero_cards(c) for c in prev_cards]
        jobs.append(("douzero", "lead", dz_moves, [(dz_position(h, None),) for h in dz_hands],
                     douzero_counts, None, everyone))
        jobs.append(("douzero", "respond", dz_moves,
                     [(dz_position(h, r),) for h, r in zip(dz_hands, dz_prevs, strict=True)],
                     douzero_counts, prev_plays, everyone))
    if not isinstance(rlcard, str):
        rl_lead, rl_respond, _ = rlcard
        rl_hands = [rlcard_string(h) for h in hands]
        rl_prevs = [rlcard_string(c) for c in prev_cards]
        known = []
        for i in everyone:
            try:
                rl_respond(rl_hands[i], rl_prevs[i])
                known.append(i)
            except KeyError:  # RLCard does not know this previous play
                pass
        if len(known) < n:
            print(f"  rlcard: {n - len(known)} of {n} previous plays not in its action table "
                  "(skipped; its respond rate counts only the others)")
        jobs.append(("rlcard", "lead", rl_lead, [(h,) for h in rl_hands],
                     rlcard_counts, None, everyone))
        jobs.append(("rlcard", "respond", rl_respond, list(zip(rl_hands, rl_prevs, strict=True)),
                     rlcard_counts, prev_plays, known))

    # Timing: positions are cut into chunks; for each chunk the generators take turns,
    # --repeat rounds, and each keeps its best time per chunk. Load from other processes
    # then hits every generator alike, and the sums approach the unloaded speeds.
    # The garbage collector is off while timing, as in ``timeit``.
    chunks = [everyone[i:i + args.chunk] for i in range(0, n, args.chunk)]
    best = [[float("inf")] * len(chunks) for _ in jobs]
    gc.collect()
    gc.disable()
    for _ in range(max(args.repeat, 1)):
        for c, chunk in enumerate(chunks):
            for j, (_, _, fn, fn_args, _, _, which) in enumerate(jobs):
                allowed = set(which)
                columns = list(zip(*(fn_args[i] for i in chunk if i in allowed), strict=True))
                t0 = time.perf_counter()
                deque(map(fn, *columns), maxlen=0)  # calls from C: no loop overhead
                best[j][c] = min(best[j][c], time.perf_counter() - t0)
    gc.enable()
    outputs = [[fn(*fn_args[i]) for i in which] for _, _, fn, fn_args, _, _, which in jobs]
    if not isinstance(douzero, str):
        for j, job in enumerate(jobs):
            if job[0] == "douzero":
                outputs[j] = [douzero[2](found) for found in outputs[j]]

    print(f"\n{size}-card hands ({n} positions; previous plays: {kind_mix(prev_plays)})")
    print(f"  {'generator':<9} {'task':<8} {'hands/s':>10} {'plays':>9} {'invalid':>8} "
          f"{'duplicate':>9} {'missing':>8} {'ours is':>8}")
    rate: dict[tuple[str, str], float] = {}
    for j, (who, task, _, _, to_counts, audit_prevs, which) in enumerate(jobs):
        rate[who, task] = len(which) / sum(best[j])
        inv, dup, miss = tally(outputs[j], [hand_counts[i] for i in which],
                               None if audit_prevs is None else [audit_prevs[i] for i in which],
                               to_counts)
        plays = sum(map(len, outputs[j]))
        print(f"  {who:<9} {task:<8} {rate[who, task]:>10.0f} {plays:>9} {inv:>8} {dup:>9} "
              f"{miss:>8} {rate['ours', task] / rate[who, task]:>7.2f}x")
    for task in ("lead", "respond"):
        if ("douzero", task) in rate:
            speedup = rate["ours", task] / rate["douzero", task]
            verdict = "meets" if speedup >= 2 else "MISSES"
            print(f"  ours vs douzero, {task}: {speedup:.2f}x faster ({verdict} the 2x target)")


def kind_mix(plays: list[Play]) -> str:
    counts: dict[str, int] = {}
    for p in plays:
        counts[p.kind] = counts.get(p.kind, 0) + 1
    return ", ".join(f"{k} {v}" for k, v in sorted(counts.items(), key=lambda kv: -kv[1]))


def douzero_counts(move: list[int]) -> tuple[int, ...]:
    return counts_of_ranks([_FROM_DOUZERO[v] for v in move])


def rlcard_counts(move: str) -> tuple[int, ...]:
    return counts_of_ranks([RANK_NAMES.index(ch) for ch in move])


def tally(outputs: list[list[Any]], hand_counts: list[tuple[int, ...]],
          prevs: list[Play] | None, to_counts: Callable[[Any], tuple[int, ...]]
          ) -> tuple[int, int, int]:
    totals = [0, 0, 0]
    for i, moves in enumerate(outputs):
        result = audit([to_counts(m) for m in moves], hand_counts[i],
                       None if prevs is None else prevs[i])
        for j in range(3):
            totals[j] += result[j]
    return totals[0], totals[1], totals[2]


if __name__ == "__main__":
    main()
