"""What the seat to act may do now, as an object and as plain data for a client."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .bidding import BidOptions, bid_options
from .movegen import legal_plays
from .options import rules_of
from .plays import Play, classify
from .scoring import OPEN_AFTER_BOTTOM, OPEN_BEFORE_BOTTOM
from .state import BIDDING, DOUBLING, OPEN, PLAY, DoudizhuState


@dataclass(frozen=True)
class LegalActions:
    """The choices of the seat to act.

    ``phase``      ``bidding``, ``open``, ``doubling`` or ``play``
    ``bidding``    in the auction: the bids, or call/rob, allowed (passing always is)
    ``can_pass``   whether ``{"type": "pass"}`` is accepted
    ``must_lead``  the seat leads a trick: any play, no pass
    ``to_beat``    the move to beat (``{"seat", "cards", "ranks", "kind"}``) or ``None``
    ``plays``      every legal play (each rank multiset once) in the order of
                   :func:`~engine.doudizhu.movegen.legal_plays`: grouped by kind (solos,
                   pairs, ..., bombs, the rocket last), each kind from its lowest rank
                   up; the hints a client can cycle through
    ``can_open``   the landlord may show the hand (``{"type": "open"}``), for the
                   open-hand multiplier ``open_multiplier``; ``before_bottom``: the
                   bottom cards are not taken yet
    ``can_double`` the seat may double (``{"type": "double"}``)
    """

    phase: str
    bidding: BidOptions | None = None
    can_pass: bool = False
    must_lead: bool = False
    to_beat: dict[str, Any] | None = None
    plays: tuple[Play, ...] = ()
    can_open: bool = False
    open_multiplier: int = 0
    before_bottom: bool = False
    can_double: bool = False


def legal_actions(state: DoudizhuState, seat: int) -> LegalActions | None:
    """What ``seat`` may do now; ``None`` when it is not its turn (or the hand is over)."""
    if state.is_over or state.to_act is None or seat != state.to_act:
        return None
    if state.phase == BIDDING:
        return LegalActions(phase=BIDDING, bidding=bid_options(state.bidding), can_pass=True)
    if state.phase == OPEN:
        before = not state.bottom_taken
        return LegalActions(phase=OPEN, can_pass=True, can_open=True, before_bottom=before,
                            open_multiplier=OPEN_BEFORE_BOTTOM if before else OPEN_AFTER_BOTTOM)
    if state.phase == DOUBLING:
        return LegalActions(phase=DOUBLING, can_pass=True, can_double=True)
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
    Open hand: ``{"phase": "open", "can_open": true, "can_pass": true, "multiplier": 4,
    "before_bottom": true}``. Doubling: ``{"phase": "doubling", "can_double": true,
    "can_pass": true}``.
    Play: ``{"phase": "play", "can_pass", "must_lead", "to_beat": move | null,
    "plays": [{"ranks": "33344455", "kind": "airplane_solo"}, ...]}``; a client may send
    a hint's ``ranks`` as the ``cards`` of a play action.
    """
    if legal is None:
        return None
    if legal.phase == BIDDING:
        assert legal.bidding is not None
        return {"phase": BIDDING, "style": legal.bidding.style, **legal.bidding.to_wire()}
    if legal.phase == OPEN:
        return {"phase": OPEN, "can_open": legal.can_open, "can_pass": legal.can_pass,
                "multiplier": legal.open_multiplier, "before_bottom": legal.before_bottom}
    if legal.phase == DOUBLING:
        return {"phase": DOUBLING, "can_double": legal.can_double, "can_pass": legal.can_pass}
    return {
        "phase": PLAY,
        "can_pass": legal.can_pass,
        "must_lead": legal.must_lead,
        "to_beat": None if legal.to_beat is None else dict(legal.to_beat, cards=list(legal.to_beat["cards"])),
        "plays": [{"ranks": p.cards, "kind": p.kind} for p in legal.plays],
    }
