"""This process as one node of a cardroom cluster: the loops that tie it to the others.

A node has a random id (``n-...``) and runs four background loops on Redis:

* **inbox**: reads its stream ``{node}:inbox`` (``XREAD BLOCK``): commands forwarded by
  other nodes for rooms this node owns, and answers to requests of its connections;
* **pub/sub**: one subscription per room this node shows to someone, plus the lobby
  channel; room changes go to :class:`~server.room.view.Views`, lobby changes to the
  lobby. After the connection to Redis comes back, every view is reloaded;
* **renew**: every third of the lease time, renews the lease of every room owned here
  (a room whose lease is gone, or could not be renewed before the node's own deadline,
  is dropped at once), records for each a time by which another node should look at it
  if this one dies (``wakeups``), says the node is alive, and refreshes presence;
* **scan**: takes rooms whose wake-up time has passed and whose owner is gone (turn
  timers of a dead node's rooms run out on another node), and completes buy-ins left
  half done by a crash (the transfer sweeper).

When Redis is unreachable each loop logs it once, backs off and keeps trying.
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
import time
from collections.abc import Callable
from typing import Any, Protocol

from ..aio import cancel_and_wait, stop_if_cancelled
from ..config import Settings
from ..edge.session import Sessions
from ..metrics import Metrics
from ..room.core import SettleCommand
from ..room.view import PRESENCE_REFRESH_SECONDS, Views
from ..store import UNAVAILABLE, Store, unpack
from ..store.pubsub import pubsub_for
from .directory import Directory

log = logging.getLogger(__name__)

SCAN_SECONDS = 0.5
PRESENCE_TTL_MS = 30_000


def new_node_id() -> str:
    return "n-" + secrets.token_hex(5)


RENEWALS_IN_FLIGHT = 3  # lease renewals sent and not yet answered, at most


class Outage:
    """Logs the first failure of a loop and its recovery, not every failed attempt."""

    def __init__(self, what: str) -> None:
        self.what = what
        self.since: float | None = None

    def failed(self, exc: BaseException) -> float:
        """Note a failure; returns how long to wait before trying again. Raises
        ``CancelledError`` instead if the loop has been cancelled (see
        :func:`server.aio.stop_if_cancelled`)."""
        stop_if_cancelled()
        if self.since is None:
            self.since = time.monotonic()
            log.warning("%s: Redis unavailable (%s); retrying", self.what, exc)
        return min(2.0, 0.1 + (time.monotonic() - self.since) / 4) * random.uniform(0.8, 1.2)

    def ok(self) -> bool:
        """Note a success; True if it ends an outage."""
        if self.since is None:
            return False
        log.warning("%s: Redis is back after %.1f s", self.what, time.monotonic() - self.since)
        self.since = None
        return True


class LobbyListener(Protocol):
    """What the node tells the lobby of this process."""

    def lobby_changed(self) -> None:
        """The room list changed (on any process)."""

    def tell_player(self, player: str, message: dict[str, Any], close: bool) -> None:
        """A message for ``player``'s connections here (``close``: close them after it)."""


class Node:
    def __init__(self, node_id: str, store: Store, pubsub_client: Any, settings: Settings, metrics: Metrics,
                 sessions: Sessions, clock: Callable[[], int]) -> None:
        self.id = node_id
        self.store = store
        self.settings = settings
        self.metrics = metrics
        self.sessions = sessions
        self.clock = clock
        self._pubsub = pubsub_for(pubsub_client)
        self._confirm: dict[str, asyncio.Future[None]] = {}
        self._wanted: set[str] = set()  # channels this node should be subscribed to
        self._tasks: list[asyncio.Task[None]] = []
        self._renewals: set[asyncio.Task[None]] = set()  # lease renewals sent, not yet answered
        self.directory: Directory | None = None
        self.views: Views | None = None
        self.lobby: LobbyListener | None = None
        self._inbox_after = "0-0"
        self._stopping = False

    # --- lifecycle ---------------------------------------------------------------------

    async def start(self, directory: Directory, views: Views, lobby: LobbyListener) -> None:
        """Start the process's loops, handing what they hear to ``directory`` (commands for
        rooms owned here), ``views`` (changes of rooms shown here) and ``lobby``."""
        self.directory = directory
        self.views = views
        self.lobby = lobby
        self._inbox_after = await self.store.open_inbox(self.id, self._inbox_ttl())
        await self.store.heartbeat(self.id, self.clock() + 3 * self.settings.lease_ms, self._inbox_ttl())
        await self.subscribe(self.store.keys.lobby_channel)
        for loop in (self._inbox_loop, self._pubsub_loop, self._renew_loop, self._presence_loop, self._scan_loop):
            self._tasks.append(asyncio.create_task(loop(), name=f"{self.id} {loop.__name__}"))

    async def stop(self) -> None:
        self._stopping = True
        for t in self._tasks:
            t.cancel()
        try:  # a blocked XREAD does not always end on cancel: close its connection
            await self.store.blocking.aclose()
        except Exception:
            pass
        await cancel_and_wait(self._tasks)
        self._tasks.clear()
        try:
            await self.store.leave_cluster(self.id)
            if self.views is not None:
                await self.store.clear_spectators(self.id, list(self.views.views))
        except UNAVAILABLE:
            pass
        try:
            await self._pubsub.aclose()
        except Exception:
            pass

    def _inbox_ttl(self) -> int:
        return max(10_000, 4 * self.settings.lease_ms)

    # --- pub/sub -------------------------------------------------------------------------

    async def subscribe(self, channel: str) -> None:
        """Subscribe and wait (briefly) for Redis to confirm it. Raises one of
        ``UNAVAILABLE`` if Redis cannot be reached; the subscription is then made when
        the pub/sub connection is back."""
        self._wanted.add(channel)
        fut = self._confirm.get(channel)
        if fut is None or fut.done():
            fut = asyncio.get_running_loop().create_future()
            self._confirm[channel] = fut
        try:
            await self._pubsub.subscribe(channel)
        except RuntimeError as exc:  # the reader is reconnecting this connection: it subscribes after
            raise ConnectionError(f"pub/sub connection busy reconnecting: {exc}") from exc
        if not self._tasks:  # the reader is not running yet (start): read the confirmation here
            while not fut.done():
                msg = await self._pubsub.get_message(timeout=1.0)
                if msg is None:
                    break
                self._on_pubsub(msg)
        try:
            await asyncio.wait_for(asyncio.shield(fut), 2.0)
        except TimeoutError:
            log.warning("no confirmation of the subscription to %s yet", channel)

    async def unsubscribe(self, channel: str) -> None:
        self._wanted.discard(channel)
        self._confirm.pop(channel, None)
        try:
            await self._pubsub.unsubscribe(channel)
        except (*UNAVAILABLE, RuntimeError):  # RuntimeError: the reader is reconnecting this connection
            pass  # the client subscribes again on reconnecting; the reader then unsubscribes it

    async def _pubsub_loop(self) -> None:
        outage = Outage("pub/sub")
        while True:
            try:
                msg = await self._pubsub.get_message(timeout=1.0)
            except asyncio.CancelledError:
                raise
            except UNAVAILABLE as exc:
                await asyncio.sleep(outage.failed(exc))
                continue
            except Exception:
                stop_if_cancelled()
                log.exception("pub/sub reader failed")
                await asyncio.sleep(1.0)
                continue
            if outage.ok():
                await self._reconcile()
                if self.views is not None:
                    await self.views.resync()  # changes published while we were away
                self.lobby.lobby_changed()
            if msg is not None:
                try:
                    await self._on_message(msg)
                except Exception:
                    log.exception("handling a pub/sub message failed")

    async def _reconcile(self) -> None:
        """After an outage, make the subscriptions the ones wanted. The client restores on
        reconnecting every channel it was subscribed to, including those given up while
        Redis was away (their unsubscribe failed); the ones asked for meanwhile are not."""
        have = {_text(c) for c in self._pubsub.channels}
        try:
            for channel in sorted(self._wanted - have):
                await self._pubsub.subscribe(channel)
            if stale := sorted(have - self._wanted):
                await self._pubsub.unsubscribe(*stale)
        except UNAVAILABLE:
            return  # the next outage's end tries again

    def _on_pubsub(self, msg: dict[str, Any]) -> None:
        if msg.get("type") == "subscribe":
            fut = self._confirm.get(_text(msg["channel"]))
            if fut is not None and not fut.done():
                fut.set_result(None)

    async def _on_message(self, msg: dict[str, Any]) -> None:
        if msg.get("type") != "message":
            self._on_pubsub(msg)
            return
        channel = _text(msg["channel"])
        if channel == self.store.keys.lobby_channel:
            try:
                data = unpack(msg["data"])
            except Exception:
                data = None
            if isinstance(data, dict) and "to" in data:  # a message for one player's connections
                self.lobby.tell_player(data["to"], data["message"], bool(data.get("close")))
            else:
                self.lobby.lobby_changed()
            return
        room = self.store.keys.room_of_channel(channel)
        if self.views is not None:
            await self.views.on_message(room, msg["data"])

    # --- inbox ---------------------------------------------------------------------------

    async def send(self, node: str, message: dict[str, Any]) -> bool:
        """Put a message in another node's inbox; False if that node is gone."""
        if node == self.id and self.directory is not None:
            self.directory.on_inbox(message)
            return True
        try:
            return await self.store.send_to_node(node, message)
        except UNAVAILABLE:
            return False

    async def _inbox_loop(self) -> None:
        outage = Outage("inbox")
        while not self._stopping:
            try:
                entries = await self.store.read_inbox(self.id, self._inbox_after, block_ms=1000)
            except asyncio.CancelledError:
                raise
            except UNAVAILABLE as exc:
                if self._stopping:
                    return
                await asyncio.sleep(outage.failed(exc))
                continue
            except Exception:  # never end the loop: forwarded requests would go unanswered for good
                stop_if_cancelled()
                log.exception("inbox reader failed")
                await asyncio.sleep(1.0)
                continue
            outage.ok()
            for entry_id, message in entries:
                self._inbox_after = entry_id
                if self.directory is not None and message.get("k") != "open":
                    try:
                        self.directory.on_inbox(message)
                    except Exception:
                        log.exception("inbox message %r failed", message.get("k"))

    # --- leases, liveness, presence ------------------------------------------------------------

    async def _every(self, what: str, seconds: Callable[[], float], step: Callable[[], Any]) -> None:
        """Run ``step`` every ``seconds()`` for good, counted from the start of the last
        step (a slow step does not push the next one back by its own length). While Redis
        is unreachable, log it once, drop the rooms whose lease may have run out, and keep
        trying."""
        outage = Outage(what)
        started = time.monotonic()
        while True:
            await asyncio.sleep(max(0.0, started + seconds() - time.monotonic()))
            started = time.monotonic()
            try:
                await step()
            except asyncio.CancelledError:
                raise
            except UNAVAILABLE as exc:
                outage.failed(exc)
                self._drop_expired()
                continue
            except Exception:
                stop_if_cancelled()
                log.exception("%s failed", what)
                continue
            outage.ok()

    async def _renew_loop(self) -> None:
        """Renew every lease this process holds, every third of the lease, whatever else
        the process does (presence has its own loop). A renewal is sent on time even
        while an earlier one is still unanswered (up to :data:`RENEWALS_IN_FLIGHT`): on a
        process far behind, a renewal may take longer than the interval, and waiting for
        it made the next one late enough that every room was dropped."""
        outage = Outage("lease renewal")
        started = time.monotonic()
        try:
            while True:
                await asyncio.sleep(max(0.0, started + self.settings.lease_ms / 3000 - time.monotonic()))
                started = time.monotonic()
                if len(self._renewals) < RENEWALS_IN_FLIGHT:
                    task = asyncio.create_task(self._renew_once(outage), name=f"{self.id} renewal")
                    self._renewals.add(task)
                    task.add_done_callback(self._renewals.discard)
        finally:
            await cancel_and_wait(list(self._renewals))

    async def _renew_once(self, outage: Outage) -> None:
        try:
            await self._renew()
        except UNAVAILABLE as exc:
            outage.failed(exc)
            self._drop_expired()
            return
        except Exception:
            stop_if_cancelled()
            log.exception("lease renewal failed")
            return
        outage.ok()

    async def _presence_loop(self) -> None:
        await self._every("presence", lambda: PRESENCE_REFRESH_SECONDS, self._refresh_presence)

    async def _renew(self) -> None:
        assert self.directory is not None
        actors = [a for a in self.directory.actors.values() if not a.closed]
        acknowledged = [a.version for a in actors]  # each stored before the renewal is sent
        lease_ms = self.settings.lease_ms
        sent = time.monotonic()
        try:
            held = await asyncio.wait_for(
                self.store.renew([(a.room, a.lease.token) for a in actors], lease_ms), lease_ms / 2000)
        except TimeoutError:
            self.metrics.lease_renew_failures.inc(len(actors))
            self._drop_expired()
            return
        except UNAVAILABLE:
            self.metrics.lease_renew_failures.inc(len(actors))
            raise
        for actor, version, (ok, stored) in zip(actors, acknowledged, held, strict=True):
            if ok:
                actor.renewed(sent)
                if 0 <= stored < version:  # Redis went back (a restart, a failover): lost writes
                    actor.writes_lost()
            elif ok is None:  # nobody holds it: Redis lost it (the actor takes it back in time)
                self.metrics.lease_renew_failures.inc()
                actor.lease_vanished()
            else:
                self.metrics.lease_renew_failures.inc()
                actor.lease_lost("lease lost")
        now = self.clock()
        await self.store.set_wakeups({a.room: now + lease_ms for a in actors if not a.closed})
        if not await self.store.heartbeat(self.id, now + 3 * lease_ms, self._inbox_ttl()):
            await self.store.open_inbox(self.id, self._inbox_ttl())  # lost with a Redis restart

    def _drop_expired(self) -> None:
        """Drop every room whose lease may have run out by our own clock."""
        if self.directory is None:
            return
        for actor in list(self.directory.actors.values()):
            actor.expire_if_due()

    async def _refresh_presence(self) -> None:
        now = self.clock()
        await self.store.refresh_presence(self.sessions.players(), self.id, now + PRESENCE_TTL_MS, now)
        if self.views is not None:
            await self.views.refresh_presence()
            self.views.close_idle()
        self.metrics.pending_transfers.set(await self.store.pending_transfers())

    # --- orphaned rooms and half-done transfers -------------------------------------------------

    async def _scan_loop(self) -> None:
        last_sweep = 0.0

        async def step() -> None:
            nonlocal last_sweep
            await self._take_orphans()
            if time.monotonic() - last_sweep >= self._stale_transfer_ms() / 2000:
                last_sweep = time.monotonic()
                await self._sweep_transfers()
                await self.store.forget_expired_rooms(self.clock())

        await self._every("scan", lambda: SCAN_SECONDS * random.uniform(0.5, 1.5), step)

    async def _take_orphans(self) -> None:
        assert self.directory is not None
        if self.directory.stopping:
            return
        for room in await self.store.due_rooms(self.clock()):
            if room in self.directory.actors:
                continue
            holder = await self.store.lease_holder(room)
            if holder is not None and holder != self.id:
                continue
            got = await self.directory.acquire(room)
            if got is None:
                await self.store.set_wakeups({room: None})

    def _stale_transfer_ms(self) -> int:
        """A buy-in this old is looked at by the sweeper (it normally completes in
        milliseconds; asking the room about one still in progress is harmless: the
        question waits behind it in the room's queue)."""
        return 2 * self.settings.lease_ms

    async def _sweep_transfers(self) -> None:
        """Finish or refund buy-ins whose process died between taking the chips from the
        wallet and storing (or not) the seat: the room says whether it stored them."""
        assert self.directory is not None
        stale_before = self.clock() - self._stale_transfer_ms()
        for player, xid in await self.store.stale_transfers(stale_before):
            entry = await self.store.journal_entry(player, xid)
            if entry is None:
                await self.store.forget_transfer(player, xid)
                continue
            room, amount = entry
            answer = await self.directory.ask(room, lambda o, x=xid: SettleCommand(o, x),
                                              timeout=self.settings.forward_timeout)
            if answer is None:
                continue
            if answer.get("t") == "error":
                if answer.get("code") != "no_such_room":
                    continue
                applied = False
            else:
                applied = bool(answer["applied"])
            if applied:
                await self.store.finish_debit(player, xid, room)
                log.warning("transfer %s: buy-in of %d by %s into %s was stored; journal closed",
                            xid, amount, player, room)
            else:
                wallet = await self.store.refund(player, xid)
                log.warning("transfer %s: buy-in of %d by %s into %s was never stored; refunded (wallet %s)",
                            xid, amount, player, room, wallet)


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
