"""The leak scan (``bench/leak_scan.py``) in CI: bot-played hands of every game, every
message each seat and a spectator receives checked against what the rules let that
viewer see. The full run is ``.venv/bin/python bench/leak_scan.py --hands 10000``."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.soak.rooms import scan_game  # noqa: E402
from engine.game import Event  # noqa: E402
from server.games import GAMES  # noqa: E402

HANDS = 300

# events that reveal cards, one of which each game must show for the scan to mean anything
REVEALS = {"holdem": "showdown", "zhajinhua": "compare", "doudizhu": "landlord"}


@pytest.fixture(autouse=True)
def quiet_core():
    logging.getLogger("server.room.core").setLevel(logging.ERROR)  # "cannot deal a hand" is routine


@pytest.mark.slow  # Dou Dizhu's 300 hands take about 15 s: handed out first, not left for last
@pytest.mark.parametrize("game", sorted(GAMES))
def test_no_viewer_ever_sees_a_card_the_rules_hide(game):
    scan = scan_game(GAMES[game], HANDS, seed=7)
    assert scan.hands >= HANDS and scan.messages > 20 * HANDS
    assert scan.events[REVEALS[game]] > 0 and scan.events["joined"] > 0  # cards shown, seats changing hands
    assert [str(v) for v in scan.violations[:3]] == []


def test_a_newcomer_in_a_seat_of_the_last_hand_sees_it_as_a_spectator():
    """Between hands the room still shows the hand just played; whoever sits down in a
    seat of it must not get the cards of the player who was dealt there (that player
    folded, or the hand ended without a showdown)."""
    scan = scan_game(GAMES["holdem"], 150, seed=11, reseat=True)
    newcomer_leaks = [v for v in scan.violations if v.path.startswith("view.hole")]
    assert newcomer_leaks == []
    assert scan.events["joined"] > 10


def test_the_scan_finds_a_leak_when_there_is_one(monkeypatch):
    """Deliver every event unfiltered (everyone's cards in every deal): the scanner must
    notice, or the tests above prove nothing."""
    import server.room.view as view

    def unfiltered(event: Event, seat: int | None) -> Event:
        return event

    monkeypatch.setattr(view, "event_for", unfiltered)
    scan = scan_game(GAMES["holdem"], 20, seed=3)
    assert scan.violations, "the scanner missed hole cards sent to every viewer"
    assert {v.kind for v in scan.violations} == {"hidden_card"}


def test_the_scan_finds_a_server_seed_shown_before_the_hand_is_over(monkeypatch):
    """The deck's server seed is secret until the hand ends (it gives away every card):
    publish it with the deal and the scanner must say so."""
    import server.room.table as tbl

    monkeypatch.setattr(tbl, "public_proof", lambda fair, reveal: dict(fair))
    scan = scan_game(GAMES["zhajinhua"], 10, seed=3)
    assert "seed_before_reveal" in {v.kind for v in scan.violations}


def test_the_scan_reads_the_hand_under_way_of_history_as_each_viewer_asks_for_it(monkeypatch):
    """A client that comes to the table mid-hand (another device) asks ``history`` for the
    hand so far: the scan asks it for every viewer in turn, and notices when its events are
    not filtered for the one asking."""
    import server.records.history as history

    clean = scan_game(GAMES["holdem"], 20, seed=3)
    assert clean.violations == []
    monkeypatch.setattr(history, "event_for", lambda event, seat: event)
    scan = scan_game(GAMES["holdem"], 20, seed=3)
    assert scan.violations, "the scanner missed hole cards in the history's hand under way"
    assert all(".current" in v.path or v.path.startswith("current") for v in scan.violations), \
        [v.path for v in scan.violations[:3]]
