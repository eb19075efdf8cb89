"""Tables: making a room, finding a private one by its code, and quick match.

A new room is created by the process the request came to, which holds its lease from the
start (its actor starts here): ``create_room``, and a quick match that finds no table to
sit at. A private room is found by its join code (``find_room``), with guessing made
costly. A quick match picks a table under a per-bucket lock (:mod:`.matchmaking` decides
which table fits) and hands the join to the room's owner like any join.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Callable, Mapping
from typing import Any

from engine.errors import ConfigError
from engine.game import Event, Game, event_for

from ..cluster.directory import Directory
from ..config import Settings
from ..edge import messages as m
from ..edge.gate import Gate
from ..edge.protocol import ProtocolError
from ..edge.session import Session
from ..room import table as tbl
from ..room.core import JoinCommand, lobby_summary
from ..room.delivery import with_ref
from ..room.options import parse_room_options
from ..room.view import RoomView, Views
from ..store import Store
from . import matchmaking
from .room_list import RoomList

QUICK_MATCH_WAIT = 5.0  # seconds a quick match waits for its bucket's lock (and for its seat)
QUICK_MATCH_LOCK_MS = 10_000  # a lock whose holder died runs out after this
MAX_CODE_MISSES = 10  # find_room codes naming no room a connection may send


class Tables:
    """Making, finding and quick-matching tables for this process's connections."""

    def __init__(self, games: Mapping[str, Game], store: Store, settings: Settings, gate: Gate, views: Views,
                 directory: Directory, room_list: RoomList, node: str, clock: Callable[[], int]) -> None:
        self.games = games
        self.store = store
        self.settings = settings
        self.gate = gate
        self.views = views
        self.directory = directory
        self.room_list = room_list
        self.node = node
        self.clock = clock

    def game(self, name: str) -> Game:
        """The hosted game ``name`` (``no_such_game`` if none)."""
        game = self.games.get(name)
        if game is None:
            raise ProtocolError("no_such_game", f"no game {name[:32]!r} (hosted: {', '.join(sorted(self.games))})", "game")
        return game

    async def create(self, session: Session, msg: m.CreateRoom) -> None:
        """``create_room``: a new room, owned here; the creator watches it."""
        view, events = await self._new_room(session, self.game(msg.game), msg.options, msg.config)
        room_id, table = view.room, view.table
        self.views.watch(view, session)
        view.send_snapshot(session, msg.ref)
        for event in events:  # the bots taking their seats, for the creator's hand history
            session.send({"t": "event", "room": room_id, "version": table.version,
                          "event": event_for(event, None)})

    async def _new_room(self, session: Session, game: Game, given_options: Mapping[str, Any] | None,
                        given_config: Mapping[str, Any] | None) -> tuple[RoomView, list[Event]]:
        """Create a room (this process holds it): its view and the events of its creation."""
        try:
            options = parse_room_options(game, given_options)
        except ConfigError as exc:
            raise ProtocolError("bad_config", str(exc), exc.field) from None
        try:
            config = game.parse_config(given_config)
        except ConfigError as exc:
            raise ProtocolError("bad_config", f"config.{exc}", f"config.{exc.field}") from None
        if not self.gate.new_room(session.address, time.monotonic()):
            raise ProtocolError("rate_limited", "too many new rooms from your address; try again in a minute")
        while True:
            room_id = "r-" + secrets.token_hex(4)
            code = tbl.new_join_code() if options["private"] else None
            if code is not None and not await self.store.claim_join_code(code, room_id):
                continue  # another private room has this code
            table = tbl.Table(room=room_id, game=game.name, options=options, config=config,
                              seats=[None] * options["seats"], version=1, code=code, creator=session.player_id,
                              empty_since_ms=self.clock(), next_seed=secrets.token_hex(32))
            events = tbl.seat_bots(table, options.get("bots", 0))  # their chips are granted in this write
            sent = time.monotonic()
            created = await self.store.create_room(
                room_id, game.name, tbl.to_dict(table, game), events, sum(tbl.granted_chips(events).values()),
                self.node, self.settings.lease_ms)
            if created:
                break
            if code is not None:
                await self.store.drop_join_code(code, room_id)
        if not table.code:  # a private room is never listed
            await self.store.set_lobby_entries({room_id: dict(lobby_summary(table), version=table.version)})
        view = RoomView(game, table, self.views)
        self.views.adopt(view)
        await self.views.subscribe_new(room_id)
        self.directory.start_created(game, table, view, fence=1, sent=sent)
        return view, events

    async def find(self, session: Session, msg: m.FindRoom) -> None:
        """``room_found``: the open private room whose join code is ``msg.code`` (in any
        case), for a player who was given the code alone. A code is 40 random bits, and a
        connection that names :data:`MAX_CODE_MISSES` codes of no room is refused from
        then on (``rate_limited``): guessing costs a new connection every ten tries, and
        connections per address are limited."""
        if session.code_misses >= MAX_CODE_MISSES:
            raise ProtocolError("rate_limited", "too many codes that name no table: reconnect to try again")
        code = msg.code.strip().upper()
        room = await self.store.room_of_code(code)
        view = await self.views.open(room) if room is not None else None
        if view is None or view.table.code != code or view.table.closed:
            if room is not None and view is None:  # the room's data expired: its code is free again
                await self.store.drop_join_code(code, room)
            session.code_misses += 1
            raise ProtocolError("bad_code", "no open private table has this code: check the invitation", "code")
        session.send(with_ref({"t": "room_found", "room": view.room, "game": view.table.game,
                                "name": view.table.options["name"]}, msg.ref))

    # --- quick match ---------------------------------------------------------------------

    async def quick_match(self, session: Session, msg: m.QuickMatch) -> None:
        """Seat the player at an open table of the game that fits, or at a new one.

        Decided one request at a time per bucket (:mod:`server.requests.matchmaking`) under a Redis
        lock held until the seat shows in the room, so a burst fills one table before the
        next is opened. The answer is the join's: a ``room`` snapshot or its error."""
        game = self.game(msg.game)
        bucket = matchmaking.bucket(game.name, msg.stake, msg.seats)
        name = f"qm:{bucket}"
        token = secrets.token_hex(8)
        deadline = time.monotonic() + QUICK_MATCH_WAIT
        while not await self.store.lock(name, token, QUICK_MATCH_LOCK_MS):
            if time.monotonic() > deadline:
                raise ProtocolError("unavailable", "quick match is busy right now; retry")
            await asyncio.sleep(0.01)
        try:
            view = await self._pick_table(session, game, msg, bucket)
            if view is None:
                options, config = matchmaking.quick_table(game, msg.stake, msg.seats)
                view, _ = await self._new_room(session, game, options, config)
                await self.store.set_quick_match_room(bucket, view.room)
            origin = self.directory.origin(session, msg.ref)
            await self.directory.request(session, view.room, JoinCommand(origin, None, msg.buy_in, None, msg.seed))
            for _ in range(round(QUICK_MATCH_WAIT / 0.01)):  # the next request must see this seat taken
                if view.seat_of(session.player_id) is not None or origin.seq not in session.requests:
                    break
                await asyncio.sleep(0.01)
        finally:
            await self.store.unlock(name, token)

    async def _pick_table(self, session: Session, game: Game, msg: m.QuickMatch, bucket: str) -> RoomView | None:
        last = await self.store.quick_match_room(bucket)
        for room in matchmaking.order(await self.room_list.rooms(), game.name, last):
            view = await self.views.open(room)
            if view is not None and matchmaking.fits(view.table, game, session.player_id or "", msg.stake, msg.seats):
                return view
        return None
