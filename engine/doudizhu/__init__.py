"""Dou Dizhu (斗地主): play classification, move generation, bidding, play and scoring.

The engine contract (see ``engine/game.py``): ``new_hand``, ``legal_actions``,
``apply``, ``view``, ``timeout_action``, ``to_dict``, ``from_dict`` and ``GAME``.
Play rules: ``classify`` / ``beats`` (:mod:`.plays`), ``legal_plays`` / ``cards_for``
(:mod:`.movegen`), ranks and rank strings (:mod:`.ranks`). The rules of a hand are
described in ``docs/doudizhu.md``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..actions import CARDS, INT, ActionType, action_types
from ..game import Game, Practice, Stakes
from .bidding import Bidding, BidOptions
from .bots import decide as smart
from .bots import random_play
from .hand import apply, new_hand, start_events, timeout_action
from .history import format_event
from .legal import LegalActions, legal_actions, legal_to_wire
from .movegen import cards_for, legal_plays
from .options import OPTIONS, rules_of
from .plays import DEFAULT_RULES, KINDS, Play, Rules, beats, classify
from .ranks import (
    RANK_NAMES,
    card_sort_key,
    counts_from_cards,
    ddz_rank,
    format_counts,
    format_ranks,
    parse_ranks,
    sort_cards,
    to_counts,
)
from .state import DoudizhuState, from_dict, to_dict
from .view import view


def layout(deck: Sequence[int], deal_order: Sequence[int]) -> dict[str, Any]:
    """Dou Dizhu's dealing rule (see :class:`~engine.game.Game`): card ``k`` of the first
    51 to ``deal_order[k % 3]``; the last three are the bottom."""
    hands: dict[int, list[int]] = {s: [] for s in deal_order}
    for k in range(51):
        hands[deal_order[k % 3]].append(deck[k])
    return {"hands": hands, "bottom": list(deck[51:54])}


#: the stake is the base stake; a league counts points per game
STAKES = Stakes(field="stake", quick_seats=3, league_stack=1000, unit="points/game", series_unit="points")

#: the actions a seat may send (docs/doudizhu.md, "Actions"): the server checks their shape
ACTIONS = action_types(
    ActionType("bid", {"value": INT}, "score bidding: bid ``value`` points (1..3, above the bid: the engine's ``bad_bid``)"),
    "call", "rob",
    ActionType("play", {"cards": CARDS}, "play ``cards``: card ids from your hand, or a rank string such as ``\"3334\"``"),
    "pass",
    ActionType("open", {}, "明牌 (room option ``open_hand``): the landlord shows the hand face up"),
    ActionType("double", {}, "加倍 (room option ``doubling``): double your own settlement"),
)

#: what the browser page calls the game and its options, in English and Chinese
STRINGS = {
    "en": {
        "title": "Dou Dizhu",
        "blurb": "Fight the landlord: bid, then two peasants against one landlord.",
    },
    "zh": {
        "title": "斗地主",
        "blurb": "叫地主，然后两个农民对一个地主。",
    },
}

GAME = Game(
    name="doudizhu",
    title="Dou Dizhu (斗地主)",
    min_players=3,
    max_players=3,
    deck_size=54,
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
    dealt=lambda state: state.hands,
    layout=layout,
    stakes=STAKES,
    bots={"smart": smart, "random": random_play},
    icon="\u2665",
    strings=STRINGS,
    actions=ACTIONS,
    practice=Practice({"stake": 10}, stack=10_000, seats=3),
    main_options=("bidding", "stake", "max_multiplier", "doubling", "open_hand"),
)

__all__ = [
    "GAME", "OPTIONS", "DoudizhuState", "LegalActions", "Bidding", "BidOptions",
    "new_hand", "start_events", "legal_actions", "legal_to_wire", "apply", "view", "timeout_action",
    "to_dict", "from_dict", "rules_of",
    "Play", "Rules", "DEFAULT_RULES", "KINDS", "classify", "beats", "legal_plays", "cards_for",
    "RANK_NAMES", "ddz_rank", "card_sort_key", "counts_from_cards", "parse_ranks",
    "format_counts", "format_ranks", "sort_cards", "to_counts",
]
