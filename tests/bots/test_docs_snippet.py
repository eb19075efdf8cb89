"""The complete bot shown in docs/bots.md (and the README) runs as written against a
live server (only the URL, the number of hands and the pauses are changed): it needs
nobody else, since it creates its table with a server-side bot seat."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from client_demo.sdk.bot import Bot, play
from client_demo.sdk.client import CardroomClient

DOC = Path(__file__).resolve().parents[2] / "docs" / "bots.md"


def snippet() -> str:
    text = DOC.read_text(encoding="utf-8")
    section = text.split("## A complete bot", 1)[1]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_the_snippet_is_a_complete_bot_of_about_fifteen_lines():
    code = snippet()
    assert "class " in code and "def decide" in code and "asyncio.run(play(" in code
    assert len([line for line in code.splitlines() if line.strip()]) <= 17


async def test_the_snippet_plays_alone_against_a_live_server(server, capsys):
    code = (snippet().replace("ws://127.0.0.1:8765/ws", server.ws_url).replace("hands=20", "hands=2")
            .replace('"between_hands_seconds": 1', '"between_hands_seconds": 0.05, "bot_delay_seconds": 0'))
    assert code != snippet()
    namespace: dict = {"__name__": "snippet"}
    # nobody else joins: the table's server-side bot is the opponent
    await asyncio.wait_for(asyncio.to_thread(exec, code, namespace), 60)
    stats = namespace["stats"]
    assert stats.rejected == 0
    assert stats.hands == 2 or (stats.hands == 1 and stats.stack == 0)  # or it busted in hand 1 (random deal)
    out, err = capsys.readouterr()
    assert f"{stats.hands} hands, net {stats.net:+d} chips" in out
    assert "station: seat 0 in room" in err and f"after {stats.hands} hand(s)" in err
    async with CardroomClient(server.ws_url, name="lookout") as lookout:
        snap = await lookout.spectate(stats.room)
    assert [bool(s and s["bot"]) for s in snap["seats"]] == [False, True]  # it left its seat


class Checker(Bot):
    def decide(self, view, legal):
        return {"type": "check"} if legal["check"] else {"type": "call"}


async def test_a_bot_alone_at_a_table_says_what_it_waits_for(server):
    lines: list[str] = []
    stop = asyncio.Event()

    def log(line: str) -> None:
        lines.append(line)
        if "waiting for players" in line:
            stop.set()

    stats = await asyncio.wait_for(
        play(Checker(), server.ws_url, name="lonely", game="holdem", create=True,
             options={"seats": 2}, hands=1, stop=stop, log=log), 20)
    assert stats.hands == 0
    assert any("lonely: waiting for players: 1 of 1 seated player(s) ready; a holdem hand needs 2" in line
               for line in lines), lines
    assert "stopped" in lines[-1]


def test_the_readme_shows_the_same_bot():
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    assert snippet() in readme
