"""The soak's players: seated bots that play at a person's pace and behave as a careful
client does through every fault.

A :class:`SoakPlayer` thinks before each action (:data:`THINK`), keeps every request it has
not had an answer to and sends it again, with the same action id, after ``unavailable``,
silence or a lost connection (so an action the server applied is acknowledged to its player
in the end, whatever broke in between), reconnects to any server and resumes with its token
for as long as the soak runs, takes the room's state as the server sends it (a snapshot
older than one it saw included: after a fault the room may have gone back), takes its seat
back when it finds it sitting out or handed to the server's auto-play (which the server
switches on for a seat whose player was away a while), and asks for the room again
(``sync``) when it has heard nothing of it for a while. Every change of its room it learns
of is reported to a :class:`Progress`, which the fault records read to say when each room resumed.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from websockets.exceptions import WebSocketException

from tests.fault.fleet import Bot

#: seconds a player thinks before acting, drawn uniformly
THINK = (0.5, 2.5)
#: ask for the room again after this long without news of it
QUIET_SYNC_SECONDS = 20.0


class Progress:
    """The newest version of each room any of its players has seen, and when it changed;
    ``watchers`` are called with ``(room, monotonic time)`` on every change."""

    def __init__(self) -> None:
        self.versions: dict[str, int] = {}
        self.changed_at: dict[str, float] = {}
        self.watchers: list[Callable[[str, float], None]] = []

    def saw(self, room: str, version: int) -> None:
        if version != self.versions.get(room):
            now = time.monotonic()
            self.versions[room] = version
            self.changed_at[room] = now
            for watch in list(self.watchers):
                watch(room, now)


class SoakPlayer(Bot):
    progress = Progress()  # the soak's own, set before play

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.waits: list[float] = []  # seconds from an action's first send to its answer
        self.resends = 0  # sends of an id already sent (after unavailable, silence or a lost connection)
        self.took_back = 0  # times it found its seat sitting out or auto-played and took it back
        self._took_back = 0  # the version it last did so at
        self.syncs = 0  # rooms asked for again after a quiet spell
        self.reconnect_waits: list[float] = []  # seconds each reconnection took
        self.went_back_to = 0  # snapshots taken that were older than one seen before
        self._ready_at: tuple[int, float] | None = None  # (version, when it will act on it)
        self.asking: tuple[str, float, int] | None = None  # (action id, first sent, sends) until answered
        self._heard_at = time.monotonic()

    async def play(self, until: Callable[[Any], bool] = lambda _p: False) -> None:
        while not self.stop.is_set() and not until(self):
            try:
                await self._step()
            except (WebSocketException, OSError, TimeoutError):
                await self.reconnect()

    async def reconnect(self) -> None:
        """To the next server that lets it in, for as long as it takes (each server's
        relay in turn): a player whose server is down or paused keeps trying."""
        started = time.monotonic()
        attempt = 0
        while True:
            self.home = (self.home + 1) % len(self.urls)
            try:
                await asyncio.wait_for(self.connect(), 15)
                break
            except (OSError, WebSocketException, TimeoutError, AssertionError):
                # (refused; closed by a relay whose server is down; a handshake cut short)
                attempt += 1
                await asyncio.sleep(min(2.0, 0.1 * attempt))
        self.reconnects += 1
        self.reconnect_waits.append(time.monotonic() - started)
        self._heard_at = time.monotonic()

    async def _step(self) -> None:
        assert self.client is not None and self.room is not None
        wait = 0.5
        if self._ready_at is not None:
            wait = max(0.0, min(wait, self._ready_at[1] - time.monotonic()))
        try:
            msg = await self.client.expect(None, timeout=wait) if wait > 0 else None
        except TimeoutError:
            msg = None
        if msg is not None:
            self._note(msg)
        elif time.monotonic() - self._heard_at > QUIET_SYNC_SECONDS:
            self.syncs += 1
            self._heard_at = time.monotonic()
            await self.client.send({"t": "sync", "room": self.room})
        snap = self.latest
        if snap is None:
            return
        seat = (snap.get("seats") or [])[snap["your_seat"]] if snap.get("your_seat") is not None else None
        if seat and (seat.get("sitting_out") or seat.get("auto")) and self._took_back != snap["version"]:
            # sat out, or handed to auto-play (its clock ran out twice, or it had no connection
            # for a while): take the seat back, as a person coming back to the table does
            self._took_back = snap["version"]
            self.took_back += 1
            await self.client.send({"t": "auto_play", "room": self.room, "on": False} if seat.get("auto")
                                   else {"t": "sit_in", "room": self.room})
            return
        view = snap["view"]
        if (not snap["playing"] or view is None or view.get("to_act") != snap["your_seat"]
                or view.get("legal") is None or snap["version"] <= self.acted_on):
            self._ready_at = None
            return
        if self._ready_at is None or self._ready_at[0] != snap["version"]:
            self._ready_at = (snap["version"], time.monotonic() + self.rng.uniform(*THINK))
            return
        if time.monotonic() < self._ready_at[1]:
            return
        self._ready_at = None
        action = super()._choose(view)
        if action is not None:
            await self._act(action, f"{self.name}-v{snap['version']}")

    async def _act(self, action: dict[str, Any], action_id: str) -> None:
        """Send until answered, the same id every time; a lost connection is reconnected
        and the action sent again (the server answers an id it applied with its first
        answer). Ends when the server answers, even after the soak asked it to stop."""
        assert self.latest is not None
        version = self.latest["version"]
        self.sent[action_id] = action
        started = time.monotonic()
        sends = 0
        while True:
            sends += 1
            self.asking = (action_id, started, sends)
            try:
                reply = await self.request({"t": "act", "room": self.room, "action": action, "id": action_id})
            except TimeoutError:
                continue
            except (WebSocketException, OSError):
                await self.reconnect()
                continue
            finally:
                self.resends += sends > 1
            if reply["t"] == "ack":
                self.acks.append(reply)
                self.acted_on = version
                self.ack_times.append((time.monotonic(), reply["version"]))
                self.progress.saw(self.room, reply["version"])
                break
            self.errors.append(reply)
            if reply.get("code") != "unavailable":
                break  # e.g. not_your_turn: the room moved on without it (a timeout, auto-play)
            await asyncio.sleep(0.2)
        self.waits.append(time.monotonic() - started)
        self.asking = None

    def state(self) -> str:
        """What it is doing, for a report of a seat that stopped playing."""
        snap = self.latest or {}
        view = snap.get("view") or {}
        if self.task is not None and self.task.done():
            doing = f"stopped: {self.task.exception()!r}"
        elif self.asking is not None:
            aid, since, sends = self.asking
            doing = f"waiting {time.monotonic() - since:.0f} s for the answer to {aid} (sent {sends} times)"
        else:
            doing = f"acted on v{self.acted_on}"
        last = self.errors[-1] if self.errors else None
        return (f"{self.name} on {self.urls[self.home]}: v{snap.get('version')}, seat {snap.get('your_seat')}, "
                f"to act {view.get('to_act')}, {doing}, {self.reconnects} reconnections"
                + (f", last error {last.get('code')}" if last else ""))

    def _note(self, msg: dict[str, Any]) -> None:
        if msg.get("room") != self.room:
            super()._note(msg)
            return
        self._heard_at = time.monotonic()
        if msg.get("t") == "room":
            if self.latest is not None and msg["version"] < self.latest["version"]:
                # the room went back (what Redis lost, nobody could put back): play on from it
                self.went_back.append((self.latest["version"], msg["version"]))
                self.went_back_to += 1
                self.latest = None
                self.acted_on = min(self.acted_on, msg["version"] - 1)
            self.progress.saw(self.room, msg["version"])
        super()._note(msg)
