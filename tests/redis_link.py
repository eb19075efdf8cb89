"""A TCP relay to Redis on loopback that a test breaks the ways networks break (any TCP
service will do: the chaos soak puts one in front of each server's WebSocket port too).

Point a server at :attr:`RedisLink.url` instead of Redis's own address; then:

* :meth:`stall` holds all traffic both ways, connections kept open (a partition), and
  :meth:`flow` lets the held bytes through;
* :meth:`cut` closes every connection and refuses new ones (Redis, or the way to it, is
  down), until :meth:`flow`;
* :meth:`deafen` lets requests reach Redis but closes each connection instead of passing
  a reply back: Redis carries out the command, the client never learns that it did.

Nothing is mocked: the server under test talks real RESP over real sockets to a real
Redis, and only sees what a network could do to it.
"""

from __future__ import annotations

import asyncio
from urllib.parse import urlsplit

from client_demo.tools.loadtest.launcher import free_port


class RedisLink:
    """A relay to the Redis at ``target``: a TCP port on 127.0.0.1, or a ``redis://`` or
    ``unix://`` URL. ``target`` may change while the relay runs (a restarted service on a
    new port): new connections go to the new one."""

    def __init__(self, target: int | str) -> None:
        self.target = target
        self.port = free_port()
        self.mode = "flow"  # flow | stall | cut | deaf
        self._flowing = asyncio.Event()
        self._flowing.set()
        self._server: asyncio.AbstractServer | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self.replies_dropped = 0  # replies Redis sent that never reached the client (deaf)

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    @property
    def running(self) -> bool:
        """Has :meth:`start` been called?"""
        return self._server is not None

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._client, "127.0.0.1", self.port)

    async def stop(self) -> None:
        self.flow()
        if self._server is not None:
            self._server.close()
        self._close_all()

    def stall(self) -> None:
        self.mode = "stall"
        self._flowing.clear()

    def cut(self) -> None:
        self.mode = "cut"
        self._flowing.set()
        self._close_all()

    def deafen(self) -> None:
        self.mode = "deaf"
        self._flowing.set()

    def flow(self) -> None:
        self.mode = "flow"
        self._flowing.set()

    def _close_all(self) -> None:
        for w in list(self._writers):
            w.close()
        self._writers.clear()

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.mode == "cut":
            writer.close()
            return
        try:
            up_reader, up_writer = await self._open_upstream()
        except OSError:
            writer.close()
            return
        self._writers |= {writer, up_writer}
        await asyncio.gather(self._pipe(reader, up_writer, upstream=True),
                             self._pipe(up_reader, writer, upstream=False), return_exceptions=True)
        self._writers -= {writer, up_writer}

    async def _open_upstream(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        if isinstance(self.target, int):
            return await asyncio.open_connection("127.0.0.1", self.target)
        url = urlsplit(self.target)
        if url.scheme == "unix":
            return await asyncio.open_unix_connection(url.path)
        return await asyncio.open_connection(url.hostname, url.port or 6379)

    async def _pipe(self, src: asyncio.StreamReader, dst: asyncio.StreamWriter, upstream: bool) -> None:
        try:
            while data := await src.read(65536):
                await self._flowing.wait()
                if self.mode == "cut":
                    break
                if self.mode == "deaf" and not upstream:
                    self.replies_dropped += 1
                    break
                dst.write(data)
                await dst.drain()
        finally:
            dst.close()  # and the other direction ends with it
