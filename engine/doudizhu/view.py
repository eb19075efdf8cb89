"""What one seat (or a spectator) may see of a hand: plain JSON- and msgpack-safe data.

A seat sees its own cards, everyone's card count, every move so far, the bids, the
bottom cards once the landlord has taken them, and the multiplier so far; never
another seat's cards, except the landlord's once shown face up (明牌, option
``open_hand``), which every viewer then sees on the landlord's seat (``shown``). Once the hand is over, the ``result`` (the ``hand_over`` event)
shows every seat's remaining cards, as players do at the end of a hand.
"""

from __future__ import annotations

from typing import Any

from .hand import multiplier_so_far, seat_multipliers_so_far
from .legal import legal_actions, legal_to_wire
from .ranks import counts_from_cards, format_counts
from .state import DoudizhuState


def view(state: DoudizhuState, seat: int | None) -> dict[str, Any]:
    """The view of ``seat`` (``None``: a spectator)."""
    own = seat is not None and 0 <= seat < len(state.players) and state.players[seat] is not None
    seats: list[dict[str, Any] | None] = []
    # each seat's own multiplier: only a room with doubling has one apart from the hand's
    doubling = state.options.get("doubling") and state.landlord is not None
    multipliers = seat_multipliers_so_far(state) if doubling else _NO_MULTIPLIER * len(state.players)
    for s, player in enumerate(state.players):
        if player is None:
            seats.append(None)
            continue
        role = None if state.landlord is None else ("landlord" if s == state.landlord else "peasant")
        shown = list(state.hands[s]) if state.open_hand > 1 and s == state.landlord else None
        seats.append({"seat": s, "player": player, "stack": state.stacks[s],
                      "cards_left": len(state.hands[s]), "role": role, "shown": shown,
                      "doubled": state.doubled[s], "multiplier": multipliers[s]})
    hand = list(state.hands[seat]) if own and seat is not None else None
    b = state.bidding
    return {
        "game": "doudizhu",
        "phase": state.phase,
        "to_act": state.to_act,
        "is_over": state.is_over,
        "button": state.button,
        "you": seat if own else None,
        "seats": seats,
        "order": list(state.order),
        "hand": hand,
        "hand_ranks": None if hand is None else format_counts(counts_from_cards(hand)),
        "landlord": state.landlord,
        "bottom": list(state.bottom) if state.bottom_taken else None,
        "bidding": {
            "style": b.style,
            "history": [dict(h) for h in b.history],
            "high_bid": b.high_bid,
            "caller": b.caller,
            "robs": b.robs,
            "leader": b.leader,
        },
        "multiplier": multiplier_so_far(state),
        "open_hand": state.open_hand,
        "bombs": state.bombs,
        "rockets": state.rockets,
        "to_beat": _move(state.to_beat),
        "trick": [_move(m) for m in state.trick],
        "history": [_move(m) for m in state.history],
        "options": dict(state.options),
        "legal": legal_to_wire(legal_actions(state, seat)) if own and seat is not None else None,
        "result": _plain(state.result),
    }


_NO_MULTIPLIER: list[int | None] = [None]


def _move(m: dict[str, Any] | None) -> dict[str, Any] | None:
    if m is None:
        return None
    out = dict(m)
    if "cards" in out:
        out["cards"] = list(out["cards"])
    return out


def _plain(v: Any) -> Any:
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [_plain(x) for x in v]
    return v
