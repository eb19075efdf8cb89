"""The application: wires settings, Redis, the cluster node, rooms and the transport.

``App.start()`` connects to Redis (starting an embedded one when no URL is given), joins
the cluster as a new node and starts listening; rooms are taken lazily, when a request
or a due timer needs them. ``App.stop()`` shuts down gracefully: stop accepting, refuse
new requests, let every owned room finish its queued commands (each is stored before it
is answered) and give its lease back so another process takes it at once, flush what is
queued for clients, then close sockets with 1001. :func:`serve_forever` gives that
:data:`STOP_GRACE_SECONDS`; past it (Redis frozen or unreachable, so each step waits out
its command timeout) it closes what is left at once with :meth:`App.abort`.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import signal
import sys
from collections.abc import Callable, Mapping
from typing import Any

from websockets.asyncio.server import Server, serve

from engine.game import Game

from .aio import cancel_and_wait
from .cluster.directory import Directory
from .cluster.node import Node, new_node_id
from .config import Settings
from .edge.backpressure import Admission
from .edge.frames import FrameLoop
from .edge.gate import Gate
from .edge.protocol import SUBPROTOCOLS
from .edge.session import Sessions
from .edge.transport import WS_PATH, Connection, make_process_request, select_subprotocol
from .metrics import CONTENT_TYPE_LATEST, GcPauses, Metrics
from .ops.admin import console_page
from .ops.admin_api import AdminApi
from .ops.moderation import Moderation
from .redis_embedded import EmbeddedRedis
from .requests.lobby import Lobby
from .room import epoch_ms
from .room.view import Views
from .store import UNAVAILABLE, Store
from .store.connect import Clients, connect

log = logging.getLogger(__name__)
ADMIN_PAGE_AUDIT = 20  # the last moderation acts the /admin page lists

EMBEDDED_WATCH_SECONDS = 1.0
#: seconds a graceful shutdown may take before the rest is closed at once; below the
#: 10 s an orchestrator usually waits after SIGTERM (and docs/server.md promises)
STOP_GRACE_SECONDS = 8.0


def default_games() -> dict[str, Game]:
    from .games import GAMES

    return dict(GAMES)


class App:
    def __init__(
        self,
        settings: Settings | None = None,
        games: Mapping[str, Game] | None = None,
        *,
        clock: Callable[[], int] = epoch_ms,
        deck: Callable[[int], list[int]] | None = None,
    ) -> None:
        self.settings = (settings or Settings()).validate()
        self.games = dict(games) if games is not None else default_games()
        self.clock = clock
        self.deck = deck
        self.metrics = Metrics()
        self.node_id = self.settings.node_id or new_node_id()
        self.embedded: EmbeddedRedis | None = None
        self.clients: Clients | None = None
        self.store: Store | None = None
        self.sessions = Sessions()
        self.node: Node | None = None
        self.views: Views | None = None
        self.directory: Directory | None = None
        self.lobby: Lobby | None = None
        self.frames: FrameLoop | None = None
        self.server: Server | None = None
        self._watchdog: asyncio.Task[None] | None = None
        self._idle_task: asyncio.Task[None] | None = None
        self._lag_task: asyncio.Task[None] | None = None
        self._gc_pauses = GcPauses(self.metrics)
        self.admission = Admission(self.metrics)
        self.gate = Gate(self.settings)

    @property
    def port(self) -> int:
        assert self.server is not None
        return self.server.sockets[0].getsockname()[1]

    @property
    def _display_host(self) -> str:
        host = self.settings.host
        if host in ("", "0.0.0.0", "::"):
            return "127.0.0.1"
        return f"[{host}]" if ":" in host else host

    @property
    def url(self) -> str:
        return f"http://{self._display_host}:{self.port}/"

    @property
    def ws_url(self) -> str:
        return f"ws://{self._display_host}:{self.port}{WS_PATH}"

    async def start(self) -> None:
        s = self.settings
        url = s.redis_url
        if url is None:
            self.embedded = EmbeddedRedis(s.data_dir)
            self.embedded.start()  # in this thread: the child's death signal is tied to it
            url = self.embedded.url
        try:
            self.clients = await connect(url, s.redis_pool)
        except Exception as exc:
            raise RuntimeError(f"Redis at {url} does not answer ({exc})") from None
        self.store = Store(self.clients.main, s.key_prefix, s.grant, observe_write=self.metrics.redis_write.observe,
                           concurrency=s.redis_pool - reserved_connections(s.redis_pool),
                           blocking=self.clients.blocking,
                           token_seconds=round(s.token_days * 86_400), stream_maxlen=s.history_entries,
                           keep_closed_ms=round(s.keep_closed_days * 86_400_000),
                           wait_replicas=s.redis_wait_replicas, wait_ms=s.redis_wait_ms)
        if not await self.store.ping():
            raise RuntimeError(f"Redis at {url} does not answer")
        if s.redis_wait_replicas and (replicas := await self.store.replicas()) < s.redis_wait_replicas:
            log.warning("Redis has %d replicas connected, fewer than --redis-wait-replicas %d: changes are "
                        "answered 'unavailable' until enough are", replicas, s.redis_wait_replicas)
        from .ops.migrate import hash_plaintext_tokens, migrate_legacy_layout

        await migrate_legacy_layout(self.store, self.games)
        await hash_plaintext_tokens(self.store)
        self.node = Node(self.node_id, self.store, self.clients.pubsub, s, self.metrics, self.sessions, self.clock)
        self.views = Views(self.node_id, self.store, self.games, self.sessions, self.metrics,
                           self.node.subscribe, self.node.unsubscribe, self._lobby_changed, self.clock,
                           self.node.send, room_moved=self._room_moved)
        self.directory = Directory(self.node_id, self.store, self.views, self.sessions, self.games, s,
                                   self.metrics, self.clock, self.deck, self.node.send, self._lobby_changed)
        self.lobby = Lobby(self.games, self.store, s, self.metrics, self.sessions, self.views, self.directory,
                           self.node_id, self.clock, self.gate)
        self.moderation = Moderation(self.store, self.directory, self.views, lambda: self._listed_rooms(), self.clock,
                                     s.forward_timeout)
        self.admin_api = AdminApi(self.moderation)
        await self.node.start(self.directory, self.views, self.lobby)
        self.lobby.leagues.start()
        if self.embedded is not None:
            self._watchdog = asyncio.create_task(self._watch_embedded(), name="embedded redis watchdog")
        self.frames = FrameLoop(s, self.gate, self.sessions, self.metrics, self.admission, self.lobby)
        self._idle_task = asyncio.create_task(self.frames.close_idle(), name="idle connections")
        self._lag_task = asyncio.create_task(self.admission.probe(), name="event loop lag")
        self._gc_pauses.install()
        self.server = await serve(
            self.frames.handle,
            s.host,
            s.port,
            subprotocols=list(SUBPROTOCOLS),
            select_subprotocol=select_subprotocol,
            process_request=make_process_request(s.web_dir, self.store.ping, self._metrics_body, self.gate,
                                                 self._admin_page, self.admin_api.handle,
                                                 {g.name: g.web for g in self.games.values() if g.web is not None},
                                                 console_page),
            max_size=s.hard_max_frame,
            compression=None,
            create_connection=Connection,
        )
        log.info("serving %s (WebSocket %s) as node %s, on the %s event loop", self.url, self.ws_url, self.node_id,
                 "uvloop" if type(asyncio.get_running_loop()).__module__.startswith("uvloop") else "asyncio")

    def _room_moved(self, room: str, owner: str) -> None:
        if self.directory is not None:
            self.directory.room_moved(room, owner)

    def _lobby_changed(self) -> None:
        if self.lobby is not None:
            self.lobby.lobby_changed()

    def _metrics_body(self) -> tuple[bytes, str]:
        return self.metrics.render(), CONTENT_TYPE_LATEST

    async def _watch_embedded(self) -> None:
        """Start the embedded Redis again if it dies (its append-only file has the data).

        It is started from this (the main) thread, as at start: the child's death signal
        is tied to the thread that forks it. Meanwhile requests get ``unavailable``."""
        assert self.embedded is not None
        while True:
            await asyncio.sleep(EMBEDDED_WATCH_SECONDS)
            if self.embedded.running():
                continue
            log.error("the embedded Redis exited; starting it again")
            try:
                self.embedded.start()
            except Exception as exc:
                log.error("could not restart the embedded Redis: %s", exc)

    async def stop(self) -> None:
        """Graceful shutdown (see the module doc)."""
        if self.server is not None:
            self.server.server.close()  # stop accepting
        self._gc_pauses.remove()
        await cancel_and_wait([self._watchdog, self._idle_task, self._lag_task])
        self._watchdog = self._idle_task = self._lag_task = None
        self.admission.release()  # no more lag samples: whoever waits is answered (shutting down)
        if self.lobby is not None:
            await self.lobby.stop()
        if self.directory is not None:
            await self.directory.stop()
        await asyncio.gather(*(s.flush() for s in self.sessions))
        if self.server is not None:
            self.server.close(close_connections=True)  # 1001 going away
            await self.server.wait_closed()
            self.server = None
        if self.views is not None:
            await self.views.stop()
        if self.node is not None:
            await self.node.stop()
            self.node = None
        if self.store is not None:
            await self.store.aclose()
        if self.clients is not None:
            await self.clients.aclose()
            self.clients = None
        if self.embedded is not None:
            self.embedded.stop()
            self.embedded = None

    def abort(self) -> None:
        """Close what :meth:`stop` left, at once and without Redis: the end of a shutdown
        that ran past its grace. Rooms this process held are taken over when their leases
        run out; nothing acknowledged is lost (it was stored before it was answered)."""
        for session in list(self.sessions):
            session.stop()
            session.ws.transport.abort()
        if self.server is not None:
            self.server.server.close()
            self.server = None
        self.clients = None  # its connections end with the process
        if self.embedded is not None:
            self.embedded.stop()
            self.embedded = None

    async def _listed_rooms(self) -> list[dict[str, Any]]:
        assert self.lobby is not None
        return (await self.lobby.rooms_message(None))["rooms"]

    async def _admin_page(self) -> bytes:
        """The read-only status page of /admin (with --admin-token)."""
        assert self.lobby is not None and self.directory is not None and self.store is not None
        from .ops.admin import render_admin

        try:
            rooms = await self.lobby.rooms_message(None)
            nodes = sorted(await self.store.live_nodes(self.clock()))
            audit = await self.store.audit_log(ADMIN_PAGE_AUDIT)
        except UNAVAILABLE:
            rooms, nodes, audit = {"rooms": []}, [], []
        return render_admin(self.node_id, nodes, rooms["rooms"], self.sessions, self.directory, self.metrics, audit)


def reserved_connections(pool: int) -> int:
    """Redis connections of the pool kept for the process's own loops (lease renewals,
    heartbeat, wake-ups, presence): requests may use the rest. Without a reserve, a
    saturated server's requests held every connection, a renewal waited for one past its
    lease's deadline, and the process dropped its rooms."""
    return max(1, min(8, pool // 4))


#: Garbage collection thresholds of a serving process (CPython's default: 700, 10, 10).
#: A server allocates fast (frames, messages, snapshots) and keeps little of it; with the
#: default a full collection, which scans every object and stops the event loop for as
#: long (~150 ms with 1,000 connections), ran every few seconds. The young generation's
#: count is allocations less deallocations, old objects' included: with rooms' tables and
#: views replaced at every change it holds far more than the threshold when it is
#: collected (40,000 to 70,000 objects at 1,000 connections flat out, 30-60 ms a
#: collection, none of it garbage); at 10,000 that ran about every 3 s, at 50,000 it
#: seldom runs at all in steady play (none in 30 s), for the same memory. See ``tune_gc``.
GC_THRESHOLDS = (50_000, 10, 10)


def tune_gc() -> None:
    """Make garbage collection fit a long-running server: what start-up allocated (modules,
    the evaluator's tables, ~70,000 objects) is frozen out of every collection, and the
    young generation is collected after :data:`GC_THRESHOLDS` [0] net allocations instead of 700,
    so that the older ones, which take longest, run far less often."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


async def serve_forever(app: App, ready: Callable[[App], None] | None = None) -> bool:
    """Run until SIGTERM or SIGINT, then shut down gracefully: within
    :data:`STOP_GRACE_SECONDS` (then True), else by :meth:`App.abort` and the end of the
    process with status 1 (see ``_stop_within_grace``)."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    try:
        await app.start()
    except BaseException:
        await app.stop()  # e.g. the port is taken: do not leave the embedded Redis behind
        raise
    tune_gc()
    if ready is not None:
        ready(app)
    try:
        await stop.wait()
    finally:
        log.info("shutting down")
        graceful = await _stop_within_grace(app)
    return graceful


async def _stop_within_grace(app: App) -> bool:
    """Stop ``app`` within :data:`STOP_GRACE_SECONDS` and return True. Past the grace,
    close the rest at once (:meth:`App.abort`), give what is left a second to end, and end
    the process here with status 1: returning would hand the rest to ``asyncio.run``'s own
    clean-up, which waits without a bound for every task and every executor thread, and a
    loaded machine once saw a server frozen out of Redis outlive its grace that way."""
    try:
        await asyncio.wait_for(app.stop(), STOP_GRACE_SECONDS)
        return True
    except TimeoutError:
        log.error("shutdown: not done after %g s (is Redis frozen or unreachable?): closing the rest "
                  "at once; other servers take this one's rooms over when their leases run out",
                  STOP_GRACE_SECONDS)
    app.abort()
    others = asyncio.all_tasks() - {asyncio.current_task()}
    try:  # what is left waits on Redis: cancelled, it ends (see server.aio.cancel_and_wait)
        await asyncio.wait_for(cancel_and_wait(others), 1.0)
    except TimeoutError:
        log.error("shutdown: %d tasks did not end; exiting anyway", len([t for t in others if not t.done()]))
    logging.shutdown()
    sys.stdout.flush()
    os._exit(1)
