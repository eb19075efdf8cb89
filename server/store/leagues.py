"""Leagues: the standings and matches published for clients, the leagues the servers run
and their runs, and a message to one player's connections. Part of :class:`server.store.Store`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .base import (
    Scripts,
    _gated,
    _text,
    pack,
    unpack,
)


class Leagues(Scripts):
    """The store's leagues: see the module doc."""

    # --- leagues (published after every match, read by clients) ------------------------

    @_gated
    async def publish_league(self, name: str, published: Mapping[str, Any]) -> None:
        """Keep what league ``name`` publishes (:func:`server.league.report.published`)."""
        await self.redis.hset(self.keys.leagues, name, pack(dict(published)))

    @_gated
    async def league_published(self, name: str) -> dict[str, Any] | None:
        raw = await self.redis.hget(self.keys.leagues, name)
        return None if raw is None else unpack(raw)

    @_gated
    async def leagues_published(self) -> dict[str, dict[str, Any]]:
        raw = await self.redis.hgetall(self.keys.leagues)
        return {_text(n): unpack(v) for n, v in raw.items()}

    @_gated
    async def add_league_matches(self, name: str, records: list[Mapping[str, Any]], replace: bool = False) -> None:
        """Append match records to league ``name``'s (each id once); ``replace``: instead of
        the ones it has."""
        k = self.keys
        if replace:
            await self.redis.delete(k.league_matches(name), k.league_match_ids(name))
        for record in records:
            await self._run("add_match", [k.league_matches(name), k.league_match_ids(name)],
                            [record["match"], pack(dict(record))])

    @_gated
    async def league_matches(self, name: str) -> list[dict[str, Any]]:
        return [unpack(r) for r in await self.redis.lrange(self.keys.league_matches(name), 0, -1)]

    @_gated
    async def league_match_count(self, name: str) -> int:
        return int(await self.redis.llen(self.keys.league_matches(name)))

    # --- leagues the servers run (created with league_create over the protocol) ----------

    @_gated
    async def create_league(self, name: str, definition: Mapping[str, Any]) -> bool:
        """Keep a new league the servers run; False if one of this name exists (run by
        the servers or published by ``cardroom league run``)."""
        if await self.redis.hexists(self.keys.leagues, name):
            return False
        return bool(await self.redis.hsetnx(self.keys.league_defs, name, pack(dict(definition))))

    @_gated
    async def leagues_owned(self, player: str) -> int:
        """How many of the leagues the servers run ``player`` made."""
        return sum(unpack(v).get("owner") == player for v in await self.redis.hvals(self.keys.league_defs))

    @_gated
    async def save_league(self, name: str, definition: Mapping[str, Any]) -> None:
        await self.redis.hset(self.keys.league_defs, name, pack(dict(definition)))

    @_gated
    async def league_definition(self, name: str) -> dict[str, Any] | None:
        raw = await self.redis.hget(self.keys.league_defs, name)
        return None if raw is None else unpack(raw)

    @_gated
    async def league_run(self, name: str) -> dict[str, Any] | None:
        """The state of league ``name``'s run (None: not running)."""
        raw = await self.redis.hget(self.keys.league_runs, name)
        return None if raw is None else unpack(raw)

    @_gated
    async def league_runs(self) -> dict[str, dict[str, Any]]:
        raw = await self.redis.hgetall(self.keys.league_runs)
        return {_text(n): unpack(v) for n, v in raw.items()}

    @_gated
    async def save_league_run(self, name: str, state: Mapping[str, Any] | None) -> None:
        """Record a run's state (None: the run is over)."""
        if state is None:
            await self.redis.hdel(self.keys.league_runs, name)
        else:
            await self.redis.hset(self.keys.league_runs, name, pack(dict(state)))

    @_gated
    async def tell_player(self, player: str, message: Mapping[str, Any], close: bool = False) -> None:
        """Send ``message`` to every connection of ``player``, on whichever process (and
        with ``close``, close them after it: a ban)."""
        await self._cmd("PUBLISH", self.keys.lobby_channel,
                        pack({"to": player, "message": dict(message), **({"close": True} if close else {})}))
