"""Poker hand evaluation: the best five-card hand among 5, 6 or 7 cards.

``evaluate(cards)`` returns an int in 1..7462, one value per class of five-card hand:
higher is better and equal values tie, so hands compare as plain ints. There is no
loop over five-card subsets: every card id has a precomputed key (see
:mod:`engine.holdem.tables`) and the plain sum of the keys tells at once whether a
card repeats, whether a suit holds five cards, and which multiset of ranks the hand
has. For the usual hand one bit test and one dict lookup by the rank part give the
value; a flush takes one more lookup by the flush suit's 13-bit rank mask. (The keys
are looked up two cards at a time, from a table of pair sums, to save additions.)

``evaluate`` and ``evaluate7(a, b, c, d, e, f, g)`` (the same for seven cards given as
arguments) both validate their input (count, card ids, repeats) and raise ValueError;
the checks ride on the same sum, so they cost next to nothing.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from itertools import combinations

from .tables import (
    CARD_KEYS,
    CATEGORY_STARTS,
    CHECK_BITS,
    DUPLICATE_BITS,
    FLUSH_FLAGS,
    FLUSH_RANK_BITS,
    FLUSH_VALUES,
    HAND_CLASSES,
    NONFLUSH_VALUES,
    RANK_SHIFT,
    SHORT_HAND_BIAS,
)

__all__ = ["CATEGORY_NAMES", "MAX_VALUE", "best_five", "category", "describe",
           "evaluate", "evaluate7", "hand_class"]

CATEGORY_NAMES = (
    "High card", "One pair", "Two pair", "Three of a kind", "Straight",
    "Flush", "Full house", "Four of a kind", "Straight flush",
)
MAX_VALUE = len(HAND_CLASSES)  # 7462: the royal flush

# Card id -> key. A dict rather than a list so that every id outside 0..51, negative
# ones included, fails the lookup (a list would wrap negative indexes around). Like
# any dict it also takes values equal to such an int (True, 4.0, NumPy ints).
_KEY: dict[int, int] = dict(enumerate(CARD_KEYS))
# The sums of two card keys, _PAIR_KEY[a][b] = key(a) + key(b): a seven-card sum is then
# three pair lookups and one single, with three additions instead of six.
_PAIR_KEY: dict[int, dict[int, int]] = {
    a: {b: key_a + key_b for b, key_b in enumerate(CARD_KEYS)}
    for a, key_a in enumerate(CARD_KEYS)}
# The flush suit's rank bits by card id, for each flush flag (see tables.py).
_FLUSH_BITS: dict[int, dict[int, int]] = {
    flag: dict(enumerate(bits)) for flag, bits in FLUSH_RANK_BITS.items()}
_RANKS5, _RANKS6, _RANKS7 = (NONFLUSH_VALUES[n] for n in (5, 6, 7))
_BIAS5, _BIAS6 = SHORT_HAND_BIAS[5], SHORT_HAND_BIAS[6]


def _evaluate_5_or_6(cards: Sequence[int]) -> int:
    """:func:`evaluate` for anything that did not unpack into seven cards."""
    key = _KEY
    pair = _PAIR_KEY
    try:
        n = len(cards)
    except TypeError:
        raise ValueError(f"cards must be a sequence of card ids, got {cards!r}") from None
    try:
        if n == 6:
            a, b, c, d, e, f = cards
            k = pair[a][b] + pair[c][d] + pair[e][f] + _BIAS6
            ranks = _RANKS6
        elif n == 5:
            a, b, c, d, e = cards
            k = pair[a][b] + pair[c][d] + key[e] + _BIAS5
            ranks = _RANKS5
        else:
            raise ValueError(f"need 5, 6 or 7 cards, got {n}")
    except (KeyError, TypeError):
        raise _bad_card(cards) from None
    if k & CHECK_BITS:
        return _flush_or_duplicate(k, cards)
    return ranks[k >> RANK_SHIFT]


def _flush_or_duplicate(k: int, cards: Sequence[int]) -> int:
    """Finish a hand whose key sum hit CHECK_BITS: raise on a repeat, else the flush."""
    if k & DUPLICATE_BITS:
        raise _duplicate(cards)
    bits = _FLUSH_BITS[k & FLUSH_FLAGS]
    mask = 0
    for c in cards:
        mask |= bits[c]
    return FLUSH_VALUES[mask]


def _is_card_id(c: object) -> bool:
    try:
        return 0 <= operator.index(c) < 52  # type: ignore[arg-type]
    except TypeError:
        return False


def _bad_card(cards: Sequence[object]) -> ValueError:
    bad = next((c for c in cards if not _is_card_id(c)), cards)
    return ValueError(f"not a card id (an int 0..51): {bad!r} in {list(cards)!r}")


def _duplicate(cards: Sequence[int]) -> ValueError:
    seen: set[int] = set()
    dup = next(c for c in cards if c in seen or seen.add(c))
    return ValueError(f"duplicate card {dup!r} in {list(cards)!r}")


def _hot_paths() -> tuple[Callable[[Sequence[int]], int], Callable[..., int]]:
    """Build ``evaluate`` and ``evaluate7`` with their tables as closure variables.

    CPython reads closure variables a little faster than module globals, and these
    two functions are the hot path (a few hundred nanoseconds a call), so it shows.
    """
    key = _KEY
    pair = _PAIR_KEY
    ranks7 = _RANKS7
    check_bits = CHECK_BITS
    rank_shift = RANK_SHIFT
    unusual = _flush_or_duplicate
    short = _evaluate_5_or_6
    bad_card = _bad_card

    def evaluate(cards: Sequence[int]) -> int:
        """Value (1..7462, higher is better) of the best five-card hand among the cards.

        ``cards``: 5, 6 or 7 distinct card ids (``rank * 4 + suit``, 0..51), in any
        sequence. Raises ValueError on any other count, an id that is not a card, or
        a repeated card.
        """
        try:
            a, b, c, d, e, f, g = cards
        except (TypeError, ValueError):
            return short(cards)
        try:
            k = pair[a][b] + pair[c][d] + pair[e][f] + key[g]
        except (KeyError, TypeError):
            raise bad_card(cards) from None
        if k & check_bits:  # rare: a flush (3% of seven-card hands) or a repeated card
            return unusual(k, cards)
        return ranks7[k >> rank_shift]

    def evaluate7(a: int, b: int, c: int, d: int, e: int, f: int, g: int) -> int:
        """:func:`evaluate` for seven cards passed as seven arguments (same checks)."""
        try:
            k = pair[a][b] + pair[c][d] + pair[e][f] + key[g]
        except (KeyError, TypeError):
            raise bad_card((a, b, c, d, e, f, g)) from None
        if k & check_bits:
            return unusual(k, (a, b, c, d, e, f, g))
        return ranks7[k >> rank_shift]

    return evaluate, evaluate7


evaluate, evaluate7 = _hot_paths()


def best_five(cards: Sequence[int]) -> list[int]:
    """The five of the cards that make their best hand, in the given order.

    Validates like :func:`evaluate`. When several five-card subsets tie, the first in
    ``itertools.combinations`` order is returned.
    """
    value = evaluate(cards)
    for five in combinations(cards, 5):
        if evaluate(five) == value:
            return list(five)
    raise AssertionError("unreachable: some five-card subset makes the best hand")


def _hand_value(value: object) -> int:
    """``value`` as an int if it is a hand value (ints and NumPy ints, not bools)."""
    try:
        v = operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        v = 0
    if isinstance(value, bool) or not 1 <= v <= MAX_VALUE:
        raise ValueError(f"not a hand value (1..{MAX_VALUE}): {value!r}")
    return v


def hand_class(value: int) -> tuple[int, tuple[int, ...]]:
    """``(category, deciding ranks)`` of a value; ranks are 0 = deuce .. 12 = ace.

    The deciding ranks are the ones that break ties, most important first: e.g.
    ``(6, (11, 5))`` for kings full of sevens, ``(4, (3,))`` for the wheel.
    """
    return HAND_CLASSES[_hand_value(value) - 1]


def category(value: int) -> int:
    """Category of a value: 0 = high card, 1 = one pair .. 8 = straight flush."""
    value = _hand_value(value)
    cat = 8
    while CATEGORY_STARTS[cat] > value:
        cat -= 1
    return cat


RANK_NAMES = ("deuce", "three", "four", "five", "six", "seven", "eight", "nine",
              "ten", "jack", "queen", "king", "ace")
RANK_PLURALS = ("deuces", "threes", "fours", "fives", "sixes", "sevens", "eights",
                "nines", "tens", "jacks", "queens", "kings", "aces")


def describe(value: int) -> str:
    """A value in words: the category and the deciding ranks.

    Examples: ``"Royal flush"``, ``"Straight flush, five high"``,
    ``"Four of a kind, aces, king kicker"``, ``"Full house, kings full of sevens"``,
    ``"Flush, ace-queen-nine-six-three"``, ``"Straight, five high"``,
    ``"Three of a kind, sevens, ace-jack kickers"``,
    ``"Two pair, aces and fours, jack kicker"``,
    ``"One pair, kings, ace-nine-four kickers"``,
    ``"High card, ace-king-nine-seven-three"``.
    """
    cat, ranks = hand_class(value)
    name = RANK_NAMES
    plural = RANK_PLURALS

    def run(rs: tuple[int, ...]) -> str:
        return "-".join(name[r] for r in rs)

    if cat == 8:
        return "Royal flush" if ranks[0] == 12 else f"Straight flush, {name[ranks[0]]} high"
    if cat == 7:
        return f"Four of a kind, {plural[ranks[0]]}, {name[ranks[1]]} kicker"
    if cat == 6:
        return f"Full house, {plural[ranks[0]]} full of {plural[ranks[1]]}"
    if cat == 5:
        return f"Flush, {run(ranks)}"
    if cat == 4:
        return f"Straight, {name[ranks[0]]} high"
    if cat == 3:
        return f"Three of a kind, {plural[ranks[0]]}, {run(ranks[1:])} kickers"
    if cat == 2:
        return f"Two pair, {plural[ranks[0]]} and {plural[ranks[1]]}, {name[ranks[2]]} kicker"
    if cat == 1:
        return f"One pair, {plural[ranks[0]]}, {run(ranks[1:])} kickers"
    return f"High card, {run(ranks)}"
