"""The room actor: one asyncio task and one command queue per room.

The actor is the only code that changes a room. For each command it works on a copy
of the table, writes the result to Redis (snapshot, version and events in one atomic,
version-checked script: *durable before visible*), and only then swaps the copy in,
answers the requester and broadcasts to the viewers. A command that fails, for any
reason, changes nothing: the room keeps its last persisted state.

Between commands the actor wakes for its own deadlines: a turn clock running out
(the engine's timeout action), a leaving player's turn (played at once), a bot seat's
turn (after the room's bot delay), and the start of the next hand.

A bot seat acts through the same path as a person: the actor asks the strategy in
:mod:`engine.bots` for an action on the seat's own view, then runs an ordinary ``act``
command for the bot's player id (same validation, persistence, events and answer).
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from engine import bots
from engine.errors import IllegalAction
from engine.game import Event, Game, event_for

from . import table as tbl
from .metrics import Metrics
from .protocol import ProtocolError, error_message
from .store import InsufficientFunds, Store, VersionConflict

log = logging.getLogger(__name__)

_rng = secrets.SystemRandom()


class Viewer(Protocol):
    """A connection watching rooms (see :class:`server.session.Session`)."""

    player_id: str | None
    name: str | None

    def send(self, msg: dict[str, Any]) -> None: ...


class Host(Protocol):
    """What a room needs from the rest of the server."""

    def is_online(self, player: str) -> bool: ...

    def lobby_changed(self) -> None: ...


@dataclass
class Command:
    kind: str  # join, leave, sit_out, sit_in, act
    viewer: Viewer
    msg: dict[str, Any]
    enqueued: float = field(default_factory=time.perf_counter)
    done: asyncio.Future[None] | None = None


@dataclass
class Outcome:
    """The result of a command on the table copy, before it is persisted."""

    table: tbl.Table
    events: list[Event]
    deltas: dict[str, int] = field(default_factory=dict)
    reply: Callable[[dict[str, int]], dict[str, Any] | None] | None = None
    reply_is_snapshot: bool = False


_STOP = object()


class BotViewer:
    """The "connection" a bot seat's commands come from: it keeps the replies it gets."""

    def __init__(self, player_id: str, name: str) -> None:
        self.player_id: str | None = player_id
        self.name: str | None = name
        self.replies: list[dict[str, Any]] = []

    def send(self, msg: dict[str, Any]) -> None:
        self.replies.append(msg)


def epoch_ms() -> int:
    return int(time.time() * 1000)


def shuffled_deck(size: int) -> list[int]:
    deck = list(range(size))
    _rng.shuffle(deck)
    return deck


class Room:
    def __init__(
        self,
        game: Game,
        table: tbl.Table,
        store: Store,
        host: Host,
        metrics: Metrics,
        clock: Callable[[], int] = epoch_ms,
        deck: Callable[[int], list[int]] = shuffled_deck,
    ) -> None:
        self.game = game
        self.table = table
        self.store = store
        self.host = host
        self.metrics = metrics
        self.clock = clock
        self.deck = deck
        self.viewers: set[Viewer] = set()
        self.queue: asyncio.Queue[Any] = asyncio.Queue()
        self.task: asyncio.Task[None] | None = None
        self.closed = False
        self._retry_at_ms = 0  # after an automatic step failed, wait before trying again
        self._start_refused_at: int | None = None  # table version at which new_hand refused to deal
        self._bot_rngs: dict[int, random.Random] = {}  # per bot seat, seeded from the system RNG

    @property
    def id(self) -> str:
        return self.table.room

    # --- lifecycle ---------------------------------------------------------------

    def start(self) -> None:
        self.task = asyncio.create_task(self._loop(), name=f"room {self.id}")

    async def stop(self) -> None:
        """Finish the queued commands, then stop (the state is already persisted)."""
        if self.closed:
            return
        self.closed = True
        await self.queue.put(_STOP)
        if self.task is not None:
            await self.task

    def submit(self, kind: str, viewer: Viewer, msg: dict[str, Any]) -> asyncio.Future[None]:
        """Queue a command; the returned future resolves once it is answered."""
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        if self.closed:
            viewer.send(error_message("unavailable", "the server is shutting down", msg.get("ref")))
            done.set_result(None)
            return done
        self.queue.put_nowait(Command(kind, viewer, msg, done=done))
        return done

    async def _loop(self) -> None:
        while True:
            await self._auto_steps()
            wake = tbl.next_wakeup_ms(self.table, self.game)
            if not tbl.playing(self.table) and self._start_refused_at == self.table.version:
                wake = None  # nothing to do until a command changes the table
            if wake is not None:
                wake = max(wake, self._retry_at_ms)
            timeout = None if wake is None else max(0.0, (wake - self.clock()) / 1000)
            try:
                cmd = await asyncio.wait_for(self.queue.get(), timeout)
            except TimeoutError:
                continue
            if cmd is _STOP:
                return
            try:
                await self._execute(cmd)
            except Exception:  # never let one command kill the actor
                log.exception("room %s: command %s failed after it was stored", self.id, cmd.kind)
            finally:
                if cmd.done is not None and not cmd.done.done():
                    cmd.done.set_result(None)

    async def _auto_steps(self) -> None:
        for _ in range(1000):  # a hand always ends; the bound only guards against an engine bug
            now = self.clock()
            if now < self._retry_at_ms:
                return
            step = tbl.due(self.table, self.game, now)
            if step == "start" and self._start_refused_at == self.table.version:
                return  # the engine refused these seats; wait until the table changes
            if step is None:
                return
            try:
                if step == "bot":
                    ok = await self._bot_turn()
                else:
                    ok = await self._commit(self._auto(step, now), None, None)
            except Exception:
                log.exception("room %s: automatic step %s failed", self.id, step)
                ok = False
            if not ok:
                if self._start_refused_at != self.table.version:
                    self._retry_at_ms = self.clock() + 1000
                return

    # --- bot seats ---------------------------------------------------------------

    async def _bot_turn(self) -> bool:
        """Play the turn of the bot seat to act; True once an action was stored.

        The strategy sees only the seat's view. If it fails, answers nothing, or its
        action is refused, that is logged and the game's timeout action is played
        instead (through the same path); if even that fails, the turn clock still runs.
        """
        t = self.table
        seat = tbl.bot_to_act(t)
        if seat is None:
            return False
        info = t.seats[seat]
        assert info is not None
        strategy = t.options.get("bot_strategy", bots.NAMES[0])
        rng = self._bot_rngs.setdefault(seat, random.Random(_rng.getrandbits(64)))
        try:
            action = bots.decide(self.game.name, strategy, self.game.view(t.hand, seat), rng)
        except Exception:
            log.exception("room %s: bot strategy %s failed for seat %d", self.id, strategy, seat)
            action = None
        if action is not None:
            refused = await self._bot_act(info, action)
            if refused is None:
                return True
            log.error("room %s: bot in seat %d chose %r, refused (%s); playing the timeout action",
                      self.id, seat, action, refused)
        else:
            log.error("room %s: bot strategy %s gave no action for seat %d; playing the timeout action",
                      self.id, strategy, seat)
        fallback = self.game.timeout_action(self.table.hand, seat)
        refused = await self._bot_act(info, fallback)
        if refused is not None:
            log.error("room %s: bot in seat %d: timeout action %r refused (%s)", self.id, seat, fallback, refused)
            return False
        return True

    async def _bot_act(self, info: tbl.SeatInfo, action: dict[str, Any]) -> str | None:
        """Run an ``act`` command for a bot; None when acknowledged, else the error code."""
        viewer = BotViewer(info.player, info.name)
        msg = {"t": "act", "room": self.id, "action": action, "id": f"bot-v{self.table.version}"}
        await self._execute(Command("act", viewer, msg))
        if any(r.get("t") == "ack" for r in viewer.replies):
            return None
        errors = [r.get("code", "?") for r in viewer.replies if r.get("t") == "error"]
        return errors[0] if errors else "no_answer"

    # --- commands ----------------------------------------------------------------

    async def _execute(self, cmd: Command) -> None:
        ref = cmd.msg.get("ref")
        started = cmd.enqueued
        try:
            outcome = self._handle(cmd)
        except (ProtocolError, IllegalAction) as exc:
            self._reply_error(cmd, exc.code, exc.message, getattr(exc, "field", None))
            return
        except Exception:
            log.exception("room %s: command %s failed", self.id, cmd.kind)
            self._reply_error(cmd, "internal_error", "the server failed to process this request; nothing changed")
            return
        if outcome is None:  # answered without a change (e.g. a duplicate action id)
            return
        ok = await self._commit(outcome, cmd, ref)
        if cmd.kind == "act" and ok:
            self.metrics.actions.labels("accepted").inc()
            self.metrics.action_latency.observe(time.perf_counter() - started)

    def _reply_error(self, cmd: Command, code: str, message: str, field: str | None = None) -> None:
        if cmd.kind == "act":
            self.metrics.actions.labels("error" if code == "internal_error" else "rejected").inc()
        self.metrics.errors.labels(code).inc()
        cmd.viewer.send(error_message(code, message, cmd.msg.get("ref"), field, room=self.id))

    def _handle(self, cmd: Command) -> Outcome | None:
        """Run a command against a copy of the table (raises to reject it)."""
        t = tbl.clone(self.table)
        player = cmd.viewer.player_id
        assert player is not None
        seat = tbl.seat_of(t, player)
        ref = cmd.msg.get("ref")
        now = self.clock()
        if cmd.kind == "join":
            buy_in = cmd.msg.get("buy_in", t.options["buy_in_default"])
            _, events = tbl.sit(t, player, cmd.viewer.name or "?", cmd.msg.get("seat"), buy_in)

            def seated(wallets: dict[str, int]) -> dict[str, Any]:
                self.watch(cmd.viewer)  # stored: from now on the joiner watches the room
                return self.snapshot(cmd.viewer, ref)

            return Outcome(t, events, {player: -buy_in}, seated, True)
        if cmd.kind == "leave":
            if seat is None:
                if cmd.viewer not in self.viewers:
                    raise ProtocolError("not_seated", "you neither sit nor watch in this room")
                self.unwatch(cmd.viewer)
                cmd.viewer.send(_with_ref({"t": "left", "room": self.id, "seat": None, "pending": False}, ref))
                return None
            if t.seats[seat].leaving:  # asked twice: still pending, nothing new
                cmd.viewer.send(_with_ref({"t": "left", "room": self.id, "seat": seat, "pending": True,
                                           "stack": 0, "wallet": None}, ref))
                return None
            pending, stack, events = tbl.leave(t, seat)
            return Outcome(t, events, {player: stack}, lambda w: _with_ref({
                "t": "left", "room": self.id, "seat": seat, "pending": pending, "stack": stack,
                "wallet": w.get(player),
            }, ref))
        if seat is None:
            raise ProtocolError("not_seated", "you hold no seat in this room")
        if cmd.kind == "sit_out":
            return Outcome(t, tbl.sit_out(t, seat), {}, lambda w: self.snapshot(cmd.viewer, ref), True)
        if cmd.kind == "sit_in":
            return Outcome(t, tbl.sit_in(t, seat), {}, lambda w: self.snapshot(cmd.viewer, ref), True)
        if cmd.kind == "act":
            action_id = cmd.msg["id"]
            version = tbl.find_answer(t, player, action_id)
            if version is not None:
                self.metrics.actions.labels("duplicate").inc()
                cmd.viewer.send(_with_ref({"t": "ack", "room": self.id, "id": action_id, "version": version}, ref))
                return None
            if not tbl.playing(t):
                raise ProtocolError("no_hand", "no hand is being played in this room")
            events = tbl.act(t, self.game, seat, cmd.msg["action"], now)
            tbl.remember_answer(t, player, action_id, t.version + 1)
            return Outcome(t, events, {}, lambda w: _with_ref(
                {"t": "ack", "room": self.id, "id": action_id, "version": t.version}, ref))
        raise AssertionError(f"unknown room command {cmd.kind}")

    def _auto(self, step: str, now: int) -> Outcome | None:
        t = tbl.clone(self.table)
        try:
            if step == "start":
                try:
                    events = tbl.start_hand(t, self.game, self.deck(self.game.deck_size), now)
                except ValueError as exc:  # includes ConfigError: e.g. too few stacks cover the ante
                    log.warning("room %s: cannot deal a hand with these seats: %s", self.id, exc)
                    self._start_refused_at = self.table.version
                    return None
                self.metrics.hands.labels(self.game.name).inc()
            else:
                if step == "timeout":
                    self.metrics.timeouts.inc()
                events = tbl.play_for(t, self.game, now, step)
        except Exception:
            log.exception("room %s: automatic step %s failed", self.id, step)
            return None
        return Outcome(t, events)

    async def _commit(self, outcome: Outcome | None, cmd: Command | None, ref: Any) -> bool:
        """Persist the draft table, then make it current, answer and broadcast."""
        if outcome is None:
            return False
        t = outcome.table
        before = self.lobby_summary()
        t.version = self.table.version + 1
        try:
            wallets = await self.store.commit(
                self.id, self.game.name, self.table.version, tbl.to_dict(t, self.game),
                outcome.events, _merge_deltas(outcome.deltas, outcome.events),
                tbl.granted_chips(outcome.events),
            )
        except InsufficientFunds:
            if cmd is not None:
                self._reply_error(cmd, "insufficient_funds", "your wallet holds less than the buy-in")
            return False
        except VersionConflict as exc:
            log.error("room %s: %s; reloading from Redis", self.id, exc)
            await self._reload()
            if cmd is not None:
                self._reply_error(cmd, "internal_error", "the room changed underneath; nothing changed, try again")
            return False
        except Exception:
            log.exception("room %s: persisting failed", self.id)
            if cmd is not None:
                self._reply_error(cmd, "internal_error", "the server could not store this change; nothing changed")
            return False
        self.table = t
        try:
            if cmd is not None and outcome.reply is not None:
                reply = outcome.reply(wallets)
                if reply is not None:
                    cmd.viewer.send(reply)
            self._broadcast(outcome.events, cmd.viewer if cmd and outcome.reply_is_snapshot else None)
            self._notify_departures(outcome.events, wallets, cmd)
        except Exception:  # the change is stored; a failure to render it must not lose it
            log.exception("room %s: telling viewers about version %d failed", self.id, t.version)
        if self.lobby_summary() != before:
            self.host.lobby_changed()
        return True

    async def _reload(self) -> None:
        snap = await self.store.load_room(self.id)
        if snap is not None:
            self.table = tbl.from_dict(snap, self.game)

    def _notify_departures(self, events: list[Event], wallets: dict[str, int], cmd: Command | None) -> None:
        """Tell players stood up by the table (end of hand) that they left, with their wallet."""
        for e in events:
            if e.get("type") != "left" or (cmd is not None and cmd.kind == "leave"):
                continue
            player = e["player"]
            msg = {
                "t": "left", "room": self.id, "seat": e["seat"], "pending": False,
                "stack": e["stack"], "wallet": wallets.get(player), "reason": e["reason"],
            }
            for v in list(self.viewers):
                if v.player_id == player:
                    v.send(msg)
                    if e["reason"] == "left":
                        self.unwatch(v)
        if cmd is not None and cmd.kind == "leave":
            if any(e.get("type") == "left" for e in events):
                for v in list(self.viewers):
                    if v.player_id == cmd.viewer.player_id:
                        self.unwatch(v)

    # --- views -------------------------------------------------------------------

    def _broadcast(self, events: list[Event], already_has_snapshot: Viewer | None) -> None:
        t = self.table
        for v in list(self.viewers):
            seat = tbl.seat_of(t, v.player_id) if v.player_id else None
            for e in events:
                v.send({"t": "event", "room": self.id, "version": t.version, "event": event_for(e, seat)})
            if v is not already_has_snapshot:
                v.send(self.snapshot(v))

    def refresh_viewers(self) -> None:
        """Send every viewer a fresh snapshot (e.g. someone's connection status changed)."""
        try:
            for v in list(self.viewers):
                v.send(self.snapshot(v))
        except Exception:
            log.exception("room %s: refreshing viewers failed", self.id)

    def snapshot(self, viewer: Viewer, ref: Any = None) -> dict[str, Any]:
        """The ``room`` message for one viewer."""
        t = self.table
        seat = tbl.seat_of(t, viewer.player_id) if viewer.player_id else None
        view = None
        if t.hand is not None:
            dealt = seat is not None and seat < len(t.hand.stacks) and t.hand.stacks[seat] is not None
            view = self.game.view(t.hand, seat if dealt else None)
        playing = tbl.playing(t)
        timer = None
        if playing and t.hand.to_act is not None and t.deadline_ms is not None:
            timer = {"seat": t.hand.to_act, "deadline_ms": t.deadline_ms}
        seats = []
        for i, s in enumerate(t.seats):
            if s is None:
                seats.append(None)
                continue
            seats.append({
                "player": s.player, "name": s.name, "stack": tbl.live_stack(t, i),
                "connected": s.bot or self.host.is_online(s.player), "sitting_out": s.sitting_out,
                "leaving": s.leaving, "bot": s.bot,
            })
        return _with_ref({
            "t": "room", "room": self.id, "game": t.game, "name": t.options["name"],
            "version": t.version, "options": t.options, "config": t.config, "seats": seats,
            "your_seat": seat, "button": t.button, "hand_no": t.hand_no, "playing": playing,
            "view": view, "timer": timer, "next_hand_ms": None if playing else t.next_hand_ms,
        }, ref)

    def watch(self, viewer: Viewer) -> None:
        """``viewer`` receives this room's events and snapshots from now on."""
        self._set_viewers(self.viewers | {viewer})

    def unwatch(self, viewer: Viewer) -> None:
        self._set_viewers(self.viewers - {viewer})

    def _set_viewers(self, viewers: set[Viewer]) -> None:
        before = self.spectators()
        self.viewers = viewers
        if self.spectators() != before:
            self.host.lobby_changed()

    def spectators(self) -> int:
        """How many players watch without a seat."""
        seated = {s.player for s in self.table.seats if s is not None}
        return len({v.player_id for v in self.viewers} - seated)

    def lobby_summary(self) -> dict[str, Any]:
        t = self.table
        return {
            "room": self.id, "game": t.game, "name": t.options["name"], "seats": len(t.seats),
            "players": sum(1 for s in t.seats if s is not None), "playing": tbl.playing(t),
            "bots": sum(1 for s in t.seats if s is not None and s.bot),
            "spectators": self.spectators(), "config": t.config,
        }


def _with_ref(msg: dict[str, Any], ref: Any) -> dict[str, Any]:
    if ref is not None:
        msg["ref"] = ref
    return msg


def _merge_deltas(own: dict[str, int], events: list[Event]) -> dict[str, int]:
    """Wallet transfers of a change: the command's own plus every stood-up seat's stack.

    Busted players get a zero entry so their wallet comes back with the commit.
    """
    out = dict(own)
    for e in events:
        if e.get("type") == "left" and e.get("player") not in out:
            out[e["player"]] = e.get("stack", 0)
    return out
