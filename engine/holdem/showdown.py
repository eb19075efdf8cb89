"""Showdown order, who shows and who mucks, and awarding each pot.

Show order: the last seat to bet or raise in the final betting round shows first;
when that round was checked through (or had no betting), the first live seat left of
the button does. Play continues clockwise.

Mucking (automatic and deterministic): a seat shows when, for at least one contested
pot it can win (a pot with two or more eligible seats), no hand already shown by a
seat eligible for that pot beats it (a tie still shows, as it may split). Otherwise
it cannot win anything and its cards go to the muck unseen. When the board was run
out because no more betting was possible (all-in), every live hand is turned face up
and nobody mucks.

A pot with a single eligible seat goes to that seat without a showdown.

Showing by choice: once the hand is over, any seat dealt into it whose cards were not
shown (a muck, a fold, a pot won uncontested) may turn them face up (:func:`show`).
It changes no chips.
"""

from __future__ import annotations

from typing import Any

from ..errors import IllegalAction
from .evaluator import best_five, describe, evaluate
from .pots import Pot, seats_from, split_pot
from .state import HoldemState, clone


def show_order(state: HoldemState) -> list[int]:
    """Live seats in the order they show their hands."""
    live = state.live_seats()
    first = state.last_aggressor
    if first is None or first not in live:
        first = seats_from(state.button, live, state.n_seats)[0]
    return seats_from(first - 1, live, state.n_seats)


def showdown(state: HoldemState, events: list[dict[str, Any]], reveal_all: bool) -> None:
    """Show or muck in order, then award every pot (mutates ``state``)."""
    values = {s: evaluate(state.hole[s] + state.board) for s in state.live_seats()}
    contested = [p for p in state.pots if len(p.eligible) >= 2]
    shown: list[int] = []
    mucked: list[int] = []
    for seat in show_order(state):
        if reveal_all or _can_win_something(seat, values, contested, shown):
            shown.append(seat)
            state.shown[seat] = True
        else:
            mucked.append(seat)
    events.append({
        "type": "showdown",
        "hands": [{"seat": s, "cards": list(state.hole[s]), "value": values[s],
                   "description": describe(values[s]), "best": best_five(state.hole[s] + state.board)}
                  for s in shown],
        "mucked": mucked,
    })
    award_pots(state, events, {s: values[s] for s in shown})


def _can_win_something(seat: int, values: dict[int, int], contested: list[Pot],
                       shown: list[int]) -> bool:
    mine = values[seat]
    for pot in contested:
        if seat in pot.eligible and all(values[o] <= mine for o in shown if o in pot.eligible):
            return True
    return False


def award_pots(state: HoldemState, events: list[dict[str, Any]], shown_values: dict[int, int]) -> None:
    """Pay every pot to its best shown hand(s); a pot with one eligible seat goes to it.

    Each pot is split separately; odd chips go one at a time to the winners starting
    with the first winner left of the button.
    """
    for index, pot in enumerate(state.pots):
        if len(pot.eligible) == 1:
            winners = list(pot.eligible)
            description = None
        else:
            contenders = [s for s in pot.eligible if s in shown_values]
            best = max(shown_values[s] for s in contenders)
            winners = [s for s in contenders if shown_values[s] == best]
            description = describe(best)
        shares = split_pot(pot.amount, winners, state.button, state.n_seats)
        for seat, chips in shares:
            state.stacks[seat] = (state.stacks[seat] or 0) + chips
            state.won[seat] += chips
        events.append({
            "type": "award",
            "pot": index,
            "amount": pot.amount,
            "eligible": list(pot.eligible),
            "winners": [s for s, _ in shares],
            "shares": [{"seat": s, "amount": chips} for s, chips in shares],
            "hand": description,
        })


def show(state: HoldemState, seat: int) -> tuple[HoldemState, list[dict[str, Any]]]:
    """``seat`` shows its hole cards after the hand (see the module docstring).

    Raises :class:`IllegalAction` ``hand_not_over`` while the hand is played, and
    ``nothing_to_show`` for a seat not dealt in or already shown.
    """
    if not state.is_over:
        raise IllegalAction("hand_not_over", "cards can be shown once the hand is over")
    if not 0 <= seat < state.n_seats or not state.in_hand[seat] or not state.hole[seat]:
        raise IllegalAction("nothing_to_show", "you were not dealt into this hand")
    if state.shown[seat]:
        raise IllegalAction("nothing_to_show", "your cards are already face up")
    new = clone(state)
    new.shown[seat] = True
    event: dict[str, Any] = {"type": "show", "seat": seat, "cards": list(new.hole[seat])}
    if len(new.board) >= 3:
        value = evaluate(new.hole[seat] + new.board)
        event.update(value=value, description=describe(value))
    return new, [event]
