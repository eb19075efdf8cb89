"""The lobby: each validated request to its handler.

Identity (``hello``: :mod:`.identity`), the room list (:mod:`.room_list`), making and
finding tables and quick match (:mod:`.tables`), spectating, histories, records and
leagues are answered by the process the client is connected to, from what Redis holds
(players, the shared room list, spectator counts of every live process). Requests that change a room (``join``,
``leave``, ``sit_out``, ``sit_in``, ``show``, ``add_bot``, ``auto_play``, ``act``) go to the room's owner
through the :class:`~server.cluster.directory.Directory`, wherever it is.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Mapping
from typing import Any

from engine.game import Game

from ..aio import Background
from ..cluster.directory import Directory
from ..config import Settings
from ..edge import messages as m
from ..edge.gate import Gate
from ..edge.protocol import CLOSE_POLICY, PROTOCOL_VERSION, ProtocolError, error_message
from ..edge.session import Session, Sessions, TokenBucket
from ..league.report import as_published
from ..league.service import LeagueService
from ..metrics import Metrics
from ..records.history import Entry, history_reply, split_hands
from ..records.record import record_message
from ..room import table as tbl
from ..room.core import (
    ActCommand,
    AddBotCommand,
    AutoPlayCommand,
    Command,
    JoinCommand,
    LeaveCommand,
    LockCommand,
    RemoveSeatCommand,
    SayCommand,
    SetSeedCommand,
    ShowCommand,
    SitInCommand,
    SitOutCommand,
)
from ..room.delivery import with_ref
from ..room.view import RoomView, Views
from ..store import UNAVAILABLE, Store
from .identity import Identity
from .room_list import RoomList
from .tables import Tables

log = logging.getLogger(__name__)

HISTORY_ENTRIES = 2000  # stream entries read for a history request (a few hundred hands)
CHAT_BURST = 5  # chat lines a connection may say at once ...
CHAT_SECONDS = 2.0  # ... and then one every this many seconds


LEAGUE_REQUESTS = (m.ListLeagues, m.LeagueInfo, m.LeagueCreate, m.LeagueEnter, m.LeagueRun, m.LeagueExport)


class Lobby:
    def __init__(self, games: Mapping[str, Game], store: Store, settings: Settings, metrics: Metrics,
                 sessions: Sessions, views: Views, directory: Directory, node: str,
                 clock: Callable[[], int], gate: Gate | None = None) -> None:
        self.games = dict(games)
        self.store = store
        self.settings = settings
        self.metrics = metrics
        self.sessions = sessions
        self.views = views
        self.directory = directory
        self.node = node
        self.clock = clock
        self.gate = gate or Gate(settings)
        self.leagues = LeagueService(store, node, settings.max_league_runs)
        self.identify = Identity(store, settings, self.gate)
        self.stopping = False
        self._tasks = Background()  # presence updates, waits for a gone player's return, pushes
        self._background = self._tasks.spawn
        self.room_list = RoomList(self.games, store, directory, views, node, clock, self._background)
        self.tables = Tables(self.games, store, settings, self.gate, views, directory, self.room_list, node, clock)

    # --- connections ---------------------------------------------------------------------

    def connected(self, session: Session) -> None:
        self.sessions.add(session)
        self.metrics.connections.inc()

    def disconnected(self, session: Session) -> None:
        self.metrics.connections.dec()
        self.views.disconnected(session)
        self.room_list.unwatch(session)
        if self.sessions.remove(session) and session.player_id is not None:
            self._background(self._presence(session.player_id, False))

    async def _presence(self, player: str, connected: bool) -> None:
        """This process gained its first or lost its last connection of ``player``: record
        it in Redis, and tell every process showing a room the player sits in."""
        now = self.clock()
        try:
            online = await self.store.set_presence(player, self.node, now + 30_000 if connected else 0, now)
        except UNAVAILABLE:
            return
        self.views.local_presence_changed(player, online)
        if not online and self.settings.disconnect_auto_play_seconds:
            self._background(self._auto_play_if_gone(player))
        for view in list(self.views.views.values()):
            if view.seat_of(player) is not None:
                try:
                    await self.store.publish_notice(view.room, {"presence": player, "online": online,
                                                                "from": self.node})
                except UNAVAILABLE:
                    return

    async def _auto_play_if_gone(self, player: str) -> None:
        """``player``'s last connection anywhere closed: if none is open again
        ``--disconnect-auto-play-seconds`` later (a reload or a reconnect takes less), hand
        each seat they hold in a room shown here to auto-play (``auto_play`` with reason
        ``disconnected``, decided by the room's owner like any command). The player takes
        it back by one click, or by acting, once they return."""
        rooms = [view.room for view in self.views.views.values() if view.seat_of(player) is not None]
        await asyncio.sleep(self.settings.disconnect_auto_play_seconds)
        if self.stopping or self.sessions.online(player) or not rooms:
            return
        try:
            if (await self.store.online([player], self.clock())).get(player):
                return
            for room in rooms:
                view = await self.views.open(room)
                seat = view.seat_of(player) if view is not None else None
                if seat is None or view.table.seats[seat].auto is not None:  # type: ignore[union-attr]
                    continue  # stood up meanwhile, or auto-played already
                await self.directory.ask(room, lambda o: AutoPlayCommand(o, True, player, "disconnected"),
                                         timeout=self.settings.forward_timeout)
        except UNAVAILABLE:
            return

    # --- requests ------------------------------------------------------------------------

    async def dispatch(self, session: Session, msg: m.Message) -> None:
        """Handle one validated request; every failure becomes an ``error`` reply."""
        t = msg.t
        self.metrics.messages.labels(t).inc()
        ref = msg.ref
        try:
            if isinstance(msg, m.Ping):
                session.send(with_ref(self._pong(), ref))
                return
            if self.stopping:
                raise ProtocolError("unavailable", "the server is shutting down; reconnect to another")
            if isinstance(msg, m.Hello):
                await self._hello(session, msg)
                return
            if session.player_id is None:
                raise ProtocolError("not_authenticated", "say hello first")
            if isinstance(msg, m.ListRooms):
                if msg.watch is not None:
                    if msg.watch:
                        self.room_list.watch(session, msg.game)
                    else:
                        self.room_list.unwatch(session)
                session.send(with_ref(await self.rooms_message(msg.game), ref))
            elif isinstance(msg, m.CreateRoom):
                await self.tables.create(session, msg)
            elif isinstance(msg, m.Spectate | m.Sync):
                await self._spectate(session, msg)
            elif isinstance(msg, m.QuickMatch):
                await self.tables.quick_match(session, msg)
            elif isinstance(msg, m.FindRoom):
                await self.tables.find(session, msg)
            elif isinstance(msg, m.History):
                await self._history(session, msg)
            elif isinstance(msg, m.MyRecord):
                totals, recent = await self.store.player_record(session.player_id, msg.last or 10)
                session.send(with_ref(record_message(totals, recent), ref))
            elif isinstance(msg, LEAGUE_REQUESTS):
                session.send(with_ref(await self._league(session, msg), ref))
            elif isinstance(msg, m.Leave) and self._leave_watching(session, msg.room, ref):
                pass
            else:
                if isinstance(msg, m.Say):
                    await self._check_chat(session, msg)
                await self.directory.request(session, msg.room, self._command(session, msg))  # type: ignore[attr-defined]
        except ProtocolError as exc:
            self.metrics.errors.labels(exc.code).inc()
            session.send(error_message(exc.code, exc.message, ref, exc.field, **exc.extra))
        except UNAVAILABLE as exc:
            log.warning("request %s: Redis unavailable (%s)", t, exc)
            self.metrics.errors.labels("unavailable").inc()
            session.send(error_message("unavailable", "storage is unavailable right now; nothing changed: retry",
                                       ref))
        except Exception:
            log.exception("request %s failed", t)
            self.metrics.errors.labels("internal_error").inc()
            session.send(error_message("internal_error", "the server failed to process this request", ref))

    async def _check_chat(self, session: Session, msg: m.Say) -> None:
        """A chat line's own limits, checked here before it goes to the room: its text,
        :data:`CHAT_BURST` lines at once, one per :data:`CHAT_SECONDS` after that, and no
        line while an operator muted the player."""
        if tbl.chat_text(msg.text) is None:
            raise ProtocolError("bad_message", f"say: text must be 1 to {tbl.CHAT_MAX} printable characters", "text")
        if session.chat is None:
            session.chat = TokenBucket(1 / CHAT_SECONDS, CHAT_BURST)
        if not session.chat.take():
            raise ProtocolError("rate_limited", f"chat: {CHAT_BURST} lines at once, then one every "
                                f"{CHAT_SECONDS:g} s", "text")
        assert session.player_id is not None
        until = await self.store.muted_until(session.player_id)
        if until > self.clock():
            raise ProtocolError("muted", "an operator muted you in chat until "
                                + time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(until / 1000)), until_ms=until)

    def _command(self, session: Session, msg: m.Message) -> Command:
        """The room command a room request asks for (decided by the room's owner)."""
        origin = self.directory.origin(session, msg.ref)
        if isinstance(msg, m.Join):
            return JoinCommand(origin, msg.seat, msg.buy_in, msg.code, msg.seed)
        if isinstance(msg, m.Act):
            return ActCommand(origin, msg.action, msg.id)
        if isinstance(msg, m.SetSeed):
            return SetSeedCommand(origin, msg.seed)
        if isinstance(msg, m.AutoPlay):
            return AutoPlayCommand(origin, msg.on)
        if isinstance(msg, m.RemoveSeat):
            return RemoveSeatCommand(origin, msg.seat)
        if isinstance(msg, m.Lock):
            return LockCommand(origin, msg.locked)
        if isinstance(msg, m.Say):
            view = self.views.get(msg.room)
            return SayCommand(origin, msg.text, spectator=view is not None and session.id in view.viewers)
        plain = {m.Leave: LeaveCommand, m.SitOut: SitOutCommand, m.SitIn: SitInCommand, m.Show: ShowCommand,
                 m.AddBot: AddBotCommand}
        return plain[type(msg)](origin)

    async def _spectate(self, session: Session, msg: m.Spectate | m.Sync) -> None:
        view = await self._view(msg.room)
        if view.seat_of(session.player_id) is None:  # its players may still look at a closed room
            tbl.check_open(view.table)
        if not tbl.may_enter(view.table, session.player_id, msg.code):
            raise ProtocolError("bad_code", "this room is private: ask its players for the join code", "code")
        self.views.watch(view, session)
        view.send_snapshot(session, msg.ref)

    async def _view(self, room: str) -> RoomView:
        view = await self.views.open(room)
        if view is None:
            raise ProtocolError("no_such_room", f"no room {room[:64]!r}", "room")
        return view

    async def _history(self, session: Session, msg: m.History) -> None:
        """The player's last hands of a room (those it was dealt into), each as it saw
        them: its own cards, nobody else's unless shown; and the hand under way so far."""
        view = await self._view(msg.room)
        entries = await self.store.recent_entries(msg.room, HISTORY_ENTRIES)
        table = view.table
        playing = table.hand_no if tbl.playing(table) else None
        reply = history_reply(split_hands([Entry(*e) for e in entries]), session.player_id, table.game, msg.room,
                              msg.last or 10, playing, league_over=table.league is not None and table.closed)
        session.send(with_ref(reply, msg.ref))

    async def _league(self, session: Session, msg: m.Message) -> dict[str, Any]:
        """The ``leagues`` list or one ``league``, from the reports leagues publish
        (:mod:`server.league.report`); the requests that make, enter, run and export the
        leagues the servers run go to :class:`~server.league.service.LeagueService`."""
        player = session.player_id
        assert player is not None
        if isinstance(msg, m.LeagueCreate):
            return await self.leagues.create(player, msg)
        if isinstance(msg, m.LeagueEnter):
            return await self.leagues.enter(player, session.name or "", msg)
        if isinstance(msg, m.LeagueRun):
            return await self.leagues.run(player, msg)
        if isinstance(msg, m.LeagueExport):
            return await self.leagues.export(msg.name)
        if isinstance(msg, m.ListLeagues):
            every = await self.store.leagues_published()
            return {"t": "leagues", "leagues": sorted((as_published(p)["summary"] for p in every.values()),
                                                      key=lambda x: x["name"])}
        assert isinstance(msg, m.LeagueInfo)
        found = await self.store.league_published(msg.name)
        if found is None:
            raise ProtocolError("no_such_league", f"no league {msg.name[:64]!r} was run here", "name")
        return dict(as_published(found)["message"])

    def _leave_watching(self, session: Session, room: str, ref: Any) -> bool:
        """``leave`` from a spectator: stop watching, here (True); a seated player's
        leave goes to the room (False)."""
        view = self.views.get(room)
        if view is None or session.id not in view.viewers or view.seat_of(session.player_id) is not None:
            return False
        self.views.unwatch(view, session)
        session.send(with_ref({"t": "left", "room": room, "seat": None, "pending": False}, ref))
        return True

    async def _hello(self, session: Session, msg: m.Hello) -> None:
        ref = msg.ref
        if session.player_id is not None:
            raise ProtocolError("already_authenticated", "this connection already said hello")
        if msg.protocol is not None and msg.protocol != PROTOCOL_VERSION:
            raise ProtocolError("unsupported_protocol", f"this server speaks version {PROTOCOL_VERSION} of the "
                                f"protocol, not {msg.protocol}: use a client of its version", "protocol",
                                protocol=PROTOCOL_VERSION)
        player, name, token, wallet = await self.identify.who(session, msg)
        held: list[tuple[RoomView, int]] = []
        for room in sorted(await self.store.seat_candidates(player)):
            view = await self.views.open(room)
            seat = view.seat_of(player) if view is not None else None
            if view is not None and seat is not None:
                held.append((view, seat))
        session.player_id, session.name = player, name
        first = self.sessions.authenticated(session)
        session.send(with_ref({
            "t": "welcome", "player": player, "name": name, "token": token, "wallet": wallet,
            "seats": [{"room": v.room, "game": v.game.name, "seat": s} for v, s in held],
            "protocol": PROTOCOL_VERSION,
        }, ref))
        if first:  # the other viewers of the player's rooms see them connected
            self.views.local_presence_changed(player, True)
        for view, _ in held:
            self.views.watch(view, session)
            view.send_snapshot(session)
        if first:
            self._background(self._presence(player, True))

    def _pong(self) -> dict[str, Any]:
        """``pong``: the server clock, and how players sign in where the operator set it up
        (so that a page knows before its ``hello``)."""
        pong: dict[str, Any] = {"t": "pong", "time_ms": self.clock()}
        if (sign_in := self.identify.sign_in_info()) is not None:
            pong["sign_in"] = sign_in
        return pong

    # --- the room list (room_list.py) -----------------------------------------------------

    async def rooms_message(self, game: str | None) -> dict[str, Any]:
        """The ``rooms`` message: the listed rooms (of ``game``) and the games hosted."""
        return await self.room_list.message(game)

    def lobby_changed(self) -> None:
        """The room list changed (here or on another process): push it to the watchers."""
        self.room_list.changed()

    def tell_player(self, player: str, message: dict[str, Any], close: bool = False) -> None:
        """A message for every connection of ``player`` here (sent by any process); with
        ``close`` (a ban), each connection is closed after it (1008)."""
        for session in list(self.sessions):
            if session.player_id == player:
                session.send(message)
                if close:
                    session.close(CLOSE_POLICY, str(message.get("t", "closed")))

    async def stop(self) -> None:
        self.stopping = True
        await self.leagues.stop()
        await self._tasks.cancel()
