"""``cardroom simulate`` (engine only) and ``cardroom bots`` (real clients against a
live server, run as the real command in a subprocess)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from pathlib import Path

import pytest

from server.cli import main

ROOT = Path(__file__).resolve().parents[2]


def test_simulate_prints_a_results_table_per_seat(capsys):
    assert main(["simulate", "--game", "doudizhu", "--strategies", "smart,random,random",
                 "--games", "30", "--seed", "4"]) == 0
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert lines[0].split()[:3] == ["seat", "strategy", "games"]
    assert [line.split()[1] for line in lines[2:5]] == ["smart", "random", "random"]
    assert "30/30" in err  # the progress bar reached the end
    assert "seed 4" in err


@pytest.mark.parametrize("game,strategies", [("holdem", "smart,random,random"),
                                             ("zhajinhua", "smart,random"),
                                             ("doudizhu", "random,smart,smart")])
def test_simulate_is_reproducible_with_a_seed_and_chips_are_conserved(capsys, game, strategies):
    runs = []
    for _ in range(2):
        assert main(["simulate", "--game", game, "--strategies", strategies, "--games", "40",
                     "--seed", "9", "--json", "--quiet"]) == 0
        runs.append(json.loads(capsys.readouterr().out))
    assert runs[0] == runs[1]
    rows = runs[0]["rows"]
    assert [r["strategy"] for r in rows] == strategies.split(",")
    assert sum(r["chips"] for r in rows) == 0 and all(r["hands"] == 40 for r in rows)


def test_simulate_rejects_an_unknown_strategy(capsys):
    assert main(["simulate", "--game", "holdem", "--strategies", "smart,genius", "--games", "5"]) == 2
    assert "genius" in capsys.readouterr().err


async def run_cli(*args: str, timeout: float = 60) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "server.cli", *args, cwd=ROOT,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(ROOT)})
    out, err = await asyncio.wait_for(proc.communicate(), timeout)
    return proc.returncode, out.decode(), err.decode()


def summary_rows(out: str) -> list[dict[str, str]]:
    lines = [line.split() for line in out.splitlines() if line.strip()]
    header = lines[0]
    return [dict(zip(header, row, strict=True)) for row in lines[2:]]


@pytest.mark.parametrize("game", ["holdem", "zhajinhua", "doudizhu"])
async def test_cardroom_bots_plays_a_few_hands_against_a_live_server_and_stops(server, game):
    code, out, err = await run_cli(
        "bots", "--url", server.ws_url, "--game", game, "--count", "3", "--create", "--hands", "3",
        "--strategy", "smart", "--buy-in", "5000", "--seed", "1",
        "--option", "between_hands_seconds=0.05", "--config", "stake=1" if game == "doudizhu" else "ante=1"
        if game == "zhajinhua" else "big_blind=2", *(["--config", "small_blind=1"] if game == "holdem" else []))
    assert code == 0, err
    rows = summary_rows(out)
    assert [r["bot"] for r in rows] == ["bot1", "bot2", "bot3"]
    # every bot sat down before the first hand (the room waits for all three), and the room
    # played exactly the hands asked for (a bot that busted played fewer: the deal is random)
    hands = [int(r["hands"]) for r in rows]
    assert min(hands) >= 1 and max(hands) == 3, hands
    assert all(h == 3 or int(r["stack"]) == 0 for h, r in zip(hands, rows, strict=True)), rows
    assert all(int(r["rejected"]) == 0 for r in rows)
    assert sum(int(r["net"]) for r in rows) == 0
    assert "3/3" in err  # live progress reached the end
    assert "played the 3 hand(s) asked for" in err
    for line in err.splitlines():  # every progress line adds up: chips only move between the bots
        if "/3 " in line and "bot1:" in line:
            assert sum(int(x.split(":")[1]) for x in line.split() if x.startswith("bot")) == 0, line


async def test_cardroom_bots_joins_an_existing_room_by_id_and_reports_a_full_room(server):
    from client_demo.client import CardroomClient

    async with CardroomClient(server.ws_url, name="host") as host:
        room = (await host.create_room("zhajinhua", options={"seats": 2, "between_hands_seconds": 0.05}))["room"]
    code, out, err = await run_cli("bots", "--url", server.ws_url, "--room", room, "--count", "3",
                                   "--strategy", "random", "--hands", "2")
    assert code == 0, err
    rows = summary_rows(out)
    assert sorted(int(r["hands"]) >= 1 for r in rows) == [False, True, True]
    assert "room_full" in err  # the third bot found no seat; the other two played


async def test_ctrl_c_stops_the_bots_cleanly(server):
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "server.cli", "bots", "--url", server.ws_url, "--game", "doudizhu",
        "--count", "3", "--create", "--option", "between_hands_seconds=0.05", "--delay", "0.01",
        cwd=ROOT, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.stderr is not None
    line = b""
    while b"playing in room" not in line:
        line = await asyncio.wait_for(proc.stderr.readline(), 20)
    await asyncio.sleep(1.0)
    proc.send_signal(signal.SIGINT)
    out, err = await asyncio.wait_for(proc.communicate(), 30)
    assert proc.returncode == 0, err
    assert b"stopping" in err
    rows = summary_rows(out.decode())
    assert len(rows) == 3 and sum(int(r["net"]) for r in rows) == 0


async def test_cardroom_bots_says_clearly_when_no_server_answers(unused_tcp_port):
    code, out, err = await run_cli("bots", "--url", f"ws://127.0.0.1:{unused_tcp_port}/ws",
                                   "--game", "holdem", "--count", "1", "--create", "--hands", "1")
    assert code == 1 and "cannot reach" in err


async def test_cardroom_bots_stops_and_says_why_when_its_opponent_sits_out(server):
    from client_demo.client import CardroomClient

    async with CardroomClient(server.ws_url, name="human") as human:
        room = (await human.create_room("holdem", options={"seats": 2, "between_hands_seconds": 0.3}))["room"]
        await human.join(room)

        async def play_one_hand_then_sit_out() -> None:
            async for msg in human:
                if msg.get("t") == "event" and msg["event"]["type"] == "hand_ended":
                    await human.sit_out(room)  # keeps the seat, is dealt no more hands
                    return
                view = msg.get("view") if msg.get("t") == "room" else None
                if view and view.get("to_act") == msg.get("your_seat") and view.get("legal"):
                    action = {"type": "check"} if view["legal"]["check"] else {"type": "call"}
                    try:
                        await human.act(room, action)
                    except Exception:
                        pass

        humans_hand = asyncio.create_task(play_one_hand_then_sit_out())
        code, out, err = await run_cli("bots", "--url", server.ws_url, "--room", room, "--count", "1",
                                       "--strategy", "calling_station", "--hands", "20", timeout=40)
        await asyncio.wait_for(humans_hand, 5)
    assert code == 0, err
    assert "stopped after 1 of 20 hands: no further hand can start" in err
    assert "1 of 2 seated player(s) ready (1 sitting out)" in err
    assert [int(r["hands"]) for r in summary_rows(out)] == [1]


async def test_cardroom_bots_says_why_it_stops_early_when_bots_bust(server):
    code, out, err = await run_cli(
        "bots", "--url", server.ws_url, "--game", "holdem", "--count", "3", "--create", "--hands", "200",
        "--strategy", "random", "--seed", "5", "--buy-in", "6", "--option", "between_hands_seconds=0.05",
        "--config", "small_blind=1", "--config", "big_blind=2", timeout=60)
    assert code == 0, err
    rows = summary_rows(out)
    assert sum(1 for r in rows if int(r["stack"]) == 0) >= 2  # two bots lost everything
    assert sum(int(r["net"]) for r in rows) == 0
    last = err.strip().splitlines()[-1]
    assert last.startswith("stopped after ") and "of 200 hands: " in last, err
    assert "busted" in last and "a holdem hand needs 2" in last, last
