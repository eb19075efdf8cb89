"""The Python SDK against a live server: lobby calls, typed errors, acks, the event
iterator, reconnect-and-resume, and bots playing whole hands of every game."""

from __future__ import annotations

import asyncio
import random

import pytest

from client_demo.sdk.bot import Bot, StrategyBot, play, run_in_room
from client_demo.sdk.client import CardroomClient, ConnectionLost, ServerError


async def wait_for_turn(client: CardroomClient, room: str, seat: int, timeout: float = 5.0) -> dict:
    """The next snapshot of ``room`` in which ``seat`` is to act."""
    async def scan() -> dict:
        while True:
            snap = client.rooms.get(room)
            if snap and snap.get("view") and snap["view"].get("to_act") == seat and snap["view"].get("legal"):
                return snap
            await client.next_message()

    return await asyncio.wait_for(scan(), timeout)


async def test_hello_list_create_join_and_typed_errors(server):
    async with CardroomClient(server.ws_url, name="alice") as alice:
        assert alice.player and alice.token and alice.wallet == 10_000
        listing = await alice.list_rooms()
        assert {g["game"] for g in listing["games"]} == {"holdem", "zhajinhua", "doudizhu"}
        with pytest.raises(ServerError) as err:
            await alice.create_room("holdem", options={"seats": 99})
        assert err.value.code == "bad_config" and err.value.field == "seats"
        with pytest.raises(ServerError) as err:
            await alice.join("r-nosuchroom")
        assert err.value.code == "no_such_room"
        room = (await alice.create_room("holdem", options={"seats": 2}))["room"]
        snap = await alice.join(room, buy_in=500)
        assert snap["your_seat"] == 0 and snap["seats"][0]["stack"] == 500
        with pytest.raises(ServerError) as err:
            await alice.join(room)
        assert err.value.code == "already_seated"
        left = await alice.leave(room)
        assert left["pending"] is False and left["wallet"] == 10_000


async def test_act_waits_for_the_ack_and_refusals_carry_the_engine_code(server):
    async with CardroomClient(server.ws_url, name="a") as a, CardroomClient(server.ws_url, name="b") as b:
        room = (await a.create_room("holdem", options={"seats": 2}, config={"small_blind": 1, "big_blind": 2}))["room"]
        await a.join(room, seat=0, buy_in=200)
        await b.join(room, seat=1, buy_in=200)
        snap = await wait_for_turn(a, room, 0)  # heads-up: the button (seat 0) acts first
        assert snap["view"]["legal"]["call"] == 1
        with pytest.raises(ServerError) as err:
            await b.act(room, {"type": "check"})
        assert err.value.code == "not_your_turn"
        with pytest.raises(ServerError) as err:
            await a.act(room, {"type": "raise", "to": 10_000})
        assert err.value.code == "bad_amount"
        ack = await a.act(room, {"type": "call"}, action_id="call-1")
        assert ack["t"] == "ack" and ack["id"] == "call-1"
        again = await a.act(room, {"type": "call"}, action_id="call-1")  # exactly once
        assert again["version"] == ack["version"]
        seen = []
        async for msg in b:
            if msg["t"] == "event":
                seen.append(msg["event"]["type"])
            if msg["t"] == "room" and msg["version"] >= ack["version"]:
                break
        assert "action" in seen


async def test_reconnect_resumes_with_the_token_and_resyncs_from_the_snapshot(server):
    async with CardroomClient(server.ws_url, name="a") as a, CardroomClient(server.ws_url, name="b") as b:
        room = (await a.create_room("zhajinhua", options={"seats": 2}))["room"]
        await a.join(room, buy_in=1000)
        await b.join(room, buy_in=1000)
        before = a.rooms[room]["version"]
        player, token = a.player, a.token
        await a._ws.close()  # the network drops
        kinds = []
        while True:
            msg = await a.next_message(timeout=5)
            kinds.append(msg["t"])
            if msg["t"] == "room" and msg["room"] == room and "reconnected" in kinds:
                break
        assert kinds.index("disconnected") < kinds.index("reconnected")
        assert a.player == player and a.token == token and a.reconnects == 1
        assert msg["your_seat"] == 0 and msg["version"] >= before and a.rooms[room] is msg
        assert (await a.ping())["t"] == "pong"  # requests work again


async def test_an_act_sent_while_disconnected_is_delivered_after_the_reconnect(server):
    async with CardroomClient(server.ws_url, name="a", backoff=(0.3, 1.0)) as a, \
            CardroomClient(server.ws_url, name="b") as b:
        room = (await a.create_room("holdem", options={"seats": 2}, config={"small_blind": 1, "big_blind": 2}))["room"]
        await a.join(room, seat=0, buy_in=200)
        await b.join(room, seat=1, buy_in=200)
        await wait_for_turn(a, room, 0)
        await a._ws.close()
        await asyncio.sleep(0.05)
        assert not a.connected
        ack = await a.act(room, {"type": "call"})  # queued, sent once reconnected
        assert ack["t"] == "ack"
        with pytest.raises(ConnectionLost):
            await a._ws.close() or await a.join(room)  # joins are never resent blindly


async def test_a_resumed_player_keeps_its_seat_from_a_new_client(server):
    a = CardroomClient(server.ws_url, name="a")
    await a.connect()
    room = (await a.create_room("doudizhu"))["room"]
    await a.join(room, seat=2, buy_in=300)
    token = a.token
    await a.close()
    async with CardroomClient(server.ws_url, token=token) as again:
        assert again.welcome["seats"] == [{"room": room, "game": "doudizhu", "seat": 2}]
        msg = await again.next_message(timeout=5)
        assert msg["t"] == "room" and msg["your_seat"] == 2


async def test_the_client_says_its_protocol_version_and_a_server_of_another_refuses_it(server, monkeypatch):
    from client_demo.sdk import client as sdk

    async with CardroomClient(server.ws_url, name="alice") as alice:
        assert alice.welcome["protocol"] == sdk.PROTOCOL_VERSION
    monkeypatch.setattr(sdk, "PROTOCOL_VERSION", sdk.PROTOCOL_VERSION + 1)  # a client of a later version
    with pytest.raises(ServerError) as err:
        await CardroomClient(server.ws_url, name="bob").connect()
    assert err.value.code == "unsupported_protocol" and err.value.reply["protocol"] == sdk.PROTOCOL_VERSION - 1


async def test_a_bad_token_is_a_typed_error(server):
    with pytest.raises(ServerError) as err:
        await CardroomClient(server.ws_url, token="0" * 32).connect()
    assert err.value.code == "bad_token"


@pytest.mark.parametrize("game,players", [("holdem", 3), ("zhajinhua", 3), ("doudizhu", 3)])
async def test_strategy_bots_play_whole_hands_through_the_server(server, game, players):
    clients = [CardroomClient(server.ws_url, name=f"{game[:4]}{i}") for i in range(players)]
    for c in clients:
        await c.connect()
    try:
        room = (await clients[0].create_room(game, options={"seats": players, "between_hands_seconds": 0.05}))["room"]
        rng = random.Random(3)
        results = await asyncio.wait_for(asyncio.gather(*(
            run_in_room(StrategyBot(game, rng.choice(["smart", "random"]), seed=i), c, room, buy_in=3000, hands=2)
            for i, c in enumerate(clients))), 60)
    finally:
        for c in clients:
            await c.close()
    assert all(r.finished and r.hands >= 1 and r.rejected == 0 for r in results)
    assert sum(r.net for r in results) == 0  # chips are conserved across the table


async def test_play_runs_a_custom_bot_class(server):
    class Caller(Bot):
        def decide(self, view, legal):
            return {"type": "check"} if legal.get("check") else {"type": "call"}

    stop = asyncio.Event()
    first = asyncio.create_task(play(Caller(), server.ws_url, name="caller", game="holdem", create=True,
                                     options={"seats": 2, "between_hands_seconds": 0.05},
                                     config={"small_blind": 1, "big_blind": 2}, hands=2))
    await asyncio.sleep(0.3)
    second = asyncio.create_task(play(StrategyBot("holdem", "random", seed=1), server.ws_url,
                                      name="rnd", game="holdem", hands=2, stop=stop))
    a = await asyncio.wait_for(first, 30)
    stop.set()
    b = await asyncio.wait_for(second, 30)
    assert a.finished and b.finished and a.actions >= 1 and 1 <= a.hands <= 2 and b.hands >= a.hands
    assert a.net + b.net == 0


async def test_the_client_rides_out_a_server_restart_and_resumes_its_seat(bots_redis_url):
    import uuid

    from server.app import App
    from server.config import Settings
    from server.games import GAMES

    prefix = f"tr{uuid.uuid4().hex[:8]}:"
    first = App(Settings(host="127.0.0.1", port=0, redis_url=bots_redis_url, key_prefix=prefix), dict(GAMES))
    await first.start()
    port = first.port
    url = first.ws_url
    second = None
    client = CardroomClient(url, name="survivor", backoff=(0.05, 0.5))
    try:
        await client.connect()
        room = (await client.create_room("holdem", options={"seats": 2}))["room"]
        await client.join(room, seat=1, buy_in=700)
        player, token = client.player, client.token
        await first.stop()  # closes every connection with 1001
        await asyncio.sleep(0.3)  # the client is retrying with backoff meanwhile
        second = App(Settings(host="127.0.0.1", port=port, redis_url=bots_redis_url, key_prefix=prefix),
                     dict(GAMES))
        await second.start()
        kinds = []
        while True:
            msg = await client.next_message(timeout=10)
            kinds.append(msg["t"])
            if msg["t"] == "room" and "reconnected" in kinds:
                break
        assert client.player == player and client.token == token and client.reconnects == 1
        assert msg["room"] == room and msg["your_seat"] == 1 and msg["seats"][1]["stack"] == 700
        left = await client.leave(room)
        assert left["wallet"] == 10_000  # the buy-in came back: nothing was lost in the restart
    finally:
        await client.close()
        if second is not None:
            await second.stop()


async def test_the_sdk_sends_a_fresh_client_seed_on_join_and_after_every_hand(server):
    async def hand_started(client: CardroomClient, number: int) -> dict:
        while True:
            msg = await client.next_message()
            event = msg.get("event") or {}
            if msg.get("t") == "event" and event.get("type") == "hand_started" and event["hand_no"] == number:
                return event

    async with CardroomClient(server.ws_url, name="a") as a, CardroomClient(server.ws_url, name="b") as b:
        room = (await a.create_room("holdem", options={"seats": 2, "between_hands_seconds": 0.3}))["room"]
        await a.join(room, seat=0, buy_in=200)
        await b.join(room, seat=1, buy_in=200)
        first = await asyncio.wait_for(hand_started(a, 1), 5)
        seeds = [s["seed"] for s in first["fairness"]["seeds"]]
        assert all(len(s) == 22 for s in seeds) and seeds[0] != seeds[1]
        await wait_for_turn(a, room, 0)
        await a.act(room, {"type": "fold"})
        second = await asyncio.wait_for(hand_started(a, 2), 5)
        again = [s["seed"] for s in second["fairness"]["seeds"]]
        assert all(len(s) == 22 for s in again) and not set(again) & set(seeds)
        (played,) = await b.history(room)
        assert played["hand"] == 1 and played["fairness"]["seeds"] == first["fairness"]["seeds"]
        won = next(r["net"] for r in played["result"] if r["seat"] == 1)
        assert won > 0  # a folded: b won the small blind
        record = await b.my_record()
        assert record["hands"] == 1 and record["games"]["holdem"] == {"hands": 1, "net": won}
        assert [(r["room"], r["hand"], r["net"]) for r in record["recent"]] == [(room, 1, won)]
        assert (await a.my_record(last=1))["games"]["holdem"] == {"hands": 1, "net": -won}


async def test_closing_the_client_leaves_no_failure_unread(server):
    """A request still waiting when the client closes, whose task is then cancelled (as
    asyncio.run cancels the SDK's own background requests at exit), fails nobody's future
    unread: asyncio used to print "Future exception was never retrieved" at the end of
    every bench run."""
    import contextlib
    import gc

    unread: list[dict] = []
    loop = asyncio.get_running_loop()
    before = loop.get_exception_handler()
    loop.set_exception_handler(lambda _loop, ctx: unread.append(ctx))
    try:
        client = CardroomClient(server.ws_url, name="closer", rate=1.0, burst=1)
        await client.connect()
        waiting = [asyncio.create_task(client.list_rooms()) for _ in range(5)]
        await asyncio.sleep(0.05)  # the first sent, the others held by the client's pacer
        await client.close()
        for task in waiting:
            task.cancel()
        for task in waiting:  # the first was answered; the others end cancelled or failed
            with contextlib.suppress(asyncio.CancelledError, ConnectionLost):
                await task
        del waiting, task
        gc.collect()
    finally:
        loop.set_exception_handler(before)
    assert not [c for c in unread if "never retrieved" in c.get("message", "")], unread


async def test_a_bot_takes_its_seat_back_from_auto_play(server):
    """A bot plays its own turns: when the server auto-plays its seat (here asked for with
    the SDK's ``auto_play``; the server does it after two timeouts or a dropped
    connection), the bot asks for it back and goes on playing."""
    lines: list[str] = []
    async with CardroomClient(server.ws_url, name="b") as b:
        room = (await b.create_room("holdem", options={"seats": 2, "bots": 1, "bot_delay_seconds": 0,
                                                       "between_hands_seconds": 0.05}))["room"]
        await b.join(room)
        on = await b.auto_play(room, True)
        assert on["seats"][on["your_seat"]]["auto"] == "asked"
        def check_or_fold(view, legal):  # never busts: the test is about the hands dealt
            return {"type": "check"} if legal.get("check") else {"type": "fold"}

        stats = await asyncio.wait_for(run_in_room(check_or_fold, b, room, joined=on, hands=2, log=lines.append), 30)
    # the second hand was dealt: an auto-played seat alone with a bot deals none
    assert stats.finished and stats.hands == 2 and stats.stop_reason == "played 2 hand(s)"
    assert any("auto-plays our seat (asked): taking it back" in line for line in lines)
