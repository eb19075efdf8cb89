"""Checking a hand's fairness proof against its history (``docs/fairness.md``).

:func:`verify_hand` takes a hand's events as someone saw them (the operator's full
record, or a player's own filtered view) and checks, in order: that the hand carries a
proof (``hand_started.fairness``) and reveals its seed (``hand_ended.fairness``), that
``sha256(server_seed)`` is the published commitment, and that every card in the history
is where the deck derived from the seeds and the game's dealing rule puts it: each
seat's own or shown cards (``{"seat": S, "cards": [...]}`` anywhere in an event, and Dou
Dizhu's ``hand_over.hands`` by seat), the Hold'em board in order, the Dou Dizhu bottom.
:func:`verify_export` checks a hand exported as one object (``cardroom history --format
jsonl``): its events as above, then the export's own ``fairness`` object against them.
Nothing here does I/O.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from engine import fairness
from engine.cards import format_card

from ..games import GAMES
from .history import FAIRNESS_KEYS


@dataclass
class Verdict:
    """The outcome: ``ok`` when nothing is wrong, else the ``problems`` found."""

    problems: list[str] = field(default_factory=list)
    cards_checked: int = 0
    proof: dict[str, Any] | None = None

    @property
    def ok(self) -> bool:
        return not self.problems

    def summary(self) -> str:
        if self.ok:
            return (f"✔ verified: the commitment matches the revealed seed and all {self.cards_checked} "
                    f"cards seen are where the deck derived from the seeds puts them")
        return "✘ " + "; ".join(self.problems)


def verify_hand(game: str, room: str, events: Iterable[Mapping[str, Any]]) -> Verdict:
    """Check one hand's proof against ``events`` (its events in order, as seen)."""
    events = list(events)
    verdict = Verdict()
    started = next((e for e in events if e.get("type") == "hand_started"), None)
    ended = next((e for e in events if e.get("type") == "hand_ended"), None)
    if started is None or not isinstance(started.get("fairness"), Mapping):
        verdict.problems.append("the hand carries no fairness proof (dealt before provably fair deals, "
                                "or from a stacked test deck)")
        return verdict
    proof = dict(started["fairness"])
    revealed = ended.get("fairness") if ended is not None else None
    if not isinstance(revealed, Mapping) or not revealed.get("server_seed"):
        verdict.problems.append("the hand has not ended: its server seed is not revealed yet")
        return verdict
    seed = revealed["server_seed"]
    proof["server_seed"] = seed
    verdict.proof = proof
    if proof.get("scheme") != fairness.SCHEME:
        verdict.problems.append(f"unknown scheme {proof.get('scheme')!r} (this checker knows {fairness.SCHEME})")
        return verdict
    try:
        committed = fairness.commitment(seed)
    except ValueError as exc:
        verdict.problems.append(f"the revealed server seed is malformed: {exc}")
        return verdict
    if committed != proof.get("commitment") or revealed.get("commitment", committed) != committed:
        verdict.problems.append(f"sha256 of the revealed seed is {committed[:16]}…, but the hand committed to "
                                f"{str(proof.get('commitment'))[:16]}…")
        return verdict
    changed = [key for key in started["fairness"] if key in revealed and revealed[key] != started["fairness"][key]]
    if changed:
        verdict.problems += [f"the fairness.{key} of hand_ended differs from the one hand_started announced"
                             for key in changed]
        return verdict
    try:
        seeds = [s["seed"] for s in proof["seeds"]]
        context = proof.get("context", room)  # a league match's rooms deal from the match id
        deck = fairness.derive_deck(seed, context, started["hand_no"], seeds, proof["deck_size"])
        if game not in GAMES:
            raise ValueError(f"the game {game!r} is not installed here: its dealing rule is unknown")
        dealt = fairness.layout(GAMES[game], deck, proof["deal_order"])
    except (KeyError, TypeError, ValueError) as exc:
        verdict.problems.append(f"the proof is incomplete or malformed ({exc})")
        return verdict
    _check_cards(game, events, dealt, verdict)
    return verdict


def verify_export(hand: Mapping[str, Any]) -> Verdict:
    """Check one exported hand: an object of ``cardroom history --format jsonl`` (or a hand
    the browser saved): :func:`verify_hand` of its ``events``, then what the export itself
    claims about them: its ``hand`` number (when given) must be the one its ``hand_started``
    deals, and its ``fairness`` object (when it has the key: the browser's has none) must be
    the proof its events carry (:func:`export_proof_problems`). The caller has checked that
    ``room`` and ``game`` are strings and ``events`` is a list; an event may be wrapped as
    ``{"event": {...}}``."""
    events = [e.get("event", e) if isinstance(e, Mapping) else e for e in hand["events"]]
    events = [e for e in events if isinstance(e, Mapping)]
    verdict = verify_hand(hand["game"], hand["room"], events)
    started = next((e for e in events if e.get("type") == "hand_started"), None)
    number = hand.get("hand", hand.get("hand_no"))
    if started is not None and number is not None and started.get("hand_no") != number:
        verdict.problems.append(f"the file says hand {_show(number)}, but its hand_started deals hand "
                                f"{_show(started.get('hand_no'))}")
    if "fairness" in hand:
        verdict.problems += export_proof_problems(hand["fairness"], events)
    return verdict


def export_proof_problems(proof: Any, events: Iterable[Mapping[str, Any]]) -> list[str]:
    """Where an export's own ``fairness`` object (:func:`server.records.history.hand_fairness`)
    differs from the proof in its ``events``, one problem per key at fault.

    Each key must hold what ``hand_started`` announced (``scheme``, ``commitment``,
    ``seeds``, ``deal_order``, ``deck_size``, a league's ``context``) or else what
    ``hand_ended`` revealed (``server_seed``, ``next_commitment``), and ``null`` what the
    events do not hold (the seed of a hand not finished). A ``server_seed`` at fault is
    also hashed against the announced commitment. Empty when the events carry no proof:
    :func:`verify_hand` reports that."""
    events = list(events)
    announced = _event_proof(events, "hand_started")
    if not announced:
        return []
    if proof is None:
        return ["fairness is null, but hand_started announces a fairness proof"]
    if not isinstance(proof, Mapping):
        return [f"fairness is {_show(proof)}, not an object like the proof hand_started announces"]
    revealed = _event_proof(events, "hand_ended")
    problems = []
    for key in dict.fromkeys([*FAIRNESS_KEYS, *announced, *revealed, *proof]):
        if key in announced:
            expected, source = announced[key], "announced in hand_started"
        elif key in revealed:
            expected, source = revealed[key], "revealed in hand_ended"
        else:
            expected, source = None, "in the hand's events"
        if key not in proof and expected is not None:
            problems.append(f"fairness.{key} is missing ({_show(expected)} {source})")
        elif proof.get(key) != expected:
            problems += _key_problems(key, proof[key], expected, source, announced.get("commitment"))
    return problems


def _event_proof(events: list[Mapping[str, Any]], kind: str) -> Mapping[str, Any]:
    """The ``fairness`` object of the first event of type ``kind`` (empty if none)."""
    event = next((e for e in events if e.get("type") == kind), None)
    proof = event.get("fairness") if event is not None else None
    return proof if isinstance(proof, Mapping) else {}


def _key_problems(key: str, value: Any, expected: Any, source: str, commitment: Any) -> list[str]:
    """The words for ``fairness.<key>`` holding ``value`` where the events hold ``expected``."""
    if key == "seeds" and _seed_map(value) is not None and _seed_map(expected) is not None:
        return _seed_problems(value, expected)
    if key == "server_seed" and isinstance(value, str) and expected is not None:
        try:
            hashed = fairness.commitment(value)
        except ValueError:
            return [f"fairness.server_seed {_show(value)} is not a valid seed, nor the seed {source}"]
        if hashed != commitment:
            return [f"fairness.server_seed is not the seed {source}: its sha256 is {_show(hashed)}, not the "
                    f"commitment {_show(commitment)} announced in hand_started"]
    if expected is None:
        return [f"fairness.{key} is {_show(value)}, but there is no {key} {source}"]
    return [f"fairness.{key} does not match the {key} {source} ({_show(value)} against {_show(expected)})"]


def _seed_problems(value: list[Mapping[str, Any]], expected: list[Mapping[str, Any]]) -> list[str]:
    """``fairness.seeds`` against the seeds ``hand_started`` announced, seat by seat (then
    their order, which the deck depends on)."""
    given, announced = _seed_map(value) or {}, _seed_map(expected) or {}
    problems = []
    for seat in sorted(announced.keys() | given.keys()):
        if seat not in given:
            problems.append(f"fairness.seeds has no seed for seat {seat} (hand_started announced "
                            f"{json.dumps(announced[seat])})")
        elif seat not in announced:
            problems.append(f"fairness.seeds has a seed for seat {seat}, which hand_started does not deal")
        elif given[seat] != announced[seat]:
            problems.append(f"fairness.seeds: the seed of seat {seat} is {json.dumps(given[seat])}, but "
                            f"hand_started announced {json.dumps(announced[seat])}")
    if not problems and list(given) != list(announced):
        problems.append(f"fairness.seeds lists seats {list(given)}, but hand_started announced them in the order "
                        f"{list(announced)} (the deck depends on it)")
    if not problems:
        problems.append(f"fairness.seeds does not match the seeds announced in hand_started ({_show(value)} "
                        f"against {_show(expected)})")
    return problems


def _seed_map(seeds: Any) -> dict[int, Any] | None:
    """``[{"seat": 0, "seed": "x"}, ...]`` as ``{0: "x", ...}`` in list order; ``None`` if
    it is not such a list (or names a seat twice)."""
    if not isinstance(seeds, list) or not all(isinstance(s, Mapping) and isinstance(s.get("seat"), int)
                                              for s in seeds):
        return None
    mapped = {s["seat"]: s.get("seed") for s in seeds}
    return mapped if len(mapped) == len(seeds) else None


def _show(value: Any) -> str:
    """``value`` for a message: a long string (a hash, a seed) as its first 16 characters
    and "…", anything else as JSON cut to 40 characters."""
    if isinstance(value, str) and len(value) > 20:
        return value[:16] + "…"
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:39] + "…"


def _check_cards(game: str, events: list[Mapping[str, Any]], dealt: dict[str, Any], verdict: Verdict) -> None:
    hands: dict[int, list[int]] = {int(s): list(c) for s, c in dealt["hands"].items()}
    bottom = set(dealt.get("bottom", ()))
    landlord: int | None = None
    board: list[int] = []

    def owned(seat: Any, cards: Any, where: str) -> None:
        if not isinstance(seat, int) or not _card_list(cards):
            return
        allowed = set(hands.get(seat, ()))
        if seat == landlord:
            allowed |= bottom
        for c in cards:
            verdict.cards_checked += 1
            if c not in allowed:
                verdict.problems.append(f"{where}: seat {seat} has {format_card(c)}, which the deck does not "
                                        f"deal to seat {seat}")

    for event in events:
        kind = event.get("type")
        if kind == "landlord" and isinstance(event.get("seat"), int):
            landlord = event["seat"]
        if kind == "board" and _card_list(event.get("cards")):
            board += event["cards"]
            expected = dealt.get("board", [])[:len(board)]
            verdict.cards_checked += len(event["cards"])
            if board != expected:
                verdict.problems.append(f"the board reads {_names(board)}, the deck deals {_names(expected)}")
        if _card_list(event.get("bottom")):
            verdict.cards_checked += len(event["bottom"])
            if set(event["bottom"]) != bottom:
                verdict.problems.append(f"the bottom is {_names(event['bottom'])}, the deck gives {_names(sorted(bottom))}")
        if kind == "hand_over" and isinstance(event.get("hands"), list):  # every seat's cards (Dou Dizhu)
            for seat, cards in enumerate(event["hands"]):
                owned(seat, cards, "hand_over")
        for node in _maps(event):
            if "seat" in node and "cards" in node and node.get("type") != "board":
                owned(node["seat"], node["cards"], str(kind))


def _maps(value: Any) -> Iterable[Mapping[str, Any]]:
    """Every map inside ``value`` (itself included)."""
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, Mapping):
            yield node
            stack.extend(v for v in node.values() if isinstance(v, Mapping | list))
        elif isinstance(node, list):
            stack.extend(v for v in node if isinstance(v, Mapping | list))


def _card_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(c, int) and not isinstance(c, bool) for c in value)


def _names(cards: Iterable[int]) -> str:
    return " ".join(format_card(c) for c in cards if isinstance(c, int) and 0 <= c < 54) or "-"
