"""Games are found through the entry point group ``cardroom.games`` (engine/registry.py):
the three built-in games come that way, and a game of another installed package is hosted
by ``cardroom serve`` with no file of the server changed for it: listed, played, its deals
provably fair and verified, its quick matches and leagues counted in its own stakes."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from engine.fairness import commitment
from engine.registry import GROUP
from server.games import GAMES
from server.records.verify import verify_hand
from tests.fault.harness import ServerProcess
from tests.plugins import cardroom, install

from .wsclient import Client

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]

#: a package of its own: the tests' High Card game, with its dealing rule and stakes
PLUGIN = '''
from dataclasses import replace

from engine.game import Stakes
from highcard_rules import GAME as RULES

GAME = replace(
    RULES,
    dealt=lambda state: [[c] if c is not None else [] for c in state.cards],
    layout=lambda deck, order: {"hands": {s: [deck[i]] for i, s in enumerate(order)}},
    stakes=Stakes(field="ante", quick_seats=3, quick_stake=5, league_stack=50, unit="antes/hand"),
)
'''


def highcard_package(where: Path) -> Path:
    return install(where, f"[{GROUP}]\nhighcard = highcard_plugin:GAME\n",
                   {"highcard_rules": (HERE / "highcard.py").read_text(), "highcard_plugin": PLUGIN})


def test_the_built_in_games_are_entry_points_too():
    assert list(GAMES) == ["holdem", "zhajinhua", "doudizhu"]  # the fewest players first, then by name
    assert all(g.stakes is not None and g.layout is not None for g in GAMES.values())
    # what the lobby's games tell a client (the page words auto-play from it)
    assert [(g.describe()["stake_field"], g.describe()["auto_play"]) for g in GAMES.values()] == [
        ("big_blind", "check_or_fold"), ("ante", "check_or_fold"), ("stake", "bot")]


@pytest.mark.parametrize("entries,modules,message", [
    ("highcard = highcard_plugin:NOPE", {"highcard_plugin": "GAME = None"}, "does not load: AttributeError"),
    ("highcard = missing_module:GAME", {}, "does not load: ModuleNotFoundError"),
    ("highcard = highcard_plugin:GAME", {"highcard_plugin": "GAME = 42"}, "is not an engine.game.Game (it is 42)"),
    ("cards = highcard_plugin:GAME", {"highcard_plugin": "from engine.holdem import GAME"},
     "names its game 'holdem': the entry must be named after its game"),
    ("holdem = highcard_plugin:GAME", {"highcard_plugin": "from engine.holdem import GAME"},
     "another installed package declares the game 'holdem' too"),
])
def test_a_broken_game_entry_stops_the_server_with_one_line(tmp_path, entries, modules, message):
    where = install(tmp_path, f"[{GROUP}]\n{entries}\n", modules)
    proc = cardroom(where, "serve", "--port", "0", "--data-dir", str(tmp_path / "data"))
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.startswith("cardroom serve: the game entry point ") and message in proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


async def test_a_game_from_another_package_is_hosted_played_and_verified(tmp_path, redis_url, prefix):
    where = highcard_package(tmp_path / "site")
    server = ServerProcess(redis_url, tmp_path / "server.log", "--key-prefix", prefix, "--grant", "1000",
                           env={"PYTHONPATH": str(where)})
    await server.astart()
    try:
        alice, bob = [await Client.connect(server.ws_url) for _ in range(2)]
        try:
            for c, name in ((alice, "alice"), (bob, "bob")):
                assert (await c.hello(name))["t"] == "welcome"
            listed = await alice.request({"t": "list_rooms"})
            assert [g["game"] for g in listed["games"]] == ["highcard", "holdem", "zhajinhua", "doudizhu"]
            # a quick match opens the plugin's own quick table: three seats, ante 5
            room = await alice.request({"t": "quick_match", "game": "highcard", "buy_in": 100})
            assert (room["t"], len(room["seats"]), room["config"]["ante"]) == ("room", 3, 5), room
            joined = await bob.request({"t": "quick_match", "game": "highcard", "buy_in": 100})
            assert joined["room"] == room["room"]
            started = await alice.expect("event", timeout=15, event=lambda e: e["type"] == "hand_started")
            proof = started["event"]["fairness"]
            assert proof["deal_order"] == [0, 1] and proof["deck_size"] == 52
            for _ in range(2):  # each seat bets once (or folds when its turn is gone): the hand ends
                for c in (alice, bob):
                    snap = await c.request({"t": "sync", "room": room["room"]})
                    if (snap.get("view") or {}).get("legal"):
                        await c.request({"t": "act", "room": room["room"], "id": f"{id(c)}-{_}",
                                         "action": {"type": "bet", "amount": 1}})
            ended = await alice.expect("event", timeout=15, event=lambda e: e["type"] == "hand_ended")
            assert ended["event"]["fairness"]["server_seed"]
        finally:
            await alice.close()
            await bob.close()
        assert await server.terminate() == 0
    finally:
        server.stop()
    # the hand's proof checks out against its stored events, by the plugin's dealing rule
    hand = await _stored_hand(redis_url, prefix, room["room"], where)
    verdict = verify_hand_with(where, hand, room["room"])
    assert verdict == "ok", verdict


async def _stored_hand(redis_url: str, prefix: str, room: str, where: Path) -> list[dict]:
    """The events of the room's last hand, as stored."""
    import redis

    from server.ops.history_cli import read_entries
    from server.store import Keys

    client = redis.Redis.from_url(redis_url)
    try:
        events = [e for entry in read_entries(client, Keys(prefix), room) for e in entry.events]
    finally:
        client.close()
    first = max(i for i, e in enumerate(events) if e["type"] == "hand_started")
    return events[first:]


def verify_hand_with(where: Path, events: list[dict], room: str) -> str:
    """``server.records.verify.verify_hand`` in a process where the plugin is installed (this one's
    registry was read without it)."""
    import json

    code = textwrap.dedent('''
        import json, sys
        from server.records.verify import verify_hand
        v = verify_hand("highcard", sys.argv[1], json.loads(sys.stdin.read()))
        print("ok" if v.ok else "; ".join(v.problems))
    ''')
    out = subprocess.run([sys.executable, "-c", code, room], input=json.dumps(events), cwd=ROOT,
                         env={**os.environ, "PYTHONPATH": str(where)},
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_without_the_plugin_the_verifier_says_the_game_is_unknown():
    seed = "1" * 64
    events = [{"type": "hand_started", "hand_no": 1, "fairness": {
        "scheme": "cardroom-v1", "commitment": commitment(seed), "seeds": [], "deck_size": 52, "deal_order": [0]}},
        {"type": "hand_ended", "hand_no": 1, "fairness": {"server_seed": seed}}]
    assert verify_hand("highcard", "r-1", events).problems == [
        "the proof is incomplete or malformed (the game 'highcard' is not installed here: its dealing rule is unknown)"]
