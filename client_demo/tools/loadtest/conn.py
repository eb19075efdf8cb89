"""The load clients' connection: one ``cardroom.msgpack`` WebSocket and its reader task.

Deliberately lean (``websockets`` + ``msgpack``, no SDK pacing, no reconnects) so that
the figures describe the server. Replies to :meth:`Connection.request` are matched by
``ref``; every other message goes to :meth:`Connection.on_message`, which subclasses
override. An unexpected close is counted in the shared error counter as
``closed_<code>``.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

import msgpack
import websockets
from websockets.asyncio.client import ClientConnection

from ...sdk.client import PROTOCOL_VERSION
from ...sdk.updates import RoomFollower

SUBPROTOCOL = "cardroom.msgpack"
SETUP_TIMEOUT = 20.0  # seconds for connecting and for one setup request (hello, create_room, join)


class RequestError(RuntimeError):
    """A request was answered with ``error``: ``code`` is the server's error code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code


class Connection:
    """One msgpack WebSocket to ``url``; errors go into the shared ``errors`` counter."""

    def __init__(self, url: str, errors: Counter[str]) -> None:
        self.url = url
        self.errors = errors
        self.ws: ClientConnection | None = None
        self.reader: asyncio.Task[None] | None = None
        self.replies: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.last_ref = 0
        self.closing = False  # set by close(): a close from now on is expected
        self.follower = RoomFollower()  # room snapshots kept by room and update messages

    async def open(self, name: str) -> dict[str, Any]:
        """Connect, start the reader and say ``hello`` as ``name``; returns the ``welcome``."""
        self.ws = await websockets.connect(self.url, subprotocols=[SUBPROTOCOL], max_size=2**20,
                                           compression=None, open_timeout=SETUP_TIMEOUT)
        self.reader = asyncio.create_task(self._read_loop())
        return await self.request({"t": "hello", "name": name, "protocol": PROTOCOL_VERSION})

    @property
    def alive(self) -> bool:
        """True while the reader runs (the connection is open and read)."""
        return self.reader is not None and not self.reader.done()

    def new_ref(self) -> int:
        self.last_ref += 1
        return self.last_ref

    async def send(self, msg: dict[str, Any]) -> None:
        assert self.ws is not None, "send before open"
        await self.ws.send(msgpack.packb(msg))

    async def request(self, msg: dict[str, Any], timeout: float = SETUP_TIMEOUT) -> dict[str, Any]:
        """Send ``msg`` with a fresh ``ref`` and return the reply; RequestError on ``error``."""
        ref = self.new_ref()
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.replies[ref] = fut
        try:
            await self.send({**msg, "ref": ref})
            reply = await asyncio.wait_for(fut, timeout)
        finally:
            self.replies.pop(ref, None)
        if reply.get("t") == "error":
            raise RequestError(str(reply.get("code")), str(reply.get("message")))
        return reply

    async def on_message(self, msg: dict[str, Any]) -> None:
        """A message that answers no :meth:`request`: by default an ``error`` is counted."""
        if msg.get("t") == "error":
            self.errors[str(msg.get("code"))] += 1

    def on_closed(self) -> None:
        """Called once when the reader stops, for whatever reason."""

    async def _read_loop(self) -> None:
        assert self.ws is not None
        try:
            async for frame in self.ws:
                msg = msgpack.unpackb(frame)
                for m in self.follower.expand(msg) if isinstance(msg, dict) else [msg]:
                    if m.get("t") == "gap":  # an update for another snapshot than ours: a server bug
                        self.errors["update_gap"] += 1
                        await self.send({"t": "sync", "room": m["room"]})
                        continue
                    fut = self.replies.pop(m.get("ref"), None) if isinstance(m, dict) else None
                    if fut is not None:
                        if not fut.done():
                            fut.set_result(m)
                    else:
                        await self.on_message(m)
        except websockets.ConnectionClosed:
            pass
        except Exception as exc:  # a bug on the client side: count it, stop this connection
            self.errors[f"client_{type(exc).__name__}"] += 1
            print(f"load client failure: {exc!r}", file=sys.stderr)
            self.closing = True  # counted already
        finally:
            if not self.closing:
                self.errors[f"closed_{self.ws.close_code or 1006}"] += 1
            for fut in self.replies.values():
                if not fut.done():
                    fut.set_exception(ConnectionError("connection closed"))
            self.on_closed()

    async def close(self) -> None:
        """Close the connection (5 s at most) and stop the reader."""
        self.closing = True
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.ws.close(), 5)
        if self.reader is not None:
            self.reader.cancel()
            with contextlib.suppress(BaseException):
                await self.reader


async def bounded(jobs: Iterable[Callable[[], Awaitable[Any]]], limit: int) -> list[Any]:
    """Run the jobs with at most ``limit`` at a time; results in order (exceptions as values)."""
    gate = asyncio.Semaphore(limit)

    async def one(job: Callable[[], Awaitable[Any]]) -> Any:
        async with gate:
            return await job()

    return await asyncio.gather(*(one(job) for job in jobs), return_exceptions=True)


async def close_all(conns: Iterable[Connection]) -> None:
    """Close every connection, concurrently; never raises."""
    await asyncio.gather(*(c.close() for c in conns), return_exceptions=True)
