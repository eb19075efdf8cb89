"""Rooms: creation, leases (acquire, renew, release), commits and their publication,
restores, logs and event streams, retiring a closed room. Part of :class:`server.store.Store`."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from .base import (
    Acquired,
    Fenced,
    RoomLog,
    Scripts,
    VersionConflict,
    _gated,
    _room_log,
    _text,
    change_header,
    pack,
    unpack,
)


class Rooms(Scripts):
    """The store's rooms: see the module doc."""

    # --- rooms ---------------------------------------------------------------------

    @_gated
    async def create_room(self, room: str, game: str, snapshot: Mapping[str, Any], events: list[dict[str, Any]],
                          granted: int, node: str, lease_ms: int) -> bool:
        """Write a new room (version 1, fence 1, leased to ``node``); False if the id is taken."""
        k = self.keys
        await self.redis.sadd(k.rooms, room)
        done = await self._run(
            "create_room", [k.room(room), k.events(room), k.lease(room)],
            [node, lease_ms, pack(dict(snapshot)), game, pack(events) if events else b"", self.stream_maxlen, granted],
        )
        return bool(int(done))

    @_gated
    async def create_unowned_room(self, room: str, game: str, snapshot: Mapping[str, Any],
                                  events: list[dict[str, Any]], granted: int, creator: str) -> bool:
        """Write a new room that no process owns (made by a tool, e.g. ``cardroom league``):
        its lease, in ``creator``'s name, runs out at once, and its wake-up is now, so the
        first server process to look takes it. False if the id is taken."""
        k = self.keys
        await self.redis.sadd(k.rooms, room)
        done = await self._run(
            "create_room", [k.room(room), k.events(room), k.lease(room)],
            [creator, 1, pack(dict(snapshot)), game, pack(events) if events else b"", self.stream_maxlen, granted],
        )
        if int(done):
            await self.redis.zadd(k.wakeups, {room: 0})
        return bool(int(done))

    @_gated
    async def hold_seat(self, player: str, room: str, held: bool = True) -> None:
        """Add ``room`` to (``held``) or drop it from the rooms ``player`` resumes on hello
        (a seat given to the player by a tool rather than by a join)."""
        if held:
            await self.redis.sadd(self.keys.seats(player), room)
        else:
            await self.redis.srem(self.keys.seats(player), room)

    @_gated
    async def acquire(self, room: str, node: str, lease_ms: int) -> Acquired | str | None:
        """Take the room's lease: :class:`Acquired`, the holder's node id, or None (no such room)."""
        k = self.keys
        r = await self._run("acquire", [k.room(room), k.lease(room), k.events(room)], [node, lease_ms])
        if int(r[0]) == -1:
            return None
        if int(r[0]) == 0:
            return _text(r[1]).split(" ", 1)[0]
        return Acquired(fence=int(r[1]), previous=_text(r[2]), log=_room_log(r[3]))

    @_gated
    async def renew(self, leases: list[tuple[str, str]], lease_ms: int) -> list[tuple[bool | None, int]]:
        """Extend each ``(room, token)`` lease still held. For each: True and the version
        of the room Redis holds where renewed (-1: the room is gone, as a closed room's
        data goes in time); False where another node holds the lease, None where nobody
        does (expired, or lost by Redis), with version -1."""
        if not leases:
            return []
        k = self.keys
        if self._renewals is not None:
            results = await self._renewals.evalsha_each(self._source["renew"], [
                ([k.lease(room), k.room(room)], [token, lease_ms]) for room, token in leases],
                self._scripts["renew"].sha)
        else:
            async with self.redis.pipeline(transaction=False) as pipe:
                for room, token in leases:
                    pipe.eval(self._source["renew"], 2, k.lease(room), k.room(room), token, lease_ms)
                results = await pipe.execute()
        return [(None if int(r[0]) == -1 else bool(int(r[0])), int(r[1]) if len(r) > 1 else -1) for r in results]

    @_gated
    async def release(self, room: str, token: str) -> bool:
        return bool(int(await self._run("release", [self.keys.lease(room)], [token])))

    @_gated
    async def lease_holder(self, room: str) -> str | None:
        """The node holding ``room``'s lease, or None (asked on every command routed to
        another process: on the lean connection)."""
        value = await self._cmd("GET", self.keys.lease(room))
        return None if value is None else _text(value).split(" ", 1)[0]

    @_gated
    async def commit(self, room: str, token: str, expected_version: int, snapshot: bytes,
                     events: list[dict[str, Any]], granted: int = 0, answers: bytes = b"",
                     keep_all: bool = False, record: bytes = b"") -> int:
        """Store and publish one change; returns the new version. ``record`` says how to
        make the change again (it goes into the room's stream with the events);
        ``snapshot``, the whole table after it, is written only when not empty. The
        stream keeps its last ``stream_maxlen`` entries (about), or every one with
        ``keep_all``: the records after the last snapshot must be among them.

        Raises :class:`Fenced` when ``token`` no longer holds the lease, or
        :class:`VersionConflict` when Redis is not at ``expected_version``: nothing is
        written or published then. With ``wait_replicas`` the change is published, and
        this returns, only once the replicas hold it."""
        k = self.keys
        ev = pack(events) if events else b""
        version = expected_version + 1
        header = change_header(version, snapshot, ev, answers, record)
        # waiting for replicas, the change is published once they hold it, not by the script
        channel = "" if self.wait_replicas else k.room_channel(room)
        start = time.perf_counter()
        r = await self._run(
            "commit", [k.room(room), k.events(room), k.lease(room)],
            [token, expected_version, snapshot, ev, 0 if keep_all else self.stream_maxlen, granted, channel,
             header, answers, record],
        )
        if int(r[0]) == 1 and not channel:
            await self._publish_change(room, header, snapshot, ev, answers, record)
        self._observe_write(time.perf_counter() - start)
        if int(r[0]) == 1:
            return int(r[1])
        if _text(r[1]) == "fence":
            holder = _text(r[2]).split(" ", 1)[0] or None
            raise Fenced(room, holder, int(r[3]))
        raise VersionConflict(room, int(r[2]), expected_version)

    @_gated
    async def announce(self, room: str, version: int, snapshot: bytes, events: list[dict[str, Any]],
                       answers: bytes = b"", record: bytes = b"") -> None:
        """Publish a change whose :meth:`commit` went unanswered and which was then found
        stored, as the commit would have. With ``wait_replicas`` a commit publishes only
        once the replicas confirm the change, so one whose wait timed out (the change in
        doubt) published nothing: without this the other processes showing the room never
        heard of the change, and their viewers waited for the next one (a chaos soak
        found tables stopped until a turn's clock ran out). Without ``wait_replicas`` the
        commit's script published it with the write: nothing to do."""
        if not self.wait_replicas:
            return
        ev = pack(events) if events else b""
        await self._publish_change(room, change_header(version, snapshot, ev, answers, record), snapshot, ev,
                                   answers, record)

    async def _publish_change(self, room: str, header: bytes, snapshot: bytes, events: bytes, answers: bytes,
                              record: bytes) -> None:
        """The change message on the room's channel, as ``commit.lua`` publishes it."""
        await self._cmd("PUBLISH", self.keys.room_channel(room), header + snapshot + events + answers + record)

    @_gated
    async def restore(self, room: str, token: str, version: int, snapshot: bytes) -> bool:
        """Write back an acknowledged state Redis lost (see ``lua/restore.lua``)."""
        k = self.keys
        r = await self._run("restore", [k.room(room), k.lease(room)],
                            [token, version, snapshot, k.room_channel(room),
                             change_header(version, snapshot, b"", b"")])
        return int(r[0]) == 1

    @_gated
    async def room_ids(self) -> list[str]:
        return sorted(_text(m) for m in await self.redis.smembers(self.keys.rooms))

    @_gated
    async def room_log(self, room: str, after: int | None = None) -> RoomLog | None:
        """The room's last snapshot and the records after it, or after version ``after``
        when that is older, read at once (None: no room).
        :func:`server.room.log.current_table` replays them."""
        k = self.keys
        log = _room_log(await self._run("load", [k.room(room), k.events(room)], [] if after is None else [after]))
        return log if log.snapshot else None

    @_gated
    async def last_change(self, room: str) -> tuple[int, bytes | None]:
        """The room's version, and the record of the last change in its stream (None if
        the stream holds none), as Redis holds them now (0 and None: no room)."""
        k = self.keys
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.hget(k.room(room), "version")
            pipe.xrevrange(k.events(room), count=1)
            version, last = await pipe.execute()
        record = last[0][1].get(b"c") if last and int(last[0][1][b"v"]) == int(version or 0) else None
        return (0 if version is None else int(version)), record

    @_gated
    async def recent_entries(self, room: str, count: int) -> list[tuple[str, int, list[dict[str, Any]]]]:
        """The last ``count`` entries of the room's event stream, oldest first:
        ``(stream id, version, events)``."""
        entries = await self.redis.xrevrange(self.keys.events(room), count=count)
        return [(_text(sid), int(fields[b"v"]), unpack(fields[b"e"])) for sid, fields in reversed(entries)
                if b"e" in fields]

    async def room_events(self, room: str) -> list[tuple[int, list[dict[str, Any]]]]:
        """The room's whole event stream (hand histories, tests)."""
        entries = await self.redis.xrange(self.keys.events(room))
        return [(int(fields[b"v"]), unpack(fields[b"e"])) for _, fields in entries if b"e" in fields]

    @_gated
    async def recent_events(self, room: str, after: int, upto: int) -> list[tuple[int, list[dict[str, Any]]]]:
        """The events of versions ``after < v <= upto`` that are still in the stream."""
        if upto <= after:
            return []
        entries = await self.redis.xrevrange(self.keys.events(room), count=upto - after)
        out = [(int(f[b"v"]), unpack(f[b"e"])) for _, f in entries if b"e" in f]
        return sorted(e for e in out if after < e[0] <= upto)

    # --- lobby ---------------------------------------------------------------------

    @_gated
    async def set_lobby_entries(self, summaries: Mapping[str, Mapping[str, Any]]) -> None:
        """The lobby list's entries of these rooms."""
        if summaries:
            await self._cmd("HSET", self.keys.lobby, *(x for r, s in summaries.items() for x in (r, pack(dict(s)))))

    @_gated
    async def retire_room(self, room: str, now_ms: int) -> None:
        """A closed room: its snapshot and event stream expire after ``keep_closed_ms``
        (kept until then for its hand histories), and :meth:`forget_expired_rooms` takes
        it off the room list then."""
        if not self.keep_closed_ms:
            return
        k = self.keys
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.pexpire(k.room(room), self.keep_closed_ms)
            pipe.pexpire(k.events(room), self.keep_closed_ms)
            pipe.zadd(k.retired, {room: now_ms + self.keep_closed_ms})
            await pipe.execute()

    @_gated
    async def forget_expired_rooms(self, now_ms: int, limit: int = 500) -> int:
        """Take rooms whose data expired off the room list; returns how many."""
        k = self.keys
        gone = await self.redis.zrangebyscore(k.retired, "-inf", now_ms, start=0, num=limit)
        if gone:
            await self.redis.srem(k.rooms, *gone)
            await self.redis.zrem(k.retired, *gone)
        return len(gone)
