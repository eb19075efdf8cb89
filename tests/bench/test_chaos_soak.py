"""The chaos soak's own parts (bench/chaos/): the scheduler's limits, how a fault's
recovery is timed, and that its checks find what they look for. The soak itself runs in
``.ci/run`` (60 seconds) and by hand (README, "Reliability and security"): it is too long
for ``make test``."""

from __future__ import annotations

import asyncio
import random
import subprocess
import sys
import uuid
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from bench.chaos import checks
from bench.chaos.faults import KINDS, Chaos, Fault
from bench.chaos.players import Progress, SoakPlayer
from bench.chaos.report import Report
from server.games import GAMES
from server.store import pack
from tests.fault.fleet import open_room

ROOT = Path(__file__).resolve().parents[2]


def chaos(servers: int = 3) -> tuple[Chaos, Progress, list[str]]:
    progress = Progress()
    said: list[str] = []
    fake = [SimpleNamespace(name=f"server{i}") for i in range(servers)]
    c = Chaos(None, fake, progress, ["r1", "r2"], random.Random(1), 15.0, said.append)  # type: ignore[arg-type]
    return c, progress, said


def test_the_scheduler_leaves_a_server_up_and_breaks_redis_once_at_a_time() -> None:
    c, _, _ = chaos()
    assert all(c._allowed(k) for k in KINDS)
    c.busy |= {"server0"}
    assert c._allowed("server-kill") and not c._allowed("rolling-restart")
    c.busy |= {"server1"}  # two of three down: the third stays up
    assert not any(c._allowed(k) for k in ("server-kill", "server-pause", "rolling-restart"))
    assert c._allowed("client-cut") and c._allowed("primary-kill")
    c.busy.add("redis")
    assert not any(c._allowed(k) for k in ("primary-kill", "replica-kill", "primary-stall", "primary-cut"))
    c.busy -= {"server0", "server1"}
    assert c._allowed("server-kill") and not c._allowed("rolling-restart")  # no deploy while Redis is broken
    c.busy |= {"relay:server0", "relay:server1", "relay:server2"}
    assert not c._allowed("client-stall")
    c.kinds = ["client-cut"]
    c.busy.clear()
    assert {c._pick() for _ in range(20)} == {"client-cut"}


def test_a_fault_has_recovered_once_every_table_has_moved_after_it_was_undone() -> None:
    c, progress, said = chaos()
    fault = Fault("server-kill", "server1", 0.0)
    c.faults.append(fault)
    progress.saw("r1", 5)  # before it was undone: does not count
    c._undone(fault)
    assert not c.quiet()
    progress.saw("r1", 5)  # no change
    progress.saw("r1", 6)
    assert fault.resumed is None and fault.waiting == {"r2"}
    progress.saw("r2", 9)
    assert fault.resumed is not None and fault.resumed >= fault.ended
    assert c.quiet()
    assert "every table moving again" in said[-1]


def act_record(player: str, action_id: str) -> bytes:
    cmd = {"kind": "act", "origin": ["n-test", 1, 1, None, player, player], "action": {"type": "check"},
           "action_id": action_id}
    return pack(["act", cmd, 0, [], [], []])


async def test_an_applied_action_its_player_was_not_told_of_is_found(redis_url: str) -> None:
    from redis.asyncio import Redis

    from server.store.keys import Keys

    room = f"r-chaos-{uuid.uuid4().hex[:8]}"
    client = Redis.from_url(redis_url)
    try:
        stream = Keys("cardroom:").events(room)
        await client.xadd(stream, {"v": 1, "c": act_record("p1", "a1")})
        await client.xadd(stream, {"v": 2, "c": act_record("p2", "a2")})
        await client.xadd(stream, {"v": 3, "c": pack(["timeout", None, 0, [], [], []])})  # nobody's to tell
        ann = SimpleNamespace(player="p1", acks=[{"id": "a1", "version": 1}])
        bob = SimpleNamespace(player="p2", acks=[])
        rooms: Any = [SimpleNamespace(id=room, bots=[ann, bob])]
        assert await checks.applied_but_not_acknowledged(redis_url, rooms) == [
            f"{room} v2: p2's a2 applied, acknowledged never"]
        bob.acks = [{"id": "a2", "version": 4}]
        assert await checks.applied_but_not_acknowledged(redis_url, rooms) == [
            f"{room} v2: p2's a2 applied, acknowledged at v4"]
        assert await checks.lost_versions(redis_url, rooms) == {room: {4}}  # acknowledged, not stored
        bob.acks = [{"id": "a2", "version": 2}]
        assert await checks.applied_but_not_acknowledged(redis_url, rooms) == []
        assert await checks.lost_versions(redis_url, rooms) == {room: set()}
    finally:
        await client.aclose()


async def test_a_player_takes_its_seat_back_from_auto_play(make_app) -> None:
    """The server hands a seat whose player was away to auto-play until the player takes
    it back (docs/protocol.md, ``auto_play``); a soak player must, or its seat is freed
    after ``--sit-out-minutes`` and its table stops (a 30-minute soak lost 50 seats so)."""
    app = await make_app(games=GAMES)
    SoakPlayer.progress = Progress()
    room = await open_room([app.ws_url], "back", "holdem", 2, {"action_seconds": 60}, player=SoakPlayer)
    ann, bob = room.bots
    tasks = [asyncio.create_task(b.play()) for b in room.bots]
    try:
        other = await type(ann.client).connect(app.ws_url)  # ann's second device
        assert (await other.hello(token=ann.token))["t"] == "welcome"
        reply = await other.request({"t": "auto_play", "room": room.id, "on": True})
        assert reply["t"] == "room" and reply["seats"][0]["auto"] == "asked", reply
        for _ in range(200):
            if ann.took_back and ann.latest and ann.latest["seats"][0]["auto"] is None:
                break
            await asyncio.sleep(0.05)
        assert ann.took_back >= 1 and ann.latest["seats"][0]["auto"] is None, ann.state()
        acks = len(ann.acks)
        for _ in range(600):  # and plays on (a person's pace: 30 s allows for a loaded CI machine)
            if len(ann.acks) > acks:
                break
            await asyncio.sleep(0.05)
        assert len(ann.acks) > acks, ann.state()
        await other.close()
    finally:
        for b in room.bots:
            b.stop.set()
        await asyncio.wait(tasks, timeout=30)
        for t in tasks:
            t.cancel()


def test_the_report_names_a_failed_check_and_the_result() -> None:
    fault = Fault("client-stall", "server0's players", 10.0, ended=12.0, resumed=13.5)
    report = Report(1, "a test", [fault], [])
    report.check("chips exact", True, "grants 10 = wallets 5 + tables 5")
    report.check("no process left", False, "pid 42: redis-server")
    text = report.render()
    assert "| players' connections to a server stalled (`client-stall`) | 1 | 2.0 / 2.0 | 1.5 / 1.5 / 1.5 |" in text
    assert "| no process left | **FAILED** | pid 42: redis-server |" in text
    assert text.endswith("RESULT: 1 check(s) failed: no process left")
    assert report.failed


@pytest.mark.parametrize("args, says", [
    (["--faults", "server-kill,unplug"], "unknown kind(s) unplug"),
    (["--players", "3"], "6 or more players"),
    (["--seconds", "0"], "a positive length"),
])
def test_a_bad_command_line_is_refused_before_anything_starts(args: list[str], says: str) -> None:
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "chaos_soak.py"), *args], capture_output=True,
                          text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 2 and says in done.stderr, done.stderr
