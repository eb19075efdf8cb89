"""The shared room list, spectator counts, short locks, quick match and private rooms'
join codes. Part of :class:`server.store.Store`."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .base import (
    Scripts,
    _gated,
    _text,
    unpack,
)


class Listing(Scripts):
    """The store's listing: see the module doc."""

    # --- short locks and quick match ---------------------------------------------------

    @_gated
    async def lock(self, name: str, token: str, ms: int) -> bool:
        """Take lock ``name`` for ``ms`` milliseconds unless someone holds it."""
        return bool(await self.redis.set(self.keys.lock(name), token, nx=True, px=ms))

    @_gated
    async def extend_lock(self, name: str, token: str, ms: int) -> bool:
        """Hold lock ``name`` ``ms`` milliseconds more; False if ``token`` no longer holds it."""
        return bool(int(await self._run("extend", [self.keys.lock(name)], [token, ms])))

    @_gated
    async def unlock(self, name: str, token: str) -> None:
        """Give lock ``name`` back, if ``token`` still holds it."""
        await self._run("unlock", [self.keys.lock(name)], [token])

    async def quick_match_room(self, bucket: str) -> str | None:
        """The room quick-match ``bucket`` opened last (for a minute)."""
        raw = await self.redis.get(self.keys.quick_match(bucket))
        return None if raw is None else _text(raw)

    async def set_quick_match_room(self, bucket: str, room: str) -> None:
        await self.redis.set(self.keys.quick_match(bucket), room, px=60_000)

    @_gated
    async def claim_join_code(self, code: str, room: str) -> bool:
        """Make ``code`` name ``room`` for ``find_room``; False if another room has it."""
        return bool(await self.redis.set(self.keys.join_code(code), room, nx=True))

    @_gated
    async def room_of_code(self, code: str) -> str | None:
        raw = await self.redis.get(self.keys.join_code(code))
        return None if raw is None else _text(raw)

    @_gated
    async def drop_join_code(self, code: str, room: str) -> None:
        """Forget ``code`` if it still names ``room`` (its room is gone, or was never made)."""
        key = self.keys.join_code(code)
        if await self.room_of_code(code) == room:
            await self.redis.delete(key)

    async def remove_lobby_entry(self, room: str) -> None:
        await self.redis.hdel(self.keys.lobby, room)

    @_gated
    async def lobby_entries(self) -> dict[str, dict[str, Any]]:
        raw = await self.redis.hgetall(self.keys.lobby)
        return {_text(r): unpack(v) for r, v in raw.items()}

    @_gated
    async def set_spectators(self, room: str, node: str, count: int) -> None:
        field = f"{room} {node}"
        if count:
            await self._cmd("HSET", self.keys.spectators, field, count)
        else:
            await self._cmd("HDEL", self.keys.spectators, field)

    @_gated
    async def spectator_counts(self, live_nodes: set[str]) -> dict[str, int]:
        """Spectators by room, counting only nodes that are alive."""
        out: dict[str, int] = {}
        for field, n in (await self.redis.hgetall(self.keys.spectators)).items():
            room, node = _text(field).split(" ", 1)
            if node in live_nodes:
                out[room] = out.get(room, 0) + int(n)
        return out

    @_gated
    async def clear_spectators(self, node: str, rooms: Iterable[str]) -> None:
        fields = [f"{r} {node}" for r in rooms]
        if fields:
            await self.redis.hdel(self.keys.spectators, *fields)
