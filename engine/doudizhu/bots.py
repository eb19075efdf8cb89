"""Dou Dizhu's bot strategies. The ``smart`` one: bid from hand strength, shed cards in few moves.

Hand structure: :func:`hand_cost` splits a hand (rank counts) into playable groups
(rocket, bombs, airplanes, pair chains, solo chains, trios, pairs, solos) with the
fewest *moves*, a trio or airplane trio carrying a solo or pair as a kicker. Fewer
moves means a hand that goes out sooner.

* **Bidding**: :func:`bid_strength` adds up the big cards (jokers, 2s, bombs) and
  rewards hands that go out in few moves; the bid (or call/rob) follows thresholds.
* **Leading**: the play leaving the cheapest remaining hand, lowest ranks first,
  bombs and the rocket kept back, big solos (2s, jokers) saved for control; solos
  avoided when an opponent holds a single card (pairs when one holds two).
* **Open hand (明牌) and doubling (加倍)**, when the room offers them: shown or doubled
  only on a hand whose :func:`bid_strength` clears a threshold (a landlord's 20 cards
  need more than a peasant's 17; showing before the bottom cards needs a stronger hand
  than after, and showing needs more than doubling, as it tells the peasants everything).
* **Following an opponent**: the cheapest beating play when it does not break the
  hand's structure; bombs and the rocket only when an opponent is close to going
  out or they let this seat finish; otherwise pass.
* **Following the partner peasant**: pass, unless the play goes out.
* **Playing out**: a play that empties the hand is always taken; with two groups left
  the one nobody can beat (rocket, bomb) goes first.

Also the ``random`` strategy (:func:`random_play`: a uniformly random legal bid, open-hand
or doubling choice, or play, passing counting as one choice).
"""

from __future__ import annotations

import random
from functools import lru_cache
from typing import Any

from .options import rules_of
from .plays import BOMB, ROCKET, SOLO, classify
from .ranks import parse_ranks

Action = dict[str, Any]
Counts = tuple[int, ...]

TWO, BLACK, RED = 12, 13, 14
ACE = 11


# ------------------------------------------------------------------ hand structure


@lru_cache(maxsize=1 << 18)
def _split(counts: Counts) -> tuple[float, int, int, int]:
    """Best split of ``counts``: (cost, groups, trio units, small groups).

    ``cost`` = groups - min(trio units, small groups): each trio can carry a solo or pair.
    """
    r = next((i for i, n in enumerate(counts) if n), -1)
    if r < 0:
        return (0.0, 0, 0, 0)
    best: tuple[float, int, int, int] | None = None

    def consider(rest: list[int], groups: int, trios: int, smalls: int) -> None:
        nonlocal best
        sub = _split(tuple(rest))
        g, t, s = sub[1] + groups, sub[2] + trios, sub[3] + smalls
        cand = (g - min(t, s), g, t, s)
        if best is None or cand < best:
            best = cand

    n = counts[r]
    rest = list(counts)
    if r == BLACK and counts[RED]:
        rest[BLACK] = rest[RED] = 0
        consider(rest, 1, 0, 0)  # the rocket
        rest = list(counts)
    rest[r] = 0
    consider(rest, 1, 1 if n == 3 else 0, 1 if n <= 2 else 0)
    if r <= ACE:
        for unit, shortest, trios in ((1, 5, 0), (2, 3, 0), (3, 2, 1)):
            length = 0
            while r + length <= ACE and counts[r + length] >= unit:
                length += 1
            for L in range(shortest, length + 1):
                rest = list(counts)
                for i in range(r, r + L):
                    rest[i] -= unit
                consider(rest, 1, L * trios, 0)
    assert best is not None
    return best


def hand_cost(counts: Counts) -> float:
    """Moves needed to play out ``counts`` alone (0 for an empty hand)."""
    return _split(tuple(counts))[0]


def bid_strength(counts: Counts) -> float:
    """How good a 17-card hand is for the landlord: big cards plus few moves."""
    score = 0.0
    if counts[BLACK] and counts[RED]:
        score += 8
    else:
        score += 4 * counts[RED] + 3 * counts[BLACK]
    score += 2 * counts[TWO] + 0.5 * counts[ACE]
    score += 5 * sum(1 for r in range(TWO + 1) if counts[r] == 4)
    score += 1.5 * (9 - hand_cost(counts))
    return score


# Bid thresholds on bid_strength (score style: bid up to this value; rob style: call/rob).
BID_3, BID_2, BID_1 = 13.5, 11.5, 8.5
CALL_AT, ROB_AT = 8.5, 13.0
# Open hand (17 cards before the bottom, 20 after) and doubling (peasant, landlord) thresholds.
OPEN_BEFORE_AT, OPEN_AFTER_AT = 17.0, 20.0
DOUBLE_PEASANT_AT, DOUBLE_LANDLORD_AT = 13.0, 17.0


# ------------------------------------------------------------------ the strategy


def decide(view: dict[str, Any], legal: dict[str, Any], rng: random.Random) -> Action:
    """Choose a legal bid or play for the seat ``view["you"]`` (``legal``: the wire form)."""
    hand = _counts_of(view.get("hand_ranks") or "")
    phase = legal.get("phase")
    if phase == "bidding":
        return _bid(hand, legal, rng)
    if phase == "open":
        return _open(hand, legal, rng)
    if phase == "doubling":
        return _double(hand, view.get("landlord") == view.get("you"), rng)
    return _play(view, hand, legal, rng)


def _open(hand: Counts, legal: dict[str, Any], rng: random.Random) -> Action:
    """Show the hand (明牌) only when it is strong enough to win in the open."""
    at = OPEN_BEFORE_AT if legal.get("before_bottom") else OPEN_AFTER_AT
    return {"type": "open"} if bid_strength(hand) + rng.uniform(-1.0, 1.0) >= at else {"type": "pass"}


def _double(hand: Counts, landlord: bool, rng: random.Random) -> Action:
    """Double (加倍) with a strong hand: a higher bar for the landlord's 20 cards."""
    at = DOUBLE_LANDLORD_AT if landlord else DOUBLE_PEASANT_AT
    return {"type": "double"} if bid_strength(hand) + rng.uniform(-1.0, 1.0) >= at else {"type": "pass"}


def _counts_of(ranks: str) -> Counts:
    return parse_ranks(ranks) if ranks else (0,) * 15


def _bid(hand: Counts, legal: dict[str, Any], rng: random.Random) -> Action:
    strength = bid_strength(hand) + rng.uniform(-1.0, 1.0)
    if legal.get("style") == "rob":
        if legal.get("can_call") and strength >= CALL_AT:
            return {"type": "call"}
        if legal.get("can_rob") and strength >= ROB_AT:
            return {"type": "rob"}
        return {"type": "pass"}
    want = 3 if strength >= BID_3 else 2 if strength >= BID_2 else 1 if strength >= BID_1 else 0
    allowed = [b for b in legal.get("bids", ()) if b <= want]
    if allowed:
        return {"type": "bid", "value": max(allowed)}
    return {"type": "pass"}


def _play(view: dict[str, Any], hand: Counts, legal: dict[str, Any], rng: random.Random) -> Action:
    rules = rules_of(view["options"])
    plays = []
    for p in legal.get("plays", ()):
        counts = parse_ranks(p["ranks"])
        play = classify(counts, rules)
        if play is not None:
            plays.append((p["ranks"], play))
    if not plays:
        return {"type": "pass"}
    me = view["you"]
    landlord = view.get("landlord")
    seats = [s for s in view["seats"] if s is not None]
    left = {s["seat"]: s["cards_left"] for s in seats}
    opponents = [s for s in left if s != me and (me == landlord or s == landlord)]
    danger = min((left[s] for s in opponents), default=20)
    for ranks, play in plays:
        if play.counts == hand:
            return {"type": "play", "cards": ranks}
    now = hand_cost(hand)
    to_beat = legal.get("to_beat")
    if to_beat is None:
        partner = next((s for s in left if s not in opponents and s != me), None)
        if partner is not None and left[partner] <= 2 and danger > 2:
            feed = _feed_partner(plays, left[partner])
            if feed is not None:
                return {"type": "play", "cards": feed}
        return {"type": "play", "cards": _lead(hand, plays, danger)}
    if to_beat["seat"] not in opponents:  # the partner peasant leads this trick
        return {"type": "pass"} if legal.get("can_pass") else {"type": "play", "cards": plays[0][0]}
    threatened = left.get(to_beat["seat"], 20) <= 4 or danger <= 2
    best_cost, best = None, None
    for ranks, play in plays:
        after = _minus(hand, play.counts)
        cost = hand_cost(after) - now
        if play.kind in (BOMB, ROCKET):
            cost += 0.5 if threatened or hand_cost(after) <= 1 else 3.0
        elif play.rank >= TWO and sum(hand) > 8 and not threatened:
            cost += 0.8
        cost += play.rank * 0.01 + rng.uniform(0, 0.005)
        if best_cost is None or cost < best_cost:
            best_cost, best = cost, ranks
    limit = 4.0 if threatened else 0.6
    if best is not None and (best_cost <= limit or not legal.get("can_pass")):
        return {"type": "play", "cards": best}
    return {"type": "pass"}


def _feed_partner(plays: list, partner_left: int) -> str | None:
    """The lowest solo (partner holds one card) or pair (two cards): easy for it to beat."""
    kind = SOLO if partner_left == 1 else "pair"
    small = [(play.rank, ranks) for ranks, play in plays if play.kind == kind]
    return min(small)[1] if small else None


def _lead(hand: Counts, plays: list, danger: int) -> str:
    """The rank string to lead with."""
    scored = []
    for ranks, play in plays:
        after = _minus(hand, play.counts)
        rest = hand_cost(after)
        cost = rest
        if play.kind in (BOMB, ROCKET):
            cost += 0 if rest <= 1 else 2.5
            if rest <= 1:
                cost -= 0.5  # unbeatable first, then play out
        elif play.rank >= TWO and rest > 1:
            cost += 0.6
        if danger == 1 and play.kind == SOLO:
            cost += 3.0 if play.rank < _top_rank(hand) else 0
        if danger == 2 and play.kind == "pair":
            cost += 2.0
        kickers = sum(i * n for i, n in enumerate(play.kicker_counts))
        cost += play.rank * 0.02 + kickers * 0.004 - play.size * 0.003
        scored.append((cost, ranks))
    return min(scored)[1]


def _top_rank(hand: Counts) -> int:
    return max(i for i, n in enumerate(hand) if n)


def _minus(hand: Counts, play: Counts) -> Counts:
    return tuple(a - b for a, b in zip(hand, play, strict=True))

# --- ``random`` (each action type the seat may take now equally likely, an amount or a
# target then uniform within its legal range) and ``calling_station`` (a baseline for
# benchmarks: never folds, never raises) -------------------------------------------------


def random_play(view: dict[str, Any], legal: dict[str, Any], rng: random.Random) -> Action:
    """A uniformly random legal Dou Dizhu bid, open-hand or doubling choice, or play
    (passing counts as one choice)."""
    if legal.get("phase") == "open":
        return rng.choice([{"type": "pass"}, {"type": "open"}])
    if legal.get("phase") == "doubling":
        return rng.choice([{"type": "pass"}, {"type": "double"}])
    if legal.get("phase") == "bidding":
        options: list[Action] = [{"type": "pass"}] if legal.get("can_pass", True) else []
        if legal.get("style") == "rob":
            if legal.get("can_call"):
                options.append({"type": "call"})
            if legal.get("can_rob"):
                options.append({"type": "rob"})
        else:
            options += [{"type": "bid", "value": v} for v in legal.get("bids", ())]
        return rng.choice(options)
    options = [{"type": "play", "cards": p["ranks"]} for p in legal.get("plays", ())]
    if legal.get("can_pass"):
        options.append({"type": "pass"})
    if not options:
        raise ValueError(f"no legal Dou Dizhu action in {legal!r}")
    return rng.choice(options)
