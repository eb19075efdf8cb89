"""A league match's room, in the room core (no Redis): seats held, stacks reset after
every hand with the chips accounted as granted, closed after the match's hands, decks
from the match seed."""

from __future__ import annotations

import itertools
import random

from engine import fairness
from server.games import GAMES
from server.league.files import Entrant, League
from server.league.match import league_table
from server.room import table as tbl
from server.room.core import Act, Leave, Origin, Reply, RoomCore, SitOut

GAME = GAMES["holdem"]
LEAGUE = League(name="t", game="holdem", seats=2, hands=3, stack=2000, unit=100, action_seconds=5.0,
                entrants=[Entrant("ann", "p-ann", "tok-a", "smart"), Entrant("bo", "p-bo", "tok-b", "random")])
SEED = "ab" * 32


def room(seating=("ann", "bo")) -> RoomCore:
    table, _ = league_table(LEAGUE, GAME, "r-1", seating, "m-1", SEED, now_ms=0)
    ids = (f"x{i}" for i in itertools.count())
    return RoomCore(GAME, table, new_id=lambda: next(ids), rng=random.Random(1))


def origin(player: str) -> Origin:
    return Origin("n", 1, 1, None, player, player)


def play_hand(core: RoomCore, now: int) -> list[dict]:
    change = core.due(now)
    assert change is not None and change.kind == "start"
    core.stored(change)
    events = list(change.events)
    granted = change.granted
    while tbl.playing(core.table):
        seat = core.table.hand.to_act
        legal = GAME.view(core.table.hand, seat)["legal"]
        action = {"type": "check"} if legal.get("check") else {"type": "call"}
        change = core.handle(Act(origin(core.table.seats[seat].player), action, f"a{core.table.version}"), now)
        core.stored(change)
        events += change.events
        granted += change.granted
    resets = sum(e["amount"] for e in events if e["type"] == "stack_reset")
    assert granted == resets  # every chip a reset adds or takes is accounted as granted
    return events


def test_seats_are_held_stacks_reset_and_the_room_closes_after_its_hands():
    core = room()
    assert isinstance(core.handle(Leave(origin("p-ann")), 0), Reply)
    assert core.handle(SitOut(origin("p-bo")), 0).msg["code"] == "league_seat"
    assert core.due(0) is None  # the first deal waits for the entrants to connect
    now = 10_000
    for hand in range(1, 4):
        events = play_hand(core, now)
        assert core.table.hand_no == hand
        if hand < 3:
            assert [s.stack for s in core.table.seats] == [2000, 2000]
            assert not core.table.closed
        now += 1000
    assert core.table.closed and [s.stack for s in core.table.seats] == [0, 0]
    assert {"type": "room_closed", "reason": "match_over"} in events
    assert core.due(now + 60_000) is None  # no fourth hand
    left = core.handle(Leave(origin("p-ann")), now)  # once over, a seat may be left (with 0 chips)
    assert not isinstance(left, Reply) and left.payouts[0].amount == 0


def test_mirrored_rooms_deal_the_same_decks_from_the_match_seed():
    a, b = room(("ann", "bo")), room(("bo", "ann"))
    ca, cb = a.due(10_000), b.due(10_000)
    assert ca.table.fair["commitment"] == cb.table.fair["commitment"]
    assert ca.table.hand.hole == cb.table.hand.hole  # seat by seat: the players swapped
    assert ca.table.fair["server_seed"] == fairness.match_hand_seed(SEED, "m-1", 1)
    assert ca.table.fair["context"] == "m-1" and ca.table.fair["seeds"] == []
