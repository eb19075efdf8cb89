"""Everything the server keeps in Redis, and the one atomic write that changes a room.

Keys (all under a prefix, default ``cardroom:``):

``player:{id}``        hash: name, token
``token:{token}``      the player id of a session token
``wallets``            hash: player id -> chips in the wallet
``grants``             hash: player id -> chips ever granted (the conservation baseline;
                       bots' grants are recorded here too, by the room commit)
``rooms``              set of room ids
``room:{id}``          hash: snap (msgpack table), version, game
``room:{id}:events``   stream: one entry per accepted change: v (version), e (msgpack events)

:meth:`Store.commit` runs one Lua script that checks the room version the actor read
(the fencing check), checks wallets can pay, then writes the snapshot, the version,
the events and the wallet transfers together: all or nothing.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Mapping
from typing import Any

import msgpack
from redis.asyncio import Redis

STREAM_MAXLEN = 10_000

COMMIT_LUA = """
local cur = redis.call('HGET', KEYS[1], 'version') or '0'
if cur ~= ARGV[1] then return {0, 'version', cur} end
local n = tonumber(ARGV[7])
for i = 0, n - 1 do
  local pid = ARGV[8 + 2 * i]
  local delta = tonumber(ARGV[9 + 2 * i])
  if delta < 0 then
    local have = tonumber(redis.call('HGET', KEYS[3], pid) or '0')
    if have + delta < 0 then return {0, 'funds', pid} end
  end
end
local g = tonumber(ARGV[8 + 2 * n])
for i = 0, g - 1 do
  redis.call('HINCRBY', KEYS[5], ARGV[9 + 2 * n + 2 * i], ARGV[10 + 2 * n + 2 * i])
end
local out = {1, 0}
for i = 0, n - 1 do
  out[#out + 1] = redis.call('HINCRBY', KEYS[3], ARGV[8 + 2 * i], ARGV[9 + 2 * i])
end
local v = tonumber(cur) + 1
out[2] = v
redis.call('HSET', KEYS[1], 'snap', ARGV[2], 'version', v, 'game', ARGV[3])
redis.call('SADD', KEYS[4], ARGV[4])
if ARGV[5] ~= '' then
  redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[6], '*', 'v', v, 'e', ARGV[5])
end
return out
"""


class VersionConflict(Exception):
    """The room in Redis is not at the version the writer read: another writer won."""


class InsufficientFunds(Exception):
    """A wallet cannot pay its part of a commit."""

    def __init__(self, player: str) -> None:
        super().__init__(player)
        self.player = player


def pack(obj: Any) -> bytes:
    return msgpack.packb(obj, use_bin_type=True)


def unpack(data: bytes) -> Any:
    return msgpack.unpackb(data, raw=False, strict_map_key=False)


class Store:
    """Async access to the server's Redis data."""

    def __init__(self, redis: Redis, prefix: str = "cardroom:", grant: int = 10_000, observe_write=None) -> None:
        self.redis = redis
        self.prefix = prefix
        self.grant = grant
        self._commit = redis.register_script(COMMIT_LUA)
        self._observe_write = observe_write or (lambda seconds: None)

    def key(self, *parts: str) -> str:
        return self.prefix + ":".join(parts)

    async def ping(self) -> bool:
        try:
            return bool(await self.redis.ping())
        except Exception:
            return False

    # --- players -----------------------------------------------------------------

    async def create_player(self, name: str) -> tuple[str, str, int]:
        """A new player with a random 128-bit token and the grant in the wallet."""
        pid = "p-" + secrets.token_hex(6)
        token = secrets.token_hex(16)
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hset(self.key("player", pid), mapping={"name": name, "token": token})
            pipe.set(self.key("token", token), pid)
            pipe.hincrby(self.key("wallets"), pid, self.grant)
            pipe.hincrby(self.key("grants"), pid, self.grant)
            results = await pipe.execute()
        return pid, token, int(results[2])

    async def player_by_token(self, token: str) -> tuple[str, str] | None:
        pid = await self.redis.get(self.key("token", token))
        if pid is None:
            return None
        pid = pid.decode()
        name = await self.redis.hget(self.key("player", pid), "name")
        return pid, (name or b"?").decode()

    async def wallet(self, player: str) -> int:
        return int(await self.redis.hget(self.key("wallets"), player) or 0)

    # --- rooms -------------------------------------------------------------------

    async def commit(
        self,
        room: str,
        game: str,
        expected_version: int,
        snapshot: Mapping[str, Any],
        events: list[dict[str, Any]] | None,
        wallet_deltas: Mapping[str, int] | None = None,
        grants: Mapping[str, int] | None = None,
    ) -> dict[str, int]:
        """Write a room change atomically; return the new wallet of each player in ``wallet_deltas``.

        ``grants`` records new chips the change puts on the table (bot seats' buy-ins and
        re-buys) in the ``grants`` ledger, in the same atomic step, so the conservation
        baseline moves with them. Raises :class:`VersionConflict` or
        :class:`InsufficientFunds`; nothing is written then.
        """
        deltas = list((wallet_deltas or {}).items())
        args: list[Any] = [
            str(expected_version), pack(dict(snapshot)), game, room,
            pack(events) if events else b"", STREAM_MAXLEN, len(deltas),
        ]
        for p, d in deltas:
            args += [p, d]
        granted = [(p, g) for p, g in (grants or {}).items() if g]
        args.append(len(granted))
        for p, g in granted:
            args += [p, g]
        keys = [
            self.key("room", room), self.key("room", room, "events"), self.key("wallets"), self.key("rooms"),
            self.key("grants"),
        ]
        start = time.perf_counter()
        result = await self._commit(keys=keys, args=args)
        self._observe_write(time.perf_counter() - start)
        if int(result[0]) == 0:
            reason = result[1].decode() if isinstance(result[1], bytes) else result[1]
            detail = result[2].decode() if isinstance(result[2], bytes) else result[2]
            if reason == "funds":
                raise InsufficientFunds(detail)
            raise VersionConflict(f"room {room} is at version {detail}, expected {expected_version}")
        return {p: int(w) for (p, _), w in zip(deltas, result[2:], strict=True)}

    async def room_ids(self) -> list[str]:
        return sorted(m.decode() for m in await self.redis.smembers(self.key("rooms")))

    async def load_room(self, room: str) -> dict[str, Any] | None:
        snap = await self.redis.hget(self.key("room", room), "snap")
        return None if snap is None else unpack(snap)

    async def room_events(self, room: str) -> list[tuple[int, list[dict[str, Any]]]]:
        """The room's event stream (for hand histories and tests)."""
        entries = await self.redis.xrange(self.key("room", room, "events"))
        return [(int(fields[b"v"]), unpack(fields[b"e"])) for _, fields in entries]

    async def chip_totals(self) -> dict[str, int]:
        """Granted chips, chips in wallets, and chips on tables (snapshots' seat stacks)."""
        grants = sum(int(v) for v in (await self.redis.hgetall(self.key("grants"))).values())
        wallets = sum(int(v) for v in (await self.redis.hgetall(self.key("wallets"))).values())
        tables = 0
        for room in await self.room_ids():
            snap = await self.load_room(room)
            if snap:
                tables += sum(s["stack"] for s in snap["seats"] if s is not None)
        return {"grants": grants, "wallets": wallets, "tables": tables}
