"""The declared hand options of Dou Dizhu, and the play :class:`Rules` they select.

``bidding``, ``stake``, ``max_multiplier``, ``doubling`` (加倍) and ``open_hand`` (明牌)
shape the hand; every field of
:class:`~engine.doudizhu.plays.Rules` is also an option of the same name (a bool with
the same default), so a room can pick any house rule for which plays are legal.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields
from functools import lru_cache
from typing import Any

from ..config import Option
from .bidding import BIDDING_STYLES, SCORE
from .plays import DEFAULT_RULES, Rules
from .scoring import OPEN_AFTER_BOTTOM, OPEN_BEFORE_BOTTOM

# One sentence per Rules field, for the option list a client sees.
_RULE_DOCS: dict[str, str] = {
    "four_with_two": "Four of a rank may carry two cards or two pairs (four_two_solo, four_two_pair).",
    "jokers_as_kickers": "Both jokers may be kickers of the same play (3333BR).",
    "joker_pair_as_kicker": "The two jokers may serve as one pair kicker (333BR).",
    "kicker_matches_main": "An airplane wing may have the rank of one of its trios (33334445).",
    "airplane_solo_wings_distinct": "Airplane solo wings must all differ in rank.",
    "airplane_solo_wings_allow_four": "Four airplane solo wings may share one rank.",
    "airplane_solo_wings_allow_adjacent_trio":
        "Three airplane solo wings may share a rank next to the chain (3334445556667778).",
    "bomb_as_two_pairs": "Four of a rank may count as two pair kickers (33335555).",
    "four_two_solo_distinct_kickers": "The two kickers of four_two_solo must differ in rank (no 333355).",
}

RULE_OPTION_NAMES: tuple[str, ...] = tuple(f.name for f in fields(Rules))

OPTIONS: list[Option] = [
    Option("bidding", str, SCORE,
           "How the landlord is chosen: 'score' (bid 1-3, 叫分) or 'rob' (call and rob, 叫地主/抢地主).",
           choices=BIDDING_STYLES),
    Option("stake", int, 10, "Chips per point: the landlord wins or loses 2 x stake x multiplier.",
           min=1, max=1_000_000_000),
    Option("max_multiplier", int, 0, "Cap on the final multiplier (0: no cap).", min=0,
           max=1_000_000),
    Option("doubling", bool, False,
           "加倍: once the landlord has the bottom cards, each player in turn (the peasants, then the "
           "landlord) may double; a double x2 the payments between that player and the other side."),
    Option("open_hand", bool, False,
           f"明牌: the landlord may play with the hand face up, x{OPEN_BEFORE_BOTTOM} if shown before "
           f"taking the bottom cards, x{OPEN_AFTER_BOTTOM} after."),
] + [
    Option(name, bool, getattr(DEFAULT_RULES, name),
           _RULE_DOCS.get(name, f"Play rule {name} (see engine.doudizhu.plays.Rules)."))
    for name in RULE_OPTION_NAMES
]


def rules_of(options: Mapping[str, Any]) -> Rules:
    """The play rules selected by parsed hand ``options``."""
    return _rules(tuple(options[name] for name in RULE_OPTION_NAMES))


@lru_cache(maxsize=64)
def _rules(values: tuple[bool, ...]) -> Rules:
    return Rules.from_dict(dict(zip(RULE_OPTION_NAMES, values, strict=True)))
