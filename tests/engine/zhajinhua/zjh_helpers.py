"""Shared helpers for the Zha Jin Hua tests: fixed decks and a reference comparator."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.cards import parse_cards, rank_of, suit_of
from engine.zhajinhua import Legal, Rules


def hand(text: str) -> list[int]:
    return parse_cards(text)


def deck_dealing(hands_in_deal_order: Sequence[str]) -> list[int]:
    """A 52-card deck that deals these hands (first to act first, one card a time)."""
    parsed = [hand(h) for h in hands_in_deal_order]
    n = len(parsed)
    deck: list[int | None] = [None] * 52
    for j, cards in enumerate(parsed):
        for k, c in enumerate(cards):
            deck[k * n + j] = c
    used = {c for c in deck if c is not None}
    rest = iter(c for c in range(52) if c not in used)
    return [c if c is not None else next(rest) for c in deck]


def is_offered(legal: Legal, action: Any) -> bool:
    """Whether ``legal`` (from legal_actions) offers ``action``."""
    if not isinstance(action, Mapping):
        return False
    kind = action.get("type")
    if kind == "look":
        return legal.look
    if kind == "call":
        return legal.call is not None
    if kind == "fold":
        return legal.fold
    if kind == "all_in":
        return legal.all_in is not None
    if kind == "raise":
        stake = action.get("stake")
        return (type(stake) is int and legal.raise_min is not None
                and legal.raise_min <= stake <= legal.raise_max)
    if kind == "compare":
        target = action.get("target")
        return type(target) is int and target in legal.compare_targets
    return False


# ---------------------------------------------------------------------------
# The rules written out pairwise, independently of the engine's tables.

_COMMON = ["high_card", "pair", "straight", "flush", "straight_flush", "trips"]
_PROBABILITY = ["high_card", "pair", "flush", "straight", "trips", "straight_flush"]
_SUITS_WEAK_TO_STRONG = "dchs"  # diamonds < clubs < hearts < spades


def ref_category(cards: Sequence[int]) -> str:
    ranks = sorted(rank_of(c) for c in cards)
    same_suit = len({suit_of(c) for c in cards}) == 1
    if ranks[0] == ranks[2]:
        return "trips"
    if ranks[0] == ranks[1] or ranks[1] == ranks[2]:
        return "pair"
    run = ranks[2] - ranks[0] == 2 or ranks == [0, 1, 12]
    if run:
        return "straight_flush" if same_suit else "straight"
    return "flush" if same_suit else "high_card"


def _straight_height(cards: Sequence[int], rules: Rules) -> float:
    ranks = sorted(rank_of(c) for c in cards)
    if ranks == [0, 1, 12]:  # A-2-3
        return 1 if rules.a23 == "lowest" else 11.5  # below 2-3-4 / between J-Q-K and Q-K-A
    return ranks[2]


def _sign(x: float) -> int:
    return (x > 0) - (x < 0)


def ref_compare_preorder(a: Sequence[int], b: Sequence[int], rules: Rules) -> int:
    """The order of the rule text, without the 2-3-5 exception."""
    order = _COMMON if rules.order == "common" else _PROBABILITY
    ca, cb = ref_category(a), ref_category(b)
    if ca != cb:
        return _sign(order.index(ca) - order.index(cb))
    ra = sorted((rank_of(c) for c in a), reverse=True)
    rb = sorted((rank_of(c) for c in b), reverse=True)
    if ca in ("straight", "straight_flush"):
        result = _sign(_straight_height(a, rules) - _straight_height(b, rules))
    elif ca == "pair":
        pa, pb = ra[1], rb[1]  # the middle card is always one of the pair
        ka = ra[0] if ra[0] != pa else ra[2]
        kb = rb[0] if rb[0] != pb else rb[2]
        result = _sign(pa - pb) or _sign(ka - kb)
    else:  # trips, flush, high card: card by card from the top
        result = next((_sign(x - y) for x, y in zip(ra, rb, strict=True) if x != y), 0)
    if result == 0 and rules.suit_tiebreak:
        def top_suit(cards: Sequence[int]) -> int:
            best = max(cards, key=lambda c: (rank_of(c), _SUITS_WEAK_TO_STRONG.index("cdhs"[suit_of(c)])))
            return _SUITS_WEAK_TO_STRONG.index("cdhs"[suit_of(best)])
        result = _sign(top_suit(a) - top_suit(b))
    return result


def ref_special(cards: Sequence[int], rules: Rules) -> bool:
    if sorted(rank_of(c) for c in cards) != [0, 1, 3]:
        return False
    suits = len({suit_of(c) for c in cards})
    return {"off": False, "offsuit": suits >= 2, "rainbow": suits == 3}[rules.special_235]


def ref_compare(a: Sequence[int], b: Sequence[int], rules: Rules) -> int:
    """The full rule text: the preorder plus "special 2-3-5 beats any trips"."""
    if ref_special(a, rules) and ref_category(b) == "trips":
        return 1
    if ref_special(b, rules) and ref_category(a) == "trips":
        return -1
    return ref_compare_preorder(a, b, rules)
