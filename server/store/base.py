"""What every area of the store shares: the wire form of a room's changes, the errors, and the
script runner (:class:`Scripts`)."""

from __future__ import annotations

import asyncio
import functools
import hashlib
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgpack
from redis import exceptions as rx
from redis.asyncio import RedisCluster

from .keys import Keys
from .link import link_for

STREAM_MAXLEN = 10_000
INBOX_MAXLEN = 10_000

#: What a Redis call raises when Redis cannot be used right now (down, restarting,
#: failing over, out of connections, or a read-only replica after a failover).
UNAVAILABLE: tuple[type[BaseException], ...] = (
    rx.ConnectionError, rx.TimeoutError, rx.ClusterError, rx.TryAgainError, rx.ReadOnlyError,
    rx.SlotNotCoveredError, rx.MasterDownError, OSError,
)

_LUA = Path(__file__).with_name("lua")

#: A room change on its channel: b"C", then version, and the lengths of the snapshot
#: (none for most changes), the events, the answers and the change's record that follow
#: the header in that order.
CHANGE = b"C"
_HEADER = struct.Struct(">QIIII")
#: Any other message on a room channel: b"N" + a msgpack map.
NOTICE = b"N"


def pack(obj: Any) -> bytes:
    return msgpack.packb(obj, use_bin_type=True)


def unpack(data: bytes) -> Any:
    return msgpack.unpackb(data, raw=False, strict_map_key=False)


def change_header(version: int, snapshot: bytes, events: bytes, answers: bytes, record: bytes = b"") -> bytes:
    return CHANGE + _HEADER.pack(version, len(snapshot), len(events), len(answers), len(record))


@dataclass(frozen=True)
class ChangeMessage:
    """A change as published on a room channel."""

    version: int
    snapshot: bytes  # the whole table after the change; b"" when only the record is sent
    events: bytes  # b"" when the change had none
    answers: bytes  # b"" when it answered nobody
    record: bytes = b""  # how to make the change from the table before it (b"": a snapshot only)


@dataclass(frozen=True)
class RoomLog:
    """A room as Redis holds it: the last full snapshot and the records of the changes
    stored after it (see ``lua/commit.lua``); replaying them gives the current table."""

    snapshot: bytes
    snapshot_version: int
    version: int
    records: list[tuple[int, bytes]]  # (version, msgpack record), oldest first

    def complete(self, after: int | None = None) -> bool:
        """Are the records exactly the versions after the snapshot's (or after ``after``,
        if older), up to the room's?"""
        first = self.snapshot_version if after is None else min(after, self.snapshot_version)
        return [v for v, _ in self.records] == list(range(first + 1, self.version + 1))


def parse_room_message(data: bytes) -> ChangeMessage | dict[str, Any]:
    """A room channel message: a :class:`ChangeMessage`, or a notice (a map)."""
    if data[:1] == CHANGE:
        version, ls, le, la, lr = _HEADER.unpack_from(data, 1)
        at = 1 + _HEADER.size
        snapshot = data[at:at + ls]
        at += ls
        events = data[at:at + le]
        at += le
        answers = data[at:at + la]
        at += la
        return ChangeMessage(version, snapshot, events, answers, data[at:at + lr])
    if data[:1] == NOTICE:
        return unpack(data[1:])
    raise ValueError("not a room channel message")


class Fenced(Exception):
    """The writer no longer holds the room's lease: another process owns it, or nobody."""

    def __init__(self, room: str, holder: str | None, version: int) -> None:
        super().__init__(f"room {room}: lease held by {holder or 'nobody'} (version {version})")
        self.holder = holder
        self.version = version


class VersionConflict(Exception):
    """The room in Redis is not at the version the writer read."""

    def __init__(self, room: str, version: int, expected: int) -> None:
        super().__init__(f"room {room} is at version {version}, expected {expected}")
        self.version = version
        self.expected = expected


@dataclass(frozen=True)
class Acquired:
    fence: int
    previous: str  # the node that owned the room before ('' if none)
    log: RoomLog

    @property
    def version(self) -> int:
        return self.log.version


def _room_log(r: list[Any]) -> RoomLog:
    """A :class:`RoomLog` from what ``lua/room_log.lua`` returns."""
    snapshot, version, since, flat = r
    records = [(int(flat[i]), flat[i + 1]) for i in range(0, len(flat), 2)]
    return RoomLog(snapshot or b"", int(since), int(version), records)


def lease_token(node: str, fence: int) -> str:
    return f"{node} {fence}"


#: what redis-py raises, on uvloop, for a connection that Redis closed while it was being
#: opened (writing its HELLO to the closed transport): a lost connection like any other
_CLOSED_TRANSPORT = "unable to perform operation on"


def _gated(method):
    """Run a Store method under the store's concurrency limit, so that no load can
    exhaust the connection pool (it queues instead); a connection that closed under
    redis-py raises :class:`~redis.exceptions.ConnectionError` whichever way it failed."""

    @functools.wraps(method)
    async def gated(self, *args, **kwargs):
        async with self._gate:
            try:
                return await method(self, *args, **kwargs)
            except RuntimeError as exc:
                if _CLOSED_TRANSPORT not in str(exc):
                    raise
                raise rx.ConnectionError(f"connection to Redis lost: {exc}") from exc

    return gated


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class ScriptBatcher:
    """Runs one Lua script for many callers, the calls of one event-loop turn in one
    pipeline (one round trip, one connection) instead of one round trip each.

    Each caller still awaits its own result, which is only there once Redis has
    executed its call: batching changes nothing about "durable before visible". A
    connection failure fails every call of the batch (each caller treats its own as of
    unknown outcome, as it would alone)."""

    def __init__(self, redis: Any, source: str, max_batch: int = 128) -> None:
        self.redis = redis
        self.source = source
        self.sha = hashlib.sha1(source.encode()).hexdigest()
        self.max_batch = max_batch
        self._waiting: list[tuple[list[str], list[Any], asyncio.Future[Any]]] = []
        self._flushing = False

    async def __call__(self, keys: list[str], args: list[Any]) -> Any:
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._waiting.append((keys, args, fut))
        if not self._flushing:
            self._flushing = True
            asyncio.get_running_loop().call_soon(lambda: asyncio.ensure_future(self._flush()))
        return await fut

    async def _flush(self) -> None:
        try:
            while self._waiting:
                batch, self._waiting = self._waiting[:self.max_batch], self._waiting[self.max_batch:]
                try:
                    results = await self._execute(batch)
                except BaseException as exc:
                    for _, _, fut in batch:
                        if not fut.done():
                            fut.set_exception(exc)
                    if not isinstance(exc, Exception):
                        raise
                    continue
                for (_, _, fut), result in zip(batch, results, strict=True):
                    if fut.done():
                        continue
                    if isinstance(result, Exception):
                        fut.set_exception(result)
                    else:
                        fut.set_result(result)
        finally:
            self._flushing = False

    async def _execute(self, batch: list[tuple[list[str], list[Any], asyncio.Future[Any]]]) -> list[Any]:
        results = await self._pipeline(batch, self.sha)
        if any(isinstance(r, rx.NoScriptError) for r in results):  # Redis restarted: load it again
            await self.redis.script_load(self.source)
            results = await self._pipeline(batch, self.sha)
        return results

    async def _pipeline(self, batch: list[tuple[list[str], list[Any], Any]], sha: str) -> list[Any]:
        if isinstance(self.redis, RedisCluster):  # redis-py's cluster pipelines refuse scripts
            return await asyncio.gather(*(self.redis.evalsha(sha, len(keys), *keys, *args)
                                          for keys, args, _ in batch), return_exceptions=True)
        async with self.redis.pipeline(transaction=False) as pipe:
            for keys, args, _ in batch:
                pipe.evalsha(sha, len(keys), *keys, *args)
            return await pipe.execute(raise_on_error=False)


class Scripts:
    """The connection every area of the store shares: the Redis client, the lean link, the
    scripts and the runner (:meth:`_run`, :meth:`_cmd`), the concurrency gate."""

    def __init__(self, redis: Any, prefix: str = "cardroom:", grant: int = 10_000,
                 observe_write=None, concurrency: int = 64, blocking: Any = None,
                 token_seconds: int = 30 * 86_400, stream_maxlen: int = STREAM_MAXLEN,
                 keep_closed_ms: int = 30 * 86_400_000, wait_replicas: int = 0, wait_ms: int = 1000) -> None:
        self.redis = redis
        # every script's writes confirmed by this many replicas (WAIT) before it counts as
        # done; not confirmed within wait_ms, the call fails as unavailable
        self.wait_replicas, self.wait_ms = wait_replicas, wait_ms
        self.token_seconds = token_seconds
        self.stream_maxlen = stream_maxlen  # entries kept in a room's event stream (trimmed approximately)
        self.keep_closed_ms = keep_closed_ms  # a closed room's data expires this long after closing (0: never)
        self.blocking = blocking if blocking is not None else redis
        self.keys = Keys(prefix)
        self.grant = grant
        self._observe_write = observe_write or (lambda seconds: None)
        library = (_LUA / "room_log.lua").read_text()  # a function that other scripts call
        self._source = {p.stem: (library + p.read_text() if "room_log(" in p.read_text() else p.read_text())
                        for p in sorted(_LUA.glob("*.lua")) if p.stem != "room_log"}
        self._scripts = {name: redis.register_script(src) for name, src in self._source.items()}
        # scripts go through a lean connection of their own on a single Redis server
        # (redis-py costs ten times the CPU per call), through redis-py on a Cluster or TLS
        self._link = link_for(redis)
        self._renewals = link_for(redis)  # a connection of their own: never behind requests
        self._commit = ScriptBatcher(redis, self._source["commit"])
        self._gate = asyncio.Semaphore(concurrency)
        if wait_replicas and self._link is None:
            raise RuntimeError("--redis-wait-replicas needs a redis://, unix:// or redis+sentinel:// "
                             "Redis, not TLS or a Cluster")

    async def _run(self, name: str, keys: list[str], args: list[Any]) -> Any:
        if self._link is not None:
            if self.wait_replicas:
                return await self._link.evalsha_replicated(self._source[name], keys, args, self._scripts[name].sha,
                                                           self.wait_replicas, self.wait_ms)
            return await self._link.evalsha(self._source[name], keys, args, self._scripts[name].sha)
        if name == "commit":
            return await self._commit(keys, args)
        return await self._scripts[name](keys=keys, args=args)

    async def _cmd(self, *args: Any) -> Any:
        """One Redis command of the hot paths, on the lean connection where there is one
        (its reply unparsed: integers and bytes as Redis sends them)."""
        if self._link is not None:
            return await self._link.call(*args)
        return await self.redis.execute_command(*args)

    async def replicated(self) -> None:
        """Return once the replicas (``wait_replicas`` of them) hold everything the primary
        holds now, at once when none are asked for; raises one of ``UNAVAILABLE`` if they
        do not confirm in time."""
        if self.wait_replicas and self._link is not None:
            await self._link.replicated(self.keys.replicated, self.wait_replicas, self.wait_ms)

    async def replicas(self) -> int:
        """How many replicas the Redis server has connected now."""
        info = await self.redis.info("replication")
        return int(info.get("connected_slaves", 0))

    async def aclose(self) -> None:
        """Close the store's own connection (the clients it was given are the caller's)."""
        for link in (self._link, self._renewals):
            if link is not None:
                await link.aclose()

    async def ping(self) -> bool:
        try:
            return bool(await self.redis.ping())
        except Exception:
            return False
