"""The rules of a Dou Dizhu hand, one test per rule, through the engine contract."""

from __future__ import annotations

import json

import msgpack
import pytest

from engine.doudizhu import (
    GAME,
    apply,
    from_dict,
    legal_actions,
    legal_to_wire,
    new_hand,
    to_dict,
    view,
)
from engine.errors import ConfigError, IllegalAction

from .hand_helpers import CALL, PASS, ROB, bid, deal, play, swap_hidden

# With button 0 the turn order is 1, 2, 0.
SPRING_LANDLORD = "3456789TJQKA2222B"  # + bottom "33R": a 12-card chain, a bomb, the rocket, 33
ANTI_SPRING_PEASANT = "789TJQKAAAA2222BR"  # rocket, 7-card chain, two bombs


def run(state, steps):
    events = []
    for seat, action in steps:
        state, evs = apply(state, seat, action)
        events.extend(evs)
    return state, events


def rejected(state, seat, action, code):
    before = to_dict(state)
    with pytest.raises(IllegalAction) as e:
        apply(state, seat, action)
    assert e.value.code == code, e.value.message
    assert to_dict(state) == before


# --- deal --------------------------------------------------------------------------

def test_deal_gives_seventeen_cards_each_from_left_of_button_and_three_bottom():
    deck = list(range(54))
    s = new_hand({"button": 2}, [("a", 100), ("b", 100), ("c", 100)], deck)
    assert s.order == [0, 1, 2] and s.to_act == 0
    assert sorted(s.hands[0]) == list(range(0, 51, 3))  # one card at a time from seat 0
    assert sorted(s.hands[1]) == list(range(1, 51, 3))
    assert sorted(s.bottom) == [51, 52, 53]
    assert view(s, 0)["bottom"] is None


def test_first_bidder_is_left_of_button_skipping_empty_seats():
    s = new_hand({"button": 3}, [("a", 1), None, ("b", 1), ("c", 1)], list(range(54)))
    assert s.order == [0, 2, 3] and s.to_act == 0
    s = new_hand({"button": 0}, [("a", 1), None, ("b", 1), ("c", 1)], list(range(54)))
    assert s.order == [2, 3, 0]


def test_new_hand_rejects_bad_seats_deck_button_and_options():
    seats = [("a", 1), ("b", 1), ("c", 1)]
    with pytest.raises(ValueError):
        new_hand({"button": 0}, seats[:2], list(range(54)))
    with pytest.raises(ValueError):
        new_hand({"button": 0}, seats, list(range(53)) + [0])
    with pytest.raises(ValueError):
        new_hand({"button": 0}, seats, list(range(52)))
    with pytest.raises(ConfigError):
        new_hand({"button": 3}, seats, list(range(54)))
    with pytest.raises(ConfigError):
        new_hand({}, seats, list(range(54)))
    with pytest.raises(ConfigError):
        new_hand({"button": 0, "bidding": "auction"}, seats, list(range(54)))
    with pytest.raises(ConfigError):
        new_hand({"button": 0, "stake": 0}, seats, list(range(54)))
    with pytest.raises(ConfigError):
        new_hand({"button": 0, "four_with_two": "yes"}, seats, list(range(54)))
    with pytest.raises(ValueError):
        new_hand({"button": 0}, [("a", -1), ("b", 1), ("c", 1)], list(range(54)))


def test_every_play_rule_is_a_hand_option():
    from dataclasses import fields

    from engine.doudizhu import Rules
    names = {o.name for o in GAME.options}
    assert {"bidding", "stake", "max_multiplier"} <= names
    assert {f.name for f in fields(Rules)} <= names
    assert GAME.parse_config({})["bidding"] == "score"


# --- score bidding -----------------------------------------------------------------

def test_score_bid_of_three_makes_landlord_who_takes_bottom_cards_shown_to_all():
    s = deal({1: SPRING_LANDLORD}, "33R")
    s, events = apply(s, 1, bid(3))
    assert s.landlord == 1 and s.phase == "play" and s.to_act == 1
    assert len(s.hands[1]) == 20 and s.hands[1][-1] == 53
    landlord_event = events[-1]
    assert landlord_event["type"] == "landlord" and landlord_event["bottom_ranks"] == "33R"
    for seat in (0, 1, 2, None):
        v = view(s, seat)
        assert sorted(v["bottom"]) == sorted(s.bottom)
        assert v["landlord"] == 1 and v["multiplier"] == 3
        assert [x["cards_left"] for x in v["seats"]] == [17, 20, 17]
        assert [x["role"] for x in v["seats"]] == ["peasant", "landlord", "peasant"]


def test_score_bidding_ends_after_the_others_pass():
    s = deal({}, "BR2")
    s, _ = run(s, [(1, bid(1)), (2, PASS)])
    assert s.phase == "bidding" and s.to_act == 0
    s, _ = apply(s, 0, PASS)
    assert s.landlord == 1 and s.phase == "play" and view(s, 0)["multiplier"] == 1
    assert view(s, 2)["bidding"]["history"] == [
        {"seat": 1, "action": "bid", "value": 1}, {"seat": 2, "action": "pass"}, {"seat": 0, "action": "pass"}]


def test_score_bidding_all_pass_is_a_redeal_with_no_chip_movement():
    s = deal({}, "BR2", stacks=(5, 6, 7))
    s, events = run(s, [(1, PASS), (2, PASS), (0, PASS)])
    assert s.is_over and s.to_act is None and s.landlord is None
    assert events[-1]["type"] == "redeal"
    assert s.stacks == [5, 6, 7]
    assert view(s, 0)["bottom"] is None  # never revealed
    rejected(s, 1, bid(1), "hand_over")


def test_score_bidding_bad_bids_and_wrong_actions_are_rejected():
    s = deal({}, "BR2")
    s, _ = apply(s, 1, bid(2))
    rejected(s, 2, bid(2), "bad_bid")
    rejected(s, 2, bid(4), "bad_bid")
    rejected(s, 2, {"type": "bid", "value": "3"}, "bad_bid")
    rejected(s, 2, CALL, "bad_action")
    rejected(s, 2, play("3"), "bad_action")
    rejected(s, 0, bid(3), "not_your_turn")
    rejected(s, 2, {"value": 3}, "bad_action")
    rejected(s, 2, "bid", "bad_action")  # type: ignore[arg-type]


# --- rob bidding -------------------------------------------------------------------

def test_rob_bidding_doubles_per_rob_and_caller_may_rob_back_once():
    s = deal({}, "BR2", bidding="rob")
    assert legal_to_wire(legal_actions(s, 1)) == {
        "phase": "bidding", "style": "rob", "can_call": True, "can_rob": False, "can_pass": True}
    s, _ = run(s, [(1, CALL), (2, ROB), (0, ROB)])
    assert view(s, 1)["multiplier"] == 4 and s.to_act == 1
    assert legal_to_wire(legal_actions(s, 1))["can_rob"] is True
    s, events = apply(s, 1, ROB)
    assert s.landlord == 1 and events[-1]["multiplier"] == 8
    assert view(s, 2)["multiplier"] == 8


def test_rob_bidding_last_robber_is_landlord_when_caller_passes():
    s = deal({}, "BR2", bidding="rob")
    s, _ = run(s, [(1, CALL), (2, ROB), (0, PASS), (1, PASS)])
    assert s.landlord == 2 and s.to_act == 2 and view(s, 0)["multiplier"] == 2


def test_rob_bidding_all_pass_is_a_redeal():
    s = deal({}, "BR2", bidding="rob")
    s, events = run(s, [(1, PASS), (2, PASS), (0, PASS)])
    assert s.is_over and events[-1] == {"type": "redeal", "reason": "every player passed"}


def test_rob_bidding_rejects_score_bids():
    s = deal({}, "BR2", bidding="rob")
    rejected(s, 1, bid(1), "bad_action")
    rejected(s, 1, ROB, "bad_bid")


# --- play --------------------------------------------------------------------------

def landlord_one(hands=None, bottom="BR2", **options):
    s = deal(hands or {}, bottom, **options)
    s, _ = apply(s, 1, bid(3))
    return s


def test_landlord_leads_and_may_not_pass():
    s = landlord_one()
    legal = legal_to_wire(legal_actions(s, 1))
    assert legal["must_lead"] and not legal["can_pass"] and legal["to_beat"] is None
    rejected(s, 1, PASS, "must_play")
    assert legal_actions(s, 0) is None and legal_to_wire(legal_actions(s, 0)) is None


def test_each_player_beats_the_last_play_or_passes():
    s = landlord_one({1: "3456789TJQKA2222B", 2: "33444555666777888"}, "99T")
    s, _ = apply(s, 1, play("5"))
    legal = legal_to_wire(legal_actions(s, 2))
    assert legal["can_pass"] and not legal["must_lead"] and legal["to_beat"]["ranks"] == "5"
    assert [p["ranks"] for p in legal["plays"]] == ["6", "7", "8"]
    rejected(s, 2, play("4"), "does_not_beat")
    rejected(s, 2, play("66"), "does_not_beat")
    rejected(s, 2, play("34"), "not_a_valid_play")
    rejected(s, 2, play("9"), "cards_not_in_hand")
    s, _ = apply(s, 2, play("6"))
    assert s.to_act == 0


def test_two_passes_give_the_lead_to_the_last_player_who_may_not_pass():
    s = landlord_one()
    lowest = s.hands[1][0]
    s, _ = apply(s, 1, {"type": "play", "cards": [lowest]})
    s, events = run(s, [(2, PASS), (0, PASS)])
    assert events[-1] == {"type": "trick_won", "seat": 1, "leads": 1}
    assert s.to_act == 1 and s.to_beat is None
    assert legal_to_wire(legal_actions(s, 1))["must_lead"]
    rejected(s, 1, PASS, "must_play")


def test_trick_after_a_beat_goes_to_the_player_who_beat():
    s = landlord_one({1: "3456789TJQKA2222B", 2: "33444555666777888"}, "99T")
    s, _ = run(s, [(1, play("5")), (2, play("8")), (0, PASS), (1, PASS)])
    assert s.to_act == 2 and s.to_beat is None
    rejected(s, 2, PASS, "must_play")


def test_play_by_card_ids_must_be_held_distinct_and_valid():
    s = landlord_one()
    hand = s.hands[1]
    other = s.hands[0][0]
    rejected(s, 1, {"type": "play", "cards": [other]}, "cards_not_in_hand")
    rejected(s, 1, {"type": "play", "cards": [99]}, "cards_not_in_hand")
    rejected(s, 1, {"type": "play", "cards": [hand[0], hand[0]]}, "bad_action")
    rejected(s, 1, {"type": "play", "cards": [True]}, "bad_action")
    rejected(s, 1, {"type": "play", "cards": ["x"]}, "bad_action")
    rejected(s, 1, {"type": "play", "cards": 5}, "bad_action")
    rejected(s, 1, {"type": "play"}, "bad_action")
    rejected(s, 1, {"type": "play", "cards": []}, "not_a_valid_play")
    rejected(s, 1, {"type": "play", "cards": "3?"}, "bad_action")
    rejected(s, 1, {"type": "fold"}, "bad_action")
    rejected(s, 1, {"type": "play", "cards": list(range(30))}, "not_a_valid_play")


def test_rank_string_play_takes_concrete_cards_from_the_hand():
    s = landlord_one({1: "3456789TJQKA2222B"}, "33R")
    s, events = apply(s, 1, play("333"))
    assert events[0]["ranks"] == "333" and events[0]["kind"] == "trio"
    assert len(events[0]["cards"]) == 3 and not set(events[0]["cards"]) & set(s.hands[1])
    assert len(s.hands[1]) == 17


def test_hand_ends_when_a_player_empties_their_hand():
    s = landlord_one({1: SPRING_LANDLORD}, "33R")
    s, events = run(s, [(1, play("3456789TJQKA")), (2, PASS), (0, PASS), (1, play("2222")), (2, PASS),
                        (0, PASS), (1, play("BR")), (2, PASS), (0, PASS)])
    assert not s.is_over
    s, events = apply(s, 1, play("33"))
    assert s.is_over and s.to_act is None and s.hands[1] == []
    assert events[-1]["type"] == "hand_over" and events[-1]["winner"] == "landlord"
    rejected(s, 2, PASS, "hand_over")
    assert legal_actions(s, 2) is None


# --- scoring -----------------------------------------------------------------------

SPRING_STEPS = [(1, bid(1)), (2, PASS), (0, PASS), (1, play("3456789TJQKA")), (2, PASS), (0, PASS),
                (1, play("2222")), (2, PASS), (0, PASS), (1, play("BR")), (2, PASS), (0, PASS),
                (1, play("33"))]


def spring_hand(**kw):
    s = deal({1: SPRING_LANDLORD}, "33R", **kw)
    return run(s, SPRING_STEPS)


def test_spring_doubles_and_bomb_and_rocket_each_double():
    s, events = spring_hand()
    end = events[-1]
    m = end["multiplier"]
    assert m["bidding"] == 1 and m["bombs"] == 1 and m["rockets"] == 1
    assert m["spring"] and not m["anti_spring"] and m["final"] == 8 and not m["capped"]
    assert end["points"] == [-8, 16, -8]
    assert end["chips"] == [-80, 160, -80] and s.stacks == [920, 1160, 920]


def test_running_multiplier_counts_bombs_and_rocket_as_they_are_played():
    s = deal({1: SPRING_LANDLORD}, "33R")
    s, events = run(s, SPRING_STEPS[:7])
    assert events[-1]["multiplier"] == 2 and view(s, 0)["multiplier"] == 2 and view(s, 0)["bombs"] == 1
    s, events = run(s, SPRING_STEPS[7:10])
    assert events[-1]["multiplier"] == 4 and view(s, 2)["rockets"] == 1


def anti_spring_hand(**kw):
    # landlord 1 leads once; peasant 2 plays the rocket, a chain, two bombs and goes out
    s = deal({2: ANTI_SPRING_PEASANT, 1: "33344455566678899"}, "TJQ", **kw)
    steps = [(1, bid(1)), (2, PASS), (0, PASS), (1, play("3")), (2, play("BR")), (0, PASS), (1, PASS),
             (2, play("789TJQK")), (0, PASS), (1, PASS), (2, play("2222")), (0, PASS), (1, PASS),
             (2, play("AAAA"))]
    return run(s, steps)


def test_anti_spring_when_landlord_played_only_the_opening_lead():
    s, events = anti_spring_hand()
    end = events[-1]
    assert end["winner"] == "peasants" and end["out_seat"] == 2
    m = end["multiplier"]
    assert m["anti_spring"] and not m["spring"] and m["bombs"] == 2 and m["rockets"] == 1
    assert m["final"] == 1 * 8 * 2
    assert end["points"] == [16, -32, 16] and end["chips"] == [160, -320, 160]


def test_max_multiplier_caps_the_score():
    s, events = spring_hand(max_multiplier=4)
    m = events[-1]["multiplier"]
    assert m["uncapped"] == 8 and m["final"] == 4 and m["capped"] and m["cap"] == 4
    assert events[-1]["points"] == [-4, 8, -4]


def test_stake_sets_chips_per_point():
    s, events = spring_hand(stake=3)
    assert events[-1]["chips"] == [-24, 48, -24]


def test_scores_sum_to_zero_and_chips_conserved_with_short_stacks():
    s, events = spring_hand(stacks=(50, 7, 1000))
    end = events[-1]
    assert end["owed"] == [-80, 160, -80] and end["chips"] == [-50, 130, -80] and end["short"]
    assert sum(end["points"]) == 0 and sum(end["chips"]) == 0
    assert s.stacks == [0, 137, 920] and sum(s.stacks) == 1057
    s, events = anti_spring_hand(stacks=(10, 101, 20))
    end = events[-1]
    assert end["chips"] == [50, -101, 51]  # the landlord pays what it has; odd chip to seat 2
    assert s.stacks == [60, 0, 71] and sum(s.stacks) == 131


def test_end_event_reveals_remaining_hands():
    s, events = anti_spring_hand()
    hands = events[-1]["hands"]
    assert hands[2] == [] and len(hands[1]) == 19 and len(hands[0]) == 17
    assert view(s, 2)["result"]["hands"] == hands


# --- view, timeout, persistence ------------------------------------------------------

def test_view_never_shows_another_seats_cards():
    # dealing the cards hidden from a viewer differently must not change its view
    for s in (deal({}, "BR2"), landlord_one()):
        for seat in (0, 1, 2, None):
            v = view(s, seat)
            assert v["hand"] == (None if seat is None else s.hands[seat])
            assert view(swap_hidden(s, seat), seat) == v
    spectator = view(s, None)
    assert spectator["hand"] is None and spectator["legal"] is None and spectator["you"] is None
    assert view(s, 1)["legal"]["must_lead"] and view(s, 0)["legal"] is None


def test_view_shows_the_trick_and_the_history():
    s = landlord_one({1: "3456789TJQKA2222B", 2: "33444555666777888"}, "99T")
    s, _ = run(s, [(1, play("5")), (2, play("8")), (0, PASS), (1, PASS), (2, play("33"))])
    v = view(s, 0)
    assert [(m["seat"], m["type"], m.get("ranks")) for m in v["history"]] == [
        (1, "play", "5"), (2, "play", "8"), (0, "pass", None), (1, "pass", None), (2, "play", "33")]
    assert [m.get("ranks") for m in v["trick"]] == ["33"] and v["to_beat"]["ranks"] == "33"


def test_timeout_passes_when_allowed_else_plays_the_lowest_card():
    s = deal({1: SPRING_LANDLORD}, "33R")
    assert GAME.timeout_action(s, 1) == PASS
    s, _ = apply(s, 1, bid(3))
    action = GAME.timeout_action(s, 1)
    assert action["type"] == "play" and len(action["cards"]) == 1
    s, events = apply(s, 1, action)
    assert events[0]["ranks"] == "3"
    assert GAME.timeout_action(s, 2) == PASS
    apply(s, 2, GAME.timeout_action(s, 2))


def test_state_round_trips_through_msgpack():
    for s in (deal({}, "BR2"), landlord_one(), spring_hand()[0], anti_spring_hand()[0]):
        d = msgpack.unpackb(msgpack.packb(to_dict(s)))
        assert from_dict(d) == s
        for seat in (0, 1, 2, None):
            v = view(s, seat)
            assert msgpack.unpackb(msgpack.packb(v)) == json.loads(json.dumps(v))


def test_apply_never_changes_the_given_state():
    s = landlord_one()
    before = to_dict(s)
    apply(s, 1, {"type": "play", "cards": [s.hands[1][0]]})
    assert to_dict(s) == before


def test_game_value_describes_dou_dizhu():
    d = GAME.describe()
    assert d["game"] == "doudizhu" and d["min_players"] == d["max_players"] == 3
    json.dumps(d)


def test_play_rule_options_decide_what_is_a_valid_play():
    hands = {1: "3333456789TJQKA2B"}
    s = landlord_one(hands, "22R")
    s2, events = apply(s, 1, play("333345"))
    assert events[0]["kind"] == "four_two_solo"
    s = landlord_one(hands, "22R", four_with_two=False)
    rejected(s, 1, play("333345"), "not_a_valid_play")
    assert all(p["kind"] not in ("four_two_solo", "four_two_pair")
               for p in legal_to_wire(legal_actions(s, 1))["plays"])
    s = landlord_one(hands, "22R", jokers_as_kickers=True)
    s2, events = apply(s, 1, play("3333BR"))
    assert events[0]["kind"] == "four_two_solo"
    s = landlord_one(hands, "22R")
    rejected(s, 1, play("3333BR"), "not_a_valid_play")


def test_to_dict_holds_every_state_field():
    from dataclasses import asdict, fields

    from engine.doudizhu import DoudizhuState
    for s in (deal({}, "BR2"), spring_hand()[0]):
        assert set(to_dict(s)) == {f.name for f in fields(DoudizhuState)}
        assert to_dict(s) == asdict(s)
