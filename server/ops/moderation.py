"""The operator's acts on rooms and players, behind the admin API (:mod:`server.ops.admin_api`)
and ``cardroom admin``: close a room, remove a seat, mute, ban, adjust a wallet.

A room act is a command to the room's owner, wherever it runs (as a player's request
is): the room decides it and stores it like any change, so its chips leave through the
usual cash-out. A player act is a field of the player in Redis that every process reads
(``muted_until``, ``banned``), and a ban also closes the player's connections on every
process and leaves each of its seats (at once between hands, else when the hand ends).
Every act goes into the audit stream with its reason.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..cluster.directory import Directory
from ..room import table as tbl
from ..room.core import CloseCommand, Command, LeaveCommand, Origin, RemoveSeatCommand
from ..room.view import Views
from ..store import Store
from .admin_api import ApiError

OPERATOR = "operator"
#: how many times a ban looks up the player's seats and leaves them (see :meth:`Moderation.ban`)
BAN_PASSES = 3
#: a leave answered with one of these found no seat of the player there: nothing to leave
NOT_THERE = ("not_seated", "no_such_room")


class Moderation:
    def __init__(self, store: Store, directory: Directory, views: Views, rooms: Callable[[], Any],
                 clock: Callable[[], int], timeout: float) -> None:
        self.store = store
        self.directory = directory
        self._views = views
        self._rooms = rooms  # the lobby's room list (an awaitable)
        self.clock = clock
        self.timeout = timeout

    # --- reads ---------------------------------------------------------------------------

    async def rooms(self) -> list[dict[str, Any]]:
        return list(await self._rooms())

    async def room(self, room: str) -> dict[str, Any]:
        """One room as an operator sees it: its seats (whoever sits there, the stack), and
        whether a hand is played, the room locked, closing or closed."""
        view = await self._views.open(room)
        if view is None:
            raise ApiError("no_such_room", f"no room {room[:64]!r}")
        t = view.table
        return {"room": room, "game": t.game, "name": t.options["name"], "version": t.version,
                "creator": t.creator, "playing": tbl.playing(t), "hand_no": t.hand_no, "locked": t.locked,
                "closing": t.closing, "closed": t.closed, "private": t.code is not None,
                "seats": [None if s is None else {"seat": i, "player": s.player, "name": s.name,
                                                  "stack": tbl.live_stack(t, i), "bot": s.bot}
                          for i, s in enumerate(t.seats)]}

    async def players(self, name: str, limit: int) -> list[dict[str, Any]]:
        return await self.store.find_players(name, limit)

    async def audit_log(self, count: int) -> list[dict[str, Any]]:
        return await self.store.audit_log(count)

    # --- rooms ---------------------------------------------------------------------------

    async def close_room(self, room: str, reason: str) -> dict[str, Any]:
        """Every person's seat freed and paid out, and the room closed: at once between
        hands, else when the hand being played ends (``pending``)."""
        done = await self._ask(room, lambda o: CloseCommand(o, reason))
        await self.store.audit("close_room", room, OPERATOR, reason, {"pending": done.get("pending", False)})
        return {"ok": True, "room": room, "pending": done.get("pending", False)}

    async def remove_seat(self, room: str, seat: int, reason: str) -> dict[str, Any]:
        await self._ask(room, lambda o: RemoveSeatCommand(o, seat, operator=True))
        await self.store.audit("remove_seat", room, OPERATOR, reason, {"seat": seat})
        return {"ok": True, "room": room, "seat": seat}

    async def _ask(self, room: str, make: Callable[[Origin], Command]) -> dict[str, Any]:
        reply = await self.directory.ask(room, make, timeout=self.timeout)
        if reply is None:
            raise ApiError("unavailable", f"room {room} did not answer in time; try again")
        if reply.get("t") == "error":
            raise ApiError(reply.get("code", "error"), reply.get("message", ""))
        return reply

    # --- players -------------------------------------------------------------------------

    async def mute(self, player: str, minutes: int, reason: str) -> dict[str, Any]:
        until = self.clock() + minutes * 60_000
        await self._player(player)
        await self.store.set_player_flag(player, "muted_until", until)
        await self.store.audit("mute", player, OPERATOR, reason, {"minutes": minutes})
        return {"ok": True, "player": player, "muted_until": until}

    async def unmute(self, player: str, reason: str) -> dict[str, Any]:
        await self._player(player)
        await self.store.set_player_flag(player, "muted_until", None)
        await self.store.audit("unmute", player, OPERATOR, reason, {})
        return {"ok": True, "player": player}

    async def ban(self, player: str, reason: str) -> dict[str, Any]:
        """No more ``hello`` and no more buy-ins; the player's connections closed on every
        process; each of its seats left (its chips back to the wallet when the seat is
        freed). ``rooms``: the rooms whose seat was left; ``not_left``: room -> the error
        of a room that could not be made to leave it (``unavailable``: its process did not
        answer in time), for the operator to ask again.

        A room that could not be asked (its process slow to answer, Redis briefly away) is
        asked again, up to :data:`BAN_PASSES` times in all. No seat comes after the ban: a
        join whose buy-in the ban overtook is refused (``banned``), and one whose buy-in
        came first is in the room's queue before the ban's leave, which then finds it."""
        await self._player(player)
        await self.store.set_player_flag(player, "banned", reason or "banned")
        await self.store.tell_player(player, {"t": "banned", "reason": reason}, close=True)
        left: list[str] = []
        not_left: dict[str, str] = {}
        settled: set[str] = set()  # left, or found without a seat of the player
        for _ in range(BAN_PASSES):
            rooms = sorted(await self.store.seat_candidates(player) - settled)
            if not rooms:
                break
            for room in rooms:
                reply = await self.directory.ask(room, lambda o: LeaveCommand(o, player=player), timeout=self.timeout)
                code = "unavailable" if reply is None else reply.get("code") if reply.get("t") == "error" else None
                if code is None or code in NOT_THERE:
                    settled.add(room)
                    not_left.pop(room, None)
                    if code is None:
                        left.append(room)
                else:
                    not_left[room] = code
        detail: dict[str, Any] = {"rooms": sorted(left)}
        if not_left:
            detail["not_left"] = not_left
        await self.store.audit("ban", player, OPERATOR, reason, detail)
        return {"ok": True, "player": player, **detail}

    async def unban(self, player: str, reason: str) -> dict[str, Any]:
        await self._player(player)
        await self.store.set_player_flag(player, "banned", None)
        await self.store.audit("unban", player, OPERATOR, reason, {})
        return {"ok": True, "player": player}

    async def adjust_wallet(self, player: str, amount: int, reason: str) -> dict[str, Any]:
        """A credit (``amount`` > 0) or debit of play chips, counted as a grant."""
        ok, result = await self.store.adjust_wallet(player, amount)
        if not ok:
            raise ApiError(result, f"player {player} has no such wallet" if result == "no_such_player"
                           else f"the wallet holds less than {-amount}")
        await self.store.audit("wallet", player, OPERATOR, reason, {"amount": amount, "wallet": result})
        await self.store.tell_player(player, {"t": "wallet", "wallet": result, "change": amount, "reason": reason})
        return {"ok": True, "player": player, "wallet": result}

    async def _player(self, player: str) -> None:
        if not await self.store.player_exists(player):
            raise ApiError("no_such_player", f"no player {player[:64]!r}")
