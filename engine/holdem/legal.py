"""What the seat to act may do: fold, check, call, raise range, all-in.

All amounts are "raise to": a seat's total bet on this street after the action.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .state import HoldemState


@dataclass(frozen=True)
class LegalActions:
    """The actions open to one seat right now; all false/zero/None when it may not act.

    ``call`` is the chips a call adds (0 when there is nothing to call; less than the
    bet faced when the seat is short, which makes the call all-in). ``min_to`` and
    ``max_to`` bound a raise (``None`` when raising is not allowed); ``max_to`` is
    always the seat's all-in total, and ``min_to`` equals it when the seat cannot
    make a full raise. ``all_in`` says whether ``{"type": "all_in"}`` is accepted
    (a raise to ``max_to``, or a call when the stack does not cover the bet).
    """

    fold: bool = False
    check: bool = False
    call: int = 0
    min_to: int | None = None
    max_to: int | None = None
    all_in: bool = False

    def __bool__(self) -> bool:
        return self.fold or self.check or self.call > 0 or self.min_to is not None or self.all_in

    @property
    def can_raise(self) -> bool:
        return self.min_to is not None


NOTHING = LegalActions()


def legal_actions(state: HoldemState, seat: int) -> LegalActions:
    """What ``seat`` may do now; :data:`NOTHING` (falsy) when it is not its turn.

    Folding is offered only when facing a bet (checking is free otherwise). Raising
    needs chips beyond the call, another seat that could still answer it (one with
    more chips than the current bet in front of and behind it), and betting
    open to this seat: it has not acted on this street yet, or the raises since it
    last acted add up to at least one full raise (a lone short all-in does not reopen
    the betting; consecutive short all-ins that together make a full raise do).
    """
    if state.is_over or state.to_act is None or isinstance(seat, bool) or seat != state.to_act:
        return NOTHING
    stack = state.stacks[seat] or 0
    bet = state.bets[seat]
    to_call = max(0, state.current_bet - bet)
    acted = state.acted[seat]
    reopened = acted is None or state.current_bet - acted >= state.min_raise
    can_raise = reopened and stack > to_call and state.raise_can_be_answered(seat)
    all_in_total = bet + stack
    return LegalActions(
        fold=to_call > 0,
        check=to_call == 0,
        call=min(to_call, stack),
        min_to=min(state.current_bet + state.min_raise, all_in_total) if can_raise else None,
        max_to=all_in_total if can_raise else None,
        all_in=stack > 0 and (stack <= to_call or can_raise),
    )


def legal_to_wire(legal: LegalActions) -> dict[str, Any] | None:
    """Plain data for a client, or ``None`` when the seat may do nothing."""
    if not legal:
        return None
    return {
        "fold": legal.fold,
        "check": legal.check,
        "call": legal.call,
        "min_to": legal.min_to,
        "max_to": legal.max_to,
        "all_in": legal.all_in,
    }


def timeout_action(state: HoldemState, seat: int) -> dict[str, Any]:
    """The action taken when ``seat``'s clock runs out: check when free, else fold."""
    if legal_actions(state, seat).check:
        return {"type": "check"}
    return {"type": "fold"}
