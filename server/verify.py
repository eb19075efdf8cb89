"""Checking a hand's fairness proof against its history (``docs/fairness.md``).

:func:`verify_hand` takes a hand's events as someone saw them (the operator's full
record, or a player's own filtered view) and checks, in order: that the hand carries a
proof (``hand_started.fairness``) and reveals its seed (``hand_ended.fairness``), that
``sha256(server_seed)`` is the published commitment, and that every card in the history
is where the deck derived from the seeds and the game's dealing rule puts it: each
seat's own or shown cards (``{"seat": S, "cards": [...]}`` anywhere in an event, and Dou
Dizhu's ``hand_over.hands`` by seat), the Hold'em board in order, the Dou Dizhu bottom.
Nothing here does I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from engine import fairness
from engine.cards import format_card


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
    try:
        seeds = [s["seed"] for s in proof["seeds"]]
        context = proof.get("context", room)  # a league match's rooms deal from the match id
        deck = fairness.derive_deck(seed, context, started["hand_no"], seeds, proof["deck_size"])
        dealt = fairness.layout(game, deck, proof["deal_order"])
    except (KeyError, TypeError, ValueError) as exc:
        verdict.problems.append(f"the proof is incomplete or malformed ({exc})")
        return verdict
    _check_cards(game, events, dealt, verdict)
    return verdict


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
        if game == "doudizhu" and kind == "hand_over" and isinstance(event.get("hands"), list):
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
