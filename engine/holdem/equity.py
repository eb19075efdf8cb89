"""Hold'em hand strength for the bots: the Chen formula and Monte Carlo equity.

:func:`chen_score` rates two hole cards before the flop. :func:`equity` estimates the
share of the pot a hand wins against ``opponents`` unknown hands by dealing out the
rest of the board and the opponents' cards at random: with NumPy it uses the engine's
batch evaluator (``engine.holdem.batch.evaluate_many``) when that is importable, and
otherwise a small pure-Python seven-card ranker defined here (only the order of hand
values matters, so any exact ranker gives the same results).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

SIMULATIONS = 300

# ------------------------------------------------------------------ pre-flop


def chen_score(hole: Sequence[int]) -> float:
    """Bill Chen's pre-flop score of two hole cards (from -1 for 72o up to 20 for AA).

    Highest card: A 10, K 8, Q 7, J 6, else half its face value; pairs double it (at
    least 5); suited +2; gaps between the ranks -1, -2, -4, -5; +1 for connected or
    one-gap cards below a queen. Rounded up to a whole number, as Chen does.
    """
    r1, r2 = sorted((c >> 2 for c in hole), reverse=True)
    points = {12: 10.0, 11: 8.0, 10: 7.0, 9: 6.0}
    score = points.get(r1, (r1 + 2) / 2)
    if r1 == r2:
        return float(max(5, int(-(-score * 2 // 1))))
    if (hole[0] & 3) == (hole[1] & 3):
        score += 2
    gap = r1 - r2 - 1
    score -= {0: 0, 1: 1, 2: 2, 3: 4}.get(gap, 5)
    if gap <= 1 and r1 < 10:
        score += 1
    return float(-(-score // 1))


# ------------------------------------------------------------------ a small 7-card ranker

_CAT = 1 << 20


def _top_ranks(mask: int, count: int) -> int:
    packed = 0
    taken = 0
    for r in range(12, -1, -1):
        if mask >> r & 1:
            packed = packed << 4 | r
            taken += 1
            if taken == count:
                break
    return packed << 4 * (count - taken)


def _straight_high(mask: int) -> int:
    """1 + the top rank of the best straight in a rank mask, or 0."""
    for top in range(12, 3, -1):
        if (mask >> (top - 4)) & 0x1F == 0x1F:
            return top + 1
    if mask & 0x100F == 0x100F:  # A-2-3-4-5
        return 4
    return 0


_STRAIGHT = [_straight_high(m) for m in range(1 << 13)]
_TOP5 = [_top_ranks(m, 5) for m in range(1 << 13)]
_POPCOUNT = [bin(m).count("1") for m in range(1 << 13)]


def hand_value(cards: Sequence[int]) -> int:
    """A number ordering 5 to 7-card poker hands: higher is better, equal ties."""
    counts = [0] * 13
    suits = [0, 0, 0, 0]
    for c in cards:
        counts[c >> 2] += 1
        suits[c & 3] |= 1 << (c >> 2)
    for m in suits:
        if _POPCOUNT[m] >= 5:
            high = _STRAIGHT[m]
            if high:
                return 8 * _CAT + high
            flush = 5 * _CAT + _TOP5[m]
            break
    else:
        flush = 0
    quads = trips = pair1 = pair2 = -1
    singles = 0
    for r in range(12, -1, -1):
        n = counts[r]
        if n == 4:
            quads = r
        elif n == 3:
            if trips < 0:
                trips = r
            elif pair1 < 0:
                pair1 = r
        elif n == 2:
            if pair1 < 0:
                pair1 = r
            elif pair2 < 0:
                pair2 = r
            else:
                singles |= 1 << r
        elif n == 1:
            singles |= 1 << r
    if quads >= 0:
        rest = singles | (1 << trips if trips >= 0 else 0) | (1 << pair1 if pair1 >= 0 else 0)
        return 7 * _CAT + (quads << 4) + (_TOP5[rest] >> 16)
    if trips >= 0 and pair1 >= 0:
        return 6 * _CAT + (trips << 4) + pair1
    if flush:
        return flush
    mask = suits[0] | suits[1] | suits[2] | suits[3]
    high = _STRAIGHT[mask]
    if high:
        return 4 * _CAT + high
    if trips >= 0:
        return 3 * _CAT + (trips << 8) + (_TOP5[singles] >> 12)
    if pair1 >= 0 and pair2 >= 0:
        return 2 * _CAT + (pair1 << 8) + (pair2 << 4) + (_TOP5[singles] >> 16)
    if pair1 >= 0:
        return 1 * _CAT + (pair1 << 12) + (_TOP5[singles] >> 8)
    return _TOP5[singles]


# ------------------------------------------------------------------ Monte Carlo equity


def _batch_evaluator() -> Callable | None:
    try:
        import numpy  # noqa: F401

        from engine.holdem.batch import evaluate_many
    except Exception:  # NumPy or the batch module is not available
        return None
    return evaluate_many


_EVALUATE_MANY: list = []


def batch_evaluator() -> Callable | None:
    """The engine's NumPy ``evaluate_many``, or ``None`` when unavailable (cached)."""
    if not _EVALUATE_MANY:
        _EVALUATE_MANY.append(_batch_evaluator())
    return _EVALUATE_MANY[0]


def equity(hole: Sequence[int], board: Sequence[int], opponents: int, rng: random.Random,
           simulations: int = SIMULATIONS, use_batch: bool | None = None) -> float:
    """Estimated pot share of ``hole`` against ``opponents`` random hands (0..1).

    Wins count 1, a tie between k best hands 1/k. ``rng`` drives every random draw,
    so the same seed gives the same estimate. ``use_batch`` forces (True) or forbids
    (False) the NumPy path; by default it is used when available.
    """
    opponents = max(1, opponents)
    dead = set(hole) | set(board)
    deck = [c for c in range(52) if c not in dead]
    need = 5 - len(board)
    evaluate_many = batch_evaluator() if use_batch is not False else None
    if evaluate_many is not None:
        return _equity_batch(evaluate_many, list(hole), list(board), deck, opponents, need,
                             rng, simulations)
    return _equity_python(list(hole), list(board), deck, opponents, need, rng, simulations)


def _equity_python(hole: list[int], board: list[int], deck: list[int], opponents: int,
                   need: int, rng: random.Random, simulations: int) -> float:
    total = 0.0
    draw = need + 2 * opponents
    sample = rng.sample
    for _ in range(simulations):
        cards = sample(deck, draw)
        full = board + cards[:need]
        mine = hand_value(hole + full)
        best = 0
        ties = 1
        for k in range(opponents):
            v = hand_value(cards[need + 2 * k: need + 2 * k + 2] + full)
            if v > best:
                best, ties = v, 1
            elif v == best:
                ties += 1
        if mine > best:
            total += 1.0
        elif mine == best:
            total += 1.0 / (ties + 1)
    return total / simulations


def _equity_batch(evaluate_many: Callable, hole: list[int], board: list[int], deck: list[int],
                  opponents: int, need: int, rng: random.Random, simulations: int) -> float:
    import numpy as np

    gen = np.random.default_rng(rng.getrandbits(64))
    draw = need + 2 * opponents
    deck_arr = np.array(deck, dtype=np.int64)
    # A random permutation prefix per simulation: argsort of random keys.
    picks = np.argsort(gen.random((simulations, len(deck))), axis=1)[:, :draw]
    cards = deck_arr[picks]
    full_board = np.concatenate(
        [np.broadcast_to(np.array(board, dtype=np.int64), (simulations, len(board))),
         cards[:, :need]], axis=1)
    mine = np.asarray(evaluate_many(np.concatenate(
        [np.broadcast_to(np.array(hole, dtype=np.int64), (simulations, 2)), full_board], axis=1)))
    opp = np.stack([np.asarray(evaluate_many(np.concatenate(
        [cards[:, need + 2 * k: need + 2 * k + 2], full_board], axis=1))) for k in range(opponents)],
        axis=1)
    best = opp.max(axis=1)
    ties = (opp == best[:, None]).sum(axis=1)
    share = np.where(mine > best, 1.0, np.where(mine == best, 1.0 / (ties + 1), 0.0))
    return float(share.mean())
