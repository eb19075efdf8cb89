"""Play strategies against each other through the engines only (no server, no I/O).

:func:`play_hand` plays one hand to the end; :func:`simulate` plays many with the
button moving round the table, stacks reset before every hand, decks shuffled by a
seeded :class:`random.Random` (one seed reproduces the whole run) and returns
:class:`SimStats`: chips won per seat with a 95% confidence interval, also in the game's
result unit (its :class:`~engine.game.Stakes`: big blinds per 100 hands, antes per
hand ...), and, when a game's hands end with a ``result`` naming a ``landlord`` (Dou
Dizhu), who held that role and which side won. Any installed game with bot strategies
plays, at its practice table (:class:`~engine.game.Practice`) unless told otherwise.
``cardroom simulate`` and ``bench/bot_strength.py`` are thin wrappers around
:func:`simulate`.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..game import Game
from ..registry import installed
from . import Strategy, get_strategy

MAX_ACTIONS = 5000  # per hand: a strategy that loops (Zha Jin Hua "look" twice) is a bug
MAX_REDEALS = 50
STREETS = {"preflop": 1, "flop": 2, "turn": 3, "river": 4}


class StrategyError(RuntimeError):
    """A strategy returned an action the engine rejected (or looped)."""


@dataclass
class HandResult:
    """One finished hand: chips won (negative: lost) by seat, and Dou Dizhu's roles."""

    deltas: list[int]
    landlord: int | None = None
    landlord_won: bool | None = None
    redeals: int = 0
    rounds: int = 0   # betting rounds: Zha Jin Hua's round, Hold'em's streets (1-4); Dou Dizhu 0
    actions: int = 0  # actions taken (the last deal's, for Dou Dizhu)
    capped: bool = False  # Zha Jin Hua: the hand reached ``max_rounds`` (the forced showdown)


def play_hand(game: Game | str, config: Mapping[str, Any], strategies: Sequence[Strategy],
              stacks: Sequence[int], button: int, rng: random.Random,
              bot_rngs: Sequence[random.Random]) -> HandResult:
    """Play one hand (Dou Dizhu: redealt while everyone passes) and return the result.

    ``rng`` shuffles the decks; ``bot_rngs[seat]`` is handed to that seat's strategy.
    """
    g = installed()[game] if isinstance(game, str) else game
    seats = [(f"bot{s}", stacks[s]) for s in range(len(strategies))]
    redeals = 0
    while True:
        deck = list(range(g.deck_size))
        rng.shuffle(deck)
        state = g.new_hand({**config, "button": button}, seats, deck)
        actions = 0
        streets = 1
        for _ in range(MAX_ACTIONS):
            if state.is_over:
                break
            streets = max(streets, STREETS.get(getattr(state, "street", ""), 0))
            actions += 1
            seat = state.to_act
            view = g.view(state, seat)
            action = strategies[seat](view, view["legal"], bot_rngs[seat])
            try:
                state, _ = g.apply(state, seat, action)
            except Exception as exc:
                raise StrategyError(f"{g.name} seat {seat}: {action!r} rejected: {exc}\n"
                                    f"view: {view!r}") from exc
        else:
            raise StrategyError(f"{g.name}: hand not over after {MAX_ACTIONS} actions")
        result = getattr(state, "result", None)
        result = result if isinstance(result, Mapping) else {}
        if result.get("type") == "redeal":  # everyone passed (Dou Dizhu's auction): deal again
            redeals += 1
            if redeals >= MAX_REDEALS:
                return HandResult([0] * len(stacks), redeals=redeals)
            continue
        deltas = [state.stacks[s] - stacks[s] for s in range(len(stacks))]
        if result.get("landlord") is not None:  # a game of roles (Dou Dizhu)
            return HandResult(deltas, result["landlord"], result.get("winner") == "landlord", redeals,
                              actions=actions)
        cap = (getattr(state, "options", None) or {}).get("max_rounds")
        if cap is not None:  # betting rounds up to a cap (Zha Jin Hua)
            return HandResult(deltas, redeals=redeals, rounds=state.round, actions=actions, capped=state.round >= cap)
        return HandResult(deltas, redeals=redeals, rounds=streets, actions=actions)


@dataclass
class SimStats:
    """Totals of a :func:`simulate` run, by seat."""

    game: str
    names: list[str]
    big_blind: int = 1
    unit: str = "chips/hand"  # the game's result unit (Stakes.unit)
    per: float = 1.0  # results per this many hands (Stakes.per)
    unit_size: int = 1  # chips in one unit: the stake option's value
    hands: int = 0
    chips: list[int] = field(default_factory=list)
    squares: list[float] = field(default_factory=list)
    landlord_games: list[int] = field(default_factory=list)
    landlord_wins: list[int] = field(default_factory=list)
    peasant_games: list[int] = field(default_factory=list)
    peasant_wins: list[int] = field(default_factory=list)
    redeals: int = 0
    rounds: int = 0        # summed over the hands (see :attr:`HandResult.rounds`)
    max_rounds: int = 0    # the longest hand's
    capped: int = 0        # hands that reached Zha Jin Hua's round cap
    actions: int = 0

    def add(self, r: HandResult) -> None:
        n = len(self.names)
        if not self.chips:
            self.chips, self.squares = [0] * n, [0.0] * n
            self.landlord_games, self.landlord_wins = [0] * n, [0] * n
            self.peasant_games, self.peasant_wins = [0] * n, [0] * n
        self.hands += 1
        self.redeals += r.redeals
        self.rounds += r.rounds
        self.max_rounds = max(self.max_rounds, r.rounds)
        self.capped += r.capped
        self.actions += r.actions
        for s, d in enumerate(r.deltas):
            self.chips[s] += d
            self.squares[s] += d * d
        if r.landlord is not None:
            for s in range(n):
                if s == r.landlord:
                    self.landlord_games[s] += 1
                    self.landlord_wins[s] += bool(r.landlord_won)
                else:
                    self.peasant_games[s] += 1
                    self.peasant_wins[s] += not r.landlord_won

    def per_hand(self, seat: int) -> tuple[float, float]:
        """Mean chips won per hand by ``seat`` and the half-width of its 95% interval."""
        if self.hands == 0:
            return 0.0, 0.0
        mean = self.chips[seat] / self.hands
        if self.hands < 2:
            return mean, math.inf
        var = max(0.0, (self.squares[seat] - self.hands * mean * mean) / (self.hands - 1))
        return mean, 1.96 * math.sqrt(var / self.hands)

    def rounds_per_hand(self) -> float:
        """Average betting rounds per hand (Zha Jin Hua rounds, Hold'em streets)."""
        return self.rounds / self.hands if self.hands else 0.0

    def actions_per_hand(self) -> float:
        """Average actions per hand."""
        return self.actions / self.hands if self.hands else 0.0

    def bb_per_100(self, seat: int) -> tuple[float, float]:
        """Hold'em: big blinds won per 100 hands and the 95% half-width."""
        mean, half = self.per_hand(seat)
        return 100 * mean / self.big_blind, 100 * half / self.big_blind

    def per_unit(self, seat: int) -> tuple[float, float]:
        """Results in the game's unit (``per`` hands' worth of the stake option: big blinds per
        100 hands, antes per hand ...) and the 95% half-width."""
        mean, half = self.per_hand(seat)
        return self.per * mean / self.unit_size, self.per * half / self.unit_size

    def win_rate(self, seat: int, role: str) -> tuple[float, int]:
        """Dou Dizhu: share of games won as ``landlord`` or ``peasant``, and how many."""
        games = self.landlord_games[seat] if role == "landlord" else self.peasant_games[seat]
        wins = self.landlord_wins[seat] if role == "landlord" else self.peasant_wins[seat]
        return (wins / games if games else 0.0), games

    def table(self) -> list[dict[str, Any]]:
        """One row per seat, plain data (used by the CLI and the bench)."""
        rows = []
        for s, name in enumerate(self.names):
            mean, half = self.per_hand(s)
            row: dict[str, Any] = {"seat": s, "strategy": name, "hands": self.hands,
                                   "chips": self.chips[s] if self.chips else 0,
                                   "per_hand": mean, "ci95": half, "unit": self.unit}
            row["per_unit"], row["unit_ci95"] = self.per_unit(s)
            if self.unit == "bb/100":
                row["bb_per_100"], row["bb_ci95"] = row["per_unit"], row["unit_ci95"]
            if any(self.landlord_games):
                row["landlord_rate"], row["landlord_games"] = self.win_rate(s, "landlord")
                row["peasant_rate"], row["peasant_games"] = self.win_rate(s, "peasant")
            rows.append(row)
        return rows


def simulate(game: str, names: Sequence[str], hands: int, seed: int | None = None,
             config: Mapping[str, Any] | None = None, stack: int | None = None,
             progress: Callable[[int, SimStats], None] | None = None,
             strategies: Sequence[Strategy] | None = None) -> SimStats:
    """Play ``hands`` hands of ``game`` with strategy ``names[seat]`` in each seat.

    Stacks are reset to ``stack`` (default: the game's practice stack) before every hand
    and the button moves one seat per hand; ``config`` adds to the practice table's. ``progress(done, stats)`` is called after
    each hand. ``strategies`` overrides the lookup of ``names`` (for custom bots).
    """
    games = installed()
    if game not in games:
        raise KeyError(f"unknown game {game!r} (known: {', '.join(games)})")
    g = games[game]
    if not g.min_players <= len(names) <= g.max_players:
        raise ValueError(f"{game} needs {g.min_players} to {g.max_players} players, got {len(names)}")
    funcs = list(strategies) if strategies is not None else [get_strategy(game, n) for n in names]
    cfg = {**g.practice.config, **(config or {})}
    parsed = g.parse_config(cfg)
    start = stack if stack is not None else g.practice.stack
    rng = random.Random(seed)
    bot_rngs = [random.Random(rng.getrandbits(64)) for _ in names]
    stats = SimStats(game, list(names), big_blind=int(parsed.get("big_blind", 1)))
    if g.stakes is not None:
        stats.unit, stats.per = g.stakes.unit, g.stakes.per
        stats.unit_size = max(1, int(parsed.get(g.stakes.field, 1)))
    stacks = [start] * len(names)
    for h in range(hands):
        stats.add(play_hand(g, parsed, funcs, stacks, h % len(names), rng, bot_rngs))
        if progress is not None:
            progress(h + 1, stats)
    return stats
