"""What one seat (or a spectator) may see of a hand: plain JSON- and msgpack-safe data.

A seat sees its own cards, everyone's card count, every move so far, the bids, the
bottom cards once the landlord has taken them, and the multiplier so far; never
another seat's cards, except the landlord's once shown face up (明牌, option
``open_hand``), which every viewer then sees on the landlord's seat (``shown``). Once the hand is over, the ``result`` (the ``hand_over`` event)
shows every seat's remaining cards, as players do at the end of a hand.

Given a memo (see :class:`engine.game.Game`), a view keeps the last view of each seat
(handed back while the state is the same), the part every seat sees alike, rendered once
per state, the moves rendered (a move never changes: the history of the next state is the
last one's and its new moves), the bidding, options and result while they are the same
objects, and each seat's cards and ranks while its cards are the same.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import is_
from typing import Any

from ..game import ViewMemo, memo_view
from .bidding import Bidding
from .hand import multiplier_so_far, seat_multipliers_so_far
from .legal import legal_actions, legal_to_wire
from .ranks import counts_from_cards, format_counts
from .state import DoudizhuState


def view(state: DoudizhuState, seat: int | None, memo: ViewMemo | None = None) -> dict[str, Any]:
    """The view of ``seat`` (``None``: a spectator)."""
    return memo_view(state, seat, memo, _public, _view)


def _view(state: DoudizhuState, seat: int | None, public: dict[str, Any], memo: ViewMemo | None) -> dict[str, Any]:
    """The view of ``seat`` from the ``public`` part: its ``you``, cards and ``legal``."""
    own = seat is not None and 0 <= seat < len(state.players) and state.players[seat] is not None
    hand, ranks = _hand(state, seat, memo) if own and seat is not None else (None, None)
    return {
        **public["head"],
        "you": seat if own else None,
        "seats": public["seats"],
        "order": public["order"],
        "hand": hand,
        "hand_ranks": ranks,
        **public["middle"],
        "legal": legal_to_wire(legal_actions(state, seat)) if own and seat is not None else None,
        "result": public["result"],
    }


def _public(state: DoudizhuState, memo: ViewMemo | None) -> dict[str, Any]:
    """The parts of a view that every seat sees alike, by where they go in it: the
    members before ``you`` (``head``), the seats and the turn order, the members from
    ``landlord`` to ``options`` (``middle``) and the result."""
    # each seat's own multiplier: only a room with doubling has one apart from the hand's
    doubling = state.options.get("doubling") and state.landlord is not None
    multipliers = seat_multipliers_so_far(state) if doubling else _NO_MULTIPLIER * len(state.players)
    return {
        "head": {
            "game": "doudizhu",
            "phase": state.phase,
            "to_act": state.to_act,
            "is_over": state.is_over,
            "button": state.button,
        },
        "seats": [None if player is None else _seat(state, s, multipliers[s])
                  for s, player in enumerate(state.players)],
        "order": list(state.order),
        "middle": {
            "landlord": state.landlord,
            "bottom": list(state.bottom) if state.bottom_taken else None,
            "bidding": _kept(memo, "bidding", state.bidding, _bidding),
            "multiplier": multiplier_so_far(state),
            "open_hand": state.open_hand,
            "bombs": state.bombs,
            "rockets": state.rockets,
            "to_beat": _move(state.to_beat, memo),
            "trick": [_move(m, memo) for m in state.trick],
            "history": _history(state, memo),
            "options": _kept(memo, "options", state.options, dict),
        },
        "result": _kept(memo, "result", state.result, _plain),
    }


_NO_MULTIPLIER: list[int | None] = [None]


def _seat(state: DoudizhuState, s: int, multiplier: int | None) -> dict[str, Any]:
    """Seat ``s`` as every viewer sees it."""
    role = None if state.landlord is None else ("landlord" if s == state.landlord else "peasant")
    shown = list(state.hands[s]) if state.open_hand > 1 and s == state.landlord else None
    return {"seat": s, "player": state.players[s], "stack": state.stacks[s],
            "cards_left": len(state.hands[s]), "role": role, "shown": shown,
            "doubled": state.doubled[s], "multiplier": multiplier}


def _hand(state: DoudizhuState, seat: int, memo: ViewMemo | None) -> tuple[list[int], str]:
    """``seat``'s cards and their ranks, kept in ``memo`` while the cards are the same."""
    cards = tuple(state.hands[seat])
    kept = memo.get(("hand", seat)) if memo is not None else None
    if kept is not None and kept[0] == cards:
        return kept[1]
    hand = list(cards)
    out = hand, format_counts(counts_from_cards(hand))
    if memo is not None:
        memo[("hand", seat)] = (cards, out)
    return out


def _history(state: DoudizhuState, memo: ViewMemo | None) -> list[dict[str, Any]]:
    """Every move so far: the list rendered last, or that list and the moves made since
    (the moves rendered last begin the history: the same objects, in order)."""
    if memo is None:
        return [_move(m, None) for m in state.history]
    kept = memo.get("history")
    moves = state.history
    if kept is not None and len(kept[0]) <= len(moves) and all(map(is_, kept[0], moves)):
        done, wire = kept
        if len(done) == len(moves):
            return wire
        wire = wire + [_move(m, memo) for m in moves[len(done):]]
    else:
        memo["moves"] = {}  # another hand: forget the moves of the last
        wire = [_move(m, memo) for m in moves]
    memo["history"] = (list(moves), wire)
    return wire


def _move(m: dict[str, Any] | None, memo: ViewMemo | None) -> dict[str, Any] | None:
    """A move as a view shows it: rendered once per move object while ``memo`` keeps it."""
    if m is None:
        return None
    moves = memo.get("moves") if memo is not None else None
    if moves is not None:
        kept = moves.get(id(m))
        if kept is not None and kept[0] is m:
            return kept[1]
    out = dict(m)
    if "cards" in out:
        out["cards"] = list(out["cards"])
    if moves is not None:
        moves[id(m)] = (m, out)  # the move is kept too: its id is not another's
    return out


def _bidding(b: Bidding) -> dict[str, Any]:
    """The auction as a view shows it."""
    return {
        "style": b.style,
        "history": [dict(h) for h in b.history],
        "high_bid": b.high_bid,
        "caller": b.caller,
        "robs": b.robs,
        "leader": b.leader,
    }


def _kept(memo: ViewMemo | None, name: str, source: Any, render: Callable[[Any], Any]) -> Any:
    """``render(source)``, kept in ``memo`` under ``name`` while ``source`` is the same
    object (which is never changed in place)."""
    if memo is None:
        return render(source)
    kept = memo.get(name)
    if kept is None or kept[0] is not source:
        kept = memo[name] = (source, render(source))
    return kept[1]


def _plain(v: Any) -> Any:
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [_plain(x) for x in v]
    return v
