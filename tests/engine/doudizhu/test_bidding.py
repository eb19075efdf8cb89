"""The landlord auction on its own: score bidding (叫分) and rob bidding (叫地主/抢地主)."""

from __future__ import annotations

import pytest

from engine.doudizhu.bidding import apply_bid, bid_multiplier, bid_options, start_bidding
from engine.errors import IllegalAction

ORDER = [1, 2, 0]  # seat 1 bids first (left of button 0)


def run(style: str, steps: list[tuple[int, dict]]):
    b = start_bidding(style, ORDER)
    for seat, action in steps:
        b, _ = apply_bid(b, seat, action)
    return b


def bid(v: int) -> dict:
    return {"type": "bid", "value": v}


PASS = {"type": "pass"}
CALL = {"type": "call"}
ROB = {"type": "rob"}


# --- score bidding -----------------------------------------------------------------

def test_score_bid_of_three_ends_bidding_at_once():
    b = run("score", [(1, bid(3))])
    assert b.done and b.landlord == 1 and b.to_act is None
    assert bid_multiplier(b) == 3


def test_score_bidding_ends_when_the_others_have_passed():
    b = run("score", [(1, PASS), (2, bid(1)), (0, PASS)])
    assert b.done and b.landlord == 2 and bid_multiplier(b) == 1


def test_score_bidding_highest_bidder_wins_after_others_pass():
    b = run("score", [(1, bid(1)), (2, bid(2)), (0, PASS)])
    assert not b.done and b.to_act == 1  # seat 1 has not passed: it may go to 3
    assert bid_options(b).bids == (3,)
    b, _ = apply_bid(b, 1, PASS)
    assert b.done and b.landlord == 2 and bid_multiplier(b) == 2


def test_score_bidding_passed_seat_never_speaks_again():
    b = run("score", [(1, PASS), (2, bid(1)), (0, bid(2))])
    assert b.to_act == 2  # seat 1 is out
    b, _ = apply_bid(b, 2, bid(3))
    assert b.done and b.landlord == 2 and bid_multiplier(b) == 3


def test_score_bidding_all_pass_means_no_landlord():
    b = run("score", [(1, PASS), (2, PASS), (0, PASS)])
    assert b.done and b.landlord is None


def test_score_bid_must_be_above_current_bid():
    b = run("score", [(1, bid(2))])
    for value in (1, 2, 4, 0, -1, True, "3", None, 2.5):
        with pytest.raises(IllegalAction) as e:
            apply_bid(b, 2, bid(value))  # type: ignore[arg-type]
        assert e.value.code == "bad_bid"
    with pytest.raises(IllegalAction) as e:
        apply_bid(b, 2, {"type": "bid"})
    assert e.value.code == "bad_bid"


def test_score_bidding_offers_only_higher_bids():
    b = start_bidding("score", ORDER)
    assert bid_options(b).bids == (1, 2, 3)
    b, _ = apply_bid(b, 1, bid(1))
    assert bid_options(b).bids == (2, 3)


def test_score_bidding_rejects_rob_actions_and_out_of_turn():
    b = start_bidding("score", ORDER)
    with pytest.raises(IllegalAction) as e:
        apply_bid(b, 1, CALL)
    assert e.value.code == "bad_action"
    with pytest.raises(IllegalAction) as e:
        apply_bid(b, 2, bid(1))
    assert e.value.code == "not_your_turn"


def test_apply_bid_never_changes_the_given_auction():
    b = run("score", [(1, bid(1))])
    before = (list(b.history), list(b.passed), b.high_bid, b.to_act)
    apply_bid(b, 2, PASS)
    apply_bid(b, 2, bid(3))
    assert (b.history, b.passed, b.high_bid, b.to_act) == before


# --- rob bidding -------------------------------------------------------------------

def test_rob_bidding_call_without_robs_makes_caller_landlord_at_x1():
    b = run("rob", [(1, CALL), (2, PASS), (0, PASS)])
    assert b.done and b.landlord == 1 and bid_multiplier(b) == 1


def test_rob_bidding_each_rob_doubles_the_multiplier():
    b = run("rob", [(1, CALL), (2, ROB)])
    assert bid_multiplier(b) == 2 and b.to_act == 0
    b, events = apply_bid(b, 0, ROB)
    assert bid_multiplier(b) == 4 and events[0]["multiplier"] == 4
    assert b.to_act == 1  # the caller may rob back
    b, _ = apply_bid(b, 1, PASS)
    assert b.done and b.landlord == 0 and bid_multiplier(b) == 4


def test_rob_bidding_first_caller_may_rob_back_once():
    b = run("rob", [(1, CALL), (2, ROB), (0, PASS)])
    assert b.to_act == 1 and bid_options(b).can_rob
    b, _ = apply_bid(b, 1, ROB)
    assert b.done and b.landlord == 1 and bid_multiplier(b) == 4


def test_rob_bidding_all_three_rob_gives_x8():
    b = run("rob", [(1, CALL), (2, ROB), (0, ROB), (1, ROB)])
    assert b.done and b.landlord == 1 and bid_multiplier(b) == 8


def test_rob_bidding_no_rob_back_when_nobody_robbed():
    b = run("rob", [(1, CALL), (2, PASS)])
    assert b.to_act == 0
    b, _ = apply_bid(b, 0, PASS)
    assert b.done and b.landlord == 1


def test_rob_bidding_seat_that_declined_to_call_may_not_rob():
    b = run("rob", [(1, PASS), (2, CALL)])
    assert b.to_act == 0  # seat 1 declined to call: skipped in the rob round
    b, _ = apply_bid(b, 0, ROB)
    assert b.to_act == 2  # caller robs back
    b, _ = apply_bid(b, 2, PASS)
    assert b.done and b.landlord == 0 and bid_multiplier(b) == 2


def test_rob_bidding_last_seat_calling_after_two_passes_is_landlord():
    b = run("rob", [(1, PASS), (2, PASS), (0, CALL)])
    assert b.done and b.landlord == 0 and bid_multiplier(b) == 1


def test_rob_bidding_all_pass_means_no_landlord():
    b = run("rob", [(1, PASS), (2, PASS), (0, PASS)])
    assert b.done and b.landlord is None


def test_rob_bidding_rob_before_call_and_call_after_call_are_bad_bids():
    b = start_bidding("rob", ORDER)
    with pytest.raises(IllegalAction) as e:
        apply_bid(b, 1, ROB)
    assert e.value.code == "bad_bid"
    b, _ = apply_bid(b, 1, CALL)
    with pytest.raises(IllegalAction) as e:
        apply_bid(b, 2, CALL)
    assert e.value.code == "bad_bid"
    with pytest.raises(IllegalAction) as e:
        apply_bid(b, 2, bid(1))
    assert e.value.code == "bad_action"


def test_finished_auction_rejects_everything():
    b = run("rob", [(1, PASS), (2, PASS), (0, PASS)])
    with pytest.raises(IllegalAction) as e:
        apply_bid(b, 1, CALL)
    assert e.value.code == "hand_over"
    assert bid_options(b) is None
