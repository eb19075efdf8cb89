"""Server-side bot seats (room option ``bots``): bots fill seats, act through the room
like players, are paid for by recorded grants, re-buy when busted, never play alone,
and keep their turn timer across a restart. Real Redis, real sockets."""

from __future__ import annotations

import asyncio
import logging
import random
import time
from dataclasses import replace
from typing import Any

import pytest

from engine import bots
from server.games import GAMES
from server.room import shuffled_deck
from server.room import table as tbl
from server.room.league_match import LeagueState
from server.room.log import load_room
from server.store import Store

from .conftest import owned
from .wsclient import Client

FAST = {"bot_delay_seconds": 0.01, "between_hands_seconds": 600, "action_seconds": 30}


async def human(app, name: str = "human") -> Client:
    c = await Client.connect(app.ws_url, "cardroom.msgpack")
    reply = await c.hello(name)
    assert reply["t"] == "welcome"
    return c


async def create(c: Client, game: str, config: dict | None = None, **options: Any) -> dict[str, Any]:
    msg: dict[str, Any] = {"t": "create_room", "game": game, "options": options}
    if config is not None:
        msg["config"] = config
    return await c.request(msg)


async def play_until(c: Client, room: str, game: str, done, strategy: str = "smart", timeout: float = 30) -> list:
    """Play the human's seat with an engine strategy (from its snapshot views, like a
    client would) until an event satisfies ``done``; returns the events seen."""
    rng = random.Random(7)
    acted_at = 0
    seen: list[dict[str, Any]] = []
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        m = await c.expect(None, timeout=max(0.1, deadline - loop.time()))
        if m.get("room") != room:
            continue
        if m["t"] == "error":
            raise AssertionError(m)
        if m["t"] == "event":
            seen.append(m["event"])
            if done(m["event"]):
                return seen
        if m["t"] == "room" and m["playing"] and m["version"] > acted_at:
            view = m["view"]
            action = bots.decide(game, strategy, view, rng)
            if action is not None:
                acted_at = m["version"]
                await c.send({"t": "act", "room": room, "action": action, "id": f"h{m['version']}"})


async def assert_chips_conserved(app) -> dict[str, int]:
    totals = await app.store.chip_audit()
    assert totals["grants"] == totals["wallets"] + totals["tables"] + totals["pending"], totals
    return totals


@pytest.mark.parametrize("game", sorted(GAMES))
async def test_a_human_plays_a_full_hand_against_two_bots_in_each_game(make_app, game):
    app = await make_app(games=GAMES, deck=shuffled_deck)
    c = await human(app)
    created = await create(c, game, seats=3, bots=2, **FAST)
    assert created["t"] == "room", created
    room = created["room"]
    joined = await c.request({"t": "join", "room": room})
    assert joined["your_seat"] == 0
    events = await play_until(c, room, game, lambda e: e["type"] == "hand_ended")
    assert events[-1]["stacks"][1] is not None and events[-1]["stacks"][2] is not None
    # the bots acted through the room's ordinary act path: their action ids were answered
    answered = set(app.directory.actors[room].table.answers)
    assert answered & {f"bot-{room}-1", f"bot-{room}-2"}, answered
    totals = await assert_chips_conserved(app)
    # the human's grant, the bots' buy-ins, and a re-buy for a bot that busted this hand
    history = [e for _, evs in await app.store.room_events(room) for e in evs]
    rebuys = sum(e["amount"] for e in history if e["type"] == "rebuy")
    assert totals["grants"] == 10_000 + 2 * 1000 + rebuys
    await c.close()


async def test_the_snapshot_and_lobby_mark_bot_seats(make_app):
    app = await make_app(games=GAMES, deck=shuffled_deck)
    c = await human(app)
    created = await create(c, "holdem", seats=4, bots=2, **FAST)
    room = created["room"]
    seats = created["seats"]
    assert seats[0] is None and seats[3] is None
    for i in (1, 2):
        assert seats[i]["bot"] is True and seats[i]["connected"] is True
        assert seats[i]["player"] == f"bot-{room}-{i}" and seats[i]["name"].startswith("Bot ")
    assert seats[1]["name"] != seats[2]["name"]
    for i in (1, 2):  # the creator's hand history hears the bots sit down
        await c.expect("event", event=lambda e, i=i: e["type"] == "joined" and e["seat"] == i and e["bot"])
    joined = await c.request({"t": "join", "room": room})
    assert joined["seats"][0]["bot"] is False and joined["seats"][0]["name"] == "human"
    listing = await c.request({"t": "list_rooms"})
    summary = next(r for r in listing["rooms"] if r["room"] == room)
    assert summary["bots"] == 2 and summary["players"] == 3
    for g in listing["games"]:
        names = {o["name"]: o for o in g["room_options"]}
        assert names["bots"]["default"] == 0
        assert names["bot_strategy"]["choices"] == ["smart", "random"]
        assert "bot_delay_seconds" in names
    history = await app.store.room_events(room)
    joined_bots = [e for _, evs in history for e in evs if e["type"] == "joined" and e.get("bot")]
    assert [e["seat"] for e in joined_bots] == [1, 2]
    await c.close()


@pytest.mark.parametrize(("game", "options", "field"), [
    ("holdem", {"seats": 3, "bots": 3}, "bots"),
    ("doudizhu", {"bots": 3}, "bots"),
    ("zhajinhua", {"bots": -1}, "bots"),
    ("holdem", {"bots": 1, "bot_strategy": "genius"}, "bot_strategy"),
    ("zhajinhua", {"bots": 1, "bot_delay_seconds": -0.5}, "bot_delay_seconds"),
    ("holdem", {"bots": "two"}, "bots"),
])
async def test_bad_bot_options_are_refused_naming_the_field(make_app, game, options, field):
    app = await make_app(games=GAMES, deck=shuffled_deck)
    c = await human(app)
    err = await create(c, game, **options)
    assert err["t"] == "error" and err["code"] == "bad_config" and err["field"] == field, err
    assert app.directory.actors == {}
    await c.close()


async def test_a_game_without_bot_strategies_offers_no_bot_seats(connect):
    c = await connect("alice")  # the test server hosts only the High Card test game
    err = await c.request({"t": "create_room", "game": "highcard", "options": {"bots": 1}})
    assert err["code"] == "bad_config" and err["field"] == "bots"


async def test_bots_alone_never_start_a_hand_and_stop_when_the_human_leaves(make_app):
    app = await make_app(games=GAMES, deck=shuffled_deck)
    c = await human(app)
    room = (await create(c, "holdem", seats=3, bots=2, bot_delay_seconds=0.01,
                         between_hands_seconds=0))["room"]
    actor = app.directory.actors[room]
    await asyncio.sleep(0.3)
    assert actor.table.hand is None and actor.table.hand_no == 0
    wakeups = 0
    real_due = actor._due

    async def counting_due():
        nonlocal wakeups
        wakeups += 1
        await real_due()

    actor._due = counting_due
    await c.request({"t": "join", "room": room})
    await c.expect("event", room=room, event=lambda e: e["type"] == "hand_started")
    left = await c.request({"t": "leave", "room": room})
    assert left["t"] == "left"
    if left["pending"]:  # the server folds for the leaver; the bots finish the hand
        await c.expect("left", timeout=10, room=room, pending=False)
    await asyncio.sleep(0.3)
    hands, wakeups = actor.table.hand_no, 0
    await asyncio.sleep(0.5)
    assert actor.table.hand_no == hands == 1 and not tbl.playing(actor.table)
    assert wakeups <= 1  # idle: no hands, no spinning
    seats = actor.table.seats
    assert seats[0] is None and seats[1].bot and seats[2].bot  # the bots keep their seats
    await assert_chips_conserved(app)
    await c.close()


async def test_a_busted_bot_rebuys_with_a_recorded_grant_and_chips_stay_conserved(make_app):
    app = await make_app(games=GAMES, deck=shuffled_deck)
    c = await human(app)
    room = (await create(c, "holdem", {"small_blind": 1, "big_blind": 2}, seats=3, bots=2,
                         bot_strategy="random", bot_delay_seconds=0, between_hands_seconds=0,
                         buy_in_default=3))["room"]
    await c.request({"t": "join", "room": room, "buy_in": 5000})
    events = await play_until(c, room, "holdem", lambda e: e["type"] == "rebuy", strategy="random", timeout=60)
    rebuy = events[-1]
    assert rebuy["seat"] in (1, 2) and rebuy["stack"] == 3 and rebuy["amount"] == 3 and rebuy["player"] == f"bot-{room}-{rebuy['seat']}"
    assert not [e for e in events if e["type"] == "left"]  # the bot kept its seat
    # the table stops (bots never play a hand alone), so that nothing is granted meanwhile
    await c.request({"t": "sit_out", "room": room})
    for _ in range(200):
        if not (await c.request({"t": "sync", "room": room}))["playing"]:
            break
        await asyncio.sleep(0.05)
    # the bots' grants are recorded on the room: both first buy-ins and at least one re-buy
    room_granted = int(await app.store.redis.hget(app.store.keys.room(room), "granted"))
    assert room_granted >= 3 + 3 + 3
    totals = await assert_chips_conserved(app)
    assert totals["grants"] == room_granted + 10_000
    await c.close()


async def test_a_strategy_that_answers_an_illegal_action_falls_back_to_the_timeout_action(
    make_app, monkeypatch, caplog,
):
    def reckless(view, legal, rng):
        return {"type": "raise", "to": -5}

    holdem = replace(GAMES["holdem"], bots={**GAMES["holdem"].bots, "smart": reckless})
    app = await make_app(games={**GAMES, "holdem": holdem}, deck=shuffled_deck)
    c = await human(app)
    room = (await create(c, "holdem", seats=3, bots=2, **FAST))["room"]
    await c.request({"t": "join", "room": room})
    with caplog.at_level(logging.ERROR, logger="server.room"):
        events = await play_until(c, room, "holdem", lambda e: e["type"] == "hand_ended", strategy="random")
    assert any("refused" in r.getMessage() for r in caplog.records)
    bot_moves = [e["action"] for e in events if e["type"] == "action" and e["seat"] in (1, 2)]
    assert bot_moves and set(bot_moves) <= {"check", "fold"}  # the timeout action; the hand finished
    assert not app.directory.actors[room].task.done()
    await assert_chips_conserved(app)
    await c.close()


async def test_a_bots_pending_turn_survives_a_restart(make_app, redis, prefix):
    # the first server's clock runs a minute behind: its bot is never due before the
    # stop; the second server reads the persisted bot time and plays the turn
    behind = await make_app(games=GAMES, deck=shuffled_deck, clock=lambda: int(time.time() * 1000) - 60_000)
    c = await human(behind)
    room = (await create(c, "holdem", seats=3, bots=2, bot_delay_seconds=1, action_seconds=600,
                         between_hands_seconds=600))["room"]
    await c.request({"t": "join", "room": room})
    snap = await c.expect("room", room=room, playing=True)
    assert snap["view"]["to_act"] == 0  # three-handed, the button (the human) acts first
    ack = await c.request({"t": "act", "room": room, "action": {"type": "call"}, "id": "a1"})
    assert ack["t"] == "ack"
    table = behind.directory.actors[room].table
    assert tbl.bot_to_act(table) == 1 and table.bot_act_ms is not None
    version = table.version
    await c.close()
    await behind.stop()
    stored = await load_room(Store(redis, prefix), room)
    assert stored["version"] == version and stored["bot_act_ms"] == table.bot_act_ms

    after = await make_app(games=GAMES, deck=shuffled_deck)
    actor = await owned(after, room)  # the bot's turn is overdue: a scan takes the room
    for _ in range(100):
        if actor.table.version > version:
            break
        await asyncio.sleep(0.05)
    assert actor.table.version > version
    assert f"bot-{room}-1" in actor.table.answers
    await assert_chips_conserved(after)


def test_table_rules_bots_never_play_alone_and_rebuy_when_busted():
    game = GAMES["holdem"]
    t = tbl.Table(room="r", game="holdem", options={"action_seconds": 30, "between_hands_seconds": 0,
                                                   "buy_in_min": 1, "buy_in_max": 10**6, "buy_in_default": 7,
                                                   "bot_delay_seconds": 0.5},
                  config=game.parse_config({"small_blind": 1, "big_blind": 2}), seats=[None] * 3)
    events = tbl.seat_bots(t, 2)
    assert [e["seat"] for e in events] == [1, 2]
    assert tbl.granted_chips(events) == {"bot-r-1": 7, "bot-r-2": 7}
    assert not tbl.can_start(t, game)
    assert tbl.due(t, game, 10**12) is None and tbl.next_wakeup_ms(t, game) is None
    tbl.sit(t, "p", "p", 0, 100)
    assert tbl.can_start(t, game)
    # last hand: seat 2 lost everything; seat 1 (3 chips) was too short to be dealt in
    t.seats[1].stack = 3
    t.hand = type("Over", (), {"stacks": [100, None, 0], "is_over": True})()
    ended = tbl.end_hand(t, 0)
    assert {"type": "rebuy", "seat": 2, "player": "bot-r-2", "amount": 7, "stack": 7} in ended
    assert {"type": "rebuy", "seat": 1, "player": "bot-r-1", "amount": 4, "stack": 7} in ended
    assert not [e for e in ended if e["type"] == "left"]
    assert t.seats[2] is not None and t.seats[2].stack == 7 and t.seats[1].stack == 7
    assert tbl.granted_chips(ended) == {"bot-r-1": 4, "bot-r-2": 7}
    tbl.start_hand(t, game, shuffled_deck(52), 1000)
    seat = t.hand.to_act
    assert (t.bot_act_ms == 1500) == (seat in (1, 2))
    restored = tbl.from_dict(tbl.to_dict(t, game), game)
    assert restored.bot_act_ms == t.bot_act_ms and restored.seats[1].bot


def test_a_bot_too_short_for_the_ante_rebuys_when_no_hand_can_be_dealt():
    """A bot left below Zha Jin Hua's ante after a hand, with one person at a two-seat table:
    no hand could ever be dealt (the rebuy of end_hand is for seats the engine left out),
    and people joining and leaving could not change that. The start tops the bot up (a
    change with the ``rebuy``, replayed alike), and the next start deals."""
    from server.room.core import RoomCore

    game = GAMES["zhajinhua"]
    t = tbl.Table(room="r", game="zhajinhua", options={"action_seconds": 30, "between_hands_seconds": 0,
                                                       "buy_in_min": 1, "buy_in_max": 10**6, "buy_in_default": 500,
                                                       "bot_delay_seconds": 0.5, "seats": 2},
                  config=game.parse_config({"ante": 10}), seats=[None] * 2, next_seed="00" * 32)
    tbl.seat_bots(t, 1)
    tbl.sit(t, "p", "p", 0, 100)
    t.seats[1].stack = 3
    t.league = LeagueState("m1", "s", 10, 100)  # a league match's bot is an entrant: never topped up
    assert tbl.rebuy_short_bots(t) == [] and t.seats[1].stack == 3
    t.league = None
    core = RoomCore(game, t, new_id=lambda: "x1", rng=random.Random(1))
    rebuy = core.due(10**6)
    assert rebuy is not None and rebuy.kind == "start"
    assert rebuy.events == [{"type": "rebuy", "seat": 1, "player": "bot-r-1", "amount": 497, "stack": 500}]
    assert rebuy.granted == 497
    again = RoomCore.replayer(game, t).replay(rebuy.record)
    assert again.events == rebuy.events
    core.stored(rebuy)
    dealt = core.due(10**6)
    assert dealt is not None and dealt.events[0]["type"] == "hand_started"
