"""A room as Redis keeps it: a snapshot now and then, and the record of every change.

Storing the whole table on every change made each commit cost what the table costs.
Instead a commit stores the change's *record* (:attr:`~server.room.core.Change.record`:
the command or automatic step, the time, the values drawn from outside the table, the
settled transfers dropped) in the room's stream beside its events, and a full snapshot
only when :func:`needs_snapshot` says so. Decisions are pure functions of the table and
the record, so loading a room is: the last snapshot, then :meth:`RoomCore.replay` of
each record after it (:func:`current_table`). Every process that shows or takes over a
room does exactly that, and so does a process following a room another one owns (one
record per change, on the room's channel).
"""

from __future__ import annotations

from typing import Any

from engine.game import Game

from ..games import GAMES
from ..store import RoomLog, Store, unpack
from . import table as tbl
from .core import Change, ReplayError, RoomCore

#: A full snapshot at least every this many changes: what a recovery replays at most.
SNAPSHOT_EVERY = 64


class RoomLogError(Exception):
    """The room's stored records cannot be replayed onto its snapshot."""


def needs_snapshot(before: tbl.Table, change: Change, since: int, every: int = SNAPSHOT_EVERY) -> bool:
    """Must ``change`` (made from ``before``) be stored as a full snapshot, not only its
    record? Yes when chips cross the table's edge or its transfer bookkeeping changes (so the
    snapshot Redis holds always counts the table's chips exactly, for the chip audit and
    the transfer sweeper); when the room closes; and when ``every`` changes have passed
    since the last snapshot (``since`` is its version)."""
    t = change.table
    return (
        change.debit is not None
        or bool(change.payouts or change.granted or change.forget)
        or t.xin != before.xin
        or t.xout != before.xout
        or t.closed != before.closed
        or t.version - since >= every
    )


def replay(game: Game, table: tbl.Table, record: list[Any], version: int) -> Change:
    """The change of ``version`` made again from ``table`` (the version before it)."""
    if table.version != version - 1:
        raise RoomLogError(f"room {table.room}: record of version {version} on version {table.version}")
    try:
        change = RoomCore.replayer(game, table).replay(record)
    except ReplayError as exc:
        raise RoomLogError(str(exc)) from None
    return change


def current_table(game: Game, log: RoomLog) -> tbl.Table:
    """The room's table now: its last snapshot with the records after it replayed.
    Raises :class:`RoomLogError` if the records are not all there (a stream trimmed
    below them, or a room written by something else)."""
    table = tbl.from_dict(unpack(log.snapshot), game)
    versions = [v for v, _ in log.records if v > log.snapshot_version]
    if table.version != log.snapshot_version or versions != list(range(table.version + 1, log.version + 1)):
        raise RoomLogError(f"room {table.room}: snapshot of version {table.version} and records "
                           f"{versions[:3]}... do not make version {log.version}")
    for version, record in log.records:
        if version > log.snapshot_version:
            table = replay(game, table, unpack(record), version).table
    return table


async def load_table(store: Store, room: str, games: dict[str, Game]) -> tbl.Table | None:
    """The room's current table from Redis (None: no such room, or a game not hosted here).
    Raises one of ``UNAVAILABLE`` if Redis cannot be reached."""
    log = await store.room_log(room)
    if log is None:
        return None
    game = games.get(unpack(log.snapshot)["game"])
    return None if game is None else current_table(game, log)


async def load_room(store: Store, room: str, games: dict[str, Game] | None = None) -> dict[str, Any] | None:
    """The room's current table as a map (the snapshot format), for tools and tests."""
    games = GAMES if games is None else games
    table = await load_table(store, room, games)
    return None if table is None else tbl.to_dict(table, games[table.game])
