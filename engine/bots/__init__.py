"""Bot strategies for every game: pure functions from a seat's view to an action.

A *strategy* is ``decide(view, legal, rng) -> action``:

``view``    the seat's view, plain data: exactly what ``GAME.view(state, seat)`` returns
            and what a client finds in a ``room`` snapshot's ``view``
``legal``   the seat's legal actions in wire form (``view["legal"]``), never ``None``
``rng``     a :class:`random.Random`; the strategy's only source of randomness, so a
            seeded ``rng`` makes every decision reproducible
returns     an action dict the engine's ``apply`` accepts

Strategies never see hidden cards (they only get the view), keep no state between
calls, do no I/O and never raise for a legal position. Call one only when the seat
may act: ``view["to_act"] == seat`` and ``legal`` is not ``None``. (In Zha Jin Hua a
strategy may answer ``{"type": "look"}``; the seat is then still to act and the
strategy is asked again with the new view.)

:data:`STRATEGIES` maps ``(game, name)`` to a strategy; every game has ``"smart"``
and ``"random"``, Hold'em and Zha Jin Hua also ``"calling_station"`` (a baseline that
calls everything). Use :func:`get_strategy` to look one up with a clear error.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from . import doudizhu, holdem, zhajinhua
from .random_bot import (
    doudizhu_random,
    holdem_calling_station,
    holdem_random,
    zhajinhua_calling_station,
    zhajinhua_random,
)

Strategy = Callable[[dict[str, Any], dict[str, Any], random.Random], dict[str, Any]]

STRATEGIES: dict[tuple[str, str], Strategy] = {
    ("holdem", "smart"): holdem.decide,
    ("holdem", "random"): holdem_random,
    ("zhajinhua", "smart"): zhajinhua.decide,
    ("zhajinhua", "random"): zhajinhua_random,
    ("doudizhu", "smart"): doudizhu.decide,
    ("doudizhu", "random"): doudizhu_random,
    ("holdem", "calling_station"): holdem_calling_station,
    ("zhajinhua", "calling_station"): zhajinhua_calling_station,
}

GAMES = ("holdem", "zhajinhua", "doudizhu")
#: the strategies every game has (and server-side bot seats offer); ``calling_station``
#: (Hold'em and Zha Jin Hua: never folds, never raises) is a baseline for benchmarks
NAMES = ("smart", "random")


def get_strategy(game: str, name: str) -> Strategy:
    """The strategy ``name`` of ``game``; ``KeyError`` listing the known ones otherwise."""
    try:
        return STRATEGIES[(game, name)]
    except KeyError:
        known = ", ".join(f"{g}/{n}" for g, n in STRATEGIES)
        raise KeyError(f"no strategy {name!r} for game {game!r} (known: {known})") from None


def seat_of(view: dict[str, Any]) -> int | None:
    """The viewing seat of a view (every game's view names it ``you``)."""
    return view.get("you")


def decide(game: str, name: str, view: dict[str, Any], rng: random.Random) -> dict[str, Any] | None:
    """The action of strategy ``name`` for ``view``, or ``None`` when the seat may not act now.

    This is the one call a server-side bot seat needs: pass the seat's view (the same
    data a client would get) and a per-seat ``random.Random``.
    """
    legal = view.get("legal")
    if legal is None or view.get("is_over") or view.get("to_act") is None:
        return None
    if view["to_act"] != seat_of(view):
        return None
    return get_strategy(game, name)(view, legal, rng)


__all__ = ["GAMES", "NAMES", "STRATEGIES", "Strategy", "decide", "get_strategy", "seat_of"]
