"""The room actor: the asyncio adapter around a :class:`~server.room.core.RoomCore`.

One task per room this process owns. It takes one command at a time from its queue
(or, when the core's next timer is due, the time), asks the core what to do, and does
it: takes a buy-in from a wallet, stores the change in Redis with the fenced commit
(*durable before visible*: the commit script publishes the change only once stored),
shows it to this process's viewers, completes the chip transfers, and answers.

Ownership is a lease (see :mod:`server.cluster.directory`). The node renews it; the
actor refuses to write once the lease could have run out by its own monotonic clock,
and on any sign that another process owns the room (the commit's fence check fails) it
*drops* the room at once: no retry, no reload. Commands still queued are handed back to
be routed to the new owner. A lease that nobody holds, while by our own clock it has not
run out, was lost by Redis (a failover, a restart without its last writes): the actor
takes it back with a new fence and carries on from the state it acknowledged.

When Redis cannot be reached mid-commit the outcome is unknown: the script may have run
and only its answer been lost. The requester is told ``unavailable``, and the actor keeps
the room and the state it acknowledged last; the change is *in doubt*. Before deciding
anything else the actor settles it: Redis at the change's version with the change's
snapshot means it was stored (it becomes the room's state, as if the commit had
answered); anything else means it was not. So an outage shorter than the lease costs no
change of owner, and the acknowledged state survives it even if Redis comes back
without its last writes (the next commit finds the older version and puts it back).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from ..edge.protocol import error_message
from ..faults import crash_point
from ..metrics import Metrics
from ..records.history import Entry
from ..records.record import RESULTS_KEPT, HandResult, hand_results, last_hand_results
from ..store import UNAVAILABLE, Acquired, Fenced, Store, VersionConflict, lease_token, pack
from . import table as tbl
from .core import (
    Change,
    Command,
    Origin,
    Payout,
    Reply,
    RoomCore,
    left_message,
    listed,
    lobby_summary,
)
from .log import needs_snapshot
from .view import RoomView, Views

log = logging.getLogger(__name__)

_STOP = object()
_TICK = object()
_TAKE_BACK = object()
_PUT_BACK = object()
_REFUSED_BUY_INS = {"insufficient_funds": "your wallet holds less than the buy-in",
                    "banned": "an operator banned this player"}
CATCH_UP_ENTRIES = 300  # stream entries a new owner reads for its last hand's records (a hand and more)
RETRY_SECONDS = 1.0  # after a failed timer step or transfer, try again this much later
CREATOR_ACTS = ("remove_seat", "lock")  # changes a room's creator asks for, kept in the audit log too


LEASE_SAFETY = 0.8  # act as if a lease ran out after this share of its time


@dataclass
class Lease:
    """This process's hold on a room: the fencing token, and until when it surely holds.

    Redis expires the lease ``seconds`` after it executed the last renewal, which was after
    we sent it; so by our own monotonic clock the lease surely holds until ``sent +
    seconds``, and we stop acting at :attr:`deadline`, a margin before that."""

    node: str
    fence: int
    sent: float  # time.monotonic() when the last successful acquisition or renewal was sent
    seconds: float  # the lease's time to live

    @property
    def token(self) -> str:
        return lease_token(self.node, self.fence)

    @property
    def deadline(self) -> float:
        return self.sent + self.seconds * LEASE_SAFETY


class ActorHost(Protocol):
    """What an actor needs from its process."""

    lease_ms: int
    idle_seconds: float

    def reroute(self, room: str, cmd: Command) -> None:
        """This process cannot decide ``cmd`` after all: route it again."""

    def actor_gone(self, actor: RoomActor, reason: str) -> None:
        """The actor stopped (dropped, released or stopped)."""

    def lobby_entry(self, room: str, summary: dict[str, Any]) -> None:
        """Publish the room's lobby summary (in the background)."""

    def lobby_remove(self, room: str) -> None:
        """Take the room off the lobby list (in the background)."""


class RoomActor:
    def __init__(self, core: RoomCore, view: RoomView, lease: Lease, host: ActorHost, store: Store,
                 views: Views, metrics: Metrics, clock: Callable[[], int], snapshot_version: int) -> None:
        self.core = core
        self.view = view
        self.lease = lease
        self.host = host
        self.store = store
        self.views = views
        self.metrics = metrics
        self.clock = clock
        self.queue: asyncio.Queue[Any] = asyncio.Queue()
        self._loop = asyncio.get_running_loop()  # (kept: asking for it is a system call)
        self.task: asyncio.Task[None] | None = None
        self.closed = False  # no new commands (dropped, releasing or stopping)
        self._retry_at = 0.0  # monotonic: a failed step waits until then
        self._summary: dict[str, Any] | None = None
        self._summary_version = core.table.version
        self._dropped: str | None = None  # why the room was dropped
        self._release_on_stop = False
        self._expiry: asyncio.TimerHandle | None = None
        self._current: Command | None = None  # the command being decided
        # a change whose commit went unanswered, with what the commit sent: its snapshot (b"":
        # none), answers and record
        self._in_doubt: tuple[Change, bytes, bytes, bytes] | None = None
        self._snapshot_version = snapshot_version  # of the last full snapshot in Redis

    @property
    def room(self) -> str:
        return self.core.room

    @property
    def table(self) -> tbl.Table:
        return self.core.table

    # --- lifecycle ---------------------------------------------------------------------

    def start(self) -> None:
        self.task = asyncio.create_task(self._run(), name=f"room {self.room}")
        self._arm_expiry()

    def submit(self, cmd: Command) -> bool:
        """Queue a command; False if this actor no longer takes any (route it again)."""
        if self.closed:
            return False
        self.queue.put_nowait((cmd, time.perf_counter()))
        return True

    async def stop(self, release: bool = True) -> None:
        """Finish the queued commands, then stop; ``release`` gives the lease back so
        another process can take the room at once (graceful shutdown)."""
        if not self.closed:
            self.closed = True
            self._release_on_stop = release
            self.queue.put_nowait(_STOP)
        if self.task is not None:
            await asyncio.shield(self.task)

    def renewed(self, sent: float) -> None:
        """The renewal sent at ``sent`` (monotonic) succeeded (renewals may overlap: an
        older one answered last changes nothing)."""
        self.lease.sent = max(self.lease.sent, sent)
        self._arm_expiry()

    def _arm_expiry(self) -> None:
        """Let go of the room the moment the lease may have run out without a renewal."""
        if self._expiry is not None:
            self._expiry.cancel()
        self._expiry = self._loop.call_later(max(0.0, self.lease.deadline - time.monotonic()), self.expire_if_due)

    def expire_if_due(self) -> None:
        """Let go of the room if its lease may have run out by our own clock. Run by the
        expiry timer and by the node's own check (whichever comes first on a busy loop),
        with the same message either way."""
        if not self.closed and time.monotonic() >= self.lease.deadline:
            self._drop(f"lease not renewed in time: {time.monotonic() - self.lease.sent:.2f} s after "
                       f"the last renewal was sent (lease {self.lease.seconds:.2f} s)")

    def lease_lost(self, reason: str) -> None:
        """The node found the lease held by another (or could not renew it in time)."""
        self._drop(reason)

    def lease_vanished(self) -> None:
        """The node found nobody holding the lease: take it back (see :meth:`_take_back`)."""
        if not self.closed:
            self.queue.put_nowait(_TAKE_BACK)

    @property
    def version(self) -> int:
        """The room's version as stored and acknowledged by this owner."""
        return self.core.table.version

    def writes_lost(self) -> None:
        """The node found Redis holding an older version of the room than one this owner
        acknowledged before asking: put the acknowledged state back now (see
        :meth:`_put_back`), not at the next change, which may be a long time coming when
        the player to act is on a process that never heard of the lost version."""
        if not self.closed:
            self.queue.put_nowait(_PUT_BACK)

    # --- the loop ----------------------------------------------------------------------

    async def _run(self) -> None:
        reason = "stopped"
        try:
            await self._pay(self.core.unpaid())  # cash-outs a previous owner did not finish
            await self._record_last_hand()  # and the records of its last hand, in case
            self._publish_summary()
            idle_since = time.monotonic()
            while True:
                item = await self._next(idle_since)
                if item is None:  # idle: let the room go
                    if self._idle():
                        self.closed = True
                        self._release_on_stop = True
                        reason = "idle"
                        break
                    continue
                if item is _STOP:
                    break
                if item is _TAKE_BACK:
                    try:
                        await self._take_back()
                    except UNAVAILABLE:
                        pass  # the renewals find it again, or the deadline lets the room go
                    if self._dropped:
                        break
                    continue
                if item is _PUT_BACK:
                    try:
                        await self._put_back()
                    except UNAVAILABLE:
                        pass  # the renewals find it again, or the next change does
                    except Fenced as exc:
                        log.warning("room %s: %s; dropping the room (fence %d)", self.room, exc, self.lease.fence)
                        self.metrics.fence_failures.inc()
                        self._drop("fenced")
                        break
                    continue
                if item is _TICK:  # a timer's tick that arrived after a command
                    item = "due"
                if isinstance(item, tuple):
                    self._current = item[0]
                    await self._command(*item)
                    self._current = None
                else:
                    await self._due()
                idle_since = time.monotonic()
                if self._dropped:
                    break
        except asyncio.CancelledError:
            reason = "cancelled"
            raise
        except Exception:
            log.exception("room %s: the actor failed", self.room)
            self._drop("actor failed")
            reason = "actor failed"
        finally:
            if self._expiry is not None:
                self._expiry.cancel()
            if self._current is not None:  # failed or cancelled mid-command: route it again
                self.host.reroute(self.room, self._current)  # (a no-op if it was answered)
            if not self._dropped and self._release_on_stop:
                await self._release()
            self._hand_back_queue()
            self.host.actor_gone(self, self._dropped or reason)

    async def _next(self, idle_since: float) -> Any:
        """The next queued command, ``"due"`` when a timer is due, None when idle too long."""
        if not self.queue.empty():
            return self.queue.get_nowait()
        wake = self.core.wake_ms()
        now = self.clock()
        timeout: float | None = None
        if wake is not None or self.core.unpaid() or self._in_doubt is not None:
            due_ms = now if wake is None or self._in_doubt is not None else wake
            timeout = max(0.0, (due_ms - now) / 1000, self._retry_at - time.monotonic())
            if timeout == 0.0:
                return "due"
        idle_left = self.host.idle_seconds - (time.monotonic() - idle_since)
        if idle_left <= 0 and self._idle():
            return None
        if timeout is None or 0 < idle_left < timeout:
            waiting, on_tick = max(0.0, idle_left), None
        else:
            waiting, on_tick = timeout, "due"
        # one timer that drops a tick into the queue (cheaper than asyncio.wait_for per wait);
        # a tick left over after a command came first just makes one needless look at core.due
        timer = self._loop.call_later(waiting, self.queue.put_nowait, _TICK)
        try:
            item = await self.queue.get()
        finally:
            timer.cancel()
        if item is _TICK:
            return on_tick
        return item

    def _idle(self) -> bool:
        """Nothing to do soon: the lease can go back. A timer further off than the idle time
        (an empty room's closing) is left to the wake-up that :meth:`_release` writes."""
        if not self.queue.empty() or self.core.unpaid() or self._in_doubt is not None:
            return False
        wake = self.core.wake_ms()
        return wake is None or wake - self.clock() > self.host.idle_seconds * 1000

    async def _command(self, cmd: Command, enqueued: float) -> None:
        if not await self._settle():
            self._count(cmd, "unavailable")
            self.views.delivery.answer(cmd.origin, _unavailable(cmd.origin, self.room))
            return
        try:
            decision = self.core.handle(cmd, self.clock())
        except Exception:
            log.exception("room %s: command %s failed", self.room, cmd.kind)
            self._count(cmd, "internal_error")
            self.views.delivery.answer(cmd.origin, error_message(
                "internal_error", "the server failed to process this request; nothing changed",
                cmd.origin.ref, room=self.room))
            return
        if isinstance(decision, Reply):
            self._count(cmd, decision.msg.get("code") if decision.msg.get("t") == "error" else None,
                        duplicate=decision.msg.get("t") == "ack")
            self.views.delivery.answer(decision.origin, decision.msg)
            return
        await self._store(decision, cmd, enqueued)

    async def _due(self) -> None:
        if time.monotonic() < self._retry_at:
            return
        if not await self._settle():
            self._retry_at = time.monotonic() + RETRY_SECONDS
            return
        if self.core.unpaid():
            await self._pay(self.core.unpaid())
        if time.monotonic() < self._retry_at:
            return
        try:
            change = self.core.due(self.clock())
        except Exception:
            log.exception("room %s: an automatic step failed", self.room)
            self._retry_at = time.monotonic() + RETRY_SECONDS
            return
        if change is None:
            wake = self.core.wake_ms()
            if wake is not None and wake <= self.clock():  # nothing to do after all: do not spin
                self._retry_at = time.monotonic() + 0.05
            return
        if change.kind == "start":
            self.metrics.hands.labels(self.core.game.name).inc()
        elif change.kind == "timeout":
            self.metrics.timeouts.inc()
        elif change.kind == "close":
            log.info("room %s: closed, nobody sat in it for %d min", self.room,
                     self.core.close_empty_after_ms // 60_000)
        elif change.kind == "stand_up":
            log.info("room %s: seat %s freed, its player sat out for %g min", self.room,
                     ", ".join(str(e["seat"]) for e in change.events), self.core.stand_up_after_ms / 60_000)
        await self._store(change, None)

    def _count(self, cmd: Command, code: str | None, duplicate: bool = False) -> None:
        if code is not None:
            self.metrics.errors.labels(code).inc()
        if cmd.kind == "act":
            if duplicate:
                self.metrics.actions.labels("duplicate").inc()
            elif code is not None:
                self.metrics.actions.labels("error" if code == "internal_error" else "rejected").inc()

    # --- storing a change --------------------------------------------------------------

    async def _store(self, change: Change, cmd: Command | None, enqueued: float | None = None) -> bool:
        """Carry out a change: buy-in, fenced commit, show, transfers. True once stored."""
        if time.monotonic() >= self.lease.deadline:
            self._drop("lease not renewed in time")
            if cmd is not None:
                self.host.reroute(self.room, cmd)
            return False
        if change.debit is not None and not await self._debit(change):
            return False
        whole = needs_snapshot(self.core.table, change, self._snapshot_version)
        snapshot = pack(tbl.to_dict(change.table, self.core.game)) if whole else b""
        record = pack(change.record)
        answers = pack([a.to_wire() for a in change.answers]) if change.answers else b""
        try:
            await self._commit(change, snapshot, answers, record)
        except (Fenced, VersionConflict) as exc:
            log.warning("room %s: %s; dropping the room (fence %d)", self.room, exc, self.lease.fence)
            self.metrics.fence_failures.inc()
            self._drop("fenced")
            if cmd is not None:
                self.host.reroute(self.room, cmd)
            return False
        except UNAVAILABLE as exc:
            log.warning("room %s: Redis unavailable while storing version %d (%s); the change is in doubt",
                        self.room, change.table.version, exc)
            self._in_doubt = (change, snapshot, answers, record)
            if change.origin is not None:
                self.views.delivery.answer(change.origin, _unavailable(change.origin, self.room))
            self._retry_at = time.monotonic() + RETRY_SECONDS
            return False
        crash_point("after_join_commit" if change.debit is not None else
                    "after_leave_commit" if change.payouts else "")
        await self._stored(change, whole, enqueued)
        return True

    async def _stored(self, change: Change, whole: bool, enqueued: float | None = None) -> None:
        """``change`` is in Redis (``whole``: with a full snapshot): make it the room's
        state, show it, finish its transfers."""
        if whole:
            self._snapshot_version = change.table.version
        before = self.core.table
        self.core.stored(change)
        self.views.apply(self.view, change.table, change.events, change.answers)
        if change.kind == "act" and enqueued is not None:  # answered: the ack is on its way
            self.metrics.actions.labels("accepted").inc()
            self.metrics.action_latency.observe(time.perf_counter() - enqueued)
        self._publish_summary()
        await self._after(change)
        await self._record(hand_results(before, change.table, change.events))
        if change.kind in CREATOR_ACTS and change.origin is not None and change.origin.player:
            await self._audit(change)

    async def _audit(self, change: Change) -> None:
        """The room creator's act (a seat removed, the room locked) in the audit log, as an
        operator's are (server/ops/moderation.py); the room's stream has it too."""
        origin = change.origin
        assert origin is not None
        detail = {k: v for e in change.events for k, v in e.items() if k in ("seat", "player", "stack", "locked")}
        try:
            await self.store.audit(change.kind, self.room, f"creator {origin.player} ({origin.name})", "", detail)
        except UNAVAILABLE:
            log.warning("room %s: the audit log missed a %s (Redis unavailable)", self.room, change.kind)

    async def _record_last_hand(self) -> None:
        """Write the records of the last hand again, from the stream, if it is over: the
        previous owner may have stopped between storing its end and writing them (each is
        written once however often this runs)."""
        if self.core.table.hand is None or not self.core.table.hand.is_over:
            return
        try:
            entries = await self.store.recent_entries(self.room, CATCH_UP_ENTRIES)
        except UNAVAILABLE:
            return
        results, time_ms = last_hand_results(self.core.table, [Entry(*e) for e in entries])
        await self._record(results, time_ms)

    async def _record(self, results: list[HandResult], time_ms: int | None = None) -> None:
        """Add a finished hand's results to its players' records (:mod:`server.records.record`).
        Each is written once however often this runs; one Redis could not take is left out
        of that player's record (the room's hand history still has the hand)."""
        if not results:
            return
        when = time_ms or self.clock()
        done = await asyncio.gather(*(  # one round trip for every player of the hand
            self.store.record_hand(r.player, r.key, when, r.game, r.net, r.to_wire(), RESULTS_KEPT)
            for r in results), return_exceptions=True)
        for result, outcome in zip(results, done, strict=True):
            if isinstance(outcome, UNAVAILABLE):
                log.warning("room %s: hand %d not added to %s's record (%s)", self.room, result.hand,
                            result.player, outcome)
            elif isinstance(outcome, BaseException):
                raise outcome

    async def _settle(self) -> bool:
        """Find out whether the change whose commit went unanswered is in Redis, and if it
        is, make it the room's state. False while Redis cannot tell (decide nothing then)."""
        if self._in_doubt is None:
            return True
        change, snapshot, answers, record = self._in_doubt
        try:
            version, stored = await self.store.last_change(self.room)
            if version == change.table.version and stored == record:
                await self.store.replicated()  # (with --redis-wait-replicas) on the replicas too
                await self.store.announce(self.room, version, snapshot, change.events, answers, record)
        except UNAVAILABLE:
            return False
        self._in_doubt = None
        if version == change.table.version and stored == record:
            log.warning("room %s: version %d, whose commit went unanswered, was stored", self.room, version)
            self.metrics.in_doubt.labels("stored").inc()
            await self._stored(change, bool(snapshot))
        else:  # not stored; an older or another writer's version is the next commit's to find
            log.warning("room %s: version %d, whose commit went unanswered, was not stored (Redis is at %d)",
                        self.room, change.table.version, version)
            self.metrics.in_doubt.labels("not_stored").inc()
        return True

    async def _commit(self, change: Change, snapshot: bytes, answers: bytes, record: bytes) -> None:
        expected = self.core.table.version
        keep_all = self.core.table.league is not None  # a match's results are read from its whole stream
        try:
            await self.store.commit(self.room, self.lease.token, expected, snapshot, change.events,
                                    change.granted, answers, keep_all, record)
            return
        except VersionConflict as exc:
            if exc.version == expected + 1 and await self.store.last_change(self.room) == (expected + 1, record):
                # a retried commit whose first try was stored (and, waiting for replicas, not published)
                await self.store.replicated()
                await self.store.announce(self.room, expected + 1, snapshot, change.events, answers, record)
                return
            if exc.version >= expected:
                raise
            # Redis holds an older version than one we acknowledged: it lost writes (a
            # failover to a replica that had not received them). Put our state back first.
            await self._restore(exc.version)
        except Fenced as exc:
            if exc.holder is not None or not await self._take_back():
                raise
        await self.store.commit(self.room, self.lease.token, expected, snapshot, change.events,
                                change.granted, answers, keep_all, record)

    async def _take_back(self) -> bool:
        """Nobody holds the lease, though by our own clock it has not run out: Redis lost it
        (a failover, a restart without its last writes). Take it again, with a new fence,
        and put back what Redis lost of the room too; False if the room was dropped instead
        (too late by our clock, another node took it, Redis holds a newer version). Raises
        one of ``UNAVAILABLE`` if Redis cannot be reached."""
        if time.monotonic() >= self.lease.deadline:
            self._drop("lease not renewed in time")
            return False
        sent = time.monotonic()
        got = await self.store.acquire(self.room, self.lease.node, self.host.lease_ms)
        if not isinstance(got, Acquired):
            self._drop(f"lease taken by {got}")
            return False
        log.warning("room %s: the lease had vanished from Redis; taken back (fence %d -> %d)",
                    self.room, self.lease.fence, got.fence)
        self.lease.fence = got.fence
        self.renewed(sent)
        if got.version > self.core.table.version:
            self._drop(f"Redis holds version {got.version}, newer than {self.core.table.version}")
            return False
        if got.version < self.core.table.version:
            await self._restore(got.version)
        return True

    async def _put_back(self) -> None:
        """Write the acknowledged state back if Redis still holds an older version (it may
        have been put back by a change since the renewal found it). Raises one of
        ``UNAVAILABLE``, or :class:`Fenced` if the lease went to another node meanwhile."""
        found, _record = await self.store.last_change(self.room)
        if 0 < found < self.core.table.version:  # (0: the room is gone, as a closed one goes)
            await self._restore(found)

    async def _restore(self, found: int) -> None:
        """Write back the acknowledged state over the older ``found`` version Redis holds."""
        version = self.core.table.version
        log.error("room %s: Redis holds version %d but version %d was acknowledged (lost writes, "
                  "e.g. a failover): writing the acknowledged state back", self.room, found, version)
        self.metrics.lost_writes.inc()
        snapshot = pack(tbl.to_dict(self.core.table, self.core.game))
        if not await self.store.restore(self.room, self.lease.token, version, snapshot):
            raise Fenced(self.room, await self.store.lease_holder(self.room), found)
        self._snapshot_version = version

    async def _debit(self, change: Change) -> bool:
        d = change.debit
        assert d is not None and change.origin is not None
        try:
            refused, _wallet = await self.store.debit(d.player, d.xid, d.amount, self.room, self.clock())
        except UNAVAILABLE:
            # the journal entry may exist: the transfer sweeper refunds it (never stored here)
            self.views.delivery.answer(change.origin, _unavailable(change.origin, self.room))
            return False
        crash_point("after_debit")
        if refused is not None:
            self.metrics.errors.labels(refused).inc()
            self.views.delivery.answer(change.origin, error_message(
                refused, _REFUSED_BUY_INS[refused], change.origin.ref, room=self.room))
        return refused is None

    async def _after(self, change: Change) -> None:
        """The transfers' later steps, once the change is stored (all idempotent; what
        fails here is finished later by this actor, the sweeper, or the next owner)."""
        try:
            if change.debit is not None:
                await self.store.finish_debit(change.debit.player, change.debit.xid, self.room)
                self.core.buy_in_closed(change.debit.xid)
            for player, xid in change.forget:
                await self.store.forget_credit(player, xid)
        except UNAVAILABLE:
            pass
        await self._pay(change.payouts)

    async def _pay(self, payouts: list[Payout]) -> None:
        for p in payouts:
            try:
                wallet = await self.store.credit(p.player, p.xid, p.amount, self.room)
            except UNAVAILABLE:
                self._retry_at = time.monotonic() + RETRY_SECONDS
                return
            self.core.paid_out(p.xid)
            msg = left_message(self.room, p, wallet)
            unwatch = p.reason == "left"
            self.views.delivery.notice(self.view, p.player, msg, unwatch, p.origin)
            try:
                await self.store.publish_notice(self.room, {
                    "notice": p.player, "msg": msg, "unwatch": unwatch, "from": self.lease.node,
                    "origin": p.origin.to_wire() if p.origin is not None else None,
                })
            except UNAVAILABLE:
                pass

    def lobby_entry(self) -> dict[str, Any]:
        """The room as the lobby lists it now (without spectators)."""
        return dict(self._summary or lobby_summary(self.core.table), version=self._summary_version)

    def _publish_summary(self) -> None:
        if self.core.table.closed and self._summary is not None:
            self._summary = None
            self.host.lobby_remove(self.room)
        if not listed(self.core.table):
            return
        summary = lobby_summary(self.core.table)
        if summary != self._summary:
            self._summary = summary
            self._summary_version = self.core.table.version
            self.host.lobby_entry(self.room, self.lobby_entry())

    # --- letting go -----------------------------------------------------------------------

    def _drop(self, reason: str) -> None:
        """Stop acting for this room at once (another process owns it, or may)."""
        if self._dropped:
            return
        self._dropped = reason
        self.closed = True
        if self._expiry is not None:
            self._expiry.cancel()
        self.queue.put_nowait(_STOP)  # ends the loop after the step under way
        self.metrics.ownership.labels("dropped").inc()
        log.warning("room %s: dropped (%s; fence %d)", self.room, reason, self.lease.fence)

    def _hand_back_queue(self) -> None:
        while not self.queue.empty():
            item = self.queue.get_nowait()
            if isinstance(item, tuple):
                self.host.reroute(self.room, item[0])

    async def _release(self) -> None:
        """Give the lease back and leave a wake-up for whoever takes the room next."""
        wake = self.core.wake_ms()
        if self.core.unpaid():
            wake = self.clock()
        try:
            await self.store.set_wakeups({self.room: wake})
            await self.store.release(self.room, self.lease.token)
            self.metrics.ownership.labels("released").inc()
        except UNAVAILABLE:
            pass  # the lease runs out by itself; the wake-up left by the renewals stands


def _unavailable(origin: Origin, room: str) -> dict[str, Any]:
    return error_message("unavailable", "storage is unavailable right now; the request may not have been "
                         "applied: retry it (an act with the same id is applied at most once)",
                         origin.ref, room=room)
