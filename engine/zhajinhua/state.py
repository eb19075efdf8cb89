"""The state of one Zha Jin Hua hand: plain data that round-trips through msgpack."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

# Seat status values.
PLAYING = "playing"   # dealt in and still contesting the pot
FOLDED = "folded"     # gave up (or timed out)
LOST = "lost"         # lost a compare (or an all-in compare against everyone)
OUT = "out"           # empty seat, or too few chips for the ante: not dealt in


@dataclass
class ZjhState:
    """One hand. Lists are indexed by seat (the table's seat count).

    ``options``   the validated hand options (see ``OPTIONS``)
    ``button``    dealer seat; ``first`` the first seat to act (left of the dealer)
    ``players``   player ids (None for an empty seat)
    ``hands``     each dealt-in seat's three cards, as dealt (None when not dealt in)
    ``stacks``    chips behind (None for an empty seat); final stacks once over
    ``paid``      chips each seat has put in the pot this hand, ante included
    ``status``    ``playing``, ``folded``, ``lost`` or ``out``
    ``seen``      whether the seat has looked at its cards (看牌)
    ``known``     for each seat, the other seats whose cards it has been shown in a compare
    ``shown``     seats whose cards a showdown revealed to the whole table
    ``stake``     the current unit stake (a blind call costs it, a seen call twice it)
    ``round``     the betting round, from 1; never above ``options["max_rounds"]``
    ``to_act``    the seat whose turn it is, None once over
    ``is_over``   the hand is finished and the pot paid out
    ``payouts``   chips each seat won from the pot (0 until the hand is over)
    ``winner``    the seat that won the (main) pot, None until over
    """

    options: dict[str, Any]
    button: int
    first: int
    players: list[str | None]
    hands: list[tuple[int, int, int] | None]
    stacks: list[int | None]
    paid: list[int]
    status: list[str]
    seen: list[bool]
    known: list[list[int]]
    shown: list[int]
    stake: int
    round: int
    to_act: int | None
    is_over: bool
    payouts: list[int]
    winner: int | None

    @property
    def pot(self) -> int:
        """Chips put in the pot this hand (ante included; paid out once ``is_over``)."""
        return sum(self.paid)

    def copy(self) -> ZjhState:
        """A copy whose lists can be changed without touching this state."""
        return ZjhState(
            options=self.options,  # never mutated
            button=self.button,
            first=self.first,
            players=list(self.players),
            hands=self.hands,  # never mutated; tuples inside
            stacks=list(self.stacks),
            paid=list(self.paid),
            status=list(self.status),
            seen=list(self.seen),
            known=[list(k) for k in self.known],
            shown=list(self.shown),
            stake=self.stake,
            round=self.round,
            to_act=self.to_act,
            is_over=self.is_over,
            payouts=list(self.payouts),
            winner=self.winner,
        )


def to_dict(state: ZjhState) -> dict[str, Any]:
    """Plain data for persistence (JSON- and msgpack-safe)."""
    d = {f.name: getattr(state, f.name) for f in fields(state)}
    d["options"] = dict(state.options)
    d["hands"] = [list(h) if h is not None else None for h in state.hands]
    for key in ("players", "stacks", "paid", "status", "seen", "shown", "payouts"):
        d[key] = list(d[key])
    d["known"] = [list(k) for k in state.known]
    return d


def from_dict(d: Mapping[str, Any]) -> ZjhState:
    """The state :func:`to_dict` wrote (also after a msgpack round trip)."""
    return ZjhState(
        options=dict(d["options"]),
        button=d["button"],
        first=d["first"],
        players=list(d["players"]),
        hands=[tuple(h) if h is not None else None for h in d["hands"]],
        stacks=list(d["stacks"]),
        paid=list(d["paid"]),
        status=list(d["status"]),
        seen=list(d["seen"]),
        known=[list(k) for k in d["known"]],
        shown=list(d["shown"]),
        stake=d["stake"],
        round=d["round"],
        to_act=d["to_act"],
        is_over=d["is_over"],
        payouts=list(d["payouts"]),
        winner=d["winner"],
    )
