"""What a seat may do now, with costs; and its wire form."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .state import PLAYING, ZjhState


@dataclass(frozen=True)
class Legal:
    """The actions open to one seat at this moment.

    ``look``             may look at its cards (any time while live and still blind)
    ``call``             cost of a call, or None
    ``raise_min``/``raise_max``  the range of new unit stakes a raise may name, or None
    ``cost_per_unit``    chips per unit of stake for this seat (1 blind, 2 seen)
    ``compare_targets``  seats it may compare with (empty when compare is not open)
    ``compare_cost``     the compare fee, or None
    ``fold``             may fold
    ``all_in``           chips an all-in would put in (the whole stack), or None
    """

    look: bool = False
    call: int | None = None
    raise_min: int | None = None
    raise_max: int | None = None
    cost_per_unit: int = 1
    compare_targets: tuple[int, ...] = ()
    compare_cost: int | None = None
    fold: bool = False
    all_in: int | None = None

    @property
    def is_empty(self) -> bool:
        return not (self.look or self.fold)


NOTHING = Legal()


def cost_per_unit(state: ZjhState, seat: int) -> int:
    """1 for a blind seat, 2 for a seat that has looked."""
    return 2 if state.seen[seat] else 1


def call_cost(state: ZjhState, seat: int) -> int:
    return state.stake * cost_per_unit(state, seat)


def compare_fee(state: ZjhState, seat: int) -> int:
    return call_cost(state, seat) * state.options["compare_cost_multiplier"]


def compare_open(state: ZjhState) -> bool:
    """Compare is open once ``compare_after_rounds`` rounds are complete."""
    return state.round > state.options["compare_after_rounds"]


def live_seats(state: ZjhState) -> list[int]:
    return [s for s, st in enumerate(state.status) if st == PLAYING]


def legal_actions(state: ZjhState, seat: int) -> Legal:
    """What ``seat`` may do now. A live seat that is not to act may only look."""
    if (state.is_over or isinstance(seat, bool) or not isinstance(seat, int)
            or not 0 <= seat < len(state.status) or state.status[seat] != PLAYING):
        return NOTHING
    look = not state.seen[seat]
    if seat != state.to_act:
        return Legal(look=True) if look else NOTHING
    stack = state.stacks[seat]
    assert stack is not None
    unit = cost_per_unit(state, seat)
    call = state.stake * unit
    if stack < call:
        all_in = stack if state.options["all_in"] == "compare_all" else None
        return Legal(look=look, cost_per_unit=unit, fold=True, all_in=all_in)
    raise_min = state.stake + 1
    raise_max = min(state.options["max_stake"], stack // unit)
    targets: tuple[int, ...] = ()
    fee = None
    if compare_open(state) and compare_fee(state, seat) <= stack:
        targets = tuple(s for s in live_seats(state) if s != seat)
        fee = compare_fee(state, seat) if targets else None
    return Legal(
        look=look,
        call=call,
        raise_min=raise_min if raise_min <= raise_max else None,
        raise_max=raise_max if raise_min <= raise_max else None,
        cost_per_unit=unit,
        compare_targets=targets,
        compare_cost=fee,
        fold=True,
    )


def legal_to_wire(legal: Legal) -> dict[str, Any] | None:
    """Plain data for a client; only the allowed actions appear; None when nothing is.

    ``{"actions": [...], "look": {}, "call": {"cost": 20},
    "raise": {"min": 11, "max": 100, "cost_per_unit": 2, "min_cost": 22, "max_cost": 200},
    "compare": {"targets": [2, 4], "cost": 20}, "fold": {}, "all_in": {"amount": 7}}``
    """
    if legal is None or legal.is_empty:
        return None
    wire: dict[str, Any] = {}
    if legal.look:
        wire["look"] = {}
    if legal.call is not None:
        wire["call"] = {"cost": legal.call}
    if legal.raise_min is not None and legal.raise_max is not None:
        wire["raise"] = {
            "min": legal.raise_min,
            "max": legal.raise_max,
            "cost_per_unit": legal.cost_per_unit,
            "min_cost": legal.raise_min * legal.cost_per_unit,
            "max_cost": legal.raise_max * legal.cost_per_unit,
        }
    if legal.compare_targets:
        wire["compare"] = {"targets": list(legal.compare_targets), "cost": legal.compare_cost}
    if legal.fold:
        wire["fold"] = {}
    if legal.all_in is not None:
        wire["all_in"] = {"amount": legal.all_in}
    return {"actions": list(wire), **wire}
