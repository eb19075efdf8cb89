"""Each game's actions, declared as typed ``msgspec`` structs like the client messages.

An ``act`` message carries ``action``, a map tagged by its ``type``. The room converts
it to its game's union (:data:`ACTIONS`) before the engine sees it, so a wrong shape is
``bad_message`` naming the field (``action.to``, ``action.cards[3]``) and every number
is within its bounds. Whether the action is *legal now* (your turn, enough chips, a
play that beats the last one) stays the engine's decision, with its own codes.

The engine keeps taking plain maps (it is pure and imports nothing outside the standard
library): :func:`parse_action` hands it the struct's map form, unknown keys dropped.
``tests/server/test_actions.py`` checks these unions against each engine's action types
and each game's document.
"""

from __future__ import annotations

from typing import Annotated, Any, get_args

import msgspec
from msgspec import Meta, Struct

from .messages import error_path
from .protocol import ProtocolError

MAX_CHIPS = 10**12  # the bound of every chip figure a client sends (room options alike)

Chips = Annotated[int, Meta(ge=0, le=MAX_CHIPS)]
Seat = Annotated[int, Meta(ge=0, le=63)]
CardId = Annotated[int, Meta(ge=0, le=53)]


class Action(Struct, tag_field="type", frozen=True):
    """An action: a map whose ``type`` names it."""


# --- shared by several games (one tag, one meaning) -----------------------------------------

class Fold(Action, tag="fold"):
    pass


class Call(Action, tag="call"):
    pass


class AllIn(Action, tag="all_in"):
    pass


class Pass(Action, tag="pass"):
    pass


# --- Texas Hold'em (docs/holdem.md, "Actions") ---------------------------------------------

class Check(Action, tag="check"):
    pass


class RaiseTo(Action, tag="raise"):
    """Raise (or bet) to a street total of ``to`` chips."""

    to: Chips


class BetTo(Action, tag="bet"):
    """An alias of ``raise``."""

    to: Chips


HoldemAction = Fold | Check | Call | RaiseTo | BetTo | AllIn


# --- Zha Jin Hua (docs/zhajinhua.md, "Actions") --------------------------------------------

class Look(Action, tag="look"):
    pass


class RaiseStake(Action, tag="raise"):
    """Raise the unit stake to ``stake``."""

    stake: Chips


class Compare(Action, tag="compare"):
    """Pay to compare hands with seat ``target``."""

    target: Seat


ZhajinhuaAction = Look | Call | RaiseStake | Compare | Fold | AllIn


# --- Dou Dizhu (docs/doudizhu.md, "Actions") -----------------------------------------------

class Bid(Action, tag="bid"):
    """Score bidding: bid ``value`` points."""

    value: int  # 1..3 and above the current bid: the engine's ``bad_bid`` otherwise


class Rob(Action, tag="rob"):
    pass


class Play(Action, tag="play"):
    """Play ``cards``: card ids from your hand, or a rank string such as ``"3334"``."""

    cards: Annotated[list[CardId], Meta(max_length=54)] | Annotated[str, Meta(max_length=54)]


class Open(Action, tag="open"):
    """明牌 (room option ``open_hand``): the landlord shows the hand face up."""


class Double(Action, tag="double"):
    """加倍 (room option ``doubling``): double your own settlement."""


DoudizhuAction = Bid | Call | Rob | Play | Pass | Open | Double


ACTIONS: dict[str, Any] = {"holdem": HoldemAction, "zhajinhua": ZhajinhuaAction, "doudizhu": DoudizhuAction}
"""Each game's action union, by game name."""

# msgspec caches what it knows of a Struct type, not of a bare union: converting into a
# one-field struct holding the union is ~15x faster than converting into the union
_BOXES = {game: msgspec.defstruct(f"{game}_act", [("action", union)]) for game, union in ACTIONS.items()}


def tags(union: Any) -> set[str]:
    """The ``type`` values a union accepts."""
    return {member.__struct_config__.tag for member in get_args(union)}


def parse_action(game: str, action: dict[str, Any]) -> dict[str, Any]:
    """``action`` checked against ``game``'s declared actions, as the engine's plain map.

    Raises :class:`ProtocolError` ``bad_message`` (with the field's path) for an unknown
    ``type``, a missing field or a value of the wrong type or out of bounds. A game
    without declared actions (a test game) gets ``action`` unchanged.
    """
    box = _BOXES.get(game)
    if box is None:
        return action
    try:
        parsed = msgspec.convert({"action": action}, box, strict=True).action
    except msgspec.ValidationError as exc:
        path = error_path(exc) or "action"
        if path == "action.type" and "Invalid value" in str(exc):
            raise ProtocolError("bad_message", f"action.type must be one of {', '.join(sorted(tags(ACTIONS[game])))}",
                                "action.type") from None
        raise ProtocolError("bad_message", f"{exc}", path) from None
    return msgspec.structs.asdict(parsed) | {"type": parsed.__struct_config__.tag}
