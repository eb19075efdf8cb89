"""Dou Dizhu ranks: order, mapping from card ids, and rank strings.

Suits never matter in Dou Dizhu, so a set of cards is described by its *rank counts*:
a tuple of 15 ints, one per rank in play order::

    index  0 1 2 3 4 5 6 7 8 9 10 11 12 13 14
    rank   3 4 5 6 7 8 9 T J Q K  A  2  B  R

``B`` is the black (small) joker, card id 52; ``R`` the red (big) joker, card id 53.
Ranks 3..2 hold at most 4 cards, each joker at most 1.

A *rank string* writes the cards one character per card, e.g. ``"33344455"``,
``"TJQKA"``, ``"BR"`` (the rocket). Order never matters; ``"10"`` is accepted for
``T``, lower case is accepted, and spaces and commas are ignored.

Everything in the Dou Dizhu engine that takes cards accepts any of three forms:
a sequence of card ids, a rank string, or a 15-tuple of rank counts (see
:func:`to_counts`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from operator import itemgetter, le

from engine.cards import BLACK_JOKER, RED_JOKER

RANK_NAMES = "3456789TJQKA2BR"
NUM_RANKS = 15
ACE = 11  # highest rank a chain may contain
TWO = 12
BLACK_JOKER_RANK = 13
RED_JOKER_RANK = 14
MAX_COUNT = (4,) * 13 + (1, 1)  # cards of each rank in the 54-card deck
EMPTY: tuple[int, ...] = (0,) * NUM_RANKS

Counts = tuple[int, ...]

_RANK_INDEX = {name: i for i, name in enumerate(RANK_NAMES)}
_RANK_INDEX.update({name.lower(): i for i, name in enumerate(RANK_NAMES)})
_IGNORED = frozenset(" ,\t\n")


def ddz_rank(card_id: int) -> int:
    """The Dou Dizhu rank (0 = three .. 11 = ace, 12 = two, 13/14 = jokers) of a card id."""
    if type(card_id) is not int or not 0 <= card_id <= RED_JOKER:
        raise ValueError(f"not a card id: {card_id!r}")
    if card_id == BLACK_JOKER:
        return BLACK_JOKER_RANK
    if card_id == RED_JOKER:
        return RED_JOKER_RANK
    return ((card_id >> 2) + 12) % 13


_CARD_IDS = frozenset(range(54))
_INT_TYPE = frozenset([int])
_RANK_BYTE_OF_ID = tuple(1 << (8 * ddz_rank(c)) for c in range(54))
_ONE_CARD = tuple(w.to_bytes(NUM_RANKS, "little") for w in _RANK_BYTE_OF_ID)
_NO_CARDS = bytes(NUM_RANKS)


def card_sort_key(card_id: int) -> tuple[int, int]:
    """Sort key putting card ids in Dou Dizhu order (3 lowest, red joker highest)."""
    return (ddz_rank(card_id), card_id)


def counts_from_cards(cards: Iterable[int]) -> Counts:
    """Rank counts of card ids; raises ``ValueError`` on a bad or repeated id."""
    return tuple(rank_count_bytes(cards))


def rank_count_bytes(cards: Iterable[int]) -> bytes:
    """:func:`counts_from_cards` as 15 bytes (one count per rank): the form move
    generation works on, cheaper to build and to hash than a tuple."""
    if type(cards) is not list and type(cards) is not tuple:
        cards = list(cards)
    if len(cards) == 1 and type(cards[0]) is int and 0 <= cards[0] < 54:
        return _ONE_CARD[cards[0]]
    try:
        ids = set(cards)
    except TypeError:
        raise ValueError(f"not card ids: {cards!r}") from None
    if len(ids) != len(cards) or not ids <= _CARD_IDS:
        _explain_bad_cards(cards)
    # A bool passes for id 0 or 1 (``False == 0``, ``True == 1``); other non-ints equal
    # to an id (``3.0``) fail as tuple indices below.
    if (0 in ids and type(cards[cards.index(0)]) is not int) or (
            1 in ids and type(cards[cards.index(1)]) is not int):
        _explain_bad_cards(cards)
    try:
        if len(cards) < 2:
            return _ONE_CARD[cards[0]] if cards else _NO_CARDS
        # Each card adds one to its rank's byte of a 15-byte integer: the bytes are the counts.
        return sum(itemgetter(*cards)(_RANK_BYTE_OF_ID)).to_bytes(NUM_RANKS, "little")
    except TypeError:
        _explain_bad_cards(cards)
        raise


def _explain_bad_cards(cards: Sequence[object]) -> None:
    seen: set[object] = set()
    for c in cards:
        if type(c) is not int or c not in _CARD_IDS:
            raise ValueError(f"not a card id: {c!r}")
        if c in seen:
            raise ValueError(f"duplicate card id {c}")
        seen.add(c)


def parse_ranks(text: str) -> Counts:
    """Rank counts of a rank string such as ``"33344455"`` or ``"BR"``.

    Raises ``ValueError`` on an unknown character or on more cards of a rank than
    the deck holds (five 3s, two black jokers).
    """
    counts = [0] * NUM_RANKS
    i = 0
    while i < len(text):
        ch = text[i]
        if ch in _IGNORED:
            i += 1
            continue
        if text.startswith("10", i):
            r, i = 7, i + 2
        elif ch in _RANK_INDEX:
            r, i = _RANK_INDEX[ch], i + 1
        else:
            raise ValueError(f"bad rank {ch!r} in {text!r}")
        counts[r] += 1
    result = tuple(counts)
    check_counts(result)
    return result


def check_counts(counts: Sequence[int]) -> Counts:
    """Validate a rank-count vector (15 ints within the deck's limits); return it as a tuple."""
    if len(counts) != NUM_RANKS:
        raise ValueError(f"rank counts need {NUM_RANKS} entries, got {len(counts)}")
    if (set(map(type, counts)) <= _INT_TYPE and min(counts) >= 0
            and all(map(le, counts, MAX_COUNT))):
        return tuple(counts)
    for r, n in enumerate(counts):
        if type(n) is not int or not 0 <= n <= MAX_COUNT[r]:
            raise ValueError(f"bad count {n!r} for rank {RANK_NAMES[r]}")
    return tuple(counts)


def to_counts(cards: str | Sequence[int] | Iterable[int]) -> Counts:
    """Rank counts of cards given as a rank string, card ids, or a 15-tuple of counts.

    A ``tuple`` of length 15 is taken as counts; any other sequence or iterable of
    ints as card ids. Use :func:`counts_from_cards` to force card ids.
    """
    kind = type(cards)
    if kind is list:
        return counts_from_cards(cards)
    if kind is str:
        return parse_ranks(cards)
    if kind is tuple and len(cards) == NUM_RANKS:
        return check_counts(cards)
    if isinstance(cards, str):
        return parse_ranks(cards)
    return counts_from_cards(cards)


def format_counts(counts: Sequence[int]) -> str:
    """The rank string of rank counts, lowest rank first: ``"33344455"``."""
    return "".join(RANK_NAMES[r] * n for r, n in enumerate(counts))


SPOKEN = {"T": "10", "B": "small joker", "R": "big joker"}


def spell_ranks(ranks: str) -> str:
    """A rank string as people write it, for messages: ``"TTJ"`` -> ``"10 10 J"``,
    ``"BR"`` -> ``"small joker big joker"``; ``"nothing"`` for no cards."""
    return " ".join(SPOKEN.get(r, r) for r in ranks) or "nothing"


def format_ranks(cards: str | Sequence[int] | Iterable[int]) -> str:
    """The rank string (lowest first) of cards in any accepted form."""
    return format_counts(to_counts(cards))


def sort_cards(cards: Iterable[int]) -> list[int]:
    """Card ids in Dou Dizhu order: 3s first, red joker last (ties by id)."""
    return sorted(cards, key=card_sort_key)


def cards_by_rank(cards: Iterable[int]) -> list[list[int]]:
    """Card ids grouped by Dou Dizhu rank (15 lists), each list in ascending id order."""
    groups: list[list[int]] = [[] for _ in range(NUM_RANKS)]
    for c in sorted(cards):
        groups[ddz_rank(c)].append(c)
    return groups
