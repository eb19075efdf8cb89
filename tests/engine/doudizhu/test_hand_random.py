"""Random whole games with random legal moves (hypothesis): the invariants of a hand.

Every step checks: cards are conserved (hands + unplayed bottom + played cards are the
54 cards once each), every offered action is accepted, random card sets are accepted
exactly when they form a play that is offered (else rejected with the state
unchanged), out-of-turn actions are rejected, views never depend on other seats'
hidden cards (a landlord's hand shown face up is the only other hand in a view), and
the state round-trips through msgpack. Rooms with and without 明牌 (open hand) and
加倍 (doubling) are drawn alike. Every game ends, and a
settled game's points and chips sum to zero.
"""

from __future__ import annotations

import msgpack
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.doudizhu import (
    apply,
    cards_for,
    from_dict,
    legal_actions,
    legal_to_wire,
    new_hand,
    to_dict,
    view,
)
from engine.doudizhu.ranks import counts_from_cards
from engine.errors import IllegalAction

from .hand_helpers import swap_hidden

MAX_STEPS = 300


def offered_actions(state, seat) -> list[dict]:
    """Every action legal_actions offers, in wire-ready form (plays as card ids)."""
    legal = legal_actions(state, seat)
    assert legal is not None
    if legal.phase == "bidding":
        b = legal.bidding
        out = [{"type": "pass"}]
        out += [{"type": "bid", "value": v} for v in b.bids]
        if b.can_call:
            out.append({"type": "call"})
        if b.can_rob:
            out.append({"type": "rob"})
        return out
    if legal.phase == "open":
        return [{"type": "pass"}, {"type": "open"}]
    if legal.phase == "doubling":
        return [{"type": "pass"}, {"type": "double"}]
    out = [{"type": "pass"}] if legal.can_pass else []
    hand = state.hands[seat]
    out += [{"type": "play", "cards": cards_for(p, hand)} for p in legal.plays]
    return out


def assert_rejected(state, seat, action) -> str:
    before = to_dict(state)
    try:
        apply(state, seat, action)
    except IllegalAction as e:
        assert to_dict(state) == before
        return e.code
    raise AssertionError(f"{action} by seat {seat} was accepted")


def cards_accounted(state) -> list[int]:
    cards = [c for h in state.hands for c in h]
    if not state.bottom_taken:
        cards += state.bottom
    cards += [c for m in state.history if m["type"] == "play" for c in m["cards"]]
    return sorted(cards)


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.data(),
    deck=st.permutations(list(range(54))),
    style=st.sampled_from(["score", "rob"]),
    stacks=st.lists(st.integers(0, 500), min_size=3, max_size=3),
    empty=st.sampled_from([None, 0, 1, 2, 3]),
    stake=st.integers(1, 20),
    cap=st.sampled_from([0, 0, 4, 16]),
    doubling=st.booleans(),
    open_hand=st.booleans(),
)
def test_random_games_keep_every_rule(data, deck, style, stacks, empty, stake, cap, doubling, open_hand):
    seats = [(f"p{i}", stacks[i % 3]) for i in range(4)]
    if empty is None:
        seats = seats[:3]
    else:
        seats[empty] = None
    occupied = [i for i, s in enumerate(seats) if s is not None]
    button = data.draw(st.sampled_from(occupied))
    config = {"button": button, "bidding": style, "stake": stake, "max_multiplier": cap,
              "doubling": doubling, "open_hand": open_hand}
    state = new_hand(config, seats, deck)
    total = sum(s for s in state.stacks if s is not None)
    for _ in range(MAX_STEPS):
        if state.is_over:
            break
        seat = state.to_act
        assert sorted(cards_accounted(state)) == list(range(54))
        # views: plain data, nothing hidden leaks
        for viewer in occupied:
            v = view(state, viewer)
            assert msgpack.unpackb(msgpack.packb(v)) == v
            assert v["hand"] == state.hands[viewer]
            if viewer != seat:
                assert v["legal"] is None
            assert view(swap_hidden(state, viewer), viewer) == v
            shown = [x["seat"] for x in v["seats"] if x is not None and x["shown"] is not None]
            assert shown == ([state.landlord] if state.open_hand > 1 else [])
        assert view(swap_hidden(state, None), None) == view(state, None)
        # out-of-turn actions are rejected
        wrong = data.draw(st.sampled_from([s for s in occupied if s != seat]))
        assert assert_rejected(state, wrong, {"type": "pass"}) == "not_your_turn"
        offered = offered_actions(state, seat)
        assert timeout_is_accepted(state, seat, offered)
        if state.phase == "play":
            legal = legal_actions(state, seat)
            offered_counts = {p.counts for p in legal.plays}
            assert len(offered_counts) == len(legal.plays)  # each multiset once
            hand = state.hands[seat]
            subset = data.draw(st.lists(st.sampled_from(hand), unique=True, max_size=min(8, len(hand))))
            action = {"type": "play", "cards": subset}
            if counts_from_cards(subset) in offered_counts:
                apply(state, seat, action)
            else:
                assert assert_rejected(state, seat, action) in (
                    "not_a_valid_play", "does_not_beat")
            if not legal.can_pass:
                assert assert_rejected(state, seat, {"type": "pass"}) == "must_play"
        elif state.phase in ("open", "doubling"):
            for bad in ({"type": "play", "cards": []}, {"type": "bid", "value": 1},
                        {"type": "double" if state.phase == "open" else "open"}):
                assert assert_rejected(state, seat, bad) == "bad_action"
        else:
            for bad in ({"type": "bid", "value": 0}, {"type": "play", "cards": []}, {"type": "call", "x": 1}
                        if style == "score" else {"type": "bid", "value": 1}):
                assert_rejected(state, seat, bad)
        before = to_dict(state)
        chosen = data.draw(st.sampled_from(offered))
        new, events = apply(state, seat, chosen)
        assert to_dict(state) == before
        assert events and all(isinstance(e.get("type"), str) for e in events)
        assert msgpack.unpackb(msgpack.packb(events)) == events
        state = new
        assert from_dict(msgpack.unpackb(msgpack.packb(to_dict(state)))) == state
    assert state.is_over, "the game did not end"
    assert state.to_act is None and legal_to_wire(legal_actions(state, occupied[0])) is None
    assert sum(s for s in state.stacks if s is not None) == total
    result = state.result
    if result["type"] == "redeal":
        assert state.stacks == state.start_stacks
    else:
        assert sum(p for p in result["points"] if p is not None) == 0
        assert sum(c for c in result["chips"] if c is not None) == 0
        assert min(s for s in state.stacks if s is not None) >= 0
        assert [h for h in state.hands if h == []] and result["hands"][result["out_seat"]] == []


def timeout_is_accepted(state, seat, offered) -> bool:
    """The timeout action is always one that is accepted."""
    from engine.doudizhu import GAME
    action = GAME.timeout_action(state, seat)
    apply(state, seat, action)
    return action["type"] == "pass" or action in offered
