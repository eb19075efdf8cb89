"""Lookup tables behind :mod:`engine.holdem.evaluator`, built once at import (~0.1 s).

Hand values
    Every five-card poker hand belongs to one of 7,462 classes (hands of one class
    tie). ``HAND_CLASSES[v - 1]`` is the class of value ``v`` as
    ``(category, deciding_ranks)``; values run 1 (7-5-4-3-2 high) .. 7462 (royal
    flush), so a higher value is a better hand.

Card keys
    ``CARD_KEYS[c]`` packs three counters into one Python int, so that the plain sum
    of the keys of a hand's cards carries everything the evaluation needs:

    * a 3-bit counter per card id, ``1 << 3 * c``: in the sum of distinct cards
      each counter is 0 or 1, a repeated card (up to seven copies) sets one of its
      counter's two upper bits, ``DUPLICATE_BITS``.
    * four 4-bit suit counters at ``SUIT_SHIFT + SUIT_FIELDS[suit]``. Every counter
      starts at 3 (``SUIT_BIAS``, spread evenly over the seven cards: the field
      offsets are chosen so that the bias divides by 7), so a counter reaches 8, its
      top bit, exactly when its suit holds five or more cards. ``sum & FLUSH_FLAGS``
      is 0 for no flush, else the flag of the flush suit (two suits can never both
      hold five of seven cards). Hands of 5 or 6 cards add ``SHORT_HAND_BIAS[n]``.
    * from ``RANK_SHIFT`` up, ``RANK_KEYS[rank]``: the sums of any 5, 6 or 7 rank
      keys (at most four of a rank) are all different (the key set published with
      SKPokerEval; a test re-checks it), so the sum names the multiset of ranks.

    So ``sum & CHECK_BITS`` is 0 for the usual hand (distinct cards, no flush),
    whose value is then ``NONFLUSH_VALUES[n][sum >> RANK_SHIFT]``.

Tables
    ``NONFLUSH_VALUES[n][rank_sum]``: value of the best hand made of those n ranks when
    suits do not matter (n = 5, 6, 7). ``FLUSH_RANK_BITS[flag]``: for the flush suit
    of that flag, a list mapping each card id to ``1 << rank`` if the card is of that
    suit, else 0; OR-ing it over the hand gives the flush suit's 13-bit rank mask.
    ``FLUSH_VALUES[mask]``: value of the best flush or straight flush among the ranks
    of a 13-bit mask (0 when fewer than five bits).
"""

from __future__ import annotations

from itertools import combinations, combinations_with_replacement

HIGH_CARD, ONE_PAIR, TWO_PAIR, THREE_OF_A_KIND, STRAIGHT = 0, 1, 2, 3, 4
FLUSH, FULL_HOUSE, FOUR_OF_A_KIND, STRAIGHT_FLUSH = 5, 6, 7, 8

RANK_KEYS = (0, 1, 5, 22, 98, 453, 2031, 8698, 22854, 83661, 262349, 636345, 1479181)
DUPLICATE_BITS = sum(6 << 3 * c for c in range(52))
SUIT_SHIFT = 3 * 52
SUIT_FIELDS = (0, 6, 12, 17)  # 2**0, 2**6, 2**12 = 1 and 2**17 = 4 (mod 7): 3 * sum = 0 (mod 7)
SUIT_BIAS = sum(3 << f for f in SUIT_FIELDS)
assert SUIT_BIAS % 7 == 0
FLUSH_FLAGS = sum(8 << (SUIT_SHIFT + f) for f in SUIT_FIELDS)
RANK_SHIFT = SUIT_SHIFT + 22
CHECK_BITS = DUPLICATE_BITS | FLUSH_FLAGS
HAND_SIZES = (5, 6, 7)
CARD_KEYS: tuple[int, ...] = tuple(
    (RANK_KEYS[c >> 2] << RANK_SHIFT)
    | ((1 << SUIT_FIELDS[c & 3]) + SUIT_BIAS // 7) << SUIT_SHIFT
    | 1 << 3 * c
    for c in range(52))
# Added to the key sum of a 5- or 6-card hand to complete the suit counters' bias.
SHORT_HAND_BIAS = {n: (7 - n) * (SUIT_BIAS // 7) << SUIT_SHIFT for n in HAND_SIZES}

# The ten straights as (top rank, rank mask); the wheel A-2-3-4-5 is "five high" (3).
STRAIGHT_MASKS = tuple((top, sum(1 << (top - i) % 13 for i in range(5)))
                       for top in range(3, 13))


def _hand_classes() -> list[tuple[int, tuple[int, ...]]]:
    """All 7,462 classes as (category, deciding ranks, most important first), weakest first."""
    straight_masks = {mask for _, mask in STRAIGHT_MASKS}
    no_straight = [tuple(reversed(c)) for c in combinations(range(13), 5)
                   if sum(1 << r for r in c) not in straight_masks]
    classes: list[tuple[int, tuple[int, ...]]] = []
    classes += [(HIGH_CARD, ranks) for ranks in no_straight]
    for pair in range(13):
        others = [r for r in range(13) if r != pair]
        classes += [(ONE_PAIR, (pair, *reversed(k))) for k in combinations(others, 3)]
    for low, high in combinations(range(13), 2):
        classes += [(TWO_PAIR, (high, low, k)) for k in range(13) if k not in (high, low)]
    for trips in range(13):
        others = [r for r in range(13) if r != trips]
        classes += [(THREE_OF_A_KIND, (trips, *reversed(k))) for k in combinations(others, 2)]
    classes += [(STRAIGHT, (top,)) for top, _ in STRAIGHT_MASKS]
    classes += [(FLUSH, ranks) for ranks in no_straight]
    classes += [(FULL_HOUSE, (t, p)) for t in range(13) for p in range(13) if p != t]
    classes += [(FOUR_OF_A_KIND, (q, k)) for q in range(13) for k in range(13) if k != q]
    classes += [(STRAIGHT_FLUSH, (top,)) for top, _ in STRAIGHT_MASKS]
    classes.sort()
    return classes


HAND_CLASSES: tuple[tuple[int, tuple[int, ...]], ...] = tuple(_hand_classes())
VALUE_OF_CLASS: dict[tuple[int, tuple[int, ...]], int] = {
    cls: value for value, cls in enumerate(HAND_CLASSES, start=1)}
# Category c holds the values CATEGORY_STARTS[c] .. CATEGORY_STARTS[c + 1] - 1.
CATEGORY_STARTS: tuple[int, ...] = tuple(
    VALUE_OF_CLASS[min(cls for cls in HAND_CLASSES if cls[0] == c)] for c in range(9)
) + (len(HAND_CLASSES) + 1,)


def _straight_top(mask: int) -> int | None:
    """Top rank of the highest straight among the ranks of a 13-bit mask, or None."""
    for top, straight in reversed(STRAIGHT_MASKS):
        if mask & straight == straight:
            return top
    return None


def _flush_values() -> list[int]:
    values = [0] * (1 << 13)
    for mask in range(1 << 13):
        if mask.bit_count() < 5:
            continue
        top = _straight_top(mask)
        if top is not None:
            values[mask] = VALUE_OF_CLASS[(STRAIGHT_FLUSH, (top,))]
        else:
            ranks = tuple(r for r in range(12, -1, -1) if mask >> r & 1)[:5]
            values[mask] = VALUE_OF_CLASS[(FLUSH, ranks)]
    return values


_SHAPES = {(2, 1, 1, 1): ONE_PAIR, (2, 2, 1): TWO_PAIR, (3, 1, 1): THREE_OF_A_KIND,
           (3, 2): FULL_HOUSE, (4, 1): FOUR_OF_A_KIND}


def _five_rank_value(ranks: tuple[int, ...]) -> int:
    """Value of five cards of these ranks that are not all of one suit."""
    counts = {r: ranks.count(r) for r in ranks}
    if len(counts) == 5:
        top = _straight_top(sum(1 << r for r in ranks))
        if top is not None:
            return VALUE_OF_CLASS[(STRAIGHT, (top,))]
        return VALUE_OF_CLASS[(HIGH_CARD, tuple(sorted(ranks, reverse=True)))]
    # Ranks by (count, rank), most important first: exactly the deciding ranks.
    deciding = tuple(sorted(counts, key=lambda r: (counts[r], r), reverse=True))
    shape = tuple(counts[r] for r in deciding)
    return VALUE_OF_CLASS[(_SHAPES[shape], deciding)]


def _nonflush_values() -> dict[int, dict[int, int]]:
    """Per hand size n, rank-key sum -> best value of n cards of those ranks, suits aside.

    Five ranks are classified directly. A multiset of n + 1 ranks is worth the best of
    the n-rank multisets left after taking away one card: itself built by adding one
    rank (no lower than its highest) to an n-rank multiset, whose value covers taking
    that rank away again.
    """
    keys = RANK_KEYS
    five_sets = [m for m in combinations_with_replacement(range(13), 5) if m[0] != m[4]]
    five = {sum(map(keys.__getitem__, m)): _five_rank_value(m) for m in five_sets}
    six, six_sets = _add_one_rank(five, five_sets, keep_sets=True)
    seven, _ = _add_one_rank(six, six_sets, keep_sets=False)
    return {5: five, 6: six, 7: seven}


def _add_one_rank(table: dict[int, int], multisets: list[tuple[int, ...]], keep_sets: bool
                  ) -> tuple[dict[int, int], list[tuple[int, ...]]]:
    """The table for one rank more, from ``table`` and its multisets (sorted tuples)."""
    keys = RANK_KEYS
    bigger: dict[int, int] = {}
    bigger_sets: list[tuple[int, ...]] = []
    for m in multisets:
        total = sum(map(keys.__getitem__, m))
        value = table[total]
        ranks = set(m)
        last = m[-1]
        four_of_last = m[-4] == last
        for r in range(last, 13):
            if r == last and four_of_last:
                continue  # a fifth card of a rank
            grown = total + keys[r]
            best = value  # taking r away again
            for x in ranks:
                v = table[grown - keys[x]]
                if v > best:
                    best = v
            bigger[grown] = best
            if keep_sets:
                bigger_sets.append((*m, r))
    return bigger, bigger_sets


FLUSH_VALUES: list[int] = _flush_values()
NONFLUSH_VALUES: dict[int, dict[int, int]] = _nonflush_values()
FLUSH_RANK_BITS: dict[int, list[int]] = {
    8 << (SUIT_SHIFT + SUIT_FIELDS[suit]): [1 << (c >> 2) if c & 3 == suit else 0
                                            for c in range(52)]
    for suit in range(4)}
