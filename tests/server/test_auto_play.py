"""Auto-play (托管, issue #28 item 13): a seated player hands their seat to the server and
takes it back; two timeouts in a row (or a closed browser) hand it over by themselves.
Hold'em and Zha Jin Hua auto-play only checks or folds; Dou Dizhu plays the built-in bot.

Table and core level, with the real games: no Redis, no sockets, no clock."""

from __future__ import annotations

import itertools
import random

import pytest

from server.games import GAMES
from server.room import table as tbl
from server.room.core import (
    ActCommand,
    AutoPlayCommand,
    Change,
    JoinCommand,
    Origin,
    Reply,
    RoomCore,
    SitOutCommand,
)
from server.room.league_match import LeagueState

OPTIONS = {"name": "t", "action_seconds": 30.0, "between_hands_seconds": 2.0,
           "buy_in_min": 10, "buy_in_max": 10_000, "buy_in_default": 1000}
T0 = 1_000_000

_seq = itertools.count(1)


def origin(player: str) -> Origin:
    return Origin("n-a", 7, next(_seq), f"ref-{player}", player, player.upper())


def internal() -> Origin:
    """The server's own origin (as ``Directory.ask`` makes it)."""
    n = next(_seq)
    return Origin("n-a", 0, n, n, "", "")


def store(c: RoomCore, out: Change | Reply | None) -> Change:
    assert isinstance(out, Change), out
    c.stored(out)
    return out


def dealt(game_name: str, seats: int, seed: int = 3, **options) -> RoomCore:
    """A room of ``game_name`` with players p0, p1, ... seated and a hand dealt at T0."""
    game = GAMES[game_name]
    table = tbl.Table(room="r", game=game_name, options=dict(OPTIONS, seats=seats, **options),
                      config=game.parse_config(None), seats=[None] * seats, version=1)
    deck = list(range(game.deck_size))
    random.Random(seed).shuffle(deck)
    ids = (f"x{i}" for i in itertools.count(1))
    c = RoomCore(game, table, deck=lambda n: list(deck), new_id=lambda: next(ids), rng=random.Random(seed))
    for i in range(seats):
        store(c, c.handle(JoinCommand(origin(f"p{i}"), seat=i, buy_in=1000), T0))
    store(c, c.due(T0))
    assert tbl.playing(c.table)
    return c


def player_to_act(c: RoomCore) -> str:
    return c.table.seats[c.table.hand.to_act].player


def test_asking_for_auto_play_flags_the_seat_and_plays_its_turn_at_once():
    c = dealt("holdem", 3)
    seat = c.table.hand.to_act
    asked = store(c, c.handle(AutoPlayCommand(origin(f"p{seat}"), True), T0 + 1_000))
    assert asked.kind == "auto_play"
    assert asked.events == [{"type": "auto_play", "seat": seat, "on": True, "reason": "asked"}]
    assert [a.kind for a in asked.answers] == ["room"]
    assert c.table.seats[seat].auto == "asked" and c.table.seats[seat].auto_since_ms == T0 + 1_000
    assert c.wake_ms() == 0  # nobody waits for its clock
    played = store(c, c.due(T0 + 1_000))
    assert played.kind == "auto"
    assert played.events[0]["seat"] == seat and played.events[0]["action"] in ("check", "fold")
    assert c.handle(AutoPlayCommand(origin(f"p{seat}"), True), T0 + 2_000).events == []  # asked twice: nothing new


@pytest.mark.parametrize("game_name", ["holdem", "zhajinhua"])
def test_betting_games_auto_play_only_checks_or_folds(game_name):
    for seed in range(5):
        c = dealt(game_name, 3, seed)
        for i in range(3):
            store(c, c.handle(AutoPlayCommand(origin(f"p{i}"), True), T0))
        actions = []
        while tbl.playing(c.table):
            change = store(c, c.due(T0))
            assert change.kind == "auto"
            actions += [e["action"] if e["type"] == "action" else e["type"] for e in change.events
                        if e["type"] in ("action", "fold", "call", "raise", "look", "compare")]
        assert actions and set(actions) <= {"check", "fold"}, actions
        if game_name == "zhajinhua":
            assert set(actions) == {"fold"}  # Zha Jin Hua has no check: the auto player folds


def test_dou_dizhu_auto_play_is_the_built_in_bot_and_its_choice_is_drawn_into_the_record():
    c = dealt("doudizhu", 3)
    for i in range(3):
        store(c, c.handle(AutoPlayCommand(origin(f"p{i}"), True), T0))
    plays = 0
    while tbl.playing(c.table):
        before = c.table
        seat = before.hand.to_act
        change = store(c, c.due(T0))
        assert change.kind == "auto"
        [drawn] = change.record[3]  # the bot's choice, kept so that a replay needs no bot
        assert drawn["type"] in ("bid", "pass", "play") and change.events[0]["seat"] == seat
        again = RoomCore.replayer(GAMES["doudizhu"], before).replay(change.record)
        assert tbl.to_dict(again.table, c.game) == tbl.to_dict(change.table, c.game)
        plays += drawn["type"] == "play"
    assert plays > 3  # the bot plays cards and finishes the hand, not only passes


def test_one_click_takes_the_seat_back_and_its_clock_runs_again():
    c = dealt("holdem", 3)
    seat = c.table.hand.to_act
    store(c, c.handle(AutoPlayCommand(origin(f"p{seat}"), True), T0))
    back = store(c, c.handle(AutoPlayCommand(origin(f"p{seat}"), False), T0 + 500))
    assert back.events == [{"type": "auto_play", "seat": seat, "on": False}]
    assert c.table.seats[seat].auto is None and c.table.seats[seat].auto_since_ms is None
    assert c.due(T0 + 500) is None and c.wake_ms() == c.table.deadline_ms  # its own turn again


def test_acting_yourself_takes_the_seat_back():
    c = dealt("holdem", 3)
    seat = c.table.hand.to_act
    player = f"p{seat}"
    store(c, c.handle(AutoPlayCommand(origin(player), True), T0))
    acted = store(c, c.handle(ActCommand(origin(player), {"type": "call"}, "a1"), T0 + 100))  # before the server played
    assert acted.events[0] == {"type": "auto_play", "seat": seat, "on": False}
    assert c.table.seats[seat].auto is None
    refused = c.handle(ActCommand(origin(player), {"type": "call"}, "a2"), T0 + 200)  # not its turn: nothing changes
    assert isinstance(refused, Reply) and refused.msg["t"] == "error"


def test_two_timeouts_in_a_row_hand_the_seat_to_auto_play_instead_of_sitting_it_out():
    c = dealt("holdem", 3)
    seat = c.table.hand.to_act
    c.table.seats[seat].timeouts = 1
    out = store(c, c.due(c.table.deadline_ms))
    assert out.kind == "timeout"
    assert {"type": "auto_play", "seat": seat, "on": True, "reason": "timeouts"} in out.events
    info = c.table.seats[seat]
    assert info.auto == "timeouts" and not info.sitting_out
    while tbl.playing(c.table):  # the others call and check; its turns come at once
        if c.table.hand.to_act == seat:
            assert tbl.due(c.table, c.game, T0 + 30_001) == "auto"
            store(c, c.due(T0 + 30_001))
        else:
            p = player_to_act(c)
            legal = c.game.legal_actions(c.table.hand, c.table.hand.to_act)
            store(c, c.handle(ActCommand(origin(p), {"type": "check"} if legal.check else {"type": "call"},
                                  f"x{next(_seq)}"), T0 + 30_001))
    assert seat in tbl.ready_seats(c.table)  # dealt into the next hand, still played for


def test_the_server_sets_a_disconnected_players_seat_to_auto_play():
    c = dealt("holdem", 3)
    out = store(c, c.handle(AutoPlayCommand(internal(), True, player="p1", reason="disconnected"), T0))
    assert out.events == [{"type": "auto_play", "seat": 1, "on": True, "reason": "disconnected"}]
    assert c.table.seats[1].auto == "disconnected"
    bad = c.handle(AutoPlayCommand(internal(), True, player="p2", reason="bored"), T0)
    assert isinstance(bad, Reply) and bad.msg["code"] == "bad_message"
    nobody = c.handle(AutoPlayCommand(internal(), True, player="p9", reason="disconnected"), T0)
    assert isinstance(nobody, Reply) and nobody.msg["code"] == "not_seated"


def test_a_league_seat_is_never_auto_played():
    c = dealt("holdem", 3)
    c.table.league = LeagueState("m", "s", 5, 1000)
    refused = c.handle(AutoPlayCommand(origin("p0"), True), T0)
    assert isinstance(refused, Reply) and refused.msg["code"] == "league_seat"
    seat = c.table.hand.to_act
    c.table.seats[seat].timeouts = 5
    out = store(c, c.due(c.table.deadline_ms))
    assert not any(e["type"] == "auto_play" for e in out.events) and c.table.seats[seat].auto is None


def test_an_auto_played_seat_is_freed_after_the_sit_out_minutes_between_hands():
    """Auto-play keeps a table going (bots and auto seats play on), so it counts towards
    ``--sit-out-minutes`` like sitting out: the seat is freed, its stack paid back, once
    it has been auto-played that long, at the end of a hand, never in one."""
    c = dealt("holdem", 2)
    c.stand_up_after_ms = 60_000
    for i in range(2):
        store(c, c.handle(AutoPlayCommand(origin(f"p{i}"), True), T0 + 1_000))
    kinds = []
    now = T0 + 1_000
    while all(s is not None for s in c.table.seats):
        assert now < T0 + 1_000_000, "never freed"
        wake = c.wake_ms()
        now = max(now, wake if wake is not None else now)
        change = store(c, c.due(now))
        kinds.append(change.kind)
    assert now >= T0 + 61_000 and kinds[-1] == "stand_up" and "auto" in kinds
    assert {e["reason"] for e in change.events} == {"sat_out"}
    assert not tbl.playing(c.table)


def test_taking_the_seat_back_restarts_the_sit_out_count():
    c = dealt("holdem", 2)
    store(c, c.handle(AutoPlayCommand(origin("p0"), True), T0))
    assert tbl.next_stand_up_ms(c.table, 60_000) is None  # in a hand: not now
    store(c, c.handle(AutoPlayCommand(origin("p0"), False), T0 + 50_000))
    store(c, c.handle(SitOutCommand(origin("p0")), T0 + 55_000))
    assert c.table.seats[0].out_since_ms == T0 + 55_000


def test_auto_play_survives_the_snapshot():
    c = dealt("holdem", 3)
    store(c, c.handle(AutoPlayCommand(origin("p2"), True), T0 + 7))
    again = tbl.from_dict(tbl.to_dict(c.table, c.game), c.game)
    assert (again.seats[2].auto, again.seats[2].auto_since_ms) == ("asked", T0 + 7)
    assert tbl.to_dict(again, c.game) == tbl.to_dict(c.table, c.game)


def test_a_table_whose_people_are_all_auto_played_deals_no_new_hand():
    """Like bots, auto-played seats never play alone: the hand under way is finished for
    them, the next waits for someone to take their seat back."""
    c = dealt("holdem", 2)
    for i in range(2):
        store(c, c.handle(AutoPlayCommand(origin(f"p{i}"), True), T0))
    while tbl.playing(c.table):
        store(c, c.due(T0))
    assert not tbl.can_start(c.table, c.game) and c.due(T0 + 3_600_000) is None
    store(c, c.handle(AutoPlayCommand(origin("p1"), False), T0 + 10_000))
    assert tbl.can_start(c.table, c.game)
