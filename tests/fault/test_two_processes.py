"""Two ``cardroom serve`` processes on one Redis: one lobby, one room, players on both."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from .harness import (
    Player,
    RedisProcess,
    ServerProcess,
    free_port,
    lease_holder,
    wait_for,
    wait_port,
)

pytestmark = pytest.mark.slow


@pytest.fixture
def redis(tmp_path):
    """The Redis the README's "Scaling out" commands start: ``cardroom redis``."""
    port = free_port()
    proc = subprocess.Popen([str(Path(sys.executable).parent / "cardroom"), "redis", "--port", str(port),
                             "--data-dir", str(tmp_path / "data-redis")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    r = RedisProcess(tmp_path / "data-redis", port=port)
    r.proc = proc
    wait_port(port)
    yield r
    proc.terminate()
    assert proc.wait(10) == 0  # redis-server itself (exec'd) shuts down cleanly on SIGTERM


@pytest.fixture
def two(tmp_path, redis):
    servers = [ServerProcess(redis.url, tmp_path / f"server{i}.log", "--room-idle-seconds", "2")
               for i in range(2)]
    for s in servers:
        s.start()
    yield servers
    for s in servers:
        s.stop()


def metric(server: ServerProcess, line_start: str) -> float:
    text = urllib.request.urlopen(server.http_url + "metrics", timeout=5).read().decode()
    values = [float(line.split()[-1]) for line in text.splitlines() if line.startswith(line_start)]
    return sum(values)


async def latest(p: Player, room: str, **match) -> dict:
    return await p.client.expect("room", timeout=10, room=room, **match)


async def test_players_on_two_processes_share_one_lobby_one_room_and_presence(two, redis):
    a_proc, b_proc = two
    alice = Player("alice", "highcard", [s.ws_url for s in two], home=0)
    bob = Player("bob", "highcard", [s.ws_url for s in two], home=1)
    await alice.connect()
    await bob.connect()
    room = (await alice.request({"t": "create_room", "game": "holdem", "options": {"seats": 2},
                                 "config": {"small_blind": 1, "big_blind": 2}}))["room"]
    assert await lease_holder(redis.url, room) == a_proc.node
    await alice.request({"t": "join", "room": room, "buy_in": 500})

    # bob's process lists the room created on alice's (the list follows a room's changes
    # within a fraction of a second), and watching it counts everywhere
    for _ in range(100):
        listed = {r["room"]: r for r in (await bob.request({"t": "list_rooms"}))["rooms"]}
        if listed[room]["players"] == 1:
            break
        await asyncio.sleep(0.1)
    assert listed[room]["players"] == 1 and listed[room]["spectators"] == 0
    spectator = Player("carol", "highcard", [s.ws_url for s in two], home=1)
    await spectator.connect()
    await spectator.request({"t": "spectate", "room": room})
    for _ in range(100):  # counted on the spectator's process, summed on alice's
        listed = {r["room"]: r for r in (await alice.request({"t": "list_rooms"}))["rooms"]}
        if listed[room]["spectators"] == 1:
            break
        await asyncio.sleep(0.1)
    assert listed[room]["spectators"] == 1

    # bob's requests travel to the owner and come back with the same codes and answers
    joined = await bob.request({"t": "join", "room": room, "buy_in": 500})
    assert joined["t"] == "room" and joined["your_seat"] == 1
    again = await bob.request({"t": "join", "room": room})
    assert again["code"] == "already_seated" and again["room"] == room
    seen = await latest(alice, room, seats=lambda s: s[1] is not None and s[1]["connected"])
    assert seen["seats"][1]["player"] == bob.player
    assert metric(b_proc, "cardroom_forwarded_commands_total") >= 2
    assert metric(b_proc, "cardroom_rooms{") == 0  # bob's process owns nothing

    # a hand played from both processes
    snap = await latest(bob, room, playing=True)
    for _ in range(20):
        if not snap["playing"]:
            break
        to_act = snap["view"]["to_act"]
        p = (alice, bob)[to_act]
        mine = await p.request({"t": "spectate", "room": room})
        while mine["version"] < snap["version"]:  # each process shows changes in order, not
            await asyncio.sleep(0.05)              # at the same instant as the others
            mine = await p.request({"t": "spectate", "room": room})
        legal = mine["view"]["legal"]
        ack = await p.request({"t": "act", "room": room, "id": f"v{mine['version']}",
                               "action": {"type": "check"} if legal["check"] else {"type": "call"}})
        assert ack["t"] == "ack", ack
        snap = await latest(spectator, room, version=lambda v, want=ack["version"]: v >= want)
    assert snap["hand_no"] >= 1

    # presence is shared: bob goes away from process B, alice on A sees it, then he is back on A
    await bob.client.close()
    gone = await latest(alice, room, seats=lambda s: s[1] is not None and not s[1]["connected"])
    assert gone["seats"][1]["player"] == bob.player
    bob.home = 0
    await bob.connect()
    assert bob.welcome["seats"] == [{"room": room, "game": "holdem", "seat": 1}]
    await latest(spectator, room, seats=lambda s: s[1] is not None and s[1]["connected"])


async def test_an_unused_room_is_let_go_and_taken_by_whoever_needs_it_next(two, redis):
    a_proc, b_proc = two
    alice = Player("alice", "highcard", [s.ws_url for s in two], home=0)
    await alice.connect()
    room = (await alice.request({"t": "create_room", "game": "holdem", "options": {"seats": 2}}))["room"]
    assert await lease_holder(redis.url, room) == a_proc.node
    # nobody plays: after --room-idle-seconds 2 the owner gives the lease back
    for _ in range(100):
        if await lease_holder(redis.url, room) is None:
            break
        await asyncio.sleep(0.1)
    assert await lease_holder(redis.url, room) is None
    assert metric(a_proc, "cardroom_rooms{") == 0
    bob = Player("bob", "highcard", [s.ws_url for s in two], home=1)
    await bob.connect()
    joined = await bob.request({"t": "join", "room": room})
    assert joined["your_seat"] == 0
    assert await lease_holder(redis.url, room) == b_proc.node  # taken by the process that needed it
    await wait_for(lambda: metric(b_proc, "cardroom_rooms{") == 1, 5, "the gauge")


async def test_a_quick_match_burst_over_two_processes_fills_one_table_at_a_time(two):
    """Players on both processes ask at once: the bucket's Redis lock serializes them
    across processes, so the tables fill one after the other."""
    players = [Player(f"q{i}", "zhajinhua", [s.ws_url for s in two], home=i % 2) for i in range(12)]
    for p in players:
        await p.connect()
    replies = await asyncio.gather(*[p.client.request({"t": "quick_match", "game": "zhajinhua", "seats": 4,
                                                       "stake": 5}, timeout=30) for p in players])
    assert all(r["t"] == "room" for r in replies), [r for r in replies if r["t"] != "room"]
    per_room: dict[str, set[int]] = {}
    for r in replies:
        per_room.setdefault(r["room"], set()).add(r["your_seat"])
    assert sorted(len(s) for s in per_room.values()) == [4, 4, 4], per_room
