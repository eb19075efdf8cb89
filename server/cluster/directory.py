"""The room directory: where a room request is decided, and getting it there.

A room is decided by the process holding its lease (its *owner*). For a request, the
directory hands the command to the local :class:`~server.room.actor.RoomActor` if this
process owns the room; takes the room if nobody does (``acquire``: a new fencing token,
the snapshot loaded, timers re-armed with the time left); and otherwise forwards the
command to the owner's inbox (a Redis stream per process), which decides it and answers
the requesting connection through this process's inbox, or with the change itself.

A request decided by a local actor is answered by it, or handed back to be routed again
(the actor stopped, lost the lease, or failed). Every other request waits for its answer
with a timer. If the owner does not answer in
``forward_timeout`` (it died, or is frozen), the request is routed again: by then the
dead owner's lease may have run out and this process takes the room. After
``MAX_TRIES`` the client gets ``unavailable`` (an ``act`` may be resent with the same
id: it is applied at most once, by whichever process owns the room).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import random
import secrets
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from engine.game import Game

from ..aio import Background, single_flight
from ..config import Settings
from ..edge.protocol import error_message
from ..edge.session import OpenRequest, Session, Sessions
from ..metrics import Metrics
from ..room import table as tbl
from ..room.actor import Lease, RoomActor
from ..room.core import (
    Command,
    JoinCommand,
    Origin,
    RoomCore,
    command_from_wire,
    command_to_wire,
)
from ..room.log import RoomLogError, current_table
from ..room.view import RoomView, Views
from ..store import UNAVAILABLE, Acquired, Store, pack, unpack

log = logging.getLogger(__name__)

MAX_TRIES = 4
LOBBY_FLUSH_SECONDS = 0.2


class Directory:
    """This process's rooms, and the routing of room requests (also the actors' host)."""

    def __init__(self, node: str, store: Store, views: Views, sessions: Sessions, games: Mapping[str, Game],
                 settings: Settings, metrics: Metrics, clock: Callable[[], int],
                 deck: Callable[[int], list[int]] | None,
                 send_to_node: Callable[[str, dict[str, Any]], Awaitable[bool]],
                 on_lobby_change: Callable[[], None] = lambda: None) -> None:
        self.node = node
        self.store = store
        self.views = views
        self.delivery = views.delivery
        self.sessions = sessions
        self.games = dict(games)
        self.settings = settings
        self.metrics = metrics
        self.clock = clock
        self.deck = deck
        self.send_to_node = send_to_node
        self.lease_ms = settings.lease_ms
        self.idle_seconds = settings.room_idle_seconds
        self.actors: dict[str, RoomActor] = {}
        self.stopping = False
        self._acquiring: dict[str, asyncio.Future[Any]] = {}
        self.background = Background()
        self._lobby_dirty: dict[str, dict[str, Any]] = {}
        self.on_lobby_change = on_lobby_change  # this process's room list changed
        self._lobby_flush: asyncio.Future[None] | None = None
        self._rng = random.Random(secrets.randbits(64))

    # --- requests from this process's connections ---------------------------------------

    def origin(self, session: Session, ref: Any) -> Origin:
        assert session.player_id is not None
        return Origin(self.node, session.id, self.sessions.next_seq(), ref, session.player_id, session.name or "?")

    async def request(self, session: Session, room: str, cmd: Command) -> None:
        """Route a room command from a local connection; its answer (or an error) arrives
        on the connection later, exactly once."""
        try:
            view = await self.views.open(room)
        except UNAVAILABLE:
            session.send(_unavailable(cmd.origin.ref, room))
            return
        if view is None:
            session.send(error_message("no_such_room", f"no room {room[:64]!r}", cmd.origin.ref, "room"))
            return
        view.touched = time.monotonic()
        req = OpenRequest(room, cmd)
        session.requests[cmd.origin.seq] = req
        actor = self.actors.get(room)
        if actor is not None and actor.submit(cmd):
            return  # decided here: the actor answers it, or hands it back (``moved``) if it cannot
        self._arm(req, cmd.origin)
        await self.route(room, cmd)

    def _arm(self, req: OpenRequest, origin: Origin) -> None:
        if req.timer is not None:
            req.timer.cancel()
        req.timer = asyncio.get_running_loop().call_later(
            self.settings.forward_timeout, self._timed_out, origin)

    def _timed_out(self, origin: Origin) -> None:
        session = self.sessions.get(origin.conn)
        req = session.requests.get(origin.seq) if session is not None else None
        if req is None:
            return
        self.metrics.forward_timeouts.inc()
        self._again(session, req, origin)

    def _again(self, session: Session, req: OpenRequest, origin: Origin) -> None:
        req.tries += 1
        if isinstance(req.command, JoinCommand):  # the try that timed out may have seated the player
            req.command = dataclasses.replace(req.command, again=True)
        if req.tries >= MAX_TRIES or self.stopping:
            self.delivery.answer(origin, _unavailable(origin.ref, req.room))
            return
        self._arm(req, origin)
        self.background.spawn(self.route(req.room, req.command))

    def moved(self, origin: Origin) -> None:
        """The process we asked does not own the room (any more): ask again."""
        session = self.sessions.get(origin.conn)
        req = session.requests.get(origin.seq) if session is not None else None
        if req is not None:
            self._again(session, req, origin)

    async def route(self, room: str, cmd: Command, forwarded: bool = False) -> None:
        """Get ``cmd`` decided by the room's owner (taking the room if nobody owns it).

        ``forwarded``: another process sent it here believing this one the owner; if it
        is not, the requester is told to route again instead of forwarding further."""
        try:
            actor = self.actors.get(room)
            if actor is not None and actor.submit(cmd):
                return
            if self.stopping:
                self._refuse(cmd, forwarded)
                return
            holder = await self.store.lease_holder(room)
            if holder is None or holder == self.node:
                got = await self.acquire(room)
                if isinstance(got, RoomActor):
                    if got.submit(cmd):
                        return
                    self._refuse(cmd, forwarded)
                    return
                if got is None:
                    self.delivery.answer(cmd.origin, error_message("no_such_room", f"no room {room[:64]!r}",
                                                                   cmd.origin.ref, "room"))
                    return
                holder = got
            if forwarded:
                self._refuse(cmd, forwarded)
                return
            self.metrics.forwarded.inc()
            self._mark_sent(cmd.origin, holder)
            if not await self.send_to_node(holder, {"k": "cmd", "room": room, "cmd": command_to_wire(cmd),
                                                    "sent": time.time()}):
                log.info("room %s: owner %s has no inbox (gone); waiting for its lease to run out", room, holder)
        except UNAVAILABLE:
            self.delivery.answer(cmd.origin, _unavailable(cmd.origin.ref, room))

    def _mark_sent(self, origin: Origin, node: str) -> None:
        session = self.sessions.get(origin.conn) if origin.node == self.node else None
        req = session.requests.get(origin.seq) if session is not None else None
        if req is not None:
            req.sent_to = node

    def room_moved(self, room: str, owner: str) -> None:
        """``owner`` just took ``room``: requests for it forwarded to another node (most
        likely a dead one) are routed again now instead of waiting for their timeout."""
        for session, _seq, req in self.sessions.waiting_on(room):
            if req.sent_to is not None and req.sent_to != owner:
                req.sent_to = None
                self._again(session, req, req.command.origin)

    def _refuse(self, cmd: Command, forwarded: bool) -> None:
        if forwarded or cmd.origin.node != self.node:
            self.background.spawn(self.send_to_node(cmd.origin.node, {"k": "moved", "origin": cmd.origin.to_wire()}))
        else:
            self.moved(cmd.origin)

    # --- internal requests (the transfer sweeper) -----------------------------------------

    async def ask(self, room: str, make: Callable[[Origin], Command], timeout: float) -> dict[str, Any] | None:
        """Send an internal command to the room's owner and wait for the answer (None:
        no answer in time). The room is shown here meanwhile: an answer that goes out with
        a change travels in the change, which only the processes showing the room get."""
        if await self.views.open(room) is None:
            return error_message("no_such_room", f"no room {room[:64]!r}", None, "room")
        internal = self.sessions.internal
        seq = self.sessions.next_seq()
        origin = Origin(self.node, 0, seq, seq, "", "")
        cmd = make(origin)
        fut = internal.expect(seq)
        internal.requests[seq] = OpenRequest(room, cmd)
        try:
            await self.route(room, cmd)
            return await asyncio.wait_for(fut, timeout)
        except TimeoutError:
            return None
        finally:
            internal.requests.pop(seq, None)
            internal.forget(seq)

    # --- answers ------------------------------------------------------------------------

    def on_inbox(self, message: dict[str, Any]) -> None:
        """A message from another process's directory."""
        kind = message.get("k")
        if kind == "cmd":
            cmd = command_from_wire(message["cmd"])
            self.metrics.forward_latency.observe(max(0.0, time.time() - message.get("sent", time.time())))
            self.background.spawn(self.route(message["room"], cmd, forwarded=True))
        elif kind == "ans":
            self.delivery.on_answer(message)
        elif kind == "moved":
            self.moved(Origin.from_wire(message["origin"]))

    # --- owning rooms -------------------------------------------------------------------

    async def acquire(self, room: str) -> RoomActor | str | None:
        """Take the room unless another process holds it: the new local actor, the
        holder's node id, or None if there is no such room."""
        actor = self.actors.get(room)
        if actor is not None and not actor.closed and room not in self._acquiring:
            return actor
        return await single_flight(self._acquiring, room, lambda: self._acquire(room))

    async def _acquire(self, room: str) -> RoomActor | str | None:
        old = self.actors.get(room)
        if old is not None and not old.closed:
            return old
        if old is not None:  # a dropped or releasing actor: let it finish first
            await old.stop(release=False)
        sent = time.monotonic()
        got = await self.store.acquire(room, self.node, self.lease_ms)
        if not isinstance(got, Acquired):
            return got
        name = unpack(got.log.snapshot)["game"]
        game = self.games.get(name)
        if game is None:
            log.warning("room %s hosts game %r, which this server does not: not taken", room, name)
            await self.store.release(room, f"{self.node} {got.fence}")
            return None
        try:
            table = current_table(game, got.log)
        except RoomLogError as exc:
            log.error("room %s: cannot be loaded: %s; not taken", room, exc)
            await self.store.release(room, f"{self.node} {got.fence}")
            return None
        view = await self.views.open(room)
        if view is None:  # deleted between the two reads: cannot happen today
            return None
        if table.version > view.version:
            self.views.apply(view, table, [], [])
        lease = Lease(self.node, got.fence, sent, self.lease_ms / 1000)
        actor = self._start(game, table, view, lease, got.log.snapshot_version)
        self.metrics.ownership.labels("acquired").inc()
        self.room_moved(room, self.node)
        self.background.spawn(self._announce(room))
        if got.previous and got.previous != self.node:
            self.metrics.ownership.labels("taken_over").inc()
            log.info("room %s: taken over from %s by %s (fence %d, version %d)",
                     room, got.previous, self.node, got.fence, table.version)
        else:
            log.info("room %s: owned by %s (fence %d, version %d)", room, self.node, got.fence, table.version)
        return actor

    def start_created(self, game: Game, table: tbl.Table, view: RoomView, fence: int, sent: float) -> RoomActor:
        """Start the actor of a room this process just created (and holds the lease of)."""
        lease = Lease(self.node, fence, sent, self.lease_ms / 1000)
        self.metrics.ownership.labels("acquired").inc()
        return self._start(game, table, view, lease, table.version)

    def _start(self, game: Game, table: tbl.Table, view: RoomView, lease: Lease,
               snapshot_version: int) -> RoomActor:
        # if this process dies, someone must look at the room once the lease has run out
        self.background.spawn(self._wake_after_lease(table.room))
        core = RoomCore(game, table, deck=self.deck, new_id=lambda: secrets.token_hex(8),
                        rng=random.Random(self._rng.getrandbits(64)),
                        close_empty_after_ms=round(self.settings.empty_room_minutes * 60_000),
                        stand_up_after_ms=round(self.settings.sit_out_minutes * 60_000))
        actor = RoomActor(core, view, lease, self, self.store, self.views, self.metrics, self.clock,
                          snapshot_version)
        self.actors[table.room] = actor
        self.views.owned(view)
        self.metrics.rooms.labels(game.name).inc()
        actor.start()
        return actor

    async def _announce(self, room: str) -> None:
        """Tell every process showing the room that this one owns it now."""
        try:
            await self.store.publish_notice(room, {"owner": self.node, "from": self.node})
        except UNAVAILABLE:
            pass  # their requests time out and are routed again instead

    async def _wake_after_lease(self, room: str) -> None:
        try:
            await self.store.set_wakeups({room: self.clock() + self.lease_ms})
        except UNAVAILABLE:
            pass  # the renewals write it too

    # --- ActorHost -----------------------------------------------------------------------

    def reroute(self, room: str, cmd: Command) -> None:
        if cmd.origin.node == self.node:
            self.moved(cmd.origin)
        else:
            self.background.spawn(self.send_to_node(cmd.origin.node, {"k": "moved", "origin": cmd.origin.to_wire()}))

    def actor_gone(self, actor: RoomActor, reason: str) -> None:
        if self.actors.get(actor.room) is actor:
            del self.actors[actor.room]
        self.views.disowned(actor.view)
        self.metrics.rooms.labels(actor.core.game.name).dec()
        log.info("room %s: no longer owned by %s (%s)", actor.room, self.node, reason)

    def lobby_entry(self, room: str, summary: dict[str, Any]) -> None:
        """Publish a room's new lobby summary, batched: a busy process writes the changes
        of all its rooms at most every ``LOBBY_FLUSH_SECONDS``, with one notice."""
        self._lobby_dirty[room] = summary
        self.on_lobby_change()  # this process lists its own rooms from memory: at once
        if self._lobby_flush is None or self._lobby_flush.done():
            self._lobby_flush = asyncio.ensure_future(self._flush_lobby())

    def lobby_remove(self, room: str) -> None:
        self._lobby_dirty.pop(room, None)
        self.on_lobby_change()
        self.background.spawn(self._remove_lobby_entry(room))

    async def _remove_lobby_entry(self, room: str) -> None:
        try:
            await self.store.remove_lobby_entry(room)
            await self.store.publish(self.store.keys.lobby_channel, pack({"closed": room}))
            await self.store.retire_room(room, self.clock())  # only a closed room leaves the lobby
        except UNAVAILABLE:
            pass  # listed until the next removal: a join answers no_such_room meanwhile

    async def _flush_lobby(self) -> None:
        while self._lobby_dirty:
            await asyncio.sleep(LOBBY_FLUSH_SECONDS)
            batch, self._lobby_dirty = self._lobby_dirty, {}
            try:
                await self.store.set_lobby_entries(batch)
                await self.store.publish(self.store.keys.lobby_channel, pack({"rooms": len(batch)}))
            except UNAVAILABLE:
                for room, summary in batch.items():  # try again, unless superseded meanwhile
                    self._lobby_dirty.setdefault(room, summary)
                await asyncio.sleep(1.0)

    # --- shutdown --------------------------------------------------------------------------

    async def stop(self) -> None:
        """Refuse new requests, let every room finish its queue, give the leases back."""
        self.stopping = True
        await asyncio.gather(*(a.stop(release=True) for a in list(self.actors.values())))
        if self._lobby_flush is not None:
            await asyncio.wait([self._lobby_flush], timeout=2.0)
        # the last routes and answers on their way, within one grace
        await asyncio.gather(self.background.wait(2.0), self.delivery.wait(2.0))


def _unavailable(ref: Any, room: str | None = None) -> dict[str, Any]:
    extra = {"room": room} if room else {}
    return error_message("unavailable", "the room's server is not reachable right now; nothing changed "
                         "that you were not told of: retry (an act with the same id is applied at most once)",
                         ref, **extra)
