"""The security defaults at the edge (server/edge/gate.py): origins, per-address limits,
connections that never say hello or go silent, operator-only /metrics and /admin."""

from __future__ import annotations

import asyncio
import re
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from server.config import Settings
from server.edge.gate import Gate

from .wsclient import Client

ROOT = Path(__file__).resolve().parents[2]


def get(url: str, token: str | None = None) -> tuple[int, str]:
    req = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"} if token else {})
    try:
        with urllib.request.urlopen(req, timeout=5) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def test_the_origin_rules():
    gate = Gate(Settings(allowed_origins="https://play.example.com, https://other.example"))
    assert gate.origin_allowed(None, "cards.example.com")  # a bot or script: no Origin
    assert gate.origin_allowed("https://cards.example.com", "cards.example.com")  # the server's own page
    assert gate.origin_allowed("http://127.0.0.1:8765", "127.0.0.1:8765")
    assert gate.origin_allowed("https://play.example.com", "cards.example.com")  # allowed explicitly
    assert not gate.origin_allowed("https://evil.example", "cards.example.com")
    assert not gate.origin_allowed("https://cards.example.com.evil.example", "cards.example.com")
    assert Gate(Settings(allowed_origins="*")).origin_allowed("https://anything.example", "h")


def test_addresses_limits_and_the_loopback_exemption():
    gate = Gate(Settings(new_players_per_minute=2, forwarded_for=True))
    assert gate.client_address("127.0.0.1", "203.0.113.9, 198.51.100.7") == "198.51.100.7"  # the proxy's entry
    assert Gate(Settings()).client_address("127.0.0.1", "203.0.113.9") == "127.0.0.1"  # not trusted by default
    assert gate.new_player("198.51.100.7", 0) and gate.new_player("198.51.100.7", 1)
    assert not gate.new_player("198.51.100.7", 2)
    assert gate.new_player("198.51.100.7", 60.5)  # the window slid past the first
    assert all(gate.new_player("127.0.0.1", t) for t in range(10))  # loopback: exempt by default


async def test_a_page_from_another_site_cannot_connect(make_app):
    app = await make_app()
    with pytest.raises(InvalidStatus) as info:
        await connect(app.ws_url, subprotocols=["cardroom.json"], origin="https://evil.example")
    assert info.value.response.status_code == 403
    own = await connect(app.ws_url, subprotocols=["cardroom.json"], origin=f"http://127.0.0.1:{app.port}")
    await own.close()


async def test_per_address_limits_on_connections_players_and_rooms(make_app):
    app = await make_app(limit_loopback=True, max_connections_per_ip=3, new_players_per_minute=2,
                         new_rooms_per_minute=1)
    clients = [await Client.connect(app.ws_url) for _ in range(3)]
    with pytest.raises(InvalidStatus) as info:
        await Client.connect(app.ws_url)
    assert info.value.response.status_code == 429
    a, b, c = clients
    assert (await a.hello("a"))["t"] == "welcome"
    assert (await b.hello("b"))["t"] == "welcome"
    refused = await c.hello("c")
    assert refused["code"] == "rate_limited"
    assert (await c.hello(token=a.token))["t"] == "welcome"  # resuming is not creating
    assert (await a.request({"t": "create_room", "game": "highcard"}))["t"] == "room"
    assert (await b.request({"t": "create_room", "game": "highcard"}))["code"] == "rate_limited"
    await a.close()
    await asyncio.sleep(0.2)
    again = await Client.connect(app.ws_url)  # a closed connection frees its place
    await again.close()
    for x in (b, c):
        await x.close()


async def test_connections_that_never_say_hello_or_go_silent_are_closed(make_app):
    app = await make_app(hello_timeout=1, idle_timeout=2)
    mute = await Client.connect(app.ws_url)
    got = []
    with pytest.raises(ConnectionClosed) as info:
        while True:
            got.append(await mute.expect(None, timeout=10))
    assert info.value.rcvd.code == 1008
    assert [m.get("code") for m in got] == ["not_authenticated"]  # told why, then closed
    quiet = await Client.connect(app.ws_url)
    await quiet.hello("quiet")
    with pytest.raises(ConnectionClosed) as info:
        while True:
            await quiet.expect(None, timeout=10)
    assert info.value.rcvd.code == 1000 and info.value.rcvd.reason == "idle"


async def test_metrics_and_admin_are_for_operators(make_app):
    open_app = await make_app()
    assert (await asyncio.to_thread(get, open_app.url + "metrics"))[0] == 200  # loopback, no token set
    assert (await asyncio.to_thread(get, open_app.url + "admin"))[0] == 404  # no token: no admin page
    token = "t" * 24
    app = await make_app(admin_token=token)
    c = await Client.connect(app.ws_url)
    await c.hello("alice")
    room = (await c.request({"t": "create_room", "game": "highcard", "options": {"name": "Big table"}}))["room"]
    assert (await asyncio.to_thread(get, app.url + "metrics"))[0] == 401
    assert (await asyncio.to_thread(get, app.url + "metrics", "wrong" * 5))[0] == 401
    status, body = await asyncio.to_thread(get, app.url + "metrics", token)
    assert status == 200 and "cardroom_connections" in body
    status, body = await asyncio.to_thread(get, app.url + "admin", token)
    assert status == 200 and room in body and "Big table" in body and app.node_id in body
    await c.request({"t": "lock", "room": room, "locked": True})  # an act the audit log keeps
    for _ in range(50):
        status, body = await asyncio.to_thread(get, app.url + "admin", token)
        if "Last moderation acts" in body and f"creator {c.player}" in body:
            break
        await asyncio.sleep(0.05)
    assert f"<td>lock</td><td>{room}</td>" in body and 'href="/admin/console"' in body
    await c.close()


def test_the_admin_token_counts_only_as_a_bearer_credential():
    token = "t" * 24
    gate = Gate(Settings(admin_token=token))
    assert gate.operator(f"Bearer {token}", "203.0.113.9")
    assert gate.operator(f"bearer  {token} ", "203.0.113.9")  # the scheme is case-insensitive
    assert not gate.operator(token, "127.0.0.1")  # the token alone, without its scheme
    assert not gate.operator(f"Basic {token}", "127.0.0.1")
    assert not gate.operator(f"Bearer{token}", "127.0.0.1")
    assert not gate.operator(None, "127.0.0.1")


def test_nothing_a_client_sends_is_unpickled_evaluated_or_imported():
    # the builtins, not methods (Redis pipelines have an .eval() that runs a Lua script)
    pattern = re.compile(r"\bpickle\b|(?<![.\w])eval\(|(?<![.\w])exec\(|__import__\(|import_module\(|marshal\.loads")
    found = [f"{p.relative_to(ROOT)}:{i}: {line.strip()}"
             for d in ("server", "engine", "client_demo")
             for p in (ROOT / d).rglob("*.py")
             for i, line in enumerate(p.read_text().splitlines(), 1) if pattern.search(line)]
    assert found == []
