"""Main and side pots, uncalled bets, and splitting a pot between winners.

All functions are pure and work on lists indexed by seat. ``committed[s]`` is
everything seat ``s`` has put in during the hand (antes, blinds and bets);
``live[s]`` is true for a seat that was dealt in and has not folded; ``all_in[s]``
is true for a live seat with no chips behind.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field


@dataclass
class Pot:
    """A pot: its chips and the seats that can win it (live seats that covered it)."""

    amount: int
    eligible: list[int] = field(default_factory=list)

    def to_wire(self) -> dict[str, object]:
        return {"amount": self.amount, "eligible": list(self.eligible)}


def uncalled_bet(bets: Sequence[int]) -> tuple[int, int] | None:
    """``(seat, amount)`` of the part of the biggest bet nobody matched, or ``None``.

    Only this street's bets matter: earlier streets were matched before they ended.
    The biggest bettor gets back the difference to the second biggest bet (folded
    seats' bets count: chips they put in were called as far as they went).
    """
    if not bets:
        return None
    top = max(range(len(bets)), key=lambda s: bets[s])
    second = max((b for s, b in enumerate(bets) if s != top), default=0)
    if bets[top] > second:
        return top, bets[top] - second
    return None


def side_pots(committed: Sequence[int], live: Sequence[bool], all_in: Sequence[bool]) -> list[Pot]:
    """The main pot and side pots made from everyone's total contribution.

    A new pot starts above each live all-in seat's contribution; chips from folded
    seats stay in as dead money in whichever pots they reach. Each pot is
    contested by the live seats that put in at least its upper level. Adjacent
    levels with the same contestants are merged, and empty pots are dropped.
    """
    seats = range(len(committed))
    top = max(committed, default=0)
    levels = sorted({committed[s] for s in seats if live[s] and all_in[s] and committed[s] > 0} | {top})
    pots: list[Pot] = []
    previous = 0
    for level in levels:
        if level <= previous:
            continue
        amount = sum(min(c, level) - min(c, previous) for c in committed)
        eligible = [s for s in seats if live[s] and committed[s] >= level]
        previous = level
        if amount == 0:
            continue
        if pots and (not eligible or pots[-1].eligible == eligible):
            pots[-1].amount += amount
        else:
            pots.append(Pot(amount, eligible))
    return pots


def seats_from(start: int, candidates: Sequence[int], n_seats: int) -> list[int]:
    """``candidates`` in clockwise order beginning with the first seat after ``start``."""
    return sorted(candidates, key=lambda s: (s - start - 1) % n_seats)


def split_pot(amount: int, winners: Sequence[int], button: int, n_seats: int) -> list[tuple[int, int]]:
    """Share ``amount`` between ``winners``: ``[(seat, chips)]`` clockwise from the button.

    Each winner gets ``amount // len(winners)``; the odd chips go one at a time to the
    winners in clockwise order starting with the first winner left of the button, so
    no one receives more than one odd chip from a pot.
    """
    ordered = seats_from(button, winners, n_seats)
    share, odd = divmod(amount, len(ordered))
    return [(s, share + (1 if i < odd else 0)) for i, s in enumerate(ordered)]
