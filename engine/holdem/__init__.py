"""No-limit Texas Hold'em: hand evaluation and the betting/pot state machine.

The engine contract (see ``engine/game.py``): ``new_hand``, ``legal_actions``,
``apply``, ``view``, ``timeout_action``, ``to_dict``, ``from_dict`` and ``GAME``.
``start_hand`` is ``new_hand`` that also returns the opening events (antes, blinds,
deals); the same events are kept in ``state.opening`` and returned by
``start_events(state)``.
"""

from __future__ import annotations

from ..game import Game
from .evaluator import category, describe, evaluate
from .hand import OPTIONS, apply, check_options, new_hand, start_events, start_hand
from .history import format_event
from .legal import LegalActions, legal_actions, legal_to_wire, timeout_action
from .pots import Pot
from .showdown import show
from .state import HoldemState, from_dict, to_dict
from .view import view

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
)

__all__ = [
    "GAME", "OPTIONS", "HoldemState", "LegalActions", "Pot",
    "new_hand", "start_hand", "start_events", "legal_actions", "legal_to_wire", "apply", "view",
    "timeout_action", "to_dict", "from_dict", "show",
    "evaluate", "describe", "category",
]
