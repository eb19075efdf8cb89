"""What the chaos soak proves, from the players' records and from Redis.

At every quiet point (no fault active, every room moving again) and at the end:

* every acknowledged action is stored once, at the version it was acknowledged with, and
  still remembered under its id (``tests.fault.fleet.check_rooms``); an acknowledged
  version Redis lost counts only if the room's owner put it back;
* chips are exact: grants = wallets + tables + pending, and every transfer completes.

At the end only (no request outstanding then):

* every action the rooms applied was acknowledged to the player who sent it, at the version
  it was applied at (nothing applied that its player was not told of, and no id applied
  twice);
* no process left: every server that was stopped or killed, every Redis and sentinel, is
  gone, and no process names the soak's directory.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from tests.fault.fleet import Room, check_rooms
from tests.fault.harness import wait_for_conservation


async def quiet_point(redis_url: str, rooms: list[Room], restored: dict[str, set[int]]) -> tuple[int, dict[str, int]]:
    """The acknowledged-actions check and the chip audit; raises AssertionError with what
    failed. Returns the actions checked and the audit's totals."""
    checked = await check_rooms(redis_url, rooms, restored)
    return checked.actions, await wait_for_conservation(redis_url, 60)


async def lost_versions(redis_url: str, rooms: list[Room]) -> dict[str, set[int]]:
    """Per room, the acknowledged versions its event stream lacks: Redis lost them (a
    failover, a restart); the owner must have written them back."""
    from server.store import Store
    from server.store.connect import connect

    clients = await connect(redis_url, 4)
    try:
        keys = Store(clients.main).keys
        out = {}
        for r in rooms:
            stored = {int(f[b"v"]) for _, f in await clients.main.xrange(keys.events(r.id))}
            out[r.id] = {a["version"] for b in r.bots for a in b.acks} - stored
        return out
    finally:
        await clients.aclose()


async def applied_but_not_acknowledged(redis_url: str, rooms: list[Room]) -> list[str]:
    """Every ``act`` a room's stream records (player, action id, version) that its player
    was not acknowledged at that version: what a player was never told happened."""
    from server.store import Store, unpack
    from server.store.connect import connect

    clients = await connect(redis_url, 4)
    problems: list[str] = []
    try:
        keys = Store(clients.main).keys
        for r in rooms:
            acked = {(b.player, a["id"]): a["version"] for b in r.bots for a in b.acks}
            for _, fields in await clients.main.xrange(keys.events(r.id)):
                if b"c" not in fields:
                    continue
                record: list[Any] = unpack(fields[b"c"])
                cmd = record[1]
                if not cmd or cmd.get("kind") != "act":
                    continue
                version, player, aid = int(fields[b"v"]), cmd["origin"][4], cmd["action_id"]
                if acked.get((player, aid)) != version:
                    problems.append(f"{r.id} v{version}: {player}'s {aid} applied, acknowledged "
                                    + (f"at v{acked[(player, aid)]}" if (player, aid) in acked else "never"))
    finally:
        await clients.aclose()
    return problems


def processes_naming(marker: str) -> list[str]:
    """Running processes whose command line contains ``marker`` (this process excluded)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            state = (entry / "stat").read_text().split(") ", 1)[1][:1]
        except OSError:
            continue
        if marker in cmdline and state != "Z":
            found.append(f"pid {entry.name}: {cmdline.strip()[:160]}")
    return found


def alive(pids: list[int]) -> list[int]:
    out = []
    for pid in pids:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            continue
        except PermissionError:
            pass
        out.append(pid)
    return out
