"""Server processes: heartbeats and the live set, wake-ups of rooms that are due, each
process's inbox, room channels. Part of :class:`server.store.Store`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .base import (
    INBOX_MAXLEN,
    NOTICE,
    Scripts,
    _gated,
    _text,
    pack,
    unpack,
)


class Nodes(Scripts):
    """The store's nodes: see the module doc."""

    # --- nodes, wake-ups, inboxes ----------------------------------------------------

    @_gated
    async def heartbeat(self, node: str, expiry_ms: int, inbox_ms: int) -> bool:
        """Say ``node`` is alive until ``expiry_ms``; False if its inbox is gone."""
        k = self.keys
        await self.redis.zadd(k.nodes, {node: expiry_ms})
        return bool(await self.redis.pexpire(k.inbox(node), inbox_ms))

    @_gated
    async def live_nodes(self, now_ms: int) -> set[str]:
        k = self.keys
        await self.redis.zremrangebyscore(k.nodes, "-inf", now_ms - 60_000)
        return {_text(n) for n in await self.redis.zrangebyscore(k.nodes, f"({now_ms}", "+inf")}

    @_gated
    async def leave_cluster(self, node: str) -> None:
        k = self.keys
        await self.redis.zrem(k.nodes, node)
        await self.redis.delete(k.inbox(node))

    @_gated
    async def set_wakeups(self, when: Mapping[str, int | None]) -> None:
        """When someone must look at each room if its owner is gone (None: never)."""
        k = self.keys
        due = {room: ms for room, ms in when.items() if ms is not None}
        gone = [room for room, ms in when.items() if ms is None]
        if due:
            await self.redis.zadd(k.wakeups, due)
        if gone:
            await self.redis.zrem(k.wakeups, *gone)

    @_gated
    async def due_rooms(self, now_ms: int, limit: int = 50) -> list[str]:
        rooms = await self.redis.zrangebyscore(self.keys.wakeups, "-inf", now_ms, start=0, num=limit)
        return [_text(r) for r in rooms]

    @_gated
    async def open_inbox(self, node: str, ttl_ms: int) -> str:
        """Create (or mark) ``node``'s inbox; returns the stream id to read after, so that a
        process restarted with the same node id never reads its predecessor's messages."""
        k = self.keys
        entry = await self.redis.xadd(k.inbox(node), {"m": pack({"k": "open"})}, maxlen=INBOX_MAXLEN,
                                      approximate=True)
        await self.redis.pexpire(k.inbox(node), ttl_ms)
        return _text(entry)

    @_gated
    async def send_to_node(self, node: str, message: Mapping[str, Any]) -> bool:
        """Append to ``node``'s inbox; False when the node has no inbox (it is gone)."""
        entry = await self._cmd("XADD", self.keys.inbox(node), "NOMKSTREAM", "MAXLEN", "~", INBOX_MAXLEN,
                                "*", "m", pack(dict(message)))
        return entry is not None

    @_gated
    async def read_inbox(self, node: str, after: str, block_ms: int, count: int = 200
                         ) -> list[tuple[str, dict[str, Any]]]:
        """Messages in ``node``'s inbox after stream id ``after`` (waits up to ``block_ms``)."""
        found = await self.blocking.xread({self.keys.inbox(node): after}, count=count, block=block_ms)
        out = []
        for _key, entries in found or ():
            for entry_id, fields in entries:
                out.append((_text(entry_id), unpack(fields[b"m"])))
        return out

    async def publish(self, channel: str, data: bytes) -> None:
        await self._cmd("PUBLISH", channel, data)

    @_gated
    async def publish_notice(self, room: str, notice: Mapping[str, Any]) -> None:
        await self._cmd("PUBLISH", self.keys.notice_channel(room), NOTICE + pack(dict(notice)))
