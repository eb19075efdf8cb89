"""The state of one Dou Dizhu hand: plain data that round-trips through msgpack.

Lists named by seat (``players``, ``stacks``, ``hands``, ``plays_made``) are indexed by
the table's seat numbers, empty seats included. ``order`` holds the three occupied
seats in turn order, starting with the seat left of the button (the first bidder).

Cards are always in exactly one place: a seat's ``hands`` entry, ``bottom`` (until the
landlord takes it; it stays listed there so everyone can see it afterwards, and
``bottom_taken`` says it went to the landlord), or a play recorded in ``history``.

A *move* is a dict ``{"seat", "type": "play" | "pass"}``; a play adds ``"cards"`` (card
ids, Dou Dizhu order), ``"ranks"`` (the rank string, e.g. ``"33344455"``) and
``"kind"`` (``"airplane_solo"``...). Moves are never changed once made, so copies of a
state share them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from .bidding import Bidding, bidding_from_dict, bidding_to_dict

BIDDING = "bidding"
OPEN = "open"          # 明牌: the landlord decides whether to show the hand (option open_hand)
DOUBLING = "doubling"  # 加倍: each seat in turn decides whether to double (option doubling)
PLAY = "play"
OVER = "over"


@dataclass
class DoudizhuState:
    """One hand, from the deal to the settlement.

    ``phase``        ``bidding``, ``open`` (明牌 choice, option ``open_hand``), ``doubling``
                     (加倍 choices, option ``doubling``), ``play`` or ``over``
    ``options``      the parsed hand options (without ``button``)
    ``bidding``      the landlord auction (kept after it ends, for the record)
    ``landlord``     the landlord seat once known
    ``to_beat``      the last play of the current trick (the move to beat), or ``None``
                     when the seat to act leads
    ``passes``       passes in a row since ``to_beat`` was played
    ``trick``        the moves of the current trick, in order
    ``history``      every move of the play phase, in order
    ``plays_made``   plays (not passes) by seat: decides spring and anti-spring
    ``bombs``        bombs played; ``rockets`` rockets played (each doubles)
    ``result``       the final event (``hand_over`` or ``redeal``) once over
    ``open_hand``    the open-hand multiplier: 1 while the landlord's hand is hidden, else
                     ``OPEN_BEFORE_BOTTOM`` or ``OPEN_AFTER_BOTTOM`` (the hand is face up)
    ``doubled``      by seat: ``True`` doubled, ``False`` declined, ``None`` not (yet) decided
    """

    options: dict[str, Any]
    button: int
    players: list[str | None]
    start_stacks: list[int | None]
    stacks: list[int | None]
    order: list[int]
    hands: list[list[int]]
    bottom: list[int]
    bottom_taken: bool
    phase: str
    bidding: Bidding
    landlord: int | None
    to_act: int | None
    is_over: bool
    to_beat: dict[str, Any] | None
    passes: int
    trick: list[dict[str, Any]]
    history: list[dict[str, Any]]
    plays_made: list[int]
    bombs: int
    rockets: int
    result: dict[str, Any] | None
    open_hand: int = 1
    doubled: list[bool | None] = field(default_factory=list)

    def next_seat(self, seat: int) -> int:
        """The occupied seat after ``seat`` in turn order."""
        return self.order[(self.order.index(seat) + 1) % 3]

    def peasants(self) -> list[int]:
        """The two peasant seats in turn order after the landlord (empty before it is known)."""
        if self.landlord is None:
            return []
        first = self.next_seat(self.landlord)
        return [first, self.next_seat(first)]


def clone(state: DoudizhuState) -> DoudizhuState:
    """A copy whose lists can be changed without touching ``state``.

    Moves, ``options`` and ``bidding`` are never changed in place, so they are shared.
    """
    return DoudizhuState(
        options=state.options, button=state.button, players=list(state.players),
        start_stacks=list(state.start_stacks), stacks=list(state.stacks), order=list(state.order),
        hands=[list(h) for h in state.hands], bottom=list(state.bottom),
        bottom_taken=state.bottom_taken, phase=state.phase, bidding=state.bidding,
        landlord=state.landlord, to_act=state.to_act, is_over=state.is_over,
        to_beat=state.to_beat, passes=state.passes, trick=list(state.trick),
        history=list(state.history), plays_made=list(state.plays_made), bombs=state.bombs,
        rockets=state.rockets, result=state.result, open_hand=state.open_hand,
        doubled=list(state.doubled),
    )


def to_dict(state: DoudizhuState) -> dict[str, Any]:
    """Plain data (str keys, lists, ints, strs, bools, None) for persistence.

    Everything is copied, so the result can be changed without touching ``state``.
    """
    return {
        "options": dict(state.options), "button": state.button, "players": list(state.players),
        "start_stacks": list(state.start_stacks), "stacks": list(state.stacks),
        "order": list(state.order), "hands": [list(h) for h in state.hands],
        "bottom": list(state.bottom), "bottom_taken": state.bottom_taken, "phase": state.phase,
        "bidding": bidding_to_dict(state.bidding), "landlord": state.landlord,
        "to_act": state.to_act, "is_over": state.is_over,
        "to_beat": None if state.to_beat is None else _move(state.to_beat),
        "passes": state.passes, "trick": [_move(m) for m in state.trick],
        "history": [_move(m) for m in state.history], "plays_made": list(state.plays_made),
        "bombs": state.bombs, "rockets": state.rockets,
        "result": None if state.result is None else _plain(state.result),
        "open_hand": state.open_hand, "doubled": list(state.doubled),
    }


def from_dict(data: Mapping[str, Any]) -> DoudizhuState:
    """Rebuild a state from :func:`to_dict` output (also after a msgpack round trip).

    A state stored before ``open_hand`` and ``doubled`` existed gets their defaults (a
    hidden hand, nobody doubled).
    """
    names = {f.name for f in fields(DoudizhuState)}
    missing = names - set(data) - set(_ADDED)
    if missing:
        raise ValueError(f"not a Dou Dizhu state: missing {', '.join(sorted(missing))}")
    values = {name: data[name] for name in names if name in data}
    for name, default in _ADDED.items():
        values.setdefault(name, default(data))
    values["doubled"] = list(values["doubled"])
    values["options"] = dict(data["options"])
    values["bidding"] = bidding_from_dict(data["bidding"])
    values["hands"] = [list(h) for h in data["hands"]]
    for name in ("players", "start_stacks", "stacks", "order", "bottom", "plays_made"):
        values[name] = list(data[name])
    values["to_beat"] = None if data["to_beat"] is None else _move(data["to_beat"])
    values["trick"] = [_move(m) for m in data["trick"]]
    values["history"] = [_move(m) for m in data["history"]]
    values["result"] = None if data["result"] is None else _plain(data["result"])
    return DoudizhuState(**values)


# Fields added after states were first stored, with their defaults for an older state.
_ADDED: dict[str, Any] = {
    "open_hand": lambda data: 1,
    "doubled": lambda data: [None] * len(data["players"]),
}


def _move(m: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(m)
    if "cards" in out:
        out["cards"] = list(out["cards"])
    return out


def _plain(v: Any) -> Any:
    """Deep copy of nested dicts/lists (tuples become lists, as msgpack does)."""
    if isinstance(v, Mapping):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [_plain(x) for x in v]
    return v
