"""The operator's acts over the admin HTTP API and ``cardroom admin``, on real servers
sharing one Redis: closing rooms, removing seats, muting, banning (across processes),
wallet corrections, the audit log; chips exact through each, bad requests refused."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request

import pytest

from server.cli import main

from .test_moderation import waiting_room
from .test_play import seated_pair
from .wsclient import Client

TOKEN = "operator-token-0123456789"


def base(app) -> str:
    return app.ws_url.replace("ws://", "http://").rsplit("/ws", 1)[0]


async def admin_call(url: str, method: str, path: str, token: str | None = TOKEN) -> tuple[int, dict]:
    """``method`` on ``<url>/admin/api/<path>`` as an operator's tool sends it: the status
    and the JSON answer."""
    def go() -> tuple[int, dict]:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        request = urllib.request.Request(f"{url.rstrip('/')}/admin/api/{path}", method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=15) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read())
    return await asyncio.to_thread(go)


async def call(app, method: str, path: str, token: str | None = TOKEN) -> tuple[int, dict]:
    return await admin_call(base(app), method, path, token)


async def chips_exact(app) -> None:
    audit = await app.store.chip_audit()
    assert audit["grants"] == audit["wallets"] + audit["tables"] + audit["pending"], audit


@pytest.fixture
async def admin_app(make_app):
    return await make_app(admin_token=TOKEN)


@pytest.fixture
async def aconnect(admin_app):
    clients: list[Client] = []

    async def open_client(name: str | None = None, target=None) -> Client:
        c = await Client.connect((target or admin_app).ws_url)
        clients.append(c)
        if name is not None:
            assert (await c.hello(name))["t"] == "welcome"
        return c

    yield open_client
    for c in clients:
        await c.close()


async def test_the_api_needs_the_token_and_says_what_is_wrong(admin_app, make_app):
    assert (await call(admin_app, "GET", "rooms", token=None))[0] == 401
    assert (await call(admin_app, "GET", "rooms", token="wrong-token-0123456789"))[0] == 401
    status, body = await call(admin_app, "GET", "rooms/r-x/close")
    assert status == 405 and body["error"] == "bad_request"
    assert (await call(admin_app, "GET", "nothing/here"))[0] == 404
    status, body = await call(admin_app, "POST", "players/p-nobody/mute?minutes=abc")
    assert (status, body["error"]) == (400, "bad_request") and "minutes" in body["message"]
    status, body = await call(admin_app, "POST", "players/p-nobody/ban")
    assert (status, body["error"]) == (404, "no_such_player")
    plain = await make_app()  # no --admin-token: no API
    def get() -> int:
        try:
            urllib.request.urlopen(f"{base(plain)}/admin/api/rooms", timeout=5)
        except urllib.error.HTTPError as exc:
            return exc.code
        return 200
    assert await asyncio.to_thread(get) == 404


async def test_closing_a_room_between_hands_pays_every_seat_out(admin_app, aconnect):
    a, b, room = await waiting_room(aconnect)
    status, body = await call(admin_app, "POST", f"rooms/{room}/close?reason=broken+table")
    assert (status, body) == (200, {"ok": True, "room": room, "pending": False})
    for c, stack in ((a, 300), (b, 400)):
        left = await c.expect("left", room=room)
        assert (left["reason"], left["stack"], left["wallet"]) == ("closed", stack, 10_000)
    c = await aconnect("carol")
    assert (await c.request({"t": "join", "room": room}))["code"] == "no_such_room"
    status, body = await call(admin_app, "GET", "audit?count=5")
    assert [(e["act"], e["target"], e["by"], e["reason"]) for e in body["audit"]][:1] == [
        ("close_room", room, "operator", "broken table")]
    await chips_exact(admin_app)


async def test_closing_a_room_during_a_hand_waits_for_its_end(admin_app, aconnect):
    a, b, room = await seated_pair(aconnect, action_seconds=0.3, between_hands_seconds=60)
    await a.expect("room", room=room, playing=True)
    status, body = await call(admin_app, "POST", f"rooms/{room}/close")
    assert (status, body["pending"]) == (200, True)
    await a.expect("event", room=room, event=lambda e: e["type"] == "closing")
    left = await a.expect("left", room=room, timeout=10)  # the clock plays the hand out, then it closes
    assert left["reason"] == "closed"
    await b.expect("left", room=room)
    closed = await a.expect("event", room=room, event=lambda e: e["type"] == "room_closed")
    assert closed["event"]["reason"] == "operator"
    await chips_exact(admin_app)


async def test_an_operator_removes_any_seat_mutes_and_adjusts_wallets(admin_app, aconnect):
    a, b, room = await waiting_room(aconnect)
    status, _ = await call(admin_app, "POST", f"rooms/{room}/seats/0/remove?reason=afk")  # the creator's own seat
    assert status == 200
    assert (await a.expect("left", room=room))["reason"] == "removed"
    status, body = await call(admin_app, "POST", f"rooms/{room}/seats/0/remove")
    assert (status, body["error"]) == (409, "seat_empty")

    status, body = await call(admin_app, "POST", f"players/{b.player}/mute?minutes=5&reason=spam")
    assert status == 200 and body["muted_until"] > 0
    refused = await b.request({"t": "say", "room": room, "text": "hello?"})
    assert (refused["code"], refused["until_ms"]) == ("muted", body["muted_until"])
    await call(admin_app, "POST", f"players/{b.player}/unmute")
    assert (await b.request({"t": "say", "room": room, "text": "hello!"}))["t"] == "said"

    status, body = await call(admin_app, "POST", f"players/{a.player}/wallet?amount=500&reason=league+prize")
    assert (status, body["wallet"]) == (200, 10_500)
    pushed = await a.expect("wallet")
    assert (pushed["wallet"], pushed["change"], pushed["reason"]) == (10_500, 500, "league prize")
    status, body = await call(admin_app, "POST", f"players/{a.player}/wallet?amount=-20000&reason=oops")
    assert (status, body["error"]) == (409, "insufficient_funds")
    status, body = await call(admin_app, "POST", f"players/{a.player}/wallet?amount=-500")
    assert (status, body["error"]) == (400, "bad_request")  # a reason is required
    await chips_exact(admin_app)
    status, body = await call(admin_app, "GET", "players?name=ALI")
    assert [(p["name"], p["wallet"]) for p in body["players"]] == [("alice", 10_500)]


async def seated_on_two_processes(make_app, **second_settings):
    """Two processes with the admin API; alice (on the first, which owns the room) in seat 0
    with 100 chips, bob (on the second) in seat 1 with 250, of a three-seat table whose
    first hand waits for a third player."""
    first = await make_app(admin_token=TOKEN)
    second = await make_app(admin_token=TOKEN, **second_settings)
    a = await Client.connect(first.ws_url)
    await a.hello("alice")
    b = await Client.connect(second.ws_url)  # bob lives on the other process
    await b.hello("bob")
    room = (await a.request({"t": "create_room", "game": "highcard",
                             "options": {"seats": 3, "first_hand_players": 3}}))["room"]
    await a.request({"t": "join", "room": room, "seat": 0, "buy_in": 100})
    assert (await b.request({"t": "join", "room": room, "seat": 1, "buy_in": 250}))["t"] == "room"
    return first, second, a, b, room


async def test_a_ban_on_one_process_closes_the_player_on_the_other_and_frees_its_seat(make_app):
    first, second, a, b, room = await seated_on_two_processes(make_app)
    status, body = await call(first, "POST", f"players/{b.player}/ban?reason=cheating")
    assert (status, body["rooms"]) == (200, [room])
    assert (await b.expect("banned"))["reason"] == "cheating"
    await asyncio.wait_for(b.ws.wait_closed(), 5)
    assert b.ws.close_code == 1008
    again = await Client.connect(second.ws_url)
    refused = await again.hello(token=b.token)
    assert refused["code"] == "banned"
    seat = await a.expect("event", room=room, event=lambda e: e["type"] == "left")
    assert (seat["event"]["player"], seat["event"]["stack"]) == (b.player, 250)
    await call(second, "POST", f"players/{b.player}/unban")
    assert (await again.hello(token=b.token))["wallet"] == 10_000
    await chips_exact(first)
    for c in (a, again):
        await c.close()


async def test_a_ban_says_which_seats_it_could_not_leave_and_banning_again_leaves_them(
        make_app, capsys, monkeypatch):
    """The room's process does not answer the ban's leave in time (three tries): the
    answer names the room with ``unavailable`` (``cardroom admin ban`` says so and exits
    1); once it answers, a second ban leaves it."""
    first, second, a, b, room = await seated_on_two_processes(make_app, forward_timeout=0.3)
    hears = first.directory.on_inbox
    first.directory.on_inbox = lambda m: None if m.get("k") == "cmd" else hears(m)  # deaf to requests

    status, body = await call(second, "POST", f"players/{b.player}/ban?reason=cheating")
    assert (status, body["rooms"], body["not_left"]) == (200, [], {room: "unavailable"})
    monkeypatch.setenv("CARDROOM_ADMIN_TOKEN", TOKEN)
    capsys.readouterr()
    assert await asyncio.to_thread(main, ["admin", "--url", base(second), "ban", b.player]) == 1
    out, err = capsys.readouterr()
    assert out.strip() == f"done: player {b.player}, rooms []"
    assert err.strip() == f"cardroom admin ban: the seat in {room} was not freed (unavailable): ban again to retry"
    assert [s.player for s in first.directory.actors[room].core.table.seats[:2]] == [a.player, b.player]
    first.directory.on_inbox = hears
    status, body = await call(second, "POST", f"players/{b.player}/ban?reason=cheating")
    assert (status, body["rooms"], "not_left" in body) == (200, [room], False)
    seat = await a.expect("event", room=room, event=lambda e: e["type"] == "left")
    assert (seat["event"]["player"], seat["event"]["stack"]) == (b.player, 250)
    audit = (await call(first, "GET", "audit"))[1]["audit"]
    assert [(e["act"], e["detail"]) for e in audit][:3] == [
        ("ban", {"rooms": [room]}), *[("ban", {"rooms": [], "not_left": {room: "unavailable"}})] * 2]
    await chips_exact(first)
    await a.close()


async def test_a_join_the_ban_overtook_is_refused_and_its_chips_stay(admin_app, aconnect):
    """The ban's flag is set while the player's join is on its way: the buy-in is refused
    with the chips (the ban's leave, made before, found no seat to leave)."""
    a = await aconnect("alice")
    b = await aconnect("bob")
    room = (await a.request({"t": "create_room", "game": "highcard", "options": {"seats": 3}}))["room"]
    await admin_app.store.set_player_flag(b.player, "banned", "cheating")  # the ban, before b's join lands
    refused = await b.request({"t": "join", "room": room, "buy_in": 250})
    assert (refused["t"], refused["code"]) == ("error", "banned")
    status, body = await call(admin_app, "GET", "players?name=bob")
    assert [(p["wallet"], p["banned"]) for p in body["players"]] == [(10_000, "cheating")]
    assert [s.player for s in admin_app.directory.actors[room].core.table.seats if s] == []
    await chips_exact(admin_app)


async def test_the_admin_command_acts_through_the_api(admin_app, aconnect, capsys, monkeypatch):
    a = await aconnect("alice")
    monkeypatch.setenv("CARDROOM_ADMIN_TOKEN", TOKEN)
    url = base(admin_app)

    def run(*argv: str) -> int:
        return main(["admin", "--url", url, *argv])

    assert await asyncio.to_thread(run, "credit", a.player, "250", "--reason", "welcome gift") == 0
    assert capsys.readouterr().out.strip() == f"done: player {a.player}, wallet 10250"
    assert await asyncio.to_thread(run, "debit", a.player, "99999", "--reason", "x") == 1
    assert capsys.readouterr().err.strip().startswith("cardroom admin debit: insufficient_funds:")
    assert await asyncio.to_thread(run, "players", "ali") == 0
    assert capsys.readouterr().out.strip() == f"{a.player}  alice                wallet 10250"
    assert await asyncio.to_thread(run, "--json", "audit", "--count", "1") == 0
    entry = json.loads(capsys.readouterr().out)["audit"][0]
    assert (entry["act"], entry["target"], entry["reason"], entry["detail"]) == (
        "wallet", a.player, "welcome gift", {"amount": 250, "wallet": 10_250})
    monkeypatch.delenv("CARDROOM_ADMIN_TOKEN")
    assert await asyncio.to_thread(run, "rooms") == 2  # no token


async def test_the_creators_acts_are_in_the_audit_log_too(admin_app, aconnect):
    a, b, room = await waiting_room(aconnect)
    await a.request({"t": "lock", "room": room, "locked": True})
    await a.request({"t": "remove_seat", "room": room, "seat": 1})
    await b.expect("left", room=room)
    for _ in range(50):
        status, body = await call(admin_app, "GET", "audit?count=2")
        if len(body["audit"]) == 2:
            break
        await asyncio.sleep(0.05)
    assert [(e["act"], e["target"], e["by"]) for e in body["audit"]] == [
        ("remove_seat", room, f"creator {a.player} (alice)"), ("lock", room, f"creator {a.player} (alice)")]
    assert body["audit"][0]["detail"] == {"seat": 1, "player": b.player, "stack": 400}


async def test_one_room_shows_its_seats_private_or_not(admin_app, aconnect):
    a, b = await aconnect("alice"), await aconnect("bob")
    made = await a.request({"t": "create_room", "game": "highcard",
                            "options": {"seats": 3, "first_hand_players": 3, "private": True}})
    room, code = made["room"], made["code"]
    for c, seat, buy_in in ((a, 0, 300), (b, 1, 400)):
        assert (await c.request({"t": "join", "room": room, "seat": seat, "buy_in": buy_in, "code": code}))["t"] == "room"
    status, body = await call(admin_app, "GET", f"rooms/{room}")
    assert status == 200 and body["private"] is True and body["creator"] == a.player
    assert [s and (s["seat"], s["name"], s["stack"]) for s in body["seats"]] == [(0, "alice", 300), (1, "bob", 400), None]
    assert (await call(admin_app, "GET", "rooms/r-none"))[0] == 404
