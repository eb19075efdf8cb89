"""Helpers for the Hold'em hand tests: fixed decks and short ways to play actions."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.cards import parse_cards
from engine.holdem import HoldemState, apply, start_hand


def dealing_order(seats: Sequence[Any], button: int) -> list[int]:
    """Occupied seats clockwise starting with the one left of the button."""
    n = len(seats)
    return [(button + i) % n for i in range(1, n + 1) if seats[(button + i) % n] is not None]


def stacked_deck(seats: Sequence[Any], button: int, holes: dict[int, str], board: str = "") -> list[int]:
    """A 52-card deck that deals ``holes`` (seat -> "As Kd") and then ``board``.

    Seats not named get arbitrary cards; burn cards and the rest come from the unused
    cards in id order. ``board`` may be shorter than five cards.
    """
    wanted = {seat: parse_cards(text) for seat, text in holes.items()}
    board_cards = parse_cards(board)
    used = {c for cards in wanted.values() for c in cards} | set(board_cards)
    spare = [c for c in range(52) if c not in used]
    order = dealing_order(seats, button)
    for seat in order:
        if seat not in wanted:
            wanted[seat] = [spare.pop(), spare.pop()]
    deck = [wanted[s][0] for s in order] + [wanted[s][1] for s in order]
    for count, chunk in ((3, board_cards[:3]), (1, board_cards[3:4]), (1, board_cards[4:5])):
        deck.append(spare.pop())  # burn
        chunk = list(chunk)
        while len(chunk) < count:
            chunk.append(spare.pop())
        deck.extend(chunk)
    deck.extend(spare)
    assert sorted(deck) == list(range(52))
    return deck


def table(stacks: Sequence[int | None]) -> list[tuple[str, int] | None]:
    return [None if s is None else (f"p{i}", s) for i, s in enumerate(stacks)]


def deal(stacks: Sequence[int | None], button: int = 0, holes: dict[int, str] | None = None,
         board: str = "", **options: Any) -> tuple[HoldemState, list[dict[str, Any]]]:
    seats = table(stacks)
    deck = stacked_deck(seats, button, holes or {}, board)
    return start_hand({"button": button, **options}, seats, deck)


def act(state: HoldemState, *moves: tuple[int, str] | tuple[int, str, int]) -> tuple[HoldemState, list[dict[str, Any]]]:
    """Play ``(seat, type[, to])`` moves in order; returns the final state and all events."""
    events: list[dict[str, Any]] = []
    for move in moves:
        action: dict[str, Any] = {"type": move[1]}
        if len(move) == 3:
            action["to"] = move[2]
        state, new_events = apply(state, move[0], action)
        events.extend(new_events)
    return state, events


def of_type(events: Sequence[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == kind]
