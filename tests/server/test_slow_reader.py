"""A client that stops reading is cut off (1008) after a bounded backlog, as documented.

The backlog a server holds for one connection is its send queue (``--send-queue``
messages) plus what the kernel buffers for the socket. Left to autotune, Linux lets a
socket's send buffer grow to megabytes, so a client that stopped reading was never cut
off: the keepalive closed it (1011) some 40 s later, thousands of frames behind. The
server now fixes each connection's send buffer (``SEND_BUFFER_BYTES``)."""

from __future__ import annotations

import asyncio

import pytest
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed

from server.edge.protocol import CLOSE_POLICY

PAYLOAD = "x" * 1000  # about a room snapshot's size in JSON


async def test_a_client_that_stops_reading_is_cut_off_with_1008_after_a_bounded_backlog(make_app):
    app = await make_app()
    # a client library that reads 16 frames ahead and then stops reading the socket
    ws = await ws_connect(app.ws_url, subprotocols=["cardroom.json"], max_queue=16)
    await ws.send('{"t": "hello", "name": "sleeper"}')
    await ws.recv()  # welcome; from here on the client never reads
    session = next(s for s in app.sessions if s.name == "sleeper")
    sent = 0
    while not session.closed and sent < 20_000:  # 20 MB: far beyond any bound
        for _ in range(50):
            session.send({"t": "pong", "ref": PAYLOAD})
            sent += 1
        await asyncio.sleep(0.002)
    assert session.closed, "never cut off"
    # the kernel's buffers on both ends plus the 256-message queue: well under 2 MB here
    assert sent < 2_000, sent
    # reading again, the client finds its backlog and then the server's reason
    received = 0
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            await asyncio.wait_for(ws.recv(), 5)
            received += 1
    assert closed.value.rcvd is not None and closed.value.rcvd.code == CLOSE_POLICY, closed.value
    assert closed.value.rcvd.reason == "too slow: send queue full" and received < sent
