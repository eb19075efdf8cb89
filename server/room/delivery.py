"""The one way out of the room layer: what a room tells connections, and how it gets there.

Three things leave a room for connections, and each leaves through :class:`Delivery`:

* **an answer** to one request (:meth:`Delivery.answer`): an error, a duplicate's ``ack``,
  a reply that changes nothing. The request's :class:`~server.room.core.Origin` names the
  process holding its connection: here, the connection waiting for it gets it (once); on
  another process, the answer travels to that process's inbox, whose directory hands it
  to :meth:`Delivery.on_answer` there. A ``ROOM_ANSWER`` (a request answered with the
  room as its owner decided it) is rendered where the requester is, from that process's
  view of the room, once the view has caught up with the owner's version;
* **a change** (:meth:`Delivery.change`), once stored: the answers it carries for
  requests held here (the joiner's snapshot, an ``ack``, a reply), then every local
  viewer's ``update`` as the view renders it; an ``ack`` travels inside its requester's
  update. Every process showing the room delivers the change to its own viewers (the
  owner from its actor, the others from the room's channel), so each requester sees the
  same order anywhere: its answer, then the update;
* **a notice** for one player (:meth:`Delivery.notice`): a message for every local
  connection of that player watching the room (its chips came back to its wallet), the
  requester's copy as its answer.

Nothing here decides anything: the core decided, the view renders, the connection's
send queue takes the bytes.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from ..aio import Background
from ..edge.protocol import error_message
from .core import ROOM_ANSWER, Answer, Origin
from .viewers import Connections, Viewer

if TYPE_CHECKING:
    from engine.game import Event

    from .view import RoomView, Views


class Delivery:
    """Answers, changes and notices on their way to this process's connections (or to the
    process holding a request's connection).

    ``send_to_node(node, message)`` puts a message in another process's inbox (False: that
    process is gone, and its connections with it)."""

    def __init__(self, node: str, connections: Connections, views: Views,
                 send_to_node: Callable[[str, dict[str, Any]], Awaitable[bool]]) -> None:
        self.node = node
        self.connections = connections
        self.views = views
        self.send_to_node = send_to_node
        self.background = Background()  # answers on their way to other processes

    # --- answers ---------------------------------------------------------------------------

    def answer(self, origin: Origin, msg: dict[str, Any]) -> None:
        """Answer a request, here or on the process that holds its connection."""
        if origin.node == self.node:
            self._answer_here(origin.conn, origin.seq, msg)
            return
        self.background.spawn(self.send_to_node(origin.node, {
            "k": "ans", "conn": origin.conn, "seq": origin.seq, "msg": msg}))

    def on_answer(self, message: dict[str, Any]) -> None:
        """An answer another process sent to this one's inbox (see :meth:`answer`)."""
        self._answer_here(message["conn"], message["seq"], message["msg"])

    def _answer_here(self, conn: int, seq: int, msg: dict[str, Any]) -> None:
        viewer = self.connections.claim(conn, seq)
        if viewer is None:  # gone, or answered already
            return
        if msg.get("t") == ROOM_ANSWER:
            self.background.spawn(self._room_answer(viewer, msg["room"], msg["version"], msg.get("ref")))
        else:
            viewer.send(msg)

    async def _room_answer(self, viewer: Viewer, room: str, version: int, ref: Any) -> None:
        """Answer with ``viewer``'s snapshot of ``room`` as of ``version`` or later, and
        have it watch the room."""
        view = self.views.get(room)
        if view is not None and view.version < version:
            await self.views.catch_up(view)
        if view is None or view.version < version:  # closed meanwhile, or Redis is away
            viewer.send(error_message("unavailable", "the room could not be shown right now; send sync",
                                      ref, room=room))
            return
        self.views.watch(view, viewer)
        view.send_snapshot(viewer, ref)

    # --- changes ---------------------------------------------------------------------------

    def change(self, view: RoomView, events: list[Event], answers: list[Answer]) -> None:
        """Show a stored change (already the view's table) here: the answers for requests
        held here, then every viewer's update. An ``ack`` travels inside its requester's
        update (``ack`` and ``ref``) when the requester follows the room by updates, else
        just before it."""
        shared = view.shared()
        acks: dict[int, tuple[Any, Any]] = {}  # connection id -> (action id, ref)
        for a in answers:
            if a.origin.node != self.node:
                continue
            viewer = self.connections.claim(a.origin.conn, a.origin.seq)
            if viewer is None:
                continue
            if a.kind == "room":
                self.views.watch(view, viewer)
                view.send_snapshot(viewer, a.origin.ref, shared)
            elif a.kind == "ack" and viewer.id in view.viewers and viewer.id in view.held:
                acks[viewer.id] = (a.data, a.origin.ref)
            elif a.kind == "ack":
                viewer.send(with_ref({"t": "ack", "room": view.room, "id": a.data, "version": view.version},
                                     a.origin.ref))
            else:
                viewer.send(with_ref(dict(a.data), a.origin.ref))
        view.update(view.viewers.values(), events, shared, acks)

    # --- notices ---------------------------------------------------------------------------

    def notice(self, view: RoomView, player: str, msg: dict[str, Any], unwatch: bool,
               origin: Origin | None) -> None:
        """A message for every local connection of ``player`` watching the room; the one
        that asked (``origin``) gets it as its answer, with its ``ref``. ``unwatch``: those
        connections stop watching the room (the player left it)."""
        requester = None
        if origin is not None and origin.node == self.node:
            requester = self.connections.claim(origin.conn, origin.seq)
            if requester is not None:
                requester.send(with_ref(dict(msg), origin.ref))
        for v in list(view.viewers.values()):
            if v.player_id != player:
                continue
            if v is not requester:
                v.send(msg)
            if unwatch:
                self.views.unwatch(view, v)
        if requester is not None and unwatch and requester.id in view.viewers:
            self.views.unwatch(view, requester)

    async def wait(self, timeout: float) -> None:
        """Let the answers on their way to other processes go (on shutdown)."""
        await self.background.wait(timeout)


def with_ref(msg: dict[str, Any], ref: Any) -> dict[str, Any]:
    """``msg`` with the request's ``ref`` (a client's tag for its answer), if it sent one."""
    if ref is not None:
        msg["ref"] = ref
    return msg
