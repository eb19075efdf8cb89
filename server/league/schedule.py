"""Who plays whom, and in which seats (pure)."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations


def groups(entrants: Sequence[str], seats: int) -> list[tuple[str, ...]]:
    """A round robin: every set of ``seats`` entrants plays one match per round
    (heads-up: every pair; three seats and three entrants: one match of all three)."""
    return list(combinations(entrants, seats))


def seatings(group: Sequence[str], duplicate: bool) -> list[tuple[str, ...]]:
    """The seat order of each room of a match. Duplicate: every rotation of the group,
    so that over the match's rooms each entrant holds each seat, and so each deal's cards
    of every seat, once (heads-up: the two rooms swap seats). Else one room."""
    group = tuple(group)
    if not duplicate:
        return [group]
    return [group[i:] + group[:i] for i in range(len(group))]
