"""Leduc Hold'em's bot strategies (``decide(view, legal, rng) -> action``, as in
``engine.bots``): what bot seats, ``cardroom bots`` and leagues of built-in strategies play.

``random``: each allowed action alike. ``smart``: by the strength of its hand: a king, or a
pair with the public card, bets and raises; a queen calls one bet before the public card,
then only with a pair or a king-less board; a jack checks, folds to a bet, and now and
then bluffs first in (one time in five).
"""

from __future__ import annotations

import random
from typing import Any

from .rules import rank

KINDS = ("fold", "check", "call", "raise")


def random_strategy(view: dict[str, Any], legal: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    return {"type": rng.choice([k for k in KINDS if legal[k]])}


def smart(view: dict[str, Any], legal: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    card = view["hole"][0]
    board = view["board"]
    paired = bool(board) and rank(board[0]) == rank(card)
    strong = paired or rank(card) == 2 and (not board or rank(board[0]) != 2)
    if strong:
        return {"type": "raise"} if legal["raise"] else {"type": "call" if legal["call"] else "check"}
    middling = rank(card) == 1 and (not board or rank(board[0]) == 0)
    if legal["check"]:
        bluff = not board and rank(card) == 0 and legal["raise"] and rng.random() < 0.2
        return {"type": "raise" if bluff else "check"}
    if middling and (not board or view["pot"] <= 6 * legal["call"]):
        return {"type": "call"}
    return {"type": "fold"}


STRATEGIES = {"smart": smart, "random": random_strategy}
