"""A short Hold'em session between simple engine-driven players, printed as hand histories.

``cardroom demo`` (and ``make run``) calls :func:`run_demo`. The table shuffles with
``random.Random(seed)`` (a seed picked at random and printed when none is given, so
``--seed`` replays any run), the players follow a tiny rule of thumb, the button moves
one seat left after every hand and players who lose their stack leave. Every hole
card is printed since nobody is hiding anything in a demo.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from collections.abc import Callable
from typing import Any

from engine.cards import deck52, rank_of
from engine.holdem import GAME, apply, category, evaluate, legal_actions, start_hand, view
from engine.holdem.state import HoldemState

NAMES = ["Alice", "Bob", "Carol", "Dave", "Erin", "Frank", "Grace", "Heidi", "Ivan", "Judy"]
STARTING_STACK = 2000
#: exit status when stdout is closed early (``cardroom demo | head``): 128 + SIGPIPE, what
#: a shell reports for Unix tools stopped the same way (``seq 100000 | head``)
BROKEN_PIPE_STATUS = 141
SMALL_BLIND = 10
BIG_BLIND = 20


def choose_action(state: HoldemState, seat: int, rng: random.Random) -> dict[str, Any]:
    """A simple player: raise with a pair or two high cards, call small bets, else check/fold.

    It decides from its own view only (its hole cards, the board and its legal actions).
    """
    me = view(state, seat)
    legal = legal_actions(state, seat)
    hole, board = me["hole"], me["board"]
    if board:
        strength = category(evaluate(hole + board))  # 0 high card .. 8 straight flush
        strong = strength >= 2 or (strength == 1 and rng.random() < 0.5)
    else:
        high = sorted(rank_of(c) for c in hole)
        strong = high[0] == high[1] or high[0] >= 8 or (high[1] == 12 and rng.random() < 0.5)
    pot = sum(p["amount"] for p in me["pots"]) + sum(s["bet"] for s in me["seats"] if s)
    if strong and legal.min_to is not None and rng.random() < 0.7:
        target = max(legal.min_to, (state.current_bet + pot // 2) // SMALL_BLIND * SMALL_BLIND)
        return {"type": "raise", "to": min(target, legal.max_to)}
    if legal.check:
        return {"type": "check"}
    if strong or legal.call <= max(BIG_BLIND, pot // 4) or rng.random() < 0.1:
        return {"type": "call"}
    return {"type": "fold"}


def run_demo(hands: int = 5, players: int = 4, seed: int | None = None,
             out: Callable[[str], None] = print) -> dict[str, Any]:
    """Play up to ``hands`` hands between ``players`` (2-10) players and print each history.

    ``seed`` None picks one at random; the first line printed names the seed used, and
    the same seed (with the same ``hands`` and ``players``) prints the same session.
    Returns ``{"hands": played, "stacks": {name: chips}, "seed": seed}`` with everyone's
    final chips (players who busted have 0).
    """
    if not 2 <= players <= len(NAMES):
        raise ValueError(f"--players must be between 2 and {len(NAMES)}, got {players}")
    if hands < 1:
        raise ValueError(f"--hands must be at least 1, got {hands}")
    if seed is None:
        seed = random.SystemRandom().randrange(1 << 31)
    rng = random.Random(seed)
    seats: list[tuple[str, int] | None] = [(NAMES[s], STARTING_STACK) for s in range(players)]
    button = 0
    played = 0
    out(f"Cardroom demo: {players} players, {STARTING_STACK} chips each, "
        f"blinds {SMALL_BLIND}/{BIG_BLIND}, seed {seed}")
    for number in range(1, hands + 1):
        if sum(s is not None for s in seats) < 2:
            break
        deck = deck52()
        rng.shuffle(deck)
        config = {"small_blind": SMALL_BLIND, "big_blind": BIG_BLIND, "button": button}
        state, events = start_hand(config, seats, deck)
        history = list(events)
        while not state.is_over:
            seat = state.to_act
            state, events = apply(state, seat, choose_action(state, seat, rng))
            history.extend(events)
        played += 1
        out("")
        for line in hand_history(number, state, history):
            out(line)
        seats = [None if seat is None or state.stacks[s] == 0 else (seat[0], state.stacks[s])
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
    return {"hands": played, "stacks": final, "seed": seed}


def demo_command(args: argparse.Namespace) -> int:
    """``cardroom demo``: run the demo; bad arguments get one clear line and exit status 2
    (no traceback). When stdout is closed before the end (``cardroom demo | head``) it
    stops quietly with :data:`BROKEN_PIPE_STATUS`, as Unix tools do."""
    try:
        run_demo(hands=args.hands, players=args.players, seed=args.seed)
        sys.stdout.flush()  # a closed pipe shows here, not at interpreter exit
    except ValueError as exc:
        print(f"cardroom demo: {exc} (try --players 4 --hands 5)", file=sys.stderr)
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


def hand_history(number: int, state: HoldemState, events: list[dict[str, Any]]) -> list[str]:
    """A readable history of one hand from its events (every hole card shown): the
    demo's header, street and stack lines around Hold'em's own ``GAME.format_event``."""
    names = state.players

    def who(seat: int) -> str:
        return f"{names[seat]}"

    lines: list[str] = []
    street_open = False
    for e in events:
        kind = e["type"]
        if kind == "hand_start":
            lines.append(f"=== Hand {number}: button {who(e['button'])}, blinds "
                         f"{e['small_blind']}/{e['big_blind']}"
                         + (f", ante {e['ante']}" if e["ante"] else "") + " ===")
            lines.append("Seats: " + ", ".join(f"{s['player']} ({s['stack']})"
                                               for s in e["seats"] if s is not None))
            continue
        if kind == "hand_over":
            lines.append("Stacks: " + ", ".join(f"{names[s]} {chips}" for s, chips in enumerate(e["stacks"])
                                                if names[s] is not None))
            continue
        if kind == "action" and not street_open:
            lines.append("-- Pre-flop --")
        street_open = street_open or kind in ("action", "board")
        line = GAME.format_event(e, who)
        if line:
            lines.append(line)
    return lines
