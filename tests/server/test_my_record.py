"""``my_record``: a player's hands played and net chips per game, and last results, kept
when each hand is stored (server/records/record.py) and read from the player's own keys."""

from __future__ import annotations

import asyncio
import random
import sys
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.games import GAMES
from server.records.record import RESULTS_KEPT, HandResult
from server.room import shuffled_deck

from .test_real_games import next_action
from .wsclient import Client

BUY_IN = 2000
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # bench/ (the leak scan's rooms)


async def play_hands(app, clients: list[Client], game_name: str, hands: int, **options: Any) -> str:
    """Open a table of ``game_name`` for ``clients`` (seats in order, ``BUY_IN`` each) and
    play ``hands`` hands to their end over the wire; the room id."""
    seats = len(clients) + options.get("bots", 0)
    reply = await clients[0].request({"t": "create_room", "game": game_name, "options": {
        "seats": seats, "first_hand_players": len(clients), "between_hands_seconds": 0, "buy_in_default": BUY_IN,
        # the hand dealt after the last one played here is never played: no clock may end it
        # while the test goes on (on a loaded machine it ran past the default 30 s, and a
        # third hand of the first game was counted)
        "action_seconds": 3600, "bot_delay_seconds": 0, **options}})
    room = reply["room"]
    for i, c in enumerate(clients):
        assert (await c.request({"t": "join", "room": room, "seat": i}))["t"] == "room"
    rng = random.Random(5)
    for step in range(5000):
        actor = app.directory.actors[room]
        table = actor.table
        hand = table.hand
        if hand is None or hand.is_over or table.seats[hand.to_act].bot:
            if hand is not None and hand.is_over and table.hand_no >= hands:
                break
            await asyncio.sleep(0.01)
            continue
        seat = hand.to_act
        action = next_action(game_name, hand, rng)
        ack = await clients[seat].request({"t": "act", "room": room, "action": action,
                                           "id": f"{table.hand_no}-{step}"})
        assert ack["t"] in ("ack", "error"), ack  # an error: the turn moved on meanwhile (a bot's)
    else:
        raise AssertionError("the hands did not finish")
    return room


async def stacks_now(app, room: str) -> dict[str, int]:
    """Each person's stack at the table, once the last hand's end is stored."""
    table = app.directory.actors[room].table
    return {s.player: s.stack for s in table.seats if s is not None and not s.bot}


async def test_the_record_counts_every_hand_and_nets_exactly_the_chips_that_moved(make_app):
    app = await make_app(games=GAMES, deck=shuffled_deck)
    clients = [await Client.connect(app.ws_url) for _ in range(3)]
    players = [(await c.hello(f"rec{i}"))["player"] for i, c in enumerate(clients)]
    rooms = {}
    moved: dict[str, dict[str, int]] = {}
    for game_name in ("holdem", "zhajinhua", "doudizhu"):
        rooms[game_name] = await play_hands(app, clients, game_name, 2)
        await asyncio.sleep(0.2)  # the last hand's records are written just after it is stored
        moved[game_name] = {p: s - BUY_IN for p, s in (await stacks_now(app, rooms[game_name])).items()}
    assert any(moved[g][p] for g in moved for p in players)  # chips did move
    for c, player in zip(clients, players, strict=True):
        record = await c.request({"t": "my_record", "last": 50})
        assert record["t"] == "record"
        assert record["hands"] == 6, record
        for game_name in rooms:
            assert record["games"][game_name] == {"hands": 2, "net": moved[game_name][player]}
        recent = record["recent"]
        assert [(r["game"], r["hand"]) for r in recent] == [
            (g, n) for g in ("doudizhu", "zhajinhua", "holdem") for n in (2, 1)]  # newest first
        for game_name, room in rooms.items():
            mine = [r for r in recent if r["room"] == room]
            assert sum(r["net"] for r in mine) == moved[game_name][player]
            assert all(r["name"] == f"{GAMES[game_name].title} table" for r in mine)
        assert recent == sorted(recent, key=lambda r: -r["time_ms"])
        assert (await c.request({"t": "my_record", "last": 1}))["recent"] == recent[:1]
    for c in clients:
        await c.close()


async def test_a_bot_seat_has_no_record_and_a_new_player_has_an_empty_one(make_app):
    app = await make_app(games=GAMES, deck=shuffled_deck)
    human = await Client.connect(app.ws_url)
    await human.hello("solo")
    room = await play_hands(app, [human], "holdem", 1, bots=1, between_hands_seconds=600)
    await asyncio.sleep(0.2)
    table = app.directory.actors[room].table
    bot = next(s.player for s in table.seats if s is not None and s.bot)
    assert await app.store.player_record(bot, 10) == ({}, [])
    record = await human.request({"t": "my_record"})
    assert record["games"]["holdem"]["hands"] == 1
    fresh = await Client.connect(app.ws_url)
    await fresh.hello("newcomer")
    empty = await fresh.request({"t": "my_record"})
    assert empty == {"t": "record", "ref": empty["ref"], "hands": 0, "recent": [],
                     "games": {g: {"hands": 0, "net": 0} for g in ("holdem", "zhajinhua", "doudizhu")}}
    for c in (human, fresh):
        await c.close()


async def test_a_result_is_recorded_once_and_only_the_last_ones_are_kept(make_app):
    app = await make_app(games=GAMES)
    store = app.store
    first = HandResult("p-once", "r-1", "t", "holdem", 1, 0, 40)
    assert await store.record_hand(first.player, first.key, 1000, "holdem", 40, first.to_wire(), RESULTS_KEPT)
    assert not await store.record_hand(first.player, first.key, 2000, "holdem", 40, first.to_wire(), RESULTS_KEPT)
    assert (await store.player_record("p-once", 10))[0] == {"holdem:hands": 1, "holdem:net": 40}
    for n in range(2, 6):
        r = HandResult("p-once", "r-1", "t", "zhajinhua", n, 0, -n)
        await store.record_hand(r.player, r.key, 1000 * n, r.game, r.net, r.to_wire(), 3)
    totals, recent = await store.player_record("p-once", 50)
    assert totals == {"holdem:hands": 1, "holdem:net": 40, "zhajinhua:hands": 4, "zhajinhua:net": -14}
    assert [r["hand"] for r in recent] == [5, 4, 3]  # the three newest kept, the totals unchanged
    assert recent[0] == {"room": "r-1", "name": "t", "game": "zhajinhua", "hand": 5, "seat": 0, "net": -5,
                         "time_ms": 5000}


async def test_a_new_owner_writes_the_records_its_previous_owner_did_not(make_app, monkeypatch):
    """The owner stops between storing a hand's end and writing its records: the process
    that takes the room next writes them, from the stream, once (again: no double count)."""
    from server.room.actor import RoomActor

    first = await make_app(games=GAMES, deck=shuffled_deck)
    clients = [await Client.connect(first.ws_url) for _ in range(2)]
    for i, c in enumerate(clients):
        await c.hello(f"lost{i}")
    written = RoomActor._record

    async def crashed(self, results, time_ms=None):  # the records of the hand's end never written
        return None

    monkeypatch.setattr(RoomActor, "_record", crashed)
    room = await play_hands(first, clients, "holdem", 1, between_hands_seconds=600)
    moved = {p: s - BUY_IN for p, s in (await stacks_now(first, room)).items()}
    assert (await clients[0].request({"t": "my_record"}))["hands"] == 0
    monkeypatch.setattr(RoomActor, "_record", written)
    for c in clients:
        await c.close()
    await first.stop()  # hands the room over

    second = await make_app(games=GAMES, deck=shuffled_deck)
    for i, player in enumerate(moved):
        c = await Client.connect(second.ws_url)
        await c.hello(token=clients[i].token)
        assert (await c.request({"t": "sit_out", "room": room}))["t"] in ("room", "update", "ack")  # takes the room
        await asyncio.sleep(0.2)
        record = await c.request({"t": "my_record"})
        assert record["games"]["holdem"] == {"hands": 1, "net": moved[player]}, record
        assert [(r["room"], r["hand"]) for r in record["recent"]] == [(room, 1)]
        await c.close()
    actor = second.directory.actors[room]
    await actor._record_last_hand()  # again: nothing more
    assert (await second.store.player_record(next(iter(moved)), 10))[0]["holdem:hands"] == 1


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=st.sampled_from(sorted(GAMES)), seed=st.integers(0, 2**32 - 1))
def test_each_hands_results_are_the_chips_that_moved_and_the_stream_tells_the_same(game, seed):
    """Rooms played in-process as on a real table (people come and go, bots, timeouts): for
    every change that ends a hand, each person's result is its stack at the end minus at the
    start, the results of a table of people add up to nothing (chips are conserved), and a
    new owner reading the stream (:func:`server.records.record.last_hand_results`) finds the same."""
    from bench.soak.leaks import Scanner
    from bench.soak.rooms import ScanRoom, room_setup
    from server.records.history import Entry
    from server.records.record import hand_results, last_hand_results

    rng = random.Random(seed)
    room = ScanRoom(GAMES[game], "r-prop", rng, Scanner(game), **room_setup(GAMES[game], rng))
    entries: list[Entry] = []
    checked = 0
    adopt = room.apply

    def apply(change):
        nonlocal checked
        before = room.core.table
        if change.events:
            entries.append(Entry(f"{room.now}-{len(entries)}", change.table.version, change.events))
        adopt(change)
        ended = next((e for e in change.events if e["type"] == "hand_ended"), None)
        if ended is None:
            return
        results = hand_results(before, change.table, change.events)
        dealt = [i for i, p in enumerate(change.table.hand.players) if p is not None]
        for r in results:
            assert r.net == ended["stacks"][r.seat] - before.seats[r.seat].stack
        if not any(before.seats[i].bot for i in dealt):
            assert {r.seat for r in results} == set(dealt) and sum(r.net for r in results) == 0
        again, _ = last_hand_results(change.table, entries)
        assert sorted((r.player, r.hand, r.net) for r in again) == sorted((r.player, r.hand, r.net) for r in results)
        checked += 1

    room.apply = apply
    room.play(4)
    assert checked >= 1
