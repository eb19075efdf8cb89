"""A game's view rendered with a memo (``view(state, seat, memo)``, see ``engine.game.Game``)
is the view rendered without one, member for member and in order, for every seat and a
spectator, whatever the memo kept from earlier states, seats and hands; and it hands back
what it rendered for the same state."""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine.bots import get_strategy
from engine.game import Game
from server.games import GAMES

# (hand options, seats): an empty seat (None) among them, short stacks for all-ins
TABLES: dict[str, list[tuple[dict[str, Any], list[int | None]]]] = {
    "holdem": [({}, [1000, None, 1000, 1000]), ({"small_blind": 5, "big_blind": 10, "ante": 5}, [30, 400, 80])],
    "zhajinhua": [({"max_rounds": 2, "compare_after_rounds": 0}, [60, None, 45, 1000]),
                  ({"all_in": "compare_all", "special_235": "rainbow"}, [25, 30, 35])],
    "doudizhu": [({"bidding": "rob", "doubling": True, "open_hand": True}, [1000, 1000, 1000]),
                 ({"bidding": "score"}, [1000, None, 1000, 1000])],
}
HANDS = 12


def states_of(game: Game, options: dict[str, Any], seats: list[int | None], rng: random.Random) -> list[Any]:
    """Every state of a few hands between random players, and of a hand shown after it
    ends where the game lets a seat show."""
    decide = get_strategy(game.name, "random")
    states = []
    for _ in range(HANDS):
        deck = list(range(game.deck_size))
        rng.shuffle(deck)
        dealt = [i for i, s in enumerate(seats) if s is not None]
        config = dict(game.parse_config(options), button=rng.choice(dealt))
        state = game.new_hand(config, [None if s is None else (f"p{i}", s) for i, s in enumerate(seats)], deck)
        states.append(state)
        while not state.is_over:
            view = game.view(state, state.to_act)
            state, _ = game.apply(state, state.to_act, decide(view, view["legal"], rng))
            states.append(state)
        for seat in dealt if game.show is not None else ():
            try:
                state, _ = game.show(state, seat)
            except Exception:  # nothing to show: the seat's cards are face up already
                continue
            states.append(state)
    return states


@pytest.mark.parametrize("game_name", sorted(TABLES))
def test_a_view_with_a_memo_is_the_view_without_one(game_name):
    game = GAMES[game_name]
    rng = random.Random(7)
    for options, seats in TABLES[game_name]:
        memo: dict[Any, Any] = {}
        viewers: list[int | None] = [*range(len(seats)), None]
        for state in states_of(game, options, seats, rng):
            rng.shuffle(viewers)  # whichever seat the memo served last
            for seat in viewers:
                assert repr(game.view(state, seat, memo)) == repr(game.view(state, seat)), (seat, state)


@pytest.mark.parametrize("game_name", sorted(TABLES))
def test_a_view_is_rendered_once_per_state_and_seat_and_its_common_part_once_per_state(game_name):
    game = GAMES[game_name]
    options, seats = TABLES[game_name][0]
    memo: dict[Any, Any] = {}
    state = states_of(game, options, seats, random.Random(3))[0]  # just dealt: nobody looked
    first = game.view(state, 0, memo)
    assert game.view(state, 0, memo) is first
    assert game.view(state, None, memo)["seats"] is first["seats"]  # the same seats for both
