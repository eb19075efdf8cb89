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

A game declares its strategies in its ``Game`` (:attr:`engine.game.Game.bots`): the
three built-in games each have ``"smart"`` and ``"random"`` (``engine/<game>/bots.py``),
Hold'em and Zha Jin Hua also ``"calling_station"`` (a baseline that calls everything); a
game installed from another package brings its own. :func:`strategies` lists a game's,
:func:`get_strategy` looks one up with a clear error.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

Strategy = Callable[[dict[str, Any], dict[str, Any], random.Random], dict[str, Any]]

#: the strategies bot seats offer first, in this order, where a game has them;
#: ``calling_station`` (Hold'em and Zha Jin Hua: never folds, never raises) is a baseline
#: for benchmarks
NAMES = ("smart", "random")


def strategies(game: str) -> Mapping[str, Strategy]:
    """The strategies of the installed game ``game`` by name ({} for a game not installed)."""
    from ..registry import installed  # (deferred: the games import their strategies from here)

    found = installed().get(game)
    return found.bots if found is not None else {}


def games() -> list[str]:
    """The installed games that have bot strategies, in the registry's order."""
    from ..registry import installed

    return [name for name, game in installed().items() if game.bots]


def get_strategy(game: str, name: str) -> Strategy:
    """The strategy ``name`` of ``game``; ``KeyError`` listing the known ones otherwise."""
    known = strategies(game)
    if name not in known:
        listed = ", ".join(f"{g}/{n}" for g in games() for n in strategies(g))
        raise KeyError(f"no strategy {name!r} for game {game!r} (known: {listed})")
    return known[name]


def seat_of(view: dict[str, Any]) -> int | None:
    """The viewing seat of a view (every game's view names it ``you``)."""
    return view.get("you")


def decide(game: str | Any, name: str, view: dict[str, Any], rng: random.Random) -> dict[str, Any] | None:
    """The action of strategy ``name`` for ``view``, or ``None`` when the seat may not act now.

    This is the one call a server-side bot seat needs: pass the seat's view (the same
    data a client would get) and a per-seat ``random.Random``. ``game`` is an installed
    game's name, or a :class:`~engine.game.Game` (its own ``bots``).
    """
    legal = view.get("legal")
    if legal is None or view.get("is_over") or view.get("to_act") is None:
        return None
    if view["to_act"] != seat_of(view):
        return None
    if isinstance(game, str):
        return get_strategy(game, name)(view, legal, rng)
    if name not in game.bots:
        raise KeyError(f"no strategy {name!r} for game {game.name!r} (known: {', '.join(game.bots)})")
    return game.bots[name](view, legal, rng)


__all__ = ["NAMES", "Strategy", "decide", "games", "get_strategy", "seat_of", "strategies"]
