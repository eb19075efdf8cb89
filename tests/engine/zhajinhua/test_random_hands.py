"""Random Zha Jin Hua hands under random configs (rule variants included), 2-9 players.

Every step checks: chips conserved, nobody below zero, no card dealt twice, offered
actions accepted, everything else rejected with the state unchanged, apply never
mutates its input, views and events are msgpack/JSON safe and never show a seat
cards it was not shown, and the hand ends within ``max_rounds`` rounds.
"""

from __future__ import annotations

import json
import os

import msgpack
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.errors import IllegalAction
from engine.game import event_for
from engine.zhajinhua import (
    apply,
    from_dict,
    legal_actions,
    new_hand,
    timeout_action,
    to_dict,
    view,
)

from .zjh_helpers import is_offered


@st.composite
def tables(draw):
    n_seats = draw(st.integers(2, 9))
    ante = draw(st.integers(1, 20))
    options = {
        "a23": draw(st.sampled_from(["lowest", "second"])),
        "special_235": draw(st.sampled_from(["off", "offsuit", "rainbow"])),
        "order": draw(st.sampled_from(["common", "probability"])),
        "suit_tiebreak": draw(st.booleans()),
        "ante": ante,
        "max_stake": ante * draw(st.integers(1, 10)),
        "compare_after_rounds": draw(st.integers(0, 3)),
        "compare_cost_multiplier": draw(st.integers(1, 3)),
        "max_rounds": draw(st.one_of(st.integers(1, 6), st.just(20))),
        "all_in": draw(st.sampled_from(["compare_all", "fold_only"])),
        "timeout": draw(st.sampled_from(["fold", "call_blind"])),
    }
    # Two seats always have the ante; the rest may be empty, short or deep.
    stacks = [draw(st.one_of(st.none(), st.integers(0, ante * 40))) for _ in range(n_seats)]
    rich = draw(st.lists(st.integers(0, n_seats - 1), min_size=2, max_size=2, unique=True))
    for s in rich:
        stacks[s] = draw(st.integers(ante, ante * 40))
    occupied = [s for s, st_ in enumerate(stacks) if st_ is not None]
    button = draw(st.sampled_from(occupied))
    seats = [None if st_ is None else (f"p{s}", st_) for s, st_ in enumerate(stacks)]
    deck = draw(st.permutations(list(range(52))))
    return options, button, seats, deck


def any_action(n_seats: int):
    """Actions a client might send: well formed or not, offered or not."""
    amounts = st.one_of(st.integers(-5, 500), st.booleans(), st.none(), st.text(max_size=2),
                        st.floats(allow_nan=False, max_value=1e3, min_value=-1e3))
    return st.one_of(
        st.sampled_from([{"type": "look"}, {"type": "call"}, {"type": "fold"},
                         {"type": "all_in"}, {"type": "bet"}, {}, {"type": None}]),
        st.builds(lambda a: {"type": "raise", "stake": a}, amounts),
        st.builds(lambda t: {"type": "compare", "target": t},
                  st.one_of(st.integers(-2, n_seats + 1), st.booleans(), st.none())),
        st.sampled_from([None, "call", [], 3]),
    )


def offered_turn_actions(state, seat) -> list[dict]:
    legal = legal_actions(state, seat)
    out: list[dict] = []
    if legal.call is not None:
        out += [{"type": "call"}] * 3
    if legal.raise_min is not None:
        out += [{"type": "raise", "stake": legal.raise_min},
                {"type": "raise", "stake": legal.raise_max}]
    out += [{"type": "compare", "target": t} for t in legal.compare_targets]
    if legal.all_in is not None:
        out.append({"type": "all_in"})
    if legal.look:
        out.append({"type": "look"})
    out.append({"type": "fold"})
    return out


def cards_revealed(events, viewer) -> set[tuple[int, tuple[int, ...]]]:
    """(seat, cards) pairs the events delivered to ``viewer``."""
    seen = set()
    for e in events:
        e = event_for(e, viewer)
        if e["type"] == "look" and "cards" in e:
            seen.add((e["seat"], tuple(e["cards"])))
        for h in e.get("hands", ()):
            seen.add((h["seat"], tuple(h["cards"])))
    return seen


def check_state(state, total: int, n_seats: int, revealed) -> None:
    stacks = [s for s in state.stacks if s is not None]
    assert all(s >= 0 for s in stacks)
    assert sum(stacks) + (0 if state.is_over else state.pot) == total  # chips conserved
    if state.is_over:
        assert sum(state.payouts) == state.pot and state.to_act is None
    else:
        assert state.status[state.to_act] == "playing"
    assert 1 <= state.round <= state.options["max_rounds"]
    assert from_dict(msgpack.unpackb(msgpack.packb(to_dict(state)))) == state
    for viewer in [*range(n_seats), None]:
        v = view(state, viewer)
        assert msgpack.unpackb(msgpack.packb(v)) == json.loads(json.dumps(v))
        for entry in v["seats"]:
            if entry is not None and entry["cards"] is not None:
                assert (entry["seat"], tuple(entry["cards"])) in revealed[viewer]
        if viewer is not None and viewer != state.to_act and v["legal"] is not None:
            assert v["legal"]["actions"] == ["look"]  # off turn a seat may only look


# ZJH_EXAMPLES=2000 runs a longer search locally; CI uses the default.
@settings(max_examples=int(os.environ.get("ZJH_EXAMPLES", "120")), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=tables(), data=st.data())
def test_random_hands_conserve_chips_accept_exactly_the_offered_actions_and_terminate(table, data):
    options, button, seats, deck = table
    n_seats = len(seats)
    state = new_hand({"button": button, **options}, seats, deck)
    total = sum(s[1] for s in seats if s is not None)

    dealt = [c for h in state.hands if h is not None for c in h]
    assert len(dealt) == len(set(dealt)) == 3 * sum(h is not None for h in state.hands)
    assert set(dealt) == set(deck[:len(dealt)])  # no card dealt twice, all from the deck top

    revealed = {viewer: set() for viewer in [*range(n_seats), None]}
    n_dealt = sum(h is not None for h in state.hands)
    bound = options["max_rounds"] * n_dealt + 2 * n_dealt
    check_state(state, total, n_seats, revealed)

    def step(state, seat, action):
        before = to_dict(state)
        legal = legal_actions(state, seat) if isinstance(seat, int) and 0 <= seat < n_seats \
            else None
        if legal is not None and is_offered(legal, action):
            new, events = apply(state, seat, action)
            assert to_dict(state) == before  # apply never mutates its input
            msgpack.packb(events)
            json.dumps(events)
            assert all(isinstance(e["type"], str) for e in events)
            for viewer in revealed:
                revealed[viewer] |= cards_revealed(events, viewer)
            check_state(new, total, n_seats, revealed)
            return new
        try:
            apply(state, seat, action)
        except IllegalAction as err:
            assert err.code and err.message
        else:
            raise AssertionError(f"not offered but accepted: seat {seat} {action}")
        assert to_dict(state) == before
        return state

    for _ in range(bound):
        # a probe from any seat with any action: accepted iff offered
        probe_seat = data.draw(st.integers(-1, n_seats))
        state = step(state, probe_seat, data.draw(any_action(n_seats)))
        if state.is_over:
            break
        # the seat to act plays an offered move (sometimes its timeout action)
        seat = state.to_act
        if data.draw(st.integers(0, 9)) == 0:
            action = timeout_action(state, seat)
            assert is_offered(legal_actions(state, seat), action)  # a timeout always applies
        else:
            action = data.draw(st.sampled_from(offered_turn_actions(state, seat)))
        state = step(state, seat, action)
        if state.is_over:
            break
    assert state.is_over, "the hand did not end within max_rounds"
    assert sum(state.stacks[s] for s in range(n_seats) if state.stacks[s] is not None) == total
