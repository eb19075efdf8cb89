"""What one seat (or a spectator) may see of a hand: plain, JSON- and msgpack-safe data.

A seat sees its own hole cards; other hole cards appear only once shown: at the
showdown, or by their seat's choice after the hand (:func:`.showdown.show`). Folded and
mucked hands are otherwise never revealed.

Given a memo (see :class:`engine.game.Game`), a view keeps the last view of each seat
(handed back while the state is the same) and the part every seat sees alike, rendered
once per state: under the seat, and under ``"public"``.
"""

from __future__ import annotations

from typing import Any

from ..game import ViewMemo, memo_view
from .evaluator import describe, evaluate
from .legal import legal_actions, legal_to_wire
from .state import HoldemState


def view(state: HoldemState, seat: int | None, memo: ViewMemo | None = None) -> dict[str, Any]:
    """The table as ``seat`` sees it (``None``: a spectator)."""
    if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int)
                             or not 0 <= seat < state.n_seats):
        seat = None
    return memo_view(state, seat, memo, _public, _view)


def _view(state: HoldemState, seat: int | None, public: dict[str, Any], memo: ViewMemo | None) -> dict[str, Any]:
    """The view of ``seat``: the ``public`` part, then the seat's own."""
    own = seat is not None and state.in_hand[seat]
    legal = legal_actions(state, seat) if seat is not None else None
    return {
        **public,
        "you": seat,
        "hole": list(state.hole[seat]) if own else None,
        "legal": legal_to_wire(legal) if legal is not None else None,
    }


def _public(state: HoldemState, memo: ViewMemo | None) -> dict[str, Any]:
    """The members of a view that every seat sees alike (all but ``you``, ``hole`` and ``legal``)."""
    seats: list[dict[str, Any] | None] = []
    for s in range(state.n_seats):
        if state.players[s] is None:
            seats.append(None)
            continue
        shown = state.shown[s]
        seats.append({
            "seat": s,
            "player": state.players[s],
            "stack": state.stacks[s],
            "bet": state.bets[s],
            "in_hand": state.in_hand[s],
            "folded": state.folded[s],
            "all_in": state.is_all_in(s),
            "shown": shown,  # face up for everyone (showdown, or shown after the hand)
            "cards": list(state.hole[s]) if shown else None,
            "hand": describe(evaluate(state.hole[s] + state.board)) if shown and len(state.board) >= 3 else None,
            "won": state.won[s],
        })
    return {
        "game": "holdem",
        "street": state.street,
        "button": state.button,
        "small_blind": state.small_blind,
        "big_blind": state.big_blind,
        "ante": state.ante,
        "board": list(state.board),
        "pots": [p.to_wire() for p in state.pots],
        "current_bet": state.current_bet if not state.is_over else 0,
        "to_act": state.to_act,
        "is_over": state.is_over,
        "seats": seats,
    }
