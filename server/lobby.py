"""The lobby: identity, the room registry, and routing each request to its handler.

Requests that change a room are queued on that room's actor; the lobby itself only
creates rooms (the first snapshot is written before the actor starts) and keeps
track of who is online and who watches the room list.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any

from engine.config import describe_options
from engine.errors import ConfigError
from engine.game import Game, event_for

from . import table as tbl
from .config import Settings
from .metrics import Metrics
from .options import parse_room_options, room_options
from .protocol import ProtocolError, error_message
from .room import Room, epoch_ms, shuffled_deck
from .session import Session
from .store import Store

log = logging.getLogger(__name__)

ROOM_COMMANDS = ("join", "leave", "sit_out", "sit_in", "act")


def _with_ref(msg: dict[str, Any], ref: Any) -> dict[str, Any]:
    if ref is not None:
        msg["ref"] = ref
    return msg


class Lobby:
    def __init__(
        self,
        games: Mapping[str, Game],
        store: Store,
        settings: Settings,
        metrics: Metrics,
        clock: Callable[[], int] = epoch_ms,
        deck: Callable[[int], list[int]] = shuffled_deck,
    ) -> None:
        self.games = dict(games)
        self.store = store
        self.settings = settings
        self.metrics = metrics
        self.clock = clock
        self.deck = deck
        self.rooms: dict[str, Room] = {}
        self.sessions: set[Session] = set()
        self.online: Counter[str] = Counter()
        self.stopping = False
        self._lobby_push_scheduled = False

    # --- lifecycle ---------------------------------------------------------------

    async def load(self) -> None:
        """Load every room from Redis and start its actor (timers resume where they were)."""
        for room_id in await self.store.room_ids():
            snap = await self.store.load_room(room_id)
            if snap is None:
                continue
            game = self.games.get(snap["game"])
            if game is None:
                log.warning("room %s hosts unknown game %r: not loaded", room_id, snap["game"])
                continue
            self._start_room(game, tbl.from_dict(snap, game))
        log.info("loaded %d rooms", len(self.rooms))

    def _start_room(self, game: Game, table: tbl.Table) -> Room:
        room = Room(game, table, self.store, self, self.metrics, clock=self.clock, deck=self.deck)
        self.rooms[room.id] = room
        self.metrics.rooms.labels(game.name).inc()
        room.start()
        return room

    async def stop(self) -> None:
        """Refuse new commands, let every room finish the queued ones."""
        self.stopping = True
        await asyncio.gather(*(room.stop() for room in self.rooms.values()))

    # --- Host protocol (used by rooms) ---------------------------------------------

    def is_online(self, player: str) -> bool:
        return self.online[player] > 0

    def lobby_changed(self) -> None:
        if self._lobby_push_scheduled:
            return
        self._lobby_push_scheduled = True
        asyncio.get_running_loop().call_soon(self._push_lobby)

    def _push_lobby(self) -> None:
        self._lobby_push_scheduled = False
        for s in list(self.sessions):
            if s.watch_lobby:
                s.send(self.rooms_message(None if s.watch_lobby is True else s.watch_lobby))

    # --- connections -------------------------------------------------------------

    def connected(self, session: Session) -> None:
        self.sessions.add(session)
        self.metrics.connections.inc()

    def disconnected(self, session: Session) -> None:
        self.sessions.discard(session)
        self.metrics.connections.dec()
        for room in self.rooms.values():
            room.unwatch(session)
        if session.player_id is not None:
            self.online[session.player_id] -= 1
            if self.online[session.player_id] <= 0:
                del self.online[session.player_id]
                self._presence_changed(session.player_id)

    def _presence_changed(self, player: str) -> None:
        for room in self.rooms.values():
            if tbl.seat_of(room.table, player) is not None:
                room.refresh_viewers()

    # --- requests ----------------------------------------------------------------

    async def dispatch(self, session: Session, t: str, msg: dict[str, Any]) -> None:
        """Handle one validated request; every failure becomes an ``error`` reply."""
        self.metrics.messages.labels(t).inc()
        ref = msg.get("ref")
        try:
            if t == "ping":
                session.send(_with_ref({"t": "pong", "time_ms": self.clock()}, ref))
                return
            if t == "hello":
                await self._hello(session, msg)
                return
            if session.player_id is None:
                raise ProtocolError("not_authenticated", "say hello first")
            if self.stopping:
                raise ProtocolError("unavailable", "the server is shutting down")
            if t == "list_rooms":
                game = msg.get("game")
                if msg.get("watch") is not None:
                    session.watch_lobby = (game or True) if msg["watch"] else False
                session.send(_with_ref(self.rooms_message(game), ref))
            elif t == "create_room":
                await self._create_room(session, msg)
            elif t == "spectate":
                room = self._room(msg["room"])
                room.watch(session)
                session.send(room.snapshot(session, ref))
            elif t in ROOM_COMMANDS:
                self._room(msg["room"]).submit(t, session, msg)
            else:  # pragma: no cover - validate_message knows every type
                raise ProtocolError("unknown_type", f"unknown message type {t!r}")
        except ProtocolError as exc:
            self.metrics.errors.labels(exc.code).inc()
            session.send(error_message(exc.code, exc.message, ref, exc.field))
        except Exception:
            log.exception("request %s failed", t)
            self.metrics.errors.labels("internal_error").inc()
            session.send(error_message("internal_error", "the server failed to process this request", ref))

    def _room(self, room_id: str) -> Room:
        room = self.rooms.get(room_id)
        if room is None:
            raise ProtocolError("no_such_room", f"no room {room_id[:64]!r}", "room")
        return room

    async def _hello(self, session: Session, msg: dict[str, Any]) -> None:
        ref = msg.get("ref")
        if session.player_id is not None:
            raise ProtocolError("already_authenticated", "this connection already said hello")
        if msg.get("token") is not None:
            found = await self.store.player_by_token(msg["token"])
            if found is None:
                raise ProtocolError("bad_token", "no player has this session token", "token")
            player, name = found
            token = msg["token"]
            wallet = await self.store.wallet(player)
        elif msg.get("name") is not None:
            name = " ".join(msg["name"].split())
            if not name or not name.isprintable():
                raise ProtocolError("bad_message", "hello: name must contain printable characters", "name")
            player, token, wallet = await self.store.create_player(name)
        else:
            raise ProtocolError("bad_message", "hello needs a name (new player) or a token (resume)", "name")
        session.player_id, session.name = player, name
        self.online[player] += 1
        held = [(room, seat) for room in self.rooms.values()
                if (seat := tbl.seat_of(room.table, player)) is not None]
        session.send(_with_ref({
            "t": "welcome", "player": player, "name": name, "token": token, "wallet": wallet,
            "seats": [{"room": r.id, "game": r.game.name, "seat": s} for r, s in held],
        }, ref))
        for room, _ in held:
            room.watch(session)
        if self.online[player] == 1:
            self._presence_changed(player)  # also sends this session its snapshots
        else:
            for room, _ in held:
                session.send(room.snapshot(session))

    async def _create_room(self, session: Session, msg: dict[str, Any]) -> None:
        game = self.games.get(msg["game"])
        if game is None:
            raise ProtocolError("no_such_game", f"no game {msg['game'][:32]!r} (hosted: {', '.join(sorted(self.games))})", "game")
        try:
            options = parse_room_options(game, msg.get("options"))
        except ConfigError as exc:
            raise ProtocolError("bad_config", str(exc), exc.field) from None
        try:
            config = game.parse_config(msg.get("config"))
        except ConfigError as exc:
            raise ProtocolError("bad_config", f"config.{exc}", f"config.{exc.field}") from None
        room_id = "r-" + secrets.token_hex(4)
        table = tbl.Table(room=room_id, game=game.name, options=options, config=config,
                          seats=[None] * options["seats"], version=1)
        events = tbl.seat_bots(table, options.get("bots", 0))  # their chips are granted in this write
        await self.store.commit(room_id, game.name, 0, tbl.to_dict(table, game), events, None,
                                tbl.granted_chips(events))
        room = self._start_room(game, table)
        room.watch(session)
        session.send(room.snapshot(session, msg.get("ref")))
        for event in events:  # the bots taking their seats, for the creator's hand history
            session.send({"t": "event", "room": room_id, "version": table.version,
                          "event": event_for(event, None)})
        self.lobby_changed()

    def rooms_message(self, game: str | None) -> dict[str, Any]:
        rooms = [
            dict(r.lobby_summary(), version=r.table.version)
            for r in self.rooms.values() if game is None or r.game.name == game
        ]
        rooms.sort(key=lambda r: (r["game"], r["name"], r["room"]))
        games = [
            dict(g.describe(), room_options=describe_options(room_options(g)))
            for g in self.games.values()
        ]
        return {"t": "rooms", "rooms": rooms, "games": games}
