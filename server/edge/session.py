"""Client connections: identity, rate limit, a bounded send queue, open requests.

Everything the server sends to a connection goes through :meth:`Session.send`, which
never blocks: a message is written at once when nothing waits before it and the
connection takes it, else it waits in a bounded queue drained by a writer task. A client
that does not read fast enough to keep the queue under its bound is disconnected (1008)
instead of letting memory grow. A queued message is encoded when the writer takes it, so
a message must not be changed once sent; one message object sent to many connections
(the update that every spectator of a room shares) is encoded once per encoding
(:class:`TurnFrames`).

A connection has a process-local id, and each room request it makes gets a request
number; answers travel back addressed by the two (see :class:`Sessions`), so a request
can be decided on another process and still be answered exactly once here.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import secrets
import time
from collections import Counter, deque
from dataclasses import dataclass
from typing import Any

from websockets.asyncio.server import ServerConnection
from websockets.protocol import State

from .codec import Codec
from .protocol import CLOSE_POLICY

log = logging.getLogger(__name__)

_CLOSE = object()


class TokenBucket:
    """``rate`` tokens per second, at most ``burst`` saved up; one message costs one token."""

    def __init__(self, rate: float, burst: int, clock=time.monotonic) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = float(burst)
        self.clock = clock
        self.last = clock()

    def take(self) -> bool:
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.last) * self.rate)
        self.last = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


@dataclass
class OpenRequest:
    """A room request waiting for its answer: what to send again if it must be re-routed."""

    room: str
    command: Any  # a server.room.core command
    tries: int = 0
    timer: asyncio.TimerHandle | None = None
    sent_to: str | None = None  # the node it was forwarded to, if any


class TurnFrames:
    """The frames encoded in this turn of the event loop, by message object and encoding.

    A change is sent to all its viewers in one turn (at once, or by their writers in the
    next): a message object shared by many of them is encoded only for the first of each
    encoding. An entry holds its message, so no other object can take its ``id`` while the
    entry lives; the entries are dropped at the next turn (and when there are many)."""

    MAX = 4096

    def __init__(self) -> None:
        self._frames: dict[tuple[int, bool], tuple[Any, bytes]] = {}
        self._armed: asyncio.AbstractEventLoop | None = None  # the loop that will clear them

    def payload(self, msg: Any, codec: Codec, loop: asyncio.AbstractEventLoop) -> bytes:
        """``msg``'s payload in ``codec``'s encoding (:meth:`Codec.payload`); ``loop`` is the
        running one (passed in: asking for it is a ``getpid`` system call each time)."""
        key = (id(msg), codec.binary)
        hit = self._frames.get(key)
        if hit is not None:
            return hit[1]
        if self._armed is not loop:
            self._armed = loop
            loop.call_soon(self._clear)
        elif len(self._frames) >= self.MAX:
            self._frames.clear()
        frame = codec.payload(msg)
        self._frames[key] = (msg, frame)
        return frame

    def _clear(self) -> None:
        self._armed = None
        self._frames.clear()


#: One for the process: the writers of every connection share it (one event loop).
TURN_FRAMES = TurnFrames()


class Session:
    """A connected client (authenticated once it said hello)."""

    def __init__(self, ws: ServerConnection, codec: Codec, *, rate: float, burst: int, queue_size: int,
                 frames: TurnFrames = TURN_FRAMES) -> None:
        self.ws = ws
        self.codec = codec
        self._frames = frames
        self._loop = asyncio.get_running_loop()
        self._send_now = getattr(ws, "send_now", None)  # server.edge.transport.Connection's
        self.id = 0  # set by Sessions.add
        self.address = ""  # the client's address the per-address limits count (see server.edge.gate)
        self.opened = self.last_seen = time.monotonic()
        self.watching: set[str] = set()  # rooms whose changes this connection receives
        self.requests: dict[int, OpenRequest] = {}  # request number -> waiting room request
        self.player_id: str | None = None
        self.name: str | None = None
        self.bucket = TokenBucket(rate, burst)
        self.strikes = 0  # rate-limited messages in a row
        self.code_misses = 0  # find_room codes that named no room (see Tables.find in server/requests/tables.py)
        self.chat: TokenBucket | None = None  # its chat lines' own limit, once it talks (Lobby._check_chat)
        self.watch_lobby: str | bool = False  # False, True (all games) or a game name
        self.closed = False  # nothing more is queued once closing
        self._limit = queue_size
        self._out: deque[Any] = deque()
        self._ready = asyncio.Event()
        self._closing: tuple[int, str] | None = None
        self._close_task: asyncio.Task[None] | None = None
        self._writer = asyncio.create_task(self._write_loop(), name="session writer")

    def send(self, msg: dict[str, Any]) -> None:
        """Send ``msg`` to this connection; never blocks. With nothing queued before it and
        the connection ready, it is written at once; else it is queued for the writer. A
        client whose queue is full is not reading: it is disconnected (1008) rather than
        letting memory grow."""
        if self.closed:
            return
        if not self._out and self._send_now is not None:  # nothing waits: no need to wake the writer
            if self._send_now(self._frames.payload(msg, self.codec, self._loop), not self.codec.binary):
                return
        if len(self._out) >= self._limit:
            log.warning("player %s is not reading its messages: disconnecting", self.player_id)
            self._out.clear()
            self.close(CLOSE_POLICY, "too slow: send queue full")
            return
        self._out.append(msg)
        if not self._ready.is_set():
            self._ready.set()

    async def _write_loop(self) -> None:
        """Send what is queued, everything that is ready at once (see
        :class:`server.edge.transport.Connection`); once closing, the rest, then the close."""
        send_many = getattr(self.ws, "send_many", None)
        while True:
            await self._ready.wait()
            self._ready.clear()
            while self._out:
                batch = [self._out.popleft() for _ in range(min(256, len(self._out)))]
                stop = _CLOSE in batch
                if stop:
                    batch = batch[:batch.index(_CLOSE)]
                try:
                    text = not self.codec.binary
                    payloads = [self._frames.payload(m, self.codec, self._loop) for m in batch]
                    if send_many is not None:
                        await send_many(payloads, text)
                    else:
                        for payload in payloads:
                            await self.ws.send(payload.decode() if text else payload)
                except Exception:  # the connection is gone; the reader notices too
                    self.closed = True
                    return
                if stop:
                    return
            if self._closing is not None:
                await self.ws.close(*self._closing)
                return

    def close(self, code: int, reason: str, flush_seconds: float = 1.0) -> None:
        """Close the connection with ``code``: what is already queued is sent first (for
        at most ``flush_seconds``: a client that does not read is not waited for)."""
        if self.closed:
            return
        self.closed = True
        self._closing = (code, reason)
        self._ready.set()
        self._close_task = asyncio.create_task(self._close_after(flush_seconds))

    async def _close_after(self, seconds: float) -> None:
        try:
            await asyncio.wait_for(asyncio.shield(self._writer), seconds)
        except (TimeoutError, asyncio.CancelledError):
            self._writer.cancel()
        if self.ws.state is not State.CLOSED and self._closing is not None:
            await self.ws.close(*self._closing)

    async def flush(self, timeout: float = 2.0) -> None:
        """Let the writer send what is queued (used on shutdown), then stop it."""
        if self._writer.done():
            return
        self._out.append(_CLOSE)
        self._ready.set()
        try:
            await asyncio.wait_for(asyncio.shield(self._writer), timeout)
        except (TimeoutError, asyncio.CancelledError):
            self._writer.cancel()

    async def wait_closed(self) -> None:
        if self._close_task is not None:
            await self._close_task

    def stop(self) -> None:
        self.closed = True
        self._writer.cancel()


class InternalRequests:
    """Connection 0: the process's own requests to rooms (the transfer sweeper's), whose
    answers resolve futures instead of going to a socket."""

    id = 0
    player_id: str | None = None
    name: str | None = None

    def __init__(self) -> None:
        self.requests: dict[int, OpenRequest] = {}
        self._waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}

    def expect(self, seq: int) -> asyncio.Future[dict[str, Any]]:
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiting[seq] = fut
        return fut

    def forget(self, seq: int) -> None:
        self._waiting.pop(seq, None)

    def send(self, msg: dict[str, Any]) -> None:
        fut = self._waiting.pop(msg.get("ref"), None)  # type: ignore[arg-type]
        if fut is not None and not fut.done():
            fut.set_result(msg)


class Sessions:
    """This process's connections by id and by player, and their open room requests."""

    def __init__(self) -> None:
        self.internal = InternalRequests()
        self._by_id: dict[int, Any] = {0: self.internal}
        self._players: Counter[str] = Counter()
        self._ids = itertools.count(1)  # 0 stands for the process itself
        # request numbers start at random, so that an answer meant for an earlier process
        # with the same node id (restarted with --node-id) can never match a request here
        self._seqs = itertools.count(secrets.randbits(48))

    def __iter__(self):
        return iter([s for s in self._by_id.values() if s.id != 0])

    def __len__(self) -> int:
        return len(self._by_id) - 1

    def add(self, session: Session) -> None:
        session.id = next(self._ids)
        self._by_id[session.id] = session

    def remove(self, session: Session) -> bool:
        """Forget a connection; True if it was its player's last one here."""
        self._by_id.pop(session.id, None)
        for req in session.requests.values():
            if req.timer is not None:
                req.timer.cancel()
        session.requests.clear()
        player = session.player_id
        if player is None:
            return False
        self._players[player] -= 1
        if self._players[player] <= 0:
            del self._players[player]
            return True
        return False

    def authenticated(self, session: Session) -> bool:
        """``session`` said hello; True if it is its player's first connection here."""
        assert session.player_id is not None
        self._players[session.player_id] += 1
        return self._players[session.player_id] == 1

    def get(self, conn: int) -> Any:
        return self._by_id.get(conn)

    def waiting_on(self, room: str) -> list[tuple[Any, int, OpenRequest]]:
        """Every open request for ``room``: ``(session, request number, request)``."""
        return [(s, seq, req) for s in self._by_id.values() for seq, req in list(s.requests.items())
                if req.room == room]

    def online(self, player: str) -> bool:
        return self._players[player] > 0 if player in self._players else False

    def players(self) -> list[str]:
        return list(self._players)

    def next_seq(self) -> int:
        return next(self._seqs)

    def claim(self, conn: int, seq: int) -> Any:
        """The session waiting for answer ``seq``, once: None if it is gone or answered."""
        session = self._by_id.get(conn)
        if session is None:
            return None
        req = session.requests.pop(seq, None)
        if req is None:
            return None
        if req.timer is not None:
            req.timer.cancel()
        return session
