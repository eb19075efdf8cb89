"""Room options: declared once per game, validated with :func:`engine.config.parse_options`.

Room options shape the table (size, clock, buy-in bounds); the game's own hand options
live separately under ``config`` and are validated by ``Game.parse_config``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.config import Option, parse_options
from engine.errors import ConfigError
from engine.game import Game

NAME_MAX = 64


def room_options(game: Game) -> list[Option]:
    """The room options for ``game`` (``seats`` is bounded by its player counts)."""
    return [
        Option("name", str, f"{game.title} table", f"display name, 1 to {NAME_MAX} characters"),
        Option(
            "seats", int, game.max_players, "table size (number of seats)",
            min=game.min_players, max=game.max_players,
        ),
        Option("action_seconds", float, 30.0, "seconds a player has to act before the server acts for them", min=0.1, max=3600),
        Option(
            "between_hands_seconds", float, 3.0,
            "pause after a hand ends before the next one starts (so everyone sees the result)",
            min=0, max=600,
        ),
        Option("buy_in_min", int, 1, "smallest buy-in when joining", min=1),
        Option("buy_in_max", int, 1_000_000, "largest buy-in when joining", min=1),
        Option(
            "buy_in_default", int, 1000,
            "buy-in when join gives none (clamped to buy_in_min..buy_in_max)", min=1,
        ),
    ]


def parse_room_options(game: Game, given: Mapping[str, Any] | None) -> dict[str, Any]:
    """Validate room options; raises :class:`ConfigError` naming the first bad field."""
    opts = parse_options(room_options(game), given)
    name = opts["name"].strip()
    if not 1 <= len(name) <= NAME_MAX:
        raise ConfigError("name", f"must be 1 to {NAME_MAX} characters")
    opts["name"] = name
    if opts["buy_in_min"] > opts["buy_in_max"]:
        raise ConfigError("buy_in_max", "must be at least buy_in_min")
    opts["buy_in_default"] = min(max(opts["buy_in_default"], opts["buy_in_min"]), opts["buy_in_max"])
    return opts
