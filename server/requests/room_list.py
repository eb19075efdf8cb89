"""The shared room list as this process shows it, and the connections that watch it.

Every process writes its own rooms' entries to Redis in batches (the directory); this
module reads them back with the rooms owned here taken as they are now (not as last
written) and every process's spectator counts, each process's own counted exactly. A read
is kept for half a second (:data:`CACHE_SECONDS`), dropped as soon as the list changes
anywhere (:meth:`RoomList.changed`, from this process's rooms or the lobby channel), and a
change is pushed to the watching connections (``list_rooms`` with ``watch``) 50 ms later,
so that a burst of changes makes one push, each watcher getting the list of its game.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine, Mapping
from typing import Any

from engine.config import describe_options
from engine.game import Game

from ..cluster.directory import Directory
from ..edge.session import Session
from ..room.core import listed
from ..room.options import room_options
from ..room.view import Views
from ..store import UNAVAILABLE, Store

CACHE_SECONDS = 0.5  # how long a read of the list is used again while nothing changes
PUSH_DELAY = 0.05  # a change is pushed this much later: a burst of changes, one push


class RoomList:
    """The listed rooms and the games hosted (the ``rooms`` message), and its watchers."""

    def __init__(self, games: Mapping[str, Game], store: Store, directory: Directory, views: Views, node: str,
                 clock: Callable[[], int], background: Callable[[Coroutine[Any, Any, Any]], Any]) -> None:
        self.games = dict(games)
        self.store = store
        self.directory = directory
        self.views = views
        self.node = node
        self.clock = clock
        self._background = background
        # the games' descriptors do not change while the process runs: made once
        self._descriptors = [dict(g.describe(), room_options=describe_options(room_options(g)))
                             for g in self.games.values()]
        self._cache: tuple[float, list[dict[str, Any]]] | None = None
        self._push_scheduled = False
        self._watchers: set[Session] = set()  # the sessions with watch_lobby set

    async def message(self, game: str | None) -> dict[str, Any]:
        """The ``rooms`` message: the listed rooms (of ``game``, None: all) and the games."""
        rooms = [r for r in await self.rooms() if game is None or r["game"] == game]
        return {"t": "rooms", "rooms": rooms, "games": self._descriptors}

    async def rooms(self) -> list[dict[str, Any]]:
        """Every listed room of a hosted game, by game, name and id; raises one of
        ``UNAVAILABLE`` when Redis cannot be read."""
        cached = self._cache
        if cached is not None and time.monotonic() - cached[0] < CACHE_SECONDS:
            return cached[1]
        entries = await self.store.lobby_entries()
        for room, actor in list(self.directory.actors.items()):  # rooms owned here: as they are now
            if listed(actor.table):
                entries[room] = actor.lobby_entry()
            else:
                entries.pop(room, None)
        spectators = await self.store.spectator_counts(await self.store.live_nodes(self.clock()) | {self.node})
        for view in self.views.views.values():  # this process's own counts are exact and current
            spectators[view.room] = spectators.get(view.room, 0) - view.spectators_reported + view.spectators()
        rooms = [dict(e, spectators=max(0, spectators.get(room, 0))) for room, e in entries.items()
                 if e.get("game") in self.games]
        rooms.sort(key=lambda r: (r["game"], r["name"], r["room"]))
        self._cache = (time.monotonic(), rooms)
        return rooms

    def watch(self, session: Session, game: str | None) -> None:
        """Push the list (of ``game``) to ``session`` whenever it changes."""
        session.watch_lobby = game or True
        self._watchers.add(session)

    def unwatch(self, session: Session) -> None:
        session.watch_lobby = False
        self._watchers.discard(session)

    def changed(self) -> None:
        """The room list changed (here or on another process): push it to the watchers."""
        self._cache = None
        if self._push_scheduled:
            return
        self._push_scheduled = True
        asyncio.get_running_loop().call_later(PUSH_DELAY, lambda: self._background(self._push()))

    async def _push(self) -> None:
        self._push_scheduled = False
        # each watcher's filter read once: a list_rooms may change it while we await (the
        # watchers are kept apart: a push must not pass over every connection of the process)
        watchers = [(s, None if s.watch_lobby is True else s.watch_lobby) for s in self._watchers]
        if not watchers:
            return
        try:
            messages = {g: await self.message(g) for g in {g for _, g in watchers}}
        except UNAVAILABLE:
            return
        for s, g in watchers:
            s.send(messages[g])
