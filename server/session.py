"""One client connection: identity, rate limit, and a bounded send queue.

Everything the server sends to a connection goes through :meth:`Session.send`, which
never blocks: messages wait in a bounded queue drained by a writer task. A client that
does not read fast enough to keep the queue under its bound is disconnected (1008)
instead of letting memory grow.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from websockets.asyncio.server import ServerConnection

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


class Session:
    """A connected client (authenticated once it said hello)."""

    def __init__(self, ws: ServerConnection, codec: Codec, *, rate: float, burst: int, queue_size: int) -> None:
        self.ws = ws
        self.codec = codec
        self.player_id: str | None = None
        self.name: str | None = None
        self.bucket = TokenBucket(rate, burst)
        self.strikes = 0  # rate-limited messages in a row
        self.watch_lobby: str | bool = False  # False, True (all games) or a game name
        self.closed = False
        self._closing: asyncio.Task[None] | None = None
        self._queue: asyncio.Queue[Any] = asyncio.Queue(maxsize=queue_size)
        self._writer = asyncio.create_task(self._write_loop(), name="session writer")

    def send(self, msg: dict[str, Any]) -> None:
        if self.closed:
            return
        try:
            self._queue.put_nowait(msg)
        except asyncio.QueueFull:
            log.warning("player %s is not reading its messages: disconnecting", self.player_id)
            self.close(CLOSE_POLICY, "too slow: send queue full")

    async def _write_loop(self) -> None:
        while True:
            msg = await self._queue.get()
            if msg is _CLOSE:
                return
            try:
                await self.ws.send(self.codec.encode(msg))
            except Exception:  # the connection is gone; the reader notices too
                self.closed = True
                return

    def close(self, code: int, reason: str) -> None:
        """Close the connection (after nothing else is sent)."""
        if self.closed:
            return
        self.closed = True
        self._writer.cancel()
        self._closing = asyncio.create_task(self.ws.close(code, reason))  # keep a reference

    async def flush(self, timeout: float = 2.0) -> None:
        """Let the writer send what is queued (used on shutdown), then stop it."""
        if self._writer.done():
            return
        try:
            self._queue.put_nowait(_CLOSE)
        except asyncio.QueueFull:
            self._writer.cancel()
            return
        try:
            await asyncio.wait_for(asyncio.shield(self._writer), timeout)
        except (TimeoutError, asyncio.CancelledError):
            self._writer.cancel()

    async def wait_closed(self) -> None:
        if self._closing is not None:
            await self._closing

    def stop(self) -> None:
        self.closed = True
        self._writer.cancel()
