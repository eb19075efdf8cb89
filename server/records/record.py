"""A player's own record: hands played and chips won or lost per game, and the last results.

When a room stores a change holding a ``hand_ended`` event, :func:`hand_results` works out
what each person dealt into that hand won or lost (bot seats and league rooms excepted: a
league match's chips never reach a wallet), and the room actor writes each result to its
player's keys with one script on the player's own slot (:meth:`server.store.Store.record_hand`).
So ``my_record`` is answered from three keys of one player, whatever the number of rooms.
Nothing in this module does I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from engine.game import Event

from ..games import GAMES
from .history import Entry, Hand, net_results, split_hands

if TYPE_CHECKING:
    from ..room import table as tbl

RESULTS_KEPT = 200  # per player: the last results kept (and a result recorded twice is told apart)


@dataclass(frozen=True)
class HandResult:
    """What one player won (+) or lost (-) in one finished hand."""

    player: str
    room: str
    room_name: str
    game: str
    hand: int
    seat: int
    net: int

    @property
    def key(self) -> str:
        """The result's id in the player's record: ``"<room> <hand>"`` (recorded once)."""
        return f"{self.room} {self.hand}"

    def to_wire(self) -> dict[str, Any]:
        """The result as the ``record`` reply lists it (``time_ms`` is added when read)."""
        return {"room": self.room, "name": self.room_name, "game": self.game, "hand": self.hand,
                "seat": self.seat, "net": self.net}


def hand_results(before: tbl.Table, after: tbl.Table, events: list[Event]) -> list[HandResult]:
    """The results of the hand a change ended (none if it ended none): for each seat the
    engine dealt in whose player is a person, its stack in ``hand_ended`` minus its stack
    when the hand started (``before``'s, the table the change was made from: a seat's
    stack only changes between hands)."""
    if after.league is not None or after.hand is None:
        return []
    ended = next((e for e in events if e.get("type") == "hand_ended"), None)
    if ended is None:
        return []
    dealt = list(getattr(after.hand, "players", ()) or ())
    stacks = ended.get("stacks") or []
    results = []
    for seat, player in enumerate(dealt):
        info = before.seats[seat] if seat < len(before.seats) else None
        final = stacks[seat] if seat < len(stacks) else None
        if player is None or info is None or info.bot or info.player != player or final is None:
            continue
        results.append(HandResult(player, after.room, str(after.options.get("name", "")), after.game,
                                  int(ended.get("hand_no", after.hand_no)), seat, final - info.stack))
    return results


def last_hand_results(table: tbl.Table, entries: list[Entry]) -> tuple[list[HandResult], int | None]:
    """The results of the table's last hand, if it is over, told from the room's stream
    (``entries``, oldest first) rather than from the change that ended it: what a new owner
    of the room writes again (once each) in case its previous owner stopped between storing
    that change and writing the records. With the hand's time (ms) from the stream; nothing
    when the entries do not reach back to where the seats' stacks before the hand are known
    (the end of the hand before, or the room's first changes)."""
    if table.league is not None or table.hand is None or not table.hand.is_over or not entries:
        return [], None
    seats = [None if s is None else {"player": s.player, "name": s.name, "stack": s.stack, "bot": s.bot}
             for s in table.seats]
    hands = {h.number: h for h in split_hands(entries, seats) if h.finished}
    hand: Hand | None = hands.get(table.hand_no)
    known_before = table.hand_no - 1 in hands or entries[0].version <= 2
    if hand is None or not known_before:
        return [], None
    ended = next((item.entry for item in hand.events if item.event.get("type") == "hand_ended"), None)
    nets = net_results(hand)
    results = [HandResult(s.player, table.room, str(table.options.get("name", "")), table.game, hand.number, s.seat,
                          nets[s.seat]) for s in hand.seats if not s.bot and s.seat in nets]
    return results, None if ended is None else ended.time_ms


def record_message(totals: dict[str, int], recent: list[dict[str, Any]]) -> dict[str, Any]:
    """The ``record`` reply: ``hands`` (all games), ``games`` (per game: ``hands``, ``net``,
    every game this server hosts present, zeros where none was played) and ``recent``
    (newest first)."""
    games = {g: {"hands": totals.get(f"{g}:hands", 0), "net": totals.get(f"{g}:net", 0)} for g in GAMES}
    for key in totals:
        game, _, kind = key.rpartition(":")
        if game and game not in games and kind in ("hands", "net"):
            games[game] = {"hands": totals.get(f"{game}:hands", 0), "net": totals.get(f"{game}:net", 0)}
    return {"t": "record", "hands": sum(g["hands"] for g in games.values()), "games": games, "recent": recent}
