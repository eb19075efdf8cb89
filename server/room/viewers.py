"""What a room shows its changes to, as the room sees it: a :class:`Viewer` (one connection
watching, the edge's session) and the process's :class:`Connections`. The room renders to
these and never imports the edge's session module (ARCHITECTURE.md, "Layers")."""

from __future__ import annotations

from typing import Any, Protocol


class Viewer(Protocol):
    """One connection watching rooms: its id on this process, the player it speaks for (None
    before ``hello``), the rooms it watches, and its send queue."""

    id: int
    player_id: str | None
    watching: set[str]

    def send(self, msg: dict[str, Any]) -> None:
        """Queue ``msg`` for the connection (never blocks; a full queue closes it)."""


class Connections(Protocol):
    """This process's connections, as the room asks after them."""

    def claim(self, conn: int, seq: int) -> Any:
        """The viewer waiting for answer ``seq`` of connection ``conn``, once (None if it is
        gone or was answered)."""

    def online(self, player: str) -> bool:
        """Is ``player`` connected to this process?"""
