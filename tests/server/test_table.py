"""Pure room-level rules (server.table) with the High Card game."""

from __future__ import annotations

import msgpack
import pytest

from engine.errors import IllegalAction
from server.edge.protocol import ProtocolError
from server.room import table as tbl
from server.room.league_match import LeagueState

from .highcard import GAME

OPTIONS = {
    "name": "t", "seats": 4, "action_seconds": 10.0, "between_hands_seconds": 2.0,
    "buy_in_min": 10, "buy_in_max": 1000, "buy_in_default": 100,
}
DECK = list(range(52))


def new_table(seats: int = 4) -> tbl.Table:
    return tbl.Table(room="r", game="highcard", options=dict(OPTIONS, seats=seats),
                     config={"ante": 10, "max_bet": 100}, seats=[None] * seats)


def test_sit_takes_the_lowest_free_seat_or_the_asked_one():
    t = new_table()
    assert tbl.sit(t, "a", "A", None, 100)[0] == 0
    assert tbl.sit(t, "b", "B", 2, 100)[0] == 2
    assert tbl.sit(t, "c", "C", None, 100)[0] == 1


@pytest.mark.parametrize("seat, buy_in, code", [(9, 100, "bad_seat"), (0, 5, "bad_buy_in"), (0, 5000, "bad_buy_in")])
def test_sit_rejects_bad_seats_and_buy_ins(seat, buy_in, code):
    with pytest.raises(ProtocolError) as info:
        tbl.sit(new_table(), "a", "A", seat, buy_in)
    assert info.value.code == code


def test_a_player_cannot_sit_twice_and_full_tables_are_full():
    t = new_table(2)
    tbl.sit(t, "a", "A", None, 100)
    with pytest.raises(ProtocolError, match="already_seated"):
        tbl.sit(t, "a", "A", None, 100)
    with pytest.raises(ProtocolError, match="seat_taken"):
        tbl.sit(t, "b", "B", 0, 100)
    tbl.sit(t, "b", "B", None, 100)
    with pytest.raises(ProtocolError, match="room_full"):
        tbl.sit(t, "c", "C", None, 100)


def test_a_hand_needs_min_players_ready_and_sitting_out_seats_are_not_dealt():
    t = new_table()
    tbl.sit(t, "a", "A", 0, 100)
    assert not tbl.can_start(t, GAME)
    tbl.sit(t, "b", "B", 1, 100)
    tbl.sit_out(t, 1, 0)
    assert not tbl.can_start(t, GAME)
    tbl.sit_in(t, 1)
    assert tbl.due(t, GAME, 0) == "start"
    tbl.sit(t, "c", "C", 3, 100)
    tbl.sit_out(t, 3, 0)
    tbl.start_hand(t, GAME, DECK, 0)
    assert t.hand.stacks == [90, 90, None, None]


def finish_hand(t: tbl.Table, now: int = 0) -> list:
    events = []
    while tbl.playing(t):
        events += tbl.act(t, GAME, t.hand.to_act, {"type": "fold"}, now)
    return events


def test_the_button_moves_to_the_next_dealt_seat_and_wraps():
    t = new_table()
    for i, p in ((0, "a"), (2, "b"), (3, "c")):
        tbl.sit(t, p, p, i, 100)
    buttons = []
    for _ in range(4):
        tbl.start_hand(t, GAME, DECK, 0)
        buttons.append(t.button)
        finish_hand(t)
    assert buttons == [0, 2, 3, 0]


def test_the_button_skips_a_seat_that_sits_out():
    t = new_table()
    for i, p in ((0, "a"), (1, "b"), (2, "c")):
        tbl.sit(t, p, p, i, 100)
    tbl.start_hand(t, GAME, DECK, 0)
    finish_hand(t)
    tbl.sit_out(t, 1, 0)
    tbl.start_hand(t, GAME, DECK, 0)
    assert t.button == 2


def test_busted_players_stand_up_when_the_hand_ends():
    t = new_table(2)
    tbl.sit(t, "a", "A", 0, 10)
    tbl.sit(t, "b", "B", 1, 100)
    tbl.start_hand(t, GAME, DECK, 0)  # both ante 10: seat 0 is all in
    events = tbl.act(t, GAME, 1, {"type": "bet", "amount": 5}, 0)  # seat 1 acts first (left of button 0)
    events += tbl.act(t, GAME, 0, {"type": "fold"}, 0)
    assert t.seats[0] is None
    left = [e for e in events if e["type"] == "left"]
    assert left == [{"type": "left", "seat": 0, "player": "a", "stack": 0, "reason": "busted"}]
    assert t.seats[1].stack == 110


def test_two_timeouts_in_a_row_hand_the_seat_to_auto_play_and_taking_it_back_resets_the_count():
    t = new_table(3)
    for i in range(3):
        tbl.sit(t, f"p{i}", "n", i, 100)
    tbl.start_hand(t, GAME, DECK, 1000)
    assert t.deadline_ms == 1000 + 10_000
    assert tbl.due(t, GAME, 10_999) is None and tbl.due(t, GAME, 11_000) == "timeout"
    seat = t.hand.to_act
    events = tbl.play_for(t, GAME, 11_000, "timeout")
    assert events[0] == {"type": "timed_out", "seat": seat, "action": {"type": "fold"}}
    assert t.seats[seat].timeouts == 1 and not t.seats[seat].sitting_out
    finish_hand(t)
    tbl.start_hand(t, GAME, DECK, 20_000)
    while t.hand.to_act != seat:
        tbl.act(t, GAME, t.hand.to_act, {"type": "bet", "amount": 1}, 20_000)
    events = tbl.play_for(t, GAME, 40_000, "timeout")
    assert {"type": "auto_play", "seat": seat, "on": True, "reason": "timeouts"} in events
    assert t.seats[seat].auto == "timeouts" and not t.seats[seat].sitting_out  # still dealt in, played for
    assert seat in tbl.ready_seats(t)
    assert tbl.set_auto(t, seat, False, 41_000) == [{"type": "auto_play", "seat": seat, "on": False}]
    assert t.seats[seat].timeouts == 0 and t.seats[seat].auto is None


def test_leaving_during_a_hand_is_pending_until_it_ends_then_the_stack_is_returned():
    t = new_table(3)
    for i in range(3):
        tbl.sit(t, f"p{i}", "n", i, 100)
    tbl.start_hand(t, GAME, DECK, 0)
    pending, stack, events = tbl.leave(t, 2)
    assert pending and stack == 0 and t.seats[2].leaving
    assert tbl.due(t, GAME, 0) is None  # seat 1 is to act, not the leaver
    tbl.act(t, GAME, 1, {"type": "bet", "amount": 5}, 0)
    assert tbl.due(t, GAME, 0) == "leaver"
    events = tbl.play_for(t, GAME, 0, "leaver")
    assert not any(e["type"] == "timed_out" for e in events)
    events += finish_hand(t)
    assert t.seats[2] is None
    assert {"type": "left", "seat": 2, "player": "p2", "stack": 90, "reason": "left"} in events


def test_leaving_between_hands_frees_the_seat_at_once():
    t = new_table()
    tbl.sit(t, "a", "A", 0, 100)
    assert tbl.leave(t, 0)[:2] == (False, 100)
    assert t.seats[0] is None


def test_next_hand_waits_for_the_pause_after_a_hand():
    t = new_table(2)
    tbl.sit(t, "a", "A", 0, 100)
    tbl.sit(t, "b", "B", 1, 100)
    tbl.start_hand(t, GAME, DECK, 0)
    finish_hand(t, 5000)
    assert t.next_hand_ms == 7000
    assert tbl.due(t, GAME, 6999) is None and tbl.due(t, GAME, 7000) == "start"


def test_a_rejected_action_leaves_the_table_untouched():
    t = new_table(2)
    tbl.sit(t, "a", "A", 0, 100)
    tbl.sit(t, "b", "B", 1, 100)
    tbl.start_hand(t, GAME, DECK, 0)
    before = tbl.to_dict(t, GAME)
    with pytest.raises(IllegalAction):
        tbl.act(t, GAME, 0, {"type": "fold"}, 0)
    assert tbl.to_dict(t, GAME) == before


def test_chips_on_the_table_are_conserved_across_hands():
    t = new_table(3)
    for i in range(3):
        tbl.sit(t, f"p{i}", "n", i, 100)
    for _ in range(5):
        tbl.start_hand(t, GAME, DECK, 0)
        while tbl.playing(t):
            tbl.act(t, GAME, t.hand.to_act, {"type": "bet", "amount": 3}, 0)
        assert sum(s.stack for s in t.seats if s) == 300


def test_the_table_round_trips_through_msgpack():
    t = new_table(3)
    for i in range(3):
        tbl.sit(t, f"p{i}", "n", i, 100)
    tbl.start_hand(t, GAME, DECK, 0)
    tbl.remember_answer(t, "p1", "x", 4)
    d = msgpack.unpackb(msgpack.packb(tbl.to_dict(t, GAME)), raw=False)
    assert tbl.from_dict(d, GAME) == t


def test_cash_outs_owed_are_typed_records_stored_as_plain_lists():
    t = new_table()
    t.xout = [tbl.Transfer("x1", "p0", 40, 2, "busted")]
    d = msgpack.unpackb(msgpack.packb(tbl.to_dict(t, GAME)), raw=False)
    assert d["xout"] == [["x1", "p0", 40, 2, "busted"]]  # the stored form is unchanged
    [back] = tbl.from_dict(d, GAME).xout
    assert (back.xid, back.player, back.amount, back.seat, back.reason) == ("x1", "p0", 40, 2, "busted")
    d["xout"] = [["x0", "p1", 7]]  # stored before seats and reasons were kept
    assert tbl.from_dict(d, GAME).xout == [tbl.Transfer("x0", "p1", 7, -1, "left")]


def test_a_league_match_is_a_typed_record_stored_as_the_map_it_was():
    deals = {"match": "m-1", "seed": "ab", "hands": 20, "stack": 1000}
    sng = {"match": "m-2", "seed": "cd", "hands": 200, "stack": 1500, "format": "sng",
           "levels": [[10, 20], [15, 30]], "level_hands": 10, "places": {"2": 3}}
    for stored in (deals, sng):
        t = new_table()
        t.league = LeagueState.from_dict(stored)
        d = msgpack.unpackb(msgpack.packb(tbl.to_dict(t, GAME)), raw=False)
        assert d["league"] == stored  # what snapshots held before it was typed
        assert tbl.from_dict(d, GAME).league == t.league
    state = LeagueState.from_dict(sng)
    assert state.sng and state.levels[1] == (15, 30) and state.places == {"2": 3}
    assert not LeagueState.from_dict(deals).sng


def test_only_each_players_last_answers_are_kept():
    t = new_table()
    tbl.remember_answer(t, "q", "mine", 1)
    for i in range(tbl.ANSWERS_KEPT + 10):
        tbl.remember_answer(t, "p", str(i), i)
    assert len(t.answers["p"]) == tbl.ANSWERS_KEPT
    assert tbl.find_answer(t, "p", "0") is None and tbl.find_answer(t, "p", str(tbl.ANSWERS_KEPT + 9)) == tbl.ANSWERS_KEPT + 9
    assert tbl.find_answer(t, "q", "mine") == 1  # a busy player never pushes out another's answers
    assert tbl.find_answer(t, "p", "mine") is None


def test_answers_of_older_snapshots_are_read():
    t = new_table()
    d = tbl.to_dict(t, GAME)
    d["answers"] = [["p", "a", 3], ["q", "b", 4], ["p", "c", 5]]
    assert tbl.from_dict(d, GAME).answers == {"p": [["a", 3], ["c", 5]], "q": [["b", 4]]}


def test_changing_a_clone_leaves_the_original_untouched():
    t = new_table(3)
    for i in range(3):
        tbl.sit(t, f"p{i}", "n", i, 100)
    tbl.start_hand(t, GAME, DECK, 0)
    before = tbl.to_dict(t, GAME)
    c = tbl.clone(t)
    tbl.act(c, GAME, c.hand.to_act, {"type": "bet", "amount": 3}, 5)
    tbl.sit_out(c, 0, 0)
    tbl.leave(c, 1)
    tbl.remember_answer(c, "p0", "x", 9)
    while tbl.playing(c):
        tbl.act(c, GAME, c.hand.to_act, {"type": "fold"}, 5)
    assert tbl.to_dict(t, GAME) == before


def test_a_clone_holds_every_field_of_the_table_and_of_its_seats():
    from dataclasses import fields

    t = new_table(3)
    for i in range(3):
        tbl.sit(t, f"p{i}", "n", i, 100)
    tbl.start_hand(t, GAME, DECK, 0)
    t.league, t.xin, t.xout, t.code = LeagueState("m", "s", 3, 100), ["x1"], [["x2", "p0", 5, 0, "left"]], "ABCD"
    c = tbl.clone(t)
    assert [getattr(c, f.name) for f in fields(tbl.Table)] == [getattr(t, f.name) for f in fields(tbl.Table)]
    assert c.seats is not t.seats and all(a is not b for a, b in zip(c.seats, t.seats, strict=True))
    assert c.xin is not t.xin and c.xout is not t.xout and c.answers is not t.answers
