"""Quick match: which table a ``quick_match`` request should sit at, as pure functions.

A request names a game and optionally a ``stake`` (the game's main stake: Hold'em's big
blind, Zha Jin Hua's ante, Dou Dizhu's base stake) and a table size (``seats``). Requests
with the same three values share a *bucket*; the lobby decides them one at a time per
bucket, across every server process, under a Redis lock (see :mod:`server.lobby`), so a
burst of requests fills one table before it opens the next: never two half-empty tables.
"""

from __future__ import annotations

from typing import Any

from .room import table as tbl

STAKE_FIELD = {"holdem": "big_blind", "zhajinhua": "ante", "doudizhu": "stake"}
"""The config field a quick match's ``stake`` is, by game."""

QUICK_TABLE = {"holdem": (6, 10), "zhajinhua": (5, None), "doudizhu": (3, None)}
"""The table a quick match opens when no open table fits, by game: its size and stake where
the request names none. The engine's defaults are a full ring (ten seats of Hold'em, nine of
Zha Jin Hua) and Hold'em blinds of 50/100, under which the default buy-in of 1,000 is ten
big blinds; a quick table is a six-handed 5/10 game, where it is a hundred (the same as
the page's "Play now")."""

CANDIDATES = 12  # tables looked at per request (the fullest first)


def bucket(game: str, stake: int | None, seats: int | None) -> str:
    """The name requests that may share a table are serialized under."""
    return f"{game}:{stake or '-'}:{seats or '-'}"


def quick_table(game: str, stake: int | None, seats: int | None) -> tuple[dict[str, Any], dict[str, Any]]:
    """The room options and config of the table a quick match opens: the request's size
    and stake, else the game's :data:`QUICK_TABLE` ones (the game's defaults for a game
    without)."""
    size, default_stake = QUICK_TABLE.get(game, (None, None))
    size = seats or size
    return ({"seats": size} if size else {}), stake_config(game, stake or default_stake)


def stake_config(game: str, stake: int | None) -> dict[str, Any]:
    """The config of a table created for a request with ``stake`` (the game's defaults
    otherwise; Hold'em's small blind is half the big one, Zha Jin Hua's cap ten antes)."""
    if stake is None:
        return {}
    if game == "holdem":
        return {"big_blind": stake, "small_blind": max(1, stake // 2)}
    if game == "zhajinhua":
        return {"ante": stake, "max_stake": 10 * stake}
    if game in STAKE_FIELD:
        return {STAKE_FIELD[game]: stake}
    return {}


def fits(table: tbl.Table, player: str, stake: int | None, seats: int | None) -> bool:
    """May ``player`` be seated at ``table`` by a quick match with these filters?"""
    if table.closed or table.locked or table.code is not None or tbl.seat_of(table, player) is not None:
        return False
    if seats is not None and len(table.seats) != seats:
        return False
    field = STAKE_FIELD.get(table.game)
    if stake is not None and (field is None or table.config.get(field) != stake):
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
