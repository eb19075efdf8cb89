"""Data written by the single-process server (before scale-out) is moved to the current key
layout when a server starts on it: players keep their wallets and seats, rooms their
state and history, and every chip is still accounted for."""

from __future__ import annotations

from server.room import table as tbl
from server.store import pack

from .highcard import GAME
from .wsclient import Client


async def write_legacy_layout(redis, prefix: str) -> tuple[str, str]:
    table = tbl.Table(room="r-old", game="highcard", config={"ante": 10, "max_bet": 100}, seats=[None] * 3,
                      options={"name": "Old table", "seats": 3, "action_seconds": 30, "between_hands_seconds": 3,
                               "buy_in_min": 1, "buy_in_max": 10**6, "buy_in_default": 1000})
    tbl.sit(table, "p-alice", "Alice", 0, 1000)
    tbl.seat_bots(table, 1)  # seat 1: bot-r-old-1 with 1000 granted chips
    tbl.sit(table, "p-bob", "Bob", 2, 500)
    table.version = 7
    token = "a" * 32
    await redis.hset(f"{prefix}player:p-alice", mapping={"name": "Alice", "token": token})
    await redis.hset(f"{prefix}player:p-bob", mapping={"name": "Bob", "token": "b" * 32})
    await redis.set(f"{prefix}token:{token}", "p-alice")
    await redis.hset(f"{prefix}wallets", mapping={"p-alice": 9000, "p-bob": 9500})
    await redis.hset(f"{prefix}grants", mapping={"p-alice": 10_000, "p-bob": 10_000, "bot-r-old-1": 1000})
    await redis.sadd(f"{prefix}rooms", "r-old")
    await redis.hset(f"{prefix}room:r-old", mapping={"snap": pack(tbl.to_dict(table, GAME)), "version": 7,
                                                      "game": "highcard"})
    await redis.xadd(f"{prefix}room:r-old:events", {"v": 7, "e": pack([{"type": "joined", "seat": 2}])})
    return "r-old", token


async def test_a_server_started_on_old_data_moves_it_and_loses_nothing(make_app, redis, prefix):
    room, token = await write_legacy_layout(redis, prefix)
    app = await make_app()
    totals = await app.store.chip_audit()
    assert totals == {"grants": 21_000, "wallets": 18_500, "tables": 2_500, "pending": 0}
    assert not await redis.exists(f"{prefix}wallets", f"{prefix}grants", f"{prefix}room:r-old",
                                  f"{prefix}player:p-alice")
    assert [v for v, _ in await app.store.room_events(room)] == [7]
    c = await Client.connect(app.ws_url)
    welcome = await c.hello(token=token)
    assert welcome["wallet"] == 9000 and welcome["seats"] == [{"room": room, "game": "highcard", "seat": 0}]
    snap = await c.expect("room", room=room)
    assert snap["version"] == 7 and [s["name"] for s in snap["seats"]] == ["Alice", "Bot Ada", "Bob"]
    listed = await c.request({"t": "list_rooms"})
    assert [r["room"] for r in listed["rooms"]] == [room]
    left = await c.request({"t": "leave", "room": room})  # the room works: alice cashes out
    assert left["wallet"] == 10_000
    await c.close()
