"""Every Redis operation of the server (the key names are :mod:`server.store.keys`').

Each atomic step is one Lua script on one hash slot (``lua/*.lua``), so the same code
runs on a single Redis and on Redis Cluster:

* a room change: :meth:`Store.commit` checks the writer's lease (owner and fencing
  token) and the version it read, writes snapshot, version and events, and publishes
  the change on the room's channel, all in one step;
* ownership: :meth:`Store.acquire`, :meth:`Store.renew`, :meth:`Store.release`;
* chips between a wallet and a table, which live in two slots, move in two steps with
  a journal (see :doc:`docs/server.md`): :meth:`debit` then :meth:`finish_debit` (or
  :meth:`refund`) for a buy-in, :meth:`credit` then :meth:`forget_credit` for a
  cash-out. Every step is idempotent.

Redis being unreachable surfaces as one of :data:`UNAVAILABLE` (callers answer
``unavailable``); no library-level retries are made, because a retried write whose
first try did arrive must be told apart by the caller (the scripts are idempotent or
version-checked so that a retry is harmless).
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import json
import secrets
import struct
import time
from collections.abc import Iterable, Mapping
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


class Store:
    """Async access to the server's Redis data (a ``Redis`` or a ``RedisCluster``)."""

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

    # --- players -------------------------------------------------------------------

    @_gated
    async def create_player(self, name: str) -> tuple[str, str, int]:
        """A new player with a random 128-bit token and the grant in the wallet."""
        k = self.keys
        pid = "p-" + secrets.token_hex(6)
        token = secrets.token_hex(16)
        await self.redis.sadd(k.players, pid)  # the index first: an entry without a player is harmless
        await self._run("create_player", [k.player(pid)], [name, self.grant])
        await self.redis.set(k.token(token), pid, ex=self.token_seconds)
        return pid, token, self.grant

    @_gated
    async def sign_in(self, identity: str, issuer: str, subject: str, name: str) -> tuple[str, str, int]:
        """The player an identity of the operator's site signs in as (``identity``: its
        :func:`server.edge.auth.identity_key`), made with the grant the first time: the player,
        a new session token, the wallet. The player takes ``name`` (the site names its
        players). Two first sign-ins at once make one player: the identity's key is
        claimed first, and making a player that exists changes nothing."""
        k = self.keys
        player = "p-" + secrets.token_hex(6)
        if not await self.redis.set(k.identity(identity), player, nx=True):
            player = _text(await self.redis.get(k.identity(identity)))
        await self.redis.sadd(k.players, player)
        await self._run("create_player", [k.player(player)], [name, self.grant])
        await self.redis.hset(k.player(player), mapping={"name": name, "issuer": issuer, "subject": subject})
        token = secrets.token_hex(16)
        await self.redis.set(k.token(token), player, ex=self.token_seconds)
        return player, token, await self.wallet(player)

    @_gated
    async def signed_in(self, player: str) -> bool:
        """Whether the player was made by a sign-in (:meth:`sign_in`), not an anonymous name."""
        return bool(await self.redis.hexists(self.keys.player(player), "subject"))

    @_gated
    async def player_by_token(self, token: str) -> tuple[str, str] | None:
        """The player of a session token, or None (unknown or expired); using a token
        extends its life to ``token_seconds`` again."""
        pid = await self.redis.getex(self.keys.token(token), ex=self.token_seconds)
        if pid is None:
            return None
        pid = pid.decode()
        name = await self.redis.hget(self.keys.player(pid), "name")
        return pid, (name or b"?").decode()

    @_gated
    async def wallet(self, player: str) -> int:
        return int(await self.redis.hget(self.keys.player(player), "wallet") or 0)

    @_gated
    async def player_exists(self, player: str) -> bool:
        return bool(await self.redis.exists(self.keys.player(player)))

    @_gated
    async def set_player_flag(self, player: str, flag: str, value: Any) -> None:
        """Set (or, with None, clear) a moderation field of a player: ``muted_until``
        (epoch ms) or ``banned`` (the reason)."""
        if value is None:
            await self.redis.hdel(self.keys.player(player), flag)
        else:
            await self.redis.hset(self.keys.player(player), flag, value)

    @_gated
    async def muted_until(self, player: str) -> int:
        """Until when (epoch ms) an operator muted the player's chat; 0: not muted."""
        return int(await self._cmd("HGET", self.keys.player(player), "muted_until") or 0)

    @_gated
    async def banned(self, player: str) -> str | None:
        """Why an operator banned the player, or None."""
        reason = await self.redis.hget(self.keys.player(player), "banned")
        return None if reason is None else _text(reason)

    @_gated
    async def adjust_wallet(self, player: str, amount: int) -> tuple[bool, Any]:
        """An operator's credit or debit (see ``lua/adjust_wallet.lua``): ``(True, wallet)``,
        or ``(False, "no_such_player" | "insufficient_funds")``."""
        r = await self._run("adjust_wallet", [self.keys.player(player)], [amount])
        return (True, int(r[1])) if int(r[0]) == 1 else (False, _text(r[1]))

    @_gated
    async def find_players(self, name: str, limit: int) -> list[dict[str, Any]]:
        """Players whose name contains ``name`` (any case), at most ``limit``, by name: a
        scan of every player, for an operator's search."""
        needle = name.casefold()
        found = []
        for pid in sorted(_text(p) for p in await self.redis.smembers(self.keys.players)):
            fields = await self.redis.hmget(self.keys.player(pid), ["name", "wallet", "muted_until", "banned",
                                                                     "subject"])
            who = _text(fields[0] or b"?")
            if needle in who.casefold():
                found.append({"player": pid, "name": who, "wallet": int(fields[1] or 0),
                              "muted_until": int(fields[2] or 0) or None,
                              "banned": None if fields[3] is None else _text(fields[3]),
                              "signed_in": fields[4] is not None})
        return sorted(found, key=lambda p: (p["name"].casefold(), p["player"]))[:limit]

    @_gated
    async def audit(self, act: str, target: str, by: str, reason: str, detail: Mapping[str, Any]) -> None:
        """Add a moderation act to the audit stream (its last 10,000 kept)."""
        await self.redis.xadd(self.keys.audit, {"act": act, "target": target, "by": by, "reason": reason,
                                                "detail": json.dumps(dict(detail), ensure_ascii=False)},
                              maxlen=10_000, approximate=True)

    @_gated
    async def audit_log(self, count: int) -> list[dict[str, Any]]:
        """The last ``count`` acts of the audit stream, newest first."""
        out = []
        for xid, fields in await self.redis.xrevrange(self.keys.audit, count=count):
            f = {_text(k): _text(v) for k, v in fields.items()}
            ms = int(_text(xid).split("-")[0])
            out.append({"id": _text(xid), "time_ms": ms,
                        "time": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(ms / 1000)),
                        "act": f.get("act", ""), "target": f.get("target", ""), "by": f.get("by", ""),
                        "reason": f.get("reason", ""), "detail": json.loads(f.get("detail") or "{}")})
        return out

    @_gated
    async def seat_candidates(self, player: str) -> set[str]:
        """Rooms the player may sit in: the seat index, plus rooms of unfinished buy-ins."""
        k = self.keys
        rooms = {_text(r) for r in await self.redis.smembers(k.seats(player))}
        for entry in (await self.redis.hgetall(k.journal(player))).values():
            rooms.add(_text(entry).split("|", 1)[0])
        return rooms

    @_gated
    async def set_presence(self, player: str, node: str, expiry_ms: int, now_ms: int) -> bool:
        """Record a player's connections at ``node`` until ``expiry_ms`` (0: none left);
        returns whether the player is connected anywhere."""
        count = await self._run("presence", [self.keys.presence(player)], [node, expiry_ms, now_ms])
        return int(count) > 0

    @_gated
    async def refresh_presence(self, players: Iterable[str], node: str, expiry_ms: int, now_ms: int) -> None:
        """Extend ``node``'s connections of each of ``players`` to ``expiry_ms`` (every
        player of the process, every few seconds: on the lean connection where there is
        one, all in one pipelined write)."""
        if self._link is not None:
            await self._link.evalsha_each(self._source["presence"], [
                ([self.keys.presence(p)], [node, expiry_ms, now_ms]) for p in players], self._scripts["presence"].sha)
            return
        async with self.redis.pipeline(transaction=False) as pipe:
            for p in players:
                pipe.eval(self._source["presence"], 1, self.keys.presence(p), node, expiry_ms, now_ms)
            await pipe.execute()

    @_gated
    async def online(self, players: Iterable[str], now_ms: int) -> dict[str, bool]:
        players = list(players)
        if not players:
            return {}
        if self._link is not None:  # (every seated player of the process's rooms, every few seconds)
            link = self._link
            counts = await asyncio.gather(*(link.call("ZCOUNT", self.keys.presence(p), f"({now_ms}", "+inf")
                                            for p in players))
            return {p: int(c) > 0 for p, c in zip(players, counts, strict=True)}
        async with self.redis.pipeline(transaction=False) as pipe:
            for p in players:
                pipe.zcount(self.keys.presence(p), f"({now_ms}", "+inf")
            counts = await pipe.execute()
        return {p: int(c) > 0 for p, c in zip(players, counts, strict=True)}

    # --- chips between wallets and tables ---------------------------------------------

    @_gated
    async def debit(self, player: str, xid: str, amount: int, room: str, now_ms: int) -> tuple[bool, int]:
        """Buy-in, step 1: take ``amount`` from the wallet into the journal entry ``xid``.

        Returns ``(done, wallet)``; ``done`` is False when the wallet holds too little
        (nothing changed then)."""
        k = self.keys
        await self._cmd("ZADD", k.transfers, now_ms, f"{player} {xid}")
        ok, wallet = await self._run("debit", [k.player(player), k.journal(player)],
                                     [xid, amount, f"{room}|{amount}|{now_ms}"])
        if not int(ok):
            await self._cmd("ZREM", k.transfers, f"{player} {xid}")
        return bool(int(ok)), int(wallet)

    @_gated
    async def finish_debit(self, player: str, xid: str, room: str) -> None:
        """Buy-in, step 3 (after the room stored the seat): close the journal entry."""
        k = self.keys
        await self._run("finish_debit", [k.journal(player), k.seats(player)], [xid, room])
        await self._cmd("ZREM", k.transfers, f"{player} {xid}")

    @_gated
    async def refund(self, player: str, xid: str) -> int | None:
        """Undo a buy-in the room never stored; None if the entry was already closed."""
        k = self.keys
        wallet = int(await self._run("refund", [k.player(player), k.journal(player)], [xid]))
        await self._cmd("ZREM", k.transfers, f"{player} {xid}")
        return None if wallet < 0 else wallet

    @_gated
    async def journal_entry(self, player: str, xid: str) -> tuple[str, int] | None:
        entry = await self.redis.hget(self.keys.journal(player), xid)
        if entry is None:
            return None
        room, amount, _ = _text(entry).split("|")
        return room, int(amount)

    @_gated
    async def stale_transfers(self, older_than_ms: int, limit: int = 100) -> list[tuple[str, str]]:
        """Buy-ins begun before ``older_than_ms`` and not finished: ``(player, id)``."""
        members = await self.redis.zrangebyscore(self.keys.transfers, "-inf", older_than_ms, start=0, num=limit)
        out = []
        for m in members:
            player, xid = _text(m).split(" ", 1)
            out.append((player, xid))
        return out

    @_gated
    async def forget_transfer(self, player: str, xid: str) -> None:
        await self.redis.zrem(self.keys.transfers, f"{player} {xid}")

    @_gated
    async def pending_transfers(self) -> int:
        return int(await self.redis.zcard(self.keys.transfers))

    @_gated
    async def credit(self, player: str, xid: str, amount: int, room: str) -> int:
        """Cash-out, step 2 (after the room stored the departure): pay the wallet once."""
        k = self.keys
        _, wallet = await self._run("credit", [k.player(player), k.credited(player), k.seats(player)],
                                    [xid, amount, room])
        return int(wallet)

    @_gated
    async def forget_credit(self, player: str, xid: str) -> None:
        """Cash-out, step 4 (after the room stored that it no longer owes ``xid``)."""
        await self._cmd("SREM", self.keys.credited(player), xid)

    # --- a player's record (server/records/record.py) --------------------------------------------

    def _record_keys(self, player: str) -> list[str]:
        k = self.keys
        return [k.record(player), k.results(player), k.result(player)]

    @_gated
    async def record_hand(self, player: str, key: str, time_ms: int, game: str, net: int,
                          result: dict[str, Any], kept: int) -> bool:
        """Add one hand's result to the player's totals and last results, once per ``key``
        (False: recorded before); only the last ``kept`` results are kept."""
        added = await self._run("record_hand", self._record_keys(player),
                                [key, time_ms, game, net, json.dumps(result, separators=(",", ":")), kept])
        return bool(added)

    @_gated
    async def player_record(self, player: str, last: int) -> tuple[dict[str, int], list[dict[str, Any]]]:
        """The player's totals (``"<game>:hands"``, ``"<game>:net"``) and last ``last``
        results, newest first, each with its ``time_ms``."""
        flat, entries = await self._run("player_record", self._record_keys(player), [last])
        totals = {_text(flat[i]): int(flat[i + 1]) for i in range(0, len(flat), 2)}
        recent = [dict(json.loads(entries[i]), time_ms=int(float(entries[i + 1]))) for i in range(0, len(entries), 2)]
        return totals, recent

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
    async def renew(self, leases: list[tuple[str, str]], lease_ms: int) -> list[bool | None]:
        """Extend each ``(room, token)`` lease still held: True where renewed, False where
        another node holds it, None where nobody does (expired, or lost by Redis)."""
        if not leases:
            return []
        if self._renewals is not None:
            results = await self._renewals.evalsha_each(self._source["renew"], [
                ([self.keys.lease(room)], [token, lease_ms]) for room, token in leases], self._scripts["renew"].sha)
        else:
            async with self.redis.pipeline(transaction=False) as pipe:
                for room, token in leases:
                    pipe.eval(self._source["renew"], 1, self.keys.lease(room), token, lease_ms)
                results = await pipe.execute()
        return [None if int(r) == -1 else bool(int(r)) for r in results]

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

    # --- conservation ----------------------------------------------------------------

    async def chip_audit(self) -> dict[str, int]:
        """Count every chip: granted, in wallets, on tables, and between the two.

        ``grants == wallets + tables + pending`` at every quiet moment (a transfer in
        flight may be seen on one side only while this reads). Reads only.
        """
        k = self.keys
        r = self.redis
        granted = wallets = tables = pending = 0
        credited: dict[str, set[str]] = {}
        journals: list[tuple[str, str, str]] = []  # (player, xid, entry)
        for pid in sorted(_text(p) for p in await r.smembers(k.players)):
            w, g = await r.hmget(k.player(pid), ["wallet", "granted"])
            wallets += int(w or 0)
            granted += int(g or 0)
            credited[pid] = {_text(x) for x in await r.smembers(k.credited(pid))}
            for xid, entry in (await r.hgetall(k.journal(pid))).items():
                journals.append((pid, _text(xid), _text(entry)))
        applied: dict[str, set[str]] = {}
        for room in await self.room_ids():
            snap_raw, g = await r.hmget(k.room(room), ["snap", "granted"])
            granted += int(g or 0)
            if snap_raw is None:
                continue
            snap = unpack(snap_raw)
            tables += sum(s["stack"] for s in snap["seats"] if s is not None)
            applied[room] = set(snap.get("xin", ()))
            for xid, player, amount, *_ in snap.get("xout", ()):
                if xid not in credited.get(player, set()):
                    pending += amount
        for _pid, xid, entry in journals:
            room, amount, _ = entry.split("|")
            if xid not in applied.get(room, set()):
                pending += int(amount)
        return {"grants": granted, "wallets": wallets, "tables": tables, "pending": pending}
