"""Scoring a finished hand: the multiplier and its breakdown, points, and chips.

Multiplier = the bidding multiplier (the winning bid, or 2 per rob)
           x 2 for every bomb and for the rocket played
           x 2 for a spring (春天: the landlord won and no peasant ever played a card)
             or an anti-spring (反春: a peasant won and the landlord played only the
             opening lead)
           x the open-hand multiplier (明牌: 4 shown before the bottom cards, 2 after, else 1),
capped at ``max_multiplier`` when that is above 0.

Doubling (加倍): the landlord and each peasant settle as a *pair*. The pair multiplier of
the landlord and peasant ``p`` is ``multiplier x dL x dp`` (``d`` is 2 for a seat that
doubled, else 1), capped at ``max_multiplier`` like the multiplier itself. Without
doubling both pairs are simply the multiplier.

Points: each peasant wins or loses its pair multiplier, the landlord the sum of the two
the other way (``2 x multiplier`` without doubling), so points always sum to zero.
Chips owed are points x ``stake``.

Chips actually moved never exceed what a loser has: each payment is capped at the
payer's stack and the winner(s) receive exactly what was paid, so chips are conserved.
When the landlord loses and cannot pay both peasants in full, what the landlord pays
is split between the two peasants in proportion to what each is owed (equally without
doubling), rounded down for the second peasant: the first peasant (who plays first
after the landlord) gets the rest, so an odd chip goes to it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

# 明牌 (open hand): the multiplier of a landlord who shows the hand before taking the
# bottom cards, and after taking them.
OPEN_BEFORE_BOTTOM = 4
OPEN_AFTER_BOTTOM = 2
# 加倍 (doubling): the factor of a seat that doubles.
DOUBLE = 2


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
    final: int          # what the points are multiplied by (before doubling)
    open_hand: int = 1  # 明牌: OPEN_BEFORE_BOTTOM, OPEN_AFTER_BOTTOM or 1 (not shown)

    @property
    def capped(self) -> bool:
        return self.final < self.uncapped

    def to_wire(self) -> dict[str, Any]:
        return {
            "bidding": self.bidding, "bombs": self.bombs, "rockets": self.rockets,
            "spring": self.spring, "anti_spring": self.anti_spring, "uncapped": self.uncapped,
            "cap": self.cap, "capped": self.capped, "final": self.final, "open_hand": self.open_hand,
        }


def running_multiplier(bidding: int, bombs: int, rockets: int, cap: int, open_hand: int = 1) -> int:
    """The multiplier so far during play (no spring yet), capped like the final one."""
    m = bidding * 2 ** (bombs + rockets) * open_hand
    return min(m, cap) if cap > 0 else m


def compute_multiplier(bidding: int, bombs: int, rockets: int, spring: bool, anti_spring: bool,
                       cap: int, open_hand: int = 1) -> Multiplier:
    """The final multiplier with its breakdown; ``cap`` 0 means no cap."""
    if spring and anti_spring:
        raise ValueError("a hand cannot be both a spring and an anti-spring")
    uncapped = bidding * 2 ** (bombs + rockets) * (2 if spring or anti_spring else 1) * open_hand
    final = min(uncapped, cap) if cap > 0 else uncapped
    return Multiplier(bidding, bombs, rockets, spring, anti_spring, uncapped, cap, final, open_hand)


def pair_multipliers(uncapped: int, doubled: Sequence[bool | None], landlord: int, peasants: Sequence[int],
                     cap: int) -> tuple[int, int]:
    """The multipliers of the landlord against each of ``peasants`` (in that order).

    Each is ``uncapped x dL x dp`` (``d`` = :data:`DOUBLE` for a seat whose ``doubled``
    entry is true, else 1), capped at ``cap`` when that is above 0.
    """
    lord = uncapped * (DOUBLE if doubled[landlord] else 1)
    first, second = (lord * (DOUBLE if doubled[p] else 1) for p in peasants)
    if cap > 0:
        return min(first, cap), min(second, cap)
    return first, second


def seat_multipliers(pairs: Sequence[int], landlord: int, peasants: Sequence[int],
                     seats: int) -> list[int | None]:
    """Each seat's own multiplier, indexed by seat (``None`` outside the hand): a peasant's
    pair multiplier, and for the landlord the sum of both (what its points are made of)."""
    out: list[int | None] = [None] * seats
    out[peasants[0]], out[peasants[1]] = pairs
    out[landlord] = pairs[0] + pairs[1]
    return out


def is_spring(landlord_won: bool, peasant_plays: int) -> bool:
    """春天: the landlord went out and neither peasant ever played a card."""
    return landlord_won and peasant_plays == 0


def is_anti_spring(landlord_won: bool, landlord_plays: int) -> bool:
    """反春: a peasant went out and the landlord played only the opening lead."""
    return not landlord_won and landlord_plays == 1


@dataclass(frozen=True)
class Settlement:
    """Per-seat results, lists indexed by seat (``None`` for seats not in the hand).

    ``points``  for each peasant -+ its pair multiplier, for the landlord +- their sum
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
           multiplier: int, stake: int, pairs: Sequence[int] | None = None) -> Settlement:
    """Settle a hand in chips.

    ``peasants`` are the two peasant seats in turn order after the landlord (the first
    one receives an odd chip when the landlord's short payment is split). ``pairs`` are
    the landlord's multipliers against each peasant (:func:`pair_multipliers`); by
    default both are ``multiplier``.
    """
    if len(peasants) != 2 or landlord in peasants:
        raise ValueError("settle needs one landlord and two other peasant seats")
    pair = list(pairs) if pairs is not None else [multiplier, multiplier]
    points: list[int | None] = [None] * len(stacks)
    sign = 1 if landlord_won else -1
    points[landlord] = sum(pair) * sign
    for p, m in zip(peasants, pair, strict=True):
        points[p] = -m * sign
    owed: list[int | None] = [None if p is None else p * stake for p in points]
    chips: list[int | None] = [None if p is None else 0 for p in points]
    short = False
    if landlord_won:
        for p, m in zip(peasants, pair, strict=True):
            due = m * stake
            have = _stack(stacks, p)
            paid = min(due, have)
            short = short or paid < due
            chips[p] = -paid
            chips[landlord] = _int(chips[landlord]) + paid
    else:
        due = sum(pair) * stake
        have = _stack(stacks, landlord)
        paid = min(due, have)
        short = paid < due
        chips[landlord] = -paid
        second = paid * pair[1] // sum(pair) if short else pair[1] * stake
        chips[peasants[0]] = paid - second
        chips[peasants[1]] = second
    new_stacks = [None if s is None else s + _int(chips[i]) for i, s in enumerate(stacks)]
    return Settlement(points, owed, chips, new_stacks, short)


def _stack(stacks: list[int | None], seat: int) -> int:
    s = stacks[seat]
    if s is None:
        raise ValueError(f"seat {seat} has no stack")
    return s


def _int(v: int | None) -> int:
    return 0 if v is None else v
