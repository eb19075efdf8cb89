"""Zha Jin Hua's bot strategies. The ``smart`` one: fold, raise and compare by hand strength and pot odds.

**Strength.** The hand's percentile ``p`` among all 22,100 three-card hands under the
table's ranking rules (``view["options"]``). Against each live opponent the chance of
holding the better hand is estimated from what the view shows of it: an opponent still
blind holds any hand (``p``); one that looked and kept paying is assumed to hold a hand
above a floor that rises with the chips it put in (:func:`opponent_floor`), so the
chance is ``(p - floor) / (1 - floor)``. ``w``, the chance of holding the best hand, is
the product over the live opponents.

**Decisions** (``pot``: chips in the middle; ``cost``: this call; ``k`` live opponents):

* still blind: look (a quarter of the time in round 1 it calls blind first: half price);
* *showdown value* ``w * (pot + n * cost) - n * cost`` with ``n = k + 1``: the chips a
  call now plus one compare per opponent would win on average. Weaker hands fold when
  it is negative (the price is too high for the chance), so a weak hand folds early and a
  marginal one folds to a big stake;
* strong hands (``w >= 0.6``) raise (to twice the stake, or the top stake with
  ``w >= 0.85``) most of the time while the pot is still being built, then compare;
* otherwise, once compare is open, it compares when that is worth it
  (``w * (pot + k * fee) > k * fee``: the pot odds of seeing every hand through) rather
  than paying round after round; strong hands first take a few rounds of value
  (``value_rounds``: 2 to 6 by strength) before they compare;
* the compare target is the opponent it most likely beats (a blind one first).

So a hand between smart players ends within a few rounds (someone folds or compares),
never at the ``max_rounds`` cap, and a calling station is made to pay for a weak call.
When the seat cannot pay a call it goes all-in (a compare against everyone) only with
``w > 0.5``, else folds.

Also the ``random`` strategy (:func:`random_play`: a uniformly random legal action, looking
included while blind) and ``calling_station`` (:func:`calling_station`: looks, then calls
every round; never raises, folds or compares).
"""

from __future__ import annotations

import math
import random
from bisect import bisect_left, bisect_right
from itertools import combinations
from typing import Any

from .options import rules_of
from .ranking import Rules, hand_rank

Action = dict[str, Any]

_SORTED_RANKS: dict[Rules, list[int]] = {}

STRONG = 0.6        # w from which the hand raises for value
VERY_STRONG = 0.85  # w from which a raise goes to the top stake
MAX_FLOOR = 0.6     # the most an opponent's betting can say about its hand
CALL_ROUNDS = 3     # rounds a hand worth a call calls before it compares
FLOOR_BASE = 0.2    # an opponent that looked and plays on holds at least this
FLOOR_SLOPE = 0.08  # ... plus this per doubling of the antes it put in


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


def opponent_floor(seat: dict[str, Any], ante: int) -> float:
    """The percentile a live opponent's hand is assumed to be above, from its betting.

    A blind opponent has not seen its cards: 0. One that looked and still plays has
    kept a hand worth playing: 0.2, rising with every ante's worth of chips it put in
    beyond the ante, up to :data:`MAX_FLOOR`.
    """
    if not seat.get("seen"):
        return 0.0
    extra = max(0, seat.get("paid", 0) - ante) / max(1, ante)
    return min(MAX_FLOOR, FLOOR_BASE + FLOOR_SLOPE * math.log2(1 + extra))


def beat_chance(p: float, floor: float) -> float:
    """Chance a hand of percentile ``p`` beats one drawn uniformly above ``floor``."""
    if p <= floor:
        return 0.02 * p  # only a tie-break's worth
    return (p - floor) / (1 - floor)


def value_rounds(w: float) -> int:
    """Rounds a strong hand keeps betting for value before it compares (2..6)."""
    return 2 + round(4 * max(0.0, min(1.0, (w - STRONG) / (1 - STRONG))))


def decide(view: dict[str, Any], legal: dict[str, Any], rng: random.Random) -> Action:
    """Choose a legal action for the seat ``view["you"]`` (``legal``: the wire form)."""
    me = view["you"]
    seats = [s for s in view["seats"] if s is not None]
    mine = next(s for s in seats if s["seat"] == me)
    opponents = [s for s in seats if s["seat"] != me and s["status"] == "playing"]
    rnd = view.get("round", 1)
    if not mine["seen"] or not mine.get("cards"):
        if "call" in legal and rnd <= 1 and rng.random() < 0.25:
            return {"type": "call"}
        if "look" in legal:
            return {"type": "look"}
        return _fold_or_all_in(legal, 0.0)
    p = percentile(mine["cards"], view["options"])
    ante = int(view.get("ante") or 1)
    chances = {s["seat"]: beat_chance(p, opponent_floor(s, ante)) for s in opponents}
    w = math.prod(chances.values()) if chances else 1.0
    if "call" not in legal:
        return _fold_or_all_in(legal, w)
    k = max(1, len(opponents))
    pot = int(view.get("pot", 0))
    cost = int(legal["call"]["cost"])
    compare = legal.get("compare")

    if w >= STRONG:
        if compare and rnd > value_rounds(w):
            return _compare(compare, chances)
        raise_to = _raise_stake(view, legal, w)
        if raise_to is not None and rng.random() < 0.75:
            return {"type": "raise", "stake": raise_to}
        if compare and (raise_to is None and rnd > 2 and rng.random() < 0.3):
            return _compare(compare, chances)
        return {"type": "call"}
    n = k + 1  # this call, then one compare per opponent; the opponents call too
    worth_a_call = w * (pot + n * cost + k * cost) > n * cost
    if worth_a_call and (not compare or rnd <= CALL_ROUNDS):
        return {"type": "call"}
    if compare:
        fee = int(compare["cost"])
        if w * (pot + k * fee) > k * fee:
            return _compare(compare, chances)
    return {"type": "fold"}


def _raise_stake(view: dict[str, Any], legal: dict[str, Any], w: float) -> int | None:
    """The stake to raise to, or None when raising further adds nothing."""
    r = legal.get("raise")
    if not r:
        return None
    stake = int(view.get("stake", r["min"]))
    target = r["max"] if w >= VERY_STRONG else max(r["min"], 2 * stake)
    target = min(r["max"], target)
    return target if target > stake else None


def _compare(compare: dict[str, Any], chances: dict[int, float]) -> Action:
    targets = compare["targets"]
    return {"type": "compare", "target": max(targets, key=lambda t: (chances.get(t, 0.0), -t))}


def _fold_or_all_in(legal: dict[str, Any], w: float) -> Action:
    if "all_in" in legal and w > 0.5:
        return {"type": "all_in"}
    if "fold" in legal:
        return {"type": "fold"}
    return {"type": legal["actions"][0]}

# --- ``random`` (each action type the seat may take now equally likely, an amount or a
# target then uniform within its legal range) and ``calling_station`` (a baseline for
# benchmarks: never folds, never raises) -------------------------------------------------


def random_play(view: dict[str, Any], legal: dict[str, Any], rng: random.Random) -> Action:
    """A uniformly random legal Zha Jin Hua action (looking included when still blind)."""
    choices = [a for a in legal.get("actions", ()) if a in legal]
    if not choices:
        raise ValueError(f"no legal Zha Jin Hua action in {legal!r}")
    kind = rng.choice(choices)
    if kind == "raise":
        r = legal["raise"]
        return {"type": "raise", "stake": rng.randint(r["min"], r["max"])}
    if kind == "compare":
        return {"type": "compare", "target": rng.choice(legal["compare"]["targets"])}
    return {"type": kind}


def calling_station(view: dict[str, Any], legal: dict[str, Any], rng: random.Random) -> Action:
    """Zha Jin Hua ``calling_station``: looks, then calls every round whatever it holds; never
    raises, folds or compares (short of chips: all-in when allowed, else fold)."""
    for kind in ("look", "call", "all_in", "fold"):
        if kind in legal:
            return {"type": kind}
    raise ValueError(f"no legal Zha Jin Hua action in {legal!r}")
