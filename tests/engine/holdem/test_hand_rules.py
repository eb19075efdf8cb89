"""Each Hold'em rule the issue lists, checked on a hand dealt from a fixed deck."""

from __future__ import annotations

import pytest

from engine.cards import parse_cards
from engine.errors import IllegalAction
from engine.holdem import Pot, apply, legal_actions, start_hand, view
from engine.holdem.pots import split_pot

from .hand_support import act, deal, of_type, stacked_deck, table

# Three-handed tables use button 0: small blind 1, big blind 2; seat 0 acts first
# pre-flop, seat 1 first after. Four-handed: seat 3 is under the gun.


# ------------------------------------------------------------- dealing

def test_dealing_order_one_card_at_a_time_from_left_of_button_then_burns():
    seats = [("a", 1000), None, ("c", 1000), ("d", 1000)]
    state, events = start_hand({"button": 2}, seats, list(range(52)))
    # clockwise from the seat left of the button (3), skipping the empty seat 1
    assert [e["seat"] for e in of_type(events, "deal")] == [3, 0, 2]
    assert state.hole[3] == [0, 3] and state.hole[0] == [1, 4] and state.hole[2] == [2, 5]
    state, events = act(state, (2, "call"), (3, "call"), (0, "check"))
    assert state.board == [7, 8, 9] and state.burned == [6]
    state, _ = act(state, (3, "check"), (0, "check"), (2, "check"))
    assert state.board == [7, 8, 9, 11]
    state, _ = act(state, (3, "check"), (0, "check"), (2, "check"))
    assert state.board == [7, 8, 9, 11, 13] and state.burned == [6, 10, 12]


def test_heads_up_big_blind_is_dealt_first():
    state, events = start_hand({"button": 0}, table([1000, 1000]), list(range(52)))
    assert [e["seat"] for e in of_type(events, "deal")] == [1, 0]
    assert state.hole[1] == [0, 2] and state.hole[0] == [1, 3]


# ------------------------------------------------------------- blinds and antes

def test_blinds_and_antes_are_posted():
    state, events = deal([1000, 1000, 1000], ante=10)
    assert [(e["seat"], e["amount"]) for e in of_type(events, "ante")] == [(1, 10), (2, 10), (0, 10)]
    assert [(e["seat"], e["kind"], e["amount"]) for e in of_type(events, "blind")] == [
        (1, "small", 50), (2, "big", 100)]
    assert state.stacks == [990, 940, 890]
    assert state.bets == [0, 50, 100]
    assert state.pots == [Pot(30, [0, 1, 2])]
    assert state.to_act == 0


def test_short_stack_posts_all_in_on_small_blind():
    state, events = deal([1000, 30, 1000])
    blind = of_type(events, "blind")[0]
    assert blind == {"type": "blind", "seat": 1, "kind": "small", "amount": 30, "all_in": True}
    assert state.stacks[1] == 0 and state.bets[1] == 30
    assert legal_actions(state, 0).call == 100
    state, _ = act(state, (0, "call"), (2, "check"))
    assert state.pots == [Pot(90, [0, 1, 2]), Pot(140, [0, 2])]
    assert state.street == "flop" and state.to_act == 2


def test_short_stack_posts_all_in_on_ante():
    state, events = deal([1000, 1000, 5], ante=10)
    assert of_type(events, "ante")[1] == {"type": "ante", "seat": 2, "amount": 5, "all_in": True}
    assert [e["seat"] for e in of_type(events, "blind")] == [1]  # nothing left for the big blind
    assert state.current_bet == 100  # the big blind is still owed in full
    state, _ = act(state, (0, "call"), (1, "call"))
    assert state.street == "flop"
    assert state.pots == [Pot(15, [0, 1, 2]), Pot(210, [0, 1])]


def test_short_all_in_big_blind_must_be_called_for_full_big_blind():
    state, events = deal([1000, 1000, 60])
    assert of_type(events, "blind")[1]["all_in"] is True
    legal = legal_actions(state, 0)
    assert legal.call == 100 and legal.min_to == 200
    with pytest.raises(IllegalAction) as err:
        apply(state, 0, {"type": "raise", "to": 120})
    assert err.value.code == "bad_amount"
    state, _ = act(state, (0, "call"))
    assert legal_actions(state, 1).call == 50
    state, _ = act(state, (1, "call"))
    assert state.pots == [Pot(180, [0, 1, 2]), Pot(80, [0, 1])]


def test_heads_up_button_posts_small_blind_acts_first_preflop_and_last_after():
    state, events = deal([1000, 1000], button=0)
    assert [(e["seat"], e["kind"]) for e in of_type(events, "blind")] == [(0, "small"), (1, "big")]
    assert state.to_act == 0
    state, _ = act(state, (0, "call"))
    assert state.to_act == 1  # big blind's option
    state, _ = act(state, (1, "check"))
    assert state.street == "flop" and state.to_act == 1
    state, _ = act(state, (1, "check"))
    assert state.to_act == 0
    state, _ = act(state, (0, "check"))
    assert state.street == "turn" and state.to_act == 1


# ------------------------------------------------------------- bet sizes

def test_minimum_bet_is_the_big_blind():
    state, _ = deal([1000, 1000, 1000])
    state, _ = act(state, (0, "call"), (1, "call"), (2, "check"))
    legal = legal_actions(state, 1)
    assert legal.check and not legal.fold and legal.min_to == 100 and legal.max_to == 900
    with pytest.raises(IllegalAction) as err:
        apply(state, 1, {"type": "bet", "to": 99})
    assert err.value.code == "bad_amount"
    state, events = act(state, (1, "bet", 100))
    assert events[0]["action"] == "bet" and events[0]["to"] == 100


def test_minimum_raise_is_the_last_full_raise_on_this_street():
    state, _ = deal([5000, 5000, 5000])
    state, _ = act(state, (0, "raise", 300))  # raises by 200
    assert legal_actions(state, 1).min_to == 500
    with pytest.raises(IllegalAction):
        apply(state, 1, {"type": "raise", "to": 499})
    state, _ = act(state, (1, "raise", 500))
    assert legal_actions(state, 2).min_to == 700
    state, _ = act(state, (2, "call"), (0, "call"))
    # a new street starts again from the big blind
    assert state.street == "flop"
    assert legal_actions(state, state.to_act).min_to == 100
    state, _ = act(state, (state.to_act, "bet", 150))
    assert legal_actions(state, state.to_act).min_to == 300


def test_raise_to_exactly_the_stack_below_minimum_is_an_all_in():
    state, _ = deal([1000, 1000, 150])
    state, _ = act(state, (0, "raise", 400), (1, "fold"))
    legal = legal_actions(state, 2)
    assert legal.call == 50 and legal.min_to is None  # 150 does not even cover the call
    state, _ = deal([1000, 1000, 1000, 250])
    state, _ = act(state, (3, "raise", 200))
    legal = legal_actions(state, 0)
    assert legal.min_to == 300
    state, _ = deal([1000, 1000, 1000, 250])
    state, _ = act(state, (3, "call"), (0, "raise", 200), (1, "fold"), (2, "fold"))
    legal = legal_actions(state, 3)
    assert legal.min_to == legal.max_to == 250  # short: only the all-in is a raise
    state, events = act(state, (3, "raise", 250))
    assert events[0]["all_in"] is True and events[0]["full_raise"] is False


# ------------------------------------------------------------- reopening

def _flop_with_short_all_in(stacks):
    """Everyone limps; on the flop seat 1 bets 100, seat 2 calls, seat 3 shoves 150."""
    state, _ = deal(stacks)
    state, _ = act(state, (3, "call"), (0, "call"), (1, "call"), (2, "check"))
    assert state.street == "flop" and state.to_act == 1
    return act(state, (1, "bet", 100), (2, "call"), (3, "all_in"))[0]


def test_short_all_in_does_not_reopen_betting_for_players_who_acted():
    state = _flop_with_short_all_in([1000, 1000, 1000, 250])
    assert state.current_bet == 150
    state, _ = act(state, (0, "call"))
    legal = legal_actions(state, 1)
    assert legal.fold and legal.call == 50
    assert legal.min_to is None and legal.max_to is None and not legal.all_in
    with pytest.raises(IllegalAction) as err:
        apply(state, 1, {"type": "raise", "to": 400})
    assert err.value.code == "bad_action"
    with pytest.raises(IllegalAction):
        apply(state, 1, {"type": "all_in"})
    state, _ = act(state, (1, "call"), (2, "call"))
    assert state.street == "turn"


def test_short_all_in_lets_players_yet_to_act_raise():
    state = _flop_with_short_all_in([1000, 1000, 1000, 250])
    legal = legal_actions(state, 0)
    assert legal.min_to == 250 and legal.max_to == 900
    state, events = act(state, (0, "raise", 250))
    assert events[0]["full_raise"] is True
    assert legal_actions(state, 1).min_to == 350  # a full raise reopens for everyone


def test_consecutive_short_all_ins_that_make_a_full_raise_reopen_betting():
    state, _ = deal([1000, 1000, 1000, 250, 320])
    state, _ = act(state, (3, "call"), (4, "call"), (0, "call"), (1, "call"), (2, "check"))
    state, _ = act(state, (1, "bet", 100), (2, "call"), (3, "all_in"), (4, "all_in"))
    assert state.current_bet == 220  # 50 + 70 over the bet: together a full raise
    state, _ = act(state, (0, "call"))
    legal = legal_actions(state, 1)
    assert legal.min_to == 320 and legal.max_to == 900
    state, _ = act(state, (1, "raise", 320))
    assert state.to_act == 2


def test_consecutive_short_all_ins_short_of_a_full_raise_do_not_reopen():
    state, _ = deal([1000, 1000, 1000, 250, 290])
    state, _ = act(state, (3, "call"), (4, "call"), (0, "call"), (1, "call"), (2, "check"))
    state, _ = act(state, (1, "bet", 100), (2, "call"), (3, "all_in"), (4, "all_in"), (0, "call"))
    assert state.current_bet == 190
    assert legal_actions(state, 1).min_to is None


def test_big_blind_option_when_limped_to():
    state, _ = deal([1000, 1000, 1000])
    state, _ = act(state, (0, "call"), (1, "call"))
    assert state.to_act == 2
    legal = legal_actions(state, 2)
    assert legal.check and not legal.fold and legal.min_to == 200
    checked, _ = act(state, (2, "check"))
    assert checked.street == "flop"
    raised, _ = act(state, (2, "raise", 300))
    assert raised.street == "preflop" and raised.to_act == 0
    assert legal_actions(raised, 0).call == 200


# ------------------------------------------------------------- pots

def test_uncalled_bets_are_returned_before_pots_are_formed():
    state, _ = deal([1000, 1000, 1000])
    state, events = act(state, (0, "raise", 300), (1, "fold"), (2, "fold"))
    kinds = [e["type"] for e in events]
    assert kinds.index("return") < kinds.index("award")
    assert of_type(events, "return") == [{"type": "return", "seat": 0, "amount": 200}]
    assert of_type(events, "award")[0]["amount"] == 250
    assert state.stacks == [1150, 950, 900]

    state, _ = deal([1000, 400, 1000])
    state, events = act(state, (0, "all_in"), (1, "all_in"), (2, "fold"))
    assert of_type(events, "return") == [{"type": "return", "seat": 0, "amount": 600}]
    assert kinds_before(events, "return", "pots")
    assert of_type(events, "pots")[0]["pots"] == [{"amount": 900, "eligible": [0, 1]}]


def kinds_before(events, first, second):
    kinds = [e["type"] for e in events]
    return kinds.index(first) < kinds.index(second)


def test_main_and_side_pots_with_several_all_ins_of_different_sizes():
    holes = {0: "3d 8s", 1: "Ah Ad", 2: "Kh Kd", 3: "Qh Qd"}
    state, _ = deal([1000, 100, 300, 600], holes=holes, board="2c 7d 9h Js 4s")
    state, events = act(state, (3, "all_in"), (0, "call"), (1, "all_in"), (2, "all_in"))
    assert of_type(events, "pots")[0]["pots"] == [
        {"amount": 400, "eligible": [0, 1, 2, 3]},
        {"amount": 600, "eligible": [0, 2, 3]},
        {"amount": 600, "eligible": [0, 3]},
    ]
    awards = of_type(events, "award")
    assert [(a["amount"], a["winners"]) for a in awards] == [(400, [1]), (600, [2]), (600, [3])]
    assert state.is_over and state.stacks == [400, 400, 600, 600]


def test_folded_chips_stay_as_dead_money():
    holes = {0: "3d 8s", 1: "5c 6d", 2: "Ah Ad"}
    state, _ = deal([1000, 1000, 200], holes=holes, board="2c 7h 9h Js 4s")
    state, _ = act(state, (0, "raise", 400), (1, "call"), (2, "all_in"))
    assert state.pots == [Pot(600, [0, 1, 2]), Pot(400, [0, 1])]
    state, events = act(state, (1, "bet", 300), (0, "fold"))
    # seat 0's 400 stays in: the side pot goes to seat 1 alone, the main pot is contested
    assert of_type(events, "return") == [{"type": "return", "seat": 1, "amount": 300}]
    awards = of_type(events, "award")
    assert [(a["amount"], a["eligible"], a["winners"]) for a in awards] == [
        (600, [1, 2], [2]), (400, [1], [1])]
    assert state.stacks == [600, 1000, 600]


def test_each_pot_is_split_separately():
    holes = {0: "5c 6c", 1: "Tc 3d", 2: "Td 4d"}
    state, _ = deal([1000, 1000, 300], holes=holes, board="Ah Kh Qd Jc 2s")
    state, _ = act(state, (0, "raise", 600), (1, "call"), (2, "all_in"))
    for _ in range(3):
        state, events = act(state, (1, "check"), (0, "check"))
    awards = of_type(events, "award")
    assert [(a["amount"], a["winners"]) for a in awards] == [(900, [1, 2]), (600, [1])]
    assert awards[0]["shares"] == [{"seat": 1, "amount": 450}, {"seat": 2, "amount": 450}]
    assert state.stacks == [400, 1450, 450]


def test_odd_chips_go_one_at_a_time_from_first_winner_left_of_button():
    holes = {0: "4c 5d", 2: "2c 3c", 3: "2d 3d"}
    state, _ = deal([1000, 1000, 1000, 1000], holes=holes, board="Ah Kh Qd Jc Ts",
                    small_blind=5, big_blind=10)
    state, _ = act(state, (3, "call"), (0, "call"), (1, "fold"), (2, "check"))
    for _ in range(3):
        state, events = act(state, (2, "check"), (3, "check"), (0, "check"))
    award = of_type(events, "award")[0]
    assert award["amount"] == 35
    # three-way tie: 11 each, the two odd chips to seats 2 and 3 (left of the button)
    assert award["shares"] == [{"seat": 2, "amount": 12}, {"seat": 3, "amount": 12},
                               {"seat": 0, "amount": 11}]


def test_odd_chips_no_player_gets_more_than_one_per_pot():
    assert split_pot(35, [0, 2, 3], button=0, n_seats=4) == [(2, 12), (3, 12), (0, 11)]
    assert split_pot(7, [1, 3], button=2, n_seats=4) == [(3, 4), (1, 3)]
    assert split_pot(9, [4, 0, 2, 7], button=5, n_seats=8) == [(7, 3), (0, 2), (2, 2), (4, 2)]


# ------------------------------------------------------------- showdown

def _checked_to_river(holes, board, stacks=(1000, 1000, 1000)):
    state, _ = deal(list(stacks), holes=holes, board=board)
    state, _ = act(state, (0, "call"), (1, "call"), (2, "check"))
    for _ in range(2):
        state, _ = act(state, (1, "check"), (2, "check"), (0, "check"))
    assert state.street == "river"
    return state


BOARD = "2c 7d 9h Js 4s"


def test_showdown_order_last_aggressor_shows_first():
    state = _checked_to_river({0: "Kh Kd", 1: "Ah Ad", 2: "3d 8s"}, BOARD)
    state, events = act(state, (1, "check"), (2, "bet", 100), (0, "call"), (1, "call"))
    showdown = of_type(events, "showdown")[0]
    assert [h["seat"] for h in showdown["hands"]] == [2, 0, 1]
    assert showdown["mucked"] == []


def test_showdown_order_first_left_of_button_when_checked_through():
    state = _checked_to_river({0: "Ah Ad", 1: "3d 8s", 2: "Kh Kd"}, BOARD)
    state, events = act(state, (1, "check"), (2, "check"), (0, "check"))
    showdown = of_type(events, "showdown")[0]
    assert [h["seat"] for h in showdown["hands"]] == [1, 2, 0]
    assert showdown["hands"][2]["description"].lower().startswith("one pair")
    assert of_type(events, "award")[0]["winners"] == [0]


def test_losers_may_muck():
    state = _checked_to_river({0: "3d 8s", 1: "Ah Ad", 2: "Kh Kd"}, BOARD)
    state, events = act(state, (1, "check"), (2, "check"), (0, "check"))
    showdown = of_type(events, "showdown")[0]
    assert [h["seat"] for h in showdown["hands"]] == [1]
    assert showdown["mucked"] == [2, 0]
    for viewer in (None, 0, 1, 2):
        seats = view(state, viewer)["seats"]
        assert seats[1]["cards"] == parse_cards("Ah Ad")
        assert seats[2]["cards"] is None and seats[0]["cards"] is None


def test_tied_hand_is_shown_not_mucked():
    state = _checked_to_river({0: "Ah Kd", 1: "Ac Kc", 2: "3d 8s"}, BOARD)
    state, events = act(state, (1, "check"), (2, "check"), (0, "check"))
    showdown = of_type(events, "showdown")[0]
    assert [h["seat"] for h in showdown["hands"]] == [1, 0]
    assert showdown["mucked"] == [2]
    assert of_type(events, "award")[0]["winners"] == [1, 0]


def test_everyone_folds_pot_awarded_without_showing_cards():
    state, _ = deal([1000, 1000, 1000])
    state, events = act(state, (0, "raise", 300), (1, "fold"), (2, "fold"))
    assert of_type(events, "showdown") == []
    assert of_type(events, "award")[0]["winners"] == [0]
    assert state.is_over and state.to_act is None
    for viewer in (None, 1, 2):
        assert all(s["cards"] is None for s in view(state, viewer)["seats"])
    assert view(state, 0)["hole"] == state.hole[0]


def test_all_in_board_runs_out_automatically():
    holes = {0: "Ah Ad", 1: "Kh Kd"}
    state, _ = deal([1000, 800], holes=holes, board=BOARD)
    state, events = act(state, (0, "all_in"), (1, "call"))
    assert state.is_over and len(state.board) == 5
    assert [e["street"] for e in of_type(events, "board")] == ["flop", "turn", "river"]
    showdown = of_type(events, "showdown")[0]
    assert sorted(h["seat"] for h in showdown["hands"]) == [0, 1]  # all-in hands face up
    assert of_type(events, "return") == [{"type": "return", "seat": 0, "amount": 200}]
    assert state.stacks == [1800, 0]


def test_all_in_on_the_blinds_runs_the_board_out_at_the_deal():
    seats = table([30, 60])
    state, events = start_hand({"button": 0}, seats, stacked_deck(seats, 0, {}))
    assert state.is_over and len(state.board) == 5
    assert state.opening == events
    assert sum(state.stacks) == 90
    assert of_type(events, "return") == [{"type": "return", "seat": 1, "amount": 30}]


def test_losing_all_in_hand_is_shown_when_the_board_runs_out():
    holes = {0: "Ah Ad", 1: "3d 8s", 2: "Kh Kd"}
    state, _ = deal([500, 1000, 2000], holes=holes, board=BOARD)
    state, events = act(state, (0, "all_in"), (1, "all_in"), (2, "call"))
    showdown = of_type(events, "showdown")[0]
    assert [h["seat"] for h in showdown["hands"]] == [1, 2, 0]  # last aggressor first
    assert showdown["mucked"] == []


def test_raise_not_offered_when_no_one_could_call_it():
    # seat 2 shoves 1000; seat 0 (1500) faces it with only seat 1 (300, all-in) behind:
    # nobody else could put in more than 1000, so seat 0 may call or fold, not raise
    state, _ = deal([1500, 300, 1000])
    state, _ = act(state, (0, "call"), (1, "all_in"), (2, "all_in"))
    legal = legal_actions(state, 0)
    assert legal.call == 900 and legal.min_to is None and not legal.all_in
    state, events = act(state, (0, "call"))
    assert state.is_over and len(state.board) == 5


def test_lone_player_with_chips_is_not_asked_to_call_a_blind_nobody_posted():
    # heads-up, the big blind is all-in from the ante and posts nothing: the button's
    # small blind is uncalled, so the board runs out without asking anyone to act
    state, events = deal([1000, 40], button=0, ante=40)
    assert state.is_over and len(state.board) == 5
    assert of_type(events, "return") == [{"type": "return", "seat": 0, "amount": 50}]
    assert sum(state.stacks) == 1040 and of_type(events, "award")[0]["amount"] == 80
