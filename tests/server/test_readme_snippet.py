"""The two-player snippet in the README really plays a hand against a server."""

from __future__ import annotations

import re
from pathlib import Path

from server.games import GAMES
from server.room import shuffled_deck

DOC = Path(__file__).resolve().parents[2] / "README.md"


def snippet() -> str:
    text = DOC.read_text()
    m = re.search(r"<!-- snippet: two-players -->\n```python\n(.*?)```", text, re.S)
    assert m, "snippet marker missing from README.md"
    return m.group(1)


async def test_the_documented_two_player_snippet_plays_a_hand(make_app, capsys):
    app = await make_app(games=GAMES, deck=shuffled_deck)
    code = snippet().replace('URL = "ws://127.0.0.1:8765/ws"', f'URL = "{app.ws_url}"')
    code = code.replace("asyncio.run(main())", "")
    namespace: dict = {}
    exec(compile(code, str(DOC), "exec"), namespace)
    await namespace["main"]()
    out = capsys.readouterr().out
    assert "alice wallet 10000" in out and "final stacks" in out
    assert "alice left the table" in out and "bob left the table" in out
    # each player acted itself: the server never had to (an action id used twice, as when
    # the snippet kept the version of the join's snapshot, is answered as a resend, and
    # the turn clock then played the hand)
    assert "sees timed_out" not in out and "sees action" in out
    totals = await app.store.chip_audit()
    assert totals["grants"] == totals["wallets"] + totals["tables"] + totals["pending"] == 20_000
    assert totals["tables"] == 0  # both stood up: no chips left locked at the table
