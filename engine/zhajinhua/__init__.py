"""Zha Jin Hua (炸金花, "three-card brag"): exact hand ranking with every house rule as
an option, and the blind/seen betting flow with compare, all-in and showdown.

Ranking: :func:`hand_rank`, :func:`compare_hands`, :func:`describe`, :func:`category`
under a :class:`Rules` value. The betting flow follows the engine contract
(``engine.game``): :func:`new_hand`, :func:`legal_actions`, :func:`apply`,
:func:`view`, :func:`timeout_action`, :func:`to_dict`, :func:`from_dict`, bundled
as ``GAME``. Rules and wire formats: ``docs/zhajinhua.md``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..actions import CHIPS, SEAT, ActionType, action_types
from ..game import Game, Practice, Stakes
from .bots import calling_station, random_play
from .bots import decide as smart
from .flow import apply, new_hand, show, start_events, timeout_action
from .history import format_event
from .legal import Legal, legal_actions, legal_to_wire
from .options import OPTIONS, check_options, rules_of
from .ranking import (
    CATEGORIES,
    COMMON_RULES,
    Rules,
    best_hand_in_order,
    category,
    compare_hands,
    describe,
    hand_rank,
    is_special_235,
)
from .state import ZjhState, from_dict, to_dict
from .view import view


def layout(deck: Sequence[int], deal_order: Sequence[int]) -> dict[str, Any]:
    """Zha Jin Hua's dealing rule (see :class:`~engine.game.Game`): one card to each seat
    in order, three times around."""
    n = len(deal_order)
    return {"hands": {s: [deck[i], deck[n + i], deck[2 * n + i]] for i, s in enumerate(deal_order)}}


#: a quick table seats five; its stake is the ante, the cap ten antes
STAKES = Stakes(field="ante", config=lambda ante: {"ante": ante, "max_stake": 10 * ante}, quick_seats=5,
                league_stack=1000, unit="antes/hand", series_unit="antes")

#: the actions a seat may send (docs/zhajinhua.md, "Actions"): the server checks their shape
ACTIONS = action_types(
    "look", "call",
    ActionType("raise", {"stake": CHIPS}, "raise the unit stake to ``stake``"),
    ActionType("compare", {"target": SEAT}, "pay to compare hands with seat ``target``"),
    "fold", "all_in",
)

#: what the browser page calls the game and its options, in English and Chinese
STRINGS = {
    "en": {
        "title": "Zha Jin Hua",
        "blurb": "Three-card brag: play blind or look, raise, and compare hands.",
        "optdoc.ante": "Chips everyone puts in before the deal; also the first stake",
    },
    "zh": {
        "title": "炸金花",
        "blurb": "三张牌：闷牌或看牌，加注，比牌。",
        "optdoc.ante": "发牌前每人放入的筹码，也是开局的单注",
    },
}

GAME = Game(
    name="zhajinhua",
    title="Zha Jin Hua (炸金花)",
    min_players=2,
    max_players=9,
    deck_size=52,
    options=OPTIONS,
    new_hand=new_hand,
    start_events=start_events,
    legal_actions=legal_actions,
    legal_to_wire=legal_to_wire,
    apply=apply,
    view=view,
    timeout_action=timeout_action,
    to_dict=to_dict,
    from_dict=from_dict,
    format_event=format_event,
    check_config=check_options,
    show=show,
    dealt=lambda state: state.hands,
    layout=layout,
    stakes=STAKES,
    auto_play_checks=True,
    bots={"smart": smart, "random": random_play, "calling_station": calling_station},
    icon="\u2666",
    strings=STRINGS,
    actions=ACTIONS,
    practice=Practice({"ante": 10, "max_stake": 100}, stack=2000, seats=3),
    main_options=("ante", "max_stake", "compare_after_rounds", "special_235"),
)

__all__ = [
    "CATEGORIES",
    "COMMON_RULES",
    "GAME",
    "Legal",
    "OPTIONS",
    "Rules",
    "ZjhState",
    "apply",
    "best_hand_in_order",
    "category",
    "compare_hands",
    "describe",
    "from_dict",
    "hand_rank",
    "is_special_235",
    "legal_actions",
    "legal_to_wire",
    "new_hand",
    "rules_of",
    "start_events",
    "timeout_action",
    "to_dict",
    "view",
]
