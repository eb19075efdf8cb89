"""What one seat (or a spectator) may see of a hand.

Given a memo (see :class:`engine.game.Game`), a view keeps the last view of each seat
(handed back while the state is the same), the part every seat sees alike, rendered once
per state (the seats as a spectator sees them among it: a seat that sees no more shares
them), the copy of the options while they are the same, and the names of each seat's
cards while they are the same.
"""

from __future__ import annotations

from typing import Any

from ..game import ViewMemo, memo_view
from .legal import legal_actions, legal_to_wire
from .options import rules_of
from .ranking import Rules, category, describe
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


def view(state: ZjhState, seat: int | None, memo: ViewMemo | None = None) -> dict[str, Any]:
    """The hand as ``seat`` sees it (``None``: a spectator). JSON- and msgpack-safe.

    ``seats`` lists every seat (None when empty) with its player, stack, chips paid,
    status (``playing``/``folded``/``lost``/``out``), whether it looked (``seen``),
    and ``cards`` only when the viewer may see them (with ``category`` and
    ``description``). ``legal`` is the viewer's actions in wire form (see
    ``legal_to_wire``), present whenever it may do anything, looking included.
    """
    return memo_view(state, seat, memo, _public, _view)


def _view(state: ZjhState, seat: int | None, public: dict[str, Any], memo: ViewMemo | None) -> dict[str, Any]:
    """The view of ``seat`` from the ``public`` part: its ``you``, the seats as it sees
    them, its ``legal``."""
    out = {
        "game": "zhajinhua",
        "you": seat,
        **public["head"],
        "seats": _seats_seen(state, seat, public["seats"], memo),
        "options": public["options"],
        "legal": None if seat is None else legal_to_wire(legal_actions(state, seat)),
    }
    if state.is_over:
        out["winner"] = state.winner
        out["payouts"] = public["payouts"]
    return out


def _public(state: ZjhState, memo: ViewMemo | None) -> dict[str, Any]:
    """The parts of a view that every seat sees alike: the members from ``to_act`` to
    ``pot`` (``head``), the seats as a spectator sees them, the options (the copy kept
    in ``memo`` while they are the same object) and, once the hand is over, the payouts."""
    rules = rules_of(state.options)
    options = memo.get("options") if memo is not None else None
    if options is None or options[0] is not state.options:
        options = (state.options, dict(state.options))
        if memo is not None:
            memo["options"] = options
    return {
        "head": {
            "to_act": state.to_act,
            "is_over": state.is_over,
            "button": state.button,
            "round": state.round,
            "max_rounds": state.options["max_rounds"],
            "stake": state.stake,
            "max_stake": state.options["max_stake"],
            "ante": state.options["ante"],
            "pot": sum(state.paid),
        },
        "seats": [None if player is None else _seat(state, s, visible_cards(state, None, s), rules, memo)
                  for s, player in enumerate(state.players)],
        "options": options[1],
        "payouts": [{"seat": s, "amount": a} for s, a in enumerate(state.payouts) if a] if state.is_over else None,
    }


def _seats_seen(state: ZjhState, viewer: int | None, public: list[dict[str, Any] | None],
                memo: ViewMemo | None) -> list[dict[str, Any] | None]:
    """The seats as ``viewer`` sees them: a spectator's (``public``, the same list) but
    for the hands only ``viewer`` may see (its own once it looked, those a compare
    showed it; see :func:`visible_cards`)."""
    if viewer is None or not 0 <= viewer < len(state.hands):
        return public
    own = [viewer, *state.known[viewer]] if state.seen[viewer] else state.known[viewer]
    seats = public
    for s in own:
        if state.players[s] is None or s in state.shown:
            continue
        cards = visible_cards(state, viewer, s)
        if cards is not None:
            if seats is public:
                seats = list(public)
            seats[s] = _seat(state, s, cards, rules_of(state.options), memo)
    return seats


def _seat(state: ZjhState, s: int, cards: list[int] | None, rules: Rules, memo: ViewMemo | None) -> dict[str, Any]:
    """Seat ``s`` with ``cards`` shown (None: hidden)."""
    entry: dict[str, Any] = {
        "seat": s,
        "player": state.players[s],
        "stack": state.stacks[s],
        "paid": state.paid[s],
        "status": state.status[s],
        "seen": state.seen[s],
        "dealt_in": state.status[s] != OUT,
        "shown": s in state.shown,  # face up for everyone (showdown, or shown after the hand)
        "cards": cards,
    }
    if cards is not None:
        entry["category"], entry["description"] = _named(s, cards, rules, memo)
    return entry


def _named(s: int, cards: list[int], rules: Rules, memo: ViewMemo | None) -> tuple[str, str]:
    """The category and description of seat ``s``'s ``cards``, kept in ``memo`` while the
    cards and rules are the same (a hand is described once, not once per change and seat)."""
    kept = memo.get(("named", s)) if memo is not None else None
    if kept is not None and kept[0] == cards and kept[1] is rules:
        return kept[2]
    named = category(cards), describe(cards, rules)
    if memo is not None:
        memo[("named", s)] = (cards, rules, named)
    return named
