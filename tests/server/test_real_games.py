"""Every hosted game (Hold'em, Zha Jin Hua, Dou Dizhu) is played through the server,
over real sockets and real Redis, with the same machinery."""

from __future__ import annotations

from typing import Any

import pytest

from server.games import GAMES
from server.room import shuffled_deck

from .wsclient import Client


def seats_for(game) -> int:
    return max(game.min_players, 2) if game.max_players >= 3 or game.min_players == 3 else 2


def choose(game_name: str, view: dict[str, Any], server_state: Any, seat: int) -> dict[str, Any]:
    """A simple player: keeps Hold'em going to the river, calls twice in Zha Jin Hua,
    and otherwise does what the engine does for a player whose clock runs out."""
    legal = view.get("legal") or {}
    if game_name == "holdem":
        return {"type": "check"} if legal.get("check") else {"type": "call"}
    if game_name == "zhajinhua" and "call" in legal.get("actions", ()) and view.get("round", 99) <= 2:
        return {"type": "call"}
    return GAMES[game_name].timeout_action(server_state, seat)


def next_action(game_name: str, hand: Any, rng: Any) -> dict[str, Any]:
    """The action of the seat to act in the server's ``hand``: :func:`choose`'s, the smart
    bot's in Dou Dizhu (which plays a hand to its end sooner)."""
    from engine.bots import get_strategy

    seat = hand.to_act
    view = GAMES[game_name].view(hand, seat)
    if game_name == "doudizhu":
        return get_strategy(game_name, "smart")(view, view["legal"], rng)
    return choose(game_name, view, hand, seat)


async def play_one_hand(make_app, game_name: str, *, action_seconds: float = 30) -> dict[str, Any]:
    game = GAMES[game_name]
    app = await make_app(games=GAMES, deck=shuffled_deck)
    n = seats_for(game)
    clients = []
    for i in range(n):
        c = await Client.connect(app.ws_url, "cardroom.msgpack" if i % 2 else "cardroom.json")
        await c.hello(f"player{i}")
        clients.append(c)
    reply = await clients[0].request({
        "t": "create_room", "game": game_name,
        "options": {"seats": n, "action_seconds": action_seconds, "between_hands_seconds": 600,
                    "buy_in_default": 2000},
    })
    assert reply["t"] == "room", reply
    room = reply["room"]
    for i, c in enumerate(clients):
        joined = await c.request({"t": "join", "room": room, "seat": i})
        assert joined["t"] == "room", joined
    actor = app.directory.actors[room]
    acts = 0
    for step in range(500 if action_seconds >= 1 else 0):
        table = actor.table
        if table.hand is not None and table.hand.is_over:
            break
        if table.hand is None:
            await clients[0].expect("event", timeout=10, event=lambda e: e["type"] == "hand_started")
            continue
        seat = table.hand.to_act
        c = clients[seat]
        snap = await c.request({"t": "spectate", "room": room})  # a fresh snapshot for that seat
        assert snap["your_seat"] == seat and snap["view"]["to_act"] == seat
        assert snap["timer"]["seat"] == seat
        action = choose(game_name, snap["view"], table.hand, seat)
        ack = await c.request({"t": "act", "room": room, "action": action, "id": f"s{step}"})
        assert ack["t"] == "ack", (action, ack)
        acts += 1
    ended = await clients[0].expect("event", timeout=30, event=lambda e: e["type"] == "hand_ended")
    totals = await app.store.chip_audit()
    assert totals["grants"] == totals["wallets"] + totals["tables"] + totals["pending"] == n * 10_000
    assert sum(s for s in ended["event"]["stacks"] if s is not None) == n * 2000
    for c in clients:
        await c.close()
    return {"acts": acts, "app": app, "room": room, "ended": ended}


@pytest.mark.parametrize("game_name", sorted(GAMES))
async def test_a_hand_of_each_game_is_played_through_the_server(make_app, game_name):
    result = await play_one_hand(make_app, game_name)
    assert result["acts"] >= 2
    stream = await result["app"].store.room_events(result["room"])
    types = [e["type"] for _, evs in stream for e in evs]
    assert types.count("hand_started") == 1 and "hand_ended" in types


@pytest.mark.parametrize("game_name", sorted(GAMES))
async def test_a_hand_of_each_game_finishes_on_timeouts_alone(make_app, game_name):
    result = await play_one_hand(make_app, game_name, action_seconds=0.1)
    assert result["acts"] == 0
    stream = await result["app"].store.room_events(result["room"])
    assert any(e["type"] == "timed_out" for _, evs in stream for e in evs)


async def test_holdem_views_never_show_another_seats_hole_cards(make_app):
    app = await make_app(games=GAMES, deck=shuffled_deck)
    a = await Client.connect(app.ws_url)
    await a.hello("alice")
    b = await Client.connect(app.ws_url, "cardroom.msgpack")
    await b.hello("bob")
    room = (await a.request({"t": "create_room", "game": "holdem", "options": {"seats": 2}}))["room"]
    await a.request({"t": "join", "room": room})
    await b.request({"t": "join", "room": room})
    sa = await a.expect("room", room=room, playing=True)
    sb = await b.expect("room", room=room, playing=True)
    assert len(sa["view"]["hole"]) == 2 and len(sb["view"]["hole"]) == 2
    assert set(sa["view"]["hole"]).isdisjoint(sb["view"]["hole"])
    assert all(s["cards"] is None for s in sa["view"]["seats"] if s["seat"] != 0)
    err = await a.request({"t": "act", "room": room, "action": {"type": "raise", "to": 10**9}, "id": "x"})
    assert err["t"] == "error" and err["code"] == "bad_amount"
    seat_not_to_act = 1 - sa["view"]["to_act"]
    wrong = (a, b)[seat_not_to_act]
    err = await wrong.request({"t": "act", "room": room, "action": {"type": "call"}, "id": "y"})
    assert err["code"] == "not_your_turn"
    await a.close()
    await b.close()


def test_holdem_button_moves_each_hand_and_heads_up_the_button_posts_the_small_blind():
    from server.room import table as tbl

    game = GAMES["holdem"]
    t = tbl.Table(room="r", game="holdem", options={"action_seconds": 30, "between_hands_seconds": 0,
                                                   "buy_in_min": 1, "buy_in_max": 10**6},
                  config=game.parse_config({"small_blind": 5, "big_blind": 10}), seats=[None] * 4)
    for seat in (0, 1, 3):
        tbl.sit(t, f"p{seat}", f"p{seat}", seat, 1000)
    buttons = []
    for _ in range(4):
        events = tbl.start_hand(t, game, shuffled_deck(52), 0)
        buttons.append(t.button)
        blinds = {e["kind"]: e["seat"] for e in events if e["type"] == "blind"}
        order = [s for s in (0, 1, 3) if s > t.button] + [s for s in (0, 1, 3) if s <= t.button]
        assert blinds == {"small": order[0], "big": order[1]}
        while tbl.playing(t):
            tbl.play_for(t, game, 0, "leaver")  # check or fold
    assert buttons == [0, 1, 3, 0]
    tbl.leave(t, 3)
    tbl.start_hand(t, game, shuffled_deck(52), 0)
    blinds = {e["kind"]: e["seat"] for e in game.start_events(t.hand) if e["type"] == "blind"}
    assert t.button == 1 and blinds == {"small": 1, "big": 0}


async def test_a_table_the_engine_cannot_deal_waits_quietly_until_it_changes(make_app):
    # Zha Jin Hua deals only seats that cover the ante: 5 chips against an ante of 10
    app = await make_app(games=GAMES, deck=shuffled_deck)
    a = await Client.connect(app.ws_url)
    await a.hello("alice")
    b = await Client.connect(app.ws_url)
    await b.hello("bob")
    room = (await a.request({"t": "create_room", "game": "zhajinhua", "options": {"seats": 3},
                             "config": {"ante": 10}}))["room"]
    await a.request({"t": "join", "room": room, "buy_in": 5})
    joined = await b.request({"t": "join", "room": room, "buy_in": 500})
    assert not joined["playing"]
    actor = app.directory.actors[room]
    import asyncio

    wakeups = 0
    real_due = actor._due

    async def counting_due():
        nonlocal wakeups
        wakeups += 1
        await real_due()

    actor._due = counting_due
    await a.request({"t": "sit_in", "room": room})  # a command wakes the actor once
    await asyncio.sleep(0.2)
    assert wakeups <= 2  # it does not spin retrying
    assert not actor.table.hand and actor.task is not None and not actor.task.done()
    assert actor.queue.qsize() == 0
    c = await Client.connect(app.ws_url)
    await c.hello("carol")
    await c.request({"t": "join", "room": room, "buy_in": 500})  # the table changed: two cover the ante
    snap = await c.expect("room", room=room, playing=True)
    assert snap["hand_no"] == 1
    for x in (a, b, c):
        await x.close()
