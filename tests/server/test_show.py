"""Showing a hand by choice after it is over (``show``): in the room core with the real
games, in the view everyone gets, in the hand history and in the PokerStars export."""

from __future__ import annotations

import itertools
import random

import pytest

from engine.holdem.pokerstars import export_hand, player_names
from server.games import GAMES
from server.records.history import Entry, hand_object, split_hands
from server.room import table as tbl
from server.room.core import ActCommand, Change, JoinCommand, Origin, Reply, RoomCore, ShowCommand

OPTIONS = {"name": "t", "seats": 2, "action_seconds": 10.0, "between_hands_seconds": 5.0,
           "buy_in_min": 10, "buy_in_max": 100_000, "buy_in_default": 1000}
_seq = itertools.count(1)


def origin(player: str) -> Origin:
    return Origin("n", 1, next(_seq), None, player, player.upper())


def room(game: str, seats: int = 2) -> tuple[RoomCore, list[tuple[int, list[dict]]]]:
    """A room of ``game`` with ``seats`` players seated; and a log of (version, events)."""
    g = GAMES[game]
    table = tbl.Table(room="r-1", game=game, options=dict(OPTIONS, seats=seats), config=g.parse_config(None),
                      seats=[None] * seats, version=1)
    ids = (f"x{i}" for i in itertools.count())
    core = RoomCore(g, table, new_id=lambda: next(ids), rng=random.Random(1))
    log: list[tuple[int, list[dict]]] = []
    for p in "abc"[:seats]:
        commit(core, core.handle(JoinCommand(origin(p)), 0), log)
    return core, log


def commit(core: RoomCore, out: Change | Reply, log: list) -> Change:
    assert isinstance(out, Change), out
    core.stored(out)
    log.append((out.table.version, out.events))
    return out


def deal(core: RoomCore, log: list) -> None:
    change = core.due(max(core.wake_ms() or 0, 10**9))
    assert change is not None and change.kind == "start"
    commit(core, change, log)


def act(core: RoomCore, action: dict, log: list) -> None:
    seat = core.table.hand.to_act
    commit(core, core.handle(ActCommand(origin(core.table.seats[seat].player), action, f"a{core.table.version}"), 10**9), log)


def error(out: Change | Reply) -> str:
    assert isinstance(out, Reply), out
    return out.msg["code"]


def test_holdem_a_folded_hand_can_be_shown_after_the_hand_and_everyone_sees_it():
    core, log = room("holdem")
    deal(core, log)
    folder = core.table.hand.to_act
    player = core.table.seats[folder].player
    assert error(core.handle(ShowCommand(origin(player)), 0)) == "hand_not_over"
    before = core.table
    act(core, {"type": "fold"}, log)
    assert core.table.hand.is_over
    hole = list(core.table.hand.hole[folder])
    spectator = GAMES["holdem"].view(core.table.hand, None)
    assert spectator["seats"][folder]["cards"] is None  # folded: face down
    out = commit(core, core.handle(ShowCommand(origin(player)), 0), log)
    assert out.kind == "show" and out.events == [{"type": "show", "seat": folder, "cards": hole}]
    assert [a.kind for a in out.answers] == ["room"]
    spectator = GAMES["holdem"].view(core.table.hand, None)
    assert spectator["seats"][folder]["cards"] == hole and spectator["seats"][folder]["hand"] is None  # no flop
    assert [s.stack for s in core.table.seats] == [s.stack for s in out.table.seats]  # no chips move
    assert sum(s.stack for s in core.table.seats) == sum(s.stack for s in before.seats)
    assert error(core.handle(ShowCommand(origin(player)), 0)) == "nothing_to_show"  # once
    assert error(core.handle(ShowCommand(origin("zed")), 0)) == "not_seated"


def test_holdem_a_mucked_hand_shown_after_the_showdown_names_the_hand():
    core, log = room("holdem")
    deal(core, log)
    while tbl.playing(core.table):
        legal = GAMES["holdem"].view(core.table.hand, core.table.hand.to_act)["legal"]
        act(core, {"type": "check"} if legal.get("check") else {"type": "call"}, log)
    hand = core.table.hand
    showdown = next(e for _, es in log for e in es if e["type"] == "showdown")
    hidden = [s for s in (0, 1) if not hand.shown[s]]
    if not hidden:  # a tie or a split: both showed, nothing is left to show
        assert all(error(core.handle(ShowCommand(origin(p)), 0)) == "nothing_to_show" for p in "ab")
        return
    seat = hidden[0]
    assert showdown["mucked"] == [seat]
    out = commit(core, core.handle(ShowCommand(origin(core.table.seats[seat].player)), 0), log)
    event = out.events[0]
    assert event["description"] and isinstance(event["value"], int)
    assert GAMES["holdem"].view(core.table.hand, None)["seats"][seat]["hand"] == event["description"]


def test_holdem_history_and_pokerstars_export_list_the_show_with_its_hand():
    core, log = room("holdem")
    deal(core, log)
    folder = core.table.hand.to_act
    act(core, {"type": "fold"}, log)
    commit(core, core.handle(ShowCommand(origin(core.table.seats[folder].player)), 0), log)
    deal(core, log)  # the next hand starts: the show still belongs to the first
    hands = split_hands(Entry(f"{v}-0", v, es) for v, es in log)
    assert len(hands) == 2
    assert hands[0].events[-1].event["type"] == "show"
    assert all(h.event["type"] != "show" for h in hands[1].events)
    plain = hand_object(hands[0], "holdem", room="r-1")
    lines = export_hand(plain)
    name = player_names(plain)[folder]
    assert any(line.startswith(f"{name}: shows [") for line in lines)


def test_zhajinhua_a_folded_hand_can_be_shown_with_its_category():
    core, log = room("zhajinhua")
    deal(core, log)
    folder = core.table.hand.to_act
    player = core.table.seats[folder].player
    act(core, {"type": "fold"}, log)
    assert core.table.hand.is_over
    assert GAMES["zhajinhua"].view(core.table.hand, None)["seats"][folder]["cards"] is None
    out = commit(core, core.handle(ShowCommand(origin(player)), 0), log)
    (event,) = out.events
    assert event["type"] == "show" and event["seat"] == folder and len(event["cards"]) == 3
    assert event["category"] and event["description"]
    seat_view = GAMES["zhajinhua"].view(core.table.hand, None)["seats"][folder]
    assert seat_view["cards"] == event["cards"] and seat_view["description"] == event["description"]
    assert error(core.handle(ShowCommand(origin(player)), 0)) == "nothing_to_show"


def test_dou_dizhu_has_nothing_to_show():
    core, log = room("doudizhu", seats=3)
    deal(core, log)
    assert error(core.handle(ShowCommand(origin("a")), 0)) == "nothing_to_show"


def test_a_player_who_sat_down_after_the_hand_has_nothing_to_show():
    core, log = room("holdem", seats=3)
    core.table.seats[2] = None  # "c" stands up before the deal (simplest: an empty seat)
    deal(core, log)
    act(core, {"type": "fold"}, log)
    commit(core, core.handle(JoinCommand(origin("d"), seat=2), 0), log)
    assert error(core.handle(ShowCommand(origin("d")), 0)) == "nothing_to_show"


@pytest.mark.parametrize("game", ["holdem", "zhajinhua"])
def test_the_engine_refuses_a_seat_that_was_not_dealt(game):
    core, log = room(game)
    deal(core, log)
    act(core, {"type": "fold"}, log)
    with pytest.raises(Exception) as info:
        GAMES[game].show(core.table.hand, 5)
    assert getattr(info.value, "code", None) == "nothing_to_show"
