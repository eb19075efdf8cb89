"""Server CPU per room change when many spectators watch one table.

    .venv/bin/cardroom serve --max-connections-per-ip 0      # more than 64 from one address
    .venv/bin/python bench/spectators.py --url ws://127.0.0.1:8765/ws --spectators 200 --seconds 10

One heads-up Hold'em room: two players of this script that always check or call (nobody
ever raises, so nobody busts; ``between_hands_seconds`` 0), watched by
``--spectators`` connections (half JSON, half msgpack; ``--encoding`` for one kind) that
read every frame and decode none. After a warm-up second it reports, over ``--seconds``:
the room's changes (versions), the frames one spectator received, and the server's CPU
(``process_cpu_seconds_total`` from ``/metrics``, so run the server on this machine: the
metrics are served to loopback) per change and per frame delivered. Each change is one
``update`` for every spectator, the same object for all of them; what it costs the
server to send that to many connections is the figure to compare between commits.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import msgpack  # noqa: E402
from websockets.asyncio.client import connect  # noqa: E402

from client_demo.sdk.bot import Bot, play  # noqa: E402
from client_demo.sdk.client import CardroomClient  # noqa: E402


class CheckOrCall(Bot):
    def decide(self, view, legal):
        return {"type": "check"} if legal.get("check") else {"type": "call"}


def server_cpu(url: str) -> float:
    parts = urlsplit(url)
    scheme = "https" if parts.scheme == "wss" else "http"
    with urllib.request.urlopen(f"{scheme}://{parts.netloc}/metrics", timeout=5) as r:
        text = r.read().decode()
    found = re.search(r"^process_cpu_seconds_total (\S+)$", text, re.M)
    if found is None:
        raise SystemExit("no process_cpu_seconds_total in /metrics")
    return float(found.group(1))


async def spectator(url: str, room: str, subprotocol: str, frames: list[int], index: int,
                    ready: asyncio.Event, started: list[int]) -> None:
    async with connect(url, subprotocols=[subprotocol], max_size=None) as ws:
        def encode(msg: dict) -> str | bytes:
            return json.dumps(msg) if subprotocol == "cardroom.json" else msgpack.packb(msg)
        await ws.send(encode({"t": "hello", "name": f"watcher{index}", "ref": 1}))
        await ws.recv()
        await ws.send(encode({"t": "spectate", "room": room, "ref": 2}))
        started[0] += 1
        if started[0] == len(frames):
            ready.set()
        async for _ in ws:
            frames[index] += 1


async def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--url", required=True, help="the server's WebSocket URL (ws://HOST:PORT/ws)")
    p.add_argument("--spectators", type=int, default=200)
    p.add_argument("--seconds", type=float, default=10.0)
    p.add_argument("--encoding", choices=("both", "json", "msgpack"), default="both")
    args = p.parse_args()

    async with CardroomClient(args.url, name="host") as host:
        snap = await host.create_room("holdem", {"seats": 2, "between_hands_seconds": 0, "action_seconds": 60})
        room = snap["room"]
        kinds = {"both": ["cardroom.json", "cardroom.msgpack"], "json": ["cardroom.json"],
                 "msgpack": ["cardroom.msgpack"]}[args.encoding]
        frames = [0] * args.spectators
        ready, started = asyncio.Event(), [0]
        watchers = [asyncio.create_task(spectator(args.url, room, kinds[i % len(kinds)], frames, i, ready, started))
                    for i in range(args.spectators)]
        await asyncio.wait_for(ready.wait(), 60)
        stop = asyncio.Event()
        players = [asyncio.create_task(play(CheckOrCall(), args.url, name=f"caller{i}", room=room, stop=stop, log=None))
                   for i in range(2)]
        await asyncio.sleep(1.0)  # warm-up: seated, hands running
        version0 = (await host.spectate(room))["version"]
        cpu0, frames0, t0 = server_cpu(args.url), sum(frames), time.monotonic()
        await asyncio.sleep(args.seconds)
        cpu1, frames1, elapsed = server_cpu(args.url), sum(frames), time.monotonic() - t0
        version1 = (await host.spectate(room))["version"]
        stop.set()
        for w in watchers:
            w.cancel()
        await asyncio.gather(*watchers, return_exceptions=True)
        await asyncio.wait_for(asyncio.gather(*players, return_exceptions=True), 15)

    changes = version1 - version0
    delivered = frames1 - frames0
    cpu = cpu1 - cpu0
    print(f"spectators          {args.spectators} ({args.encoding})")
    print(f"changes             {changes} in {elapsed:.1f} s ({changes / elapsed:.0f}/s)")
    print(f"frames delivered    {delivered} ({delivered / max(1, changes):.0f} per change)")
    print(f"server CPU          {cpu:.2f} s ({100 * cpu / elapsed:.0f}% of one core)")
    print(f"server CPU/change   {1e6 * cpu / max(1, changes):.0f} us")
    print(f"server CPU/frame    {1e6 * cpu / max(1, delivered):.1f} us")


if __name__ == "__main__":
    asyncio.run(main())
