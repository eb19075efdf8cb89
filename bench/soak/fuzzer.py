"""The fuzzing connections: each sends hostile frames at a paced rate, reads everything
the server sends, and reconnects whenever its connection ends.

A :class:`FuzzClient` opens a connection with either subprotocol (now and then offering
none, which the handshake must refuse), usually says ``hello``, then sends what
:class:`~bench.soak.frames.FrameMaker` draws, under the server's rate limit (20 messages
a second, burst 40) except in floods. After a few hundred frames, or when the server
closes the connection, it starts again. Everything lands in one shared :class:`Tally`:
frames sent, replies by kind, ``internal_error`` (with the frame that provoked it),
closes the fuzzing provoked on purpose (1008 after a flood, 1009 over the hard limit,
1007 for a text frame that is not UTF-8) and any other close, replies the protocol
document rules out (:class:`~bench.soak.frames.Expect`), replies that do not decode,
and resent action ids answered with another version than the first time.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
from collections import Counter, deque
from dataclasses import dataclass, field
from typing import Any

import msgpack
import websockets
from websockets.asyncio.client import ClientConnection

from .frames import (
    CLOSE_BAD_DATA,
    CLOSE_POLICY,
    CLOSE_TOO_BIG,
    JSON,
    SUBPROTOCOLS,
    Frame,
    FrameMaker,
    Me,
    World,
    random_name,
)

RATE = 16.0  # frames a second per connection outside floods (the server allows 20, burst 40)
BURST = 30
EXAMPLES = 8  # examples kept per kind of finding
ANSWERS_KEPT = 32  # action ids the server remembers per player and room (docs/protocol.md)
PENDING_KEPT = 4000  # refs awaiting their answer, per connection
CLOSE_WAIT = 5.0  # seconds to wait for a close the last frame should provoke


@dataclass
class Tally:
    """What every fuzzing connection adds to."""

    frames: int = 0
    bytes_sent: int = 0
    families: Counter[str] = field(default_factory=Counter)
    replies: Counter[str] = field(default_factory=Counter)  # t, or the code of an error
    internal_errors: list[dict[str, Any]] = field(default_factory=list)
    expected_closes: Counter[str] = field(default_factory=Counter)
    unexpected_closes: Counter[str] = field(default_factory=Counter)
    close_examples: list[dict[str, Any]] = field(default_factory=list)
    mismatches: Counter[str] = field(default_factory=Counter)
    mismatch_examples: list[dict[str, Any]] = field(default_factory=list)
    undecodable: int = 0
    replay_mismatches: list[dict[str, Any]] = field(default_factory=list)
    connections: int = 0
    handshakes_refused: int = 0  # offered no known subprotocol: refused, as documented
    connect_failures: Counter[str] = field(default_factory=Counter)
    missing_closes: Counter[str] = field(default_factory=Counter)

    def example(self, bucket: list[dict[str, Any]], item: dict[str, Any]) -> None:
        if len(bucket) < EXAMPLES:
            bucket.append(item)


@dataclass
class Acks:
    """Accepted action ids of every fuzzing player: ``(player, room, id) -> (version,
    that player's count of acks in the room then)``, to check resent ids."""

    versions: dict[tuple[str, str, str], tuple[int, int]] = field(default_factory=dict)
    counts: Counter[tuple[str, str]] = field(default_factory=Counter)

    def check(self, player: str, room: str, aid: str, version: int) -> tuple[int, int] | None:
        """Record an ack; returns ``(first version, acks since)`` when the id was acked
        before at another version while it should still be remembered."""
        key = (player, room, aid)
        seen = self.versions.get(key)
        if seen is not None:
            since = self.counts[(player, room)] - seen[1]
            if seen[0] != version and since < ANSWERS_KEPT:
                return seen[0], since
            if seen[0] == version:
                return None
        self.counts[(player, room)] += 1
        self.versions[key] = (version, self.counts[(player, room)])
        return None


class Pacer:
    """A token bucket on the client side: ``rate`` frames a second, ``burst`` saved up."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = float(burst)
        self.last = time.monotonic()

    async def wait(self) -> None:
        while True:
            now = time.monotonic()
            self.tokens = min(self.burst, self.tokens + (now - self.last) * self.rate)
            self.last = now
            if self.tokens >= 1:
                self.tokens -= 1
                return
            await asyncio.sleep((1 - self.tokens) / self.rate)


def decode(subprotocol: str, raw: bytes | str) -> Any:
    """A server message in the connection's encoding (raises on garbage)."""
    if subprotocol == JSON:
        if not isinstance(raw, str):
            raise ValueError("binary frame on cardroom.json")
        return json.loads(raw)
    if not isinstance(raw, bytes):
        raise ValueError("text frame on cardroom.msgpack")
    return msgpack.unpackb(raw, raw=False)


class FuzzClient:
    """One fuzzing connection slot: connects, fuzzes, reconnects until ``stop`` is set."""

    def __init__(self, index: int, url: str, maker: FrameMaker, world: World, tally: Tally, acks: Acks,
                 stop: asyncio.Event, rng: random.Random, rate: float = RATE) -> None:
        self.index = index
        self.url = url
        self.maker = maker
        self.world = world
        self.tally = tally
        self.acks = acks
        self.stop = stop
        self.rng = rng
        self.pacer = Pacer(rate, BURST)
        self.recent: deque[Frame] = deque(maxlen=6)
        self.pending: dict[int | str, Frame] = {}
        self.acts: dict[int | str, tuple[str, str, dict[str, Any]]] = {}
        self.player: str | None = None
        self.flooded_at = -1e9
        self.provoked: tuple[int, float] | None = None  # (close code, when)

    async def run(self) -> None:
        while not self.stop.is_set():
            try:
                await self.session()
            except Exception as exc:  # a bug here must not end the soak; count it
                self.tally.connect_failures[f"client_{type(exc).__name__}"] += 1
                await asyncio.sleep(0.5)

    # --- one connection ------------------------------------------------------------------

    async def session(self) -> None:
        if self.rng.random() < 0.02:
            await self._bad_handshake()
        subprotocol = self.rng.choice(SUBPROTOCOLS)
        try:
            ws = await websockets.connect(self.url, subprotocols=[subprotocol], max_size=None,
                                          compression=None, open_timeout=15, ping_interval=None,
                                          close_timeout=3)
        except Exception as exc:
            self.tally.connect_failures[type(exc).__name__] += 1
            await asyncio.sleep(0.5)
            return
        self.tally.connections += 1
        me = Me(subprotocol)
        self.pending.clear()
        self.acts.clear()
        self.player = None
        self.provoked = None
        reader = asyncio.create_task(self._read(ws, me))
        try:
            await self._fuzz(ws, me, reader)
        finally:
            if self.provoked is not None and not reader.done():
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(asyncio.shield(reader), CLOSE_WAIT)
                if not reader.done():
                    self.tally.missing_closes[str(self.provoked[0])] += 1
            ours = not reader.done()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(ws.close(), 5)
            with contextlib.suppress(BaseException):
                await reader
            self._closed(ws, ours, me)

    async def _bad_handshake(self) -> None:
        """Offer no subprotocol the server knows: the handshake must be refused (400)."""
        try:
            ws = await websockets.connect(self.url, subprotocols=[self.rng.choice(("cardroom.xml", "chat"))],
                                          open_timeout=15)
        except websockets.InvalidStatus as exc:
            if exc.response.status_code == 400:
                self.tally.handshakes_refused += 1
            else:
                self.tally.connect_failures[f"status_{exc.response.status_code}"] += 1
            return
        except Exception as exc:
            self.tally.connect_failures[type(exc).__name__] += 1
            return
        self.tally.connect_failures["bad_subprotocol_accepted"] += 1
        await ws.close()

    async def _fuzz(self, ws: ClientConnection, me: Me, reader: asyncio.Task[None]) -> None:
        if self.rng.random() < 0.9:
            await self._hello(ws, me)
        budget = self.rng.randint(100, 800)  # frames before this connection is closed and opened anew
        while budget > 0 and not self.stop.is_set() and not reader.done():
            frames = self.maker.next(me, self.world)
            flood = len(frames) > 1
            for frame in frames:
                if not flood:
                    await self.pacer.wait()
                if reader.done() or not await self._send(ws, frame):
                    return
                budget -= 1
                if frame.closes is not None:
                    self.provoked = (frame.closes, time.monotonic())
                    return
            if flood:
                self.flooded_at = time.monotonic()
                await asyncio.sleep(2.5)  # let the server's bucket refill (or its 1008 arrive)

    async def _hello(self, ws: ClientConnection, me: Me) -> None:
        msg: dict[str, Any] = {"t": "hello", "ref": me.new_ref()}
        if me.token is None and self.world.tokens and self.rng.random() < 0.15:
            msg["token"] = self.rng.choice(self.world.tokens)
        else:
            msg["name"] = random_name(self.rng)
        me.said_hello = True
        await self.pacer.wait()
        await self._send(ws, self.maker.frame(me, msg, "hello"))

    async def _send(self, ws: ClientConnection, frame: Frame) -> bool:
        """Send one frame; False once the connection is gone."""
        self.recent.append(frame)
        if frame.ref is not None:
            self.pending[frame.ref] = frame
            if len(self.pending) > PENDING_KEPT:
                del self.pending[next(iter(self.pending))]
        self._note_act(frame)
        self.tally.frames += 1
        self.tally.bytes_sent += frame.size()
        self.tally.families[frame.label.split(":")[0]] += 1
        try:
            if isinstance(frame.data, list):
                await ws.send(frame.data)
            else:
                await ws.send(frame.data, text=frame.text)
        except websockets.ConnectionClosed:
            return False
        return True

    def _note_act(self, frame: Frame) -> None:
        """Remember what an ``act`` asked, so that its ack can be checked and replayed."""
        if frame.ref is None or not frame.label.startswith(("state", "replay", "fields", "values")):
            return
        with contextlib.suppress(Exception):
            msg = json.loads(frame.data) if frame.text else msgpack.unpackb(frame.data, raw=False)
            if isinstance(msg, dict) and msg.get("t") == "act" and isinstance(msg.get("action"), dict):
                self.acts[frame.ref] = (msg.get("room"), msg.get("id"), msg["action"])

    # --- reading -----------------------------------------------------------------------------

    async def _read(self, ws: ClientConnection, me: Me) -> None:
        try:
            async for raw in ws:
                try:
                    msg = decode(me.subprotocol, raw)
                except Exception:
                    self.tally.undecodable += 1
                    continue
                if isinstance(msg, dict):
                    self._on_message(me, msg)
                else:
                    self.tally.undecodable += 1
        except websockets.ConnectionClosed:
            pass

    def _on_message(self, me: Me, msg: dict[str, Any]) -> None:
        t = msg.get("t")
        kind = str(msg.get("code")) if t == "error" else str(t)
        self.tally.replies[kind] += 1
        ref = msg.get("ref")
        frame = self.pending.pop(ref, None) if isinstance(ref, int | str) and t != "event" else None
        if kind == "internal_error":
            self.tally.example(self.tally.internal_errors, {
                "frame": frame.excerpt(400) if frame else None, "label": frame.label if frame else None,
                "reply": msg, "recent": [f.excerpt(160) for f in self.recent]})
        if frame is not None and frame.expect is not None and not frame.expect.accepts(kind):
            self.tally.mismatches[f"{frame.label} -> {kind}"] += 1
            self.tally.example(self.tally.mismatch_examples, {
                "label": frame.label, "frame": frame.excerpt(300), "reply": _short(msg)})
        handler = getattr(self, f"_on_{t}", None) if isinstance(t, str) else None
        if handler is not None:
            handler(me, msg, frame)

    def _on_welcome(self, me: Me, msg: dict[str, Any], frame: Frame | None) -> None:
        me.authenticated = True
        me.token = msg.get("token")
        self.player = msg.get("player")
        if me.token and len(self.world.tokens) < 2000:
            self.world.tokens.append(me.token)
        for seat in msg.get("seats") or ():
            me.seated[seat["room"]] = seat["seat"]

    def _on_room(self, me: Me, msg: dict[str, Any], frame: Frame | None) -> None:
        room, game = msg.get("room"), msg.get("game")
        if not isinstance(room, str) or not isinstance(game, str):
            return
        self.world.add_room(room, game)
        if isinstance(msg.get("code"), str):
            self.world.codes[room] = msg["code"]
        if frame is not None and frame.label.startswith("create"):
            me.created.append(room)
        if msg.get("your_seat") is not None:
            me.seated[room] = msg["your_seat"]
        else:
            me.seated.pop(room, None)

    def _on_left(self, me: Me, msg: dict[str, Any], frame: Frame | None) -> None:
        if not msg.get("pending"):
            me.seated.pop(msg.get("room"), None)

    def _on_ack(self, me: Me, msg: dict[str, Any], frame: Frame | None) -> None:
        asked = self.acts.pop(msg.get("ref"), None) if frame is not None else None
        if asked is None or self.player is None:
            return
        room, aid, action = asked
        if room != msg.get("room") or aid != msg.get("id"):
            self.tally.example(self.tally.replay_mismatches, {"asked": [room, aid], "ack": msg})
            return
        me.acked.append((room, aid, action))
        del me.acked[:-64]
        clash = self.acks.check(self.player, room, aid, msg.get("version", -1))
        if clash is not None:
            self.tally.example(self.tally.replay_mismatches, {
                "player": self.player, "room": room, "id": aid, "first_version": clash[0],
                "acks_since": clash[1], "ack": msg})

    # --- closing -------------------------------------------------------------------------------

    def _closed(self, ws: ClientConnection, ours: bool, me: Me) -> None:
        """Sort the connection's end: closed by us, provoked on purpose, or unexpected."""
        code = ws.close_code if ws.close_code is not None else 1006
        reason = ws.close_reason or ""
        now = time.monotonic()
        if ours and code in (1000, 1001):
            self.tally.expected_closes["by_client"] += 1
            return
        provoked = self.provoked[0] if self.provoked else None
        if code == CLOSE_POLICY and "rate limit" in reason and now - self.flooded_at < 30:
            self.tally.expected_closes["1008_after_flood"] += 1
        elif code == CLOSE_TOO_BIG and provoked == CLOSE_TOO_BIG:
            self.tally.expected_closes["1009_over_hard_limit"] += 1
        elif code == CLOSE_BAD_DATA and provoked == CLOSE_BAD_DATA:
            self.tally.expected_closes["1007_invalid_utf8"] += 1
        elif code == CLOSE_POLICY and reason == "no hello" and not me.authenticated:
            self.tally.expected_closes["1008_no_hello_in_time"] += 1
        elif code == 1001 and self.stop.is_set():
            self.tally.expected_closes["1001_shutdown"] += 1
        else:
            self.tally.unexpected_closes[str(code)] += 1
            self.tally.example(self.tally.close_examples, {
                "code": code, "reason": reason, "recent": [f.excerpt(200) for f in self.recent]})


def _short(msg: dict[str, Any]) -> dict[str, Any]:
    """A reply cut down for the report (a room snapshot is long)."""
    return {k: (v if len(repr(v)) < 200 else repr(v)[:200] + "...") for k, v in msg.items()}
