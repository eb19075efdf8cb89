"""Leduc Hold'em (``examples/leduc``), a game shipped as a package of its own, installed and
played through a real ``cardroom serve``: by people through the Python SDK, against a
server-side bot seat, in a league of its own strategies and by ``cardroom loadtest``; no file of ``engine/``,
``server/`` or ``client_demo/`` names it. Its hands are stored, told by ``cardroom
history`` in its own words and proved fair by ``cardroom verify``."""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from client_demo.sdk.client import CardroomClient, ServerError
from tests.fault.harness import ServerProcess
from tests.plugins import cardroom, install_leduc

HANDS = 3


async def _play(url: str, name: str, room: str | None, hands: int) -> tuple[str, list[dict[str, Any]]]:
    """Sit at a quick-match Leduc table (or ``room``) and call or check until ``hands``
    hands have ended; the events seen."""
    seen: list[dict[str, Any]] = []
    async with CardroomClient(url, name=name) as client:
        snap = await client.quick_match("leduc", buy_in=40)
        assert room is None or snap["room"] == room
        room = snap["room"]
        ended = 0
        async for msg in client:
            if msg.get("t") == "event" and msg.get("room") == room:
                seen.append(msg["event"])
                ended += msg["event"]["type"] == "hand_ended"
                if ended >= hands:
                    break
            if msg.get("t") == "room" and msg.get("room") == room:
                legal = (msg.get("view") or {}).get("legal")
                if legal and msg["view"]["to_act"] == msg.get("your_seat"):
                    await client.act(room, {"type": "check" if legal["check"] else "call"})
    return room, seen


async def _against_a_bot_seat(url: str) -> None:
    """A room with a server-side bot seat (the plugin's ``smart``): it plays a hand against
    a person who only checks or calls, after an action of a shape the game does not declare
    (refused by cardroom as ``bad_message`` naming the field, nothing changed)."""
    async with CardroomClient(url, name="dave") as client:
        room = (await client.create_room("leduc", options={"bots": 1, "bot_delay_seconds": 0}))["room"]
        await client.join(room, buy_in=40)
        malformed = {"type": "shove"}
        async for msg in client:
            if msg.get("t") == "event" and msg["event"]["type"] == "hand_ended":
                assert malformed is None, "no turn came to try the malformed action"
                return
            if msg.get("t") == "room" and msg.get("room") == room:
                legal = (msg.get("view") or {}).get("legal")
                if legal and msg["view"]["to_act"] == msg.get("your_seat"):
                    if malformed is not None:
                        with pytest.raises(ServerError) as refused:
                            await client.act(room, malformed)
                        assert (refused.value.code, refused.value.field) == ("bad_message", "action.type")
                        assert "one of call, check, fold, raise" in str(refused.value)
                        malformed = None
                    await client.act(room, {"type": "check" if legal["check"] else "call"})


def _league(path: str, tmp_path: Path, url: str, redis_url: str, prefix: str
            ) -> subprocess.CompletedProcess[str]:
    """A league of the plugin's two strategies, run on the server: its standings."""
    where = ["--dir", str(tmp_path / "leagues")]
    store = ["--redis-url", redis_url, "--prefix", prefix]
    for argv in (["create", "leduc-cup", "--game", "leduc", "--hands", "4", "--action-seconds", "5", *where],
                 ["enter", "leduc-cup", "--entrant", "smart", "--strategy", "smart", *where, *store],
                 ["enter", "leduc-cup", "--entrant", "random", "--strategy", "random", *where, *store],
                 ["run", "leduc-cup", "--url", url, *where, *store]):
        done = cardroom(path, "league", *argv)
        assert done.returncode == 0, (argv, done.stdout, done.stderr)
    return cardroom(path, "league", "standings", "leduc-cup", *where)


async def test_leduc_installed_from_its_own_package_is_played_through_a_real_server(tmp_path: Path, redis_url, prefix):
    path = install_leduc(tmp_path / "site")
    server = ServerProcess(redis_url, tmp_path / "server.log", "--key-prefix", prefix, "--grant", "1000",
                           env={"PYTHONPATH": path})
    await server.astart()
    try:
        async with CardroomClient(server.ws_url, name="carol") as lister:
            games = {g["game"]: g for g in (await lister.list_rooms())["games"]}
        assert games["leduc"]["title"] == "Leduc Hold'em" and games["leduc"]["max_players"] == 2
        first = asyncio.create_task(_play(server.ws_url, "alice", None, HANDS))
        await asyncio.sleep(0.5)  # alice opens the quick table, bob sits at it
        room, bob_saw = await _play(server.ws_url, "bob", None, HANDS)
        room_a, alice_saw = await first
        assert room_a == room
        assert [e["type"] for e in alice_saw].count("hand_started") >= HANDS
        for saw in (alice_saw, bob_saw):  # each saw its own card dealt, never the other's
            deals = [e for e in saw if e["type"] == "deal"]
            assert deals and sum("cards" in e for e in deals) == len(deals) // 2
        await _against_a_bot_seat(server.ws_url)
        league = _league(path, tmp_path, server.ws_url, redis_url, prefix)
        assert league.returncode == 0, league.stdout + league.stderr
        assert "smart" in league.stdout and "random" in league.stdout and "antes/hand" in league.stdout, league.stdout
        assert await server.terminate() == 0
    finally:
        server.stop()
    store = ["--redis-url", redis_url, "--prefix", prefix]
    simulated = cardroom(path, "simulate", "--game", "leduc", "--games", "300", "--seed", "5", "--json", "--quiet")
    assert simulated.returncode == 0, simulated.stderr
    rows = json.loads(simulated.stdout)["rows"]
    assert [r["strategy"] for r in rows] == ["smart", "random"] and sum(r["chips"] for r in rows) == 0
    assert rows[0]["unit"] == "antes/hand" and rows[0]["per_unit"] > 0  # smart beats random
    loaded = cardroom(path, "loadtest", "--game", "leduc", "--rooms", "2", "--seconds", "2", "--progress", "100")
    assert loaded.returncode == 0 and "errors                      none" in loaded.stdout, loaded.stdout + loaded.stderr
    told = cardroom(path, "history", "--room", room, "--hand", "1", *store)
    assert told.returncode == 0, told.stderr
    assert "antes 1" in told.stdout and "is dealt" in told.stdout, told.stdout
    for hand in range(1, HANDS + 1):
        verdict = cardroom(path, "verify", "--room", room, "--hand", str(hand), *store)
        assert verdict.returncode == 0 and "✔ verified" in verdict.stdout, verdict.stdout + verdict.stderr
