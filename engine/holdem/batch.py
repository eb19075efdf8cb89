"""Evaluate many hands at once with NumPy (an optional dependency: ``cardroom[fast]``).

``evaluate_many(hands)`` gives, for an int array of shape (n, 7) (or (n, 5), (n, 6)),
the same values as :func:`engine.holdem.evaluator.evaluate` row by row, as an int32
array. It is the same method as the scalar evaluator, vectorised: the cards become
one contiguous int8 row per card position; per hand the sum of 64-bit card keys
(rank key and biased suit counters, see :mod:`engine.holdem.tables`), then one gather
from a direct-indexed table of non-flush values by the rank-key sum, and for the few
flush rows a gather by the flush suit's rank mask. Only this module imports NumPy.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

import numpy as np

from .tables import (
    FLUSH_VALUES,
    HAND_SIZES,
    NONFLUSH_VALUES,
    RANK_KEYS,
    SUIT_BIAS,
    SUIT_FIELDS,
)

__all__ = ["evaluate_many"]

_RANK_SHIFT = 22  # rank-key sum above the four suit counters (bits 0..21)
_FLUSH_FLAGS = sum(8 << f for f in SUIT_FIELDS)
# Card id -> rank key << 22 | its suit counter's 1 + a seventh of the suit bias.
_KEYS = np.array([(RANK_KEYS[c >> 2] << _RANK_SHIFT) + (1 << SUIT_FIELDS[c & 3]) + SUIT_BIAS // 7
                  for c in range(52)], dtype=np.int64)
_SHORT_BIAS = {n: (7 - n) * (SUIT_BIAS // 7) for n in HAND_SIZES}
_RANK_BIT = np.array([1 << (c >> 2) for c in range(52)], dtype=np.int64)
_FLUSH_LUT = np.array(FLUSH_VALUES, dtype=np.int32)
_NONFLUSH_LUT: dict[int, np.ndarray] = {}


def _nonflush_lut(n: int) -> np.ndarray:
    """Direct table rank-key sum -> value for n cards (built on first use, ~15 MB)."""
    lut = _NONFLUSH_LUT.get(n)
    if lut is None:
        table = NONFLUSH_VALUES[n]
        sums = np.fromiter(table.keys(), dtype=np.int64, count=len(table))
        values = np.fromiter(table.values(), dtype=np.int16, count=len(table))
        lut = np.zeros(int(sums.max()) + 1, dtype=np.int16)
        lut[sums] = values
        _NONFLUSH_LUT[n] = lut
    return lut


def _as_hands(hands: Any) -> np.ndarray:
    h = np.asarray(hands)
    if h.ndim != 2 or h.shape[1] not in HAND_SIZES:
        raise ValueError(f"hands must have shape (n, 5), (n, 6) or (n, 7), got {h.shape}")
    if h.size and not np.issubdtype(h.dtype, np.integer):
        raise ValueError(f"hands must hold integer card ids, got dtype {h.dtype}")
    return h


def _check_ids(h: np.ndarray) -> None:
    """Raise ValueError naming the first row with an id outside 0..51."""
    if h.min() < 0 or h.max() > 51:
        row = int(np.flatnonzero(((h < 0) | (h > 51)).any(axis=1))[0])
        raise ValueError(f"not a card id (0..51) in row {row}: {h[row].tolist()}")


def _check_repeats(h: np.ndarray, columns: np.ndarray) -> None:
    """Raise ValueError naming the first row that holds a card twice."""
    repeats = np.zeros(columns.shape[1], dtype=bool)
    same = np.empty_like(repeats)
    for i, j in combinations(range(columns.shape[0]), 2):
        np.equal(columns[i], columns[j], out=same)
        repeats |= same
    if repeats.any():
        row = int(np.flatnonzero(repeats)[0])
        raise ValueError(f"duplicate card in row {row}: {h[row].tolist()}")


def evaluate_many(hands: Any, check: bool = True) -> np.ndarray:
    """Values of many hands: ``evaluate`` applied to each row, as an int32 array.

    ``hands``: anything ``numpy.asarray`` turns into an integer array of shape
    (n, 5), (n, 6) or (n, 7) of card ids. With ``check`` (the default) an id outside
    0..51 or a card repeated within a row raises ValueError naming the row; with
    ``check=False`` the caller vouches for the input (bad ids or repeats then give
    meaningless values or an IndexError).
    """
    h = _as_hands(hands)
    if h.shape[0] == 0:
        return np.zeros(0, dtype=np.int32)
    if check:
        _check_ids(h)
    # One contiguous int8 row per card position: fast to compare and to gather by.
    columns = np.ascontiguousarray(h.astype(np.int8).T)
    if check:
        _check_repeats(h, columns)
    n = h.shape[1]
    total = np.take(_KEYS, columns[0])
    for j in range(1, n):
        total += np.take(_KEYS, columns[j])
    if n != 7:
        total += _SHORT_BIAS[n]
    values = _nonflush_lut(n)[total >> _RANK_SHIFT].astype(np.int32)
    flush_rows = np.flatnonzero(total & _FLUSH_FLAGS)
    if flush_rows.size:
        flags = total[flush_rows] & _FLUSH_FLAGS
        suit = np.zeros(flush_rows.size, dtype=np.intp)
        for s in range(1, 4):
            suit[flags == (8 << SUIT_FIELDS[s])] = s
        cards = h[flush_rows].astype(np.intp)
        in_suit = (cards & 3) == suit[:, None]
        masks = np.where(in_suit, _RANK_BIT[cards], 0).sum(axis=1)
        values[flush_rows] = _FLUSH_LUT[masks]
    return values
