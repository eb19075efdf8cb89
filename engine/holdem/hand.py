"""Dealing a no-limit Hold'em hand and playing its betting rounds.

``new_hand`` posts antes and blinds and deals; ``apply`` takes one action and moves
the hand on: to the next seat, the next street, an automatic run-out when no more
betting is possible, a showdown, or an award when everyone else folded.

Seat order: "left of" a seat is the next occupied seat with a higher index,
wrapping around. The small blind is the seat left of the button and the big blind
the next one; heads-up the button posts the small blind, acts first pre-flop and
last on later streets. Pre-flop the seat left of the big blind acts first; on later
streets the first seat left of the button that can still bet does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..config import Option, parse_options
from ..errors import ConfigError, IllegalAction
from ..seating import check_deck, parse_seats
from .legal import legal_actions
from .pots import Pot, seats_from, side_pots, uncalled_bet
from .showdown import award_pots, showdown
from .state import HoldemState, clone

MAX_SEATS = 10
DECK_SIZE = 52
ACTION_TYPES = ("fold", "check", "call", "raise", "bet", "all_in")

OPTIONS: list[Option] = [
    Option("small_blind", int, 50, "Small blind, posted by the seat left of the button (heads-up: the button).", min=1),
    Option("big_blind", int, 100, "Big blind, posted by the next seat; also the minimum bet. Must be at least the small blind.", min=1),
    Option("ante", int, 0, "Ante every seat dealt in posts before the blinds (dead money, not part of the bet).", min=0),
]

Events = list[dict[str, Any]]


# ---------------------------------------------------------------- new hand

def new_hand(config: Mapping[str, Any], seats: Sequence[Any], deck: Sequence[int]) -> HoldemState:
    """Post antes and blinds and deal; the opening events are kept in ``state.opening``.

    ``config`` holds the :data:`OPTIONS` (missing ones take their defaults) and
    ``"button"``, an occupied seat. ``seats`` lists ``(player_id, stack)`` or ``None``
    by seat: 2 to 10 players, at most 10 seats, every stack at least 1. ``deck`` is the
    52 distinct cards in dealing order. Raises :class:`ConfigError` (a ``ValueError``)
    for bad options or seats, ``ValueError`` for a bad deck.

    If the blinds and antes leave no betting possible, the board is run out and the
    hand is already over.
    """
    state, _ = start_hand(config, seats, deck)
    return state


def start_hand(config: Mapping[str, Any], seats: Sequence[Any],
               deck: Sequence[int]) -> tuple[HoldemState, Events]:
    """Like :func:`new_hand` but also returns the opening events (blinds, deals ...)."""
    options, button = _parse_config(config)
    players, stacks = _parse_seats(seats)
    cards = check_deck(deck, DECK_SIZE)
    if button >= len(players) or players[button] is None:
        raise ConfigError("button", f"must be an occupied seat, got {button!r}")
    n = len(players)
    occupied = [s for s in range(n) if players[s] is not None]
    state = HoldemState(
        small_blind=options["small_blind"], big_blind=options["big_blind"], ante=options["ante"],
        button=button, players=players, start_stacks=list(stacks), stacks=list(stacks),
        hole=[[] for _ in range(n)], in_hand=[p is not None for p in players],
        folded=[False] * n, shown=[False] * n, bets=[0] * n, committed=[0] * n, won=[0] * n,
        acted=[None] * n, pots=[], board=[], burned=[], deck=cards, street="preflop",
        current_bet=options["big_blind"], min_raise=options["big_blind"], last_aggressor=None,
        to_act=None, is_over=False, opening=[],
    )
    events: Events = [{
        "type": "hand_start",
        "button": button,
        "small_blind": state.small_blind,
        "big_blind": state.big_blind,
        "ante": state.ante,
        "seats": [None if players[s] is None else {"seat": s, "player": players[s], "stack": stacks[s]}
                  for s in range(n)],
    }]
    order = seats_from(button, occupied, n)  # clockwise from the seat left of the button
    if state.ante:
        for seat in order:
            amount = min(state.ante, state.stacks[seat])
            state.stacks[seat] -= amount
            state.committed[seat] += amount
            events.append({"type": "ante", "seat": seat, "amount": amount,
                           "all_in": state.stacks[seat] == 0})
        state.pots = side_pots(state.committed, state.in_hand,
                               [state.is_all_in(s) for s in range(n)])
    small = button if len(occupied) == 2 else order[0]
    big = seats_from(small, occupied, n)[0]
    for seat, kind, size in ((small, "small", state.small_blind), (big, "big", state.big_blind)):
        amount = min(size, state.stacks[seat])
        if amount == 0:
            continue
        state.stacks[seat] -= amount
        state.bets[seat] += amount
        state.committed[seat] += amount
        events.append({"type": "blind", "seat": seat, "kind": kind, "amount": amount,
                       "all_in": state.stacks[seat] == 0})
    for _ in range(2):
        for seat in order:
            state.hole[seat].append(state.deck.pop(0))
    for seat in order:
        events.append({"type": "deal", "seat": seat, "cards": list(state.hole[seat]),
                       "only": [seat], "secret": ["cards"]})
    _move_on(state, events, after=big)
    state.opening = list(events)
    return state, events


def start_events(state: HoldemState) -> Events:
    """The events that opened the hand (``hand_start``, antes, blinds, private deals ...).

    If the blinds and antes left no betting to do, they run on to the showdown, the
    awards and ``hand_over``. Deal events carry ``"only"``/``"secret"``.
    """
    return [dict(e) for e in state.opening]


def check_options(options: Mapping[str, Any]) -> None:
    """The rules between options: the big blind is at least the small blind."""
    if options["big_blind"] < options["small_blind"]:
        raise ConfigError("big_blind", f"must be at least the small blind ({options['small_blind']}), "
                                       f"got {options['big_blind']}")


def _parse_config(config: Mapping[str, Any]) -> tuple[dict[str, Any], int]:
    if not isinstance(config, Mapping):
        raise ConfigError("config", "must be a map of option names to values")
    given = {k: v for k, v in config.items() if k != "button"}
    options = parse_options(OPTIONS, given)
    check_options(options)
    if "button" not in config:
        raise ConfigError("button", "missing: the dealer seat")
    button = config["button"]
    if isinstance(button, bool) or not isinstance(button, int) or button < 0:
        raise ConfigError("button", f"must be a seat number, got {button!r}")
    return options, button


def _parse_seats(seats: Sequence[Any]) -> tuple[list[str | None], list[int | None]]:
    if isinstance(seats, Sequence) and len(seats) > MAX_SEATS:
        raise ConfigError("seats", f"at most {MAX_SEATS} seats, got {len(seats)}")
    players, stacks = parse_seats(seats, min_stack=1)  # no chips: cannot be dealt in
    count = sum(p is not None for p in players)
    if not 2 <= count <= MAX_SEATS:
        raise ConfigError("seats", f"2 to {MAX_SEATS} players needed, got {count}")
    return players, stacks


# ---------------------------------------------------------------- actions

def apply(state: HoldemState, seat: int, action: Mapping[str, Any]) -> tuple[HoldemState, Events]:
    """Take ``seat``'s action; return the new state and what happened.

    Actions: ``{"type": "fold"}``, ``{"type": "check"}``, ``{"type": "call"}``,
    ``{"type": "raise", "to": N}`` (``"bet"`` is an alias) and ``{"type": "all_in"}``.
    Raises :class:`IllegalAction` (codes ``hand_over``, ``bad_action``,
    ``not_your_turn``, ``bad_amount``) without changing ``state``.
    """
    if state.is_over:
        raise IllegalAction("hand_over", "the hand is over")
    if not isinstance(action, Mapping):
        raise IllegalAction("bad_action", "an action is a map with a \"type\"")
    kind = action.get("type")
    if not isinstance(kind, str) or kind not in ACTION_TYPES:
        raise IllegalAction("bad_action", f"unknown action type {kind!r} "
                                          f"(expected one of {', '.join(ACTION_TYPES)})")
    if isinstance(seat, bool) or not isinstance(seat, int) or seat != state.to_act:
        raise IllegalAction("not_your_turn", f"seat {seat!r} may not act now (to act: {state.to_act})")
    legal = legal_actions(state, seat)
    new = clone(state)
    events: Events = []
    if kind == "fold":
        if not legal.fold:
            raise IllegalAction("bad_action", "nothing to call: check instead of folding")
        new.folded[seat] = True
        events.append({"type": "action", "seat": seat, "action": "fold"})
    elif kind == "check":
        if not legal.check:
            raise IllegalAction("bad_action", f"cannot check: {legal.call} to call")
        new.acted[seat] = new.current_bet
        events.append({"type": "action", "seat": seat, "action": "check"})
    elif kind == "call":
        if legal.call == 0:
            raise IllegalAction("bad_action", "nothing to call: check instead")
        _put_in(new, seat, legal.call)
        new.acted[seat] = new.current_bet
        events.append({"type": "action", "seat": seat, "action": "call", "amount": legal.call,
                       "to": new.bets[seat], "all_in": new.stacks[seat] == 0})
    elif kind in ("raise", "bet"):
        to = action.get("to")
        if isinstance(to, bool) or not isinstance(to, int):
            raise IllegalAction("bad_amount", f"\"to\" must be a whole number of chips, got {to!r}")
        if legal.min_to is None or legal.max_to is None:
            raise IllegalAction("bad_action", "raising is not allowed now")
        if not legal.min_to <= to <= legal.max_to:
            raise IllegalAction("bad_amount", f"raise to between {legal.min_to} and {legal.max_to}, got {to}")
        events.append(_raise_to(new, seat, to))
    else:  # all_in
        if not legal.all_in:
            raise IllegalAction("bad_action", "going all-in would be a raise, which is not allowed now")
        if legal.max_to is not None:
            events.append(_raise_to(new, seat, legal.max_to))
        else:
            _put_in(new, seat, legal.call)
            new.acted[seat] = new.current_bet
            events.append({"type": "action", "seat": seat, "action": "call", "amount": legal.call,
                           "to": new.bets[seat], "all_in": True})
    _move_on(new, events, after=seat)
    return new, events


def _put_in(state: HoldemState, seat: int, amount: int) -> None:
    state.stacks[seat] -= amount
    state.bets[seat] += amount
    state.committed[seat] += amount


def _raise_to(state: HoldemState, seat: int, to: int) -> dict[str, Any]:
    """Bet or raise ``seat`` to a total of ``to`` this street; returns the event."""
    name = "bet" if state.current_bet == 0 else "raise"
    added = to - state.bets[seat]
    increment = to - state.current_bet
    _put_in(state, seat, added)
    full = increment >= state.min_raise
    if full:
        state.min_raise = increment
    state.current_bet = to
    state.acted[seat] = to
    state.last_aggressor = seat
    return {"type": "action", "seat": seat, "action": name, "amount": added, "to": to,
            "all_in": state.stacks[seat] == 0, "full_raise": full}


# ---------------------------------------------------------------- flow

def _needs_to_act(state: HoldemState, seat: int, bettors: int) -> bool:
    """Whether ``seat`` still has a decision to make on this street.

    A seat facing a bet must act (when it is the only seat left with chips, only
    if someone actually put in more than it: calling a blind nobody posted would
    just be handed back). A seat that has not acted yet acts if a raise by it could
    still be answered (the big blind's option when limped to).
    """
    if not state.can_bet(seat):
        return False
    if state.bets[seat] < state.current_bet:
        if bettors >= 2:
            return True
        return any(state.bets[o] > state.bets[seat] for o in state.live_seats())
    return state.acted[seat] is None and state.raise_can_be_answered(seat)


def _move_on(state: HoldemState, events: Events, after: int) -> None:
    """After an action (or the blinds): next seat, next street, run-out or the end."""
    live = state.live_seats()
    if len(live) == 1:  # everyone else folded: the last seat takes everything unseen
        _close_street(state, events)
        state.pots = [Pot(sum(p.amount for p in state.pots), live)]
        award_pots(state, events, {})
        _finish(state, events)
        return
    bettors = sum(state.can_bet(s) for s in live)
    for seat in state.clockwise_from(after):
        if _needs_to_act(state, seat, bettors):
            state.to_act = seat
            return
    _close_street(state, events)
    bettors = sum(state.can_bet(s) for s in live)
    if bettors <= 1:  # no more betting possible: run the board out, every hand face up
        while len(state.board) < 5:
            _deal_street(state, events)
        showdown(state, events, reveal_all=True)
        _finish(state, events)
    elif state.street == "river":
        showdown(state, events, reveal_all=False)
        _finish(state, events)
    else:
        _deal_street(state, events)
        state.current_bet = 0
        state.min_raise = state.big_blind
        state.acted = [None] * state.n_seats
        state.last_aggressor = None
        state.to_act = next(s for s in state.clockwise_from(state.button) if state.can_bet(s))


def _close_street(state: HoldemState, events: Events) -> None:
    """Return the uncalled part of the biggest bet, then gather the bets into pots."""
    state.to_act = None
    uncalled = uncalled_bet(state.bets)
    if uncalled is not None:
        seat, amount = uncalled
        state.bets[seat] -= amount
        state.committed[seat] -= amount
        state.stacks[seat] += amount
        events.append({"type": "return", "seat": seat, "amount": amount})
    gathered = any(state.bets)
    state.bets = [0] * state.n_seats
    state.pots = side_pots(state.committed, [state.is_live(s) for s in range(state.n_seats)],
                           [state.is_all_in(s) for s in range(state.n_seats)])
    if gathered:
        events.append({"type": "pots", "pots": [p.to_wire() for p in state.pots]})


def _deal_street(state: HoldemState, events: Events) -> None:
    count, name = {0: (3, "flop"), 3: (1, "turn"), 4: (1, "river")}[len(state.board)]
    state.burned.append(state.deck.pop(0))
    cards = [state.deck.pop(0) for _ in range(count)]
    state.board.extend(cards)
    state.street = name
    events.append({"type": "board", "street": name, "cards": cards, "board": list(state.board)})


def _finish(state: HoldemState, events: Events) -> None:
    state.pots = []
    state.to_act = None
    state.is_over = True
    state.street = "over"
    events.append({"type": "hand_over", "stacks": list(state.stacks), "won": list(state.won)})


__all__ = ["OPTIONS", "check_options", "new_hand", "start_hand", "start_events", "apply", "Pot"]
