"""Leduc Hold'em for cardroom, as a game plugin: ``GAME`` is declared as the entry point
``leduc`` of the group ``cardroom.games`` (this package's pyproject.toml), and cardroom
hosts it once the package is installed. The rules are in :mod:`leduc.rules`."""

from __future__ import annotations

from engine.game import Game, Stakes

from .bots import STRATEGIES
from .rules import (
    DECK_SIZE,
    OPTIONS,
    apply,
    dealt,
    format_event,
    from_dict,
    layout,
    legal_actions,
    legal_to_wire,
    new_hand,
    start_events,
    timeout_action,
    to_dict,
    view,
)

#: a quick table is heads-up at an ante of 1 (bets of 2 and 4); a league match starts at a
#: hundred antes and counts antes won per hand
STAKES = Stakes(field="ante", config=lambda ante: {"ante": ante, "small_bet": 2 * ante, "big_bet": 4 * ante},
                quick_seats=2, quick_stake=1, league_stack=100, unit="antes/hand", series_unit="antes")

GAME = Game(
    name="leduc",
    title="Leduc Hold'em",
    min_players=2,
    max_players=2,
    deck_size=DECK_SIZE,
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
    dealt=dealt,
    layout=layout,
    stakes=STAKES,
    auto_play_checks=True,
    bots=STRATEGIES,
)

__all__ = ["GAME", "STAKES"]
