"""This process's views of rooms: who watches each room here, and what each one sees.

Any process may have viewers of any room (players seated there, spectators), whoever
owns it. A :class:`RoomView` keeps the room's latest stored table and renders, for each
local viewer, the ``event`` messages (filtered per seat) and the ``room`` snapshot. It
learns of changes from the room's channel (the commit script publishes every change,
after storing it) or, on the owner's process, straight from the actor; both go through
:meth:`Views.apply`, which ignores versions it has already seen and fills a gap (a
message lost while reconnecting) from the snapshot in the message and the event stream.

A viewer receives the room's full ``room`` snapshot once (on joining, spectating,
resuming or asking with ``sync``) and then one ``update`` per change: the change's events
as that viewer may see them and a patch (:mod:`server.room.patch`) from the snapshot it
holds to its new one. The view remembers which snapshot each connection holds; viewers
who see the same thing and hold the same snapshot (all spectators, one player's several
connections) share one rendered update.

A change carries the answers to the requests it settles (``ack``, the joiner's
snapshot, ...). They, the updates and every other answer leave through the process's
:class:`~server.room.delivery.Delivery`, which the views own.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from engine.game import Event, Game, ViewMemo, event_for, is_private

from ..aio import cancel_and_wait, single_flight, stop_if_cancelled
from ..metrics import Metrics
from ..store import UNAVAILABLE, ChangeMessage, Store, pack, parse_room_message, unpack
from . import fair, league_match
from . import table as tbl
from .core import Answer, Origin
from .delivery import Delivery, with_ref
from .log import RoomLogError, current_table, replay
from .patch import snapshot_patch, viewer_patch
from .viewers import Connections, Viewer

log = logging.getLogger(__name__)

PRESENCE_REFRESH_SECONDS = 10.0
VIEW_IDLE_SECONDS = 30.0  # a view nobody watches is kept this long (requests may be in flight)

Sight = tuple[int | None, int | None]  # what decides a viewer's snapshot (see RoomView._sight)
# A viewer's snapshot as the parts it is made of: the part every viewer holds alike
# (RoomView.shared), its seat (``your_seat``) and its view of the hand (``view``)
Held = tuple[dict[str, Any], int | None, dict[str, Any] | None]


class RoomView:
    """One room as this process shows it to its local viewers."""

    def __init__(self, game: Game, table: tbl.Table, views: Views) -> None:
        self.game = game
        self.table = table
        self.views = views
        self.viewers: dict[int, Viewer] = {}  # connection id -> session
        # connection id -> the snapshot it holds, as the parts it was rendered from
        self.held: dict[int, Held] = {}
        self.pins = 0  # 1 while this process owns the room
        self.spectators_reported = 0
        self.touched = time.monotonic()  # last opened or asked: idle views are closed later
        # what shared() rendered last, reused while unchanged (never changed in place: a
        # viewer's held snapshot may share them)
        self._seats: dict[int, tuple[tuple[Any, ...], dict[str, Any]]] = {}
        self._fair: tuple[Any, dict[str, Any]] = (_NOT_YET, {})  # (the next hand's seed, its snapshot part)
        self._memo: ViewMemo = {}  # what the game's view rendered before (see Game)

    @property
    def room(self) -> str:
        return self.table.room

    @property
    def version(self) -> int:
        return self.table.version

    def seated_players(self) -> list[str]:
        return [s.player for s in self.table.seats if s is not None and not s.bot]

    def seat_of(self, player: str | None) -> int | None:
        return tbl.seat_of(self.table, player) if player else None

    # --- rendering -----------------------------------------------------------------------

    def snapshot(self, session: Viewer, ref: Any = None, shared: dict[str, Any] | None = None) -> dict[str, Any]:
        """The ``room`` message for one viewer: :meth:`shared` (pass it in when rendering
        for several viewers at once) with the viewer's seat and view of the hand."""
        msg = _snapshot(self._render(self._sight(session), shared or self.shared()))
        if ref is not None:
            msg = dict(msg, ref=ref)
        return msg

    def send_snapshot(self, session: Viewer, ref: Any = None, shared: dict[str, Any] | None = None) -> None:
        """Send ``session`` the full ``room`` snapshot; its next updates patch this one.
        The chat's last lines follow (a ``chat`` message, when anyone talked), which the
        ``chat`` events of the updates then extend."""
        held = self.held[session.id] = self._render(self._sight(session), shared or self.shared())
        snap = _snapshot(held)
        session.send(snap if ref is None else dict(snap, ref=ref))
        if self.table.chat:
            session.send({"t": "chat", "room": self.room, "version": self.table.version, "lines": self.table.chat})

    def _sight(self, session: Viewer) -> Sight:
        """What decides a viewer's snapshot: ``(its seat, the seat whose cards it sees)``."""
        return _sight_of(self._sights(), session.player_id)

    def _sights(self) -> dict[str, Sight]:
        """The sight of each player seated here (the first seat of one seated twice)."""
        t = self.table
        dealt = t.hand.players if t.hand is not None else ()
        sights: dict[str, Sight] = {}
        for i, s in enumerate(t.seats):
            if s is not None and s.player not in sights:
                # the hand's view of a seat belongs to the player dealt into it: whoever sits
                # down there after the hand sees the last hand as a spectator does
                sights[s.player] = (i, i if i < len(dealt) and dealt[i] == s.player else None)
        return sights

    def _render(self, sight: Sight, shared: dict[str, Any]) -> Held:
        """The parts of the snapshot of viewers with ``sight`` (see :data:`Held`)."""
        t = self.table
        return shared, sight[0], self.game.view(t.hand, sight[1], self._memo) if t.hand is not None else None

    def shared(self) -> dict[str, Any]:
        """What every viewer's ``room`` message holds alike (all but ``your_seat`` and ``view``)."""
        t = self.table
        playing = tbl.playing(t)
        timer = None
        if playing and t.hand.to_act is not None and t.deadline_ms is not None:
            timer = {"seat": t.hand.to_act, "deadline_ms": t.deadline_ms}
            if t.bank_since_ms is not None:  # the clock runs on the seat's time bank
                timer["bank_since_ms"] = t.bank_since_ms
        banks = "time_bank_seconds" in t.options
        seats = [None if s is None else self._seat(i, s.player, s.name, tbl.live_stack(t, i),
                                                   s.bot or self.views.is_online(s.player), s.sitting_out,
                                                   s.leaving, s.bot, s.auto, s.bank_ms if banks else None)
                 for i, s in enumerate(t.seats)]
        if t.next_seed != self._fair[0]:
            # (a hand's own proof is said once, in its hand_started and hand_ended events,
            # and in `history`: not in every snapshot as well)
            self._fair = (t.next_seed, {"next_commitment": fair.next_commitment(t)})
        return {
            "t": "room", "room": self.room, "game": t.game, "name": t.options["name"],
            "version": t.version, "options": t.options, "config": t.config, "seats": seats,
            "your_seat": None, "button": t.button, "hand_no": t.hand_no, "playing": playing,
            "view": None, "timer": timer, "next_hand_ms": None if playing else t.next_hand_ms,
            "code": t.code,  # everyone here had it (or sits here): they may share it
            "closed": t.closed,
            "creator": t.creator,
            "locked": t.locked,
            "league": league_match.public_league(t),
            "fairness": self._fair[1],
        }

    def _seat(self, i: int, *shown: Any) -> dict[str, Any]:
        """Seat ``i`` as :meth:`shared` shows it: the same object as last time when nothing
        in it changed, so that working out a patch passes over it at once (``is``)."""
        kept = self._seats.get(i)
        if kept is not None and kept[0] == shown:
            return kept[1]
        player, name, stack, connected, sitting_out, leaving, bot, auto, bank_ms = shown
        seat = {"player": player, "name": name, "stack": stack, "connected": connected,
                "sitting_out": sitting_out, "leaving": leaving, "bot": bot, "auto": auto}
        if bank_ms is not None:  # rooms with a time bank
            seat["time_bank_ms"] = bank_ms
        self._seats[i] = (shown, seat)
        return seat

    def refresh(self) -> None:
        """Bring every viewer up to date when something shown changed without a new
        version (someone's connection status): an update with no events."""
        self.update(self.viewers.values(), [], self.shared())

    def spectators(self) -> int:
        """How many players watch here without a seat."""
        seated = {s.player for s in self.table.seats if s is not None}
        return len({v.player_id for v in self.viewers.values()} - seated)

    def update(self, viewers: Iterable[Viewer], events: list[Event], shared: dict[str, Any],
                acks: dict[int, tuple[Any, Any]] | None = None) -> None:
        """Send each of ``viewers`` the ``update`` from the snapshot it holds to the table's
        now: rendered once per distinct sight and held snapshot, the same message object
        for every viewer in a group; the patch of the part every viewer sees alike is
        worked out once per change. A viewer that holds no snapshot gets the events and a
        full one."""
        groups: dict[tuple[Sight, int], list[Viewer]] = {}
        sights = self._sights()
        for s in list(viewers):
            groups.setdefault((_sight_of(sights, s.player_id), id(self.held.get(s.id))), []).append(s)
        renders: dict[Sight, Held] = {}
        common: dict[int, dict[str, Any]] = {}  # id of a former shared part -> its patch to ``shared``
        # seat -> the events as it sees them (the same for every seat when none is private)
        seen_by: dict[int | None, list[Event]] = {}
        everyone = None if any(map(is_private, events)) else list(events)
        room, version = self.room, self.table.version
        for (sight, _), sessions in groups.items():
            mine = renders.get(sight)
            if mine is None:
                mine = renders[sight] = self._render(sight, shared)
            seen = everyone if everyone is not None else seen_by.get(sight[0])
            if seen is None:
                seen = seen_by[sight[0]] = [event_for(e, sight[0]) for e in events]
            held = self.held.get(sessions[0].id)
            if held is None:
                messages = [{"t": "event", "room": room, "version": version, "event": e} for e in seen]
                messages.append(_snapshot(mine))
            else:
                before_shared = held[0]
                patch = common.get(id(before_shared))
                if patch is None:
                    patch = common[id(before_shared)] = snapshot_patch(before_shared, shared)
                update = {"t": "update", "room": room, "version": version,
                          "events": seen, "patch": viewer_patch(patch, held, mine)}
                if before_shared["version"] != version - 1:  # said only when it is not the one before
                    update["base"] = before_shared["version"]
                messages = [update]
            for s in sessions:
                self.held[s.id] = mine
                ack = acks.get(s.id) if acks else None
                if ack is not None:  # held is not None: the requester's own copy carries its ack
                    s.send(with_ref(dict(messages[0], ack=ack[0]), ack[1]))
                    continue
                for m in messages:
                    s.send(m)


class Views:
    """Every :class:`RoomView` of this process, its subscriptions, and presence.

    ``subscribe(channel)`` / ``unsubscribe(channel)`` come from the node's pub/sub
    reader, which hands every room channel message to :meth:`on_message`.
    ``lobby_changed()`` is called when this process's spectator counts change.
    ``send_to_node(node, message)`` puts a message in another process's inbox: what
    :attr:`delivery` sends a request's answer with.
    """

    def __init__(self, node: str, store: Store, games: dict[str, Game], sessions: Connections,
                 metrics: Metrics, subscribe: Callable[[str], Awaitable[None]],
                 unsubscribe: Callable[[str], Awaitable[None]], lobby_changed: Callable[[], None],
                 clock: Callable[[], int], send_to_node: Callable[[str, dict[str, Any]], Awaitable[bool]],
                 room_moved: Callable[[str, str], None] = lambda room, owner: None) -> None:
        self.node = node
        self.store = store
        self.games = games
        self.sessions = sessions
        self.metrics = metrics
        self._subscribe = subscribe
        self._unsubscribe = unsubscribe
        self._lobby_changed = lobby_changed
        self._room_moved = room_moved
        self.clock = clock
        self.views: dict[str, RoomView] = {}
        self._opening: dict[str, asyncio.Future[RoomView | None]] = {}
        self.presence: dict[str, bool] = {}  # players seated in rooms viewed here -> connected anywhere
        self._spectators_dirty: set[str] = set()
        self._spectators_task: asyncio.Task[None] | None = None
        self.delivery = Delivery(node, sessions, self, send_to_node)  # how changes leave here

    def get(self, room: str) -> RoomView | None:
        return self.views.get(room)

    async def stop(self) -> None:
        """Stop reporting spectator counts (on shutdown, before the Redis client closes:
        the reporter retries while Redis refuses, and a closed client always refuses)."""
        task, self._spectators_task = self._spectators_task, None
        await cancel_and_wait([task])

    def is_online(self, player: str) -> bool:
        return self.sessions.online(player) or self.presence.get(player, False)

    # --- opening and closing views --------------------------------------------------------

    async def open(self, room: str) -> RoomView | None:
        """The view of ``room``, subscribed and loaded (None: no such room).

        Raises one of ``UNAVAILABLE`` when Redis cannot be reached."""
        view = self.views.get(room)
        if view is not None:
            return view
        return await single_flight(self._opening, room, lambda: self._load(room))

    def _channels(self, room: str) -> tuple[str, str]:
        k = self.store.keys
        return k.notice_channel(room), k.room_channel(room)

    async def _load(self, room: str) -> RoomView | None:
        for channel in self._channels(room):  # first, so that no change falls between load and subscription
            await self._subscribe(channel)
        try:
            found = await self.store.room_log(room)
        except BaseException:
            await self._unsubscribe_all(room)
            raise
        if found is None:
            await self._unsubscribe_all(room)
            return None
        name = unpack(found.snapshot)["game"]
        game = self.games.get(name)
        try:
            if game is None:
                raise RoomLogError(f"it hosts game {name!r}, which this server does not")
            table = current_table(game, found)
        except RoomLogError as exc:
            await self._unsubscribe_all(room)
            log.warning("room %s: not opened: %s", room, exc)
            return None
        view = RoomView(game, table, self)
        self.views[room] = view
        await self._load_presence(view.seated_players())
        return view

    def adopt(self, view: RoomView) -> None:
        """Register a view built here (a room this process just created)."""
        self.views[view.room] = view

    async def _unsubscribe_all(self, room: str) -> None:
        for channel in self._channels(room):
            await self._unsubscribe(channel)

    async def subscribe_new(self, room: str) -> None:
        """Listen to the notices of a room created here (and owned here: its changes are
        shown by its actor)."""
        await self._subscribe(self.store.keys.notice_channel(room))

    def owned(self, view: RoomView) -> None:
        """This process owns the room now: its actor shows the changes; the channel that
        carries them is not needed."""
        view.pins += 1
        if view.pins == 1:
            asyncio.get_running_loop().create_task(self._unsubscribe(self.store.keys.room_channel(view.room)))

    def disowned(self, view: RoomView) -> None:
        """This process no longer owns the room: follow its changes on the channel again."""
        view.pins -= 1
        if view.pins == 0 and self.views.get(view.room) is view:
            asyncio.get_running_loop().create_task(self._follow(view))

    async def _follow(self, view: RoomView) -> None:
        try:
            await self._subscribe(self.store.keys.room_channel(view.room))
            if self.views.get(view.room) is not view:  # closed meanwhile
                await self._unsubscribe(self.store.keys.room_channel(view.room))
                return
            await self._resync(view)  # what the next owner stored before we listened
        except UNAVAILABLE:
            pass  # the pub/sub reader resyncs every view when Redis is back
        self.maybe_close(view)

    def maybe_close(self, view: RoomView, idle: float = VIEW_IDLE_SECONDS) -> None:
        """Forget a view nobody here needs any more: no viewer, not owned here, and not
        asked about for ``idle`` seconds (a request's answer may still be on its way)."""
        if view.viewers or view.pins or self.views.get(view.room) is not view:
            return
        if time.monotonic() - view.touched < idle:
            return
        del self.views[view.room]
        asyncio.get_running_loop().create_task(self._unsubscribe_all(view.room))

    def close_idle(self) -> None:
        for view in list(self.views.values()):
            self.maybe_close(view)

    # --- watching ----------------------------------------------------------------------

    def watch(self, view: RoomView, session: Viewer) -> None:
        view.viewers[session.id] = session
        session.watching.add(view.room)
        self._spectators_may_change(view)

    def unwatch(self, view: RoomView, session: Viewer) -> None:
        view.viewers.pop(session.id, None)
        view.held.pop(session.id, None)
        session.watching.discard(view.room)
        self._spectators_may_change(view)
        self.maybe_close(view)

    def disconnected(self, session: Viewer) -> None:
        for room in list(session.watching):
            view = self.views.get(room)
            if view is not None:
                self.unwatch(view, session)

    def _spectators_may_change(self, view: RoomView) -> None:
        if view.spectators() != view.spectators_reported:
            self._spectators_dirty.add(view.room)
            if self._spectators_task is None or self._spectators_task.done():
                self._spectators_task = asyncio.get_running_loop().create_task(self._report_spectators())

    async def _report_spectators(self) -> None:
        await asyncio.sleep(0.05)  # coalesce a burst of watch/unwatch
        while self._spectators_dirty:
            room = self._spectators_dirty.pop()
            view = self.views.get(room)
            count = view.spectators() if view is not None else 0
            try:
                await self.store.set_spectators(room, self.node, count)
            except UNAVAILABLE:
                self._spectators_dirty.add(room)
                stop_if_cancelled()
                await asyncio.sleep(1.0)
                continue
            if view is not None:
                view.spectators_reported = count
            self._lobby_changed()

    # --- changes ---------------------------------------------------------------------------

    def apply(self, view: RoomView, table: tbl.Table, events: list[Event], answers: list[Answer]) -> None:
        """Show a stored change (``table`` is the new state) to the local viewers."""
        if table.version <= view.version:
            return
        seated_before = set(view.seated_players())
        view.table = table
        try:
            self.delivery.change(view, events, answers)
        except Exception:  # the change is stored; a failure to render it must not lose it
            log.exception("room %s: showing version %d failed", view.room, table.version)
        if set(view.seated_players()) != seated_before:
            self._spectators_may_change(view)
            newcomers = [p for p in view.seated_players() if p not in self.presence]
            if newcomers:
                asyncio.get_running_loop().create_task(self._load_presence(newcomers, refresh=view))

    async def on_message(self, room: str, data: bytes) -> None:
        """A message on a room's channel (from the node's pub/sub reader)."""
        view = self.views.get(room)
        if view is None:
            return
        msg = parse_room_message(data)
        if isinstance(msg, ChangeMessage):
            await self._on_change(view, msg)
        elif "presence" in msg:
            if msg.get("from") != self.node:
                self._set_presence(msg["presence"], bool(msg["online"]))
        elif "owner" in msg:
            if msg.get("from") != self.node:
                self._room_moved(room, msg["owner"])
                if not view.pins:
                    # what the last owner stored but could not tell anyone is in Redis: with
                    # --redis-wait-replicas a change is published only after the replicas
                    # confirm it, and an owner that dies in between leaves it unannounced
                    # (its players waited for the turn's clock: found by the chaos soak)
                    await self.catch_up(view)
        elif "notice" in msg:
            if msg.get("from") != self.node:
                self.delivery.notice(view, msg["notice"], msg["msg"], msg.get("unwatch", False),
                                     Origin.from_wire(msg["origin"]) if msg.get("origin") else None)

    async def _on_change(self, view: RoomView, msg: ChangeMessage) -> None:
        if msg.version <= view.version or view.pins:
            return  # old, or a room this process owns: its actor shows its own changes
        if msg.version > view.version + 1:  # missed some: made again from Redis
            self.metrics.view_gaps.inc()
            await self.catch_up(view)
            return
        if msg.record:  # the next change: make it here too
            try:
                change = replay(view.game, view.table, unpack(msg.record), msg.version)
            except RoomLogError:
                log.exception("room %s: replaying version %d failed; reloading", view.room, msg.version)
                await self._reload(view)
                return
            if (pack(change.events) if change.events else b"") != msg.events:
                # made differently here than by its owner: this view's table is not the
                # owner's (it never should be); the room as stored is the truth
                log.error("room %s: version %d replayed with other events than its owner's; reloading",
                          view.room, msg.version)
                self.metrics.view_reloads.inc()
                await self._reload(view)
                return
            table, events = change.table, change.events  # the owner's, as the check just showed
        else:  # a state put back whole (lost writes restored)
            table = tbl.from_dict(unpack(msg.snapshot), view.game)
            events = unpack(msg.events) if msg.events else []
        answers = [Answer.from_wire(a) for a in unpack(msg.answers)] if msg.answers else []
        self.apply(view, table, events, answers)

    async def _missed_events(self, view: RoomView, version: int) -> list[Event]:
        """The events of the changes between the view's version and ``version`` (those
        still in the stream), when the view missed them."""
        try:
            missed = await self.store.recent_events(view.room, view.version, version - 1)
        except UNAVAILABLE:
            missed = []
        return [e for _, evs in missed for e in evs]

    async def resync(self) -> None:
        """Reload every view from Redis (after the pub/sub connection was lost)."""
        for view in list(self.views.values()):
            try:
                await self._resync(view)
            except UNAVAILABLE:
                return

    async def _reload(self, view: RoomView) -> None:
        """Replace the view's table by the room as stored (its last snapshot and the
        records after it), not by replaying from the view's own table, and send every
        viewer a full snapshot of it."""
        try:
            found = await self.store.room_log(view.room)
        except UNAVAILABLE:
            return  # the next change finds the view behind and loads it again
        if found is None or view.pins:
            return
        try:
            view.table = current_table(view.game, found)
        except RoomLogError:
            log.exception("room %s: cannot be reloaded", view.room)
            return
        shared = view.shared()
        for session in list(view.viewers.values()):
            view.send_snapshot(session, None, shared)

    async def catch_up(self, view: RoomView) -> None:
        try:
            await self._resync(view)
        except UNAVAILABLE:
            pass  # the next change finds the gap again, or the pub/sub reader's resync

    async def _resync(self, view: RoomView) -> None:
        """Bring the view up to the room's version in Redis (after a gap, or when the
        pub/sub connection was lost). The changes after the view's version are made again
        from their records where Redis still holds them all, so viewers get each change
        with its own events; otherwise the table is loaded and the missed events, still
        in the stream, come with it. Raises one of ``UNAVAILABLE``."""
        found = await self.store.room_log(view.room, after=view.version)
        if found is None or found.version <= view.version or view.pins:
            return
        try:
            if found.complete(after=view.version):
                changes = []
                table = view.table
                for version, record in found.records:
                    if version > view.version:
                        change = replay(view.game, table, unpack(record), version)
                        changes.append(change)
                        table = change.table
                for change in changes:  # answers too: a request here may wait on one
                    self.apply(view, change.table, change.events, change.answers)
                return
            table = current_table(view.game, found)
        except RoomLogError:
            log.exception("room %s: the changes after version %d cannot be made here; reloading",
                          view.room, view.version)
            await self._reload(view)
            return
        events = await self._missed_events(view, table.version + 1)
        if table.version > view.version and not view.pins:
            self.apply(view, table, events, [])

    # --- presence ---------------------------------------------------------------------------

    async def _load_presence(self, players: list[str], refresh: RoomView | None = None) -> None:
        try:
            online = await self.store.online(players, self.clock())
        except UNAVAILABLE:
            return
        changed = False
        for p, on in online.items():
            changed |= self.presence.get(p) != on
            self.presence[p] = on
        if changed and refresh is not None:
            refresh.refresh()

    def _set_presence(self, player: str, online: bool) -> None:
        if self.presence.get(player) == online:
            return
        self.presence[player] = online
        for view in self.views.values():
            if view.seat_of(player) is not None:
                view.refresh()

    def local_presence_changed(self, player: str, online: bool) -> None:
        """This process changed the player's presence (and publishes it to the others)."""
        self._set_presence(player, online)

    async def refresh_presence(self) -> None:
        """Re-read the presence of everyone seated in a viewed room (catches processes
        that died without saying their players left)."""
        players = {p for v in self.views.values() if v.viewers for p in v.seated_players()}
        self.presence = {p: on for p, on in self.presence.items() if p in players}
        try:
            online = await self.store.online(sorted(players), self.clock())
        except UNAVAILABLE:
            return
        for p, on in online.items():
            if self.sessions.online(p):
                on = True
            self._set_presence(p, on)


def _sight_of(sights: dict[str, Sight], player: str | None) -> Sight:
    """The sight of ``player`` (see :meth:`RoomView._sights`): no seat unless seated."""
    return sights.get(player, _NO_SIGHT) if player else _NO_SIGHT


_NO_SIGHT: Sight = (None, None)
_NOT_YET = object()  # no snapshot rendered yet


def _snapshot(held: Held) -> dict[str, Any]:
    """The ``room`` message of a snapshot's parts."""
    shared, your_seat, view = held
    return dict(shared, your_seat=your_seat, view=view)
