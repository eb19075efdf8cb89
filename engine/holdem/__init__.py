"""No-limit Texas Hold'em: hand evaluation and the betting/pot state machine.

The engine contract (see ``engine/game.py``): ``new_hand``, ``legal_actions``,
``apply``, ``view``, ``timeout_action``, ``to_dict``, ``from_dict`` and ``GAME``.
``start_hand`` is ``new_hand`` that also returns the opening events (antes, blinds,
deals); the same events are kept in ``state.opening`` and returned by
``start_events(state)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..actions import CHIPS, ActionType, action_types
from ..game import Export, Game, Practice, Stakes
from .bots import calling_station, random_play
from .bots import decide as smart
from .evaluator import category, describe, evaluate
from .hand import OPTIONS, apply, check_options, new_hand, start_events, start_hand
from .history import format_event
from .legal import LegalActions, legal_actions, legal_to_wire, timeout_action
from .pokerstars import export_hand
from .pots import Pot
from .showdown import show
from .state import HoldemState, from_dict, to_dict
from .view import view


def layout(deck: Sequence[int], deal_order: Sequence[int]) -> dict[str, Any]:
    """Hold'em's dealing rule (see :class:`~engine.game.Game`): one card to each seat in
    order, twice around; then burn, three (the flop), burn, one, burn, one."""
    n = len(deal_order)
    rest = deck[2 * n:]
    return {"hands": {s: [deck[i], deck[n + i]] for i, s in enumerate(deal_order)},
            "board": [rest[1], rest[2], rest[3], rest[5], rest[7]]}


#: a quick table is six-handed 5/10 (the default buy-in is then a hundred big blinds);
#: a league match starts at 200 big blinds and counts big blinds per hundred hands
STAKES = Stakes(field="big_blind", config=lambda bb: {"big_blind": bb, "small_blind": max(1, bb // 2)},
                quick_seats=6, quick_stake=10, league_stack=200, unit="bb/100", per=100.0, series_unit="bb")

#: the actions a seat may send (docs/holdem.md, "Actions"): the server checks their shape
ACTIONS = action_types(
    "fold", "check", "call",
    ActionType("raise", {"to": CHIPS}, "raise (or bet) to a street total of ``to`` chips"),
    ActionType("bet", {"to": CHIPS}, "an alias of ``raise``"),
    "all_in",
)

#: what the browser page calls the game and its options, in English and Chinese
STRINGS = {
    "en": {
        "title": "Texas Hold'em",
        "blurb": "No-limit Texas Hold'em: two hole cards, five on the board, bet it all.",
        "opt.ante": "Ante",
        "optdoc.ante": "Chips every player puts in before each hand, besides the blinds (0: none)",
    },
    "zh": {
        "title": "德州扑克",
        "blurb": "无限注德州扑克：两张底牌，五张公共牌，可以全下。",
        "opt.ante": "前注",
        "optdoc.ante": "每局发牌前每人在盲注之外再放入的筹码（0：不设前注）",
    },
}

GAME = Game(
    name="holdem",
    title="No-limit Texas Hold'em",
    min_players=2,
    max_players=10,
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
    dealt=lambda state: state.hole,
    layout=layout,
    stakes=STAKES,
    time_bank=True,
    auto_play_checks=True,
    bots={"smart": smart, "random": random_play, "calling_station": calling_station},
    icon="\u2660",
    strings=STRINGS,
    actions=ACTIONS,
    practice=Practice({"small_blind": 1, "big_blind": 2}, stack=200, seats=2),
    exports={"pokerstars": Export(export_hand, "hands.txt", "the PokerStars hand-history layout, for hand trackers")},
    main_options=("small_blind", "big_blind", "ante"),
)

__all__ = [
    "GAME", "OPTIONS", "HoldemState", "LegalActions", "Pot",
    "new_hand", "start_hand", "start_events", "legal_actions", "legal_to_wire", "apply", "view",
    "timeout_action", "to_dict", "from_dict", "show",
    "evaluate", "describe", "category",
]
