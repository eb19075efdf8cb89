"""A lean pipelined connection for Lua script calls on a single Redis server.

Storing a room change is one ``EVALSHA``; a busy process makes thousands a second. Through
redis-py each call costs about 150-200 µs of this process's CPU (its pool, retry and
timeout machinery, its per-reply parsing path), ten times what the call itself needs:
pack the command, write it, hand the reply to whoever waits for it. A :class:`ScriptLink`
does only that, on one connection of its own (``hiredis`` packs the commands and
parses the replies):

* every call made in one turn of the event loop goes out in one ``write`` (a pipeline);
  calls of later turns go out at once, without waiting for earlier replies (Redis answers
  in order);
* an error reply is returned to its caller as redis-py's exception (``NOSCRIPT`` as
  :class:`~redis.exceptions.NoScriptError`, ``READONLY`` as
  :class:`~redis.exceptions.ReadOnlyError`, any other as
  :class:`~redis.exceptions.ResponseError`); a script the server does not know is loaded
  and called again;
* a connection that breaks, or a reply that takes longer than ``timeout``, fails every
  call still waiting with :class:`~redis.exceptions.ConnectionError` or
  :class:`~redis.exceptions.TimeoutError` (what the caller sees from redis-py too: the
  outcome of such a call is unknown), and the next call connects again.

It serves plain TCP and Unix-socket connections (with ``AUTH`` and ``SELECT`` as the URL
says), and the primary Redis Sentinel names: then each new connection asks a sentinel where
the primary is, and a ``READONLY`` reply (a primary demoted by a failover) closes the
connection after failing its call, so that the next call finds the new primary. TLS and
Redis Cluster stay with redis-py: :func:`link_for` returns None for them.
"""

from __future__ import annotations

import asyncio
import hashlib
import socket
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any, Protocol, TypeVar

import hiredis
from redis import exceptions as rx
from redis.asyncio import Redis

CONNECT_TIMEOUT = 2.0
REPLY_TIMEOUT = 5.0

P = TypeVar("P", bound=asyncio.Protocol)
#: Where the primary is now, asked on every new connection (Sentinel)
Locate = Callable[[], Awaitable[tuple[str, int]]]


def address_of(redis: Any) -> dict[str, Any] | None:
    """Where and how the redis-py ``Redis`` client ``redis`` connects (address,
    credentials, database, timeouts), as keyword arguments of :class:`ScriptLink`; None
    when ``redis`` is a Cluster client or uses TLS."""
    if not isinstance(redis, Redis):
        return None
    pool = redis.connection_pool
    kw = pool.connection_kwargs
    kind = pool.connection_class.__name__
    if kind not in ("Connection", "UnixDomainSocketConnection", "SentinelManagedConnection"):
        return None  # TLS, or a connection class we do not know
    locate = pool.get_master_address if kind == "SentinelManagedConnection" else None
    return {"path": kw.get("path"), "host": kw.get("host", "localhost"), "port": kw.get("port", 6379),
            "username": kw.get("username"), "password": kw.get("password"), "db": kw.get("db", 0),
            "connect_timeout": kw.get("socket_connect_timeout") or CONNECT_TIMEOUT,
            "timeout": kw.get("socket_timeout") or REPLY_TIMEOUT, "locate": locate}


async def open_protocol(factory: Callable[[], P], path: str | None, host: str, port: int,
                        locate: Locate | None = None) -> P:
    """Connect to Redis at the Unix socket ``path``, else at ``host``:``port`` (or where
    ``locate`` says the primary is now) over TCP (no Nagle delay), with a protocol
    ``factory`` makes; returns that protocol."""
    loop = asyncio.get_running_loop()
    if path:
        _, protocol = await loop.create_unix_connection(factory, path)
        return protocol
    if locate is not None:
        host, port = await locate()
    _, protocol = await loop.create_connection(factory, host, port)
    sock = protocol.transport.get_extra_info("socket")  # type: ignore[attr-defined]
    if sock is not None:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return protocol


def link_for(redis: Any) -> ScriptLink | None:
    """A :class:`ScriptLink` to the server ``redis`` (a redis-py ``Redis`` client) talks
    to (see :func:`address_of`); None when ``redis`` is a Cluster client or uses TLS."""
    where = address_of(redis)
    return None if where is None else ScriptLink(**where)


def reply_error(reply: rx.ResponseError) -> rx.RedisError:
    """An error reply as the exception redis-py raises for it: a Redis still loading its
    data after a restart (``LOADING``) or cut off from its primary (``MASTERDOWN``) is
    unavailable (a connection error), as through redis-py."""
    text = str(reply)
    if text.startswith("NOSCRIPT"):
        return rx.NoScriptError(text)
    if text.startswith("READONLY") or "-READONLY " in text:  # 6.2 wraps a script's in its own error
        return rx.ReadOnlyError(text)
    if text.startswith("LOADING"):
        return rx.BusyLoadingError(text)
    if text.startswith("MASTERDOWN"):
        return rx.MasterDownError(text)
    return reply


def _read(fut: asyncio.Future[Any]) -> None:
    """Take a future's outcome that nobody awaits (so asyncio does not report it)."""
    if not fut.cancelled():
        fut.exception()


class Broken(Protocol):
    """What a :class:`RespProtocol` tells of a connection that failed."""

    def _broken(self, protocol: Any, error: rx.RedisError) -> None: ...


class RespProtocol(asyncio.Protocol):
    """A connection to Redis whose replies ``hiredis`` parses as they arrive, each handed
    to :meth:`on_reply`; one that does not parse, or the end of the connection, is told to
    ``link._broken``."""

    def __init__(self, link: Broken) -> None:
        self.link = link
        self.reader = hiredis.Reader(protocolError=rx.InvalidResponse, replyError=rx.ResponseError)
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        self.reader.feed(data)
        while True:
            try:
                reply = self.reader.gets()
            except rx.InvalidResponse as exc:
                self.link._broken(self, rx.ConnectionError(f"bad reply from Redis: {exc}"))
                return
            if reply is False or not self.on_reply(reply):
                return

    def on_reply(self, reply: Any) -> bool:
        """Take one reply (an error reply as :class:`~redis.exceptions.ResponseError`);
        False when the connection was given up over it."""
        return True

    def write(self, data: bytes) -> bool:
        """Send ``data``; False if the connection turned out to be closed, which is then
        told to ``link._broken`` (so every call waiting on it fails). A connection can close
        before its loss is reported (Redis, or the way to it, closing it as soon as it was
        made): asyncio's transports drop such a write, uvloop's raise ``RuntimeError``,
        which, raised out of a send, left its calls waiting for good."""
        transport = self.transport
        try:
            if transport is None or transport.is_closing():
                raise RuntimeError("the connection is closed")
            transport.write(data)
        except RuntimeError as exc:
            self.link._broken(self, rx.ConnectionError(f"connection to Redis lost: {exc}"))
            return False
        return True

    def connection_lost(self, exc: Exception | None) -> None:
        self.link._broken(self, rx.ConnectionError(f"connection to Redis lost: {exc or 'closed by the server'}"))


class _Protocol(RespProtocol):
    def __init__(self, link: ScriptLink) -> None:
        super().__init__(link)
        # (future, loop time sent) of every command sent on this connection, in the order
        # Redis answers them
        self.waiting: deque[tuple[asyncio.Future[Any], float]] = deque()

    def on_reply(self, reply: Any) -> bool:
        if not self.waiting:
            self.link._broken(self, rx.ConnectionError("a reply from Redis that nobody asked for"))
            return False
        fut = self.waiting.popleft()[0]
        error = reply_error(reply) if isinstance(reply, rx.ResponseError) else None
        if not fut.done():
            if error is not None:
                fut.set_exception(error)
            else:
                fut.set_result(reply)
        if isinstance(error, rx.ReadOnlyError):  # a replica now: the next connection finds the primary
            self.link._broken(self, rx.ConnectionError(f"Redis is a read-only replica now: {error}"))
            return False
        return True


class ScriptLink:
    """One pipelined connection to one Redis server, for ``EVALSHA`` calls (see the module)."""

    def __init__(self, path: str | None = None, host: str = "localhost", port: int = 6379,
                 username: str | None = None, password: str | None = None, db: int = 0,
                 connect_timeout: float = CONNECT_TIMEOUT, timeout: float = REPLY_TIMEOUT,
                 locate: Locate | None = None) -> None:
        self.path, self.host, self.port, self.locate = path, host, port, locate
        self.username, self.password, self.db = username, password, db
        self.connect_timeout, self.timeout = connect_timeout, timeout
        self._protocol: _Protocol | None = None
        self._connecting: asyncio.Future[_Protocol] | None = None
        self._out: list[tuple[bytes, asyncio.Future[Any]]] = []  # this turn's commands, not yet written
        self._wait: tuple[int, int, asyncio.Future[Any]] | None = None  # a WAIT to end this turn's write
        self._flush_soon = False
        self._watchdog: asyncio.TimerHandle | None = None
        self._closed = False
        self._loop: asyncio.AbstractEventLoop | None = None  # the one it is used in (see _running)

    # --- calling ------------------------------------------------------------------------

    async def evalsha(self, source: str, keys: list[Any], args: list[Any], sha: str | None = None) -> Any:
        """Run the Lua script ``source`` (its SHA-1 ``sha``) with ``keys`` and ``args``; a
        server that does not know it (restarted, flushed) gets it with ``SCRIPT LOAD`` and
        the call is made again."""
        sha = sha or hashlib.sha1(source.encode()).hexdigest()
        try:
            return await self.call("EVALSHA", sha, len(keys), *keys, *args)
        except rx.NoScriptError:
            await self.call("SCRIPT", "LOAD", source)
            return await self.call("EVALSHA", sha, len(keys), *keys, *args)

    async def evalsha_replicated(self, source: str, keys: list[Any], args: list[Any], sha: str | None,
                                 replicas: int, timeout_ms: int) -> Any:
        """:meth:`evalsha`, then ``WAIT replicas timeout_ms`` after it on the same
        connection (``WAIT`` counts the replicas holding this connection's writes). One
        ``WAIT`` ends the write of each turn of the event loop, for every call of that
        turn that asked (a group commit: a ``WAIT`` holds up its connection until the
        replicas answer, so one per call would queue the calls one replica round trip, or
        one timeout, apart). Raises :class:`~redis.exceptions.TimeoutError` when fewer
        replicas confirmed the script's writes in time: they are on the primary, not
        known to be anywhere else (an outcome a failover may undo)."""
        sha = sha or hashlib.sha1(source.encode()).hexdigest()
        for loaded in (False, True):
            reply = self.call("EVALSHA", sha, len(keys), *keys, *args)
            confirmed = self._replication_wait(replicas, timeout_ms)
            try:
                result = await reply
            except rx.NoScriptError:
                confirmed.add_done_callback(_read)
                if loaded:
                    raise
                await self.call("SCRIPT", "LOAD", source)
                continue
            except BaseException:
                confirmed.add_done_callback(_read)
                raise
            await self._replicated(confirmed, replicas, timeout_ms)
            return result
        raise AssertionError("unreachable")

    async def replicated(self, key: str, replicas: int, timeout_ms: int) -> None:
        """Return once ``replicas`` replicas hold everything the primary has so far (a
        write of ours to ``key``, then ``WAIT``: replication is one ordered stream);
        :class:`~redis.exceptions.TimeoutError` if they do not in time."""
        written = self.call("INCR", key)
        confirmed = self._replication_wait(replicas, timeout_ms)
        try:
            await written
        except BaseException:
            confirmed.add_done_callback(_read)
            raise
        await self._replicated(confirmed, replicas, timeout_ms)

    def _replication_wait(self, replicas: int, timeout_ms: int) -> asyncio.Future[Any]:
        """The reply to the ``WAIT`` that ends this turn's write (see :meth:`_flush`)."""
        if self._wait is None:
            self._wait = (replicas, timeout_ms, asyncio.get_running_loop().create_future())
        return self._wait[2]

    @staticmethod
    async def _replicated(confirmed: asyncio.Future[Any], replicas: int, timeout_ms: int) -> None:
        count = int(await asyncio.shield(confirmed))  # (shared: one caller's cancellation is its own)
        if count < replicas:
            raise rx.TimeoutError(f"{count} of {replicas} replicas confirmed the write within {timeout_ms} ms")

    async def evalsha_each(self, source: str, calls: list[tuple[list[Any], list[Any]]],
                           sha: str | None = None) -> list[Any]:
        """:meth:`evalsha` of ``source`` once per ``(keys, args)`` of ``calls``, all sent
        in one write, the replies in the order of ``calls``: what a process does for
        every room or player it holds every second or so (a future per call, no task).
        The first error reply is raised once every call is answered."""
        sha = sha or hashlib.sha1(source.encode()).hexdigest()
        replies = await asyncio.gather(*(self.call("EVALSHA", sha, len(keys), *keys, *args) for keys, args in calls),
                                       return_exceptions=True)
        unknown = [i for i, r in enumerate(replies) if isinstance(r, rx.NoScriptError)]
        if unknown:  # a server that does not know the script (restarted, flushed)
            await self.call("SCRIPT", "LOAD", source)
            again = await asyncio.gather(*(self.call("EVALSHA", sha, len(calls[i][0]), *calls[i][0], *calls[i][1])
                                           for i in unknown), return_exceptions=True)
            for i, reply in zip(unknown, again, strict=True):
                replies[i] = reply
        for reply in replies:
            if isinstance(reply, BaseException):
                raise reply
        return replies

    def call(self, *args: Any) -> asyncio.Future[Any]:
        """Send one command (with the others of this turn of the event loop); the future
        has its reply."""
        if self._closed:
            raise rx.ConnectionError("the script link is closed")
        loop = self._running()
        fut = loop.create_future()
        self._out.append((hiredis.pack_command(args), fut))
        if not self._flush_soon:
            self._flush_soon = True
            loop.call_soon(self._flush)
        return fut

    def _flush(self) -> None:
        self._flush_soon = False
        out, self._out = self._out, []
        if self._wait is not None:  # after every write of the turn: it covers them all
            replicas, timeout_ms, confirmed = self._wait
            self._wait = None
            out.append((hiredis.pack_command(("WAIT", replicas, timeout_ms)), confirmed))
        if not out:
            return
        protocol = self._protocol
        if protocol is None or protocol.transport is None or protocol.transport.is_closing():
            asyncio.ensure_future(self._connect_and_send(out))
            return
        self._send(protocol, out)

    def _running(self) -> asyncio.AbstractEventLoop:
        """The event loop the link is used in: found once (asking for the running loop is a
        ``getpid`` system call, and a link is called for every command), again only if
        that one closed (a test's loop)."""
        loop = self._loop
        if loop is None or loop.is_closed():
            loop = self._loop = asyncio.get_running_loop()
        return loop

    def _send(self, protocol: _Protocol, out: list[tuple[bytes, asyncio.Future[Any]]]) -> None:
        loop = self._running()
        now = loop.time()
        for _, fut in out:
            protocol.waiting.append((fut, now))
        if not protocol.write(b"".join(data for data, _ in out)):
            return  # (they failed with it)
        if self._watchdog is None:
            self._watchdog = loop.call_at(now + self.timeout, self._check_late)

    async def _connect_and_send(self, out: list[tuple[bytes, asyncio.Future[Any]]]) -> None:
        try:
            protocol = await self._connected()
        except BaseException as exc:
            error = exc if isinstance(exc, rx.RedisError) else rx.ConnectionError(f"cannot connect to Redis: {exc}")
            for _, fut in out:
                if not fut.done():
                    fut.set_exception(error)
            if not isinstance(exc, Exception):
                raise
            return
        self._send(protocol, out)

    # --- the connection -------------------------------------------------------------------

    async def _connected(self) -> _Protocol:
        """The open connection, opened (once, for every caller waiting) if need be."""
        protocol = self._protocol
        if protocol is not None and protocol.transport is not None and not protocol.transport.is_closing():
            return protocol
        if self._connecting is None:
            self._connecting = asyncio.ensure_future(self._open())
            self._connecting.add_done_callback(self._opened)
        return await asyncio.shield(self._connecting)

    def _opened(self, fut: asyncio.Future[_Protocol]) -> None:
        self._connecting = None
        if not fut.cancelled() and fut.exception() is None:
            self._protocol = fut.result()
        elif not fut.cancelled():
            fut.exception()  # read: every waiter got it

    async def _open(self) -> _Protocol:
        if self._closed:
            raise rx.ConnectionError("the script link is closed")
        try:
            async with asyncio.timeout(self.connect_timeout):
                protocol = await open_protocol(lambda: _Protocol(self), self.path, self.host, self.port, self.locate)
                await self._handshake(protocol)
        except TimeoutError:
            raise rx.TimeoutError("timed out connecting to Redis") from None
        except OSError as exc:
            raise rx.ConnectionError(f"cannot connect to Redis: {exc}") from None
        return protocol

    async def _handshake(self, protocol: _Protocol) -> None:
        """``AUTH`` and ``SELECT`` on a new connection, before any call goes out on it."""
        steps = []
        if self.password is not None:
            steps.append(("AUTH", self.username, self.password) if self.username else ("AUTH", self.password))
        if self.db:
            steps.append(("SELECT", self.db))
        if not steps:
            return
        futures = [asyncio.get_running_loop().create_future() for _ in steps]
        self._send(protocol, [(hiredis.pack_command(step), fut) for step, fut in zip(steps, futures, strict=True)])
        for fut in futures:
            await fut  # an error reply (wrong password) is raised here

    def _broken(self, protocol: _Protocol, error: rx.RedisError) -> None:
        """The connection failed: every call waiting on it fails with ``error``."""
        if protocol.transport is not None and not protocol.transport.is_closing():
            protocol.transport.abort()
        if self._protocol is protocol:
            self._protocol = None
        waiting, protocol.waiting = protocol.waiting, deque()
        for fut, _ in waiting:
            if not fut.done():
                fut.set_exception(error)

    def _check_late(self) -> None:
        """Every call must be answered within ``timeout``: the oldest one waiting is
        checked, and the connection given up if it is late."""
        self._watchdog = None
        protocol = self._protocol
        if protocol is None or not protocol.waiting:
            return
        loop = asyncio.get_running_loop()
        oldest = protocol.waiting[0][1]
        if loop.time() - oldest >= self.timeout:
            self._broken(protocol, rx.TimeoutError(f"Redis did not answer within {self.timeout:g} s"))
            return
        self._watchdog = loop.call_at(oldest + self.timeout, self._check_late)

    async def aclose(self) -> None:
        """Close the connection; calls still waiting fail with a connection error."""
        self._closed = True
        if self._protocol is not None:
            self._broken(self._protocol, rx.ConnectionError("the script link was closed"))
        waiting = [fut for _, fut in self._out] + ([self._wait[2]] if self._wait is not None else [])
        for fut in waiting:
            if not fut.done():
                fut.set_exception(rx.ConnectionError("the script link was closed"))
        self._out, self._wait = [], None
