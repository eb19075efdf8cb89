"""Leduc Hold'em's rules through the ``Game`` contract: the deal, betting limits, the
showdown, folds, all-ins, what each seat may see, storage, and chips conserved over random
hands."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from leduc import GAME
from leduc.rules import NAMES

from engine import fairness
from engine.errors import IllegalAction
from engine.game import event_for

J_H, J_S, Q_H, Q_S, K_H, K_S = range(6)


def deal(deck, stacks=(100, 100), button=1, **config):
    return GAME.new_hand(GAME.parse_config(config) | {"button": button},
                         [("alice", stacks[0]), ("bob", stacks[1])], deck)


def play(state, *moves):
    events = []
    for kind in moves:
        state, ev = GAME.apply(state, state.to_act, {"type": kind})
        events += ev
    return state, events


def test_the_deal_antes_and_gives_one_private_card_each():
    s = deal([K_H, Q_S, J_H, J_S, Q_H, K_S])  # button 1: seat 0 acts first and gets deck[0]
    assert (s.cards, s.public, s.stacks, s.put, s.to_act) == ((K_H, Q_S), J_H, (99, 99), (1, 1), 0)
    opening = GAME.start_events(s)
    assert [e["type"] for e in opening] == ["ante", "ante", "deal", "deal"]
    assert event_for(opening[2], 1) == {"type": "deal", "seat": 0}  # the other's card is hidden
    assert event_for(opening[2], 0)["cards"] == [K_H]
    assert GAME.view(s, 1)["hole"] == [Q_S] and GAME.view(s, 1)["board"] == []
    assert GAME.view(s, None)["hole"] is None


def test_a_round_is_fixed_limit_with_two_raises_and_the_public_card_comes_after_it():
    s = deal([K_H, Q_S, J_H, J_S, Q_H, K_S])
    assert GAME.legal_actions(s, 0) == {"fold": False, "check": True, "call": 0, "raise": 2}
    s, _ = play(s, "raise", "raise")  # 2, then 2 + 2
    assert GAME.legal_actions(s, 0) == {"fold": True, "check": False, "call": 2, "raise": 0}  # two raises: capped
    with pytest.raises(IllegalAction) as e:
        GAME.apply(s, 0, {"type": "raise"})
    assert e.value.code == "bad_action"
    s, events = play(s, "call")
    assert events[-1] == {"type": "board", "cards": [J_H], "board": [J_H]}
    assert (s.round, s.bets, s.put, s.to_act) == (1, (0, 0), (5, 5), 0)
    assert GAME.legal_actions(s, 0)["raise"] == 4  # the big bet
    s, events = play(s, "check", "check")
    assert s.is_over and events[-2]["type"] == "showdown"
    assert events[-1] == {"type": "hand_over", "stacks": [105, 95], "won": [10, 0]}  # king high beats queen


def test_a_pair_with_the_public_card_beats_a_higher_card_and_equal_ranks_split():
    s, events = play(deal([J_S, K_H, J_H, Q_S, Q_H, K_S]), "check", "check", "check", "check")
    assert events[-1]["won"] == [2, 0] and "a pair of jacks" in events[-2]["hands"][0]["hand"]
    s, events = play(deal([K_S, K_H, J_H, Q_S, Q_H, J_S]), "check", "check", "check", "check")
    assert events[-1]["won"] == [1, 1]


def test_a_fold_ends_the_hand_without_showing_anything():
    s, events = play(deal([K_H, Q_S, J_H, J_S, Q_H, K_S]), "raise", "fold")
    assert s.is_over and [e["type"] for e in events] == ["action", "action", "hand_over"]
    assert events[-1]["won"] == [4, 0] and GAME.view(s, 1)["board"] == []  # the public card never shown
    assert all(seat is None or seat["cards"] is None for seat in GAME.view(s, None)["seats"])


def test_an_all_in_runs_the_hand_out():
    s = deal([K_H, Q_S, J_H, J_S, Q_H, K_S], stacks=(3, 100))
    s, events = play(s, "raise")  # the two chips left after the ante: all in
    assert s.stacks[0] == 0 and GAME.legal_actions(s, 1) == {"fold": True, "check": False, "call": 2, "raise": 0}
    s, events = play(s, "call")
    assert s.is_over and [e["type"] for e in events][-3:] == ["board", "showdown", "hand_over"]
    short = deal([K_H, Q_S, J_H, J_S, Q_H, K_S], stacks=(1, 100))  # the ante is all it has
    assert short.is_over and [e["type"] for e in GAME.start_events(short)][-3:] == ["board", "showdown", "hand_over"]


def test_the_dealing_rule_is_the_one_fair_decks_publish():
    rng = random.Random(6)
    for _ in range(50):
        deck = rng.sample(range(6), 6)
        s = deal(deck, button=rng.choice([0, 1]))
        placed = fairness.layout(GAME, deck, fairness.deal_order(GAME, s, deck))
        assert placed == {"hands": {s.order[0]: [s.cards[s.order[0]]], s.order[1]: [s.cards[s.order[1]]]},
                          "board": [s.public]}


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 60), st.integers(1, 60), st.permutations(range(6)), st.integers(0, 2**32), st.booleans())
def test_random_hands_keep_every_chip_and_round_trip_through_storage(a, b, deck, seed, button):
    rng = random.Random(seed)
    s = deal(list(deck), stacks=(a, b), button=int(button))
    events = GAME.start_events(s)
    while not s.is_over:
        legal = GAME.legal_actions(s, s.to_act)
        assert GAME.legal_actions(s, 1 - s.to_act) is None
        s, ev = GAME.apply(s, s.to_act, {"type": rng.choice([k for k in ("fold", "check", "call", "raise")
                                                             if legal[k]])})
        events += ev
        assert GAME.from_dict(GAME.to_dict(s)) == s
    assert sum(s.stacks) == a + b and sum(s.won) == sum(s.put)
    assert events[-1]["type"] == "hand_over"
    hidden = [event_for(e, None) for e in events if e["type"] == "deal"]
    assert all("cards" not in e for e in hidden)  # a spectator never sees a private card dealt
    assert all(GAME.format_event(e, lambda i: f"seat {i}") is not None or e["type"] not in ("action", "board")
               for e in events)


def test_card_names():
    assert NAMES == ("J♥", "J♠", "Q♥", "Q♠", "K♥", "K♠")


@pytest.mark.parametrize("first,second", [("smart", "random"), ("random", "smart"), ("smart", "smart")])
def test_the_strategies_play_only_legal_actions_and_smart_beats_random(first, second):
    rng, chips = random.Random(9), [0, 0]
    for n in range(600):
        s = deal(rng.sample(range(6), 6), stacks=(30, 30), button=n % 2)
        while not s.is_over:
            view = GAME.view(s, s.to_act)
            s, _ = GAME.apply(s, s.to_act, GAME.bots[(first, second)[s.to_act]](view, view["legal"], rng))
        chips = [chips[i] + s.stacks[i] - 30 for i in range(2)]
    if first != second:  # the seat of smart won the chips (a seeded run: the same every time)
        assert chips[(first, second).index("smart")] > 0
