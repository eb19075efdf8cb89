"""The frame loop: every connection's frames, from the socket to the request handler.

:meth:`FrameLoop.handle` is the ``websockets`` handler of ``/ws``: the gate admits the
connection (per-address limits), a :class:`~server.edge.session.Session` is made for it and
announced to the requests, and each frame is rate-limited (strikes close an abuser),
decoded and validated by the session's codec (a bad one is answered with its code and the
``ref`` it carried) and handed to :attr:`FrameLoop.requests` once the process is not too far
behind (backpressure). :meth:`FrameLoop.close_idle` closes connections that never said
hello, or went silent. The edge knows nothing of rooms: what a message means is the
requests' business (``server/requests/lobby.py``).
"""

from __future__ import annotations

import asyncio
import time
from typing import Any, Protocol

from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed

from ..config import Settings
from ..metrics import Metrics
from .backpressure import Admission
from .codec import Codec
from .gate import Gate, peer_address
from .protocol import CLOSE_NORMAL, CLOSE_POLICY, ProtocolError, error_message
from .session import Session, Sessions


class Requests(Protocol):
    """Where the frame loop hands what connections say (the lobby)."""

    def connected(self, session: Session) -> None: ...

    async def dispatch(self, session: Session, msg: Any) -> None: ...

    def disconnected(self, session: Session) -> None: ...


class FrameLoop:
    """Every connection's frames, read and handed to ``requests`` (see the module doc)."""

    def __init__(self, settings: Settings, gate: Gate, sessions: Sessions, metrics: Metrics,
                 admission: Admission, requests: Requests) -> None:
        self.settings = settings
        self.gate = gate
        self.sessions = sessions
        self.metrics = metrics
        self.admission = admission
        self.requests = requests

    async def handle(self, ws: ServerConnection) -> None:
        """The connection's life: admitted by the gate, a session made and announced, each frame
        rate-limited, decoded and validated, then handed on; the session ended when it closes."""
        s = self.settings
        assert ws.subprotocol is not None
        address = self.gate.client_address(peer_address(ws.remote_address),
                                           ws.request.headers.get("X-Forwarded-For") if ws.request else None)
        if not self.gate.connect(address):  # over the limit since the handshake began
            await ws.close(CLOSE_POLICY, "too many connections from your address")
            return
        session = Session(ws, Codec(ws.subprotocol, s.max_frame), rate=s.rate, burst=s.burst, queue_size=s.send_queue)
        session.address = address
        self.requests.connected(session)
        try:
            async for frame in ws:
                session.last_seen = time.monotonic()
                if session.closed:  # closing: drain what the client still sends until its close frame
                    continue
                if not session.bucket.take():
                    session.strikes += 1
                    self.metrics.errors.labels("rate_limited").inc()
                    if session.strikes >= s.abuse_limit:
                        session.close(CLOSE_POLICY, "rate limit exceeded")
                        continue
                    session.send(error_message("rate_limited", "too many messages; slow down",
                                               _ref_of(session.codec, frame)))
                    continue
                session.strikes = 0
                try:
                    msg = session.codec.decode_message(frame)
                except ProtocolError as exc:
                    ref = _ref_of(session.codec, frame)
                    self.metrics.errors.labels(exc.code).inc()
                    session.send(error_message(exc.code, exc.message, ref, exc.field, **exc.extra))
                    continue
                await self.admission.wait()  # backpressure: a process far behind reads no more
                await self.requests.dispatch(session, msg)
        except ConnectionClosed:
            pass
        finally:
            self.gate.disconnect(address)
            self.requests.disconnected(session)
            if not session.closed:
                await session.flush(0.5)
            session.stop()
            await session.wait_closed()

    async def close_idle(self) -> None:
        """Close connections that never said hello, or went silent, for too long."""
        s = self.settings
        while True:
            await asyncio.sleep(min(5.0, s.hello_timeout / 2))
            now = time.monotonic()
            for session in self.sessions:
                if session.closed:
                    continue
                if session.player_id is None and now - session.opened > s.hello_timeout:
                    session.send(error_message("not_authenticated",
                                               f"say hello within {s.hello_timeout:g} seconds of connecting"))
                    session.close(CLOSE_POLICY, "no hello")
                elif s.idle_timeout and now - session.last_seen > s.idle_timeout:
                    session.close(CLOSE_NORMAL, "idle")


def _ref_of_message(decoded: Any) -> str | int | None:
    ref = decoded.get("ref") if isinstance(decoded, dict) else None
    return ref if isinstance(ref, str | int) and not isinstance(ref, bool) else None


def _ref_of(codec: Codec, frame: str | bytes) -> str | int | None:
    """The ``ref`` of a frame we will not process, so the client knows which was refused."""
    try:
        return _ref_of_message(codec.decode(frame))
    except ProtocolError:
        return None
