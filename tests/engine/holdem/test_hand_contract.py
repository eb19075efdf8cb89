"""The engine contract for Hold'em: config and input validation, views, events, persistence."""

from __future__ import annotations

import json

import msgpack
import pytest

from engine import holdem
from engine.errors import ConfigError, IllegalAction
from engine.game import event_for
from engine.holdem import (
    GAME,
    apply,
    from_dict,
    legal_actions,
    new_hand,
    start_hand,
    timeout_action,
    to_dict,
    view,
)

from .hand_support import act, deal, of_type, table

DECK = list(range(52))


def test_game_value_declares_options_with_defaults():
    assert GAME.name == "holdem" and GAME.min_players == 2 and GAME.max_players == 10
    assert GAME.parse_config({}) == {"small_blind": 50, "big_blind": 100, "ante": 0}
    names = [o["name"] for o in GAME.describe()["options"]]
    assert names == ["small_blind", "big_blind", "ante"]
    assert callable(holdem.evaluate) and callable(holdem.describe) and callable(holdem.category)


def test_big_blind_smaller_than_small_blind_is_rejected():
    with pytest.raises(ConfigError) as err:
        new_hand({"button": 0, "small_blind": 100, "big_blind": 50}, table([500, 500]), DECK)
    assert err.value.field == "big_blind"


@pytest.mark.parametrize("config, field", [
    ({"button": 0, "small_blind": 0}, "small_blind"),
    ({"button": 0, "small_blind": "10"}, "small_blind"),
    ({"button": 0, "big_blind": True}, "big_blind"),
    ({"button": 0, "ante": -1}, "ante"),
    ({"button": 0, "straddle": 200}, "straddle"),
    ({}, "button"),
    ({"button": 1}, "button"),      # empty seat
    ({"button": 7}, "button"),      # no such seat
    ({"button": True}, "button"),
    ({"button": "0"}, "button"),
])
def test_bad_config_is_rejected_naming_the_option(config, field):
    with pytest.raises(ConfigError) as err:
        new_hand(config, [("a", 500), None, ("c", 500)], DECK)
    assert err.value.field == field and err.value.code == "bad_config"


@pytest.mark.parametrize("seats", [
    [("a", 500)],
    [("a", 500), None],
    [("p", 100)] * 11,
    [("a", 500), ("b", 0)],
    [("a", 500), ("b", -3)],
    [("a", 500), ("b", True)],
    [("a", 500), ("b", 10.5)],
    [("a", 500), (7, 500)],
    [("a", 500), "b"],
    "ab",
])
def test_bad_seats_are_rejected(seats):
    with pytest.raises(ValueError):
        new_hand({"button": 0}, seats, DECK)


@pytest.mark.parametrize("deck", [DECK[:51], DECK + [0], DECK[:51] + [0], DECK[:51] + [52],
                                  DECK[:51] + [True]])
def test_bad_deck_is_rejected(deck):
    with pytest.raises(ValueError):
        new_hand({"button": 0}, table([500, 500]), deck)


def test_ten_players_at_a_ten_seat_table():
    state = new_hand({"button": 9}, table([500] * 10), DECK)
    assert state.to_act == 2 and sum(state.bets) == 150


@pytest.mark.parametrize("action, code", [
    ({"type": "raise"}, "bad_amount"),
    ({"type": "raise", "to": None}, "bad_amount"),
    ({"type": "raise", "to": True}, "bad_amount"),
    ({"type": "raise", "to": 300.0}, "bad_amount"),
    ({"type": "raise", "to": "300"}, "bad_amount"),
    ({"type": "raise", "to": 150}, "bad_amount"),
    ({"type": "raise", "to": 1001}, "bad_amount"),
    ({"type": "raise", "to": -100}, "bad_amount"),
    ({"type": "check"}, "bad_action"),
    ({"type": "shove"}, "bad_action"),
    ({"type": 3}, "bad_action"),
    ({}, "bad_action"),
    (["fold"], "bad_action"),
    (None, "bad_action"),
])
def test_bad_actions_are_rejected_with_a_code_and_change_nothing(action, code):
    state, _ = deal([1000, 1000, 1000])
    before = to_dict(state)
    with pytest.raises(IllegalAction) as err:
        apply(state, 0, action)
    assert err.value.code == code
    assert to_dict(state) == before


@pytest.mark.parametrize("seat", [1, 2, 5, -1, None, True, "0"])
def test_acting_out_of_turn_is_rejected(seat):
    state, _ = deal([1000, 1000, 1000])
    with pytest.raises(IllegalAction) as err:
        apply(state, seat, {"type": "call"})
    assert err.value.code == "not_your_turn"
    assert not legal_actions(state, 1) and GAME.legal_to_wire(legal_actions(state, 1)) is None


def test_apply_returns_a_new_state_and_leaves_the_old_one_alone():
    state, _ = deal([1000, 1000, 1000])
    before = to_dict(state)
    new, _ = act(state, (0, "raise", 300), (1, "call"))
    assert to_dict(state) == before
    assert new.stacks != state.stacks


def test_actions_after_the_hand_is_over_are_rejected():
    state, _ = deal([1000, 1000, 1000])
    state, _ = act(state, (0, "fold"), (1, "fold"))
    assert state.is_over and state.to_act is None
    with pytest.raises(IllegalAction) as err:
        apply(state, 2, {"type": "check"})
    assert err.value.code == "hand_over"


def test_timeout_action_checks_when_free_else_folds():
    state, _ = deal([1000, 1000, 1000])
    assert timeout_action(state, 0) == {"type": "fold"}
    state, _ = act(state, (0, "call"), (1, "call"))
    assert timeout_action(state, 2) == {"type": "check"}


def test_view_shows_own_hole_cards_only_and_legal_actions_to_the_seat_to_act():
    state, _ = deal([1000, 1000, 1000])
    for seat in range(3):
        seen = view(state, seat)
        assert seen["hole"] == state.hole[seat]
        text = json.dumps(seen)
        assert msgpack.unpackb(msgpack.packb(seen)) == json.loads(text)
        assert all(s["cards"] is None for s in seen["seats"])
    assert view(state, 0)["legal"] == {"fold": True, "check": False, "call": 100,
                                       "min_to": 200, "max_to": 1000, "all_in": True}
    assert view(state, 1)["legal"] is None
    spectator = view(state, None)
    assert spectator["hole"] is None and spectator["legal"] is None
    assert spectator["seats"][2]["bet"] == 100 and spectator["seats"][2]["stack"] == 900
    assert spectator["to_act"] == 0 and spectator["button"] == 0 and spectator["big_blind"] == 100


def test_deal_events_are_private_to_their_seat():
    state, events = deal([1000, 1000, 1000])
    for event in of_type(events, "deal"):
        seat = event["seat"]
        assert event_for(event, seat)["cards"] == state.hole[seat]
        assert "cards" not in event_for(event, (seat + 1) % 3)
        assert "cards" not in event_for(event, None)
    assert state.opening == events


def test_events_are_plain_data():
    state, events = deal([1000, 300, 1000], ante=5)
    state, more = act(state, (0, "all_in"), (1, "call"), (2, "call"))
    for event in events + more:
        assert msgpack.unpackb(msgpack.packb(event)) == json.loads(json.dumps(event))
    assert of_type(more, "hand_over")[0]["stacks"] == state.stacks


def test_state_round_trips_through_msgpack():
    state, _ = deal([1000, 300, 1000, None, 700], ante=5)
    states = [state]
    for move in [(4, "fold"), (0, "raise", 300), (1, "all_in"), (2, "call")]:
        state, _ = act(state, move)
        states.append(state)
    state, _ = act(state, (2, "bet", 100), (0, "fold"))
    states.append(state)
    assert state.is_over
    for s in states:
        restored = from_dict(msgpack.unpackb(msgpack.packb(to_dict(s))))
        assert restored == s
        assert to_dict(restored) == to_dict(s)


def test_start_hand_and_new_hand_agree():
    seats = table([1000, 1000, 1000])
    state, events = start_hand({"button": 1}, seats, DECK)
    assert new_hand({"button": 1}, seats, DECK) == state
    assert events[0]["type"] == "hand_start" and events[0]["button"] == 1
    assert holdem.start_events(state) == events
