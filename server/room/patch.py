"""The patch of an ``update`` (docs/protocol.md, "update"): what turns the snapshot a
viewer holds into its new one, as short as the change.

A patch is a merge patch in the manner of JSON Merge Patch (RFC 7386): an object whose
members are the members of the snapshot that changed. A member's value in the patch is

- an object, where the snapshot's member is an object or a list: a patch of that member
  (of a list, its items named by index as strings: ``{"seats": {"1": {"stack": 980}}}``),
  unless its one member is ``=``: then that member's value replaces the member whole
  (an object that lost members: the legal actions of the next turn);
- anything else (``null`` too), or an object where the snapshot's member is neither an
  object nor a list nor present: the member's new value.

It differs from RFC 7386 where snapshots need it: ``null`` is a value (a ``timer`` is
null between turns), not a deletion; lists are reached into (one seat's stack) rather than
sent whole; and ``{"=": value}`` replaces an object whole. The patch never carries
``version``, which the update carries itself.
"""

from __future__ import annotations

from typing import Any

#: the member of a patch object that stands for a replacement (docs/protocol.md)
WHOLE = "="
_NESTED = (dict, list)  # the members a patch may reach into


def snapshot_patch(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """The patch that turns the snapshot ``old`` into ``new`` (a snapshot never loses a
    member, so neither does ``new``; ``version`` is left out)."""
    patch = _object_patch(old, new)
    patch.pop("version", None)
    return patch


def viewer_patch(common: dict[str, Any], held: tuple[Any, Any, Any], mine: tuple[Any, Any, Any]) -> dict[str, Any]:
    """The patch of a viewer's snapshot from the parts ``held`` to ``mine`` (each: the
    shared part, ``your_seat``, ``view``): ``common``, the patch of the part every
    viewer holds alike, then the viewer's own members. ``common`` is not changed."""
    own: dict[str, Any] | None = None
    before, seat = held[1], mine[1]
    if before is not seat and before != seat:
        own = {"your_seat": seat}
    before, view = held[2], mine[2]
    if before is not view and before != view:
        if own is None:
            own = {}
        own["view"] = member_patch(before, view) if isinstance(view, dict) else view
    if own is None:
        return common
    return {**common, **own} if common else own


def member_patch(before: Any, value: Any) -> Any:
    """What a patch says of a member that changed from ``before`` to ``value``."""
    if isinstance(value, dict):
        if isinstance(before, dict):
            if len(before) <= len(value):
                inner = _object_patch(before, value, in_place=True)
                if inner is not None and not (len(inner) == 1 and WHOLE in inner):
                    return inner
            return {WHOLE: value}  # it lost members (or a member named "=" is all that changed)
        if isinstance(before, list):
            return {WHOLE: value}
        return value
    if isinstance(value, list) and isinstance(before, list) and len(before) == len(value):
        # a list of objects item by item (each item's own patch is never much longer than
        # the item), any other list when at most half of it changed
        objects = any(type(item) is dict for item in value)
        inner = _list_patch(before, value, len(value) if objects else len(value) // 2)
        if inner is not None:
            return inner
    return value


def _object_patch(old: dict[str, Any], new: dict[str, Any], in_place: bool = False) -> dict[str, Any] | None:
    """The patch of two objects, each member compared once (``is``, then ``==``).
    ``in_place``: None when ``old`` has a member that ``new`` lacks, which the members of
    ``new`` that ``old`` lacks tell."""
    patch: dict[str, Any] = {}
    missing = 0
    for key, value in new.items():
        try:
            before = old[key]
        except KeyError:
            missing += 1
        else:
            if before is value or before == value:
                continue
            if isinstance(value, _NESTED):
                value = member_patch(before, value)
        patch[key] = value
    if in_place and len(new) - missing != len(old):
        return None
    return patch


def _list_patch(old: list[Any], new: list[Any], most: int) -> dict[str, Any] | None:
    """The patch of two lists of the same length (its keys: the indices of the items that
    changed, as strings), or None when more than ``most`` changed."""
    changed: list[int] = []  # (a loop: for lists this short a comprehension costs more, its call)
    i = 0
    for value in new:
        before = old[i]
        if before is not value and before != value:
            changed.append(i)
        i += 1
    if len(changed) > most:
        return None
    patch: dict[str, Any] = {}
    for i in changed:
        value = new[i]
        patch[str(i)] = member_patch(old[i], value) if isinstance(value, _NESTED) else value
    return patch
