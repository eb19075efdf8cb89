"""The operator's HTTP API under ``/admin/api/`` (only with ``--admin-token``; every
request needs ``Authorization: Bearer <token>``), which ``cardroom admin`` and the
operator console at ``/admin/console`` use.

Reads are ``GET``, acts are ``POST``; parameters go in the query string (the server's
HTTP side, websockets', takes no request bodies); every answer is JSON: the result, or
``{"error": code, "message": ...}`` with a 4xx/5xx status. Every act is written to the
audit stream (:meth:`server.store.Store.audit`) with its reason, and chips move only
through the room's cash-out or an adjustment counted as a grant, so
``grants = wallets + tables + pending`` holds throughout:

=========================================================  ===================================
``GET /admin/api/rooms``                                    the rooms the lobby lists
``GET /admin/api/rooms/<room>``                             one room: its seats and state
``GET /admin/api/players?name=&limit=``                     players whose name has ``name``
``GET /admin/api/audit?count=``                             the last acts, newest first
``POST /admin/api/rooms/<room>/close?reason=``              every seat paid out, room closed
``POST /admin/api/rooms/<room>/seats/<n>/remove?reason=``   a seat freed between its hands
``POST /admin/api/players/<player>/mute?minutes=&reason=``  no chat lines for a while
``POST /admin/api/players/<player>/unmute``
``POST /admin/api/players/<player>/ban?reason=``            no hello; seats freed by hand's end
``POST /admin/api/players/<player>/unban``
``POST /admin/api/players/<player>/wallet?amount=&reason=`` a credit (> 0) or debit (< 0)
=========================================================  ===================================
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import parse_qs

from ..store import UNAVAILABLE

log = logging.getLogger(__name__)

#: Longest reason kept with an act.
MAX_REASON = 200
#: Longest mute, in minutes (a year).
MAX_MUTE_MINUTES = 525_600
#: Largest single wallet adjustment.
MAX_ADJUSTMENT = 10**12

STATUS = {"bad_request": 400, "not_found": 404, "no_such_room": 404, "no_such_player": 404,
          "insufficient_funds": 409, "unavailable": 503}


class ApiError(Exception):
    def __init__(self, code: str, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status or STATUS.get(code, 409)


Handler = Callable[..., Awaitable[dict[str, Any]]]


class AdminApi:
    """Routes ``/admin/api/`` requests to the operator's acts (``ops``: an object with the
    methods named in :data:`ROUTES`, :class:`server.app.Operator`)."""

    ROUTES: list[tuple[str, re.Pattern[str], str]] = [
        ("GET", re.compile(r"rooms"), "rooms"),
        ("GET", re.compile(r"rooms/(?P<room>[\w-]{1,64})"), "room"),
        ("GET", re.compile(r"players"), "players"),
        ("GET", re.compile(r"audit"), "audit_log"),
        ("POST", re.compile(r"rooms/(?P<room>[\w-]{1,64})/close"), "close_room"),
        ("POST", re.compile(r"rooms/(?P<room>[\w-]{1,64})/seats/(?P<seat>\d{1,4})/remove"), "remove_seat"),
        ("POST", re.compile(r"players/(?P<player>[\w-]{1,64})/mute"), "mute"),
        ("POST", re.compile(r"players/(?P<player>[\w-]{1,64})/unmute"), "unmute"),
        ("POST", re.compile(r"players/(?P<player>[\w-]{1,64})/ban"), "ban"),
        ("POST", re.compile(r"players/(?P<player>[\w-]{1,64})/unban"), "unban"),
        ("POST", re.compile(r"players/(?P<player>[\w-]{1,64})/wallet"), "adjust_wallet"),
    ]

    def __init__(self, ops: Any) -> None:
        self.ops = ops

    async def handle(self, method: str, path: str, query: str) -> tuple[int, bytes]:
        """The status and JSON body answering one request (``path`` after ``/admin/api/``)."""
        try:
            result = await self._dispatch(method, path.strip("/"), _params(query))
            return 200, _json(result)
        except ApiError as exc:
            return exc.status, _json({"error": exc.code, "message": exc.message})
        except UNAVAILABLE:
            return 503, _json({"error": "unavailable", "message": "Redis is unavailable right now; nothing changed"})
        except Exception:
            log.exception("admin api %s %s failed", method, path)
            return 500, _json({"error": "internal_error", "message": "the server failed; see its log"})

    async def _dispatch(self, method: str, path: str, params: dict[str, str]) -> dict[str, Any]:
        for verb, pattern, name in self.ROUTES:
            found = pattern.fullmatch(path)
            if found is None:
                continue
            if method != verb:
                raise ApiError("bad_request", f"{path} takes {verb}", 405)
            return await getattr(self, "_" + name)(**found.groupdict(), params=params)
        raise ApiError("not_found", f"no admin API at /admin/api/{path[:80]}")

    # --- reads ---------------------------------------------------------------------------

    async def _rooms(self, params: dict[str, str]) -> dict[str, Any]:
        return {"rooms": await self.ops.rooms()}

    async def _room(self, room: str, params: dict[str, str]) -> dict[str, Any]:
        return await self.ops.room(room)

    async def _players(self, params: dict[str, str]) -> dict[str, Any]:
        limit = _int(params, "limit", 50, 1, 1000)
        return {"players": await self.ops.players(params.get("name", ""), limit)}

    async def _audit_log(self, params: dict[str, str]) -> dict[str, Any]:
        return {"audit": await self.ops.audit_log(_int(params, "count", 100, 1, 10_000))}

    # --- acts ----------------------------------------------------------------------------

    async def _close_room(self, room: str, params: dict[str, str]) -> dict[str, Any]:
        return await self.ops.close_room(room, _reason(params))

    async def _remove_seat(self, room: str, seat: str, params: dict[str, str]) -> dict[str, Any]:
        return await self.ops.remove_seat(room, int(seat), _reason(params))

    async def _mute(self, player: str, params: dict[str, str]) -> dict[str, Any]:
        return await self.ops.mute(player, _int(params, "minutes", 60, 1, MAX_MUTE_MINUTES), _reason(params))

    async def _unmute(self, player: str, params: dict[str, str]) -> dict[str, Any]:
        return await self.ops.unmute(player, _reason(params))

    async def _ban(self, player: str, params: dict[str, str]) -> dict[str, Any]:
        return await self.ops.ban(player, _reason(params))

    async def _unban(self, player: str, params: dict[str, str]) -> dict[str, Any]:
        return await self.ops.unban(player, _reason(params))

    async def _adjust_wallet(self, player: str, params: dict[str, str]) -> dict[str, Any]:
        amount = _int(params, "amount", None, -MAX_ADJUSTMENT, MAX_ADJUSTMENT)
        if amount == 0:
            raise ApiError("bad_request", "amount must not be 0")
        reason = _reason(params)
        if not reason:
            raise ApiError("bad_request", "a wallet adjustment needs a reason")
        return await self.ops.adjust_wallet(player, amount, reason)


def _params(query: str) -> dict[str, str]:
    try:
        parsed = parse_qs(query, keep_blank_values=True, strict_parsing=False, max_num_fields=20)
    except ValueError:
        raise ApiError("bad_request", "too many query parameters") from None
    return {k: v[-1] for k, v in parsed.items()}


def _int(params: dict[str, str], name: str, default: int | None, lo: int, hi: int) -> int:
    text = params.get(name)
    if text is None or text == "":
        if default is None:
            raise ApiError("bad_request", f"{name} is required")
        return default
    try:
        value = int(text)
    except ValueError:
        raise ApiError("bad_request", f"{name} must be a whole number, got {text[:20]!r}") from None
    if not lo <= value <= hi:
        raise ApiError("bad_request", f"{name} must be {lo}..{hi}, got {value}")
    return value


def _reason(params: dict[str, str]) -> str:
    reason = " ".join(params.get("reason", "").split())
    if len(reason) > MAX_REASON:
        raise ApiError("bad_request", f"reason must be at most {MAX_REASON} characters")
    return reason


def _json(value: Any) -> bytes:
    return (json.dumps(value, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
