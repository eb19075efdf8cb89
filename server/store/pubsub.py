"""A lean pub/sub connection on a single Redis server.

A process that follows rooms owned elsewhere reads every change of them from pub/sub.
Through redis-py's ``PubSub.get_message`` each message costs its reader the library's
connection locks, retry wrapper, timeout context and per-message parsing path: a profile
of a following process (20 Hold'em rooms, two processes) put 11% of its samples there.
A :class:`PubSubLink` keeps what a subscriber needs and no more: ``hiredis`` parses what
arrives as it arrives, messages wait in a queue, and :meth:`get_message` hands out a
queued one without awaiting anything.

Through Sentinel it asks a sentinel where the primary is each time it connects.

It is a stand-in for the part of redis-py's ``PubSub`` the node uses, with the same
behaviour where it matters:

* messages are dicts with ``type`` (``"message"``, ``"subscribe"``, ``"unsubscribe"``),
  ``channel`` and ``data`` (bytes);
* a connection that breaks fails the next :meth:`get_message` (or the call under way) with
  :class:`~redis.exceptions.ConnectionError`; the call after that connects again and
  subscribes to every channel in :attr:`channels`. It does so once for every connection
  lost, even when a :meth:`subscribe` connected again first (after the messages that came
  on the new connection): what was published in between never arrives, and the reader
  must know to look for it;
* ``subscribe`` connects when there is no connection, and returns once Redis confirmed
  the subscription (the confirmation is also queued as a message); it raises
  :class:`~redis.exceptions.ConnectionError` if Redis cannot be reached, and the channel
  is then subscribed on the next connection.

Unlike redis-py, a channel given up while Redis was away is not subscribed again on
reconnecting. :func:`pubsub_for` gives one for plain TCP and Unix-socket connections, and
redis-py's own ``PubSub`` for TLS.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Any

import hiredis
from redis import exceptions as rx
from redis.asyncio import Redis

from .link import CONNECT_TIMEOUT, Locate, RespProtocol, address_of, open_protocol, reply_error


def pubsub_for(redis: Redis) -> Any:
    """A :class:`PubSubLink` to the server ``redis`` talks to, or redis-py's ``PubSub``
    where a lean connection cannot go (TLS)."""
    where = address_of(redis)
    if where is None:
        return redis.pubsub()
    return PubSubLink(**where)


def _bytes(channel: str | bytes) -> bytes:
    return channel if isinstance(channel, bytes) else channel.encode()


class _Protocol(RespProtocol):
    def __init__(self, link: PubSubLink) -> None:
        super().__init__(link)
        self.pubsub = link
        self.handshake: deque[asyncio.Future[Any]] = deque()  # replies to AUTH and PING, in order

    def on_reply(self, reply: Any) -> bool:
        if self.handshake:
            fut = self.handshake.popleft()
            if not fut.done():
                if isinstance(reply, rx.ResponseError):
                    fut.set_exception(reply_error(reply))  # LOADING: unavailable, not a bad password
                else:
                    fut.set_result(reply)
        elif isinstance(reply, list) and len(reply) >= 3:  # not a pong, say
            kind = reply[0].decode() if isinstance(reply[0], bytes) else str(reply[0])
            self.pubsub._arrived({"type": kind, "pattern": None, "channel": reply[1], "data": reply[2]})
        return True


class PubSubLink:
    """One pub/sub connection to one Redis server (see the module)."""

    def __init__(self, path: str | None = None, host: str = "localhost", port: int = 6379,
                 username: str | None = None, password: str | None = None, db: int = 0,
                 connect_timeout: float = CONNECT_TIMEOUT, timeout: float = 0.0,
                 locate: Locate | None = None) -> None:
        self.path, self.host, self.port, self.locate = path, host, port, locate
        self.username, self.password = username, password
        self.connect_timeout = connect_timeout
        self.channels: dict[bytes, None] = {}  # subscribed, or to subscribe on connecting
        self._protocol: _Protocol | None = None
        self._connecting: asyncio.Future[_Protocol] | None = None
        self._messages: deque[dict[str, Any]] = deque()
        self._waiter: asyncio.Future[None] | None = None  # a get_message waiting for a message
        self._error: rx.RedisError | None = None  # the broken connection, for the next get_message
        self._confirming: dict[bytes, list[asyncio.Future[None]]] = {}  # subscriptions not confirmed yet
        self._closed = False

    # --- what the node calls ----------------------------------------------------------------

    async def subscribe(self, *channels: str | bytes) -> None:
        names = [_bytes(c) for c in channels]
        loop = asyncio.get_running_loop()
        confirmed = []
        for name in names:
            self.channels[name] = None
            fut = loop.create_future()
            self._confirming.setdefault(name, []).append(fut)
            confirmed.append(fut)
        try:
            protocol = self._live()
            if protocol is None:
                await self._connected()  # subscribes to every channel wanted, these too
            else:
                self._write(protocol, ("SUBSCRIBE", *names))
            async with asyncio.timeout(self.connect_timeout):
                await asyncio.gather(*confirmed)
        except TimeoutError:
            raise rx.TimeoutError("Redis did not confirm the subscription in time") from None
        finally:
            for name, fut in zip(names, confirmed, strict=True):
                waiting = self._confirming.get(name, [])
                if fut in waiting:
                    waiting.remove(fut)
                if not waiting:
                    self._confirming.pop(name, None)
                if not fut.done():
                    fut.cancel()
                elif not fut.cancelled():
                    fut.exception()  # read (the connection's loss fails them all; one is raised)

    async def unsubscribe(self, *channels: str | bytes) -> None:
        names = [_bytes(c) for c in channels]
        for name in names:
            self.channels.pop(name, None)
        protocol = self._live()
        if protocol is None:
            raise rx.ConnectionError("no pub/sub connection: the channel is not subscribed on the next one")
        self._write(protocol, ("UNSUBSCRIBE", *names))

    async def get_message(self, timeout: float = 1.0) -> dict[str, Any] | None:
        """The next message (a queued one at once), None if none comes within ``timeout``
        seconds. Raises :class:`~redis.exceptions.ConnectionError` once for a broken
        connection; the next call connects again."""
        if self._messages:
            return self._messages.popleft()
        if self._error is not None:
            error, self._error = self._error, None
            raise error
        if self._live() is None:
            if self._error is not None:  # found broken just now
                error, self._error = self._error, None
                raise error
            await self._connected()
            if self._messages:
                return self._messages.popleft()
        loop = asyncio.get_running_loop()
        waiter = self._waiter = loop.create_future()
        handle = loop.call_later(timeout, _wake, waiter)
        try:
            await waiter
        finally:
            handle.cancel()
            if self._waiter is waiter:
                self._waiter = None
        if self._messages:
            return self._messages.popleft()
        if self._error is not None:
            error, self._error = self._error, None
            raise error
        return None

    async def aclose(self) -> None:
        self._closed = True
        if self._protocol is not None:
            self._broken(self._protocol, rx.ConnectionError("the pub/sub link was closed"))

    # --- the connection ---------------------------------------------------------------------

    def _arrived(self, message: dict[str, Any]) -> None:
        if message["type"] == "subscribe":
            for fut in self._confirming.pop(message["channel"], ()):
                if not fut.done():
                    fut.set_result(None)
        self._messages.append(message)
        if self._waiter is not None:
            _wake(self._waiter)

    def _live(self) -> _Protocol | None:
        """The open connection, or None; one found closing (its loss not reported yet) is
        given up at once, as broken."""
        protocol = self._protocol
        if protocol is None:
            return None
        if protocol.transport is None or protocol.transport.is_closing():
            self._broken(protocol, rx.ConnectionError("pub/sub connection closed"))
            return None
        return protocol

    @staticmethod
    def _write(protocol: _Protocol, command: tuple[Any, ...]) -> None:
        protocol.write(hiredis.pack_command(command))  # (a closed connection is reported broken)

    async def _connected(self) -> _Protocol:
        """The open connection, opened (once, for every caller waiting) if need be."""
        protocol = self._live()
        if protocol is not None:
            return protocol
        if self._connecting is None:
            self._connecting = asyncio.ensure_future(self._open())
            self._connecting.add_done_callback(self._opened)
        return await asyncio.shield(self._connecting)

    def _opened(self, fut: asyncio.Future[_Protocol]) -> None:
        self._connecting = None
        if not fut.cancelled():
            fut.exception()  # read: every waiter got it

    async def _open(self) -> _Protocol:
        if self._closed:
            raise rx.ConnectionError("the pub/sub link is closed")
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(self.connect_timeout):
                protocol = await open_protocol(lambda: _Protocol(self), self.path, self.host, self.port, self.locate)
                steps = [("PING",)]  # a reply proves a Redis is there (not just an open port)
                if self.password is not None:
                    steps.insert(0, ("AUTH", self.username, self.password) if self.username
                                 else ("AUTH", self.password))
                replies = [loop.create_future() for _ in steps]
                protocol.handshake.extend(replies)
                for step in steps:
                    self._write(protocol, step)
                for reply in replies:
                    await reply  # an error reply (wrong password) is raised here
        except TimeoutError:
            raise rx.TimeoutError("timed out connecting to Redis for pub/sub") from None
        except OSError as exc:
            raise rx.ConnectionError(f"cannot connect to Redis for pub/sub: {exc}") from None
        # (an error not yet raised stays: the reader learns of every lost connection, even
        # one another call has replaced, since what was published meanwhile is lost)
        self._protocol = protocol
        if self.channels:
            self._write(protocol, ("SUBSCRIBE", *self.channels))
        return protocol

    def _broken(self, protocol: _Protocol, error: rx.RedisError) -> None:
        """The connection failed: the next (or waiting) :meth:`get_message` raises ``error``."""
        if protocol.transport is not None and not protocol.transport.is_closing():
            protocol.transport.abort()
        for fut in protocol.handshake:
            if not fut.done():
                fut.set_exception(error)
        protocol.handshake.clear()
        if self._protocol is not protocol:
            return
        for waiting in self._confirming.values():
            for fut in waiting:
                if not fut.done():
                    fut.set_exception(error)
        self._protocol = None
        if not self._closed:
            self._error = error
        if self._waiter is not None:
            _wake(self._waiter)


def _wake(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)
