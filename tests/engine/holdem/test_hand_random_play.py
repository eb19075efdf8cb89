"""Random hands: chips and cards conserved, offered actions accepted, others rejected."""

from __future__ import annotations

import json

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.errors import IllegalAction
from engine.holdem import (
    HoldemState,
    apply,
    from_dict,
    legal_actions,
    new_hand,
    to_dict,
    view,
)

MAX_STEPS = 400  # a hand of 10 players never needs this many actions


@st.composite
def hands(draw):
    n_seats = draw(st.integers(2, 10))
    occupied = draw(st.lists(st.booleans(), min_size=n_seats, max_size=n_seats))
    if sum(occupied) < 2:
        occupied[0] = occupied[-1] = True
    small = draw(st.integers(1, 50))
    big = draw(st.integers(small, 100))
    ante = draw(st.sampled_from([0, 0, 1, 5, 30]))
    seats = [(f"p{s}", draw(st.integers(1, 2500))) if occupied[s] else None for s in range(n_seats)]
    button = draw(st.sampled_from([s for s in range(n_seats) if occupied[s]]))
    deck = draw(st.permutations(range(52)))
    config = {"small_blind": small, "big_blind": big, "ante": ante, "button": button}
    return config, seats, list(deck)


def offered_actions(state: HoldemState, seat: int, draw) -> list[dict]:
    legal = legal_actions(state, seat)
    actions = []
    if legal.fold:
        actions.append({"type": "fold"})
    if legal.check:
        actions += [{"type": "check"}] * 3
    if legal.call:
        actions += [{"type": "call"}] * 3
    if legal.min_to is not None:
        actions.append({"type": "raise", "to": legal.min_to})
        actions.append({"type": "bet", "to": legal.max_to})
        actions.append({"type": "raise", "to": draw(st.integers(legal.min_to, legal.max_to))})
    if legal.all_in:
        actions.append({"type": "all_in"})
    return actions


def unoffered_actions(state: HoldemState, seat: int) -> list[tuple[int, object]]:
    legal = legal_actions(state, seat)
    bad: list[tuple[int, object]] = [
        (seat, {"type": "dance"}), (seat, {"kind": "call"}), (seat, ["call"]), (seat, "fold"),
        (seat, {"type": "raise"}), (seat, {"type": "raise", "to": True}),
        (seat, {"type": "raise", "to": 150.0}), (seat, {"type": "raise", "to": "200"}),
        (seat, {"type": None}),
    ]
    others = [s for s in range(state.n_seats) if s != seat]
    bad += [(s, {"type": "check"}) for s in others[:3]] + [(True, {"type": "fold"}), (None, {"type": "call"})]
    if not legal.fold:
        bad.append((seat, {"type": "fold"}))
    if not legal.check:
        bad.append((seat, {"type": "check"}))
    if not legal.call:
        bad.append((seat, {"type": "call"}))
    if not legal.all_in:
        bad.append((seat, {"type": "all_in"}))
    if legal.min_to is None:
        bad.append((seat, {"type": "raise", "to": state.current_bet + state.big_blind}))
        bad.append((seat, {"type": "raise", "to": state.bets[seat] + (state.stacks[seat] or 0)}))
    else:
        bad.append((seat, {"type": "raise", "to": legal.min_to - 1}))
        bad.append((seat, {"type": "bet", "to": legal.max_to + 1}))
        bad.append((seat, {"type": "raise", "to": -5}))
    return bad


def check_invariants(state: HoldemState, total: int) -> None:
    assert state.total_chips() == total
    assert all(s is None or s >= 0 for s in state.stacks)
    cards = [c for hole in state.hole for c in hole] + state.board + state.burned + state.deck
    assert sorted(cards) == list(range(52))
    assert (state.to_act is None) == state.is_over
    assert from_dict(msgpack.unpackb(msgpack.packb(to_dict(state)))) == state
    for viewer in [None, *range(state.n_seats)]:
        seen = view(state, viewer)
        json.dumps(seen)
        for s, info in enumerate(seen["seats"]):
            if info is not None and not state.shown[s]:
                assert info["cards"] is None
        if viewer is not None and state.hole[viewer]:
            assert seen["hole"] == state.hole[viewer]
        assert (seen["legal"] is not None) == (viewer is not None and viewer == state.to_act)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hand=hands(), data=st.data())
def test_random_hands_conserve_chips_and_cards_and_respect_legal_actions(hand, data):
    config, seats, deck = hand
    state = new_hand(config, seats, deck)
    total = sum(s[1] for s in seats if s is not None)
    check_invariants(state, total)
    for _ in range(MAX_STEPS):
        if state.is_over:
            break
        seat = state.to_act
        assert legal_actions(state, seat)
        before = to_dict(state)
        for who, action in unoffered_actions(state, seat):
            try:
                apply(state, who, action)
            except IllegalAction as err:
                assert err.code in ("bad_action", "bad_amount", "not_your_turn")
            else:
                raise AssertionError(f"accepted an action not offered: seat {who} {action}")
            assert to_dict(state) == before
        results = []
        for action in offered_actions(state, seat, data.draw):
            results.append(apply(state, seat, action))  # raises if an offered action is refused
            assert to_dict(state) == before
        state, events = data.draw(st.sampled_from(results))
        assert all(isinstance(e, dict) and "type" in e for e in events)
        msgpack.packb(events)
        check_invariants(state, total)
    assert state.is_over, "hand did not finish"
    assert sum(state.stacks[s] for s in range(len(seats)) if seats[s]) == total
    assert state.pots == [] and not any(state.bets)
    with pytest.raises(IllegalAction) as err:
        apply(state, state.button, {"type": "fold"})
    assert err.value.code == "hand_over"
    assert legal_actions(state, 0).min_to is None
