"""Players: identity and sign-in tokens, wallets and flags, the operator's audit log,
presence, and each player's record of hands. Part of :class:`server.store.Store`."""

from __future__ import annotations

import asyncio
import json
import secrets
import time
from collections.abc import Iterable, Mapping
from typing import Any

from .base import (
    Scripts,
    _gated,
    _text,
)


class Players(Scripts):
    """The store's players: see the module doc."""

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
