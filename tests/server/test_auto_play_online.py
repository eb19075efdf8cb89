"""Auto-play and the time bank over the wire (issue #28 items 13 and 15): the seat flag and
the bank every viewer sees, the request and its answer, and a closed browser handed to
auto-play once it has stayed closed. Real Redis, real sockets."""

from __future__ import annotations

import asyncio

from server.games import GAMES
from server.room import shuffled_deck

from .test_play import seated_pair
from .wsclient import Client


async def alice_and_bob(app) -> tuple[Client, Client]:
    a = await Client.connect(app.ws_url)
    await a.hello("alice")
    b = await Client.connect(app.ws_url)
    await b.hello("bob")
    return a, b


async def test_auto_play_is_asked_for_taken_back_and_shown_to_every_viewer(connect):
    a, b, room = await seated_pair(connect, action_seconds=30)
    watcher = await connect("carol")
    await watcher.request({"t": "spectate", "room": room})
    on = await b.request({"t": "auto_play", "room": room, "on": True})
    assert on["t"] == "room" and on["seats"][1]["auto"] == "asked" and on["seats"][0]["auto"] is None
    ev = await watcher.expect("event", room=room, event=lambda e: e["type"] == "auto_play")
    assert ev["event"] == {"type": "auto_play", "seat": 1, "on": True, "reason": "asked"}
    assert (await watcher.latest_room(room))["seats"][1]["auto"] == "asked"
    # bob was to act: his turn is played at once, nobody waits for his 30 s clock
    await a.expect("event", room=room, event=lambda e: e.get("seat") == 1 and e["type"] in ("fold", "check"))
    off = await b.request({"t": "auto_play", "room": room, "on": False})
    assert off["seats"][1]["auto"] is None
    assert (await watcher.latest_room(room))["seats"][1]["auto"] is None
    bad = await b.request({"t": "auto_play", "room": room, "on": "yes"})
    assert bad["t"] == "error" and bad["code"] == "bad_message"
    not_seated = await watcher.request({"t": "auto_play", "room": room, "on": True})
    assert not_seated["code"] == "not_seated"


async def test_a_closed_browser_is_auto_played_once_it_stays_closed_and_a_reload_is_not(make_app):
    app = await make_app(disconnect_auto_play_seconds=0.5)
    a, b = await alice_and_bob(app)
    token = a.token
    room = (await a.request({"t": "create_room", "game": "highcard", "options": {"seats": 2}}))["room"]
    await a.request({"t": "join", "room": room, "seat": 0, "buy_in": 500})
    await b.request({"t": "join", "room": room, "seat": 1, "buy_in": 500})
    await a.close()  # a reload: back well within the grace
    a = await Client.connect(app.ws_url)
    await a.request({"t": "hello", "name": "alice", "token": token})
    await asyncio.sleep(1.0)
    assert (await b.latest_room(room))["seats"][0]["auto"] is None
    await a.close()  # gone for good
    ev = await b.expect("event", room=room, timeout=5, event=lambda e: e["type"] == "auto_play")
    assert ev["event"] == {"type": "auto_play", "seat": 0, "on": True, "reason": "disconnected"}
    snap = await b.latest_room(room)
    assert snap["seats"][0]["auto"] == "disconnected" and not snap["seats"][0]["connected"]
    await b.close()


async def test_the_time_bank_is_on_every_seat_and_in_the_timer_while_it_runs(make_app):
    app = await make_app(games=GAMES, deck=shuffled_deck)
    a, b = await alice_and_bob(app)
    made = await a.request({"t": "create_room", "game": "holdem",
                            "options": {"seats": 2, "action_seconds": 0.3, "time_bank_seconds": 0.5}})
    assert made["options"]["time_bank_seconds"] == 0.5
    room = made["room"]
    await a.request({"t": "join", "room": room, "seat": 0, "buy_in": 500})
    await b.request({"t": "join", "room": room, "seat": 1, "buy_in": 500})
    snap = await a.expect("room", room=room, playing=True)
    assert [s["time_bank_ms"] for s in snap["seats"]] == [500, 500] and "bank_since_ms" not in snap["timer"]
    to_act = snap["timer"]["seat"]
    bank = await a.expect("event", room=room, event=lambda e: e["type"] == "time_bank")
    assert bank["event"] == {"type": "time_bank", "seat": to_act, "bank_ms": 500}
    out = await a.expect("event", room=room, event=lambda e: e["type"] == "timed_out")
    assert out["event"]["seat"] == to_act and out["version"] == bank["version"] + 1
    snap = await a.latest_room(room)
    assert snap["seats"][to_act]["time_bank_ms"] == 0 and snap["seats"][1 - to_act]["time_bank_ms"] == 500
    bad = await a.request({"t": "create_room", "game": "holdem", "options": {"time_bank_seconds": 601}})
    assert bad["t"] == "error" and bad["field"] == "time_bank_seconds"
    await a.close()
    await b.close()
