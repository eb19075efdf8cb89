"""Helpers for Dou Dizhu hand tests: fixed decks from rank strings, short-hands for
actions, and re-dealing the cards hidden from a viewer (for the no-leak checks)."""

from __future__ import annotations

from typing import Any

from engine.doudizhu import new_hand
from engine.doudizhu.ranks import NUM_RANKS, parse_ranks
from engine.doudizhu.state import clone

PASS = {"type": "pass"}
CALL = {"type": "call"}
ROB = {"type": "rob"}


def bid(value: int) -> dict[str, Any]:
    return {"type": "bid", "value": value}


def play(ranks: str) -> dict[str, Any]:
    """A play given as a rank string (the engine picks the concrete cards)."""
    return {"type": "play", "cards": ranks}


def _ids_by_rank() -> list[list[int]]:
    """Card ids of each Dou Dizhu rank (3 .. A, 2, black joker, red joker)."""
    groups: list[list[int]] = [[] for _ in range(NUM_RANKS)]
    for c in range(52):
        groups[((c >> 2) + 12) % 13].append(c)
    groups[13] = [52]
    groups[14] = [53]
    return groups


def make_deck(hands: dict[int, str], bottom: str, order: list[int]) -> list[int]:
    """A 54-card deck dealing the given rank strings.

    ``hands`` maps seats to 17-card rank strings (seats left out get the remaining
    cards, lowest ranks first); ``bottom`` is the 3 bottom cards; ``order`` the dealing
    order (the seat left of the button first).
    """
    pool = _ids_by_rank()

    def take(text: str) -> list[int]:
        out = []
        for r, n in enumerate(parse_ranks(text)):
            if n > len(pool[r]):
                raise ValueError(f"not enough cards of rank {r} for {text!r}")
            out.extend(pool[r][:n])
            del pool[r][:n]
        return out

    dealt = {seat: take(text) for seat, text in hands.items()}
    bottom_ids = take(bottom)
    rest = [c for group in pool for c in group]
    for seat in order:
        if seat not in dealt:
            dealt[seat], rest = rest[:17], rest[17:]
    assert all(len(dealt[s]) == 17 for s in order) and len(bottom_ids) == 3 and not rest
    deck = [dealt[order[k % 3]][k // 3] for k in range(51)]
    return deck + bottom_ids


def deal(hands: dict[int, str], bottom: str, *, button: int = 0, stacks: tuple[int, ...] = (1000, 1000, 1000),
         **options: Any):
    """A hand at a three-seat table (seats 0, 1, 2) with the given cards and options."""
    order = [(button + 1 + i) % 3 for i in range(3)]
    deck = make_deck(hands, bottom, order)
    seats = [(f"p{i}", stacks[i]) for i in range(3)]
    return new_hand({"button": button, **options}, seats, deck)


def swap_hidden(state, viewer):
    """The same state with the cards hidden from ``viewer`` dealt differently among the
    other seats (and the bottom, while hidden), keeping every count. A landlord's hand
    shown face up (明牌) is seen by everyone, so it stays as it is."""
    shown = state.landlord if state.open_hand > 1 else None
    other = [s for s in state.order if s != viewer and s != shown]
    hidden = [c for s in other for c in state.hands[s]]
    if not state.bottom_taken:
        hidden += state.bottom
    half = len(hidden) // 2
    hidden = hidden[half:] + hidden[:half]  # most hidden cards change seat
    swapped = clone(state)
    for s in other:
        n = len(state.hands[s])
        swapped.hands[s], hidden = sorted(hidden[:n]), hidden[n:]
    if not state.bottom_taken:
        swapped.bottom = sorted(hidden)
    return swapped
