"""What one seat (or a spectator) may see of a hand."""

from __future__ import annotations

from typing import Any

from .legal import legal_actions, legal_to_wire
from .options import rules_of
from .ranking import category, describe
from .state import OUT, ZjhState


def visible_cards(state: ZjhState, viewer: int | None, seat: int) -> list[int] | None:
    """``seat``'s cards if ``viewer`` may see them, else None.

    A seat sees its own cards once it looked; cards a compare showed it (the loser's
    hand to the winner, both hands to the loser); and every hand a showdown revealed.
    """
    hand = state.hands[seat]
    if hand is None:
        return None
    if seat in state.shown:
        return list(hand)
    if viewer is None or not 0 <= viewer < len(state.hands):
        return None
    if (viewer == seat and state.seen[seat]) or seat in state.known[viewer]:
        return list(hand)
    return None


def view(state: ZjhState, seat: int | None) -> dict[str, Any]:
    """The hand as ``seat`` sees it (``None``: a spectator). JSON- and msgpack-safe.

    ``seats`` lists every seat (None when empty) with its player, stack, chips paid,
    status (``playing``/``folded``/``lost``/``out``), whether it looked (``seen``),
    and ``cards`` only when the viewer may see them (with ``category`` and
    ``description``). ``legal`` is the viewer's actions in wire form (see
    ``legal_to_wire``), present whenever it may do anything, looking included.
    """
    rules = rules_of(state.options)
    seats: list[dict[str, Any] | None] = []
    for s, player in enumerate(state.players):
        if player is None:
            seats.append(None)
            continue
        cards = visible_cards(state, seat, s)
        entry: dict[str, Any] = {
            "seat": s,
            "player": player,
            "stack": state.stacks[s],
            "paid": state.paid[s],
            "status": state.status[s],
            "seen": state.seen[s],
            "dealt_in": state.status[s] != OUT,
            "shown": s in state.shown,  # face up for everyone (showdown, or shown after the hand)
            "cards": cards,
        }
        if cards is not None:
            entry["category"] = category(cards)
            entry["description"] = describe(cards, rules)
        seats.append(entry)
    out: dict[str, Any] = {
        "game": "zhajinhua",
        "you": seat,
        "to_act": state.to_act,
        "is_over": state.is_over,
        "button": state.button,
        "round": state.round,
        "max_rounds": state.options["max_rounds"],
        "stake": state.stake,
        "max_stake": state.options["max_stake"],
        "ante": state.options["ante"],
        "pot": sum(state.paid),
        "seats": seats,
        "options": dict(state.options),
        "legal": None,
    }
    if seat is not None:
        out["legal"] = legal_to_wire(legal_actions(state, seat))
    if state.is_over:
        out["winner"] = state.winner
        out["payouts"] = [{"seat": s, "amount": a} for s, a in enumerate(state.payouts) if a]
    return out
