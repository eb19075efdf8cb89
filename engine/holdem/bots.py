"""Hold'em's bot strategies. The ``smart`` one: Chen pre-flop, Monte Carlo equity after the flop.

Pre-flop the hole cards are rated with the Chen formula: premium hands raise (or
re-raise), good hands open or call a normal raise, playable hands limp or check, the
rest check or fold. Facing a big bet (more than a few big blinds) the decision is
made from Monte Carlo equity against the live opponents compared with the pot odds.

After the flop the equity against the live opponents (see
:mod:`engine.holdem.equity`, which uses the NumPy batch evaluator when it is
available) decides: strong hands bet or raise most of the pot, good hands bet half
the pot and call, hands that beat the pot odds call, the rest check or fold, with
an occasional small bluff when checked to. Every amount is clamped into the legal
``min_to``..``max_to`` range. The only randomness comes from ``rng``.

Also the ``random`` strategy (:func:`random_play`: a uniformly random legal action, a raise
to a uniform amount) and ``calling_station`` (:func:`calling_station`: checks or calls,
never raises, never folds to a bet it can match).
"""

from __future__ import annotations

import random
from typing import Any

from .equity import chen_score, equity

Action = dict[str, Any]

PREMIUM = 10  # Chen score: AA..99, AK, AQs, ...
GOOD = 7
PLAYABLE = 5
BIG_BET_BB = 4  # facing more than this many big blinds pre-flop: decide by equity


def decide(view: dict[str, Any], legal: dict[str, Any], rng: random.Random) -> Action:
    """Choose a legal action for the seat ``view["you"]`` (``legal``: the wire form)."""
    me = view["you"]
    seats = [s for s in view["seats"] if s is not None]
    hole = list(view.get("hole") or ())
    board = list(view.get("board") or ())
    if me is None or len(hole) != 2:
        return _passive(legal)
    bb = max(1, view.get("big_blind") or 1)
    opponents = sum(1 for s in seats if s["seat"] != me and s["in_hand"] and not s["folded"])
    pot = sum(p["amount"] for p in view.get("pots") or ()) + sum(s["bet"] for s in seats)
    to_call = legal.get("call") or 0
    odds = to_call / (pot + to_call) if to_call else 0.0
    top_bet = max(s["bet"] for s in seats)
    if not board:
        return _preflop(hole, legal, rng, bb, pot, to_call, odds, top_bet, opponents)
    e = equity(hole, board, opponents, rng)
    return _postflop(e, legal, rng, pot, to_call, odds, top_bet)


def _preflop(hole: list[int], legal: dict[str, Any], rng: random.Random, bb: int, pot: int,
             to_call: int, odds: float, top_bet: int, opponents: int) -> Action:
    score = chen_score(hole) + rng.uniform(-0.5, 0.5)
    unraised = top_bet <= bb
    if to_call > BIG_BET_BB * bb:
        e = equity(hole, [], opponents, rng, simulations=200)
        if score >= PREMIUM + 2 and e > 0.4:
            return _raise_to(legal, legal.get("max_to"), rng) or check_or_call(legal)
        return check_or_call(legal) if e > odds + 0.03 else _fold(legal)
    if score >= PREMIUM:
        target = 3 * bb + pot // 2 if unraised else 3 * top_bet
        return _raise_to(legal, target, rng) or check_or_call(legal)
    if score >= GOOD:
        if unraised and rng.random() < 0.7:
            return _raise_to(legal, int(2.5 * bb) + pot // 3, rng) or check_or_call(legal)
        return check_or_call(legal)
    if score >= PLAYABLE and to_call <= bb:
        return check_or_call(legal)
    return _fold(legal)


def _postflop(e: float, legal: dict[str, Any], rng: random.Random, pot: int, to_call: int,
              odds: float, top_bet: int) -> Action:
    if e >= 0.8:
        size = top_bet + int((pot + to_call) * rng.uniform(0.6, 1.0))
        return _raise_to(legal, size, rng) or check_or_call(legal)
    if e >= 0.6:
        if to_call == 0 or rng.random() < 0.2:
            size = top_bet + int((pot + to_call) * rng.uniform(0.4, 0.6))
            action = _raise_to(legal, size, rng)
            if action is not None:
                return action
        return check_or_call(legal) if e > odds else _fold(legal)
    if to_call == 0:
        if e < 0.3 and rng.random() < 0.08:
            action = _raise_to(legal, top_bet + max(1, pot // 3), rng)
            if action is not None:
                return action
        return _fold(legal)
    return check_or_call(legal) if e > odds + 0.05 else _fold(legal)


# ------------------------------------------------------------------ legal action helpers


def _raise_to(legal: dict[str, Any], target: int | None, rng: random.Random) -> Action | None:
    """A raise to ``target`` clamped into the legal range; ``None`` when raising is closed.

    Raises that would leave less than a fifth of the stack behind go all-in instead.
    """
    lo, hi = legal.get("min_to"), legal.get("max_to")
    if lo is None or hi is None or target is None:
        return None
    to = min(max(int(target), lo), hi)
    if to >= hi * 0.8:
        to = hi
    return {"type": "raise", "to": to}


def check_or_call(legal: dict[str, Any]) -> Action:
    """Check when possible, else call (all-in when short), else fold: never raise."""
    if legal.get("check"):
        return {"type": "check"}
    if legal.get("call"):
        return {"type": "call"}
    if legal.get("all_in"):
        return {"type": "all_in"}
    return {"type": "fold"}


def _fold(legal: dict[str, Any]) -> Action:
    """Check when free, else fold."""
    if legal.get("check"):
        return {"type": "check"}
    if legal.get("fold"):
        return {"type": "fold"}
    return check_or_call(legal)


def _passive(legal: dict[str, Any]) -> Action:
    return _fold(legal)

# --- ``random`` (each action type the seat may take now equally likely, an amount or a
# target then uniform within its legal range) and ``calling_station`` (a baseline for
# benchmarks: never folds, never raises) -------------------------------------------------


def random_play(view: dict[str, Any], legal: dict[str, Any], rng: random.Random) -> Action:
    """A uniformly random legal Hold'em action (``legal`` is the engine's wire form)."""
    choices: list[str] = []
    if legal.get("fold"):
        choices.append("fold")
    if legal.get("check"):
        choices.append("check")
    if legal.get("call"):
        choices.append("call")
    if legal.get("min_to") is not None and legal.get("max_to") is not None:
        choices.append("raise")
    if legal.get("all_in"):
        choices.append("all_in")
    if not choices:
        raise ValueError(f"no legal Hold'em action in {legal!r}")
    kind = rng.choice(choices)
    if kind == "raise":
        return {"type": "raise", "to": rng.randint(legal["min_to"], legal["max_to"])}
    return {"type": kind}


def calling_station(view: dict[str, Any], legal: dict[str, Any], rng: random.Random) -> Action:
    """Hold'em ``calling_station``: checks when it can, else calls (all-in when short); never
    raises, never folds to a bet it can match."""
    return check_or_call(legal)
