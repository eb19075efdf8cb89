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
from server.room import league_match
from server.room import table as tbl
from server.room.core import ActCommand, LeaveCommand, Origin, Reply, RoomCore, SitOutCommand

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
        change = core.handle(ActCommand(origin(core.table.seats[seat].player), action, f"a{core.table.version}"), now)
        core.stored(change)
        events += change.events
        granted += change.granted
    resets = sum(e["amount"] for e in events if e["type"] == "stack_reset")
    assert granted == resets  # every chip a reset adds or takes is accounted as granted
    return events


def test_seats_are_held_stacks_reset_and_the_room_closes_after_its_hands():
    core = room()
    assert isinstance(core.handle(LeaveCommand(origin("p-ann")), 0), Reply)
    assert core.handle(SitOutCommand(origin("p-bo")), 0).msg["code"] == "league_seat"
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
    left = core.handle(LeaveCommand(origin("p-ann")), now)  # once over, a seat may be left (with 0 chips)
    assert not isinstance(left, Reply) and left.payouts[0].amount == 0


def test_mirrored_rooms_deal_the_same_decks_from_the_match_seed():
    a, b = room(("ann", "bo")), room(("bo", "ann"))
    ca, cb = a.due(10_000), b.due(10_000)
    assert ca.table.fair["commitment"] == cb.table.fair["commitment"]
    assert ca.table.hand.hole == cb.table.hand.hole  # seat by seat: the players swapped
    assert ca.table.fair["server_seed"] == fairness.match_hand_seed(SEED, "m-1", 1)
    assert ca.table.fair["context"] == "m-1" and ca.table.fair["seeds"] == []


SNG = League(name="s", game="holdem", seats=3, hands=200, stack=300, unit=20, action_seconds=5.0,
             entrants=[Entrant("ann", "p-ann", "t1"), Entrant("bo", "p-bo", "t2"), Entrant("cy", "p-cy", "t3")],
             format="sng", levels=[[10, 20], [20, 40], [50, 100]], level_hands=2)


def test_a_sit_and_go_keeps_stacks_raises_blinds_eliminates_and_places_everyone():
    table, _ = league_table(SNG, GAME, "r-s", ("ann", "bo", "cy"), "m-s", SEED, now_ms=0)
    ids = (f"x{i}" for i in itertools.count())
    core = RoomCore(GAME, table, new_id=lambda: next(ids), rng=random.Random(1))
    now, events, blinds = 10_000, [], []
    while not core.table.closed:
        shown = league_match.public_league(core.table)  # what players see of the next hand's level
        change = core.due(now)
        assert change is not None and change.kind == "start", "the sit-and-go stopped before one seat had every chip"
        core.stored(change)
        blinds.append((core.table.hand.small_blind, core.table.hand.big_blind))
        assert SNG.levels[shown["level_no"] - 1] == list(blinds[-1]) == [shown["level"]["small_blind"],
                                                                        shown["level"]["big_blind"]]
        events += change.events
        while tbl.playing(core.table):  # everyone all-in preflop or calls it: someone busts soon
            seat = core.table.hand.to_act
            legal = GAME.view(core.table.hand, seat)["legal"]
            action = {"type": "all_in"} if legal.get("all_in") else {"type": "call"} if legal.get("call") \
                else {"type": "check"}
            change = core.handle(ActCommand(origin(core.table.seats[seat].player), action, f"a{core.table.version}"), now)
            core.stored(change)
            events += change.events
        assert sum(s.stack for s in core.table.seats) in (900, 0)  # no chips made or lost until it ends
        now += 1000
    assert blinds[:5] == [(10, 20), (10, 20), (20, 40), (20, 40), (50, 100)][:len(blinds)]
    placed = [e for e in events if e["type"] in ("eliminated", "placed")]
    assert sorted(e["place"] for e in placed) == [1, 2, 3] or len({e["place"] for e in placed}) < 3  # ties share
    assert [e["type"] for e in placed][-1] == "placed" and placed[-1]["place"] == 1
    assert {e["seat"] for e in placed} == {0, 1, 2}
    assert core.table.league.places == {str(e["seat"]): e["place"] for e in placed}
    assert {"type": "room_closed", "reason": "match_over"} in events
    assert all(s.stack == 0 for s in core.table.seats)  # the chips leave with the match
    out = [e for e in events if e["type"] == "eliminated"]
    for e in out:  # an eliminated seat is never dealt again
        later = [x for x in events[events.index(e):] if x["type"] == "hand_started"]
        assert all(e["seat"] not in x["seats"] for x in later)


def test_a_sit_and_go_places_two_seats_out_in_one_hand_by_their_starting_stacks():
    table, _ = league_table(SNG, GAME, "r-t", ("ann", "bo", "cy"), "m-t", SEED, now_ms=0)
    table.hand_no = 1
    table.seats[0].stack, table.seats[1].stack, table.seats[2].stack = 0, 0, 900
    table.hand = GAME.new_hand(dict(table.config, button=0), [("p-ann", 100), ("p-bo", 200), ("p-cy", 600)],
                               list(range(52)))
    events = league_match.league_hand_ended(table)
    places = {e["seat"]: e["place"] for e in events if e["type"] in ("eliminated", "placed")}
    assert places == {0: 3, 1: 2, 2: 1}  # bo started the hand with more than ann
    assert table.closed


async def test_a_league_room_keeps_every_hand_in_its_stream_past_the_history_limit(make_app):
    """A league match's results are read from its rooms' event streams, so those are kept
    whole, however long the match: here 60 hands of two server-side bots (some 300
    changes) on a server that keeps only 100 entries of any other room."""
    from server.league.match import finish_match, open_match, plan_match

    app = await make_app(games=GAMES, history_entries=100)
    league = League(name="long", game="holdem", seats=2, hands=60, stack=2000, unit=100, action_seconds=5.0,
                    entrants=[Entrant("ann", "bot-ann", "", "smart", bot=True),
                              Entrant("bo", "bot-bo", "", "random", bot=True)])
    record, seed = plan_match(league, ("ann", "bo"))
    await open_match(app.store, league, record, seed)
    done = await finish_match(app.store, league, record, seed, log=lambda line: None, timeout=120)
    assert done["status"] == "done" and done["same_decks"]
    for r in done["rooms"]:
        assert [h["deal"] for h in done["hands"] if h["room"] == r["room"]] == list(range(1, 61))
        assert len(await app.store.room_events(r["room"])) > 100
