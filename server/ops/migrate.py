"""Moving data written before scale-out to the current key layout, once, at start.

The first layout kept every wallet and grant in two global hashes and the rooms under
``room:<id>``; a Lua script touched both, which Redis Cluster refuses. On a single Redis
holding that layout, the first server to start moves it (under a lock; the others wait):
each player's wallet and grant into the player's own hash, each room's keys renamed to
the tagged names, bot seats' grants onto their room, seat and lobby indexes rebuilt.
Chips are conserved: the sums are the same before and after.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Mapping

from engine.game import Game

from ..room import table as tbl
from ..room.core import lobby_summary
from ..store.keys import Keys
from ..store.store import Store, unpack

log = logging.getLogger(__name__)


def _text(v: object) -> str:
    return v.decode() if isinstance(v, bytes) else str(v)


async def hash_plaintext_tokens(store: Store) -> int:
    """Rename session-token keys named by the token itself (written before tokens were
    stored hashed) to the hashed name, keeping their player and their expiry; once per
    Redis (a marker key remembers it). Returns how many were renamed."""
    r = store.redis
    k: Keys = store.keys
    if await r.exists(k.tokens_hashed):
        return 0
    moved = 0
    async for key in r.scan_iter(match=k.token_pattern(), count=500):
        suffix = _text(key)[len(k.token_pattern()) - 1:]
        if len(suffix) != 32:  # a 64-hex hash: already moved
            continue
        player = await r.get(key)
        if player is not None:
            await r.set(k.token(suffix), player, ex=store.token_seconds)
        await r.delete(key)
        moved += 1
    await r.set(k.tokens_hashed, 1)
    if moved:
        log.warning("stored %d session tokens by their hash instead of in plain text", moved)
    return moved


async def migrate_legacy_layout(store: Store, games: Mapping[str, Game]) -> bool:
    """Migrate if the old layout is present; True if this call moved anything."""
    r = store.redis
    k: Keys = store.keys
    if not await r.exists(k.legacy("wallets"), k.legacy("grants")):
        return False
    if not hasattr(r, "connection_pool"):  # a Cluster never held the old layout's scripts
        log.warning("old-layout keys found on a Redis Cluster: not migrated")
        return False
    while not await r.set(k.migration_lock, os.getpid(), nx=True, px=60_000):
        await asyncio.sleep(0.2)  # another process is migrating
        if not await r.exists(k.legacy("wallets"), k.legacy("grants")):
            return False
    try:
        if not await r.exists(k.legacy("wallets"), k.legacy("grants")):
            return False
        await _migrate(store, games)
        return True
    finally:
        await r.delete(k.migration_lock)


async def _migrate(store: Store, games: Mapping[str, Game]) -> None:
    r = store.redis
    k = store.keys
    wallets = {_text(p): int(v) for p, v in (await r.hgetall(k.legacy("wallets"))).items()}
    grants = {_text(p): int(v) for p, v in (await r.hgetall(k.legacy("grants"))).items()}
    bot_grants: dict[str, int] = {}
    players = 0
    for pid in sorted(set(wallets) | set(grants)):
        if pid.startswith("bot-"):  # bot-<room>-<seat>: the room's grant now
            room = pid[len("bot-"):].rsplit("-", 1)[0]
            bot_grants[room] = bot_grants.get(room, 0) + grants.get(pid, 0)
            continue
        name = await r.hget(k.legacy("player", pid), "name")
        await r.sadd(k.players, pid)
        await r.hset(k.player(pid), mapping={
            "name": _text(name or b"?"), "wallet": wallets.get(pid, 0), "granted": grants.get(pid, 0),
        })
        await r.delete(k.legacy("player", pid))
        players += 1
    rooms = [_text(m) for m in await r.smembers(k.rooms)]
    for room in rooms:
        old = k.legacy("room", room)
        if await r.exists(old):
            await r.rename(old, k.room(room))
        if await r.exists(k.legacy("room", room, "events")):
            await r.rename(k.legacy("room", room, "events"), k.events(room))
        await r.hset(k.room(room), mapping={"fence": 0, "granted": bot_grants.get(room, 0)})
        snap_raw = await r.hget(k.room(room), "snap")
        if snap_raw is None:
            continue
        snap = unpack(snap_raw)
        for s in snap["seats"]:
            if s is not None and not s.get("bot"):
                await r.sadd(k.seats(s["player"]), room)
        game = games.get(snap["game"])
        if game is not None:
            table = tbl.from_dict(snap, game)
            await store.set_lobby_entries({room: dict(lobby_summary(table), version=table.version)})
    await r.delete(k.legacy("wallets"), k.legacy("grants"))
    log.warning("moved the data of %d players and %d rooms to the scale-out key layout", players, len(rooms))
