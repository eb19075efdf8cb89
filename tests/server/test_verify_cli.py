"""``cardroom verify --file`` on what ``cardroom history`` exports: a hand's own ``fairness``
object is checked against its events (a changed commitment, seed or any other part of it
fails, named), and a file that is not one JSON object per hand (the per-event lines of
``history --json``, its room list, text, nothing) is refused with the command that
writes what ``--file`` needs.

Hands are stored as the server stores them (``test_pokerstars.store_scripted_hand``: a
three-seat Hold'em hand to a showdown, dealt from the worked example's seed) and exported
with ``cardroom history --format jsonl``.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from engine import fairness
from server.cli import main

from .test_pokerstars import SCENARIOS, SERVER_SEED, store_scripted_hand

ROOM = "r-fair"
COMMITMENT = fairness.commitment(SERVER_SEED)
VERIFIED = "✔ verified: the commitment matches the revealed seed and all "


@pytest.fixture
def cli(capsys) -> Callable[..., tuple[int, str, str]]:
    """Run ``cardroom ARGV...``: (exit status, stdout, stderr)."""
    def run(*argv: str) -> tuple[int, str, str]:
        capsys.readouterr()
        status = main(list(argv))
        captured = capsys.readouterr()
        return status, captured.out, captured.err
    return run


@pytest.fixture
async def where(redis_url, prefix) -> list[str]:
    """The flags of the test Redis, holding room r-fair with one finished hand (seeds:
    seat 0 "alice-seed", seat 1 none, seat 2 "carol_2")."""
    spec = SCENARIOS["showdown"]
    await store_scripted_hand(redis_url, prefix, ROOM, spec["stacks"], spec["script"],
                              seeds={0: "alice-seed", 2: "carol_2"})
    return ["--redis-url", redis_url, "--prefix", prefix]


def exported_hand(cli, where: list[str], *view: str) -> dict[str, Any]:
    status, out, err = cli("history", "--room", ROOM, "--format", "jsonl", *view, *where)
    assert status == 0, err
    (hand,) = [json.loads(line) for line in out.splitlines()]
    return hand


def verify_text(cli, tmp_path: Path, text: str, *flags: str) -> tuple[int, str, str]:
    path = tmp_path / "hand.jsonl"
    path.write_text(text)
    return cli("verify", "--file", str(path), *flags)


@pytest.mark.parametrize("view", [[], ["--as-seat", "1"], ["--spectator"]])
async def test_an_honest_export_verifies_its_own_proof_and_its_events(cli, where, tmp_path, view):
    hand = exported_hand(cli, where, *view)
    assert hand["fairness"]["commitment"] == COMMITMENT
    status, out, err = verify_text(cli, tmp_path, json.dumps(hand) + "\n")
    assert (status, err) == (0, "")
    assert out.startswith(f"room {ROOM} hand 1: {VERIFIED}")


def _swap_seeds(proof: dict[str, Any]) -> None:
    proof["seeds"].reverse()


# How the export's top-level proof is changed, and the one problem `verify --file` names.
TAMPERED: dict[str, tuple[Callable[[dict[str, Any]], Any], str]] = {
    "commitment": (lambda p: p.update(commitment="ab" * 32),
                   "fairness.commitment does not match the commitment announced in hand_started "
                   "(abababababababab… against 630dcd2966c43366…)"),
    "a seat's seed": (lambda p: p["seeds"][2].update(seed="mallory"),
                      'fairness.seeds: the seed of seat 2 is "mallory", but hand_started announced "carol_2"'),
    "a seat left out": (lambda p: p["seeds"].pop(1),
                        'fairness.seeds has no seed for seat 1 (hand_started announced "")'),
    "the seeds' order": (_swap_seeds,
                         "fairness.seeds lists seats [2, 1, 0], but hand_started announced them in the order "
                         "[0, 1, 2] (the deck depends on it)"),
    "server seed": (lambda p: p.update(server_seed="11" * 32),
                    "fairness.server_seed is not the seed revealed in hand_ended: its sha256 is "
                    f"{fairness.commitment('11' * 32)[:16]}…, not the commitment 630dcd2966c43366… "
                    "announced in hand_started"),
    "deck size": (lambda p: p.update(deck_size=54),
                  "fairness.deck_size does not match the deck_size announced in hand_started (54 against 52)"),
    "next commitment": (lambda p: p.update(next_commitment="cd" * 32),
                        "fairness.next_commitment does not match the next_commitment revealed in hand_ended "
                        f"(cdcdcdcdcdcdcdcd… against {fairness.commitment('ff' * 32)[:16]}…)"),
    "a context added": (lambda p: p.update(context="r-other"),
                        "fairness.context is \"r-other\", but there is no context in the hand's events"),
}


@pytest.mark.parametrize("change", sorted(TAMPERED))
async def test_a_changed_top_level_proof_fails_naming_the_part(cli, where, tmp_path, change):
    tamper, problem = TAMPERED[change]
    hand = exported_hand(cli, where, "--as-seat", "0")
    tamper(hand["fairness"])
    status, out, err = verify_text(cli, tmp_path, json.dumps(hand) + "\n")
    assert (status, out, err) == (1, f"room {ROOM} hand 1: ✘ {problem}\n", "")
    status, out, _ = verify_text(cli, tmp_path, json.dumps(hand) + "\n", "--json")
    verdict = json.loads(out)
    assert (status, verdict["ok"], verdict["problems"]) == (1, False, [problem])


async def test_a_changed_deal_order_a_null_proof_and_another_hand_number_fail(cli, where, tmp_path):
    hand = exported_hand(cli, where)
    order = hand["fairness"]["deal_order"]
    changed = json.loads(json.dumps(hand))
    changed["fairness"]["deal_order"] = order[::-1]
    assert verify_text(cli, tmp_path, json.dumps(changed))[:2] == (
        1, f"room {ROOM} hand 1: ✘ fairness.deal_order does not match the deal_order announced in hand_started "
           f"({json.dumps(order[::-1])} against {json.dumps(order)})\n")
    assert verify_text(cli, tmp_path, json.dumps({**hand, "fairness": None}))[:2] == (
        1, f"room {ROOM} hand 1: ✘ fairness is null, but hand_started announces a fairness proof\n")
    assert verify_text(cli, tmp_path, json.dumps({**hand, "hand": 3}))[:2] == (
        1, f"room {ROOM} hand 3: ✘ the file says hand 3, but its hand_started deals hand 1\n")


async def test_events_that_reveal_other_seeds_than_they_announced_fail(cli, where, tmp_path):
    hand = exported_hand(cli, where)
    ended = next(e for e in hand["events"] if e["type"] == "hand_ended")
    ended["fairness"]["seeds"][0]["seed"] = "mallory"
    status, out, _ = verify_text(cli, tmp_path, json.dumps(hand))
    assert (status, out) == (1, f"room {ROOM} hand 1: ✘ the fairness.seeds of hand_ended differs from the one "
                                "hand_started announced\n")


async def test_a_hand_saved_by_the_browser_has_no_top_level_proof_and_verifies(cli, where, tmp_path):
    hand = exported_hand(cli, where, "--as-seat", "2")
    saved = {"room": hand["room"], "game": hand["game"], "hand": hand["hand"], "events": hand["events"]}
    status, out, _ = verify_text(cli, tmp_path, json.dumps(saved) + "\n")
    assert status == 0 and out.startswith(f"room {ROOM} hand 1: {VERIFIED}")


async def test_the_per_event_lines_of_history_json_are_refused_with_the_command_that_exports_a_hand(
        cli, where, tmp_path):
    status, lines, _ = cli("history", "--room", ROOM, "--json", *where)
    assert status == 0
    status, out, err = verify_text(cli, tmp_path, lines)
    command = f"cardroom history --room {ROOM} --hand 1 --format jsonl"
    assert (status, out) == (2, "")
    assert err == (f"cardroom verify: {tmp_path / 'hand.jsonl'} holds one line per event (cardroom history "
                   f"--json); --file needs one JSON object per hand, written by: {command}\n")
    # lines of two hands: the command exports the room's hands
    second = [{**json.loads(line), "hand": 2} for line in lines.splitlines()]
    two = lines + "".join(json.dumps(record) + "\n" for record in second)
    assert verify_text(cli, tmp_path, two)[2].endswith(f"cardroom history --room {ROOM} --format jsonl\n")
    # the command it names writes a file that verifies
    status, exported, _ = cli(*command.split()[1:], *where)
    assert status == 0
    assert verify_text(cli, tmp_path, exported)[0] == 0


async def test_the_room_list_text_and_an_empty_file_are_refused_saying_what_is_needed(
        cli, where, tmp_path, monkeypatch):
    path = tmp_path / "hand.jsonl"
    needs = "--file needs one JSON object per hand, written by: cardroom history --room"
    rooms = cli("history", "--json", *where)[1]
    assert verify_text(cli, tmp_path, rooms) == (
        2, "", f"cardroom verify: {path} holds the list of rooms (cardroom history --json without --room); "
               f"{needs} {ROOM} --format jsonl\n")
    text = cli("history", "--room", ROOM, *where)[1]
    assert verify_text(cli, tmp_path, text) == (
        2, "", f"cardroom verify: {path} is not JSON (or JSON lines): line 1: Expecting value; "
               f"{needs} ROOM --format jsonl\n")
    assert verify_text(cli, tmp_path, "\n") == (2, "", f"cardroom verify: {path} holds no hands; "
                                                       f"{needs} ROOM --format jsonl\n")
    monkeypatch.setattr("sys.stdin", io.StringIO(cli("history", "--room", ROOM, "--json", *where)[1]))
    status, _, err = cli("verify", "--file", "-")
    assert status == 2 and err.startswith("cardroom verify: stdin holds one line per event")


async def test_a_json_list_of_hands_and_the_json_format_verify(cli, where, tmp_path):
    hand = exported_hand(cli, where, "--spectator")
    status, out, _ = verify_text(cli, tmp_path, json.dumps([hand, hand], indent=2))
    assert status == 0 and out.count(VERIFIED) == 2
    status, same, _ = cli("history", "--room", ROOM, "--format", "json", *where)  # kept: the same as jsonl
    assert status == 0 and verify_text(cli, tmp_path, same)[0] == 0
