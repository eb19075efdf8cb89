"""The games this server hosts: ``{name: GAME}``, every game installed
(:func:`engine.registry.installed`: the entry points of the group ``cardroom.games``, the
three built-in games among them)."""

from __future__ import annotations

from engine.game import Game
from engine.registry import installed

GAMES: dict[str, Game] = dict(installed())
