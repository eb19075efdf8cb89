"""Leduc Hold'em for cardroom, as a game plugin: ``GAME`` is declared as the entry point
``leduc`` of the group ``cardroom.games`` (this package's pyproject.toml), and cardroom
hosts it once the package is installed. The rules are in :mod:`leduc.rules`."""

from __future__ import annotations

from pathlib import Path

from engine.actions import action_types
from engine.game import Game, Practice, Stakes

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

#: the actions a seat may send (``{"type": "raise"}``: the size is the round's fixed bet);
#: cardroom refuses any other shape before the rules see it
ACTIONS = action_types("fold", "check", "call", "raise")

#: what the browser page calls the game and its options; its table (``web/leduc.js``) brings
#: its own words
STRINGS = {
    "en": {
        "title": "Leduc Hold'em",
        "blurb": "Six cards, one each and one on the board, two fixed-limit rounds: the bot researchers' poker.",
        "opt.ante": "Ante",
        "opt.small_bet": "First-round bet",
        "opt.big_bet": "Second-round bet",
        "opt.max_raises": "Raises a round",
        "optdoc.ante": "Chips each player puts in before the deal",
        "optdoc.small_bet": "The size of every bet and raise before the public card",
        "optdoc.big_bet": "The size of every bet and raise after the public card",
        "optdoc.max_raises": "Bets and raises allowed in a round",
    },
    "zh": {
        "title": "Leduc 扑克",
        "blurb": "六张牌，每人一张、公共牌一张，两轮限注：机器人研究用的扑克。",
        "opt.ante": "底注",
        "opt.small_bet": "第一轮注额",
        "opt.big_bet": "第二轮注额",
        "opt.max_raises": "每轮加注次数",
        "optdoc.ante": "发牌前每人放入的筹码",
        "optdoc.small_bet": "公共牌翻开前每次下注和加注的大小",
        "optdoc.big_bet": "公共牌翻开后每次下注和加注的大小",
        "optdoc.max_raises": "每轮允许的下注和加注次数",
    },
}

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
    actions=ACTIONS,
    practice=Practice({"ante": 1, "small_bet": 2, "big_bet": 4}, stack=100, seats=2),
    icon="\u2664",
    strings=STRINGS,
    main_options=("ante",),
    web=Path(__file__).resolve().parent / "web",
)

__all__ = ["ACTIONS", "GAME", "STAKES", "STRINGS"]
