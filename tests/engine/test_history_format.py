"""Every event each engine emits has a line in words (``GAME.format_event``), and a copy
filtered for another viewer says less than the full event without failing."""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine.cards import format_cards
from engine.game import Event, Game, describe_event, event_for
from engine.zhajinhua import GAME as ZHAJINHUA
from server.games import GAMES

# (hand options, stacks) tables that between them make each engine emit every event type
TABLES: dict[str, list[tuple[dict[str, Any], list[int]]]] = {
    "holdem": [({}, [1000, 1000, 1000]), ({"small_blind": 5, "big_blind": 10, "ante": 5}, [30, 400, 1000, 80])],
    "zhajinhua": [({}, [1000, 1000, 1000]), ({"max_rounds": 2, "compare_after_rounds": 0}, [60, 45, 1000]),
                  ({"all_in": "compare_all"}, [25, 30, 35])],
    "doudizhu": [({"bidding": "score"}, [1000, 1000, 1000]), ({"bidding": "rob"}, [1000, 1000, 1000]),
                 ({"doubling": True, "open_hand": True}, [1000, 1000, 1000])],
}
EVENT_TYPES = {
    "holdem": {"hand_start", "ante", "blind", "deal", "action", "board", "return", "pots", "showdown", "award",
               "hand_over"},
    "zhajinhua": {"hand_start", "turn", "look", "call", "raise", "fold", "compare", "compare_reveal", "all_in",
                  "showdown", "hand_over"},
    "doudizhu": {"hand_start", "deal", "turn", "bid", "call", "rob", "pass", "redeal", "landlord", "play",
                 "trick_won", "hand_over", "open_hand", "double"},
}
HANDS_PER_TABLE = 25


def name(seat: int) -> str:
    return f"Seat{seat}er"


def random_hand(game: Game, options: dict[str, Any], stacks: list[int], rng: random.Random) -> list[Event]:
    """One hand between uniformly random players (engine.bots' ``random`` strategy)."""
    from engine.bots import get_strategy

    deck = list(range(game.deck_size))
    rng.shuffle(deck)
    config = dict(game.parse_config(options), button=rng.randrange(len(stacks)))
    state = game.new_hand(config, [(f"p{i}", s) for i, s in enumerate(stacks)], deck)
    events = list(game.start_events(state))
    decide = get_strategy(game.name, "random")
    while not state.is_over:
        seat = state.to_act
        view = game.view(state, seat)
        state, new = game.apply(state, seat, decide(view, view["legal"], rng))
        events += new
    return events


def played_events(game_name: str) -> list[Event]:
    rng = random.Random(2024)
    game = GAMES[game_name]
    return [e for options, stacks in TABLES[game_name] for _ in range(HANDS_PER_TABLE)
            for e in random_hand(game, options, stacks, rng)]


@pytest.fixture(scope="module", params=sorted(GAMES))
def game_events(request) -> tuple[Game, list[Event]]:
    return GAMES[request.param], played_events(request.param)


def test_random_hands_reach_every_event_type(game_events):
    game, events = game_events
    assert {e["type"] for e in events} == EVENT_TYPES[game.name]


def test_every_event_gets_a_line_of_the_games_own_words_naming_its_seat(game_events):
    game, events = game_events
    for e in events:
        line = game.format_event(e, name)
        assert isinstance(line, str) and line.strip(), e
        assert "\n" not in line
        assert line != describe_event(e, name), e  # not the generic fallback
        if isinstance(e.get("seat"), int):
            assert name(e["seat"]) in line, (e, line)


def test_a_private_event_filtered_for_another_viewer_says_less_and_still_formats(game_events):
    game, events = game_events
    private = [e for e in events if "only" in e]
    assert private
    for e in private:
        full = game.format_event(e, name)
        outsider = next(s for s in range(10) if s not in e["only"])
        for viewer in (None, outsider):
            line = game.format_event(event_for(e, viewer), name)
            assert isinstance(line, str) and line.strip()
            assert line != full, e
        assert game.format_event(event_for(e, e["only"][0]), name) == full


def test_holdem_hole_cards_show_in_the_full_line_only():
    events = played_events("holdem")
    deal = next(e for e in events if e["type"] == "deal")
    game = GAMES["holdem"]
    assert game.format_event(deal, name) == f"Dealt to {name(deal['seat'])}: [{format_cards(deal['cards'])}]"
    assert game.format_event(event_for(deal, None), name) == f"Dealt to {name(deal['seat'])}: [hidden]"


def test_zhajinhua_compare_names_both_seats_and_the_winner():
    e = {"type": "compare", "seat": 1, "target": 3, "amount": 40, "winner": 3, "loser": 1}
    assert ZHAJINHUA.format_event(e, name) == "Seat1er compares with Seat3er (pays 40): Seat3er wins, Seat1er is out"


def test_an_event_type_a_game_does_not_know_gets_the_generic_line():
    e = {"type": "mystery", "seat": 2, "amount": 5, "cards": [0, 1], "only": [2], "secret": ["cards"]}
    expected = "mystery: seat=Seat2er, amount=5, cards=[0,1]"
    assert describe_event(e, name) == expected
    for game in GAMES.values():
        assert game.format_event(e, name) == expected


def test_a_game_without_its_own_formatter_uses_the_generic_one():
    from tests.server.highcard import GAME as HIGHCARD

    assert HIGHCARD.format_event is describe_event
    assert HIGHCARD.format_event({"type": "bet", "seat": 0, "amount": 7}, name) == "bet: seat=Seat0er, amount=7"
