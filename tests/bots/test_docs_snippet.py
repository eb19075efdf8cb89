"""The complete bot shown in docs/bots.md (and the README) runs as written against a
live server (only the URL and the number of hands are changed)."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from client_demo.bot import StrategyBot, play
from client_demo.client import CardroomClient

DOC = Path(__file__).resolve().parents[2] / "docs" / "bots.md"


def snippet() -> str:
    text = DOC.read_text(encoding="utf-8")
    section = text.split("## A complete bot", 1)[1]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_the_snippet_is_a_complete_bot_of_about_fifteen_lines():
    code = snippet()
    assert "class " in code and "def decide" in code and "asyncio.run(play(" in code
    assert len([line for line in code.splitlines() if line.strip()]) <= 17


async def test_the_snippet_plays_against_a_live_server(server):
    code = snippet().replace("ws://127.0.0.1:8765/ws", server.ws_url).replace("hands=20", "hands=1")
    namespace: dict = {"__name__": "snippet"}
    runner = asyncio.create_task(asyncio.to_thread(exec, code, namespace))
    async with CardroomClient(server.ws_url, name="lookout") as lookout:
        rooms: list = []
        while not rooms:
            await asyncio.sleep(0.05)
            rooms = (await lookout.list_rooms(game="holdem"))["rooms"]
    opponent = await play(StrategyBot("holdem", "random", seed=2), server.ws_url, name="opponent",
                          room=rooms[0]["room"], hands=1)
    await asyncio.wait_for(runner, 30)
    assert opponent.hands == 1 and namespace["stats"].hands == 1
    assert namespace["stats"].net + opponent.net == 0


def test_the_readme_shows_the_same_bot():
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    assert snippet() in readme
