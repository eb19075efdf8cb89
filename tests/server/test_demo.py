"""The terminal demo plays real hands through the engine and prints their histories."""

from __future__ import annotations

import pytest

from server.demo import STARTING_STACK, run_demo


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
