"""A new league's settings, checked (pure): the same rules for ``cardroom league create``
and the protocol's ``league_create``."""

from __future__ import annotations

from typing import Any

from engine.errors import ConfigError

from ..games import GAMES
from .files import NAME, League, LeagueError

SNG_STACK_BB = 75  # a sit-and-go's starting stack in big blinds (1,500 at 10/20)
#: a sit-and-go's blind levels as multiples of the configured blinds (10/20, 15/30, 25/50, ...)
SNG_LEVELS = (1, 1.5, 2.5, 5, 7.5, 10, 15, 20, 30, 40, 60, 80, 100, 150, 200, 300, 400)
MAX_HANDS = 100_000
MAX_ACTION_SECONDS = 600.0


def blind_levels(config: dict[str, Any]) -> list[list[int]]:
    """A sit-and-go's blind schedule from the game's blinds (the first level)."""
    return [[max(1, round(config["small_blind"] * m)), max(1, round(config["big_blind"] * m))] for m in SNG_LEVELS]


def new_league(name: str, game: str, *, hands: int = 100, seats: int | None = None, stack: int | None = None,
               action_seconds: float = 5.0, config: dict[str, Any] | None = None, duplicate: bool = True,
               format: str = "deals", level_hands: int = 10, owner: str | None = None) -> League:
    """A league with no entrant yet, or :class:`LeagueError` (status 2) naming what is wrong."""
    if not NAME.match(name):
        raise LeagueError(f"a league name is 1-64 letters, digits, '_', '.' or '-' (got {name[:64]!r})", 2)
    if game not in GAMES:
        raise LeagueError(f"no game {game[:32]!r} (hosted: {', '.join(sorted(GAMES))})", 2)
    g = GAMES[game]
    if g.stakes is None:
        raise LeagueError(f"{game} declares no stakes (engine.game.Stakes): it has no unit to count results in", 2)
    try:
        parsed = g.parse_config(config)
    except (ConfigError, ValueError, TypeError) as exc:
        raise LeagueError(f"config: {exc}", 2) from None
    seats = seats or g.min_players
    if not g.min_players <= seats <= g.max_players:
        raise LeagueError(f"seats must be {g.min_players} to {g.max_players} for {game}", 2)
    if not 1 <= hands <= MAX_HANDS or not 0.1 <= action_seconds <= MAX_ACTION_SECONDS:
        raise LeagueError(f"hands must be 1 to {MAX_HANDS:,} and action seconds 0.1 to {MAX_ACTION_SECONDS:.0f}", 2)
    if format not in ("deals", "sng"):
        raise LeagueError(f"format is deals or sng (got {format[:16]!r})", 2)
    sng = format == "sng"
    if sng and ("small_blind" not in parsed or "big_blind" not in parsed or level_hands < 1):
        raise LeagueError("format sng is for games played with blinds, with level hands of at least 1", 2)
    unit = int(parsed[g.stakes.field])
    if stack is not None and stack < 1:
        raise LeagueError("stack must be at least 1 chip", 2)
    return League(name=name, game=game, seats=seats, hands=hands,
                  stack=stack or (SNG_STACK_BB if sng else g.stakes.league_stack) * unit, unit=unit,
                  action_seconds=action_seconds, duplicate=duplicate, config=parsed, format=format,
                  levels=blind_levels(parsed) if sng else [], level_hands=level_hands, owner=owner)
