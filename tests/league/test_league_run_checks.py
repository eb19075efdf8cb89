"""What keeps ``cardroom league run`` from recording made-up results, without a server:
the check that a server answers at ``--url`` (and its default, from ``CARDROOM_PORT``),
the void-match threshold on turns played by the clock, and the league files' modes."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from server.league.define import new_league
from server.league.files import Entrant, LeagueDir
from server.league.match import VOID_CLOCK_SHARE, seat_turns, void_reason
from tests.fault.harness import ROOT, free_port


def _league(root: Path, name: str = "friday") -> LeagueDir:
    """A Hold'em league of two built-in entrants on files (their players made up: the
    run must stop before anything asks Redis about them)."""
    leagues = LeagueDir(root)
    league = new_league(name, "holdem", hands=3, action_seconds=0.3)
    league.entrants = [Entrant("ann", "p-ann", "t-ann", "smart"), Entrant("bo", "p-bo", "t-bo", "random")]
    leagues.save(league)
    return leagues


def _cardroom(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "server.cli", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=60, env=env)


def test_run_where_no_server_answers_fails_at_once_with_one_line_and_records_nothing(tmp_path):
    leagues = _league(tmp_path / "leagues")
    port = free_port()
    out = _cardroom("league", "run", "friday", "--dir", str(tmp_path / "leagues"),
                    "--url", f"ws://127.0.0.1:{port}/ws", "--data-dir", str(tmp_path / "no-data"))
    assert out.returncode == 1, out
    assert out.stderr.startswith(f"cardroom league run: no cardroom server answers at ws://127.0.0.1:{port}/ws (")
    assert out.stderr.rstrip().endswith("nothing was played") and out.stderr.count("\n") == 1, out.stderr
    assert out.stdout == ""
    assert leagues.matches("friday") == [] and not (tmp_path / "leagues" / "friday" / "logs").exists()


def test_run_url_defaults_to_cardroom_port_as_healthcheck_does(tmp_path):
    _league(tmp_path / "leagues")
    port = free_port()
    out = _cardroom("league", "run", "friday", "--dir", str(tmp_path / "leagues"),
                    env=dict(os.environ, CARDROOM_PORT=str(port)))
    assert out.returncode == 1
    assert out.stderr.startswith(f"cardroom league run: no cardroom server answers at ws://127.0.0.1:{port}/ws ")
    helped = _cardroom("league", "run", "--help")
    assert "ws://127.0.0.1:$CARDROOM_PORT/ws, port 8765 when unset" in " ".join(helped.stdout.split())


def test_run_with_a_url_that_is_not_a_websocket_one_is_bad_usage(tmp_path):
    _league(tmp_path / "leagues")
    out = _cardroom("league", "run", "friday", "--dir", str(tmp_path / "leagues"), "--url", "http://127.0.0.1:1/")
    assert out.returncode == 2
    assert out.stderr == "cardroom league run: --url 'http://127.0.0.1:1/' is not a ws:// or wss:// URL\n"


# --- the void threshold --------------------------------------------------------------


def _stream(*turns: tuple[int, bool]) -> list[tuple[int, list[dict]]]:
    """A room's event stream of one hand: (seat, timed out?) per turn, in order."""
    entries: list[tuple[int, list[dict]]] = [(1, [{"type": "joined", "seat": 0}, {"type": "joined", "seat": 1}]),
                                            (2, [{"type": "hand_started", "hand_no": 1},
                                                 {"type": "blind", "seat": 0}, {"type": "blind", "seat": 1}])]
    for i, (seat, clock) in enumerate(turns):
        move = {"type": "action", "seat": seat, "action": "check"}
        events = [{"type": "timed_out", "seat": seat, "action": {"type": "check"}}, move] if clock else [move]
        if i == len(turns) - 1:
            events.append({"type": "hand_ended", "hand_no": 1, "stacks": [100, 100]})
        entries.append((3 + i, events))
    entries.append((9, [{"type": "show", "seat": 1, "cards": [1, 2]}]))  # after the hand: not a turn
    return entries


def test_seat_turns_counts_own_moves_and_the_clocks_turns_during_hands_only():
    assert seat_turns(_stream((0, False), (1, True), (0, True), (1, True)), 2) == [[1, 1], [0, 2]]


def test_the_clocks_turns_before_a_seats_first_move_are_its_start_up():
    """A program that starts slowly (a loaded machine) and then plays is not voided; one
    that never moves still is."""
    stream = _stream((0, True), (1, True), (0, True), (1, False), (0, False), (1, True))
    assert seat_turns(stream, 2) == [[1, 0], [1, 1]]


@pytest.mark.parametrize(("moves", "clock", "void"), [
    (0, 1, True),  # no move of its own at all
    (2, 3, True),  # more than half by the clock
    (2, 2, False),  # exactly half: counts
    (9, 1, False),
    (0, 0, False),  # no turn to play (e.g. heads-up, the big blind after a fold)
])
def test_a_match_is_void_when_an_entrant_had_more_than_half_its_turns_played_by_the_clock(moves, clock, void):
    assert VOID_CLOCK_SHARE == 0.5
    record = {"match": "m-1", "hands": [{"deal": 1, "results": {}}]}
    why = void_reason(record, {"ann": [5, 0], "bo": [moves, clock]}, "ws://h/ws",
                      lambda name: (Path(f"/logs/m-1/r-1-1-{name}.log"), "entrant: cannot connect"))
    assert (why is not None) == void
    if void and moves == 0:
        assert why == ("entrant bo made no move in match m-1: all 1 of its turns were played by the turn clock "
                       "(did it connect to ws://h/ws? it said: entrant: cannot connect; log: /logs/m-1/r-1-1-bo.log)")
    elif void:
        assert why == ("entrant bo had 3 of its 5 turns in match m-1 played by the turn clock, more than 50% "
                       "(log: /logs/m-1/r-1-1-bo.log)")


def test_a_match_with_no_hand_played_is_void():
    assert void_reason({"match": "m-1", "hands": []}, {}, "ws://h/ws", lambda name: (None, "")) == \
        "no hand of match m-1 was played (is a server on this Redis?)"


# --- secrets on disk -----------------------------------------------------------------


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_league_files_holding_tokens_are_private_and_made_so_when_found_open(tmp_path):
    leagues = _league(tmp_path / "leagues")
    folder = tmp_path / "leagues" / "friday"
    assert _mode(folder) == 0o700 and _mode(folder / "league.json") == 0o600
    folder.chmod(0o755)  # as an older version, or a copy, may have left them
    (folder / "league.json").chmod(0o644)
    out = _cardroom("league", "standings", "friday", "--dir", str(tmp_path / "leagues"))
    assert out.returncode == 0 and "no match played yet" in out.stdout
    assert _mode(folder) == 0o700 and _mode(folder / "league.json") == 0o600
    assert json.loads((folder / "league.json").read_text())["entrants"][0]["token"] == "t-ann"
    (folder / "league.json").chmod(0o644)
    leagues.save(leagues.load("friday"))
    assert _mode(folder / "league.json") == 0o600


@pytest.mark.skipif(shutil.which("git") is None or not (ROOT / ".git").exists(), reason="needs the git work tree")
def test_leagues_made_by_the_walkthrough_in_the_repo_root_are_ignored_by_git():
    for path in ("leagues/friday/league.json", "leagues/friday/logs/m-1/r-1-0-smart.log"):
        found = subprocess.run(["git", "check-ignore", "-q", "--no-index", path], cwd=ROOT)
        assert found.returncode == 0, f"{path} is not ignored"
