"""The ``smart`` Zha Jin Hua strategy: look, then bet by hand percentile and live opponents.

The hand's strength is its percentile ``p`` among all 22,100 three-card hands under the
table's ranking rules (``view["options"]``); against ``k`` live opponents the chance
that it is the best hand is taken as ``p ** k``. With that chance ``w``:

* still blind: look at the cards (now and then call blind once in the first round,
  which costs half as much);
* ``w`` >= 0.75: raise (about doubling the stake) most of the time, else call; heads-up
  after a few rounds, compare to collect;
* ``w`` >= 0.45: call, and heads-up sometimes compare;
* ``w`` >= 0.25: compare when compare is open (a cheap way to see the hand through),
  otherwise call in the first two rounds;
* weaker: fold.

When the seat cannot pay a call it goes all-in (a compare against everyone) only with
``w`` > 0.5, else folds. Compare targets prefer opponents still playing blind.
"""

from __future__ import annotations

import random
from bisect import bisect_left, bisect_right
from itertools import combinations
from typing import Any

from ..zhajinhua.options import rules_of
from ..zhajinhua.ranking import Rules, hand_rank

Action = dict[str, Any]

_SORTED_RANKS: dict[Rules, list[int]] = {}


def percentile(cards: list[int], options: dict[str, Any]) -> float:
    """Share of all three-card hands that ``cards`` beats (ties count half), 0..1."""
    rules = rules_of(options)
    table = _SORTED_RANKS.get(rules)
    if table is None:
        table = _SORTED_RANKS[rules] = sorted(hand_rank(h, rules) for h in combinations(range(52), 3))
    r = hand_rank(cards, rules)
    below = bisect_left(table, r)
    equal = bisect_right(table, r) - below
    return (below + (equal - 1) / 2) / (len(table) - 1)


def decide(view: dict[str, Any], legal: dict[str, Any], rng: random.Random) -> Action:
    """Choose a legal action for the seat ``view["you"]`` (``legal``: the wire form)."""
    me = view["you"]
    seats = [s for s in view["seats"] if s is not None]
    mine = next(s for s in seats if s["seat"] == me)
    opponents = [s for s in seats if s["seat"] != me and s["status"] == "playing"]
    k = max(1, len(opponents))
    if not mine["seen"] or not mine.get("cards"):
        if "call" in legal and view.get("round", 1) <= 1 and rng.random() < 0.25:
            return {"type": "call"}
        if "look" in legal:
            return {"type": "look"}
        return _fold_or_all_in(legal, 0.0)
    w = percentile(mine["cards"], view["options"]) ** k
    if "call" not in legal:
        return _fold_or_all_in(legal, w)
    rnd = view.get("round", 1)
    if w >= 0.75:
        if "compare" in legal and k == 1 and rnd >= 4:
            return _compare(legal, seats, rng)
        if "raise" in legal and rng.random() < 0.6:
            r = legal["raise"]
            stake = min(r["max"], max(r["min"], 2 * view.get("stake", r["min"])))
            return {"type": "raise", "stake": stake}
        return {"type": "call"}
    if w >= 0.45:
        if "compare" in legal and k == 1 and rng.random() < 0.4:
            return _compare(legal, seats, rng)
        return {"type": "call"}
    if w >= 0.25:
        if "compare" in legal:
            return _compare(legal, seats, rng)
        if rnd <= 2:
            return {"type": "call"}
    return {"type": "fold"}


def _compare(legal: dict[str, Any], seats: list[dict[str, Any]], rng: random.Random) -> Action:
    targets = legal["compare"]["targets"]
    blind = [s["seat"] for s in seats if s["seat"] in targets and not s["seen"]]
    return {"type": "compare", "target": rng.choice(blind or targets)}


def _fold_or_all_in(legal: dict[str, Any], w: float) -> Action:
    if "all_in" in legal and w > 0.5:
        return {"type": "all_in"}
    if "fold" in legal:
        return {"type": "fold"}
    return {"type": legal["actions"][0]}
