"""Following a room by its ``update`` messages (docs/protocol.md, "Updates").

After the full ``room`` snapshot a viewer receives on joining, spectating or resuming,
every change of the room comes as one ``update``: the change's events as this viewer
may see them and a patch of its snapshot. :class:`RoomFollower` keeps the snapshot of
each room and turns an update back into what a client that only knows ``event`` and
``room`` messages expects: the events one by one, then the new snapshot.

A patch is an object of the snapshot's members that changed, as in a JSON Merge Patch
(RFC 7386): a member's value is its new value, or, where the member is an object or a
list and the value an object, a patch of that member (a list's items named by index, as
strings), unless the value's one member is ``=``, whose value then replaces the member
whole. ``null`` is a value, not a deletion. An update's ``base`` (the version its patch
applies to) is left out when it is the version before the update's.
"""

from __future__ import annotations

from typing import Any


def apply_patch(doc: Any, patch: dict[str, Any]) -> Any:
    """``doc`` (an object, or a list whose items the patch names by index) with ``patch``
    applied; neither is modified."""
    if isinstance(doc, list):
        items = list(doc)
        for key, value in patch.items():
            i = int(key)
            items[i] = _applied(items[i], value)
        return items
    out = dict(doc)
    for key, value in patch.items():
        out[key] = _applied(out.get(key), value)
    return out


def _applied(member: Any, value: Any) -> Any:
    """A member after the patch's ``value`` for it."""
    if type(value) is dict and isinstance(member, (dict, list)):
        return value["="] if len(value) == 1 and "=" in value else apply_patch(member, value)
    return value


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
        if held is None or held.get("version") != msg.get("base", version - 1):
            self.rooms.pop(room, None)
            out.append({"t": "gap", "room": room})
            return out
        snapshot = apply_patch(held, msg.get("patch") or {})
        snapshot["version"] = version
        self.rooms[room] = snapshot
        out += [{"t": "event", "room": room, "version": version, "event": e} for e in msg.get("events", ())]
        out.append(snapshot)
        return out
