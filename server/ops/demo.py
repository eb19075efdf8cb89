"""A short session of any installed game between its bots, printed as hand histories.

``cardroom demo`` (and ``make run``) calls :func:`run_demo`. The game (default: the first
installed game with bot strategies, Hold'em) is played at its practice table
(:class:`engine.game.Practice`: hand options and stacks), every seat by the game's first
strategy. The table shuffles with ``random.Random(seed)`` (a seed picked at random and
printed when none is given, so ``--seed`` replays any run), the button moves one seat
left after every hand and players who lose their stack leave. Every hole card is
printed (the game's own history words, ``Game.format_event``) since nobody is hiding
anything in a demo.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from collections.abc import Callable
from typing import Any

from engine.bots import games as games_with_bots
from engine.game import Game
from engine.registry import installed

NAMES = ["Alice", "Bob", "Carol", "Dave", "Erin", "Frank", "Grace", "Heidi", "Ivan", "Judy"]
#: exit status when stdout is closed early (``cardroom demo | head``): 128 + SIGPIPE, what
#: a shell reports for Unix tools stopped the same way (``seq 100000 | head``)
BROKEN_PIPE_STATUS = 141
MAX_ACTIONS = 5000  # per hand: a bot that never ends a hand is a bug


def demo_game(name: str | None) -> Game:
    """The game ``name`` (None: the first installed game with bot strategies); raises
    ValueError naming the choices for a game that is not installed or has no bots."""
    choices = games_with_bots()
    chosen = name if name is not None else (choices[0] if choices else "")
    if chosen not in choices:
        raise ValueError(f"--game must be an installed game with bots ({', '.join(choices)}), got {chosen!r}")
    return installed()[chosen]


def default_players(game: Game) -> int:
    """Four players where the game seats four, else as many as it can."""
    return min(max(4, game.min_players), game.max_players, len(NAMES))


def run_demo(hands: int = 5, players: int | None = None, seed: int | None = None,
             out: Callable[[str], None] = print, game: str | None = None) -> dict[str, Any]:
    """Play up to ``hands`` hands of ``game`` between ``players`` players and print each history.

    ``seed`` None picks one at random; the first line printed names the game and the seed
    used, and the same seed (with the same ``game``, ``hands`` and ``players``) prints the
    same session. Returns ``{"game", "hands": played, "stacks": {name: chips}, "seed": seed}``
    with everyone's final chips (players who busted have 0).
    """
    g = demo_game(game)
    players = default_players(g) if players is None else players
    least, most = g.min_players, min(g.max_players, len(NAMES))
    if not least <= players <= most:
        raise ValueError(f"--players must be between {least} and {most} for {g.name}, got {players}")
    if hands < 1:
        raise ValueError(f"--hands must be at least 1, got {hands}")
    if seed is None:
        seed = random.SystemRandom().randrange(1 << 31)
    rng = random.Random(seed)
    decide = next(iter(g.bots.values()))
    config = g.parse_config(g.practice.config)
    start = g.practice.stack
    seats: list[tuple[str, int] | None] = [(NAMES[s], start) for s in range(players)]
    button = 0
    played = 0
    title = g.strings.get("en", {}).get("title", g.title)
    out(f"Cardroom demo: {title}, {players} players, {start} chips each, seed {seed}")
    for number in range(1, hands + 1):
        if sum(s is not None for s in seats) < g.min_players:
            break
        deck = list(range(g.deck_size))
        rng.shuffle(deck)
        state = g.new_hand({**config, "button": button}, seats, deck)
        history = list(g.start_events(state))
        for _ in range(MAX_ACTIONS):
            if state.is_over:
                break
            seat = state.to_act
            view = g.view(state, seat)
            state, events = g.apply(state, seat, decide(view, view["legal"], rng))
            history.extend(events)
        played += 1
        out("")
        for line in hand_history(g, number, button, seats, state, history):
            out(line)
        seats = [None if seat is None or not state.stacks[s] else (seat[0], state.stacks[s])
                 for s, seat in enumerate(seats)]
        for s, seat in enumerate(seats):
            if seat is None and state.players[s] is not None:
                out(f"{state.players[s]} is out of chips and leaves the table.")
        occupied = [s for s, seat in enumerate(seats) if seat is not None]
        if occupied:
            button = min(occupied, key=lambda s: (s - button - 1) % len(seats))
    final = {NAMES[s]: 0 for s in range(players)}
    for seat in seats:
        if seat is not None:
            final[seat[0]] = seat[1]
    out("")
    out(f"After {played} hand(s): " + ", ".join(f"{name} {chips}" for name, chips in final.items()))
    return {"game": g.name, "hands": played, "stacks": final, "seed": seed}


def demo_command(args: argparse.Namespace) -> int:
    """``cardroom demo``: run the demo; bad arguments get one clear line and exit status 2
    (no traceback). When stdout is closed before the end (``cardroom demo | head``) it
    stops quietly with :data:`BROKEN_PIPE_STATUS`, as Unix tools do."""
    try:
        run_demo(hands=args.hands, players=args.players, seed=args.seed, game=args.game)
        sys.stdout.flush()  # a closed pipe shows here, not at interpreter exit
    except ValueError as exc:
        print(f"cardroom demo: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        _discard_stdout()
        return BROKEN_PIPE_STATUS
    return 0


def _discard_stdout() -> None:
    """Point stdout's file descriptor at /dev/null, so the output still buffered is
    dropped at exit instead of failing again on the closed pipe."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):
        return  # not a real file (a test's capture): nothing is flushed to a pipe at exit
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, fd)
    finally:
        os.close(devnull)


def hand_history(game: Game, number: int, button: int, seats: list[tuple[str, int] | None],
                 state: Any, events: list[dict[str, Any]]) -> list[str]:
    """A readable history of one hand from its events (every hole card shown): the
    demo's header, seat and stack lines around the game's own ``format_event``."""
    names = state.players

    def who(seat: int) -> str:
        return f"{names[seat]}"

    lines = [f"=== Hand {number}: button {who(button)} ===",
             "Seats: " + ", ".join(f"{seat[0]} ({seat[1]})" for seat in seats if seat is not None)]
    for e in events:
        line = game.format_event(e, who)
        if line:
            lines.append(line)
    lines.append("Stacks: " + ", ".join(f"{names[s]} {chips}" for s, chips in enumerate(state.stacks)
                                        if names[s] is not None))
    return lines
