"""Crash recovery: SIGKILL the real server mid-hand, restart it on the same data dir,
resume with the tokens and finish the hand. Nothing acknowledged is lost, no chip is
created or destroyed, and the killed server leaves no orphan Redis behind."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from redis.asyncio import Redis

from server.redis_embedded import EmbeddedRedis
from server.store import Store
from tests.server.wsclient import Client

pytestmark = pytest.mark.each_redis  # restarted on its append-only file: run on each binary

ROOT = Path(__file__).resolve().parents[2]
URL_LINE = re.compile(rb"open (http://127\.0\.0\.1:(\d+)/)")


class ServerProcess:
    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self.proc: subprocess.Popen[bytes] | None = None
        self.port: int | None = None

    def start(self) -> None:
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        env.pop("REDIS_URL", None)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "server", "--port", "0", "--data-dir", str(self.data_dir), "--log-level", "WARNING"],
            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 30
        seen = b""
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                raise AssertionError(f"server exited: {seen.decode(errors='replace')}")
            seen += line
            m = URL_LINE.search(line)
            if m:
                self.port = int(m.group(2))
                return
        raise AssertionError(f"server did not start: {seen.decode(errors='replace')}")

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def kill9(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def terminate(self) -> int:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(20)


def redis_pid(data_dir: Path) -> int:
    return int((data_dir / "redis" / "redis.pid").read_text().strip())


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is dead for our purposes
        return "Z" not in Path(f"/proc/{pid}/stat").read_text().split()[2]
    except OSError:
        return False


async def chip_totals(data_dir: Path) -> dict[str, int]:
    r = Redis.from_url(EmbeddedRedis(data_dir).url)
    try:
        return await Store(r).chip_audit()
    finally:
        await r.aclose()


def strip(snapshot: dict[str, Any]) -> dict[str, Any]:
    """A snapshot without what legitimately differs across a restart (presence, ref)."""
    out = {k: v for k, v in snapshot.items() if k != "ref"}
    out["seats"] = [None if s is None else {k: v for k, v in s.items() if k != "connected"} for s in out["seats"]]
    return out


async def act(c: Client, room: str, view: dict[str, Any], n: int) -> dict[str, Any]:
    legal = view["legal"]
    action = {"type": "check"} if legal.get("check") else {"type": "call"}
    ack = await c.request({"t": "act", "room": room, "action": action, "id": f"a{n}"})
    assert ack["t"] == "ack", ack
    return dict(ack, action=action)


async def snapshot_at(c: Client, room: str, version: int) -> dict[str, Any]:
    return await c.expect("room", timeout=10, room=room, version=version)


@pytest.mark.slow
async def test_sigkill_mid_hand_then_restart_resumes_the_last_acknowledged_state(tmp_path):
    data = tmp_path / "data"
    server = ServerProcess(data)
    server.start()
    try:
        alice = await Client.connect(server.ws_url)
        bob = await Client.connect(server.ws_url, "cardroom.msgpack")
        await alice.hello("alice")
        await bob.hello("bob")
        room = (await alice.request({
            "t": "create_room", "game": "holdem",
            "options": {"seats": 2, "action_seconds": 600, "between_hands_seconds": 600},
            "config": {"small_blind": 5, "big_blind": 10},
        }))["room"]
        await alice.request({"t": "join", "room": room, "buy_in": 1000})
        await bob.request({"t": "join", "room": room, "buy_in": 1000})
        players = {0: alice, 1: bob}
        snap = await alice.expect("room", room=room, playing=True)
        # play preflop (call, check) and the first flop action: part of a hand
        for n in range(3):
            seat = snap["view"]["to_act"]
            c = players[seat]
            mine = await c.request({"t": "spectate", "room": room})
            ack = await act(c, room, mine["view"], n)
            last_actor, last_action = seat, ack.pop("action")
            snap = await snapshot_at(alice, room, ack["version"])
        assert snap["view"]["street"] == "flop" and snap["playing"]
        last_alice = strip(snap)
        last_bob = strip(await snapshot_at(bob, room, ack["version"]))
        before = await chip_totals(data)
        assert before["grants"] == before["wallets"] + before["tables"] == 20_000
        old_redis = redis_pid(data)
        await alice.ws.close()
        await bob.ws.close()

        server.kill9()
        for _ in range(100):  # the embedded Redis follows its parent down
            if not alive(old_redis):
                break
            await asyncio.sleep(0.05)
        assert not alive(old_redis), "the killed server left its Redis running"

        server.start()
        alice2 = await Client.connect(server.ws_url)
        bob2 = await Client.connect(server.ws_url, "cardroom.msgpack")
        wa = await alice2.hello(token=alice.token)
        wb = await bob2.hello(token=bob.token)
        assert wa["seats"] == [{"room": room, "game": "holdem", "seat": 0}]
        assert wb["wallet"] == 9_000
        after_alice = strip(await alice2.expect("room", room=room))
        after_bob = strip(await bob2.expect("room", room=room))
        assert after_alice == last_alice
        assert after_bob == last_bob
        assert await chip_totals(data) == before

        # the last action, resent after the crash, gets its original ack and is not applied again
        dup = await {0: alice2, 1: bob2}[last_actor].request(
            {"t": "act", "room": room, "action": last_action, "id": "a2"})
        assert dup["t"] == "ack" and dup["version"] == ack["version"]
        assert strip(await alice2.request({"t": "spectate", "room": room})) == last_alice

        # finish the hand
        players2 = {0: alice2, 1: bob2}
        view_seat = last_alice["view"]["to_act"]
        n = 10
        while True:
            mine = await players2[view_seat].request({"t": "spectate", "room": room})
            if not mine["playing"]:
                break
            ack2 = await act(players2[view_seat], room, mine["view"], n)
            n += 1
            latest = await snapshot_at(alice2, room, ack2["version"])
            if not latest["playing"]:
                break
            view_seat = latest["view"]["to_act"]
        ended = await alice2.expect("event", timeout=10, event=lambda e: e["type"] == "hand_ended")
        assert sum(ended["event"]["stacks"]) == 2000
        assert await chip_totals(data) == before
        await alice2.close()
        await bob2.close()
        assert server.terminate() == 0
    finally:
        if server.proc is not None and server.proc.poll() is None:
            server.proc.kill()
            server.proc.wait()
