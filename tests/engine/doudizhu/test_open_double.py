"""明牌 (open hand) and 加倍 (doubling): the room options ``open_hand`` and ``doubling``.

With button 0 the turn order is 1, 2, 0; in these hands seat 1 becomes the landlord, so
the peasants are 2 then 0 and the doubling round asks 2, 0, then 1.
"""

from __future__ import annotations

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.doudizhu import GAME, apply, from_dict, legal_actions, legal_to_wire, to_dict, view
from engine.doudizhu.scoring import pair_multipliers, seat_multipliers, settle

from .hand_helpers import PASS, bid, deal, play, swap_hidden
from .test_hand import SPRING_LANDLORD, SPRING_STEPS, rejected, run

OPEN = {"type": "open"}
DOUBLE = {"type": "double"}
VIEWERS = (0, 1, 2, None)


def landlord_by_bid(value=3, hands=None, bottom="BR2", **options):
    """Seat 1 bids ``value`` (the others pass below 3) and is the landlord."""
    s = deal(hands or {}, bottom, **options)
    s, events = apply(s, 1, bid(value))
    if value < 3:
        s, more = run(s, [(2, PASS), (0, PASS)])
        events += more
    return s, events


# --- the options ---------------------------------------------------------------------

def test_both_options_are_off_by_default_and_named_in_the_game():
    config = GAME.parse_config({})
    assert config["doubling"] is False and config["open_hand"] is False
    s, events = landlord_by_bid()
    assert s.phase == "play" and s.to_act == 1 and events[-1]["type"] == "landlord"
    assert s.open_hand == 1 and s.doubled == [None, None, None]
    assert all(x["shown"] is None and x["doubled"] is None and x["multiplier"] is None for x in view(s, 0)["seats"])


def test_the_options_must_be_bools():
    from engine.errors import ConfigError
    for name in ("doubling", "open_hand"):
        with pytest.raises(ConfigError) as e:
            GAME.parse_config({name: "yes"})
        assert e.value.field == name


# --- open hand (明牌) -----------------------------------------------------------------

def test_open_hand_asks_the_landlord_before_the_bottom_cards_are_taken():
    s, events = landlord_by_bid(open_hand=True)
    assert [e["type"] for e in events] == ["bid"]  # no bottom cards yet
    assert s.phase == "open" and s.to_act == 1 and s.landlord == 1 and not s.bottom_taken
    assert len(s.hands[1]) == 17 and view(s, 0)["bottom"] is None
    assert legal_to_wire(legal_actions(s, 1)) == {
        "phase": "open", "can_open": True, "can_pass": True, "multiplier": 4, "before_bottom": True}
    assert legal_actions(s, 2) is None


def test_shown_before_the_bottom_multiplies_by_four_and_every_viewer_sees_the_hand():
    s, _ = landlord_by_bid(open_hand=True)
    hand17 = list(s.hands[1])
    s, events = apply(s, 1, OPEN)
    assert [e["type"] for e in events] == ["open_hand", "landlord"]
    assert events[0]["cards"] == hand17 and events[0]["before_bottom"] and events[0]["multiplier"] == 12
    assert events[1]["multiplier"] == 12  # bid 3 x open 4
    assert s.phase == "play" and s.to_act == 1 and s.open_hand == 4 and len(s.hands[1]) == 20
    for viewer in VIEWERS:
        v = view(s, viewer)
        assert v["seats"][1]["shown"] == s.hands[1] and v["open_hand"] == 4 and v["multiplier"] == 12
        assert v["seats"][0]["shown"] is None and v["seats"][2]["shown"] is None
        if viewer in (0, 2):  # a peasant still sees only its own hand of the others
            other = 2 if viewer == 0 else 0
            assert v["hand"] == s.hands[viewer] and s.hands[other] != v["hand"]
            assert view(swap_hidden(s, viewer), viewer) == v
    s, _ = apply(s, 1, play("3"))
    assert view(s, None)["seats"][1]["shown"] == s.hands[1] and len(s.hands[1]) == 19


def test_shown_after_the_bottom_multiplies_by_two():
    s, _ = landlord_by_bid(open_hand=True)
    s, events = apply(s, 1, PASS)
    assert events[0] == {"type": "pass", "seat": 1, "phase": "open"} and events[1]["type"] == "landlord"
    assert s.phase == "open" and s.to_act == 1 and s.bottom_taken and len(s.hands[1]) == 20
    assert view(s, 0)["bottom"] == s.bottom and view(s, 0)["seats"][1]["shown"] is None
    assert legal_to_wire(legal_actions(s, 1))["multiplier"] == 2
    assert legal_to_wire(legal_actions(s, 1))["before_bottom"] is False
    s, events = apply(s, 1, OPEN)
    assert [e["type"] for e in events] == ["open_hand"]
    assert events[0]["multiplier"] == 6 and not events[0]["before_bottom"] and len(events[0]["cards"]) == 20
    assert s.phase == "play" and s.open_hand == 2 and view(s, 2)["seats"][1]["shown"] == s.hands[1]


def test_declining_twice_keeps_the_hand_hidden():
    s, _ = landlord_by_bid(open_hand=True)
    s, _ = run(s, [(1, PASS), (1, PASS)])
    assert s.phase == "play" and s.open_hand == 1
    for viewer in (0, 2, None):
        assert view(s, viewer)["seats"][1]["shown"] is None
        assert view(swap_hidden(s, viewer), viewer) == view(s, viewer)


def test_the_open_choice_refuses_other_actions_and_other_seats():
    s, _ = landlord_by_bid(open_hand=True)
    rejected(s, 2, OPEN, "not_your_turn")
    rejected(s, 0, PASS, "not_your_turn")
    for bad in (DOUBLE, play("3"), bid(3), {"type": "rob"}):
        rejected(s, 1, bad, "bad_action")


def test_open_hand_multiplies_the_settlement():
    s = deal({1: SPRING_LANDLORD}, "33R", open_hand=True)
    s, _ = run(s, SPRING_STEPS[:3] + [(1, OPEN)])
    s, events = run(s, SPRING_STEPS[3:])
    end = events[-1]
    assert end["multiplier"]["open_hand"] == 4 and end["multiplier"]["final"] == 8 * 4
    assert end["points"] == [-32, 64, -32] and end["chips"] == [-320, 640, -320]


# --- doubling (加倍) ----------------------------------------------------------------------

def test_doubling_asks_the_peasants_then_the_landlord_then_the_landlord_leads():
    s, events = landlord_by_bid(doubling=True)
    assert events[-1]["type"] == "landlord" and s.bottom_taken
    assert s.phase == "doubling" and s.to_act == 2
    assert legal_to_wire(legal_actions(s, 2)) == {"phase": "doubling", "can_double": True, "can_pass": True}
    s, events = apply(s, 2, DOUBLE)
    assert events == [{"type": "double", "seat": 2, "multiplier": 6}] and s.to_act == 0
    s, events = apply(s, 0, PASS)
    assert events == [{"type": "pass", "seat": 0, "phase": "doubling"}] and s.to_act == 1
    assert s.phase == "doubling"
    s, events = apply(s, 1, DOUBLE)
    assert events == [{"type": "double", "seat": 1, "multiplier": 12 + 6}]
    assert s.phase == "play" and s.to_act == 1 and s.doubled == [False, True, True]
    seats = view(s, None)["seats"]
    assert [x["doubled"] for x in seats] == [False, True, True]
    assert [x["multiplier"] for x in seats] == [6, 18, 12]  # bid 3: 3x2, 3x2x2 + 3x2, 3x2x2
    assert legal_to_wire(legal_actions(s, 1))["phase"] == "play"


def test_doubling_refuses_out_of_turn_seats_and_other_actions():
    s, _ = landlord_by_bid(doubling=True)
    rejected(s, 1, DOUBLE, "not_your_turn")  # the landlord answers last
    rejected(s, 0, PASS, "not_your_turn")
    for bad in (OPEN, play("3"), bid(1), {"type": "call"}):
        rejected(s, 2, bad, "bad_action")
    s, _ = apply(s, 2, PASS)
    rejected(s, 2, DOUBLE, "not_your_turn")  # once each
    rejected(s, 1, PASS, "not_your_turn")


def test_open_hand_comes_before_doubling():
    s, _ = landlord_by_bid(open_hand=True, doubling=True)
    assert s.phase == "open"
    s, _ = apply(s, 1, OPEN)
    assert s.phase == "doubling" and s.to_act == 2
    assert view(s, 0)["seats"][1]["shown"] == s.hands[1]


def test_doubling_settles_each_peasant_with_the_landlord_separately():
    # spring hand: bid 1, a bomb, the rocket, a spring = x8; peasant 2 doubles, peasant 0
    # does not, the landlord doubles: 1 vs 2 is 8x2x2 = 32, 1 vs 0 is 8x2 = 16
    s = deal({1: SPRING_LANDLORD}, "33R", doubling=True)
    s, _ = run(s, SPRING_STEPS[:3] + [(2, DOUBLE), (0, PASS), (1, DOUBLE)])
    s, events = run(s, SPRING_STEPS[3:])
    end = events[-1]
    assert end["multiplier"]["final"] == 8
    assert end["doubled"] == [False, True, True] and end["seat_multipliers"] == [16, 48, 32]
    assert end["points"] == [-16, 48, -32] and end["chips"] == [-160, 480, -320]
    assert s.stacks == [840, 1480, 680]


def test_nobody_doubling_settles_as_without_the_option():
    plain = run(deal({1: SPRING_LANDLORD}, "33R"), SPRING_STEPS)[1][-1]
    s = deal({1: SPRING_LANDLORD}, "33R", doubling=True)
    s, _ = run(s, SPRING_STEPS[:3] + [(2, PASS), (0, PASS), (1, PASS)])
    end = run(s, SPRING_STEPS[3:])[1][-1]
    assert end["points"] == plain["points"] and end["chips"] == plain["chips"]
    assert end["seat_multipliers"] == [8, 16, 8] and end["doubled"] == [False, False, False]


def test_the_cap_applies_to_each_doubled_payment():
    s = deal({1: SPRING_LANDLORD}, "33R", doubling=True, max_multiplier=20)
    s, _ = run(s, SPRING_STEPS[:3] + [(2, DOUBLE), (0, PASS), (1, DOUBLE)])
    end = run(s, SPRING_STEPS[3:])[1][-1]
    assert end["seat_multipliers"] == [16, 36, 20] and end["points"] == [-16, 36, -20]


def test_a_short_landlord_pays_the_peasants_in_proportion_to_what_each_is_owed():
    s = settle([1000, 1000, 90], landlord=2, peasants=[0, 1], landlord_won=False, multiplier=2, stake=10,
               pairs=[4, 2])
    assert s.owed == [40, 20, -60] and s.chips == [40, 20, -60] and not s.short
    s = settle([1000, 1000, 50], landlord=2, peasants=[0, 1], landlord_won=False, multiplier=2, stake=10,
               pairs=[4, 2])
    assert s.chips == [34, 16, -50] and s.short  # 50 x 2/6 = 16 (rounded down) to the second


def test_pair_and_seat_multipliers():
    assert pair_multipliers(6, [True, False, True], landlord=0, peasants=[1, 2], cap=0) == (12, 24)
    assert pair_multipliers(6, [True, False, True], landlord=0, peasants=[1, 2], cap=20) == (12, 20)
    assert pair_multipliers(6, [None, None, None], landlord=0, peasants=[1, 2], cap=0) == (6, 6)
    assert seat_multipliers((12, 24), landlord=0, peasants=[1, 2], seats=4) == [36, 12, 24, None]


def test_the_worked_example_of_the_document():
    # stake 10, bid 3 and a bomb (x6); peasant A (seat 1) and the landlord (seat 0) double
    doubled = [True, True, False]
    pairs = pair_multipliers(6, doubled, landlord=0, peasants=[1, 2], cap=0)
    assert pairs == (24, 12)
    s = settle([1000] * 3, 0, [1, 2], True, 6, 10, pairs)
    assert s.points == [36, -24, -12] and s.chips == [360, -240, -120]
    s = settle([1000] * 3, 0, [1, 2], False, 6, 10, pairs)
    assert s.chips == [-360, 240, 120]
    capped = pair_multipliers(6, doubled, landlord=0, peasants=[1, 2], cap=20)
    assert settle([1000] * 3, 0, [1, 2], True, 6, 10, capped).points == [32, -20, -12]
    assert pair_multipliers(12, doubled, landlord=0, peasants=[1, 2], cap=0) == (48, 24)


@settings(max_examples=300, deadline=None)
@given(stacks=st.lists(st.integers(0, 2000), min_size=3, max_size=3), won=st.booleans(),
       uncapped=st.integers(1, 96), doubled=st.lists(st.booleans(), min_size=3, max_size=3),
       cap=st.sampled_from([0, 0, 8, 48]), stake=st.integers(1, 50), landlord=st.integers(0, 2))
def test_settlement_with_doubling_conserves_chips_and_never_takes_more_than_a_stack(
        stacks, won, uncapped, doubled, cap, stake, landlord):
    peasants = [(landlord + 1) % 3, (landlord + 2) % 3]
    pairs = pair_multipliers(uncapped, doubled, landlord, peasants, cap)
    s = settle(list(stacks), landlord, peasants, won, uncapped, stake, pairs)
    assert sum(s.chips) == 0 and sum(s.points) == 0 and min(s.stacks) >= 0
    assert s.points[landlord] == (1 if won else -1) * sum(pairs)
    for p, m in zip(peasants, pairs, strict=True):
        assert s.points[p] == (-1 if won else 1) * m
        assert abs(s.chips[p]) <= m * stake
    if not s.short:
        assert s.chips == s.owed


# --- timeouts, persistence ------------------------------------------------------------------

def test_a_timeout_neither_shows_the_hand_nor_doubles():
    s, _ = landlord_by_bid(open_hand=True, doubling=True)
    for _ in range(2):
        action = GAME.timeout_action(s, s.to_act)
        assert action == PASS
        s, _ = apply(s, s.to_act, action)
    assert s.phase == "doubling" and s.open_hand == 1
    for seat in (2, 0, 1):
        assert GAME.timeout_action(s, seat) == PASS
        s, _ = apply(s, seat, PASS)
    assert s.phase == "play" and s.doubled == [False, False, False]


def test_open_and_doubling_states_round_trip():
    s, _ = landlord_by_bid(open_hand=True, doubling=True)
    states = [s]
    for seat, action in [(1, PASS), (1, OPEN), (2, DOUBLE), (0, PASS)]:
        s, _ = apply(s, seat, action)
        states.append(s)
    for st_ in states:
        back = from_dict(msgpack.unpackb(msgpack.packb(to_dict(st_))))
        assert back == st_ and view(back, 0) == view(st_, 0)
    assert states[-1].doubled == [False, None, True] and states[-1].open_hand == 2


def test_a_state_stored_before_these_options_loads_and_plays_with_them_off():
    s = deal({}, "BR2")
    old = to_dict(s)
    del old["open_hand"], old["doubled"], old["options"]["open_hand"], old["options"]["doubling"]
    back = from_dict(old)
    assert back.open_hand == 1 and back.doubled == [None, None, None]
    back, events = apply(back, 1, bid(3))
    assert back.phase == "play" and events[-1]["type"] == "landlord"
