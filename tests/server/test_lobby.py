"""Lobby, identity and presence over real sockets."""

from __future__ import annotations

import asyncio

from .test_play import new_room, seated_pair
from .wsclient import Client


async def test_watching_the_lobby_pushes_room_list_changes(connect):
    w = await connect("watcher")
    first = await w.request({"t": "list_rooms", "watch": True})
    assert first["rooms"] == [] and [g["game"] for g in first["games"]] == ["highcard"]
    assert {o["name"] for o in first["games"][0]["room_options"]} >= {"seats", "action_seconds", "buy_in_max"}
    a = await connect("alice")
    room = await new_room(a, seats=2)
    push = await w.expect("rooms", rooms=lambda rs: len(rs) == 1)
    assert push["rooms"][0]["room"] == room and push["rooms"][0]["players"] == 0
    await a.request({"t": "join", "room": room})
    push = await w.expect("rooms", rooms=lambda rs: rs[0]["players"] == 1)
    assert "ref" not in push
    await w.request({"t": "list_rooms", "watch": False})


async def test_room_summaries_show_the_stakes_and_count_spectators(connect):
    w = await connect("watcher")
    await w.request({"t": "list_rooms", "watch": True})
    a = await connect("alice")
    room = await new_room(a, seats=2)
    await a.request({"t": "join", "room": room})
    push = await w.expect("rooms", rooms=lambda rs: rs and rs[0]["players"] == 1 and rs[0]["spectators"] == 0)
    assert push["rooms"][0]["config"] and isinstance(push["rooms"][0]["config"], dict)
    s = await connect("spy")
    await s.request({"t": "spectate", "room": room})
    await w.expect("rooms", rooms=lambda rs: rs[0]["spectators"] == 1)
    await s.request({"t": "leave", "room": room})
    await w.expect("rooms", rooms=lambda rs: rs[0]["spectators"] == 0)


async def test_list_rooms_filters_by_game(connect):
    a = await connect("alice")
    await new_room(a)
    assert len((await a.request({"t": "list_rooms", "game": "highcard"}))["rooms"]) == 1
    assert (await a.request({"t": "list_rooms", "game": "holdem"}))["rooms"] == []


async def test_resuming_with_the_token_restores_every_seat_on_a_new_connection(connect):
    a, b, room = await seated_pair(connect)
    other = await new_room(a, seats=2)
    await a.request({"t": "join", "room": other, "buy_in": 100})
    await a.close()
    again = await connect()
    welcome = await again.hello(token=a.token)
    assert welcome["player"] == a.player and welcome["wallet"] == 10_000 - 500 - 100
    assert sorted(s["room"] for s in welcome["seats"]) == sorted([room, other])
    snaps = {(await again.expect("room"))["room"] for _ in range(2)}
    assert snaps == {room, other}


async def test_a_disconnected_player_keeps_the_seat_and_shows_as_disconnected(connect):
    a, b, room = await seated_pair(connect)
    await b.expect("room", room=room, playing=True)
    await a.close()
    snap = await b.expect("room", room=room, seats=lambda s: s[0] is not None and not s[0]["connected"])
    assert snap["seats"][0]["player"] == a.player and snap["playing"]
    back = await connect()
    await back.hello(token=a.token)
    snap = await b.expect("room", room=room, seats=lambda s: s[0]["connected"])
    mine = await back.expect("room", room=room)
    assert mine["your_seat"] == 0 and mine["view"]["cards"][0] is not None


async def test_spectators_see_no_hidden_cards(connect):
    a, b, room = await seated_pair(connect)
    await b.expect("room", room=room, playing=True)
    s = await connect("spy")
    snap = await s.request({"t": "spectate", "room": room})
    assert snap["your_seat"] is None and snap["view"]["cards"] == [None, None]
    await b.request({"t": "act", "room": room, "action": {"type": "bet", "amount": 2}, "id": "1"})
    ev = await s.expect("event", event=lambda e: e["type"] == "bet")
    assert "card" not in ev["event"]
    left = await s.request({"t": "leave", "room": room})
    assert left == {"t": "left", "room": room, "seat": None, "pending": False, "ref": left["ref"]}


async def test_leaving_between_hands_returns_the_stack_to_the_wallet(connect, app):
    a = await connect("alice")
    room = await new_room(a)
    await a.request({"t": "join", "room": room, "buy_in": 300})
    left = await a.request({"t": "leave", "room": room})
    assert left["t"] == "left" and not left["pending"] and left["stack"] == 300 and left["wallet"] == 10_000
    totals = await app.store.chip_audit()
    assert totals["tables"] == 0 and totals["wallets"] == totals["grants"]


async def test_leaving_mid_hand_keeps_the_seat_until_the_hand_ends(connect, app):
    a, b, room = await seated_pair(connect)
    await b.expect("room", room=room, playing=True)
    # seat 1 (bob) is to act; alice (seat 0) leaves: pending, then played for at once on her turn
    pending = await a.request({"t": "leave", "room": room})
    # the chips are still on the table: neither the stack that returns nor the wallet is known
    assert pending["pending"] and pending["stack"] is None and pending["wallet"] is None
    await b.request({"t": "act", "room": room, "action": {"type": "bet", "amount": 10}, "id": "1"})
    done = await a.expect("left", pending=False)
    # alice folded automatically; bob wins the antes
    assert done["stack"] == 490 and done["wallet"] == 9_990 and done["reason"] == "left"
    snap = await b.latest_room(room)
    assert snap["seats"][0] is None and snap["seats"][1]["stack"] == 510
    totals = await app.store.chip_audit()
    assert totals["grants"] == totals["wallets"] + totals["tables"] + totals["pending"]


async def test_clock_runs_out_server_plays_the_timeout_action_and_two_in_a_row_hand_the_seat_to_auto_play(connect):
    a, b, room = await seated_pair(connect, action_seconds=0.2, between_hands_seconds=0)
    ev = await a.expect("event", event=lambda e: e["type"] == "timed_out")
    assert ev["event"]["seat"] == 1 and ev["event"]["action"] == {"type": "fold"}
    # hand 2 (button 1): seat 0 times out once; hand 3 (button 0): seat 1's second timeout in a row
    ev = await a.expect("event", event=lambda e: e["type"] == "timed_out")
    assert ev["event"]["seat"] == 0
    ev = await a.expect("event", event=lambda e: e["type"] == "timed_out")
    assert ev["event"]["seat"] == 1
    auto = await a.expect("event", event=lambda e: e["type"] == "auto_play", timeout=5)
    assert auto["event"] == {"type": "auto_play", "seat": 1, "on": True, "reason": "timeouts"}
    assert auto["version"] == ev["version"]
    # bob is not sat out: dealt in, his turns played at once (alice's clock still runs out)
    snap = await b.latest_room(room)
    assert snap["seats"][1]["auto"] == "timeouts" and not snap["seats"][1]["sitting_out"]
    back = await b.request({"t": "auto_play", "room": room, "on": False})
    assert back["t"] == "room" and back["seats"][1]["auto"] is None


async def test_sit_out_takes_effect_from_the_next_hand(connect):
    a = await connect("alice")
    b = await connect("bob")
    room = await new_room(a, seats=3, between_hands_seconds=0)
    await a.request({"t": "join", "room": room})
    out = await a.request({"t": "sit_out", "room": room})
    assert out["seats"][0]["sitting_out"]
    joined = await b.request({"t": "join", "room": room})
    snap = await b.latest_room(room) or joined
    assert not snap["playing"] and snap["hand_no"] == 0


async def test_ping_answers_with_the_server_clock_even_before_hello(connect):
    c = await connect()
    pong = await c.request({"t": "ping"})
    assert pong["t"] == "pong" and pong["time_ms"] > 1_600_000_000_000


async def test_two_connections_of_one_player_both_get_updates(connect):
    a, b, room = await seated_pair(connect)
    a2 = await connect()
    await a2.hello(token=a.token)
    await a2.expect("room", room=room)
    await b.expect("room", room=room, playing=True)
    await b.request({"t": "act", "room": room, "action": {"type": "bet", "amount": 2}, "id": "1"})
    ev = await a2.expect("event", event=lambda e: e["type"] == "bet")
    assert ev["room"] == room


async def test_http_endpoints(app):
    import urllib.request

    base = app.url

    def get(path: str):
        try:
            with urllib.request.urlopen(base.rstrip("/") + path, timeout=5) as r:
                return r.status, r.headers.get("Content-Type"), r.read()
        except urllib.error.HTTPError as e:
            return e.code, e.headers.get("Content-Type"), e.read()

    import asyncio

    status, ctype, body = await asyncio.to_thread(get, "/healthz")
    assert status == 200 and body == b"ok\n"
    status, ctype, body = await asyncio.to_thread(get, "/metrics")
    assert status == 200 and ctype.startswith("text/plain") and b"cardroom_connections" in body
    assert b"cardroom_redis_write_seconds" in body and b"cardroom_action_seconds" in body
    status, ctype, body = await asyncio.to_thread(get, "/")
    assert status == 200 and ctype == "text/html; charset=utf-8" and b"<html" in body.lower()
    for bad in ("/nope", "/../pyproject.toml", "/%2e%2e/pyproject.toml", "/..%2fpyproject.toml", "/ws/../../etc/passwd"):
        status, _, _ = await asyncio.to_thread(get, bad)
        assert status == 404, bad


async def test_metrics_count_actions_and_rooms(connect, app):
    a, b, room = await seated_pair(connect)
    await b.expect("room", room=room, playing=True)
    await b.request({"t": "act", "room": room, "action": {"type": "bet", "amount": 2}, "id": "1"})
    await a.request({"t": "act", "room": room, "action": {"type": "bet", "amount": 2000}, "id": "1"})
    text = app.metrics.render().decode()
    assert 'cardroom_actions_total{result="accepted"} 1.0' in text
    assert 'cardroom_actions_total{result="rejected"} 1.0' in text
    assert 'cardroom_rooms{game="highcard"} 1.0' in text
    assert "cardroom_connections 2.0" in text


async def test_static_files_get_their_content_type(make_app, tmp_path):
    web = tmp_path / "web"
    (web / "js").mkdir(parents=True)
    (web / "index.html").write_text("<html></html>")
    (web / "js" / "app.js").write_text("console.log(1)")
    (web / "style.css").write_text("body{}")
    app = await make_app(web_dir=web)
    import asyncio
    import urllib.request

    def head(path):
        with urllib.request.urlopen(app.url.rstrip("/") + path, timeout=5) as r:
            return r.headers.get("Content-Type")

    assert await asyncio.to_thread(head, "/js/app.js") == "text/javascript; charset=utf-8"
    assert await asyncio.to_thread(head, "/style.css") == "text/css; charset=utf-8"
    c = await Client.connect(app.ws_url)
    await c.close()


async def test_a_busted_player_stands_up_gets_left_and_keeps_watching(connect, app):
    a = await connect("alice")
    b = await connect("bob")
    room = await new_room(a, seats=2, between_hands_seconds=60)
    await a.request({"t": "join", "room": room, "seat": 0, "buy_in": 10})  # the ante puts alice all in
    await b.request({"t": "join", "room": room, "seat": 1, "buy_in": 500})
    await b.expect("room", room=room, playing=True)
    await b.request({"t": "act", "room": room, "action": {"type": "bet", "amount": 5}, "id": "1"})
    await a.request({"t": "act", "room": room, "action": {"type": "fold"}, "id": "1"})
    busted = await a.expect("left")
    assert busted["reason"] == "busted" and busted["stack"] == 0 and busted["wallet"] == 9_990
    snap = await a.expect("room", room=room, seats=lambda s: s[0] is None)
    assert snap["your_seat"] is None and snap["seats"][1]["stack"] == 510
    totals = await app.store.chip_audit()
    assert totals["grants"] == totals["wallets"] + totals["tables"] + totals["pending"]


def _status(url: str) -> int:
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


async def test_healthz_is_503_while_redis_is_gone_and_200_when_it_is_back(tmp_path):
    import asyncio

    from server.app import App
    from server.config import Settings
    from server.redis_embedded import EmbeddedRedis

    from .highcard import GAME

    redis = EmbeddedRedis(tmp_path / "redis")
    redis.start()
    app = App(Settings(port=0, redis_url=redis.url), {"highcard": GAME})
    await app.start()
    try:
        assert await asyncio.to_thread(_status, app.url + "healthz") == 200
        redis.stop()
        assert await asyncio.to_thread(_status, app.url + "healthz") == 503
        assert await asyncio.to_thread(_status, app.url + "livez") == 200  # alive: no reason to restart it
        redis.start()
        assert await asyncio.to_thread(_status, app.url + "healthz") == 200
    finally:
        await app.stop()
        redis.stop()


async def test_the_embedded_redis_is_started_again_when_it_dies(tmp_path):
    import asyncio
    import os
    import signal

    from server.app import App
    from server.config import Settings

    from .highcard import GAME

    app = App(Settings(port=0, data_dir=tmp_path / "data"), {"highcard": GAME})  # its own embedded Redis
    await app.start()
    try:
        c = await Client.connect(app.ws_url)
        welcome = await c.hello("alice")
        os.kill(app.embedded.process.pid, signal.SIGKILL)
        for _ in range(100):
            await asyncio.sleep(0.1)
            if app.embedded.running() and await asyncio.to_thread(_status, app.url + "healthz") == 200:
                break
        assert await asyncio.to_thread(_status, app.url + "healthz") == 200
        again = await Client.connect(app.ws_url)
        back = await again.hello(token=welcome["token"])  # the player was kept (append-only file)
        assert back["t"] == "welcome" and back["player"] == welcome["player"]
        await c.close()
        await again.close()
    finally:
        await app.stop()


async def test_requests_during_shutdown_are_unavailable_and_a_released_room_is_taken_again(connect, app):
    c = await connect("alice")
    room = await new_room(c)
    app.lobby.stopping = True
    assert (await c.request({"t": "join", "room": room}))["code"] == "unavailable"
    app.lobby.stopping = False
    await app.directory.actors[room].stop()  # finishes its queue and gives the lease back
    assert room not in app.directory.actors
    assert await app.store.lease_holder(room) is None
    joined = await c.request({"t": "join", "room": room})  # taken again at once
    assert joined["t"] == "room" and joined["your_seat"] == 0
    assert room in app.directory.actors


async def test_a_private_room_is_unlisted_and_needs_its_code(connect, app):
    a = await connect("alice")
    created = await a.request({"t": "create_room", "game": "highcard", "options": {"private": True}})
    room, code = created["room"], created["code"]
    assert created["options"]["private"] is True and len(code) == 8
    public = await a.request({"t": "create_room", "game": "highcard"})
    assert public["code"] is None
    b = await connect("bob")
    assert [r["room"] for r in (await b.request({"t": "list_rooms"}))["rooms"]] == [public["room"]]
    for msg in ({"t": "spectate", "room": room}, {"t": "join", "room": room},
                {"t": "join", "room": room, "code": "WRONG123"}):
        err = await b.request(msg)
        assert err["code"] == "bad_code" and err["field"] == "code", err
    joined = await b.request({"t": "join", "room": room, "code": code.lower()})  # any case
    assert joined["t"] == "room" and joined["your_seat"] == 0 and joined["code"] == code
    c = await connect("carol")
    assert (await c.request({"t": "spectate", "room": room, "code": code}))["t"] == "room"
    again = await connect()
    welcome = await again.hello(token=b.token)  # a seated player resumes without the code
    assert welcome["seats"] == [{"room": room, "game": "highcard", "seat": 0}]
    assert (await again.request({"t": "spectate", "room": room}))["t"] == "room"
    await asyncio.sleep(0.4)  # lobby batches
    assert [r["room"] for r in (await c.request({"t": "list_rooms"}))["rooms"]] == [public["room"]]


async def test_an_empty_room_is_closed_after_a_while_and_keeps_its_history(make_app):
    app = await make_app(empty_room_minutes=0.005)  # 0.3 s
    a = await Client.connect(app.ws_url)
    await a.hello("alice")
    room = (await a.request({"t": "create_room", "game": "highcard"}))["room"]
    closed = await a.expect("event", timeout=10, room=room, event=lambda e: e["type"] == "room_closed")
    assert closed["event"]["reason"] == "empty"
    assert (await a.latest_room(room))["closed"] is True
    await asyncio.sleep(0.4)
    assert (await a.request({"t": "list_rooms"}))["rooms"] == []
    err = await a.request({"t": "join", "room": room})
    assert err["code"] == "no_such_room"
    assert [e["type"] for _, evs in await app.store.room_events(room) for e in evs][-1] == "room_closed"
    await a.close()


async def test_a_player_who_sits_out_too_long_is_stood_up_and_paid_back(make_app):
    """A seat whose player sits out for --sit-out-minutes is freed by the server: the
    player is told why, the chips are back in the wallet, and the lobby lists the seat free
    (a table walked away from does not stay full for good)."""
    app = await make_app(sit_out_minutes=0.005)  # 0.3 s
    a = await Client.connect(app.ws_url)
    wallet = (await a.hello("alice"))["wallet"]
    room = (await a.request({"t": "create_room", "game": "highcard", "options": {"seats": 2}}))["room"]
    await a.request({"t": "join", "room": room, "seat": 0, "buy_in": 500})
    await a.request({"t": "sit_out", "room": room})
    left = await a.expect("left", timeout=10, room=room)
    assert (left["seat"], left["pending"], left["stack"], left["wallet"], left["reason"]) == \
        (0, False, 500, wallet, "sat_out")
    event = await a.expect("event", timeout=10, room=room, event=lambda e: e["type"] == "left")
    assert event["event"]["reason"] == "sat_out"
    assert (await a.latest_room(room))["seats"][0] is None
    await asyncio.sleep(0.4)  # lobby batches
    [listed] = (await a.request({"t": "list_rooms"}))["rooms"]
    assert (listed["room"], listed["players"]) == (room, 0)
    await a.close()


async def test_a_player_alone_adds_a_bot_and_the_hand_is_dealt(make_app):
    app = await make_app()
    a = await Client.connect(app.ws_url)
    await a.hello("alice")
    room = (await a.request({"t": "create_room", "game": "highcard", "options": {"seats": 2}}))["room"]
    await a.request({"t": "join", "room": room, "seat": 0})
    snap = await a.request({"t": "add_bot", "room": room})
    assert snap["t"] == "room" and snap["seats"][1]["bot"] is True and snap["seats"][1]["name"] == "Bot Ada"
    await a.expect("event", timeout=10, room=room, event=lambda e: e["type"] == "hand_started")
    assert (await a.request({"t": "add_bot", "room": room}))["code"] == "room_full"
    b = await Client.connect(app.ws_url)
    await b.hello("bob")
    refused = await b.request({"t": "add_bot", "room": room})
    assert (refused["code"], refused["room"]) == ("not_seated", room)
    await a.close()
    await b.close()


async def test_the_code_alone_finds_its_private_room_and_guessing_is_cut_off(make_app):
    app = await make_app(empty_room_minutes=0.01)  # 0.6 s: a room nobody sits in closes
    a, b = await Client.connect(app.ws_url), await Client.connect(app.ws_url)
    await a.hello("alice")
    await b.hello("bob")
    private = await a.request({"t": "create_room", "game": "highcard", "options": {"seats": 2, "private": True}})
    room, code = private["room"], private["code"]
    await a.request({"t": "join", "room": room, "seat": 0, "code": code})
    found = await b.request({"t": "find_room", "code": f" {code.lower()} "})
    assert (found["t"], found["room"], found["game"], found["name"]) == ("room_found", room, "highcard", private["options"]["name"])
    assert (await b.request({"t": "join", "room": room, "code": code}))["your_seat"] == 1
    public = await a.request({"t": "create_room", "game": "highcard"})
    assert public["code"] is None
    closing = await a.request({"t": "create_room", "game": "highcard", "options": {"private": True}})
    await a.expect("event", timeout=10, room=closing["room"], event=lambda e: e["type"] == "room_closed")
    gone = await b.request({"t": "find_room", "code": closing["code"]})  # a closed room's code names nothing
    assert (gone["code"], gone["field"]) == ("bad_code", "code")
    for n in range(8):  # ten misses in all, then this connection is refused even the right code
        assert (await b.request({"t": "find_room", "code": f"ZZZZZZZ{n}"}))["code"] == "bad_code"
    assert (await b.request({"t": "find_room", "code": "ZZZZZZZZ"}))["code"] == "bad_code"
    assert (await b.request({"t": "find_room", "code": code}))["code"] == "rate_limited"
    c = await Client.connect(app.ws_url)
    await c.hello("carol")
    assert (await c.request({"t": "find_room", "code": code}))["room"] == room
    for x in (a, b, c):
        await x.close()


async def test_a_closed_rooms_data_expires_after_keep_closed_days(make_app):
    app = await make_app(empty_room_minutes=0.005, keep_closed_days=0.5 / 86_400)  # closes at 0.3 s, kept 0.5 s
    a = await Client.connect(app.ws_url)
    await a.hello("alice")
    room = (await a.request({"t": "create_room", "game": "highcard"}))["room"]
    await a.expect("event", timeout=10, room=room, event=lambda e: e["type"] == "room_closed")
    keys, redis = app.store.keys, app.store.redis
    for _ in range(50):  # kept for a while (its hand history)...
        if await redis.pttl(keys.room(room)) > 0:
            break
        await asyncio.sleep(0.05)
    assert 0 < await redis.pttl(keys.events(room)) <= 500
    await asyncio.sleep(0.7)  # ...then gone, and off the room list once the sweeper looks
    assert not await redis.exists(keys.room(room), keys.events(room))
    assert await app.store.forget_expired_rooms(app.clock()) in (0, 1)
    assert not await redis.sismember(keys.rooms, room)
    await a.close()


async def test_the_event_stream_keeps_history_entries_changes(make_app):
    app = await make_app(history_entries=100, rate=100_000.0, burst=100_000)
    a = await Client.connect(app.ws_url)
    await a.hello("alice")
    room = (await a.request({"t": "create_room", "game": "highcard", "options": {"seats": 2}}))["room"]
    for _ in range(300):  # sit down and stand up: two changes each
        await a.request({"t": "join", "room": room})
        await a.request({"t": "leave", "room": room})
    length = await app.store.redis.xlen(app.store.keys.events(room))
    assert 100 <= length < 400  # of 600: trimmed (approximately: Redis trims whole stream nodes)
    await a.close()


async def test_a_lobby_watcher_changing_its_filter_during_a_push_gets_a_list(app, connect):
    """A list_rooms with another game may arrive while the push awaits the room list
    (found by the fuzz soak: the push failed with a KeyError for the new filter)."""
    a = await connect("alice")
    await a.request({"t": "list_rooms", "watch": True})
    session = next(s for s in app.sessions if s.player_id == a.player)
    room_list = app.lobby.room_list
    real = room_list.message

    async def slow(game):
        session.watch_lobby = "highcard"  # changed while the push awaits
        return await real(game)

    room_list.message = slow
    a.drain()
    await room_list._push()
    assert (await a.expect("rooms"))["t"] == "rooms"


async def test_first_hand_players_holds_the_first_deal_until_they_are_all_seated(make_app):
    from server.games import GAMES

    app = await make_app(games=GAMES)
    clients = [await Client.connect(app.ws_url) for _ in range(3)]
    for i, c in enumerate(clients):
        await c.hello(f"p{i}")
    room = (await clients[0].request({"t": "create_room", "game": "holdem",
                                      "options": {"seats": 4, "first_hand_players": 3}}))["room"]
    await clients[0].request({"t": "join", "room": room})
    second = await clients[1].request({"t": "join", "room": room})
    await asyncio.sleep(0.3)
    assert not second["playing"] and app.directory.actors[room].table.hand is None  # two of three: waits
    await clients[2].request({"t": "join", "room": room})
    started = await clients[0].expect("event", timeout=5, event=lambda e: e["type"] == "hand_started")
    assert len(started["event"]["seats"]) == 3
    bad = await clients[0].request({"t": "create_room", "game": "holdem",
                                    "options": {"seats": 2, "first_hand_players": 3}})
    assert (bad["code"], bad["field"]) == ("bad_config", "first_hand_players")


async def test_the_sdk_finds_a_private_room_by_its_code_joins_it_and_adds_a_bot(make_app):
    from client_demo.sdk.client import CardroomClient

    app = await make_app()
    async with CardroomClient(app.ws_url, name="a") as a, CardroomClient(app.ws_url, name="b") as b:
        private = await a.request({"t": "create_room", "game": "highcard", "options": {"seats": 3, "private": True}})
        room = await b.find_room(private["code"].lower())
        assert room == private["room"]
        snap = await b.join(room)  # the code found with it is sent along
        assert snap["your_seat"] == 0
        snap = await b.add_bot(room)
        assert snap["seats"][0]["bot"] is False and snap["seats"][1]["bot"] is True


def test_a_game_plugin_serves_its_own_table_module_and_nothing_else(tmp_path):
    """``/games/<name>.js`` and ``/games/<name>/<file>`` come from the game's own folder
    (``Game.web``); everything else, and games without one, from the page's folder."""
    from server.edge.transport import game_file, static_file

    plugin = tmp_path / "plugin" / "web"
    plugin.mkdir(parents=True)
    (plugin / "cards.js").write_text("export default {}")
    (plugin / "cards.css").write_text("")
    (tmp_path / "plugin" / "secret.py").write_text("")
    folders = {"cards": plugin}
    assert game_file(folders, "/games/cards.js") == (plugin / "cards.js").resolve()
    assert game_file(folders, "/games/cards/cards.css") == (plugin / "cards.css").resolve()
    for other in ("/games/cards/../secret.py", "/games/cards/%2e%2e/secret.py", "/games/cards.css",
                  "/games/holdem.js", "/games/cards/", "/games/", "/cards.js", "/games/cards/nothing.js"):
        assert game_file(folders, other) is None, other
    page = tmp_path / "web"
    (page / "games").mkdir(parents=True)
    (page / "games" / "holdem.js").write_text("export default {}")
    assert static_file(page, "/games/holdem.js") == (page / "games" / "holdem.js").resolve()
