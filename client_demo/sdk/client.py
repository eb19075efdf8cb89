"""An asyncio client for the cardroom server (``cardroom.msgpack`` over WebSocket).

The contract is ``docs/protocol.md``. One :class:`CardroomClient` is one connection
and one player::

    async with CardroomClient("ws://127.0.0.1:8765/ws", name="alice") as client:
        room = await client.create_room("holdem", options={"seats": 2})
        await client.join(room["room"])
        async for msg in client:            # every pushed message: event, room, rooms, left
            ...
        await client.act(room_id, {"type": "call"})   # waits for the ack

* Requests wait for their reply (matched by ``ref``); an ``error`` reply raises
  :class:`ServerError` with the server's stable ``code`` (``not_your_turn``,
  ``room_full``, ...), ``message`` and ``field``.
* :meth:`CardroomClient.act` gives every action an id; if the connection drops before
  the ack, the same id is resent after reconnecting, so an action is never applied
  twice (the server answers a known id with the original ack). Requests that are safe
  to repeat (``act``, ``spectate``, ``sit_out``, ...) answered ``unavailable`` (Redis or
  the room's server process briefly unreachable) are sent again with a short backoff
  until ``request_timeout``.
* When the connection drops (server restart, network), the client reconnects with
  exponential backoff, resumes with its session token, watches again the rooms it was
  spectating, and resyncs from the ``room`` snapshots the server sends; the iterator
  yields ``{"t": "disconnected"}`` and ``{"t": "reconnected", "welcome": ...}`` so a
  caller knows. :attr:`CardroomClient.rooms` always holds the latest snapshot per room.
* Each ``update`` the server sends (one per change of a room: its events and a patch of
  the snapshot) is yielded as what it stands for: its ``event`` messages, then the
  patched ``room`` snapshot (:mod:`client_demo.sdk.updates`). An update that does not apply
  to the snapshot held is answered with ``sync`` (the server sends the room again).
* Provably fair deals (``docs/fairness.md``): :meth:`CardroomClient.join` sends a fresh
  random client seed, and after every hand of a room it sits in the client sends a new
  one (``set_seed``), once the server has committed to the next hand's seed. Pass
  ``fair_seeds=False`` to leave seeds to the caller (:meth:`CardroomClient.set_seed`).
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import random
import secrets
from collections.abc import AsyncIterator, Mapping
from typing import Any

import msgpack
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI

from .updates import RoomFollower

log = logging.getLogger(__name__)

SUBPROTOCOL = "cardroom.msgpack"
#: The version of the protocol this client is written for, said in every ``hello``: a
#: server that speaks another refuses with ``unsupported_protocol`` (docs/protocol.md,
#: "Versions"), which :meth:`CardroomClient.connect` raises as :class:`ServerError`.
PROTOCOL_VERSION = 1
# Requests that are safe to send again after a reconnect (same answer or harmless).
_RESENDABLE = frozenset({"act", "ping", "list_rooms", "spectate", "sit_out", "sit_in", "auto_play", "set_seed",
                         "history", "my_record"})
# Errors answering hello that are worth another reconnect attempt.
_RETRYABLE = frozenset({"unavailable", "internal_error", "rate_limited", "auth_unavailable"})


def new_client_seed() -> str:
    """A random client seed: 22 characters of ``A-Z a-z 0-9 _ -`` (128 bits)."""
    return secrets.token_urlsafe(16)


class ServerError(Exception):
    """The server answered a request with ``error``: ``code`` is its stable code."""

    def __init__(self, code: str, message: str = "", field: str | None = None,
                 reply: Mapping[str, Any] | None = None) -> None:
        super().__init__(f"{code}: {message}" if message else code)
        self.code = code
        self.message = message
        self.field = field
        self.reply = dict(reply or {})


class ConnectionLost(ConnectionError):
    """The connection dropped while a request that cannot be resent was waiting,
    or the client was closed, or reconnecting gave up."""


def _encode(msg: Mapping[str, Any]) -> bytes:
    return msgpack.packb(dict(msg), use_bin_type=True)


def _decode(frame: bytes | str) -> Any:
    if isinstance(frame, str):
        raise ValueError("cardroom.msgpack sends binary frames")
    return msgpack.unpackb(frame, raw=False)


class _Pacer:
    """Client-side token bucket: stay under the server's rate limit instead of hitting it."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = float(burst)
        self.last: float | None = None

    async def take(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            now = loop.time()
            if self.last is not None:
                self.tokens = min(self.burst, self.tokens + (now - self.last) * self.rate)
            self.last = now
            if self.tokens >= 1:
                self.tokens -= 1
                return
            await asyncio.sleep((1 - self.tokens) / self.rate)


class CardroomClient:
    """One player's connection, with automatic reconnect and resume.

    ``name`` creates a new player at :meth:`connect`; ``token`` resumes one (a token
    wins over a name); ``id_token``, an identity token from the operator's site (a JWT,
    docs/server.md "Sign-in from your own site"), signs in the player it names (it wins
    over both, and is used once: reconnects resume with the session token it brought). ``reconnect`` turns automatic reconnection on (default);
    ``backoff`` is ``(first delay, longest delay)`` in seconds; ``give_up_after`` is
    how many seconds of failed attempts end reconnecting (``None``: never).
    ``rate``/``burst`` pace outgoing requests (messages per second, bucket size) to stay
    under the server's per-connection rate limit (default 20/s, burst 40); a request
    the server still drops as ``rate_limited`` is resent when that is safe.
    """

    def __init__(self, url: str, name: str | None = None, token: str | None = None, *,
                 id_token: str | None = None,
                 reconnect: bool = True, backoff: tuple[float, float] = (0.1, 5.0),
                 give_up_after: float | None = 60.0, request_timeout: float = 15.0,
                 open_timeout: float = 10.0, rate: float = 15.0, burst: int = 30,
                 fair_seeds: bool = True) -> None:
        if name is None and token is None and id_token is None:
            raise ValueError("give a name (new player), a token (resume) or an id_token (sign in)")
        self.url = url
        self.name = name
        self.token = token
        self.id_token = id_token
        self.player: str | None = None
        self.wallet: int | None = None
        self.welcome: dict[str, Any] | None = None
        self.reconnect = reconnect
        self.backoff = backoff
        self.give_up_after = give_up_after
        self.request_timeout = request_timeout
        self.open_timeout = open_timeout
        #: latest ``room`` snapshot by room id
        self.rooms: dict[str, dict[str, Any]] = {}
        self._follower = RoomFollower()
        self.gaps = 0  # updates that did not apply (each answered with sync)
        self._syncing: set[asyncio.Task[Any]] = set()
        #: rooms this client spectates (watched again after a reconnect)
        self.watching: set[str] = set()
        #: join codes of private rooms, by room id
        self.codes: dict[str, str] = {}
        self.reconnects = 0
        self.fair_seeds = fair_seeds
        self._reseeding: set[asyncio.Task[Any]] = set()
        self._ws: ClientConnection | None = None
        self._refs = itertools.count(1)
        self._action_ids = itertools.count(1)
        self._id_prefix = f"{random.getrandbits(32):08x}"
        self._pending: dict[int, tuple[dict[str, Any], asyncio.Future[dict[str, Any]]]] = {}
        self._inbox: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        self._reader: asyncio.Task[None] | None = None
        self._connected = asyncio.Event()
        self._closing = False
        self._failure: BaseException | None = None
        self._pacer = _Pacer(rate, burst)

    # ------------------------------------------------------------ connection

    async def connect(self) -> dict[str, Any]:
        """Open the connection and say hello (or resume); returns the ``welcome``."""
        welcome = await self._open()
        self._reader = asyncio.create_task(self._read_loop(), name="cardroom client reader")
        return welcome

    async def __aenter__(self) -> CardroomClient:
        await self.connect()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        """Close for good: no reconnect; waiting requests fail with ConnectionLost."""
        self._closing = True
        if self._ws is not None:
            await self._ws.close()
        if self._reader is not None:
            self._reader.cancel()
            try:
                await self._reader
            except (asyncio.CancelledError, Exception):
                pass
            self._reader = None
        self._fail_pending(ConnectionLost("client closed"), resendable_too=True)
        self._inbox.put_nowait(None)

    @property
    def connected(self) -> bool:
        return self._connected.is_set()

    async def _open(self) -> dict[str, Any]:
        ws = await connect(self.url, subprotocols=[SUBPROTOCOL], max_size=None,
                           open_timeout=self.open_timeout, compression=None)
        if ws.subprotocol != SUBPROTOCOL:
            await ws.close()
            raise ConnectionLost(f"server did not accept {SUBPROTOCOL}")
        ref = next(self._refs)
        hello: dict[str, Any] = {"t": "hello", "ref": ref, "protocol": PROTOCOL_VERSION}
        if self.id_token is not None:
            hello["id_token"] = self.id_token
        elif self.token is not None:
            hello["token"] = self.token
        else:
            hello["name"] = self.name
        early: list[dict[str, Any]] = []
        try:
            await ws.send(_encode(hello))
            while True:
                msg = _decode(await asyncio.wait_for(ws.recv(), self.request_timeout))
                if isinstance(msg, dict) and msg.get("ref") == ref:
                    break
                if isinstance(msg, dict):
                    early.append(msg)
        except BaseException:
            await ws.close()
            raise
        if msg.get("t") == "error":
            await ws.close()
            raise ServerError(msg.get("code", "error"), msg.get("message", ""), msg.get("field"), msg)
        self._ws = ws
        self.welcome = msg
        self.id_token = None  # signed in: the session token resumes from now on
        self.player = msg.get("player")
        self.token = msg.get("token", self.token)
        self.name = msg.get("name", self.name)
        self.wallet = msg.get("wallet")
        self._connected.set()
        self._follower = RoomFollower()  # the server forgot what the old connection held
        for m in early:
            self._receive(m)
        return msg

    async def _read_loop(self) -> None:
        while True:
            ws = self._ws
            assert ws is not None
            try:
                async for frame in ws:
                    try:
                        msg = _decode(frame)
                    except Exception:
                        log.warning("undecodable frame from server")
                        continue
                    if isinstance(msg, dict):
                        self._receive(msg)
            except ConnectionClosed:
                pass
            self._connected.clear()
            if self._closing:
                return
            if not self.reconnect:
                self._fail(ConnectionLost("connection closed"))
                return
            self._fail_pending(ConnectionLost("connection lost; request not resent"),
                               resendable_too=False)
            self._inbox.put_nowait({"t": "disconnected"})
            try:
                await self._reconnect()
            except Exception as exc:
                self._fail(exc if isinstance(exc, ConnectionLost | ServerError)
                           else ConnectionLost(f"reconnecting failed: {exc}"))
                return

    async def _reconnect(self) -> None:
        """Reconnect with jittered exponential backoff, resume, resend what is safe."""
        loop = asyncio.get_running_loop()
        started = loop.time()
        delay, longest = self.backoff
        while True:
            if self._closing:
                return
            await asyncio.sleep(delay * random.uniform(0.8, 1.2))
            try:
                welcome = await self._open()
                break
            except ServerError as exc:
                if exc.code not in _RETRYABLE:
                    raise  # bad_token: resuming cannot work
                error: Exception = exc
            except (OSError, InvalidHandshake, InvalidURI, ConnectionClosed, TimeoutError) as exc:
                error = exc
            if self.give_up_after is not None and loop.time() - started > self.give_up_after:
                raise ConnectionLost(f"could not reconnect: {error}") from error
            delay = min(longest, delay * 2)
        # Requests made from here on are sent by request() itself: resend only these.
        waiting = list(self._pending.items())
        self.reconnects += 1
        self._inbox.put_nowait({"t": "reconnected", "welcome": welcome})
        for room in list(self.watching):
            await self._send(dict(self._spectate_msg(room), ref=next(self._refs)))
        for ref, (msg, _fut) in waiting:
            if ref in self._pending:
                await self._send(dict(msg, ref=ref))

    def _receive(self, msg: dict[str, Any]) -> None:
        for m in self._follower.expand(msg):
            if m["t"] != "gap":
                self._deliver(m)
                continue
            self.gaps += 1  # an update that does not apply here: ask for the room again
            task = asyncio.get_running_loop().create_task(self._send({"t": "sync", "room": m["room"]}))
            self._syncing.add(task)
            task.add_done_callback(self._syncing.discard)

    def _deliver(self, msg: dict[str, Any]) -> None:
        if msg.get("t") == "room" and isinstance(msg.get("room"), str):
            self.rooms[msg["room"]] = msg
            if msg.get("code"):
                self.codes[msg["room"]] = msg["code"]
        if msg.get("t") == "left" and not msg.get("pending") and msg.get("room") in self.rooms:
            if msg.get("seat") is None:
                self.watching.discard(msg["room"])
        if (self.fair_seeds and msg.get("t") == "event" and (msg.get("event") or {}).get("type") == "hand_ended"
                and (self.rooms.get(msg.get("room")) or {}).get("your_seat") is not None):
            task = asyncio.get_running_loop().create_task(self._reseed(msg["room"]))
            self._reseeding.add(task)
            task.add_done_callback(self._reseeding.discard)
        if msg.get("wallet") is not None and msg.get("t") in ("left", "welcome"):
            self.wallet = msg["wallet"]
        ref = msg.get("ref")
        if msg.get("t") == "error" and ref is None and msg.get("code") == "rate_limited":
            # The server dropped a request without saying which: resend the safe ones.
            asyncio.get_running_loop().call_later(0.5, self._resend_soon)
            return
        if ref is not None and ref in self._pending:
            _req, fut = self._pending.pop(ref)
            if not fut.done():
                fut.set_result(msg)
            if msg.get("t") != "room":  # a room reply is also the latest snapshot: pass it on
                return
        self._inbox.put_nowait(msg)

    def _resend_soon(self) -> None:
        if self._closing or not self._connected.is_set():
            return
        for ref, (msg, _fut) in list(self._pending.items()):
            if msg.get("t") in _RESENDABLE:
                asyncio.ensure_future(self._send(dict(msg, ref=ref)))

    def _fail_pending(self, exc: BaseException, resendable_too: bool) -> None:
        for ref, (msg, fut) in list(self._pending.items()):
            if resendable_too or msg.get("t") not in _RESENDABLE:
                self._pending.pop(ref, None)
                if not fut.done():
                    fut.set_exception(exc)

    def _fail(self, exc: BaseException) -> None:
        self._failure = exc
        self._fail_pending(exc, resendable_too=True)
        self._inbox.put_nowait(None)

    async def _send(self, msg: dict[str, Any]) -> None:
        if self._ws is None:
            raise ConnectionLost("not connected")
        await self._pacer.take()
        try:
            await self._ws.send(_encode(msg))
        except ConnectionClosed:
            pass  # the reader notices and reconnects; resendable requests go again

    # ------------------------------------------------------------ requests

    async def request(self, msg: Mapping[str, Any], timeout: float | None = None) -> dict[str, Any]:
        """Send ``msg`` (a map with ``t``) and return its reply; ``error`` raises ServerError."""
        if self._failure is not None:
            raise self._failure
        if self._closing:
            raise ConnectionLost("client closed")
        body = {k: v for k, v in msg.items() if k != "ref"}
        loop = asyncio.get_running_loop()
        deadline = loop.time() + (timeout or self.request_timeout)
        delay = 0.2
        while True:
            reply = await self._request_once(body, deadline - loop.time())
            # the server (or the process owning the room) is briefly unreachable: a request
            # that is safe to repeat is sent again (an act with the same id, applied at most once)
            if not (reply.get("t") == "error" and reply.get("code") == "unavailable"
                    and body.get("t") in _RESENDABLE and loop.time() + delay < deadline):
                break
            await asyncio.sleep(delay * random.uniform(0.8, 1.2))
            delay = min(2.0, delay * 2)
        if reply.get("t") == "error":
            raise ServerError(reply.get("code", "error"), reply.get("message", ""),
                              reply.get("field"), reply)
        return reply

    async def _request_once(self, body: dict[str, Any], timeout: float) -> dict[str, Any]:
        ref = next(self._refs)
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[ref] = (body, fut)
        try:
            if self._connected.is_set():
                await self._send(dict(body, ref=ref))
            elif body.get("t") not in _RESENDABLE:
                raise ConnectionLost("not connected")
            # else: sent by _reconnect once the connection is back
            return await asyncio.wait_for(fut, max(0.0, timeout))
        finally:
            # however this ends (answered, timed out, cancelled), the request is no longer
            # waited for: a close must not fail a future nobody reads, nor leave a failure
            # unread (asyncio would print "Future exception was never retrieved" at exit)
            self._pending.pop(ref, None)
            if not fut.done():
                fut.cancel()
            elif not fut.cancelled():
                fut.exception()

    async def list_rooms(self, game: str | None = None, watch: bool | None = None) -> dict[str, Any]:
        """The ``rooms`` reply: ``rooms`` (the room list) and ``games`` (what is hosted)."""
        msg: dict[str, Any] = {"t": "list_rooms"}
        if game is not None:
            msg["game"] = game
        if watch is not None:
            msg["watch"] = watch
        return await self.request(msg)

    async def create_room(self, game: str, options: Mapping[str, Any] | None = None,
                          config: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Create a room; returns its snapshot (``["room"]`` is the id). Not seated yet."""
        msg: dict[str, Any] = {"t": "create_room", "game": game}
        if options:
            msg["options"] = dict(options)
        if config:
            msg["config"] = dict(config)
        return await self.request(msg)

    async def join(self, room: str, seat: int | None = None, buy_in: int | None = None,
                   code: str | None = None, seed: str | None = None) -> dict[str, Any]:
        """Take a seat; returns the room snapshot (``your_seat`` is the seat taken).
        ``code``: a private room's join code (default: the one this client knows for the
        room, from :meth:`find_room`, an earlier join or a snapshot). ``seed``: your client
        seed (default: a fresh random one, unless ``fair_seeds`` is off)."""
        msg: dict[str, Any] = {"t": "join", "room": room}
        code = code if code is not None else self.codes.get(room)
        seed = seed if seed is not None else new_client_seed() if self.fair_seeds else None
        if seed is not None:
            msg["seed"] = seed
        if seat is not None:
            msg["seat"] = seat
        if buy_in is not None:
            msg["buy_in"] = buy_in
        if code is not None:
            msg["code"] = self.codes[room] = code
        return await self.request(msg)

    async def quick_match(self, game: str, stake: int | None = None, seats: int | None = None,
                          buy_in: int | None = None) -> dict[str, Any]:
        """Sit down at an open table of ``game`` that fits (or a new one); returns the
        room snapshot, as :meth:`join` does."""
        msg: dict[str, Any] = {"t": "quick_match", "game": game}
        for key, value in (("stake", stake), ("seats", seats), ("buy_in", buy_in)):
            if value is not None:
                msg[key] = value
        if self.fair_seeds:
            msg["seed"] = new_client_seed()
        return await self.request(msg)

    async def set_seed(self, room: str, seed: str | None = None) -> dict[str, Any]:
        """Set your client seed for the next hands of ``room`` (default: a fresh random
        one); returns the room snapshot."""
        return await self.request({"t": "set_seed", "room": room, "seed": seed or new_client_seed()})

    async def history(self, room: str, last: int | None = None) -> list[dict[str, Any]]:
        """Your last hands of ``room`` (default 10, at most 50), as you saw them, each with
        its fairness proof (``docs/protocol.md``, ``history``)."""
        msg: dict[str, Any] = {"t": "history", "room": room}
        if last is not None:
            msg["last"] = last
        return (await self.request(msg))["hands"]

    async def my_record(self, last: int | None = None) -> dict[str, Any]:
        """Your own record (``docs/protocol.md``, ``my_record``): ``hands``, ``games``
        (per game: ``hands``, ``net``) and ``recent`` (your last ``last`` results, default
        10, at most 50, newest first)."""
        msg: dict[str, Any] = {"t": "my_record"}
        if last is not None:
            msg["last"] = last
        reply = await self.request(msg)
        return {k: v for k, v in reply.items() if k not in ("t", "ref")}

    async def _reseed(self, room: str) -> None:
        try:
            await self.set_seed(room)
        except (ServerError, ConnectionLost, TimeoutError) as exc:
            log.debug("room %s: new client seed not set (%s)", room, exc)

    async def spectate(self, room: str, code: str | None = None) -> dict[str, Any]:
        """Watch a room without a seat (watched again automatically after a reconnect).
        ``code``: a private room's join code (remembered for the reconnects)."""
        if code is not None:
            self.codes[room] = code
        reply = await self.request(self._spectate_msg(room))
        self.watching.add(room)
        return reply

    def _spectate_msg(self, room: str) -> dict[str, Any]:
        msg: dict[str, Any] = {"t": "spectate", "room": room}
        if room in self.codes:
            msg["code"] = self.codes[room]
        return msg

    async def leave(self, room: str) -> dict[str, Any]:
        """Give the seat back (``pending: true`` while a hand you are in runs) or stop watching."""
        self.watching.discard(room)
        return await self.request({"t": "leave", "room": room})

    async def sit_out(self, room: str) -> dict[str, Any]:
        return await self.request({"t": "sit_out", "room": room})

    async def sit_in(self, room: str) -> dict[str, Any]:
        return await self.request({"t": "sit_in", "room": room})

    async def auto_play(self, room: str, on: bool = True) -> dict[str, Any]:
        """Hand your seat to the server's auto-play (托管: check or fold in Hold'em and Zha
        Jin Hua, the built-in bot in Dou Dizhu) or, with ``on=False``, take it back.
        Answered by the room snapshot (your seat's ``auto``)."""
        return await self.request({"t": "auto_play", "room": room, "on": on})

    async def find_room(self, code: str) -> str:
        """The private room a join code names (``find_room``); remembered with its code, so
        that :meth:`join` and :meth:`spectate` of it send the code."""
        room: str = (await self.request({"t": "find_room", "code": code}))["room"]
        self.codes[room] = code.strip().upper()
        return room

    async def add_bot(self, room: str) -> dict[str, Any]:
        """A server bot in the first free seat of a room you sit in (its ``room`` snapshot)."""
        return await self.request({"t": "add_bot", "room": room})

    async def say(self, room: str, text: str) -> dict[str, Any]:
        """A line in the room's chat (``said``); every viewer gets it as a ``chat`` event.
        Not sent again after a reconnect (a line said twice is worse than one lost)."""
        return await self.request({"t": "say", "room": room, "text": text})

    async def ping(self) -> dict[str, Any]:
        return await self.request({"t": "ping"})

    def new_action_id(self) -> str:
        """A fresh action id, unique for this client object."""
        return f"{self._id_prefix}-{next(self._action_ids)}"

    async def act(self, room: str, action: Mapping[str, Any], action_id: str | None = None) -> dict[str, Any]:
        """Play ``action`` in ``room`` and wait for the ``ack`` (returned).

        Raises ServerError with the engine's or server's code (``not_your_turn``,
        ``bad_amount``, ``no_hand`` ...) when it is refused. Safe across reconnects:
        the same id is resent and the server applies it at most once.
        """
        return await self.request({"t": "act", "room": room, "action": dict(action),
                                   "id": action_id or self.new_action_id()})

    # ------------------------------------------------------------ pushed messages

    def __aiter__(self) -> AsyncIterator[dict[str, Any]]:
        return self.messages()

    async def messages(self) -> AsyncIterator[dict[str, Any]]:
        """Every pushed message in order (``event``, ``room``, ``rooms``, ``left`` ...),
        room replies included, plus ``{"t": "disconnected"}`` / ``{"t": "reconnected"}``.
        Ends when the client is closed; raises if reconnecting failed."""
        while True:
            msg = await self._inbox.get()
            if msg is None:
                self._inbox.put_nowait(None)  # let other iterators end too
                if self._failure is not None and not self._closing:
                    raise self._failure
                return
            yield msg

    async def next_message(self, timeout: float | None = None) -> dict[str, Any] | None:
        """The next pushed message, or ``None`` once closed (TimeoutError after ``timeout``)."""
        msg = await asyncio.wait_for(self._inbox.get(), timeout)
        if msg is None:
            self._inbox.put_nowait(None)
            if self._failure is not None and not self._closing:
                raise self._failure
        return msg


__all__ = ["CardroomClient", "ConnectionLost", "ServerError", "SUBPROTOCOL"]
