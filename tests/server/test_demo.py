"""The terminal demo plays real hands of any installed game with bots through the engine
and prints their histories."""

from __future__ import annotations

import pytest

from engine.registry import installed
from server.ops.demo import run_demo

STARTING_STACK = installed()["holdem"].practice.stack  # the default game's practice stack


def test_demo_prints_every_hand_and_conserves_chips(capsys):
    result = run_demo(hands=6, players=4, seed=7)
    text = capsys.readouterr().out
    assert result["hands"] >= 1
    for number in range(1, result["hands"] + 1):
        assert f"=== Hand {number}:" in text
    assert text.count("Stacks:") == result["hands"]
    assert "posts small blind" in text and "Dealt to" in text and " wins " in text
    assert sum(result["stacks"].values()) == 4 * STARTING_STACK


def test_demo_is_reproducible_with_a_seed():
    lines_a: list[str] = []
    lines_b: list[str] = []
    run_demo(hands=3, players=3, seed=11, out=lines_a.append)
    run_demo(hands=3, players=3, seed=11, out=lines_b.append)
    assert lines_a == lines_b


def test_demo_long_session_moves_button_and_players_bust_out():
    lines: list[str] = []
    result = run_demo(hands=200, players=6, seed=1, out=lines.append)
    assert sum(result["stacks"].values()) == 6 * STARTING_STACK
    buttons = {line.split("button ")[1].split(",")[0] for line in lines if line.startswith("=== Hand")}
    assert len(buttons) >= 2
    assert any("leaves the table" in line for line in lines)


@pytest.mark.parametrize("players", [1, 11])
def test_demo_rejects_bad_player_counts(players):
    with pytest.raises(ValueError):
        run_demo(hands=1, players=players, seed=1, out=lambda line: None)


def test_demo_without_a_seed_prints_the_one_it_picked_and_that_seed_replays_the_run(capsys):
    from server.cli import main

    assert main(["demo", "--hands", "3", "--players", "3"]) == 0
    first = capsys.readouterr().out
    header = first.splitlines()[0]
    assert header.startswith("Cardroom demo: Texas Hold'em, 3 players, ") and ", seed " in header, header
    seed = header.rsplit("seed ", 1)[1]
    assert seed.isdigit(), header  # not "None": a run can always be replayed
    assert main(["demo", "--hands", "3", "--players", "3", "--seed", seed]) == 0
    assert capsys.readouterr().out == first


def test_demo_into_a_closed_pipe_stops_quietly_like_unix_tools():
    """``cardroom demo | head``: the reader is gone before the demo writes; no traceback,
    nothing on stderr, the exit status a shell shows for ``seq 100000 | head`` (141)."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    read_end, write_end = os.pipe()
    os.close(read_end)  # like head after its lines: nobody reads any more
    try:
        proc = subprocess.run([sys.executable, "-m", "server.cli", "demo", "--hands", "5"], cwd=root,
                              stdout=write_end, stderr=subprocess.PIPE, text=True, timeout=120,
                              env={**os.environ, "PYTHONPATH": str(root)})
    finally:
        os.close(write_end)
    assert (proc.returncode, proc.stderr) == (141, "")


@pytest.mark.parametrize("game, words", [("zhajinhua", "Ante 10 each from "), ("doudizhu", "Dealt to ")])
def test_demo_plays_any_installed_game_with_bots_in_its_own_words(game, words):
    lines: list[str] = []
    result = run_demo(hands=4, seed=5, out=lines.append, game=game)
    g = installed()[game]
    assert result["game"] == game and result["hands"] >= 1
    assert lines[0].startswith(f"Cardroom demo: {g.strings['en']['title']}, ")
    assert sum(result["stacks"].values()) == len(result["stacks"]) * g.practice.stack
    assert any(line.startswith(words) for line in lines)  # the game's own format_event


def test_demo_of_a_game_it_cannot_play_says_which_it_can(capsys):
    from server.cli import main

    assert main(["demo", "--game", "chess"]) == 2
    err = capsys.readouterr().err
    assert "--game must be an installed game with bots (holdem, zhajinhua, doudizhu), got 'chess'" in err
    assert main(["demo", "--game", "doudizhu", "--players", "4"]) == 2
    assert "--players must be between 3 and 3 for doudizhu, got 4" in capsys.readouterr().err
