"""The Zha Jin Hua betting flow: blind/seen costs, raise, compare, all-in, showdown."""

from __future__ import annotations

import json

import msgpack
import pytest

from engine.cards import deck52
from engine.errors import ConfigError, IllegalAction
from engine.game import event_for
from engine.zhajinhua import (
    GAME,
    apply,
    from_dict,
    legal_actions,
    legal_to_wire,
    new_hand,
    start_events,
    timeout_action,
    to_dict,
    view,
)

from .zjh_helpers import deck_dealing, hand

# Deal order is first-to-act first. With the button on seat 0 and three players at
# seats 0, 1, 2, seat 1 acts first, then 2, then 0.
STRONG, MIDDLE, WEAK = "Ac Ad Ah", "Kc Kd 2h", "7c 5d 3s"


def start(hands_by_seat: dict[int, str], stacks: dict[int, int] | None = None, button: int = 0,
          n_seats: int | None = None, **options):
    """A hand with these seats dealt these cards (seats absent from the dict are empty)."""
    n_seats = n_seats or max(hands_by_seat) + 1
    stacks = stacks or {}
    seats = [(f"p{s}", stacks.get(s, 1000)) if s in hands_by_seat else None
             for s in range(n_seats)]
    order = sorted(hands_by_seat, key=lambda s: (s - button - 1) % n_seats)
    deck = deck_dealing([hands_by_seat[s] for s in order])
    return new_hand({"button": button, **options}, seats, deck)


def act(state, seat, **action):
    new, _ = apply(state, seat, action)
    return new


def play(state, *moves):
    """Apply ``(seat, type, extra...)`` moves in order; returns state and all events."""
    events = []
    for seat, kind, *extra in moves:
        action = {"type": kind}
        if kind == "raise":
            action["stake"] = extra[0]
        if kind == "compare":
            action["target"] = extra[0]
        state, evs = apply(state, seat, action)
        events += evs
    return state, events


def rejected(state, seat, action, code):
    before = to_dict(state)
    with pytest.raises(IllegalAction) as err:
        apply(state, seat, action)
    assert err.value.code == code
    assert to_dict(state) == before


def total_chips(state) -> int:
    return sum(s for s in state.stacks if s is not None) + (0 if state.is_over else state.pot)


# --- the deal ----------------------------------------------------------------------------


def test_everyone_antes_and_the_first_to_act_is_left_of_the_dealer():
    s = start({0: STRONG, 1: MIDDLE, 2: WEAK}, ante=5)
    assert s.paid == [5, 5, 5] and s.stacks == [995, 995, 995] and s.pot == 15
    assert s.to_act == 1 and s.round == 1 and s.stake == 5
    assert s.hands[1] == tuple(hand(MIDDLE))


def test_left_of_the_dealer_skips_empty_seats_and_wraps_around():
    s = start({1: STRONG, 4: MIDDLE, 6: WEAK}, button=4, n_seats=8)
    assert s.to_act == 6
    s = start({1: STRONG, 4: MIDDLE, 6: WEAK}, button=6, n_seats=8)
    assert s.to_act == 1


def test_cards_are_dealt_one_at_a_time_from_the_first_to_act():
    seats = [("a", 100), ("b", 100), ("c", 100)]
    s = new_hand({"button": 2}, seats, deck52())
    assert s.hands == [(0, 3, 6), (1, 4, 7), (2, 5, 8)]


def test_seats_below_the_ante_sit_the_hand_out():
    s = start({0: STRONG, 1: MIDDLE, 2: WEAK}, stacks={1: 5}, ante=10)
    assert s.status == ["playing", "out", "playing"] and s.hands[1] is None
    assert s.stacks[1] == 5 and s.paid[1] == 0 and s.to_act == 2


def test_new_hand_rejects_bad_configs_seats_and_decks():
    seats = [("a", 100), ("b", 100)]
    with pytest.raises(ConfigError):
        new_hand({"button": 1, "ante": 0}, seats, deck52())
    with pytest.raises(ConfigError):
        new_hand({"button": 0, "colour": "red"}, seats, deck52())
    with pytest.raises(ConfigError):
        new_hand({"button": 0, "ante": 50, "max_stake": 40}, seats, deck52())
    with pytest.raises(ConfigError):
        new_hand({}, seats, deck52())
    with pytest.raises(ConfigError):
        new_hand({"button": 2}, seats + [None], deck52())
    with pytest.raises(ValueError):
        new_hand({"button": 0}, seats, deck52()[:-1])
    with pytest.raises(ValueError):
        new_hand({"button": 0}, seats, [0] + deck52()[1:-1] + [0])
    with pytest.raises(ValueError):
        new_hand({"button": 0}, [("a", 100), ("b", 5)], deck52())  # one player with the ante
    with pytest.raises(ValueError):
        new_hand({"button": 0}, [("a", 100), ("b", -1)], deck52())
    with pytest.raises(ValueError):
        new_hand({"button": 0}, [("a", 100)] * 10, deck52())


# --- look, call, raise ---------------------------------------------------------------------


def test_look_is_allowed_off_turn_and_does_not_use_the_turn():
    s = start({0: STRONG, 1: MIDDLE, 2: WEAK})
    assert legal_to_wire(legal_actions(s, 0)) == {"actions": ["look"], "look": {}}
    s2, events = apply(s, 0, {"type": "look"})
    assert s2.to_act == 1 and s2.seen[0] and not s.seen[0]
    assert events == [{"type": "look", "seat": 0, "cards": hand(STRONG), "only": [0],
                       "secret": ["cards"]}]
    assert "cards" not in event_for(events[0], 1)


def test_look_is_irreversible():
    s = act(start({0: STRONG, 1: MIDDLE}), 0, type="look")
    rejected(s, 0, {"type": "look"}, "already_seen")
    assert legal_actions(s, 0).look is False


def test_a_seen_players_call_and_raise_cost_twice_the_blind_amount():
    s = start({0: STRONG, 1: MIDDLE, 2: WEAK}, ante=10)
    s = act(s, 1, type="look")
    assert legal_actions(s, 1).call == 20
    s, events = play(s, (1, "call"))
    assert events[0] == {"type": "call", "seat": 1, "stake": 10, "amount": 20, "seen": True}
    s, events = play(s, (2, "raise", 30))
    assert events[0]["amount"] == 30 and s.stake == 30
    s, events = play(s, (0, "call"), (1, "raise", 40))
    assert [e["amount"] for e in events if e["type"] in ("call", "raise")] == [30, 80]
    assert s.paid == [40, 110, 40]


def test_raise_must_name_a_higher_unit_stake_up_to_max_stake():
    s = start({0: STRONG, 1: MIDDLE}, ante=10, max_stake=50)
    wire = legal_to_wire(legal_actions(s, 1))
    assert wire["raise"] == {"min": 11, "max": 50, "cost_per_unit": 1, "min_cost": 11,
                             "max_cost": 50}
    for bad in (10, 9, 51, -5, True, "20", None, 20.0):
        rejected(s, 1, {"type": "raise", "stake": bad}, "bad_amount")
    rejected(s, 1, {"type": "raise"}, "bad_amount")
    s = act(s, 1, type="raise", stake=50)
    assert legal_actions(s, 0).raise_min is None  # at the cap nobody can raise
    assert "raise" not in legal_to_wire(legal_actions(s, 0))


def test_nobody_can_raise_or_call_beyond_their_chips():
    s = start({0: STRONG, 1: MIDDLE}, stacks={1: 40}, ante=10)
    assert legal_actions(s, 1).raise_max == 30
    rejected(s, 1, {"type": "raise", "stake": 31}, "not_enough_chips")
    s = act(s, 1, type="look")
    assert legal_actions(s, 1).raise_max == 15


def test_actions_out_of_turn_are_rejected():
    s = start({0: STRONG, 1: MIDDLE, 2: WEAK})
    for action in ({"type": "call"}, {"type": "fold"}, {"type": "raise", "stake": 20}):
        rejected(s, 2, action, "not_your_turn")
    rejected(s, 5, {"type": "call"}, "not_in_hand")


@pytest.mark.parametrize("action", [None, "call", [], {}, {"type": "bet"}, {"type": 3},
                                    {"kind": "call"}])
def test_malformed_actions_are_rejected_with_bad_action(action):
    rejected(start({0: STRONG, 1: MIDDLE}), 1, action, "bad_action")


# --- compare ------------------------------------------------------------------------------------


def test_compare_opens_only_after_compare_after_rounds_rounds():
    s = start({0: STRONG, 1: MIDDLE, 2: WEAK})
    assert legal_actions(s, 1).compare_targets == ()
    rejected(s, 1, {"type": "compare", "target": 2}, "too_early")
    s, events = play(s, (1, "call"), (2, "call"), (0, "call"))
    assert s.round == 2 and {"type": "turn", "seat": 1, "round": 2} in events
    assert legal_actions(s, 1).compare_targets == (0, 2)
    s0 = start({0: STRONG, 1: MIDDLE}, compare_after_rounds=0)
    assert legal_actions(s0, 1).compare_targets == (0,)


def test_compare_fee_is_the_call_cost_times_the_multiplier():
    s = start({0: STRONG, 1: MIDDLE, 2: WEAK}, compare_after_rounds=0, compare_cost_multiplier=3)
    s = act(s, 1, type="look")
    assert legal_actions(s, 1).compare_cost == 60
    s, events = play(s, (1, "compare", 2))
    assert events[0] == {"type": "compare", "seat": 1, "target": 2, "amount": 60,
                         "winner": 1, "loser": 2}
    assert s.paid[1] == 70 and s.status[2] == "lost" and s.to_act == 0


def test_compare_target_must_be_another_live_seat():
    s = start({0: STRONG, 1: MIDDLE, 2: WEAK}, compare_after_rounds=0)
    s = act(s, 1, type="fold")
    for target in (1, 2, 7, -1, None, "0", True):
        rejected(s, 2, {"type": "compare", "target": target}, "bad_target")


def test_the_compare_loser_is_out_and_the_initiator_loses_a_tie():
    s = start({0: "Ac Kd 9h", 1: "As Ks 9c", 2: WEAK}, compare_after_rounds=0)
    s, events = play(s, (1, "compare", 0))
    assert events[0]["winner"] == 0 and s.status[1] == "lost"


def test_compare_results_are_shown_only_to_the_two_players_involved():
    s = start({0: STRONG, 1: MIDDLE, 2: WEAK}, compare_after_rounds=0)
    s, events = play(s, (1, "compare", 2))
    # winner 1 sees the loser's hand; the loser sees both; seat 0 and spectators see neither
    cards_seen = {}
    for viewer in (0, 1, 2, None):
        shown = [h for e in events for h in event_for(e, viewer).get("hands", [])]
        cards_seen[viewer] = {h["seat"]: h["cards"] for h in shown}
    assert cards_seen[1] == {2: hand(WEAK)}
    assert cards_seen[2] == {1: hand(MIDDLE), 2: hand(WEAK)}
    assert cards_seen[0] == {} and cards_seen[None] == {}
    assert [s_["cards"] for s_ in view(s, 1)["seats"]] == [None, None, hand(WEAK)]
    assert [s_["cards"] for s_ in view(s, 0)["seats"]] == [None, None, None]
    assert [s_["cards"] for s_ in view(s, None)["seats"]] == [None, None, None]
    assert view(s, 2)["seats"][1]["cards"] == hand(MIDDLE)
    public = event_for(events[0], None)
    assert public["loser"] == 2 and "hands" not in json.dumps([event_for(e, 0) for e in events])


def test_the_hand_ends_when_one_player_remains_and_the_pot_goes_to_them():
    s = start({0: STRONG, 1: MIDDLE, 2: WEAK})
    s, events = play(s, (1, "raise", 20), (2, "fold"), (0, "fold"))
    assert s.is_over and s.to_act is None and s.winner == 1
    assert s.stacks == [990, 1020, 990] and s.payouts == [0, 50, 0]
    assert events[-1] == {"type": "hand_over", "winner": 1,
                          "payouts": [{"seat": 1, "amount": 50}], "stacks": [990, 1020, 990]}
    rejected(s, 1, {"type": "call"}, "hand_over")
    assert legal_to_wire(legal_actions(s, 1)) is None


# --- max_rounds showdown --------------------------------------------------------------------


def test_after_max_rounds_all_remaining_hands_are_compared_and_revealed():
    s = start({0: MIDDLE, 1: WEAK, 2: STRONG}, max_rounds=2)
    s, events = play(s, *[(seat, "call") for seat in (1, 2, 0)] * 2)
    assert s.is_over and s.round == 2 and s.winner == 2
    showdown = next(e for e in events if e["type"] == "showdown")
    assert [h["seat"] for h in showdown["hands"]] == [1, 2, 0]
    assert showdown["hands"][1]["cards"] == hand(STRONG)
    assert s.stacks == [970, 970, 1060]
    assert view(s, None)["seats"][0]["cards"] == hand(MIDDLE)


def test_showdown_ties_go_to_the_earlier_hand_in_turn_order():
    s = start({0: "Ac Kd 9h", 1: "As Ks 9c", 2: WEAK}, max_rounds=1)
    s, _ = play(s, (1, "call"), (2, "call"), (0, "call"))
    assert s.winner == 1  # seat 1 holds first; seat 0's equal hand does not take over


def test_special_235_beats_trips_at_the_showdown():
    s = start({0: "Ac Ad Ah", 1: "2c 3d 5h"}, max_rounds=1)
    s, _ = play(s, (1, "call"), (0, "call"))
    assert s.winner == 1
    s = start({0: "Ac Ad Ah", 1: "2c 3d 5h"}, max_rounds=1, special_235="off")
    s, _ = play(s, (1, "call"), (0, "call"))
    assert s.winner == 0


# --- running out of chips ------------------------------------------------------------------


def test_all_in_compare_all_winner_takes_what_it_matched_and_the_rest_goes_to_the_next_best():
    # seat 1 (first to act) is short: 10 ante + 25 behind.
    s = start({0: MIDDLE, 1: STRONG, 2: WEAK}, stacks={1: 35}, max_stake=100)
    s, _ = play(s, (1, "call"), (2, "raise", 50), (0, "call"))
    assert legal_to_wire(legal_actions(s, 1))["actions"] == ["look", "fold", "all_in"]
    s, events = play(s, (1, "all_in"))
    assert events[0] == {"type": "all_in", "seat": 1, "amount": 15}
    # seat 1 paid 35 in all; it wins 35 from each seat; the rest (25 + 25) to seat 0.
    assert s.is_over and s.winner == 1
    assert s.payouts == [50, 105, 0] and s.stacks == [990, 105, 940]
    assert sum(s.stacks) == 2035
    showdown = next(e for e in events if e["type"] == "showdown")
    assert [h["seat"] for h in showdown["hands"]] == [2, 0]


def test_all_in_remainder_goes_to_the_next_best_even_a_lone_opponent():
    s = start({0: STRONG, 1: MIDDLE, 2: WEAK}, stacks={1: 35})
    s, _ = play(s, (1, "call"), (2, "raise", 50), (0, "fold"), (1, "all_in"))
    # seat 1 (35 in) beats seat 2: it wins 10 + 35 + 35; seat 2 gets its unmatched 25 back
    assert s.is_over and s.winner == 1 and s.payouts == [0, 80, 25]
    assert s.stacks == [990, 80, 965]


def test_all_in_loser_leaves_the_others_playing():
    s = start({0: STRONG, 1: WEAK, 2: MIDDLE}, stacks={1: 35})
    s, _ = play(s, (1, "call"), (2, "raise", 50), (0, "call"))
    s, events = play(s, (1, "all_in"))
    compares = [e for e in events if e["type"] == "compare"]
    assert [(e["target"], e["winner"]) for e in compares] == [(2, 2)]  # stops at the first loss
    assert s.status == ["playing", "lost", "playing"] and not s.is_over
    assert s.to_act == 2 and s.stacks[1] == 0 and s.paid[1] == 35


def test_fold_only_offers_no_all_in():
    s = start({0: STRONG, 1: MIDDLE}, stacks={1: 15}, all_in="fold_only")  # 5 behind, call 10
    assert legal_to_wire(legal_actions(s, 1))["actions"] == ["look", "fold"]
    rejected(s, 1, {"type": "all_in"}, "bad_action")
    rejected(s, 1, {"type": "call"}, "not_enough_chips")
    rejected(s, 1, {"type": "raise", "stake": 11}, "not_enough_chips")


def test_all_in_is_only_for_a_player_who_cannot_pay_the_call():
    rejected(start({0: STRONG, 1: MIDDLE}), 1, {"type": "all_in"}, "bad_action")


def test_timeout_folds_by_default_and_call_blind_calls_while_blind():
    s = start({0: STRONG, 1: MIDDLE})
    assert timeout_action(s, 1) == {"type": "fold"}
    s = start({0: STRONG, 1: MIDDLE}, timeout="call_blind")
    assert timeout_action(s, 1) == {"type": "call"}
    assert timeout_action(act(s, 1, type="look"), 1) == {"type": "fold"}


# --- persistence, views, GAME ------------------------------------------------------------------


def test_state_round_trips_through_msgpack():
    s = start({0: STRONG, 1: MIDDLE, 2: WEAK}, compare_after_rounds=0)
    s, _ = play(s, (0, "look"), (1, "compare", 2))
    back = from_dict(msgpack.unpackb(msgpack.packb(to_dict(s))))
    assert back == s and to_dict(back) == to_dict(s)


def test_view_shows_own_cards_only_after_looking_and_everyones_status():
    s = start({0: STRONG, 1: MIDDLE, 2: WEAK})
    v = view(s, 1)
    assert v["seats"][1]["cards"] is None and v["legal"]["call"] == {"cost": 10}
    s = act(s, 1, type="look")
    v = view(s, 1)
    assert v["seats"][1]["cards"] == hand(MIDDLE) and v["seats"][1]["category"] == "pair"
    v0 = view(s, 0)
    assert v0["seats"][1]["seen"] is True and v0["seats"][1]["cards"] is None
    assert v0["seats"][2]["seen"] is False and v0["seats"][2]["paid"] == 10
    for viewer in (0, 1, 2, None):
        assert msgpack.unpackb(msgpack.packb(view(s, viewer))) == json.loads(
            json.dumps(view(s, viewer)))


def test_start_events_describe_the_deal_without_cards():
    s = start({0: STRONG, 1: MIDDLE, 2: WEAK})
    events = start_events(s)
    assert events[0]["type"] == "hand_start" and events[0]["seats"] == [0, 1, 2]
    assert "cards" not in json.dumps(events)


def test_game_declares_every_option_with_its_default():
    assert GAME.name == "zhajinhua" and GAME.min_players == 2 and GAME.max_players == 9
    assert GAME.parse_config({}) == {
        "a23": "lowest", "special_235": "offsuit", "order": "common", "suit_tiebreak": False,
        "ante": 10, "max_stake": 100, "compare_after_rounds": 1, "compare_cost_multiplier": 1,
        "max_rounds": 20, "all_in": "compare_all", "timeout": "fold"}
    with pytest.raises(ConfigError):
        GAME.parse_config({"all_in": "maybe"})
    assert {o["name"] for o in GAME.describe()["options"]} >= {"a23", "timeout", "ante"}


def test_a_player_with_nothing_behind_goes_all_in_for_zero():
    s = start({0: STRONG, 1: MIDDLE, 2: WEAK}, stacks={1: 10}, ante=10)
    assert legal_actions(s, 1).all_in == 0
    s, events = play(s, (1, "all_in"))
    compares = [(e["target"], e["winner"]) for e in events if e["type"] == "compare"]
    assert compares == [(2, 1), (0, 0)]  # beat seat 2, then lost to seat 0: out
    assert s.status == ["playing", "lost", "playing"] and s.to_act == 2
    assert total_chips(s) == 2010


def test_every_hand_ends_by_max_rounds_even_when_everyone_keeps_calling():
    s = start({0: STRONG, 1: MIDDLE, 2: WEAK})
    turns = 0
    while not s.is_over:
        s = act(s, s.to_act, type="call")
        turns += 1
    assert turns == 3 * 20 and s.round == 20 and s.winner == 0
    assert s.stacks == [1000 + 2 * 210, 790, 790]  # ante + 20 calls of 10 each
