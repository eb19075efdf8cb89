"""WebSocket and plain HTTP on one port.

``/ws`` upgrades to a WebSocket (subprotocol ``cardroom.msgpack`` or ``cardroom.json``
required). Plain GETs get ``/healthz`` (200 when Redis answers, else 503: readiness),
``/livez`` (200 while the process runs: liveness), ``/metrics`` (Prometheus text format)
and ``/admin`` (a read-only status page), both for operators only (see
:mod:`server.edge.gate`), and the static files of the browser demo under ``/``
(``index.html`` for ``/``), with their content types; anything else is 404. Paths are
resolved inside the web directory only: no traversal. With ``--admin-token``,
``/admin/api/`` is the operator's API (GET and POST, :mod:`server.ops.admin_api`) and
``/admin/console`` its page; any other method than GET or HEAD elsewhere is 405.
"""

from __future__ import annotations

import asyncio
import contextlib
import http
import logging
import mimetypes
import posixpath
import socket
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from urllib.parse import unquote, urlsplit

from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers
from websockets.exceptions import NegotiationError
from websockets.http11 import Request, Response
from websockets.protocol import State

from .gate import Gate, peer_address
from .protocol import SUBPROTOCOLS

log = logging.getLogger(__name__)

#: the kernel's send buffer of each connection, fixed. Left to autotune, Linux lets it grow
#: to megabytes for a client that stopped reading, which then sat thousands of messages
#: behind without ever filling its send queue (``--send-queue``): the slow-reader cut-off
#: never fired. A card table's traffic needs far less than this, even far away.
SEND_BUFFER_BYTES = 128 * 1024


class Connection(ServerConnection):
    """``websockets``' server connection, with the data ready to send written at once.

    A frame for a connection with nothing queued goes out at once (:meth:`send_now`).
    Messages that waited are sent together: :meth:`send_many` queues them as
    consecutive frames with the sans-I/O protocol object, the way ``websockets``' own
    ``send()`` queues one, and :meth:`send_data` hands everything queued to the transport
    in one ``write()``: one system call per batch instead of one per frame.

    Its socket's send buffer is fixed at :data:`SEND_BUFFER_BYTES`."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        sock = transport.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER_BYTES)
        super().connection_made(transport)

    async def send_many(self, payloads: Sequence[bytes], text: bool) -> None:
        """Send each payload as one frame, in order: text frames (UTF-8 payloads) or
        binary ones."""
        async with self.send_context():
            send = self.protocol.send_text if text else self.protocol.send_binary
            for payload in payloads:
                send(payload)

    def send_now(self, payload: bytes, text: bool) -> bool:
        """Send one frame at once, without awaiting anything: what ``send_many`` does
        for one payload when nothing holds it back. False, with nothing sent, when the
        connection is not open or its writing is paused (the kernel's buffer is full):
        send it the awaiting way then, which waits for the buffer to drain."""
        if self.protocol.state is not State.OPEN or self.paused:
            return False
        (self.protocol.send_text if text else self.protocol.send_binary)(payload)
        try:
            self.send_data()
        except Exception as exc:  # as send_context: the connection is lost; its reader ends it
            self.set_connection_exc(exc)
            self.transport.abort()
        return True

    def send_data(self) -> None:
        pending: list[bytes] = []
        for data in self.protocol.data_to_send():
            if data:
                pending.append(data)
                continue
            # SEND_EOF: write what came before, then half-close (as websockets does)
            if pending:
                self.transport.write(b"".join(pending))
                pending = []
            if self.transport.can_write_eof():
                try:
                    self.transport.write_eof()
                except Exception:  # write_eof() raises various errors; the connection is ending anyway
                    pass
            else:
                self.transport.close()
        if pending:
            self.transport.write(pending[0] if len(pending) == 1 else b"".join(pending))

WS_PATH = "/ws"

CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".ico": "image/x-icon",
    ".wasm": "application/wasm",
    ".txt": "text/plain; charset=utf-8",
    ".map": "application/json",
    ".woff2": "font/woff2",
}


def response(status: int, body: bytes, content_type: str) -> Response:
    headers = Headers([
        ("Content-Type", content_type),
        ("Content-Length", str(len(body))),
        ("Cache-Control", "no-cache"),
        ("X-Content-Type-Options", "nosniff"),
    ])
    return Response(status, http.HTTPStatus(status).phrase, headers, body)


def text_response(status: int, text: str) -> Response:
    return response(status, text.encode(), "text/plain; charset=utf-8")


def static_file(web_dir: Path, url_path: str) -> Path | None:
    """The file under ``web_dir`` that ``url_path`` names, or None (missing, or outside it)."""
    path = unquote(url_path)
    if "\x00" in path or "\\" in path:
        return None
    normalized = posixpath.normpath("/" + path.lstrip("/"))
    if normalized == "/":
        normalized = "/index.html"
    root = web_dir.resolve()
    candidate = (root / normalized.lstrip("/")).resolve()
    if not candidate.is_relative_to(root):
        return None
    if candidate.is_dir():
        candidate = candidate / "index.html"
    return candidate if candidate.is_file() else None


#: where the page finds a game's table module (``games/<name>.js``) and the files beside it
GAME_FILES = "/games/"


def game_file(folders: Mapping[str, Path], url_path: str) -> Path | None:
    """A game plugin's own browser file (see :attr:`engine.game.Game.web`): ``/games/<name>.js``
    is ``<name>.js`` in the game's folder, ``/games/<name>/<file>`` a file beside it; None for
    any other path, or a game whose page files are the page's own."""
    rest = unquote(url_path)[len(GAME_FILES):] if url_path.startswith(GAME_FILES) else None
    if not rest:
        return None
    name, slash, inside = rest.partition("/")
    if not slash:
        name, dot, ext = rest.rpartition(".")
        if not dot or ext != "js" or name not in folders:
            return None
        return static_file(folders[name], rest)
    return static_file(folders[name], inside) if name in folders and inside else None


def select_subprotocol(connection: ServerConnection, offered: Sequence[str]) -> str:
    """The first of the client's subprotocols that we speak (the client's preference wins)."""
    for p in offered:
        if p in SUBPROTOCOLS:
            return p
    raise NegotiationError("invalid subprotocol; expected one of " + ", ".join(SUBPROTOCOLS))


#: Where the operator's HTTP API lives (server/ops/admin_api.py).
ADMIN_API = "/admin/api/"


def make_process_request(
    web_dir: Path,
    healthy: Callable[[], Awaitable[bool]],
    metrics: Callable[[], tuple[bytes, str]],
    gate: Gate,
    admin: Callable[[], Awaitable[bytes]],
    admin_api: Callable[[str, str, str], Awaitable[tuple[int, bytes]]] | None = None,
    game_folders: Mapping[str, Path] | None = None,
    console: Callable[[], bytes] | None = None,
) -> Callable[[ServerConnection, Request], Awaitable[Response | None]]:
    async def process_request(connection: ServerConnection, request: Request) -> Response | None:
        url = urlsplit(request.path)
        path = url.path
        address = gate.client_address(peer_address(connection.remote_address),
                                      request.headers.get("X-Forwarded-For"))
        if path == WS_PATH:
            if not gate.origin_allowed(request.headers.get("Origin"), request.headers.get("Host")):
                return text_response(403, "origin not allowed: this page may not connect to this server\n")
            if not gate.room_for(address):
                return text_response(429, "too many connections from your address\n")
            return None  # continue with the WebSocket handshake
        if path == "/livez":  # the process is alive and its event loop answers (a liveness probe)
            return text_response(200, "ok\n")
        if path == "/healthz":
            if await healthy():
                return text_response(200, "ok\n")
            return text_response(503, "redis unavailable\n")
        if path.startswith(ADMIN_API) and admin_api is not None:
            if not gate.admin_page:
                return text_response(404, "not found\n")
            if not gate.operator(request.headers.get("Authorization"), address):
                return response(401, b'{"error":"unauthorized","message":"give the admin token: '
                                     b'Authorization: Bearer <token>"}\n', "application/json")
            status, body = await admin_api(request.method, path[len(ADMIN_API):], url.query)
            return response(status, body, "application/json")
        if path != WS_PATH and request.method not in ("GET", "HEAD"):
            return text_response(405, "only GET here\n")
        if path == "/admin/console":  # a page without data: what it shows comes from the API, with the token
            if not gate.admin_page or console is None:
                return text_response(404, "not found\n")
            return response(200, console(), "text/html; charset=utf-8")
        if path in ("/metrics", "/admin"):
            if path == "/admin" and not gate.admin_page:
                return text_response(404, "not found\n")
            if not gate.operator(request.headers.get("Authorization"), address):
                if gate.admin_page:
                    return text_response(401, "give the admin token: Authorization: Bearer <token>\n")
                return text_response(403, "only from this machine (set --admin-token to allow others)\n")
            if path == "/admin":
                return response(200, await admin(), "text/html; charset=utf-8")
            body, content_type = metrics()
            return response(200, body, content_type)
        file = game_file(game_folders or {}, path) or static_file(web_dir, path)
        if file is None:
            return text_response(404, "not found\n")
        content_type = CONTENT_TYPES.get(file.suffix.lower()) or mimetypes.guess_type(file.name)[0] or "application/octet-stream"
        return response(200, file.read_bytes(), content_type)

    return process_request
