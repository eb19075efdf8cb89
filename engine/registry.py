"""The games installed with cardroom: one entry point each in the group ``cardroom.games``.

An entry is named after its game and points at its :class:`~engine.game.Game`::

    [project.entry-points."cardroom.games"]
    leduc = "leduc:GAME"

The three built-in games are declared the same way in cardroom's own ``pyproject.toml``
(``holdem = "engine.holdem:GAME"``, ...), with no special case: the server, the bots and
the tools ask :func:`installed` and never name a game. Reading the entries is metadata,
not game code: a game's module is imported when it is first asked for, here, once.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from importlib.metadata import entry_points
from types import MappingProxyType

from .game import Game

GROUP = "cardroom.games"


class GameLoadError(RuntimeError):
    """An installed game's entry point is broken: its module does not import, it is not a
    :class:`~engine.game.Game`, its name is not the entry's, or two packages declare it."""


@functools.cache
def installed() -> Mapping[str, Game]:
    """Every installed game by name (read-only; loaded once), in the order a lobby lists
    them: the fewest players first, then by name (Hold'em, Zha Jin Hua, Dou Dizhu).
    Raises :class:`GameLoadError` naming the entry at fault."""
    games: dict[str, Game] = {}
    for entry in sorted(entry_points(group=GROUP), key=lambda e: (e.name, e.value)):
        where = f"the game entry point {entry.name} = {entry.value!r}"
        if entry.name in games:
            raise GameLoadError(f"{where}: another installed package declares the game {entry.name!r} too")
        try:
            game = entry.load()
        except Exception as exc:  # an installed plugin's bug: say which one, in one line
            raise GameLoadError(f"{where} does not load: {type(exc).__name__}: {exc}") from exc
        if not isinstance(game, Game):
            raise GameLoadError(f"{where} is not an engine.game.Game (it is {game!r:.60})")
        if game.name != entry.name:
            raise GameLoadError(f"{where} names its game {game.name!r}: the entry must be named after its game")
        games[entry.name] = game
    return MappingProxyType(dict(sorted(games.items(), key=lambda item: (item[1].min_players, item[0]))))
