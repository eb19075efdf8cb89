"""A tiny deterministic game for server tests: "high card" (2-4 players).

Everyone dealt in antes ``ante`` (or their whole stack if less) and gets one hidden
card. Starting left of the button, each seat in turn either ``{"type": "bet", "amount": n}``
(1 <= n <= min(stack, max_bet); adds n to the pot) or ``{"type": "fold"}``. When every
seat has acted once, or only one seat is left, the highest card (by rank, then suit)
among the seats still in takes the whole pot. ``{"type": "boom"}`` raises RuntimeError:
it stands for a bug inside an engine. The timeout action is fold.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from engine.config import Option
from engine.errors import ConfigError, IllegalAction
from engine.game import Game


@dataclass
class State:
    players: list[str | None]
    stacks: list[int | None]
    cards: list[int | None]
    pot: int
    order: list[int]  # seats still to act, first = to act
    folded: list[int]
    max_bet: int
    is_over: bool = False
    winner: int | None = None

    @property
    def to_act(self) -> int | None:
        return None if self.is_over or not self.order else self.order[0]


OPTIONS = (
    Option("ante", int, 10, "chips every seat puts in before the deal", min=0, max=1000),
    Option("max_bet", int, 100, "largest bet", min=1),
)


def new_hand(config: Any, seats: Any, deck: Any) -> State:
    deck = list(deck)
    if len(deck) != 52 or len(set(deck)) != 52:
        raise ValueError("deck must be 52 distinct cards")
    button = config["button"]
    if not 0 <= button < len(seats) or seats[button] is None:
        raise ConfigError("button", "must be an occupied seat")
    stacks: list[int | None] = [None if s is None else s[1] for s in seats]
    cards: list[int | None] = [None] * len(seats)
    pot = 0
    occupied = [i for i, s in enumerate(seats) if s is not None]
    for i in occupied:
        ante = min(config["ante"], stacks[i])
        stacks[i] -= ante
        pot += ante
        cards[i] = deck.pop(0)
    after = [i for i in occupied if i > button] + [i for i in occupied if i <= button]
    return State(players=[None if s is None else s[0] for s in seats], stacks=stacks, cards=cards, pot=pot, order=after, folded=[], max_bet=config["max_bet"])


def start_events(state: State) -> list[dict[str, Any]]:
    return [{"type": "deal", "seat": i, "card": c, "only": [i], "secret": ["card"]}
            for i, c in enumerate(state.cards) if c is not None]


def legal_actions(state: State, seat: int) -> Any:
    if state.to_act != seat:
        return None
    top = min(state.stacks[seat], state.max_bet)
    return {"fold": True, "bet": {"min": 1, "max": top} if top >= 1 else None}


def apply(state: State, seat: int, action: Any) -> tuple[State, list[dict[str, Any]]]:
    if state.is_over:
        raise IllegalAction("hand_over", "the hand is over")
    if state.to_act != seat:
        raise IllegalAction("not_your_turn", f"seat {state.to_act} is to act")
    if not isinstance(action, dict):
        raise IllegalAction("bad_action", "an action is a map")
    kind = action.get("type")
    stacks = list(state.stacks)
    pot = state.pot
    folded = list(state.folded)
    if kind == "boom":
        raise RuntimeError("the engine exploded")
    if kind == "fold":
        folded.append(seat)
        events = [{"type": "fold", "seat": seat}]
    elif kind == "bet":
        amount = action.get("amount")
        top = min(stacks[seat], state.max_bet)
        if isinstance(amount, bool) or not isinstance(amount, int) or not 1 <= amount <= top:
            raise IllegalAction("bad_amount", f"bet must be 1..{top}")
        stacks[seat] -= amount
        pot += amount
        events = [{"type": "bet", "seat": seat, "amount": amount, "card": state.cards[seat],
                   "only": [seat], "secret": ["card"]}]
    else:
        raise IllegalAction("bad_action", f"unknown action {kind!r}")
    order = state.order[1:]
    live = [i for i, c in enumerate(state.cards) if c is not None and i not in folded]
    new = replace(state, stacks=stacks, pot=pot, order=order, folded=folded)
    if len(live) == 1 or not order:
        winner = max(live, key=lambda i: state.cards[i])
        stacks[winner] += pot
        new = replace(new, stacks=stacks, pot=0, order=[], is_over=True, winner=winner)
        events.append({"type": "win", "seat": winner, "amount": pot,
                       "cards": [c if i in live else None for i, c in enumerate(state.cards)]})
    return new, events


def view(state: State, seat: int | None, memo: dict[Any, Any] | None = None) -> dict[str, Any]:
    """The hand as ``seat`` sees it (rendered whole every time: the ``memo`` is not used)."""
    shown = [
        c if (i == seat or (state.is_over and i not in state.folded)) else None
        for i, c in enumerate(state.cards)
    ]
    out = {
        "to_act": state.to_act, "is_over": state.is_over, "stacks": list(state.stacks),
        "pot": state.pot, "cards": shown, "folded": list(state.folded), "winner": state.winner,
    }
    if seat is not None and state.to_act == seat:
        out["legal"] = legal_actions(state, seat)
    return out


def timeout_action(state: State, seat: int) -> dict[str, Any]:
    return {"type": "fold"}


def to_dict(state: State) -> dict[str, Any]:
    return {
        "players": state.players, "stacks": state.stacks, "cards": state.cards, "pot": state.pot, "order": state.order,
        "folded": state.folded, "max_bet": state.max_bet, "is_over": state.is_over, "winner": state.winner,
    }


def from_dict(d: Any) -> State:
    return State(**{k: (list(v) if isinstance(v, list | tuple) else v) for k, v in d.items()})


GAME = Game(
    name="highcard", title="High Card", min_players=2, max_players=4, deck_size=52,
    options=OPTIONS, new_hand=new_hand, start_events=start_events, legal_actions=legal_actions, legal_to_wire=lambda x: x,
    apply=apply, view=view, timeout_action=timeout_action, to_dict=to_dict, from_dict=from_dict,
)
