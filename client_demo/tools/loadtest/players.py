"""The players of ``cardroom loadtest``: one connection per seat, acting the moment it may.

A :class:`Player` acts when its latest ``room`` snapshot says it is to act
(``view.to_act == your_seat``), with ``engine.bots.decide``, after thinking when ``think``
is given (a wait drawn anew each time, uniformly between half and one and a half times
``think``: people at a few hundred tables do not act in step), at most once per snapshot version (action id ``v<version>``) and never while its
previous ``act`` awaits the ``ack``. A player stood up as busted (``left`` with reason
``busted``) joins again. :func:`open_room` creates a room and seats one player per seat.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from engine.bots import decide

from .conn import Connection

#: a player buys in for this many of its game's practice stacks (Hold'em's 200 chips:
#: 5,000), so that busting is rare
BUY_IN_STACKS = 25
#: room options: no pause between hands, a turn clock nobody runs into
ROOM_OPTIONS = {"between_hands_seconds": 0, "action_seconds": 60}


def table_config(game: str) -> dict[str, Any]:
    """The config the load test's rooms of ``game`` are created with: the game's practice
    table (:class:`engine.game.Practice`)."""
    from engine.registry import installed

    return dict(installed()[game].practice.config)


def default_seats(game: str) -> int:
    """Seats per room when ``--seats`` is not given: the game's practice table's."""
    from engine.registry import installed

    return installed()[game].practice_seats


def buy_in(game: str) -> int:
    """What each player of ``game`` buys in for (see :data:`BUY_IN_STACKS`)."""
    from engine.registry import installed

    return BUY_IN_STACKS * installed()[game].practice.stack
RETRY_SECONDS = 0.1  # after an act answered with an error, decide again this much later
KEEP_VERSIONS = 64  # versions a BroadcastClock remembers


@dataclass
class PlayStats:
    """What every player of a run adds to. Nothing is counted before ``go``."""

    errors: Counter[str] = field(default_factory=Counter)
    acks: int = 0
    hands_started: int = 0
    hands: int = 0  # hand_ended events (one player per room counts them)
    rejoins: int = 0  # busted players who joined again
    ack_latencies: list[float] = field(default_factory=list)
    broadcast_latencies: list[float] = field(default_factory=list)
    in_flight: int = 0
    go: bool = False  # the measured period: players act only while it is set


class BroadcastClock:
    """Action-to-broadcast latency in one room.

    When an ``ack`` says which version an ``act`` produced, the act's send time is kept
    for that version; the first ``event`` of that version each *other* player of the
    room receives adds one sample: its arrival minus the send time. All clients share
    one process and one clock, so an event read before its ack is held until the ack.
    """

    def __init__(self, samples: list[float]) -> None:
        self.samples = samples
        self.sent: dict[int, tuple[float, Player]] = {}
        self.early: dict[int, list[tuple[Player, float]]] = {}

    def acked(self, version: int, sent_at: float, actor: Player) -> None:
        for receiver, at in self.early.pop(version, ()):
            if receiver is not actor:
                self.samples.append(at - sent_at)
        self.sent[version] = (sent_at, actor)
        _forget_oldest(self.sent)

    def arrived(self, version: int, receiver: Player, at: float) -> None:
        known = self.sent.get(version)
        if known is None:
            self.early.setdefault(version, []).append((receiver, at))
            _forget_oldest(self.early)
        elif known[1] is not receiver:
            self.samples.append(at - known[0])


def _forget_oldest(by_version: dict[int, Any]) -> None:
    if len(by_version) > KEEP_VERSIONS:
        del by_version[min(by_version)]


class Player(Connection):
    """One seat's connection (see the module docstring)."""

    def __init__(self, url: str, game: str, strategy: str, stats: PlayStats, *, seed: int,
                 think: float = 0.0, counts_hands: bool = False) -> None:
        super().__init__(url, stats.errors)
        self.game = game
        self.strategy = strategy
        self.stats = stats
        self.rng = random.Random(seed)
        self.think = think
        self.counts_hands = counts_hands  # one player per room counts hands
        self.room: str | None = None
        self.clock: BroadcastClock | None = None
        self.playing = False  # seated (or buying in again): act when it is our turn
        self.stopping = False
        self.snapshot: dict[str, Any] = {}
        self.last_event_version = 0
        self.acted_version = -1
        self.act_ref: int | None = None
        self.act_sent = 0.0
        self.join_ref: int | None = None
        self.thinking = False
        self.later: set[asyncio.Task[None]] = set()
        self.idle = asyncio.Event()  # set whenever no act awaits its ack
        self.idle.set()

    # ------------------------------------------------------------ incoming

    async def on_message(self, msg: dict[str, Any]) -> None:
        t = msg.get("t")
        ref = msg.get("ref")
        if ref is not None and ref == self.act_ref:
            await self._on_act_answer(msg)
        elif ref is not None and ref == self.join_ref:
            self.join_ref = None
            if t == "error":  # cannot buy in again: this seat stops playing
                self.errors[str(msg.get("code"))] += 1
                self.playing = False
            else:
                await self.on_room(msg)
        elif t == "event":
            self._on_event(msg)
        elif t == "room":
            await self.on_room(msg)
        elif t == "left" and msg.get("reason") == "busted" and msg.get("room") == self.room:
            await self._join_again()
        else:
            await super().on_message(msg)

    async def on_room(self, snap: dict[str, Any]) -> None:
        """Keep the newest snapshot of our room and act if it is our turn."""
        if snap.get("room") != self.room or snap.get("version", 0) < self.snapshot.get("version", 0):
            return
        self.snapshot = snap
        await self.maybe_act()

    def _on_event(self, msg: dict[str, Any]) -> None:
        version = msg.get("version", 0)
        if version > self.last_event_version and msg.get("room") == self.room:
            self.last_event_version = version
            if self.clock is not None and self.stats.go:
                self.clock.arrived(version, self, time.perf_counter())
        if self.counts_hands and self.stats.go:
            kind = (msg.get("event") or {}).get("type")
            if kind == "hand_ended":
                self.stats.hands += 1
            elif kind == "hand_started":
                self.stats.hands_started += 1

    async def _on_act_answer(self, msg: dict[str, Any]) -> None:
        if msg.get("t") == "ack":
            if self.stats.go:  # an ack read after the measured period counts for nothing
                self.stats.acks += 1
                self.stats.ack_latencies.append(time.perf_counter() - self.act_sent)
            if self.clock is not None:
                self.clock.acked(msg.get("version", 0), self.act_sent, self)
            self._act_done()
            return
        self.errors[str(msg.get("code"))] += 1
        self._act_done()
        self.acted_version = -1  # decide again (same id: a rejected action is not remembered)
        self._later(RETRY_SECONDS)

    def _act_done(self) -> None:
        if self.act_ref is not None:
            self.act_ref = None
            self.stats.in_flight -= 1
        self.idle.set()

    def on_closed(self) -> None:
        self._act_done()
        self.playing = False

    # ------------------------------------------------------------ acting

    def _my_turn(self) -> bool:
        snap = self.snapshot
        view = snap.get("view")
        return (self.stats.go and self.playing and not self.stopping and self.act_ref is None
                and view is not None and snap.get("your_seat") is not None
                and view.get("to_act") == snap.get("your_seat")
                and snap.get("version", 0) > self.acted_version)

    async def maybe_act(self) -> None:
        """Act on the latest snapshot if it is our turn (after thinking, with ``think``)."""
        if self.thinking or not self._my_turn():
            return
        if self.think > 0:
            self.thinking = True
            self._later(self.think_delay())
            return
        await self._act()

    def think_delay(self) -> float:
        """How long to think this time: ``think`` on average, from half to one and a half
        times it (a fixed wait keeps every table of a run in step, which no room of people does)."""
        return self.think * self.rng.uniform(0.5, 1.5)

    def _later(self, delay: float) -> None:
        """Call :meth:`maybe_act` again in ``delay`` seconds (the end of thinking, a retry)."""
        async def wake() -> None:
            await asyncio.sleep(delay)
            if self.thinking:
                self.thinking = False
                if self._my_turn():
                    await self._act()
            else:
                await self.maybe_act()

        task = asyncio.create_task(wake())
        self.later.add(task)
        task.add_done_callback(self.later.discard)

    async def _act(self) -> None:
        snap = self.snapshot
        action = decide(self.game, self.strategy, snap["view"], self.rng)
        if action is None:
            return
        self.acted_version = snap["version"]
        self.act_ref = self.new_ref()
        self.stats.in_flight += 1
        self.idle.clear()
        self.act_sent = time.perf_counter()
        await self.send({"t": "act", "room": self.room, "action": action,
                         "id": f"v{self.acted_version}", "ref": self.act_ref})

    async def _join_again(self) -> None:
        if self.playing and not self.stopping and self.join_ref is None:
            self.stats.rejoins += 1
            self.join_ref = self.new_ref()
            await self.send({"t": "join", "room": self.room, "buy_in": buy_in(self.game), "ref": self.join_ref})

    async def close(self) -> None:
        self.stopping = True
        for task in list(self.later):
            task.cancel()
        await super().close()


async def open_room(urls: list[str], index: int, game: str, seats: int, strategy: str,
                    stats: PlayStats, think: float) -> list[Player]:
    """Connect ``seats`` players (connection ``index * seats + s`` to ``urls`` round-robin),
    create a room for ``game``, seat them all; closes them again if anything fails."""
    first = index * seats
    players = [Player(urls[(first + s) % len(urls)], game, strategy, stats, seed=first + s,
                      think=think, counts_hands=s == 0) for s in range(seats)]
    try:
        await asyncio.gather(*(p.open(f"load{index}s{s}") for s, p in enumerate(players)))
        created = await players[0].request({
            "t": "create_room", "game": game,
            "options": {**ROOM_OPTIONS, "seats": seats, "buy_in_default": buy_in(game)},
            "config": table_config(game)})
        clock = BroadcastClock(stats.broadcast_latencies)
        for p in players:
            p.room, p.clock = created["room"], clock
        for p in players:
            p.playing = True  # before the join: the hand may start in its reply
            await p.on_room(await p.request({"t": "join", "room": p.room, "buy_in": buy_in(game)}))
    except BaseException:
        await asyncio.gather(*(p.close() for p in players), return_exceptions=True)
        raise
    return players
