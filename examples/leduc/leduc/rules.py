"""Leduc Hold'em: the rules, as pure functions over an immutable state.

Six cards, J Q K in two suits (card ids 0..5: J♥ J♠ Q♥ Q♠ K♥ K♠; the rank is ``id // 2``).
Two players ante ``ante`` each and get one private card. A first fixed-limit betting round
(bets and raises of ``small_bet``), one public card, a second round (``big_bet``); at most
``max_raises`` bets and raises a round. At the showdown a private card that pairs the
public card wins, else the higher rank; equal ranks split the pot. The seat after the
button acts first in both rounds. The small poker game of bot research (RLCard,
OpenSpiel), with the usual limits 1 / 2 / 4 and two raises.

The deck passed in is the six ids in dealing order: the first to act gets ``deck[0]``, the
button ``deck[1]``, and ``deck[2]`` is the public card.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from engine.config import Option
from engine.errors import ConfigError, IllegalAction

NAMES = ("J♥", "J♠", "Q♥", "Q♠", "K♥", "K♠")
RANK_NAMES = ("jack", "queen", "king")
DECK_SIZE = 6

OPTIONS = (
    Option("ante", int, 1, "chips each player puts in before the deal", min=1, max=10**9),
    Option("small_bet", int, 2, "the size of every bet and raise in the first round", min=1, max=10**9),
    Option("big_bet", int, 4, "the size of every bet and raise in the second round", min=1, max=10**9),
    Option("max_raises", int, 2, "bets and raises allowed in a round", min=1, max=10),
)


def rank(card: int) -> int:
    return card // 2


@dataclass(frozen=True)
class LeducState:
    players: tuple[str | None, ...]
    start_stacks: tuple[int | None, ...]
    stacks: tuple[int | None, ...]  # chips behind
    put: tuple[int, ...]  # chips in the pot, by seat (antes included)
    bets: tuple[int, ...]  # this round's bets
    cards: tuple[int | None, ...]  # private cards
    public: int  # the public card (shown from the second round)
    order: tuple[int, int]  # (first to act, button)
    round: int = 0  # 0, 1; 2 once over
    to_act: int | None = None
    raises: int = 0
    acted: tuple[int, ...] = ()  # seats that acted this round
    folded: int | None = None
    won: tuple[int, ...] = ()
    is_over: bool = False
    revealed: bool = False  # the public card is shown
    config: Mapping[str, Any] | None = None

    @property
    def board(self) -> list[int]:
        return [self.public] if self.revealed else []

    def all_in(self, seat: int) -> bool:
        return self.stacks[seat] == 0


# ------------------------------------------------------------------------- a new hand

def new_hand(config: Mapping[str, Any], seats: Sequence[Any], deck: Sequence[int]) -> LeducState:
    """Ante and deal (``config``: the :data:`OPTIONS` and ``"button"``; ``seats``: two
    ``(player, stack)`` and any number of ``None``)."""
    deck = list(deck)
    if sorted(deck) != list(range(DECK_SIZE)):
        raise ValueError("the deck must be the six card ids 0..5, each once")
    taken = [i for i, s in enumerate(seats) if s is not None]
    if len(taken) != 2:
        raise ConfigError("seats", f"Leduc Hold'em is for two players, got {len(taken)}")
    button = config["button"]
    if button not in taken:
        raise ConfigError("button", "must be an occupied seat")
    first = taken[0] if taken[1] == button else taken[1]
    n = len(seats)
    stacks = [None if s is None else int(s[1]) for s in seats]
    put = [0] * n
    for s in taken:
        ante = min(config["ante"], stacks[s])
        stacks[s] -= ante
        put[s] = ante
    cards: list[int | None] = [None] * n
    cards[first], cards[button] = deck[0], deck[1]
    state = LeducState(
        players=tuple(None if s is None else s[0] for s in seats), start_stacks=tuple(stacks[i] + put[i]
        if stacks[i] is not None else None for i in range(n)), stacks=tuple(stacks), put=tuple(put),
        bets=(0,) * n, cards=tuple(cards), public=deck[2], order=(first, button), won=(0,) * n,
        config=dict(config), to_act=first)
    if _stuck(state):  # an ante put a player all in: the cards are shown at once
        state = _showdown(replace(state, revealed=True))
    return state


def start_events(state: LeducState) -> list[dict[str, Any]]:
    """The antes and the private deals; the whole hand when an ante left no betting."""
    first, button = state.order
    events: list[dict[str, Any]] = [{"type": "ante", "seat": s, "amount": state.put[s]} for s in (first, button)]
    events += [{"type": "deal", "seat": s, "cards": [state.cards[s]], "only": [s], "secret": ["cards"]}
               for s in (first, button)]
    if state.is_over:
        events += [_board_event(state), *_closing_events(state)]
    return events


# ------------------------------------------------------------------------- actions

def _size(state: LeducState) -> int:
    return state.config["small_bet" if state.round == 0 else "big_bet"]


def _other(state: LeducState, seat: int) -> int:
    first, button = state.order
    return button if seat == first else first


def legal_actions(state: LeducState, seat: int) -> dict[str, Any] | None:
    """What ``seat`` may do now, or None: ``fold``, ``check``, ``call`` (chips to call)
    and ``raise`` (chips the bet or raise puts in), each False/0 when not allowed."""
    if state.is_over or state.to_act != seat:
        return None
    to_call = min(state.bets[_other(state, seat)] - state.bets[seat], state.stacks[seat])
    room = state.raises < state.config["max_raises"] and state.stacks[seat] > to_call \
        and not state.all_in(_other(state, seat))
    return {"fold": to_call > 0, "check": to_call == 0, "call": to_call,
            "raise": min(to_call + _size(state), state.stacks[seat]) if room else 0}


def legal_to_wire(legal: Any) -> Any:
    return legal


def apply(state: LeducState, seat: int, action: Mapping[str, Any]) -> tuple[LeducState, list[dict[str, Any]]]:
    """``action`` (``{"type": "fold" | "check" | "call" | "raise"}``) by ``seat``; raises
    :class:`IllegalAction` (``hand_over``, ``not_your_turn``, ``bad_action``)."""
    if state.is_over:
        raise IllegalAction("hand_over", "the hand is over")
    if state.to_act != seat:
        raise IllegalAction("not_your_turn", f"seat {state.to_act} is to act")
    legal = legal_actions(state, seat)
    kind = action.get("type") if isinstance(action, Mapping) else None
    if kind not in ("fold", "check", "call", "raise") or not legal[kind]:
        allowed = ", ".join(k for k in ("fold", "check", "call", "raise") if legal[k])
        raise IllegalAction("bad_action", f"{kind!r} is not allowed now (allowed: {allowed})")
    if kind == "fold":
        state = replace(state, folded=seat)
        return _end(state, [{"type": "action", "seat": seat, "action": "fold"}])
    amount = {"check": 0, "call": legal["call"], "raise": legal["raise"]}[kind]
    stacks, bets, put = list(state.stacks), list(state.bets), list(state.put)
    stacks[seat] -= amount
    bets[seat] += amount
    put[seat] += amount
    events: list[dict[str, Any]] = [{"type": "action", "seat": seat, "action": kind, "amount": amount,
                                     "all_in": stacks[seat] == 0}]
    state = replace(state, stacks=tuple(stacks), bets=tuple(bets), put=tuple(put),
                    raises=state.raises + (kind == "raise"), acted=(*state.acted, seat))
    other = _other(state, seat)
    matched = state.bets[other] == state.bets[seat] or state.all_in(seat)
    if kind == "raise" or other not in state.acted or not matched:
        return replace(state, to_act=other), events
    return _round_over(state, events)


def _stuck(state: LeducState) -> bool:
    """Can nobody bet any more (a player is all in)?"""
    return any(state.all_in(s) for s in state.order)


def _board_event(state: LeducState) -> dict[str, Any]:
    return {"type": "board", "cards": [state.public], "board": [state.public]}


def _round_over(state: LeducState, events: list[dict[str, Any]]) -> tuple[LeducState, list[dict[str, Any]]]:
    """The round's bets are matched: show the public card and bet again, or settle."""
    if state.round == 0:
        state = replace(state, round=1, bets=(0,) * len(state.bets), raises=0, acted=(), to_act=state.order[0],
                        revealed=True)
        events.append(_board_event(state))
        if not _stuck(state):
            return state, events
    return _end(state, events)


def _end(state: LeducState, events: list[dict[str, Any]]) -> tuple[LeducState, list[dict[str, Any]]]:
    state = _showdown(state)
    return state, events + _closing_events(state)


def _showdown(state: LeducState) -> LeducState:
    """Give the pot: to the one who did not fold, else the better hand (a pair with the
    public card, then the higher rank), or split it."""
    first, button = state.order
    pot = sum(state.put)
    if state.folded is not None:
        winners = [_other(state, state.folded)]
    else:
        score = {s: (rank(state.cards[s]) == rank(state.public), rank(state.cards[s])) for s in (first, button)}
        best = max(score.values())
        winners = [s for s in (first, button) if score[s] == best]
    won, stacks = list(state.won), list(state.stacks)
    share, odd = divmod(pot, len(winners))
    for i, s in enumerate(winners):  # an odd chip (antes of odd size) to the first to act
        won[s] = share + (odd if i == 0 else 0)
        stacks[s] += won[s]
    return replace(state, won=tuple(won), stacks=tuple(stacks), to_act=None, is_over=True, round=2)


def _closing_events(state: LeducState) -> list[dict[str, Any]]:
    first, button = state.order
    events: list[dict[str, Any]] = []
    if state.folded is None:
        events.append({"type": "showdown", "public": state.public, "hands": [
            {"seat": s, "cards": [state.cards[s]], "hand": describe(state.cards[s], state.public)}
            for s in (first, button)]})
    events.append({"type": "hand_over", "stacks": list(state.stacks), "won": list(state.won)})
    return events


def describe(card: int, public: int) -> str:
    name = RANK_NAMES[rank(card)]
    return f"a pair of {name}s" if rank(card) == rank(public) else f"{name} high"


def timeout_action(state: LeducState, seat: int) -> dict[str, Any]:
    """Check when free, else fold."""
    legal = legal_actions(state, seat)
    return {"type": "check"} if legal and legal["check"] else {"type": "fold"}


# ------------------------------------------------------------------------- views and storage

def view(state: LeducState, seat: int | None, memo: Any = None) -> dict[str, Any]:
    """The hand as ``seat`` sees it (``None``: a spectator): its own card, the public card
    once shown, both cards at a showdown."""
    shown = state.is_over and state.folded is None
    return {
        "game": "leduc", "round": ("first", "second", "over")[state.round], "board": state.board,
        "pot": sum(state.put), "to_act": state.to_act, "is_over": state.is_over,
        "seats": [None if state.players[s] is None else {
            "seat": s, "player": state.players[s], "stack": state.stacks[s], "bet": state.bets[s],
            "folded": state.folded == s, "cards": [state.cards[s]] if shown else None, "won": state.won[s],
        } for s in range(len(state.players))],
        "you": seat,
        "hole": [state.cards[seat]] if seat is not None and 0 <= seat < len(state.cards)
        and state.cards[seat] is not None else None,
        "legal": legal_actions(state, seat) if seat is not None else None,
    }


def to_dict(state: LeducState) -> dict[str, Any]:
    return {k: (list(v) if isinstance(v, tuple) else dict(v) if isinstance(v, Mapping) else v)
            for k, v in state.__dict__.items()}


def from_dict(data: Mapping[str, Any]) -> LeducState:
    return LeducState(**{k: (tuple(v) if isinstance(v, list) else v) for k, v in data.items()})


def dealt(state: LeducState) -> list[list[int]]:
    """Each seat's private card as dealt (:attr:`engine.game.Game.dealt`)."""
    return [[c] if c is not None else [] for c in state.cards]


def layout(deck: Sequence[int], deal_order: Sequence[int]) -> dict[str, Any]:
    """The dealing rule: one card to each seat in order, then the public card."""
    return {"hands": {s: [deck[i]] for i, s in enumerate(deal_order)}, "board": [deck[len(deal_order)]]}


def format_event(event: Mapping[str, Any], name: Any) -> str | None:
    """One line of a hand history."""
    kind = event.get("type")
    if kind == "ante":
        return f"{name(event['seat'])} antes {event['amount']}"
    if kind == "deal":
        return f"{name(event['seat'])} is dealt " + (NAMES[event["cards"][0]] if event.get("cards") else "a card")
    if kind == "action":
        amount = f" {event['amount']}" if event.get("amount") else ""
        return f"{name(event['seat'])} {event['action']}s{amount}"
    if kind == "board":
        return f"the public card: {NAMES[event['cards'][0]]}"
    if kind == "showdown":
        return "; ".join(f"{name(h['seat'])} shows {NAMES[h['cards'][0]]} ({h['hand']})" for h in event["hands"])
    if kind == "hand_over":
        return ", ".join(f"{name(s)} wins {w}" for s, w in enumerate(event["won"]) if w) or None
    return None
