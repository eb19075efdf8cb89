"""quick_match: seated at an open table that fits, or at a new one; a burst fills one table
before the next is opened (decided one at a time per bucket under a Redis lock)."""

from __future__ import annotations

import asyncio
from collections import Counter

from server.games import GAMES
from server.requests import matchmaking
from server.room import table as tbl

from .wsclient import Client


async def player(app, name: str) -> Client:
    c = await Client.connect(app.ws_url)
    await c.hello(name)
    return c


async def test_quick_match_seats_at_a_fitting_table_or_opens_one(make_app):
    app = await make_app(games=GAMES)
    alice, bob, carol = [await player(app, n) for n in ("alice", "bob", "carol")]
    a = await alice.request({"t": "quick_match", "game": "holdem", "seats": 2, "stake": 4})
    assert a["t"] == "room" and a["your_seat"] == 0 and a["config"]["big_blind"] == 4 and len(a["seats"]) == 2
    b = await bob.request({"t": "quick_match", "game": "holdem", "seats": 2, "stake": 4})
    assert (b["room"], b["your_seat"]) == (a["room"], 1)
    c = await carol.request({"t": "quick_match", "game": "holdem", "seats": 2, "stake": 4})
    assert c["room"] != a["room"] and c["your_seat"] == 0  # the first table is full
    other = await carol.request({"t": "quick_match", "game": "holdem", "stake": 10})
    assert other["room"] not in (a["room"], c["room"]) and other["config"]["big_blind"] == 10


async def test_a_table_quick_match_opens_is_a_sensible_game_not_the_engine_defaults(make_app):
    """Named neither stake nor size, a quick match opens a six-handed 5/10 Hold'em table
    (the default buy-in a hundred big blinds, not the ten of the engine's 50/100), a
    five-seat Zha Jin Hua and a three-seat Dou Dizhu table (issue #28, item 8)."""
    app = await make_app(games=GAMES)
    ann = await player(app, "ann")
    holdem = await ann.request({"t": "quick_match", "game": "holdem"})
    assert (len(holdem["seats"]), holdem["config"]["small_blind"], holdem["config"]["big_blind"]) == (6, 5, 10)
    assert holdem["seats"][holdem["your_seat"]]["stack"] == 100 * holdem["config"]["big_blind"]
    zjh = await ann.request({"t": "quick_match", "game": "zhajinhua"})
    assert len(zjh["seats"]) == 5 and zjh["config"]["ante"] == 10
    ddz = await ann.request({"t": "quick_match", "game": "doudizhu"})
    assert len(ddz["seats"]) == 3
    sized = await ann.request({"t": "quick_match", "game": "holdem", "seats": 2, "stake": 20})
    assert (len(sized["seats"]), sized["config"]["big_blind"]) == (2, 20)  # what the request names wins


async def test_quick_match_never_picks_a_private_room_or_one_you_sit_in(make_app):
    app = await make_app(games=GAMES)
    alice, bob = await player(app, "alice"), await player(app, "bob")
    private = await alice.request({"t": "create_room", "game": "zhajinhua", "options": {"seats": 3, "private": True}})
    mine = await alice.request({"t": "quick_match", "game": "zhajinhua", "seats": 3})
    assert mine["room"] != private["room"]
    again = await alice.request({"t": "quick_match", "game": "zhajinhua", "seats": 3})
    assert again["room"] not in (mine["room"], private["room"])  # already seated there
    joined = await bob.request({"t": "quick_match", "game": "zhajinhua", "seats": 3})
    assert joined["room"] in (mine["room"], again["room"])


async def test_quick_match_does_not_seat_you_alone_at_a_table_someone_opened_and_left(make_app):
    """Issue #28, item 8: an empty ten-seat table at a tenth of the usual buy-in, opened by
    someone who then left, is not a match: a new quick table is opened (six seats, 5/10),
    and the next player of the same request is seated there with the first."""
    app = await make_app(games=GAMES)
    alice, bob, carol = [await player(app, n) for n in ("alice", "bob", "carol")]
    odd = await alice.request({"t": "create_room", "game": "holdem", "options": {
        "seats": 10, "buy_in_min": 1000, "buy_in_max": 1000, "buy_in_default": 1000},
        "config": {"small_blind": 50, "big_blind": 100}})
    assert odd["t"] == "room" and odd["your_seat"] is None, odd
    await asyncio.sleep(0.4)  # listed (lobby batches)
    assert odd["room"] in [r["room"] for r in (await bob.request({"t": "list_rooms"}))["rooms"]]
    b = await bob.request({"t": "quick_match", "game": "holdem"})
    assert b["t"] == "room" and b["room"] != odd["room"] and b["config"]["big_blind"] == 10 and len(b["seats"]) == 6
    c = await carol.request({"t": "quick_match", "game": "holdem"})
    assert (c["room"], c["your_seat"]) == (b["room"], 1)


async def test_a_burst_fills_tables_one_after_the_other(make_app):
    app = await make_app(games=GAMES)
    players = [await player(app, f"p{i}") for i in range(14)]
    replies = await asyncio.gather(*[p.request({"t": "quick_match", "game": "doudizhu"}, timeout=20)
                                     for p in players])
    assert all(r["t"] == "room" for r in replies), [r for r in replies if r["t"] != "room"]
    per_room = Counter(r["room"] for r in replies)
    assert sorted(per_room.values()) == [2, 3, 3, 3, 3]  # 14 players, 3 seats: one half-empty table only
    seats = {(r["room"], r["your_seat"]) for r in replies}
    assert len(seats) == 14


async def test_bad_quick_match_requests(make_app):
    app = await make_app(games=GAMES)
    c = await player(app, "alice")
    assert (await c.request({"t": "quick_match", "game": "chess"}))["code"] == "no_such_game"
    bad = await c.request({"t": "quick_match", "game": "holdem", "seats": 1})
    assert (bad["code"], bad["field"]) == ("bad_message", "seats")
    bad = await c.request({"t": "quick_match", "game": "doudizhu", "seats": 4})
    assert (bad["code"], bad["field"]) == ("bad_config", "seats")


def test_the_order_tries_the_last_opened_table_then_the_fullest():
    entries = [{"room": "r-a", "game": "holdem", "seats": 6, "players": 2, "bots": 0},
               {"room": "r-b", "game": "holdem", "seats": 6, "players": 5, "bots": 0},
               {"room": "r-c", "game": "holdem", "seats": 6, "players": 6, "bots": 0},
               {"room": "r-d", "game": "doudizhu", "seats": 3, "players": 1, "bots": 0},
               {"room": "r-e", "game": "holdem", "seats": 10, "players": 0, "bots": 0},
               {"room": "r-f", "game": "holdem", "seats": 2, "players": 1, "bots": 1}]
    assert matchmaking.order(entries, "holdem", "r-new") == ["r-new", "r-b", "r-a", "r-f"]
    table = tbl.Table(room="r-x", game="holdem", options={}, config={"big_blind": 4}, seats=[None, None])
    holdem = GAMES["holdem"]
    assert matchmaking.fits(table, holdem, "p", 4, 2) and not matchmaking.fits(table, holdem, "p", 2, 2)
    assert not matchmaking.fits(table, holdem, "p", None, 6)


async def test_the_sdk_quick_match(make_app):
    from client_demo.sdk.client import CardroomClient

    app = await make_app(games=GAMES)
    async with CardroomClient(app.ws_url, name="a") as a, CardroomClient(app.ws_url, name="b") as b:
        first = await a.quick_match("holdem", stake=2, seats=2, buy_in=100)
        second = await b.quick_match("holdem", stake=2, seats=2)
        assert first["room"] == second["room"] and {first["your_seat"], second["your_seat"]} == {0, 1}
        assert first["seats"][first["your_seat"]]["stack"] == 100
