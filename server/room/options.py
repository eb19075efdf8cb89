"""Room options: declared once per game, validated with :func:`engine.config.parse_options`.

Room options shape the table (size, clock, buy-in bounds); the game's own hand options
live separately under ``config`` and are validated by ``Game.parse_config``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.bots import NAMES as BOT_STRATEGY_NAMES
from engine.config import Option, parse_options
from engine.errors import ConfigError
from engine.game import Game

NAME_MAX = 64


def bot_strategies(game: Game) -> list[str]:
    """The bot strategies bot seats offer for ``game``: ``smart`` and ``random`` where it has
    them (not the benchmarks' baselines), else all of its own (empty: no bot seats)."""
    return [n for n in BOT_STRATEGY_NAMES if n in game.bots] or list(game.bots)


def room_options(game: Game) -> list[Option]:
    """The room options for ``game`` (``seats`` is bounded by its player counts).

    The bot options (``bots``, ``bot_strategy``, ``bot_delay_seconds``) are offered for
    games that have bot strategies (:attr:`engine.game.Game.bots`); ``time_bank_seconds`` for the
    games that offer a time bank (:attr:`engine.game.Game.time_bank`).
    """
    return _table_options(game) + _time_bank_options(game) + _bot_options(game)


TIME_BANK_MAX_SECONDS = 600


def _time_bank_options(game: Game) -> list[Option]:
    """``time_bank_seconds``, in the games that offer a time bank (Hold'em)."""
    if not game.time_bank:
        return []
    return [Option(
        "time_bank_seconds", float, 0.0,
        f"extra seconds each player gets once for as long as they keep the seat, used when a turn clock runs "
        f"out (0: none; at most {TIME_BANK_MAX_SECONDS})",
        min=0, max=TIME_BANK_MAX_SECONDS,
    )]


def _bot_options(game: Game) -> list[Option]:
    strategies = bot_strategies(game)
    if not strategies:
        return []
    return [
        Option(
            "bots", int, 0,
            "seats the server fills with bots when the room is created (at most seats - 1, so a human can sit)",
            min=0, max=game.max_players - 1,
        ),
        Option("bot_strategy", str, strategies[0], "how the bots play", choices=tuple(strategies)),
        Option(
            "bot_delay_seconds", float, 1.0,
            "pause before a bot acts, so people can follow the play", min=0, max=30,
        ),
    ]


def _table_options(game: Game) -> list[Option]:
    return [
        Option("name", str, f"{game.title} table", f"display name, 1 to {NAME_MAX} characters"),
        Option(
            "seats", int, game.max_players, "table size (number of seats)",
            min=game.min_players, max=game.max_players,
        ),
        Option("action_seconds", float, 30.0, "seconds a player has to act before the server acts for them", min=0.1, max=3600),
        Option(
            "between_hands_seconds", float, 6.0,
            "pause after a hand ends before the next one starts (so everyone sees the result)",
            min=0, max=600,
        ),
        Option("buy_in_min", int, 1, "smallest buy-in when joining", min=1),
        Option("buy_in_max", int, 1_000_000, "largest buy-in when joining", min=1),
        Option(
            "buy_in_default", int, 1000,
            "buy-in when join gives none (clamped to buy_in_min..buy_in_max)", min=1,
        ),
        Option(
            "first_hand_players", int, 0,
            "ready players the first hand waits for (0: the game's minimum), so a table set up for N starts with N",
            min=0, max=game.max_players,
        ),
        Option(
            "require_seeds", bool, False,
            "deal only seats whose player has set a client seed (see docs/fairness.md); bots need none",
        ),
        Option(
            "private", bool, False,
            "not listed in the lobby; joining or watching needs the room's code (shared by its players)",
        ),
        Option(
            "spectator_chat", bool, False,
            "spectators may talk in the table chat too (players seated here always may; everyone watching reads it)",
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
    if opts.get("first_hand_players", 0) > opts["seats"]:
        raise ConfigError("first_hand_players", f"must be at most seats = {opts['seats']}, got {opts['first_hand_players']}")
    if opts.get("bots", 0) > opts["seats"] - 1:
        raise ConfigError("bots", f"must be at most seats - 1 = {opts['seats'] - 1} (a human needs a seat), got {opts['bots']}")
    opts["buy_in_default"] = min(max(opts["buy_in_default"], opts["buy_in_min"]), opts["buy_in_max"])
    return opts
