"""Following a room by its ``update`` messages (docs/protocol.md, "Updates").

After the full ``room`` snapshot a viewer receives on joining, spectating or resuming,
every change of the room comes as one ``update``: the change's events as this viewer
may see them and a patch of its snapshot. :class:`RoomFollower` keeps the snapshot of
each room and turns an update back into what a client that only knows ``event`` and
``room`` messages expects: the events one by one, then the new snapshot.

A patch has two parts, each left out when empty: ``set``, members that replace the
snapshot's (whole), and ``in``, for members that are objects or lists, a patch of the same
kind applied to that member (a list's items named by their index, as a string).
"""

from __future__ import annotations

from typing import Any


def apply_patch(doc: Any, patch: dict[str, Any]) -> Any:
    """``doc`` (an object, or a list whose items the patch names by index) with ``patch``
    applied; neither is modified."""
    if isinstance(doc, list):
        items = list(doc)
        for key, value in patch.get("set", {}).items():
            items[int(key)] = value
        for key, inner in patch.get("in", {}).items():
            items[int(key)] = apply_patch(items[int(key)], inner)
        return items
    out = dict(doc)
    out.update(patch.get("set", ()))
    for key, inner in patch.get("in", {}).items():
        out[key] = apply_patch(out[key], inner)
    return out


class RoomFollower:
    """The latest snapshot of each room a connection follows, kept by ``room`` and
    ``update`` messages."""

    def __init__(self) -> None:
        self.rooms: dict[str, dict[str, Any]] = {}

    def expand(self, msg: dict[str, Any]) -> list[dict[str, Any]]:
        """The messages ``msg`` stands for: an ``update`` becomes the ``ack`` it carries
        (with the request's ``ref``), its ``event`` messages and then the patched ``room``
        snapshot; a ``room`` is kept and returned; anything else is returned as it is. An
        update that does not apply to the snapshot held (a gap) gives its ack and then
        ``{"t": "gap", "room": ...}``, made here: ask the server for the room again with
        ``sync``."""
        kind = msg.get("t")
        room = msg.get("room")
        if kind == "room" and isinstance(room, str):
            self.rooms[room] = {k: v for k, v in msg.items() if k != "ref"}
            return [msg]
        if kind != "update" or not isinstance(room, str):
            return [msg]
        version = msg["version"]
        out = []
        if "ack" in msg:
            ack = {"t": "ack", "room": room, "id": msg["ack"], "version": version}
            out.append(ack if msg.get("ref") is None else dict(ack, ref=msg["ref"]))
        held = self.rooms.get(room)
        if held is None or held.get("version") != msg.get("base"):
            self.rooms.pop(room, None)
            out.append({"t": "gap", "room": room})
            return out
        snapshot = apply_patch(held, msg.get("patch") or {})
        snapshot["version"] = version
        self.rooms[room] = snapshot
        out += [{"t": "event", "room": room, "version": version, "event": e} for e in msg.get("events", ())]
        out.append(snapshot)
        return out
