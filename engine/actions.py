"""A game's actions as plain data (:attr:`engine.game.Game.actions`): each action's
``type`` and its fields, each of a kind with fixed bounds.

The server turns a game's declarations into typed structs (``server/room/actions.py``), so an
``act`` whose action has the wrong shape (an unknown ``type``, a missing field, a string
for a number, a number out of bounds) is refused as ``bad_message`` naming the field,
before the engine sees it. Whether the action is *legal now* stays the engine's decision.
The engine itself only ever receives plain maps, and this module, like the rest of the
engine, needs nothing outside the standard library.

The kinds of field:

``chips``  a whole number of chips, 0 to 10**12
``seat``   a seat number, 0 to 63
``int``    any whole number (the engine judges its range)
``cards``  card ids (0 to 53, at most 54 of them) or a rank string of at most 54
           characters (Dou Dizhu's ``"3334"``)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

CHIPS = "chips"
SEAT = "seat"
INT = "int"
CARDS = "cards"
KINDS = (CHIPS, SEAT, INT, CARDS)


@dataclass(frozen=True)
class ActionType:
    """One action a game accepts: ``{"type": type, **fields}``, every field required."""

    type: str
    fields: Mapping[str, str] = field(default_factory=dict)
    doc: str = ""

    def __post_init__(self) -> None:
        for name, kind in self.fields.items():
            if kind not in KINDS:
                raise ValueError(f"action {self.type!r}: field {name!r} has no kind {kind!r} "
                                 f"(one of {', '.join(KINDS)})")


def action_types(*types: str | ActionType) -> tuple[ActionType, ...]:
    """A game's declarations, plain names standing for actions without fields:
    ``action_types("fold", "check", ActionType("raise", {"to": CHIPS}))``."""
    return tuple(t if isinstance(t, ActionType) else ActionType(t) for t in types)
