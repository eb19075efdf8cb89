"""A small test client: one WebSocket connection speaking the cardroom protocol.

Each ``update`` it receives is expanded (:class:`client_demo.sdk.updates.RoomFollower`) into
the ``event`` messages and the patched ``room`` snapshot it stands for, so tests wait for
those; an update that does not apply (a gap) is counted in ``gaps`` and answered with a
``sync``, as a real client does."""

from __future__ import annotations

import asyncio
import itertools
import json
from typing import Any

import msgpack
from websockets.asyncio.client import ClientConnection, connect

from client_demo.sdk.updates import RoomFollower

_refs = itertools.count(1)


class Client:
    """Send requests, wait for their replies; everything else waits in ``inbox``."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.binary = ws.subprotocol == "cardroom.msgpack"
        self.inbox: list[dict[str, Any]] = []
        self.player: str | None = None
        self.token: str | None = None
        self.follower = RoomFollower()
        self.gaps = 0
        self.updates = 0  # update frames received
        self.patches: list[dict[str, Any]] = []  # their patches, as received
        self._expanded: list[dict[str, Any]] = []

    @classmethod
    async def connect(cls, url: str, subprotocol: str = "cardroom.json", **kw: Any) -> Client:
        ws = await connect(url, subprotocols=[subprotocol], max_size=None, max_queue=None, **kw)
        return cls(ws)

    async def close(self) -> None:
        await self.ws.close()

    async def send(self, msg: dict[str, Any]) -> None:
        if self.binary:
            await self.ws.send(msgpack.packb(msg, use_bin_type=True))
        else:
            await self.ws.send(json.dumps(msg))

    async def send_raw(self, frame: bytes | str) -> None:
        await self.ws.send(frame)

    async def _recv(self, timeout: float) -> dict[str, Any]:
        while not self._expanded:
            frame = await asyncio.wait_for(self.ws.recv(), timeout)
            msg = msgpack.unpackb(frame, raw=False) if isinstance(frame, bytes) else json.loads(frame)
            if msg.get("t") == "update":
                self.updates += 1
                self.patches.append(msg.get("patch") or {})
            for m in self.follower.expand(msg):
                if m["t"] == "gap":
                    self.gaps += 1
                    await self.send({"t": "sync", "room": m["room"]})
                else:
                    self._expanded.append(m)
        return self._expanded.pop(0)

    async def expect(self, t: str | None = None, timeout: float = 5.0, **match: Any) -> dict[str, Any]:
        """The first message (inbox first) of type ``t`` whose fields equal ``match``; it is removed."""

        def ok(m: dict[str, Any]) -> bool:
            return (t is None or m.get("t") == t) and all(
                m.get(k) == v if not callable(v) else v(m.get(k)) for k, v in match.items()
            )

        for i, m in enumerate(self.inbox):
            if ok(m):
                return self.inbox.pop(i)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            left = deadline - loop.time()
            if left <= 0:
                raise TimeoutError(f"no {t} {match} in time; inbox: {self.inbox[-5:]}")
            m = await self._recv(left)
            if ok(m):
                return m
            self.inbox.append(m)

    async def request(self, msg: dict[str, Any], timeout: float = 5.0) -> dict[str, Any]:
        """Send with a fresh ref; return the reply or error carrying it."""
        ref = next(_refs)
        await self.send(dict(msg, ref=ref))
        return await self.expect(None, timeout, ref=ref)

    async def hello(self, name: str | None = None, token: str | None = None) -> dict[str, Any]:
        reply = await self.request({"t": "hello", "name": name} if token is None else {"t": "hello", "token": token})
        if reply["t"] == "welcome":
            self.player, self.token = reply["player"], reply["token"]
        return reply

    def drain(self) -> None:
        self.inbox.clear()

    async def latest_room(self, room: str, settle: float = 0.2) -> dict[str, Any]:
        """The newest room snapshot received for ``room`` after a short quiet period."""
        last = None
        while True:
            try:
                m = await self.expect("room", timeout=settle, room=room)
                last = m
            except TimeoutError:
                break
        for m in reversed(self.inbox):
            if m.get("t") == "room" and m.get("room") == room:
                last = m
                break
        return last
