"""Bytes a player receives per action at a heads-up Hold'em table, per encoding.

Starts nothing: point it at a running server (started with the load test's lifted
limits, e.g. ``cardroom serve --rate 1000000 --burst 1000000 --abuse-limit 1000000
--grant 1000000000``) and it plays ``--actions`` actions between two players (check or
call, never fold) on each subprotocol, counting every byte of every frame each player
receives::

    python bench/wire_bytes.py --url ws://127.0.0.1:8765/ws --actions 300

It follows rooms by ``update`` messages where the server sends them (and by ``room``
snapshots where it does not), so it measures an older server the same way.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path

import msgpack
from websockets.asyncio.client import connect

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from client_demo.sdk.updates import RoomFollower  # noqa: E402


class Player:
    def __init__(self, ws, binary: bool) -> None:
        self.ws = ws
        self.binary = binary
        self.follower = RoomFollower()
        self.received = 0
        self.frames = 0
        self.ref = 0

    async def send(self, msg: dict) -> None:
        self.ref += 1
        msg = dict(msg, ref=self.ref)
        await self.ws.send(msgpack.packb(msg) if self.binary else json.dumps(msg))

    async def recv(self) -> list[dict]:
        frame = await self.ws.recv()
        self.received += len(frame)
        self.frames += 1
        msg = msgpack.unpackb(frame) if isinstance(frame, bytes) else json.loads(frame)
        return self.follower.expand(msg)


async def play(url: str, subprotocol: str, actions: int) -> tuple[float, float]:
    binary = subprotocol == "cardroom.msgpack"
    async with connect(url, subprotocols=[subprotocol], max_size=None) as wa, \
            connect(url, subprotocols=[subprotocol], max_size=None) as wb:
        a, b = Player(wa, binary), Player(wb, binary)
        for p, name in ((a, "bytes-a"), (b, "bytes-b")):
            await p.send({"t": "hello", "name": name})
            await p.recv()
        # blinds 5/10: a buy-in of a hundred big blinds, which checking and calling down
        # hundreds of hands does not use up (at the default 50/100 a player went bust
        # within a few hundred actions, and the run waited for ever)
        await a.send({"t": "create_room", "game": "holdem", "options": {"seats": 2, "action_seconds": 60,
                                                                         "between_hands_seconds": 0},
                      "config": {"small_blind": 5, "big_blind": 10}})
        room = (await a.recv())[0]["room"]
        for p in (a, b):
            await p.send({"t": "join", "room": room, "buy_in": 1000})
        a.received = b.received = a.frames = b.frames = 0
        acted = 0
        done = asyncio.Event()

        async def run(p: Player) -> None:
            nonlocal acted
            while not done.is_set():
                for msg in await p.recv():
                    if msg.get("t") != "room" or not msg.get("playing") or msg.get("view") is None:
                        continue
                    view = msg["view"]
                    if view.get("to_act") != msg["your_seat"] or not view.get("legal"):
                        continue
                    action = {"type": "check"} if view["legal"].get("check") else {"type": "call"}
                    await p.send({"t": "act", "room": room, "action": action, "id": f"v{msg['version']}"})
                    acted += 1
                    if acted >= actions:
                        done.set()

        tasks = [asyncio.create_task(run(p)) for p in (a, b)]
        try:
            await asyncio.wait_for(done.wait(), 60 + actions / 10)
        except TimeoutError:
            raise SystemExit(f"{subprotocol}: play stopped after {acted} of {actions} actions") from None
        await asyncio.sleep(0.3)
        for t in tasks:
            t.cancel()
        return (a.received + b.received) / 2 / acted, (a.frames + b.frames) / 2 / acted


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", required=True)
    parser.add_argument("--actions", type=int, default=300)
    args = parser.parse_args()
    for sub in ("cardroom.json", "cardroom.msgpack"):
        per, frames = asyncio.run(play(args.url, sub, args.actions))
        print(f"{sub:18} {per:8.0f} bytes and {frames:4.1f} frames per action, per player")


if __name__ == "__main__":
    main()
