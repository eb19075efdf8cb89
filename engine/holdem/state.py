"""The state of one no-limit Hold'em hand: plain data that round-trips through msgpack.

Every list is indexed by seat (the table's seat numbers, empty seats included) so
``stacks[s]``, ``bets[s]`` and ``hole[s]`` always talk about the same seat.

Chips are always in exactly one place: behind (``stacks``), in front of a seat on
this street (``bets``), or in the middle (``pots``, collected when a street ends).
``committed[s]`` counts everything seat ``s`` put in this hand (antes, blinds, bets,
minus any uncalled bet returned); side pots are built from it.

Cards are too: ``deck`` holds the undealt cards in dealing order, and every card is
either there, in someone's ``hole`` cards, on the ``board`` or ``burned``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from .pots import Pot

STREETS = ("preflop", "flop", "turn", "river")


@dataclass
class HoldemState:
    """One hand, from the blinds to the final stacks.

    ``street`` is one of ``preflop``, ``flop``, ``turn``, ``river`` while betting, and
    ``over`` once the pots are awarded. ``current_bet`` is the amount to match on this
    street (pre-flop never less than the big blind, even after a short all-in big
    blind); ``min_raise`` is the size of the last full bet or raise on this street (the
    big blind at the start of each street). ``acted[s]`` is the bet level seat ``s``
    last acted at on this street (``None``: not yet), which decides whether a later
    short all-in reopened the betting for it. ``last_aggressor`` is the last seat to
    bet or raise in the latest betting round, which shows first at showdown.
    """

    small_blind: int
    big_blind: int
    ante: int
    button: int
    players: list[str | None]
    start_stacks: list[int | None]
    stacks: list[int | None]
    hole: list[list[int]]
    in_hand: list[bool]
    folded: list[bool]
    shown: list[bool]
    bets: list[int]
    committed: list[int]
    won: list[int]
    acted: list[int | None]
    pots: list[Pot]
    board: list[int]
    burned: list[int]
    deck: list[int]
    street: str
    current_bet: int
    min_raise: int
    last_aggressor: int | None
    to_act: int | None
    is_over: bool
    opening: list[dict[str, Any]]

    @property
    def n_seats(self) -> int:
        return len(self.players)

    def is_live(self, seat: int) -> bool:
        """Dealt in and not folded (all-in seats are live)."""
        return self.in_hand[seat] and not self.folded[seat]

    def is_all_in(self, seat: int) -> bool:
        return self.is_live(seat) and self.stacks[seat] == 0

    def can_bet(self, seat: int) -> bool:
        """Live with chips behind: a seat that can still take betting actions."""
        return self.is_live(seat) and (self.stacks[seat] or 0) > 0

    def raise_can_be_answered(self, seat: int) -> bool:
        """Some other seat could still put in more than the current bet.

        When every other live seat is all-in or would be all-in just calling, a raise
        by ``seat`` could never be called, so it is not offered.
        """
        return any(o != seat and self.can_bet(o)
                   and self.bets[o] + (self.stacks[o] or 0) > self.current_bet
                   for o in range(self.n_seats))

    def live_seats(self) -> list[int]:
        return [s for s in range(self.n_seats) if self.is_live(s)]

    def clockwise_from(self, start: int) -> list[int]:
        """Every seat number in clockwise order beginning with the one after ``start``."""
        n = self.n_seats
        return [(start + i) % n for i in range(1, n + 1)]

    def total_chips(self) -> int:
        """Stacks + bets + pots: constant for the whole hand."""
        return (sum(s for s in self.stacks if s is not None) + sum(self.bets)
                + sum(p.amount for p in self.pots))


_FIELDS = fields(HoldemState)
_LIST_FIELDS = ("players", "start_stacks", "stacks", "in_hand", "folded", "shown", "bets",
                "committed", "won", "acted", "board", "burned", "deck")


def clone(state: HoldemState) -> HoldemState:
    """A copy whose lists can be changed without touching ``state``.

    The ``opening`` events are never changed after the deal, so they are shared.
    """
    return HoldemState(
        small_blind=state.small_blind, big_blind=state.big_blind, ante=state.ante,
        button=state.button, players=list(state.players), start_stacks=list(state.start_stacks),
        stacks=list(state.stacks), hole=[list(h) for h in state.hole], in_hand=list(state.in_hand),
        folded=list(state.folded), shown=list(state.shown), bets=list(state.bets),
        committed=list(state.committed), won=list(state.won), acted=list(state.acted),
        pots=[Pot(p.amount, list(p.eligible)) for p in state.pots], board=list(state.board),
        burned=list(state.burned), deck=list(state.deck), street=state.street,
        current_bet=state.current_bet, min_raise=state.min_raise,
        last_aggressor=state.last_aggressor, to_act=state.to_act, is_over=state.is_over,
        opening=state.opening,
    )


def to_dict(state: HoldemState) -> dict[str, Any]:
    """Plain data (str keys, lists, ints, strs, bools, None) for persistence.

    The result shares nothing mutable with ``state`` but the ``opening`` events, which
    nothing changes after the deal (:func:`clone` shares them too).
    """
    data = {f.name: getattr(state, f.name) for f in _FIELDS}
    for name in _LIST_FIELDS:
        data[name] = list(data[name])
    data["hole"] = [list(h) for h in state.hole]
    data["pots"] = [{"amount": p.amount, "eligible": list(p.eligible)} for p in state.pots]
    data["opening"] = state.opening  # never changed after the deal (see clone): shared
    return data


def from_dict(data: Mapping[str, Any]) -> HoldemState:
    """Rebuild a state from :func:`to_dict` output (also after a msgpack round trip)."""
    names = {f.name for f in _FIELDS}
    missing = names - set(data)
    if missing:
        raise ValueError(f"not a Hold'em state: missing {', '.join(sorted(missing))}")
    values = {name: data[name] for name in names}
    values["pots"] = [Pot(int(p["amount"]), list(p["eligible"])) for p in data["pots"]]
    values["hole"] = [list(h) for h in data["hole"]]
    for name in _LIST_FIELDS:
        values[name] = list(data[name])
    values["opening"] = [dict(e) for e in data["opening"]]
    return HoldemState(**values)
