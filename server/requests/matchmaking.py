"""Quick match: which table a ``quick_match`` request should sit at, as pure functions.

A request names a game and optionally a ``stake`` (the game's main stake, its
:attr:`engine.game.Stakes.field`: Hold'em's big blind, Zha Jin Hua's ante, Dou Dizhu's
base stake) and a table size (``seats``). Requests
with the same three values share a *bucket*; the lobby decides them one at a time per
bucket, across every server process, under a Redis lock (see :mod:`server.requests.tables`), so a
burst of requests fills one table before it opens the next: never two half-empty tables.
"""

from __future__ import annotations

from typing import Any

from engine.game import Game

from ..room import table as tbl

CANDIDATES = 12  # tables looked at per request (the fullest first)


def bucket(game: str, stake: int | None, seats: int | None) -> str:
    """The name requests that may share a table are serialized under."""
    return f"{game}:{stake or '-'}:{seats or '-'}"


def quick_table(game: Game, stake: int | None, seats: int | None) -> tuple[dict[str, Any], dict[str, Any]]:
    """The room options and config of the table a quick match opens: the request's size
    and stake, else the game's quick table (:class:`engine.game.Stakes`: Hold'em's is
    six-handed 5/10, where the default buy-in of 1,000 is a hundred big blinds, the same as
    the page's "Play now"), else the game's own defaults."""
    stakes = game.stakes
    size = seats or (stakes.quick_seats if stakes else None)
    stake = stake or (stakes.quick_stake if stakes else None)
    config = stakes.table_config(stake) if stakes is not None and stake is not None else {}
    return ({"seats": size} if size else {}), config


def fits(table: tbl.Table, game: Game, player: str, stake: int | None, seats: int | None) -> bool:
    """May ``player`` be seated at ``table`` (of ``game``) by a quick match with these filters?"""
    if table.closed or table.locked or table.code is not None or tbl.seat_of(table, player) is not None:
        return False
    if seats is not None and len(table.seats) != seats:
        return False
    if stake is not None and (game.stakes is None or table.config.get(game.stakes.field) != stake):
        return False
    return any(s is None for s in table.seats)


def order(entries: list[dict[str, Any]], game: str, last: str | None) -> list[str]:
    """The rooms to try, best first: the table the bucket opened last (the lobby may not
    list it yet), then listed tables of ``game`` where someone sits (a player or a bot) and
    a seat is free, the most people first. A listed table nobody sits at is no match: it
    may be any table someone opened with settings of their own and left (ten seats, a
    buy-in of ten big blinds) and would seat the player alone; a new quick table
    (:func:`quick_table`) is better, and the next request of the bucket finds it."""
    listed = [e for e in entries
              if e.get("game") == game and 0 < e.get("players", 0) < e.get("seats", 0)]
    listed.sort(key=lambda e: (-(e.get("players", 0) - e.get("bots", 0)), -e.get("players", 0), e.get("room", "")))
    rooms = [last] if last else []
    rooms += [e["room"] for e in listed if e["room"] != last]
    return rooms[:CANDIDATES]
