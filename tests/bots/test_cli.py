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


async def run_cli(*args: str, timeout: float = 60, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "server.cli", *args, cwd=ROOT,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})})
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
    from client_demo.sdk.client import CardroomClient

    async with CardroomClient(server.ws_url, name="host") as host:
        room = (await host.create_room("zhajinhua", options={"seats": 2, "between_hands_seconds": 0.05}))["room"]
    code, out, err = await run_cli("bots", "--url", server.ws_url, "--room", room, "--count", "3",
                                   "--strategy", "random", "--hands", "2")
    assert code == 0, err
    rows = summary_rows(out)
    assert sorted(int(r["hands"]) >= 1 for r in rows) == [False, True, True]
    assert "room_full" in err  # the third bot found no seat; the other two played


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["ctrl_c", "sigterm"])
async def test_ctrl_c_or_sigterm_stops_the_bots_cleanly(server, sig):
    """Either signal: the bots leave their seats (the chips go back, so the results sum
    to zero), the summary is printed, exit status 0."""
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
    proc.send_signal(sig)
    out, err = await asyncio.wait_for(proc.communicate(), 30)
    assert proc.returncode == 0, err
    assert b"stopping" in err
    rows = summary_rows(out.decode())
    assert len(rows) == 3 and sum(int(r["net"]) for r in rows) == 0


async def test_cardroom_bots_says_clearly_when_no_server_answers(unused_tcp_port):
    code, out, err = await run_cli("bots", "--url", f"ws://127.0.0.1:{unused_tcp_port}/ws",
                                   "--game", "holdem", "--count", "1", "--create", "--hands", "1")
    assert code == 1 and "cannot reach" in err


async def test_without_url_the_bots_go_to_the_port_the_server_was_given(unused_tcp_port):
    """No ``--url``: the local server on ``$CARDROOM_PORT`` (the port ``cardroom serve``
    and ``make run`` take from it), not a fixed 8765."""
    code, out, err = await run_cli("bots", "--game", "holdem", "--count", "1", "--create", "--hands", "1",
                                   env={"CARDROOM_PORT": str(unused_tcp_port)})
    assert code == 1 and f"cannot reach ws://127.0.0.1:{unused_tcp_port}/ws" in err, err


async def test_cardroom_bots_stops_and_says_why_when_its_opponent_sits_out(server):
    from client_demo.sdk.client import CardroomClient

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


async def test_a_lone_bot_at_a_new_table_says_what_it_waits_for_and_stops_on_ctrl_c(server):
    """``--count 1 --create``: one bot cannot start a hand alone; it says so at once
    (rather than waiting in silence) and how to start one, and Ctrl-C still stops it."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "server.cli", "bots", "--url", server.ws_url, "--game", "holdem",
        "--count", "1", "--create", "--hands", "1",
        cwd=ROOT, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.stderr is not None
    lines = [(await asyncio.wait_for(proc.stderr.readline(), 20)).decode().strip()]
    while not lines[-1].startswith("waiting for players"):
        lines.append((await asyncio.wait_for(proc.stderr.readline(), 20)).decode().strip())
    room = lines[0].split(" in room ")[1].split()[0]
    assert lines == [f"1 smart bot(s) playing in room {room} at {server.ws_url}",
                     f"waiting for players: 1 of 1 seated player(s) ready; a holdem hand needs 2; "
                     f"1 free seat(s) in room {room} for other players (or run --count 2, or "
                     f"--option bots=1 for server-side bots); Ctrl-C stops"]
    proc.send_signal(signal.SIGINT)
    out, err = await asyncio.wait_for(proc.communicate(), 30)
    assert proc.returncode == 0, err
    assert [(r["bot"], r["hands"]) for r in summary_rows(out.decode())] == [("bot1", "0")]


async def test_a_lone_bot_with_a_server_side_opponent_plays(server):
    code, out, err = await run_cli(
        "bots", "--url", server.ws_url, "--game", "holdem", "--count", "1", "--create", "--hands", "2",
        "--option", '{"bots": 1, "bot_delay_seconds": 0, "between_hands_seconds": 0.05}')
    assert code == 0, err
    assert "waiting for players" not in err
    # two hands, unless one of them busted a seat (an all-in between smart bots; about one
    # run in fifteen): then the bots stop after it and say so
    hands = [r["hands"] for r in summary_rows(out)]
    assert hands == ["2"] or (hands == ["1"] and "busted; no further hand could start" in err), (out, err)


async def test_too_few_bots_for_a_private_room_are_refused_before_connecting(unused_tcp_port):
    # nothing listens on the port: the refusal comes before any connection (exit 2, not 1)
    code, out, err = await run_cli("bots", "--url", f"ws://127.0.0.1:{unused_tcp_port}/ws", "--game",
                                   "doudizhu", "--count", "2", "--create", "--option", "private=true")
    assert (code, out) == (2, "")
    assert err == ("cardroom bots: a doudizhu hand needs 3 players and nobody else can join a private "
                   "room: use --count 3, or --option bots=N for server-side bots\n")


async def test_a_strategy_the_game_lacks_is_refused_before_any_room_is_created(server):
    from client_demo.sdk.client import CardroomClient

    code, out, err = await run_cli("bots", "--url", server.ws_url, "--game", "doudizhu",
                                   "--strategy", "calling_station", "--create")
    assert (code, out) == (2, "")
    assert err == "cardroom bots: no strategy 'calling_station' for doudizhu (its strategies: random, smart)\n"
    async with CardroomClient(server.ws_url, name="look") as client:
        assert (await client.list_rooms(game="doudizhu"))["rooms"] == []  # no room left behind


def test_simulate_refuses_a_strategy_the_game_lacks_naming_the_games_strategies(capsys):
    assert main(["simulate", "--game", "doudizhu", "--strategies", "smart,calling_station,random",
                 "--games", "5"]) == 2
    assert capsys.readouterr() == ("", "cardroom simulate: no strategy 'calling_station' for doudizhu "
                                       "(its strategies: random, smart)\n")


@pytest.mark.parametrize("url,expected", [
    ("ws://127.0.0.1:8765/ws", "ws://127.0.0.1:8765/ws"),
    ("wss://cards.example/ws", "wss://cards.example/ws"),
    ("http://127.0.0.1:8765/", "ws://127.0.0.1:8765/ws"),
    ("http://127.0.0.1:8765", "ws://127.0.0.1:8765/ws"),
    ("HTTPS://cards.example/", "wss://cards.example/ws"),
    ("https://cards.example/ws", "wss://cards.example/ws"),
])
def test_the_page_address_is_taken_as_its_websocket_url(url, expected):
    from client_demo.tools.bots_cli import websocket_url

    assert websocket_url(url) == expected


async def test_cardroom_bots_plays_at_the_page_address_with_a_json_config(server):
    page = server.ws_url.replace("ws://", "http://").removesuffix("ws")  # http://127.0.0.1:PORT/
    code, out, err = await run_cli(
        "bots", "--url", page, "--game", "holdem", "--count", "2", "--create", "--hands", "1",
        "--config", '{"small_blind": 1, "big_blind": 2}', "--option", "between_hands_seconds=0.05")
    assert code == 0, err
    assert f"at {server.ws_url}\n" in err
    rows = summary_rows(out)
    # blinds 1/2 (not the default 50/100): a hand of check/call/fold moves a few chips
    assert [r["hands"] for r in rows] == ["1", "1"] and sum(int(r["net"]) for r in rows) == 0
    from client_demo.sdk.client import CardroomClient

    async with CardroomClient(server.ws_url, name="look") as client:
        (room,) = (await client.list_rooms(game="holdem"))["rooms"]
    assert room["config"]["big_blind"] == 2 and room["config"]["small_blind"] == 1


@pytest.mark.parametrize("url,message", [
    ("127.0.0.1:8765", "cardroom bots: --url must be a ws://, wss://, http:// or https:// URL such as "
                       "ws://127.0.0.1:8765/ws, got '127.0.0.1:8765'"),
    ("ftp://127.0.0.1/", "cardroom bots: --url must be a ws://, wss://, http:// or https:// URL such as "
                         "ws://127.0.0.1:8765/ws, got 'ftp://127.0.0.1/'"),
    ("ws:///ws", "cardroom bots: --url names no host, got 'ws:///ws'"),
    ("ws://127.0.0.1:99999/ws", "cardroom bots: --url 'ws://127.0.0.1:99999/ws': Port out of range 0-65535"),
])
def test_a_url_that_is_no_websocket_address_gets_one_line_and_status_2(url, message, capsys):
    assert main(["bots", "--url", url, "--game", "holdem", "--count", "1"]) == 2
    assert capsys.readouterr() == ("", message + "\n")


async def test_a_websocket_url_with_the_wrong_path_gets_one_line_and_status_1(server):
    root = server.ws_url.removesuffix("ws")  # ws://127.0.0.1:PORT/: the page, not the WebSocket
    code, out, err = await run_cli("bots", "--url", root, "--game", "holdem", "--count", "1")
    assert (code, out) == (1, "")
    assert err == (f"cardroom bots: {root} is no cardroom WebSocket: server rejected WebSocket connection: "
                   f"HTTP 200 (a cardroom server's is at /ws: ws://HOST:PORT/ws)\n")


def test_simulate_takes_the_config_as_json_or_as_key_value_pairs_alike(capsys):
    runs = []
    for config in (["--config", '{"small_blind": 5, "big_blind": 10}'],
                   ["--config", "small_blind=5", "--config", "big_blind=10"]):
        assert main(["simulate", "--game", "holdem", "--games", "20", "--seed", "3", "--json", "--quiet",
                     *config]) == 0
        runs.append(json.loads(capsys.readouterr().out))
    assert runs[0] == runs[1]
    assert main(["simulate", "--game", "holdem", "--games", "20", "--seed", "3", "--json", "--quiet"]) == 0
    assert json.loads(capsys.readouterr().out) != runs[0]  # the blinds were applied


@pytest.mark.parametrize("command", [["simulate", "--game", "holdem"], ["bots", "--game", "holdem"],
                                     ["league", "create", "x", "--game", "holdem"]])
def test_every_config_flag_refuses_a_value_of_neither_form_in_one_line(command, capsys, tmp_path):
    extra = ["--dir", str(tmp_path)] if command[0] == "league" else []
    assert main([*command, *extra, "--config", "big_blind"]) == 2
    out, err = capsys.readouterr()
    assert (out, err) == ("", f"cardroom {command[0]}: --config: expected KEY=VALUE or a JSON object, "
                              f"got 'big_blind'\n")


def test_league_create_takes_the_config_as_key_value_pairs_too(tmp_path, capsys):
    assert main(["league", "create", "friday", "--dir", str(tmp_path), "--game", "holdem",
                 "--config", "small_blind=10", "--config", "big_blind=20"]) == 0
    saved = json.loads((tmp_path / "friday" / "league.json").read_text())
    assert saved["config"] == {"small_blind": 10, "big_blind": 20, "ante": 0}
