"""The baseline of ``cardroom loadtest --baseline-echo``: a bare msgpack WebSocket echo server.

    python -m client_demo.tools.loadtest.echo --port 0

Binds 127.0.0.1, accepts the subprotocol ``cardroom.msgpack`` at any path, decodes each
binary frame with msgpack and sends the decoded map straight back, re-encoded. No
validation, no state, no Redis: what the server's transport would cost if a game cost
nothing. Prints ``echo is serving: ws://127.0.0.1:PORT/ws`` once it listens; SIGTERM or
Ctrl-C stops it.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal

import msgpack
from websockets.asyncio.server import ServerConnection, serve


async def echo(ws: ServerConnection) -> None:
    """Send every frame back, decoded and encoded again, until the client closes."""
    with contextlib.suppress(Exception):
        async for frame in ws:
            await ws.send(msgpack.packb(msgpack.unpackb(frame)))


async def main(port: int) -> None:
    """Serve until SIGTERM or SIGINT."""
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        asyncio.get_running_loop().add_signal_handler(sig, stop.set)
    async with serve(echo, "127.0.0.1", port, subprotocols=["cardroom.msgpack"],
                     compression=None, max_size=2**20) as server:
        bound = server.sockets[0].getsockname()[1]
        print(f"echo is serving: ws://127.0.0.1:{bound}/ws", flush=True)
        await stop.wait()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=0, help="TCP port (0: any free one)")
    asyncio.run(main(parser.parse_args().port))
