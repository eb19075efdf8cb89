"""The Hold'em time bank (room option ``time_bank_seconds``, issue #28 item 15): extra
seconds each seat gets once for as long as it keeps the seat, used when its turn clock
runs out; a timeout comes only after clock + bank, and what was used is deducted exactly.

Table and core level, with the real game: no Redis, no sockets, no clock."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import ConfigError
from server.games import GAMES
from server.room import table as tbl
from server.room.core import ActCommand, AutoPlayCommand, RoomCore
from server.room.options import parse_room_options

from .test_auto_play import T0, dealt, origin, player_to_act, store

_ids = itertools.count(1)
CLOCK = 30_000  # action_seconds 30
BANK = 20_000  # time_bank_seconds 20


def banked(**options) -> RoomCore:
    return dealt("holdem", 3, time_bank_seconds=BANK / 1000, **options)


def call_or_check(c: RoomCore, now: int) -> None:
    seat = c.table.hand.to_act
    legal = c.game.legal_actions(c.table.hand, seat)
    action = {"type": "check"} if legal.check else {"type": "call"}
    store(c, c.handle(ActCommand(origin(player_to_act(c)), action, f"a{next(_ids)}"), now))


def test_every_seat_starts_with_the_whole_bank():
    c = banked()
    assert [s.bank_ms for s in c.table.seats] == [BANK] * 3


def test_a_timeout_comes_only_after_the_clock_and_the_whole_bank():
    c = banked()
    seat = c.table.hand.to_act
    assert c.due(T0 + CLOCK - 1) is None
    bank = store(c, c.due(T0 + CLOCK))
    assert bank.kind == "time_bank"
    assert bank.events == [{"type": "time_bank", "seat": seat, "bank_ms": BANK}]
    assert c.table.deadline_ms == T0 + CLOCK + BANK and c.table.bank_since_ms == T0 + CLOCK
    assert c.wake_ms() == T0 + CLOCK + BANK
    assert c.due(T0 + CLOCK + BANK - 1) is None
    out = store(c, c.due(T0 + CLOCK + BANK))
    assert out.kind == "timeout" and out.events[0]["type"] == "timed_out"
    assert c.table.seats[seat].bank_ms == 0 and c.table.bank_since_ms is None


def test_the_bank_used_is_deducted_exactly_and_the_rest_kept_for_later_turns():
    c = banked()
    seat = c.table.hand.to_act
    store(c, c.due(T0 + CLOCK + 400))  # taken a little late: the bank still started at the clock's end
    assert c.table.bank_since_ms == T0 + CLOCK and c.table.deadline_ms == T0 + CLOCK + BANK
    call_or_check(c, T0 + CLOCK + 7_250)
    assert c.table.seats[seat].bank_ms == BANK - 7_250
    assert c.table.bank_since_ms is None and c.table.deadline_ms == T0 + CLOCK + 7_250 + CLOCK  # the next seat's clock
    others = [s.bank_ms for i, s in enumerate(c.table.seats) if i != seat]
    assert others == [BANK, BANK]


def test_acting_within_the_clock_costs_no_bank():
    c = banked()
    seat = c.table.hand.to_act
    call_or_check(c, T0 + CLOCK - 1)
    assert c.table.seats[seat].bank_ms == BANK


def test_a_seat_whose_bank_is_spent_times_out_at_its_clock():
    c = banked()
    seat = c.table.hand.to_act
    c.table.seats[seat].bank_ms = 0
    assert store(c, c.due(T0 + CLOCK)).kind == "timeout"


def test_an_auto_played_seat_never_draws_on_its_bank():
    c = banked()
    seat = c.table.hand.to_act
    store(c, c.handle(AutoPlayCommand(origin(f"p{seat}"), True), T0))
    assert store(c, c.due(T0)).kind == "auto" and c.table.seats[seat].bank_ms == BANK


def test_without_the_option_there_is_no_bank():
    c = dealt("holdem", 3)
    assert c.table.seats[0].bank_ms == 0
    assert store(c, c.due(T0 + CLOCK)).kind == "timeout"


def test_the_bank_and_its_running_clock_survive_the_snapshot_and_replay():
    c = banked()
    seat = c.table.hand.to_act
    store(c, c.due(T0 + CLOCK))
    again = tbl.from_dict(tbl.to_dict(c.table, c.game), c.game)
    assert again.bank_since_ms == T0 + CLOCK and again.seats[seat].bank_ms == BANK
    before = c.table
    acted = c.handle(ActCommand(origin(f"p{seat}"), {"type": "fold"}, "f1"), T0 + CLOCK + 3_000)
    replayed = RoomCore.replayer(GAMES["holdem"], again).replay(acted.record)
    assert tbl.to_dict(replayed.table, c.game) == tbl.to_dict(acted.table, c.game)
    assert replayed.table.seats[seat].bank_ms == BANK - 3_000
    assert before.seats[seat].bank_ms == BANK  # the stored table is not touched by the draft


@pytest.mark.parametrize("value", [-1, 601, "x"])
def test_the_option_is_checked(value):
    with pytest.raises(ConfigError) as info:
        parse_room_options(GAMES["holdem"], {"time_bank_seconds": value})
    assert info.value.field == "time_bank_seconds"


def test_the_option_is_hold_em_only():
    assert parse_room_options(GAMES["holdem"], {"time_bank_seconds": 600})["time_bank_seconds"] == 600
    for game in ("zhajinhua", "doudizhu"):
        with pytest.raises(ConfigError) as info:
            parse_room_options(GAMES[game], {"time_bank_seconds": 10})
        assert info.value.field == "time_bank_seconds"


@settings(max_examples=40, deadline=None)
@given(delays=st.lists(st.integers(0, 60_000), min_size=5, max_size=40), seed=st.integers(0, 1000))
def test_a_bank_only_shrinks_by_what_its_clock_ran_past_the_turn_clock(delays, seed):
    """Whenever a seat acts ``d`` ms into its turn, its bank shrinks by exactly what ran
    past the turn clock (at most all of it); the seat times out only once clock and bank
    are both spent, and a bank is never negative and never grows."""
    c = dealt("holdem", 3, seed, time_bank_seconds=BANK / 1000)
    for d in delays:
        if not tbl.playing(c.table):
            break
        seat = c.table.hand.to_act
        turn_start = c.table.deadline_ms - CLOCK
        before = c.table.seats[seat].bank_ms
        now = turn_start + d
        while (change := c.due(now)) is not None and change.kind == "time_bank":
            store(c, change)
        if change is not None and change.kind == "auto":  # auto-played after two timeouts: no bank used
            store(c, change)
            assert c.table.seats[seat].bank_ms == before
            continue
        if change is not None:  # the clock and the bank ran out
            assert change.kind == "timeout" and d >= CLOCK + before
            store(c, change)
            assert c.table.seats[seat].bank_ms == 0
            continue
        assert d < CLOCK + before
        call_or_check(c, now)
        assert c.table.seats[seat].bank_ms == before - min(before, max(0, d - CLOCK))
        assert all(s.bank_ms >= 0 for s in c.table.seats if s is not None)
