"""Chips between wallets and tables: the journal's steps (debit, finish, refund; credit,
forget), the sweeper's view of them, and the conservation audit. Part of :class:`server.store.Store`."""

from __future__ import annotations

from .base import (
    Scripts,
    _gated,
    _text,
    unpack,
)


class Chips(Scripts):
    """The store's chips: see the module doc."""

    # --- chips between wallets and tables ---------------------------------------------

    @_gated
    async def debit(self, player: str, xid: str, amount: int, room: str, now_ms: int) -> tuple[str | None, int]:
        """Buy-in, step 1: take ``amount`` from the wallet into the journal entry ``xid``.

        Returns ``(refused, wallet)``: ``refused`` is None when the chips were taken, else
        why not (nothing changed then): ``"insufficient_funds"`` (the wallet holds too
        little) or ``"banned"`` (an operator banned the player)."""
        k = self.keys
        await self._cmd("ZADD", k.transfers, now_ms, f"{player} {xid}")
        ok, wallet = await self._run("debit", [k.player(player), k.journal(player)],
                                     [xid, amount, f"{room}|{amount}|{now_ms}"])
        if int(ok) == 1:
            return None, int(wallet)
        await self._cmd("ZREM", k.transfers, f"{player} {xid}")
        return ("banned" if int(ok) == -1 else "insufficient_funds"), int(wallet)

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
