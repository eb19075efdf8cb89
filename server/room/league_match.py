"""A league match's room: its state (:class:`LeagueState`, kept in ``Table.league``) and
what happens after each of its hands: every seat back to the match's stack, or in a
sit-and-go the blinds rising by level and the seats out of chips placed; the room closes
when the match is over. What players see of the match (:func:`public_league`)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from engine.game import Event

if TYPE_CHECKING:
    from .table import Table


@dataclass(frozen=True)
class LeagueState:
    """A league match's room (see server/league/): the match id, its seed (secret until the
    match ends), the deals to play and every seat's stack at the start of each hand. Its
    decks come from the match seed; its seats are held (no leaving, no sitting out) and
    reset to ``stack`` after each hand; it closes after ``hands`` hands. A sit-and-go
    (``format`` ``"sng"``, a game with blinds) keeps the stacks instead: the blinds rise by
    ``levels`` (``[small, big]`` pairs, ``level_hands`` hands each), a seat out of chips is
    eliminated with its place (``places``: seat, as a string, -> place), and the room closes
    when one seat holds every chip (or after ``hands`` hands, a safety cap: the rest placed
    by stack). Stored as a plain map (:meth:`to_dict`), as before it was typed."""

    match: str
    seed: str
    hands: int
    stack: int
    format: str = "deals"
    levels: tuple[tuple[int, int], ...] = ()
    level_hands: int = 1
    places: dict[str, int] | None = None  # a sit-and-go's, once its first hand ended

    @property
    def sng(self) -> bool:
        return self.format == "sng"

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"match": self.match, "seed": self.seed, "hands": self.hands, "stack": self.stack}
        if self.sng:
            d.update(format="sng", levels=[list(level) for level in self.levels], level_hands=self.level_hands)
        if self.places is not None:
            d["places"] = dict(self.places)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> LeagueState:
        return cls(match=d["match"], seed=d.get("seed", ""), hands=int(d.get("hands", 0)), stack=int(d.get("stack", 0)),
                   format=d.get("format", "deals"), levels=tuple(tuple(level) for level in d.get("levels", ())),
                   level_hands=int(d.get("level_hands", 1)), places=d.get("places"))


def sng_level(table: Table) -> int:
    """A sit-and-go's level (from 0) for the next hand."""
    league = table.league
    assert league is not None
    return min(table.hand_no // league.level_hands, len(league.levels) - 1)


def sng_blinds(table: Table) -> dict[str, int]:
    """A sit-and-go's blinds for the next hand (its level), else nothing to override."""
    league = table.league
    if league is None or not league.sng:
        return {}
    small, big = league.levels[sng_level(table)]
    return {"small_blind": small, "big_blind": big}


def sng_places(table: Table, over: bool) -> list[Event]:
    """Eliminate the seats this hand left without chips, worst place first: of two out in
    the same hand, the one that started it with more chips places better (equal: the
    same place). Once ``over``, the seats still in are placed by stack the same way."""
    league = table.league
    assert league is not None
    places: dict[str, int] = dict(league.places or {})  # a new dict: clone() shares league
    start = table.hand.start_stacks
    alive = [i for i, s in enumerate(table.seats) if s is not None and s.stack > 0]
    out = [i for i, s in enumerate(table.seats) if s is not None and s.stack == 0 and str(i) not in places]
    groups = [(out, lambda i: start[i] or 0, len(alive))]
    if over:
        groups.append((alive, lambda i: table.seats[i].stack, 0))  # type: ignore[union-attr]
    events: list[Event] = []
    for seats, size, better in groups:
        for i in sorted(seats, key=size):
            place = better + 1 + sum(size(j) > size(i) for j in seats)
            places[str(i)] = place
            events.append({"type": "eliminated" if i in out else "placed", "seat": i,
                           "player": table.seats[i].player, "place": place})  # type: ignore[union-attr]
    table.league = replace(league, places=places)
    return events


def league_hand_ended(table: Table) -> list[Event]:
    """After a league hand: every seat back to the match's stack (``stack_reset``: the
    chips added, or taken when negative, count as granted), and once the match's hands
    are played, to 0, and the room closes (``room_closed``, reason ``match_over``): the
    seats may then be left, with nothing to cash out. A sit-and-go keeps the stacks,
    places the seats it eliminates, and is over when one seat has every chip."""
    league = table.league
    assert league is not None
    sng = league.sng
    alive = sum(1 for s in table.seats if s is not None and s.stack > 0)
    over = table.hand_no >= league.hands or (sng and alive <= 1)
    events: list[Event] = sng_places(table, over) if sng else []
    target = 0 if over else league.stack  # the match's chips leave with the match
    for i, info in enumerate(table.seats):
        if info is not None and info.stack != target and (over or not sng):
            amount = target - info.stack
            info.stack = target
            events.append({"type": "stack_reset", "seat": i, "player": info.player, "amount": amount,
                           "stack": info.stack})
    if over:
        table.closed = True
        table.next_hand_ms = None
        events.append({"type": "room_closed", "reason": "match_over"})
    return events


def public_league(table: Table) -> dict[str, Any] | None:
    """What players see of a league room's match: its id and length (not its seed)."""
    if table.league is None:
        return None
    league = table.league
    shown: dict[str, Any] = {"match": league.match, "hands": league.hands}
    if league.sng:
        shown.update(format="sng", level=sng_blinds(table), level_no=sng_level(table) + 1,
                     places=league.places or {})
    return shown


#: Chat lines a room keeps to send whoever comes to it (``chat`` message); its stream keeps every one.
