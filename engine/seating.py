"""Checks every game's ``new_hand`` makes on what the table passes in: seats and deck."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from .errors import ConfigError


def parse_seats(seats: Any, *, min_stack: int = 0) -> tuple[list[str | None], list[int | None]]:
    """Split ``[(player_id, stack) | None, ...]`` into player ids and stacks by seat.

    Raises :class:`ConfigError` on ``seats`` (a ``ValueError``) naming the bad entry:
    not a pair, a player id that is not a string, a stack that is not a whole number of
    at least ``min_stack``. How many seats a game needs is the game's own check.
    """
    if isinstance(seats, str | bytes) or not isinstance(seats, Sequence):
        raise ConfigError("seats", "must be a list of (player_id, stack) or None by seat")
    players: list[str | None] = []
    stacks: list[int | None] = []
    for index, entry in enumerate(seats):
        if entry is None:
            players.append(None)
            stacks.append(None)
            continue
        if isinstance(entry, str | bytes) or not isinstance(entry, Sequence) or len(entry) != 2:
            raise ConfigError("seats", f"seat {index}: expected (player_id, stack), got {entry!r}")
        player, stack = entry
        if not isinstance(player, str):
            raise ConfigError("seats", f"seat {index}: player id must be a string, got {player!r}")
        if isinstance(stack, bool) or not isinstance(stack, int) or stack < min_stack:
            raise ConfigError("seats", f"seat {index}: stack must be a whole number of at least "
                                       f"{min_stack}, got {stack!r}")
        players.append(player)
        stacks.append(stack)
    return players, stacks


def check_deck(deck: Any, size: int) -> list[int]:
    """``deck`` as a list, after checking it holds each card id ``0 .. size-1`` exactly once."""
    try:
        cards = list(deck)
    except TypeError:
        raise ValueError("the deck must be a list of card ids") from None
    if len(cards) != size:
        raise ValueError(f"the deck must hold {size} cards, got {len(cards)}")
    if set(map(type, cards)) == {int} and set(cards) == _card_ids(size):  # (a deck per hand: at C speed)
        return cards
    for c in cards:
        if isinstance(c, bool) or not isinstance(c, int) or not 0 <= c < size:
            raise ValueError(f"not a card id of this deck: {c!r}")
    if len(set(cards)) != size:
        raise ValueError(f"the deck must hold each of the {size} cards exactly once")
    return cards


@functools.lru_cache(maxsize=8)
def _card_ids(size: int) -> frozenset[int]:
    return frozenset(range(size))
