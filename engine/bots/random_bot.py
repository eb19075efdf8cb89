"""The ``random`` strategy of every game (uniform over the legal actions), and the
``calling_station`` baseline of Hold'em and Zha Jin Hua (never folds, never raises).

Each action *type* the seat may take now is equally likely; an amount (a Hold'em
raise, a Zha Jin Hua stake) is then uniform within its legal range, a Zha Jin Hua
compare target uniform among the targets, a Dou Dizhu play uniform among the legal
plays. Only ``view["legal"]``-style wire data is read, so the same code works on the
server and in a client.
"""

from __future__ import annotations

import random
from typing import Any

from .holdem import check_or_call

Action = dict[str, Any]


def holdem_random(view: dict[str, Any], legal: dict[str, Any], rng: random.Random) -> Action:
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


def zhajinhua_random(view: dict[str, Any], legal: dict[str, Any], rng: random.Random) -> Action:
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


def doudizhu_random(view: dict[str, Any], legal: dict[str, Any], rng: random.Random) -> Action:
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


def holdem_calling_station(view: dict[str, Any], legal: dict[str, Any], rng: random.Random) -> Action:
    """Hold'em ``calling_station``: checks when it can, else calls (all-in when short); never
    raises, never folds to a bet it can match."""
    return check_or_call(legal)


def zhajinhua_calling_station(view: dict[str, Any], legal: dict[str, Any], rng: random.Random) -> Action:
    """Zha Jin Hua ``calling_station``: looks, then calls every round whatever it holds; never
    raises, folds or compares (short of chips: all-in when allowed, else fold)."""
    for kind in ("look", "call", "all_in", "fold"):
        if kind in legal:
            return {"type": kind}
    raise ValueError(f"no legal Zha Jin Hua action in {legal!r}")
