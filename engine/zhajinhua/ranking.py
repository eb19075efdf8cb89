"""Three-card hand ranking for Zha Jin Hua (炸金花), with every house rule as an option.

A hand is three distinct card ids (``engine.cards``: ``rank * 4 + suit``, rank 0 is
the deuce ... 12 the ace). Categories, best first under the common order:

``trips`` (豹子) > ``straight_flush`` (顺金) > ``flush`` (金花) > ``straight`` (顺子)
> ``pair`` (对子) > ``high_card`` (单张)

and under ``order="probability"`` (as three-card poker ranks them):
straight flush > trips > straight > flush > pair > high card.

Within a category: trips by rank; straights (and straight flushes) by their top card,
Q-K-A highest, A-2-3 lowest (or second only to Q-K-A with ``a23="second"``), K-A-2 is
no straight; flushes and high cards card by card from the top; pairs by the pair rank,
then the kicker. Suits never rank unless ``suit_tiebreak`` is on: then hands equal in
everything else are decided by the suit of their highest card (♠ > ♥ > ♣ > ♦; the
highest card is the one of highest rank, an ace always counting high, the better
suit first among equal ranks).

The special 2-3-5 (``special_235``) beats any trips and is otherwise the plain 5-3-2
high card (the lowest high card). That one exception is not transitive, so
:func:`hand_rank` gives the total preorder of everything else and
:func:`compare_hands` applies the exception on top.

Ranking is a table lookup: per rule set, every one of the 22,100 hands is ranked once
(lazily, on first use, cached for equal :class:`Rules` values) and
:func:`compare_hands` is then two list lookups indexed by the three card ids packed
into 6 bits each (every order of the three cards has its entry).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache, cached_property
from itertools import combinations, permutations

# Category names, fixed ids used in the rank tables.
HIGH_CARD = "high_card"
PAIR = "pair"
STRAIGHT = "straight"
FLUSH = "flush"
STRAIGHT_FLUSH = "straight_flush"
TRIPS = "trips"
CATEGORIES = (HIGH_CARD, PAIR, STRAIGHT, FLUSH, STRAIGHT_FLUSH, TRIPS)
CATEGORY_CHINESE = {
    TRIPS: "豹子", STRAIGHT_FLUSH: "顺金", FLUSH: "金花",
    STRAIGHT: "顺子", PAIR: "对子", HIGH_CARD: "单张",
}
CATEGORY_ENGLISH = {
    TRIPS: "Trips", STRAIGHT_FLUSH: "Straight flush", FLUSH: "Flush",
    STRAIGHT: "Straight", PAIR: "Pair", HIGH_CARD: "High card",
}

# Strength of each category (higher wins) under each ``order``.
_CATEGORY_STRENGTH = {
    "common": {TRIPS: 5, STRAIGHT_FLUSH: 4, FLUSH: 3, STRAIGHT: 2, PAIR: 1, HIGH_CARD: 0},
    "probability": {STRAIGHT_FLUSH: 5, TRIPS: 4, STRAIGHT: 3, FLUSH: 2, PAIR: 1, HIGH_CARD: 0},
}
# Suit strength for ``suit_tiebreak``: spades > hearts > clubs > diamonds.
# Suit ids (engine.cards): 0 clubs, 1 diamonds, 2 hearts, 3 spades.
SUIT_STRENGTH = (1, 0, 2, 3)

_ACE, _THREE, _TWO, _FIVE = 12, 1, 0, 3
_RANK_WORDS = ("Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten",
               "Jack", "Queen", "King", "Ace")
_RANK_PLURALS = ("Twos", "Threes", "Fours", "Fives", "Sixes", "Sevens", "Eights", "Nines",
                 "Tens", "Jacks", "Queens", "Kings", "Aces")
_RANK_CHARS = "23456789TJQKA"


@dataclass(frozen=True)
class Rules:
    """The house rules that change how hands rank. Defaults are the common rules.

    ``a23``           ``"lowest"``: A-2-3 is the lowest straight; ``"second"``: it is
                      second only to Q-K-A.
    ``special_235``   ``"off"``; ``"offsuit"`` (default): 2-3-5 not all of one suit beats
                      any trips; ``"rainbow"``: only 2-3-5 of three different suits does.
    ``order``         ``"common"`` (default): trips > straight flush > flush > straight;
                      ``"probability"``: straight flush > trips > straight > flush.
    ``suit_tiebreak`` ``False`` (default): suits never rank; ``True``: otherwise equal
                      hands are decided by the suit of the highest card, ♠ > ♥ > ♣ > ♦.
    """

    a23: str = "lowest"
    special_235: str = "offsuit"
    order: str = "common"
    suit_tiebreak: bool = False

    def __post_init__(self) -> None:
        if self.a23 not in ("lowest", "second"):
            raise ValueError(f"a23 must be 'lowest' or 'second', got {self.a23!r}")
        if self.special_235 not in ("off", "offsuit", "rainbow"):
            raise ValueError(
                f"special_235 must be 'off', 'offsuit' or 'rainbow', got {self.special_235!r}")
        if self.order not in _CATEGORY_STRENGTH:
            raise ValueError(f"order must be 'common' or 'probability', got {self.order!r}")
        if not isinstance(self.suit_tiebreak, bool):
            raise ValueError(f"suit_tiebreak must be true or false, got {self.suit_tiebreak!r}")

    @cached_property
    def table(self) -> RankTable:
        """The precomputed ranks of all 22,100 hands under these rules (shared, cached)."""
        return _build_table(self.a23, self.special_235, self.order, self.suit_tiebreak)

    @cached_property
    def lookup(self) -> list[int | None]:
        """``table.lookup``, one attribute hop closer for :func:`compare_hands`."""
        return self.table.lookup


COMMON_RULES = Rules()


@dataclass(frozen=True)
class RankTable:
    """Every hand's rank under one rule set.

    ``lookup[a << 12 | b << 6 | c]`` is ``2 * rank + special`` for every ordering of
    every hand (None for anything else: repeated cards, ids 52..63), where ``rank``
    is the dense position in the total preorder (0 = lowest) and ``special`` is 1 for
    a hand that is the special 2-3-5 under these rules. ``trips_low``..``trips_high``
    is the (contiguous) range of trips ranks; ``classes`` the number of distinct ranks.
    """

    lookup: list[int | None]
    trips_low: int
    trips_high: int
    classes: int


def hand_mask(cards: Sequence[int]) -> int:
    """The 52-bit mask of three distinct cards; ValueError for anything else."""
    try:
        a, b, c = cards
        if not all(type(x) is int and 0 <= x < 52 for x in (a, b, c)):
            raise ValueError
    except (TypeError, ValueError):
        raise ValueError(f"a hand is three card ids 0..51, got {cards!r}") from None
    mask = (1 << a) | (1 << b) | (1 << c)
    if mask.bit_count() != 3:
        raise ValueError(f"a hand is three distinct cards, got {cards!r}")
    return mask


def category(cards: Sequence[int]) -> str:
    """The category name: ``trips``, ``straight_flush``, ``flush``, ``straight``,
    ``pair`` or ``high_card`` (the same under every rule set; A-2-3 is a straight)."""
    hand_mask(cards)
    return _classify(cards)[0]


def is_special_235(cards: Sequence[int], rules: Rules = COMMON_RULES) -> bool:
    """True when ``cards`` is the 2-3-5 that beats trips under ``rules``."""
    hand_mask(cards)
    return _is_special(cards, rules.special_235)


def hand_rank(cards: Sequence[int], rules: Rules = COMMON_RULES) -> int:
    """The hand's position in the total preorder of ``rules`` (higher is better).

    Equal values are equal hands. The one exception :func:`compare_hands` adds on top
    (the special 2-3-5 beating trips) is not part of this value.
    """
    hand_mask(cards)
    a, b, c = cards
    code = rules.lookup[(a << 12) | (b << 6) | c]
    assert code is not None
    return code >> 1


def compare_hands(a: Sequence[int], b: Sequence[int], rules: Rules = COMMON_RULES) -> int:
    """Positive when ``a`` beats ``b``, 0 for a tie, negative when ``b`` wins.

    Two table lookups; raises ValueError when either is not three distinct cards.
    """
    lookup = rules.lookup
    try:
        x, y, z = a
        p, q, r = b
        if (x | y | z | p | q | r) >> 6:  # negative, or too big for the 6-bit packing
            raise ValueError
        ra = lookup[(x << 12) | (y << 6) | z]
        rb = lookup[(p << 12) | (q << 6) | r]
        special = (ra | rb) & 1  # TypeError when either entry is None (not a hand)
    except (TypeError, ValueError):
        hand_mask(a)
        hand_mask(b)
        raise ValueError(f"not two hands: {a!r}, {b!r}") from None
    if special:
        table = rules.table
        if ra & 1 and table.trips_low <= rb >> 1 <= table.trips_high:
            return 1
        if rb & 1 and table.trips_low <= ra >> 1 <= table.trips_high:
            return -1
        return (ra >> 1) - (rb >> 1)
    return ra - rb


def best_hand_in_order(hands: Iterable[tuple[int, Sequence[int]]],
                       rules: Rules = COMMON_RULES) -> int:
    """The winner of a showdown held in the given order: ``hands`` are ``(seat, cards)``.

    The first hand holds; each later hand challenges the current best and takes over
    only when it is strictly better (the challenger is the initiator, who loses a tie).
    Returns the winning seat.
    """
    best_seat: int | None = None
    best_cards: Sequence[int] = ()
    for seat, cards in hands:
        if best_seat is None or compare_hands(cards, best_cards, rules) > 0:
            best_seat, best_cards = seat, cards
    if best_seat is None:
        raise ValueError("a showdown needs at least one hand")
    return best_seat


def describe(cards: Sequence[int], rules: Rules = COMMON_RULES) -> str:
    """The hand in words, e.g. ``"Pair (对子) of Kings, kicker Nine"``."""
    hand_mask(cards)
    cat, ranks = _classify(cards)
    name = f"{CATEGORY_ENGLISH[cat]} ({CATEGORY_CHINESE[cat]})"
    if cat == TRIPS:
        text = f"{name}: three {_RANK_PLURALS[ranks[0]]}"
    elif cat in (STRAIGHT, STRAIGHT_FLUSH):
        if ranks == (_ACE, _THREE, _TWO):
            where = "the lowest" if rules.a23 == "lowest" else "second only to Q-K-A"
            text = f"{name}: A-2-3 ({where})"
        else:
            seq = "-".join(_RANK_CHARS[r] for r in reversed(ranks))
            text = f"{name}: {seq}, {_RANK_WORDS[ranks[0]]} high"
    elif cat == PAIR:
        text = f"{name} of {_RANK_PLURALS[ranks[0]]}, kicker {_RANK_WORDS[ranks[2]]}"
    else:
        text = f"{name}: " + " ".join(_RANK_CHARS[r] for r in ranks)
    if _is_special(cards, rules.special_235):
        text = "Special 2-3-5 (beats trips), otherwise " + text[0].lower() + text[1:]
    return text


# ---------------------------------------------------------------------------
# Building the tables


def _classify(cards: Sequence[int]) -> tuple[str, tuple[int, int, int]]:
    """Category and ranks ordered as they compare (pair first, then the kicker)."""
    r = sorted((c >> 2 for c in cards), reverse=True)
    hi, mid, lo = r
    flush = (cards[0] & 3) == (cards[1] & 3) == (cards[2] & 3)
    if hi == lo:
        return TRIPS, (hi, mid, lo)
    if hi == mid or mid == lo:
        pair, kicker = (hi, lo) if hi == mid else (mid, hi)
        return PAIR, (pair, pair, kicker)
    straight = (hi - lo == 2) or (hi, mid, lo) == (_ACE, _THREE, _TWO)
    if straight:
        return (STRAIGHT_FLUSH if flush else STRAIGHT), (hi, mid, lo)
    return (FLUSH if flush else HIGH_CARD), (hi, mid, lo)


def _is_special(cards: Sequence[int], mode: str) -> bool:
    if mode == "off" or sorted(c >> 2 for c in cards) != [_TWO, _THREE, _FIVE]:
        return False
    suits = {c & 3 for c in cards}
    return len(suits) > 1 if mode == "offsuit" else len(suits) == 3


def _sort_key(cards: Sequence[int], a23: str, order: str, suit_tiebreak: bool) -> tuple:
    cat, ranks = _classify(cards)
    if cat in (STRAIGHT, STRAIGHT_FLUSH):
        # Straights compare by the top card; A-2-3's place depends on ``a23``:
        # doubled ranks leave room between J-Q-K (22) and Q-K-A (24).
        if ranks == (_ACE, _THREE, _TWO):
            tie: tuple[int, ...] = (2 * _THREE,) if a23 == "lowest" else (2 * 11 + 1,)
        else:
            tie = (2 * ranks[0],)
    elif cat == TRIPS:
        tie = (ranks[0],)
    elif cat == PAIR:
        tie = (ranks[0], ranks[2])
    else:
        tie = ranks
    suit = 0
    if suit_tiebreak:
        top = max(cards, key=lambda c: (c >> 2, SUIT_STRENGTH[c & 3]))
        suit = SUIT_STRENGTH[top & 3]
    return (_CATEGORY_STRENGTH[order][cat], tie, suit)


@cache
def _build_table(a23: str, special_235: str, order: str, suit_tiebreak: bool) -> RankTable:
    hands = list(combinations(range(52), 3))
    keys = [_sort_key(h, a23, order, suit_tiebreak) for h in hands]
    dense = {k: i for i, k in enumerate(sorted(set(keys)))}
    lookup: list[int | None] = [None] * (1 << 18)
    trips = []
    for h, k in zip(hands, keys, strict=True):
        rank = dense[k]
        code = 2 * rank + _is_special(h, special_235)
        for a, b, c in permutations(h):
            lookup[(a << 12) | (b << 6) | c] = code
        if h[0] >> 2 == h[2] >> 2:
            trips.append(rank)
    return RankTable(lookup=lookup, trips_low=min(trips), trips_high=max(trips),
                     classes=len(dense))
