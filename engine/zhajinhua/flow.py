"""The betting flow of a Zha Jin Hua hand: deal, look, call, raise, compare, fold, all-in.

Money model: one *unit stake* for the whole table, starting at the ante. A blind
seat's call costs the unit stake, a seen seat's (看牌 done) twice it. A raise names a
new, higher unit stake up to ``max_stake`` and costs it (twice for a seen seat). The
compare fee is ``compare_cost_multiplier`` times the initiator's call cost.

Turn order runs left of the dealer (increasing seat numbers, wrapping). A round is
complete when the turn passes the first-to-act position again; after ``max_rounds``
rounds the remaining hands meet in a showdown held in turn order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import ConfigError, IllegalAction
from ..game import Event
from ..seating import check_deck, parse_seats
from .legal import (
    call_cost,
    compare_fee,
    compare_open,
    cost_per_unit,
    legal_actions,
    live_seats,
)
from .options import parse_hand_config, rules_of
from .ranking import best_hand_in_order, category, compare_hands, describe
from .state import FOLDED, LOST, OUT, PLAYING, ZjhState

MAX_PLAYERS = 9
ACTION_TYPES = ("look", "call", "raise", "compare", "fold", "all_in")


def new_hand(config: Mapping[str, Any], seats: Sequence[tuple[str, int] | None],
             deck: Sequence[int]) -> ZjhState:
    """Ante, deal three cards to every seat with at least the ante, first turn left of the dealer.

    Seats whose stack is below the ante sit the hand out (status ``out``). Cards are
    dealt one at a time, starting with the first seat to act: ``deck[0]`` to it,
    ``deck[1]`` to the next dealt-in seat, ..., three times around.
    Raises ConfigError for bad options or a button that is not an occupied seat,
    ValueError for a bad seat list or deck, or fewer than 2 (more than 9) players.
    """
    options, button = parse_hand_config(config)
    players, stacks = parse_seats(seats)
    if not 0 <= button < len(seats) or players[button] is None:
        raise ConfigError("button", f"must be an occupied seat, got {button!r}")
    deck = check_deck(deck, 52)
    ante = options["ante"]
    dealt = [s for s, st in enumerate(stacks) if st is not None and st >= ante]
    if not 2 <= len(dealt) <= MAX_PLAYERS:
        raise ValueError(f"a hand needs 2 to {MAX_PLAYERS} players with at least the ante "
                         f"({ante}); {len(dealt)} have it")
    n = len(seats)
    first = next(s % n for s in range(button + 1, button + n + 1) if s % n in dealt)
    order = sorted(dealt, key=lambda s: (s - first) % n)
    hands: list[tuple[int, int, int] | None] = [None] * n
    for j, s in enumerate(order):
        hands[s] = (deck[j], deck[len(order) + j], deck[2 * len(order) + j])
    new_stacks = [None if st is None else (st - ante if s in dealt else st)
                  for s, st in enumerate(stacks)]
    return ZjhState(
        options=options,
        button=button,
        first=first,
        players=players,
        hands=hands,
        stacks=new_stacks,
        paid=[ante if s in dealt else 0 for s in range(n)],
        status=[PLAYING if s in dealt else OUT for s in range(n)],
        seen=[False] * n,
        known=[[] for _ in range(n)],
        shown=[],
        stake=ante,
        round=1,
        to_act=first,
        is_over=False,
        payouts=[0] * n,
        winner=None,
    )


def start_events(state: ZjhState) -> list[Event]:
    """The events that open a hand's history (antes and who is dealt in; no cards)."""
    dealt = [s for s, st in enumerate(state.status) if st != OUT]
    return [
        {"type": "hand_start", "button": state.button, "first": state.first,
         "seats": dealt, "ante": state.options["ante"], "pot": sum(state.paid),
         "stacks": list(state.stacks)},
        {"type": "turn", "seat": state.to_act, "round": state.round},
    ]


def timeout_action(state: ZjhState, seat: int) -> dict[str, Any]:
    """``fold``; with ``timeout="call_blind"`` a blind seat that can pay calls instead."""
    if state.options["timeout"] == "call_blind" and not state.is_over and seat == state.to_act:
        if not state.seen[seat] and legal_actions(state, seat).call is not None:
            return {"type": "call"}
    return {"type": "fold"}


def apply(state: ZjhState, seat: int, action: Mapping[str, Any]) -> tuple[ZjhState, list[Event]]:
    """Apply ``action`` by ``seat``; returns the new state and the events. Never mutates
    ``state``; raises IllegalAction (state untouched) for anything not allowed now."""
    if state.is_over:
        raise IllegalAction("hand_over", "the hand is over")
    if not isinstance(action, Mapping):
        raise IllegalAction("bad_action", "an action is a map with a 'type'")
    kind = action.get("type")
    if not isinstance(kind, str) or kind not in ACTION_TYPES:
        raise IllegalAction("bad_action", f"unknown action type {kind!r}; "
                                          f"expected one of {', '.join(ACTION_TYPES)}")
    if (isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(state.status)
            or state.status[seat] != PLAYING):
        raise IllegalAction("not_in_hand", f"seat {seat!r} is not in this hand")
    if kind == "look":
        return _look(state, seat)
    if seat != state.to_act:
        raise IllegalAction("not_your_turn", f"it is seat {state.to_act}'s turn")
    legal = legal_actions(state, seat)
    if kind == "fold":
        new = state.copy()
        new.status[seat] = FOLDED
        return _next_turn(new, seat, [{"type": "fold", "seat": seat}])
    if kind == "all_in":
        if legal.all_in is None:
            why = ("all-in is off at this table (all_in='fold_only')"
                   if state.options["all_in"] != "compare_all" else "you can pay the call")
            raise IllegalAction("bad_action", why)
        return _all_in(state, seat)
    if legal.call is None:
        raise IllegalAction("not_enough_chips",
                            f"a call costs {call_cost(state, seat)}, you have {state.stacks[seat]}")
    if kind == "call":
        return _pay_and_pass(state, seat, legal.call,
                             {"type": "call", "seat": seat, "stake": state.stake})
    if kind == "raise":
        stake = _raise_stake(state, seat, action)
        new = state.copy()
        new.stake = stake
        return _pay_and_pass(new, seat, stake * cost_per_unit(state, seat),
                             {"type": "raise", "seat": seat, "stake": stake})
    return _compare(state, seat, action)


# ---------------------------------------------------------------------------
# Actions


def _look(state: ZjhState, seat: int) -> tuple[ZjhState, list[Event]]:
    if state.seen[seat]:
        raise IllegalAction("already_seen", "you have already looked at your cards")
    new = state.copy()
    new.seen[seat] = True
    hand = state.hands[seat]
    assert hand is not None
    return new, [{"type": "look", "seat": seat, "cards": list(hand),
                  "only": [seat], "secret": ["cards"]}]


def _pay(state: ZjhState, seat: int, amount: int) -> None:
    stack = state.stacks[seat]
    assert stack is not None and 0 <= amount <= stack
    state.stacks[seat] = stack - amount
    state.paid[seat] += amount


def _pay_and_pass(state: ZjhState, seat: int, amount: int,
                  event: Event) -> tuple[ZjhState, list[Event]]:
    new = state.copy()
    _pay(new, seat, amount)
    event = {**event, "amount": amount, "seen": state.seen[seat]}
    return _next_turn(new, seat, [event])


def _raise_stake(state: ZjhState, seat: int, action: Mapping[str, Any]) -> int:
    stake = action.get("stake")
    if isinstance(stake, bool) or not isinstance(stake, int):
        raise IllegalAction("bad_amount", f"a raise names the new unit stake as a whole number, "
                                          f"got {stake!r}")
    cap = state.options["max_stake"]
    if not state.stake < stake <= cap:
        raise IllegalAction("bad_amount", f"the new unit stake must be above {state.stake} "
                                          f"and at most {cap}, got {stake}")
    cost = stake * cost_per_unit(state, seat)
    stack = state.stacks[seat]
    assert stack is not None
    if cost > stack:
        raise IllegalAction("not_enough_chips", f"raising to {stake} costs {cost}, "
                                                f"you have {stack}")
    return stake


def _compare(state: ZjhState, seat: int,
             action: Mapping[str, Any]) -> tuple[ZjhState, list[Event]]:
    if not compare_open(state):
        raise IllegalAction("too_early", f"compare opens after "
                                         f"{state.options['compare_after_rounds']} round(s)")
    target = action.get("target")
    if (isinstance(target, bool) or not isinstance(target, int) or target == seat
            or not 0 <= target < len(state.status) or state.status[target] != PLAYING):
        raise IllegalAction("bad_target", f"compare needs another live seat, got {target!r}")
    fee = compare_fee(state, seat)
    stack = state.stacks[seat]
    assert stack is not None
    if fee > stack:
        raise IllegalAction("not_enough_chips", f"a compare costs {fee}, you have {stack}")
    new = state.copy()
    _pay(new, seat, fee)
    events = _duel(new, seat, target, fee)
    return _next_turn(new, seat, events)


def _duel(state: ZjhState, initiator: int, target: int, fee: int,
          all_in: bool = False) -> list[Event]:
    """Compare two hands (the initiator loses a tie); the loser is out. Mutates ``state``."""
    hands = state.hands
    a, b = hands[initiator], hands[target]
    assert a is not None and b is not None
    won = compare_hands(a, b, rules_of(state.options)) > 0
    winner, loser = (initiator, target) if won else (target, initiator)
    state.status[loser] = LOST
    _learn(state.known[winner], loser)
    _learn(state.known[loser], loser)
    _learn(state.known[loser], winner)
    public: Event = {"type": "compare", "seat": initiator, "target": target, "amount": fee,
                     "winner": winner, "loser": loser}
    if all_in:
        public["all_in"] = True
    return [
        public,
        _reveal(winner, [loser], hands),
        _reveal(loser, [winner, loser], hands),
    ]


def _all_in(state: ZjhState, seat: int) -> tuple[ZjhState, list[Event]]:
    """Put in the whole stack and compare against every other live seat, in turn order.

    Losing (or tying) any one compare puts the all-in seat out and play goes on.
    Beating all ends the hand: the all-in seat takes what it could match (from each
    seat at most its own total), the rest goes to the best of the others.
    """
    new = state.copy()
    amount = new.stacks[seat]
    assert amount is not None
    _pay(new, seat, amount)
    events: list[Event] = [{"type": "all_in", "seat": seat, "amount": amount}]
    opponents = _in_turn_order(new, seat, include_start=False)
    rules = rules_of(new.options)
    mine = new.hands[seat]
    assert mine is not None
    for other in opponents:
        theirs = new.hands[other]
        assert theirs is not None
        if compare_hands(mine, theirs, rules) > 0:
            _learn(new.known[seat], other)
            _learn(new.known[other], other)
            _learn(new.known[other], seat)
            events += [
                {"type": "compare", "seat": seat, "target": other, "amount": 0,
                 "winner": seat, "loser": other, "all_in": True},
                _reveal(seat, [other], new.hands),
                _reveal(other, [seat, other], new.hands),
            ]
            continue
        events += _duel(new, seat, other, 0, all_in=True)
        return _next_turn(new, seat, events)
    cap = new.paid[seat]
    matched = sum(min(p, cap) for p in new.paid)
    rest = sum(new.paid) - matched
    payouts = {seat: matched}
    if rest > 0:
        runner_up, showdown = _showdown(new, opponents)
        events.append(showdown)
        payouts[runner_up] = payouts.get(runner_up, 0) + rest
    return _finish(new, seat, payouts, events)


def _reveal(viewer: int, seats: list[int], hands: list[tuple[int, int, int] | None]) -> Event:
    shown = [{"seat": s, "cards": list(hands[s] or ())} for s in seats]
    return {"type": "compare_reveal", "to": viewer, "hands": shown,
            "only": [viewer], "secret": ["hands"]}


def _learn(known: list[int], seat: int) -> None:
    if seat not in known:
        known.append(seat)


# ---------------------------------------------------------------------------
# Turns, rounds and the end of the hand


def _in_turn_order(state: ZjhState, start: int, include_start: bool = True) -> list[int]:
    """Live seats in turn order beginning at ``start`` (or just after it)."""
    n = len(state.status)
    offsets = range(0 if include_start else 1, n)
    return [(start + k) % n for k in offsets if state.status[(start + k) % n] == PLAYING]


def _next_turn(state: ZjhState, seat: int, events: list[Event]) -> tuple[ZjhState, list[Event]]:
    """Pass the turn on from ``seat``; end the hand when one live seat remains or the
    round limit is passed. Mutates ``state`` (already a copy)."""
    live = live_seats(state)
    if len(live) == 1:
        return _finish(state, live[0], {live[0]: sum(state.paid)}, events)
    following = _in_turn_order(state, seat, include_start=False)
    nxt = following[0]
    n = len(state.status)
    if (nxt - state.first) % n <= (seat - state.first) % n:
        if state.round >= state.options["max_rounds"]:
            winner, showdown = _showdown(state, _in_turn_order(state, nxt))
            events.append(showdown)
            return _finish(state, winner, {winner: sum(state.paid)}, events)
        state.round += 1
    state.to_act = nxt
    events.append({"type": "turn", "seat": nxt, "round": state.round})
    return state, events


def _showdown(state: ZjhState, seats: list[int]) -> tuple[int, Event]:
    """Reveal ``seats``' hands to the table and find the best in that order."""
    rules = rules_of(state.options)
    hands = [(s, state.hands[s]) for s in seats]
    winner = best_hand_in_order(hands, rules)
    for s in seats:
        if s not in state.shown:
            state.shown.append(s)
    shown = [{"seat": s, "cards": list(h or ()), "category": category(h or ()),
              "description": describe(h or (), rules)} for s, h in hands]
    return winner, {"type": "showdown", "hands": shown, "winner": winner}


def _finish(state: ZjhState, winner: int, payouts: dict[int, int],
            events: list[Event]) -> tuple[ZjhState, list[Event]]:
    assert sum(payouts.values()) == sum(state.paid)
    for s, amount in payouts.items():
        stack = state.stacks[s]
        assert stack is not None
        state.stacks[s] = stack + amount
        state.payouts[s] += amount
    state.is_over = True
    state.to_act = None
    state.winner = winner
    events.append({"type": "hand_over", "winner": winner,
                   "payouts": [{"seat": s, "amount": a} for s, a in sorted(payouts.items())],
                   "stacks": list(state.stacks)})
    return state, events


def show(state: ZjhState, seat: int) -> tuple[ZjhState, list[Event]]:
    """``seat`` turns its hand face up for the table once the hand is over (a fold, a
    lost compare, or the winner's hand nobody saw). Changes no chips.

    Raises :class:`IllegalAction` ``hand_not_over`` while the hand is played, and
    ``nothing_to_show`` for a seat not dealt in or whose hand is already face up.
    """
    if not state.is_over:
        raise IllegalAction("hand_not_over", "cards can be shown once the hand is over")
    hand = state.hands[seat] if 0 <= seat < len(state.hands) else None
    if hand is None:
        raise IllegalAction("nothing_to_show", "you were not dealt into this hand")
    if seat in state.shown:
        raise IllegalAction("nothing_to_show", "your cards are already face up")
    new = state.copy()
    new.shown.append(seat)
    rules = rules_of(state.options)
    return new, [{"type": "show", "seat": seat, "cards": list(hand), "category": category(hand),
                  "description": describe(hand, rules)}]
