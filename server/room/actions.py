"""A game's actions as typed ``msgspec`` structs, like the client messages, built from the
game's own declarations (:attr:`engine.game.Game.actions`, see :mod:`engine.actions`).

An ``act`` message carries ``action``, a map tagged by its ``type``. The room converts it
to its game's union (:func:`union_of`) before the engine sees it, so a wrong shape is
``bad_message`` naming the field (``action.to``, ``action.cards[3]``) and every number is
within its bounds. Whether the action is *legal now* (your turn, enough chips, a play that
beats the last one) stays the engine's decision, with its own codes.

The engine keeps taking plain maps (it is pure and imports nothing outside the standard
library): :func:`parse_action` hands it the struct's map form, unknown keys dropped.
``tests/server/test_actions.py`` checks every game's declarations against its engine and
its document.
"""

from __future__ import annotations

from typing import Annotated, Any, Union, get_args

import msgspec
from msgspec import Meta, Struct

from engine.actions import CARDS, CHIPS, INT, SEAT
from engine.game import Game

from ..edge.messages import error_path
from ..edge.protocol import ProtocolError

MAX_CHIPS = 10**12  # the bound of every chip figure a client sends (room options alike)

Chips = Annotated[int, Meta(ge=0, le=MAX_CHIPS)]
Seat = Annotated[int, Meta(ge=0, le=63)]
CardId = Annotated[int, Meta(ge=0, le=53)]

#: each kind of field (engine/actions.py) as its type
KINDS: dict[str, Any] = {
    CHIPS: Chips,
    SEAT: Seat,
    INT: int,
    CARDS: Annotated[list[CardId], Meta(max_length=54)] | Annotated[str, Meta(max_length=54)],
}


class Action(Struct, tag_field="type", frozen=True):
    """An action: a map whose ``type`` names it."""


# a game's union in a one-field struct, by game name, with the declarations it was built
# from. msgspec caches what it knows of a Struct type, not of a bare union: converting into
# a one-field struct holding the union is ~15x faster than converting into the union.
_BOXES: dict[str, tuple[Any, type[Struct]]] = {}


def union_of(game: Game) -> Any:
    """The union of ``game``'s action structs (None: it declares no actions)."""
    box = _box(game)
    return None if box is None else msgspec.structs.fields(box)[0].type


def _box(game: Game) -> type[Struct] | None:
    known = _BOXES.get(game.name)
    if known is not None and known[0] is game.actions:
        return known[1]
    if not game.actions:
        return None
    members = tuple(
        msgspec.defstruct(f"{game.name}_{a.type}", [(name, KINDS[kind]) for name, kind in a.fields.items()],
                          bases=(Action,), tag=a.type, frozen=True)
        for a in game.actions)
    union = members[0] if len(members) == 1 else Union[members]  # noqa: UP007 (a union of a tuple)
    box = msgspec.defstruct(f"{game.name}_act", [("action", union)])
    _BOXES[game.name] = (game.actions, box)
    return box


def tags(union: Any) -> set[str]:
    """The ``type`` values a union accepts."""
    members = get_args(union) or (union,)
    return {member.__struct_config__.tag for member in members}


def parse_action(game: Game, action: dict[str, Any]) -> dict[str, Any]:
    """``action`` checked against ``game``'s declared actions, as the engine's plain map.

    Raises :class:`ProtocolError` ``bad_message`` (with the field's path) for an unknown
    ``type``, a missing field or a value of the wrong type or out of bounds. A game
    without declared actions (a test game) gets ``action`` unchanged.
    """
    box = _box(game)
    if box is None:
        return action
    try:
        parsed = msgspec.convert({"action": action}, box, strict=True).action
    except msgspec.ValidationError as exc:
        path = error_path(exc) or "action"
        if path == "action.type" and "Invalid value" in str(exc):
            raise ProtocolError("bad_message", f"action.type must be one of {', '.join(sorted(tags(union_of(game))))}",
                                "action.type") from None
        raise ProtocolError("bad_message", f"{exc}", path) from None
    return msgspec.structs.asdict(parsed) | {"type": parsed.__struct_config__.tag}
