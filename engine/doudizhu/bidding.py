"""Bidding for the landlord (叫分 by score, or 叫地主/抢地主 by calling and robbing).

The auction is a small state machine over the three seats in turn order (the first
bidder, the seat left of the button, first). It never looks at cards.

``"score"`` (叫分)
    In turn, a seat bids 1, 2 or 3, strictly above the current bid, or passes. A seat
    that passes is out of the auction. A bid of 3 ends it at once; otherwise it ends
    when every seat other than the highest bidder has passed, and that bidder is the
    landlord. The multiplier starts at the winning bid. If all three pass, nobody is
    landlord and the hand must be redealt.

``"rob"`` (叫地主/抢地主)
    In turn, a seat calls (叫地主) or passes (不叫). If all three pass, the hand must be
    redealt. The first caller ends the calling round; then each seat after the caller
    that has not passed may rob (抢地主) or pass, once each, in turn. If anyone robbed,
    the caller may then rob back once. The landlord is the last seat to call or rob.
    The multiplier starts at 1 and doubles with every rob (rob-back included), so it
    ends at 1, 2, 4 or 8.

Every function here is pure: :func:`apply_bid` returns a new :class:`Bidding` and
never changes the one it is given, also when it raises.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from ..errors import IllegalAction

SCORE = "score"
ROB = "rob"
BIDDING_STYLES = (SCORE, ROB)
MAX_BID = 3

# Rob-style rounds.
CALLING = "calling"
ROBBING = "robbing"
ROBBING_BACK = "robbing_back"


@dataclass
class Bidding:
    """The auction so far.

    ``order``        the three seats in turn order, the first bidder first
    ``to_act``       the seat to speak, ``None`` once the auction is over
    ``history``      every decision in order: ``{"seat", "action", "value"?}`` dicts
                     (``action`` is ``bid``, ``call``, ``rob`` or ``pass``)
    ``passed``       seats out of the auction (passed in the score style; declined to
                     call, or passed on robbing, in the rob style)
    ``high_bid``     score style: the highest bid so far (0: none)
    ``leader``       the seat that would be landlord if the auction ended now
    ``caller``       rob style: the first seat to call
    ``robs``         rob style: how many robs so far (rob-back included)
    ``round``        rob style: ``calling``, ``robbing`` or ``robbing_back``
    ``pending``      rob style: seats still to speak in the current rob round, in order
    ``done``         the auction is over; ``landlord`` is ``None`` when all passed
    """

    style: str
    order: list[int]
    to_act: int | None
    history: list[dict[str, Any]] = field(default_factory=list)
    passed: list[int] = field(default_factory=list)
    high_bid: int = 0
    leader: int | None = None
    caller: int | None = None
    robs: int = 0
    round: str = CALLING
    pending: list[int] = field(default_factory=list)
    done: bool = False
    landlord: int | None = None


@dataclass(frozen=True)
class BidOptions:
    """What the seat to speak may do: ``bids`` (score style), ``can_call``/``can_rob`` (rob style).

    Passing is always allowed while the auction runs.
    """

    style: str
    bids: tuple[int, ...] = ()
    can_call: bool = False
    can_rob: bool = False
    can_pass: bool = True

    def to_wire(self) -> dict[str, Any]:
        if self.style == SCORE:
            return {"bids": list(self.bids), "can_pass": self.can_pass}
        return {"can_call": self.can_call, "can_rob": self.can_rob, "can_pass": self.can_pass}


def start_bidding(style: str, order: list[int]) -> Bidding:
    """A fresh auction over ``order`` (three seats, the first bidder first)."""
    if style not in BIDDING_STYLES:
        raise ValueError(f"unknown bidding style {style!r}")
    if len(order) != 3 or len(set(order)) != 3:
        raise ValueError("bidding needs exactly three distinct seats")
    return Bidding(style=style, order=list(order), to_act=order[0])


def bid_options(b: Bidding) -> BidOptions | None:
    """What ``b.to_act`` may do now, or ``None`` once the auction is over."""
    if b.done:
        return None
    if b.style == SCORE:
        return BidOptions(style=SCORE, bids=tuple(range(b.high_bid + 1, MAX_BID + 1)))
    return BidOptions(style=ROB, can_call=b.round == CALLING, can_rob=b.round != CALLING)


def bid_multiplier(b: Bidding) -> int:
    """The multiplier the auction sets: the winning bid (score) or 2 per rob (rob)."""
    if b.style == SCORE:
        return b.high_bid
    return 2 ** b.robs


def apply_bid(b: Bidding, seat: int, action: Mapping[str, Any]) -> tuple[Bidding, list[dict[str, Any]]]:
    """Apply one bidding decision by ``seat``; return the new auction and its events.

    Raises :class:`IllegalAction`: ``hand_over`` when the auction is over,
    ``not_your_turn``, ``bad_action`` for a type this style does not use, ``bad_bid``
    for a bid that is not allowed now (a value not above the current bid, a call after
    the call, a rob before it).
    """
    if b.done:
        raise IllegalAction("hand_over", "the bidding is over")
    if seat != b.to_act:
        raise IllegalAction("not_your_turn", f"seat {b.to_act} is to bid, not seat {seat}")
    kind = action.get("type")
    if b.style == SCORE:
        if kind == "bid":
            return _score_bid(b, seat, action.get("value"))
        if kind == "pass":
            return _score_pass(b, seat)
        raise IllegalAction("bad_action", "in score bidding the actions are bid (value 1, 2 or 3) and pass")
    if kind == "call":
        return _rob_call(b, seat)
    if kind == "rob":
        return _rob_rob(b, seat)
    if kind == "pass":
        return _rob_pass(b, seat)
    raise IllegalAction("bad_action", "in rob bidding the actions are call, rob and pass")


def _copy(b: Bidding) -> Bidding:
    return replace(b, order=list(b.order), history=list(b.history), passed=list(b.passed),
                   pending=list(b.pending))


def _next_seat(b: Bidding, seat: int) -> int:
    i = b.order.index(seat)
    return b.order[(i + 1) % 3]


# --- score style -------------------------------------------------------------------


def _score_bid(b: Bidding, seat: int, value: Any) -> tuple[Bidding, list[dict[str, Any]]]:
    if isinstance(value, bool) or not isinstance(value, int):
        raise IllegalAction("bad_bid", f"a bid needs an integer value 1, 2 or 3, got {value!r}")
    if not b.high_bid < value <= MAX_BID:
        allowed = ", ".join(str(v) for v in range(b.high_bid + 1, MAX_BID + 1))
        raise IllegalAction("bad_bid", f"bid must be one of {allowed}, got {value}")
    n = _copy(b)
    n.high_bid = value
    n.leader = seat
    n.history.append({"seat": seat, "action": "bid", "value": value})
    events: list[dict[str, Any]] = [{"type": "bid", "seat": seat, "value": value}]
    _score_advance(n, seat)
    return n, events


def _score_pass(b: Bidding, seat: int) -> tuple[Bidding, list[dict[str, Any]]]:
    n = _copy(b)
    n.passed.append(seat)
    n.history.append({"seat": seat, "action": "pass"})
    events: list[dict[str, Any]] = [{"type": "pass", "seat": seat, "phase": "bidding"}]
    _score_advance(n, seat)
    return n, events


def _score_advance(n: Bidding, seat: int) -> None:
    """Decide whether the auction is over and who speaks next (mutates the fresh copy)."""
    still_in = [s for s in n.order if s not in n.passed]
    if n.high_bid == MAX_BID or (n.leader is not None and still_in == [n.leader]):
        _finish(n, n.leader)
        return
    if not still_in:
        _finish(n, None)
        return
    nxt = _next_seat(n, seat)
    while nxt in n.passed or nxt == n.leader:
        nxt = _next_seat(n, nxt)
    n.to_act = nxt


# --- rob style ---------------------------------------------------------------------


def _rob_call(b: Bidding, seat: int) -> tuple[Bidding, list[dict[str, Any]]]:
    if b.round != CALLING:
        raise IllegalAction("bad_bid", "the landlord has already been called: rob or pass")
    n = _copy(b)
    n.caller = seat
    n.leader = seat
    n.history.append({"seat": seat, "action": "call"})
    n.round = ROBBING
    n.pending = [s for s in _after(n, seat) if s not in n.passed]
    events: list[dict[str, Any]] = [{"type": "call", "seat": seat, "multiplier": bid_multiplier(n)}]
    _rob_advance(n)
    return n, events


def _rob_rob(b: Bidding, seat: int) -> tuple[Bidding, list[dict[str, Any]]]:
    if b.round == CALLING:
        raise IllegalAction("bad_bid", "nobody has called the landlord yet: call or pass")
    n = _copy(b)
    n.robs += 1
    n.leader = seat
    n.pending.pop(0)
    n.history.append({"seat": seat, "action": "rob"})
    events: list[dict[str, Any]] = [{"type": "rob", "seat": seat, "multiplier": bid_multiplier(n)}]
    _rob_advance(n)
    return n, events


def _rob_pass(b: Bidding, seat: int) -> tuple[Bidding, list[dict[str, Any]]]:
    n = _copy(b)
    n.history.append({"seat": seat, "action": "pass"})
    events: list[dict[str, Any]] = [{"type": "pass", "seat": seat, "phase": "bidding"}]
    if n.round == CALLING:
        n.passed.append(seat)
        if len(n.passed) == 3:
            _finish(n, None)
        else:
            n.to_act = _next_seat(n, seat)
        return n, events
    if n.round == ROBBING:
        n.passed.append(seat)
    n.pending.pop(0)
    _rob_advance(n)
    return n, events


def _after(b: Bidding, seat: int) -> list[int]:
    """The two other seats in turn order after ``seat``."""
    i = b.order.index(seat)
    return [b.order[(i + 1) % 3], b.order[(i + 2) % 3]]


def _rob_advance(n: Bidding) -> None:
    """Move to the next speaker, the rob-back, or the end (mutates the fresh copy)."""
    if n.pending:
        n.to_act = n.pending[0]
        return
    if n.round == ROBBING and n.robs > 0:
        n.round = ROBBING_BACK
        n.pending = [n.caller] if n.caller is not None else []
        n.to_act = n.caller
        return
    _finish(n, n.leader)


def _finish(n: Bidding, landlord: int | None) -> None:
    n.done = True
    n.landlord = landlord
    n.to_act = None
    n.pending = []


# --- persistence -------------------------------------------------------------------


def bidding_to_dict(b: Bidding) -> dict[str, Any]:
    return {
        "style": b.style, "order": list(b.order), "to_act": b.to_act,
        "history": [dict(h) for h in b.history], "passed": list(b.passed),
        "high_bid": b.high_bid, "leader": b.leader, "caller": b.caller, "robs": b.robs,
        "round": b.round, "pending": list(b.pending), "done": b.done, "landlord": b.landlord,
    }


def bidding_from_dict(d: Mapping[str, Any]) -> Bidding:
    return Bidding(
        style=d["style"], order=list(d["order"]), to_act=d["to_act"],
        history=[dict(h) for h in d["history"]], passed=list(d["passed"]),
        high_bid=d["high_bid"], leader=d["leader"], caller=d["caller"], robs=d["robs"],
        round=d["round"], pending=list(d["pending"]), done=d["done"], landlord=d["landlord"],
    )
