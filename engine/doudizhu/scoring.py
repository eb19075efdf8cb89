"""Scoring a finished hand: the multiplier and its breakdown, points, and chips.

Multiplier = the bidding multiplier (the winning bid, or 2 per rob)
           x 2 for every bomb and for the rocket played
           x 2 for a spring (春天: the landlord won and no peasant ever played a card)
             or an anti-spring (反春: a peasant won and the landlord played only the
             opening lead),
capped at ``max_multiplier`` when that is above 0.

Points: the landlord wins or loses ``2 x multiplier``, each peasant ``1 x multiplier``
the other way, so points always sum to zero. Chips owed are points x ``stake``.

Chips actually moved never exceed what a loser has: each payment is capped at the
payer's stack and the winner(s) receive exactly what was paid, so chips are conserved.
When the landlord loses and cannot pay both peasants in full, what the landlord pays
is split equally between the two peasants, and an odd chip goes to the peasant who
plays first after the landlord.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Multiplier:
    """How the final multiplier was reached (all plain ints and bools)."""

    bidding: int        # the winning bid (score style) or 2 ** robs (rob style)
    bombs: int          # bombs played (each x2)
    rockets: int        # rockets played (0 or 1, x2)
    spring: bool        # 春天
    anti_spring: bool   # 反春
    uncapped: int       # the product before the cap
    cap: int            # max_multiplier (0: no cap)
    final: int          # what the points are multiplied by

    @property
    def capped(self) -> bool:
        return self.final < self.uncapped

    def to_wire(self) -> dict[str, Any]:
        return {
            "bidding": self.bidding, "bombs": self.bombs, "rockets": self.rockets,
            "spring": self.spring, "anti_spring": self.anti_spring, "uncapped": self.uncapped,
            "cap": self.cap, "capped": self.capped, "final": self.final,
        }


def running_multiplier(bidding: int, bombs: int, rockets: int, cap: int) -> int:
    """The multiplier so far during play (no spring yet), capped like the final one."""
    m = bidding * 2 ** (bombs + rockets)
    return min(m, cap) if cap > 0 else m


def compute_multiplier(bidding: int, bombs: int, rockets: int, spring: bool, anti_spring: bool,
                       cap: int) -> Multiplier:
    """The final multiplier with its breakdown; ``cap`` 0 means no cap."""
    if spring and anti_spring:
        raise ValueError("a hand cannot be both a spring and an anti-spring")
    uncapped = bidding * 2 ** (bombs + rockets) * (2 if spring or anti_spring else 1)
    final = min(uncapped, cap) if cap > 0 else uncapped
    return Multiplier(bidding, bombs, rockets, spring, anti_spring, uncapped, cap, final)


def is_spring(landlord_won: bool, peasant_plays: int) -> bool:
    """春天: the landlord went out and neither peasant ever played a card."""
    return landlord_won and peasant_plays == 0


def is_anti_spring(landlord_won: bool, landlord_plays: int) -> bool:
    """反春: a peasant went out and the landlord played only the opening lead."""
    return not landlord_won and landlord_plays == 1


@dataclass(frozen=True)
class Settlement:
    """Per-seat results, lists indexed by seat (``None`` for seats not in the hand).

    ``points``  +-2 x multiplier for the landlord, -+1 x multiplier for each peasant
    ``owed``    points x stake: what the rules say changes hands
    ``chips``   the chips that actually moved (a loser pays at most their stack)
    ``stacks``  stacks after settlement
    ``short``   true when some loser could not pay in full
    """

    points: list[int | None]
    owed: list[int | None]
    chips: list[int | None]
    stacks: list[int | None]
    short: bool


def settle(stacks: list[int | None], landlord: int, peasants: list[int], landlord_won: bool,
           multiplier: int, stake: int) -> Settlement:
    """Settle a hand in chips.

    ``peasants`` are the two peasant seats in turn order after the landlord (the first
    one receives an odd chip when the landlord's short payment is split).
    """
    if len(peasants) != 2 or landlord in peasants:
        raise ValueError("settle needs one landlord and two other peasant seats")
    points: list[int | None] = [None] * len(stacks)
    sign = 1 if landlord_won else -1
    points[landlord] = 2 * multiplier * sign
    for p in peasants:
        points[p] = -multiplier * sign
    owed: list[int | None] = [None if p is None else p * stake for p in points]
    chips: list[int | None] = [None if p is None else 0 for p in points]
    short = False
    if landlord_won:
        for p in peasants:
            due = multiplier * stake
            have = _stack(stacks, p)
            paid = min(due, have)
            short = short or paid < due
            chips[p] = -paid
            chips[landlord] = _int(chips[landlord]) + paid
    else:
        due = 2 * multiplier * stake
        have = _stack(stacks, landlord)
        paid = min(due, have)
        short = paid < due
        chips[landlord] = -paid
        half, odd = divmod(paid, 2)
        chips[peasants[0]] = half + odd
        chips[peasants[1]] = half
    new_stacks = [None if s is None else s + _int(chips[i]) for i, s in enumerate(stacks)]
    return Settlement(points, owed, chips, new_stacks, short)


def _stack(stacks: list[int | None], seat: int) -> int:
    s = stacks[seat]
    if s is None:
        raise ValueError(f"seat {seat} has no stack")
    return s


def _int(v: int | None) -> int:
    return 0 if v is None else v
