"""What the seat to act may do now, as an object and as plain data for a client."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .bidding import BidOptions, bid_options
from .movegen import legal_plays
from .options import rules_of
from .plays import Play, classify
from .state import BIDDING, PLAY, DoudizhuState


@dataclass(frozen=True)
class LegalActions:
    """The choices of the seat to act.

    ``phase``      ``bidding`` or ``play``
    ``bidding``    in the auction: the bids, or call/rob, allowed (passing always is)
    ``can_pass``   whether ``{"type": "pass"}`` is accepted
    ``must_lead``  the seat leads a trick: any play, no pass
    ``to_beat``    the move to beat (``{"seat", "cards", "ranks", "kind"}``) or ``None``
    ``plays``      every legal play (each rank multiset once) in the order of
                   :func:`~engine.doudizhu.movegen.legal_plays`: grouped by kind (solos,
                   pairs, ..., bombs, the rocket last), each kind from its lowest rank
                   up; the hints a client can cycle through
    """

    phase: str
    bidding: BidOptions | None = None
    can_pass: bool = False
    must_lead: bool = False
    to_beat: dict[str, Any] | None = None
    plays: tuple[Play, ...] = ()


def legal_actions(state: DoudizhuState, seat: int) -> LegalActions | None:
    """What ``seat`` may do now; ``None`` when it is not its turn (or the hand is over)."""
    if state.is_over or state.to_act is None or seat != state.to_act:
        return None
    if state.phase == BIDDING:
        return LegalActions(phase=BIDDING, bidding=bid_options(state.bidding), can_pass=True)
    rules = rules_of(state.options)
    prev = None if state.to_beat is None else classify(state.to_beat["cards"], rules)
    plays = legal_plays(state.hands[seat], prev, rules)
    return LegalActions(
        phase=PLAY, can_pass=prev is not None, must_lead=prev is None, to_beat=state.to_beat,
        plays=tuple(plays),
    )


def legal_to_wire(legal: LegalActions | None) -> dict[str, Any] | None:
    """Plain data for a client, or ``None`` when the seat may do nothing.

    Bidding: ``{"phase": "bidding", "style": "score", "bids": [2, 3], "can_pass": true}``
    or ``{"phase": "bidding", "style": "rob", "can_call": .., "can_rob": .., "can_pass": true}``.
    Play: ``{"phase": "play", "can_pass", "must_lead", "to_beat": move | null,
    "plays": [{"ranks": "33344455", "kind": "airplane_solo"}, ...]}``; a client may send
    a hint's ``ranks`` as the ``cards`` of a play action.
    """
    if legal is None:
        return None
    if legal.phase == BIDDING:
        assert legal.bidding is not None
        return {"phase": BIDDING, "style": legal.bidding.style, **legal.bidding.to_wire()}
    return {
        "phase": PLAY,
        "can_pass": legal.can_pass,
        "must_lead": legal.must_lead,
        "to_beat": None if legal.to_beat is None else dict(legal.to_beat, cards=list(legal.to_beat["cards"])),
        "plays": [{"ranks": p.cards, "kind": p.kind} for p in legal.plays],
    }
