"""Sitting out during a hand you are dealt into (issue #28, item 11): your turns are played
at once with the game's timeout action, as for a player who is leaving, instead of
everyone waiting out your clock.

Table and core level, with the real games: no Redis, no sockets, no clock."""

from __future__ import annotations

import itertools
import random

import pytest

from server.games import GAMES
from server.room import table as tbl
from server.room.core import (
    ActCommand,
    Change,
    JoinCommand,
    Origin,
    Reply,
    RoomCore,
    SitInCommand,
    SitOutCommand,
)

OPTIONS = {"name": "t", "action_seconds": 30.0, "between_hands_seconds": 2.0,
           "buy_in_min": 10, "buy_in_max": 10_000, "buy_in_default": 1000}
T0 = 1_000_000  # the time the hand is dealt (ms)


def dealt(game_name: str, seats: int, seed: int = 3) -> tbl.Table:
    """A table of ``game_name`` with ``seats`` players p0, p1, ... and a hand dealt at T0."""
    game = GAMES[game_name]
    t = tbl.Table(room="r", game=game_name, options=dict(OPTIONS, seats=seats),
                  config=game.parse_config(None), seats=[None] * seats)
    for i in range(seats):
        tbl.sit(t, f"p{i}", f"P{i}", i, 1000)
    deck = list(range(game.deck_size))
    random.Random(seed).shuffle(deck)
    tbl.start_hand(t, game, deck, T0)
    return t


@pytest.mark.parametrize("game_name", ["holdem", "zhajinhua", "doudizhu"])
def test_a_seat_that_sits_out_on_its_turn_is_played_at_once_with_the_timeout_action(game_name):
    game = GAMES[game_name]
    t = dealt(game_name, 3)
    seat = t.hand.to_act
    expected = game.timeout_action(t.hand, seat)
    assert tbl.due(t, game, T0 + 1) is None  # an ordinary turn: its clock runs (30 s)
    assert tbl.next_wakeup_ms(t, game) == T0 + 30_000

    tbl.sit_out(t, seat, T0)
    assert tbl.due(t, game, T0 + 1) == "sitting_out"  # due now, not when the clock runs out
    assert tbl.next_wakeup_ms(t, game) == 0
    before = t.hand
    events = tbl.play_for(t, game, T0 + 1, "sitting_out")
    assert not any(e["type"] == "timed_out" for e in events)  # no clock ran out
    assert t.seats[seat].timeouts == 0  # nor counted as a timeout
    _, engine_events = game.apply(before, seat, expected)
    assert events[:len(engine_events)] == engine_events  # exactly the game's timeout action
    if tbl.playing(t):
        assert t.hand.to_act != seat and tbl.due(t, game, T0 + 1) is None  # the next player's clock
        assert t.deadline_ms == T0 + 1 + 30_000


def test_holdem_sitting_out_checks_when_it_may_and_folds_to_a_bet():
    game = GAMES["holdem"]
    t = dealt("holdem", 3)
    # preflop the button calls and the small blind completes: the big blind may check
    while t.hand.to_act != 2:
        tbl.act(t, game, t.hand.to_act, {"type": "call"}, T0)
    tbl.sit_out(t, 2, T0)
    events = tbl.play_for(t, game, T0, tbl.due(t, game, T0))
    assert {"type": "action", "seat": 2, "action": "check"}.items() <= events[0].items()
    # on the flop seat 2 is bet into: the seat folds at once instead of waiting 30 s
    while t.hand.to_act != 2:
        seat = t.hand.to_act
        legal = game.legal_actions(t.hand, seat)
        tbl.act(t, game, seat, {"type": "bet", "to": legal.min_to} if legal.check else {"type": "call"}, T0)
    assert tbl.due(t, game, T0) == "sitting_out"
    events = tbl.play_for(t, game, T0, "sitting_out")
    assert {"type": "action", "seat": 2, "action": "fold"}.items() <= events[0].items()
    assert t.seats[2] is not None and t.seats[2].sitting_out  # keeps the seat, dealt out of the next hand


def test_a_seat_auto_played_after_two_timeouts_is_not_waited_for_again_in_the_same_hand():
    game = GAMES["holdem"]
    t = dealt("holdem", 3)
    while t.hand.to_act != 2:  # the button and the small blind call: the big blind may check
        tbl.act(t, game, t.hand.to_act, {"type": "call"}, T0)
    t.seats[2].timeouts = tbl.AUTO_PLAY_AFTER_TIMEOUTS - 1
    events = tbl.play_for(t, game, T0 + 30_000, "timeout")  # its second clock in a row runs out
    assert events[0]["type"] == "timed_out" and events[0]["action"] == {"type": "check"}
    assert {"type": "auto_play", "seat": 2, "on": True, "reason": "timeouts"} in events
    assert t.hand.street == "flop" and t.hand.to_act == 1
    tbl.act(t, game, 1, {"type": "check"}, T0 + 31_000)
    assert t.hand.to_act == 2
    assert tbl.due(t, game, T0 + 31_000) == "auto"  # its next turn: at once, not 30 s later


def test_sitting_in_again_before_the_turn_gives_the_clock_back():
    game = GAMES["holdem"]
    t = dealt("holdem", 3)
    seat = t.hand.to_act
    tbl.sit_out(t, seat, T0)
    tbl.sit_in(t, seat)
    assert tbl.due(t, game, T0 + 1) is None and tbl.next_wakeup_ms(t, game) == T0 + 30_000


def test_a_seat_sitting_out_but_not_dealt_in_changes_nothing():
    game = GAMES["holdem"]
    t = dealt("holdem", 3)
    to_act = t.hand.to_act
    other = next(i for i in range(3) if i != to_act)
    tbl.sit_out(t, other, T0)  # sits out, but it is not its turn
    assert tbl.due(t, game, T0 + 1) is None


# --- the room core: the command, then the automatic step, recorded and replayed ------------------

_seq = itertools.count(1)


def origin(player: str) -> Origin:
    return Origin("n-a", 7, next(_seq), f"ref-{player}", player, player.upper())


def store(c: RoomCore, out: Change | Reply | None) -> Change:
    assert isinstance(out, Change), out
    c.stored(out)
    return out


def test_the_core_plays_a_sitting_out_turn_at_once_and_replays_it_from_its_record():
    game = GAMES["holdem"]
    table = tbl.Table(room="r-1", game="holdem", options=dict(OPTIONS, seats=3),
                      config=game.parse_config(None), seats=[None] * 3, version=1)
    ids = (f"x{i}" for i in itertools.count(1))
    c = RoomCore(game, table, new_id=lambda: next(ids), rng=random.Random(1),
                 new_seed=lambda: "ab" * 32)
    for p in ("a", "b", "c"):
        ch = store(c, c.handle(JoinCommand(origin(p)), 0))
        c.buy_in_closed(ch.debit.xid)
    store(c, c.due(T0))
    to_act = c.table.hand.to_act
    player = "abc"[to_act]
    assert c.wake_ms() == T0 + 30_000  # the clock of the seat to act

    store(c, c.handle(SitOutCommand(origin(player)), T0 + 5))
    assert c.wake_ms() == 0  # its turn is due at once
    before = c.table
    played = store(c, c.due(T0 + 6))
    assert played.kind == "sitting_out"
    assert [e for e in played.events if e.get("seat") == to_act][0]["action"] == "fold"
    assert c.table.hand.to_act != to_act and c.wake_ms() == T0 + 6 + 30_000
    again = RoomCore.replayer(game, before).replay(played.record)
    assert tbl.to_dict(again.table, game) == tbl.to_dict(played.table, game)

    # back in before the next hand: dealt in again, with a clock of its own
    assert isinstance(c.handle(ActCommand(origin(player), {"type": "check"}, "z"), T0 + 7), Reply)
    store(c, c.handle(SitInCommand(origin(player)), T0 + 8))
    assert not c.table.seats[to_act].sitting_out
