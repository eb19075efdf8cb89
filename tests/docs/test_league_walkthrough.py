"""docs/league.md's two walkthroughs work as written: the bots written with the SDK there
(``mybot.py`` with ``play_seat`` for the operator's league, with ``play_league`` for one
made over the protocol) play real leagues on a real server, and the standings list them."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
import textwrap
import time

import pytest

from client_demo.sdk.client import CardroomClient
from tests.fault.harness import ROOT, RedisProcess, ServerProcess
from tests.league.test_league import league as run_league

ENV = dict(os.environ, PYTHONPATH=str(ROOT))  # the doc's programs run from the repo root
DOC = (ROOT / "docs" / "league.md").read_text(encoding="utf-8")


def snippets(marker: str) -> list[str]:
    """The doc's Python code blocks that contain ``marker``, in order."""
    return [textwrap.dedent(b) for b in re.findall(r"```python\n(.*?)```", DOC, re.S) if marker in b]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("walkthrough")
    r = RedisProcess(tmp / "redis")
    r.start()
    s = ServerProcess(r.url, tmp / "server.log")
    s.start()
    yield r, s
    s.stop()
    r.stop()


def test_the_operator_walkthrough_bot_plays_its_league(server, tmp_path):
    r, s = server
    (bot,) = [b for b in snippets("# mybot.py") if "play_seat" in b]
    (tmp_path / "mybot.py").write_text(bot)

    def league(*args: str) -> str:
        return run_league(tmp_path, r, *args).stdout

    league("create", "friday", "--game", "holdem", "--hands", "3", "--action-seconds", "2")
    league("enter", "friday", "--entrant", "station", "--command", f"{sys.executable} {tmp_path / 'mybot.py'}")
    league("enter", "friday", "--entrant", "random", "--strategy", "random")
    league("run", "friday", "--url", s.ws_url)
    table = league("standings", "friday")
    assert re.search(r"station .* 1 +3 ", table) and re.search(r"random .* 1 +3 ", table), table
    logs = "".join(p.read_text() for p in (tmp_path / "leagues" / "friday" / "logs").rglob("*station.log"))
    assert logs.count("3 hand(s) in room") == 2, logs  # it played both mirrored rooms to the end


async def test_the_protocol_walkthrough_bots_play_a_league_the_servers_run(server, tmp_path):
    _r, s = server
    (owner_code,) = snippets('"league_create"')
    owner_code = owner_code.replace("ws://127.0.0.1:8765/ws", s.ws_url).replace('"hands": 100', '"hands": 3')
    (bot,) = [b for b in snippets("# mybot.py") if "play_league" in b]
    (tmp_path / "owner.py").write_text(owner_code)
    (tmp_path / "mybot.py").write_text(bot.replace("ws://127.0.0.1:8765/ws", s.ws_url))
    made = subprocess.run([sys.executable, str(tmp_path / "owner.py")], cwd=ROOT, capture_output=True, text=True,
                          timeout=60, env=ENV)
    assert made.returncode == 0, made.stderr
    token = re.search(r"owner token: (\S+)", made.stdout).group(1)
    station = subprocess.Popen([sys.executable, str(tmp_path / "mybot.py")], cwd=ROOT, env=ENV,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        async with CardroomClient(s.ws_url, token=token) as owner:  # step 4, as the owner
            deadline = time.monotonic() + 30
            while len((await owner.request({"t": "league", "name": "club"}))["entrants"]) < 2:
                assert time.monotonic() < deadline and station.poll() is None, "the bot did not enter"
                await asyncio.sleep(0.2)
            await owner.request({"t": "league_run", "name": "club", "rounds": 2})
            deadline = time.monotonic() + 90
            while (info := await owner.request({"t": "league", "name": "club"}))["run"] is not None:
                assert time.monotonic() < deadline, info["run"]
                await asyncio.sleep(0.5)
    finally:
        station.terminate()
        _, err = station.communicate(timeout=10)
    assert [m["round"] for m in info["matches"]] == [1, 2] and all(m["status"] == "done" for m in info["matches"])
    assert sorted(row["entrant"] for row in info["standings"]) == ["Station", "random"]
    assert next(row for row in info["standings"] if row["entrant"] == "Station")["hands"] == 6, err  # deals: 3 per match
