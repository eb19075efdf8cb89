"""What a league shows the world: what it publishes to Redis, and the protocol's league
messages.

After every match, a league's runner (``cardroom league run``, or the servers for a
league made over the protocol) *publishes* it (:func:`published`): the ``leagues`` list
entry and the whole ``league`` message, computed once there (standings, ratings, the
chart's series, at most :data:`MAX_POINTS` points an entrant), so that answering
``list_leagues`` and ``league`` is a read, however many matches and viewers a league
has. The match records themselves go to a list of their own (read by ``league_export``).
All functions here are pure.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from engine import bots

from . import stats
from .files import League

Match = dict[str, Any]


def report(league: League, matches: list[Match], now_ms: int) -> dict[str, Any]:
    """The league as published: public settings, entrant names and strategies, matches."""
    settings = asdict(league)
    settings["entrants"] = [{"name": e.name, "strategy": e.strategy, "program": e.command is not None,
                             "bot": e.bot, "client": e.client} for e in league.entrants]
    return {"league": settings, "matches": matches, "updated_ms": now_ms}


def summary(rep: dict[str, Any]) -> dict[str, Any]:
    """One league in the ``leagues`` list."""
    league = rep["league"]
    matches = rep["matches"]
    return {
        "name": league["name"], "game": league["game"], "seats": league["seats"], "hands": league["hands"],
        "entrants": [e["name"] for e in league["entrants"]], "matches": len(matches),
        "done": sum(m.get("status") == "done" for m in matches), "updated_ms": rep.get("updated_ms"),
        "owner": league.get("owner"), "running": rep.get("run") is not None,
    }


def row_json(row: stats.Row) -> dict[str, Any]:
    """A standings row as plain data (an interval of fewer than two samples: width null)."""
    data = asdict(row)
    width = row.result.half_width
    data["result"] = {"mean": row.result.mean, "half_width": width if width != float("inf") else None,
                      "n": row.result.n, "unit": row.unit}
    return data


MAX_POINTS = 1_000  # points of an entrant's line in the league chart, at most


def series(matches: list[Match]) -> dict[str, list[float]]:
    """Each entrant's cumulative result in the game's unit (bb/100 counts as bb) after
    each deal it played, finished matches in order: the points of the league chart."""
    out: dict[str, list[float]] = {}
    for match in matches:
        if match.get("status") != "done":
            continue
        for name, samples in stats.deal_samples(match).items():
            line = out.setdefault(name, [])
            total = line[-1] if line else 0.0
            for x in samples:
                total += x
                line.append(round(total, 4))
    return out


def thinned(lines: dict[str, list[float]], most: int = MAX_POINTS) -> tuple[dict[str, list[float]], int]:
    """The chart's lines with at most ``most`` points each: every ``step``-th point (the
    result after deal ``step``, ``2 step``, ...) and always the last; and ``step``."""
    longest = max((len(v) for v in lines.values()), default=0)
    step = max(1, -(-longest // most))
    if step == 1:
        return lines, 1
    return {name: v[step - 1::step] + ([v[-1]] if len(v) % step else []) for name, v in lines.items()}, step


def _chart(lines: dict[str, list[float]]) -> dict[str, Any]:
    points, step = thinned(lines)
    return {"series": points, "series_step": step, "series_deals": {name: len(v) for name, v in lines.items()}}


def published(rep: dict[str, Any]) -> dict[str, Any]:
    """What a league publishes (its report made ready to answer with): the list entry and
    the ``league`` message."""
    return {"summary": summary(rep), "message": league_message(rep)}


def strategies(game: str) -> list[str]:
    """The built-in strategies a league of ``game`` takes (``league_enter`` with ``strategy``),
    in the engine's order (``smart`` first)."""
    return list(bots.strategies(game))


def as_published(stored: dict[str, Any]) -> dict[str, Any]:
    """What a league published, also from the whole report an earlier version kept."""
    return stored if "message" in stored else published(stored)


def league_message(rep: dict[str, Any]) -> dict[str, Any]:
    """The ``league`` message: settings, standings, chart series and the matches."""
    league = rep["league"]
    matches = rep["matches"]
    done = [m for m in matches if m.get("status") == "done"]
    unit = "place" if league.get("format") == "sng" else stats.unit_of(league["game"])[0]
    return {
        "t": "league", "name": league["name"], "game": league["game"], "unit": unit,
        "settings": {k: league.get(k) for k in ("seats", "hands", "stack", "unit", "action_seconds", "duplicate",
                                                "config", "format", "levels", "level_hands")},
        "entrants": league["entrants"],
        "strategies": strategies(league["game"]),  # the built-ins league_enter takes
        "owner": league.get("owner"),  # the player who made it over the protocol (None: the operator's)
        "run": rep.get("run"),  # while being run over the protocol: round, rounds, the round's matches
        "standings": [row_json(r) for r in stats.standings(done)] if done else [],
        **_chart(series(matches)),
        "series_unit": stats.stakes_of(league["game"]).series_unit,
        "matches": [{
            "match": m["match"], "round": m.get("round"), "status": m.get("status"), "entrants": m["entrants"],
            "rooms": m["rooms"], "deals": m.get("deals"), "commitment": m.get("commitment"), "seed": m.get("seed"),
            "same_decks": m.get("same_decks"), "started_ms": m.get("started_ms"),
            "results": {name: sum(h["results"].get(name, 0) for h in m.get("hands", ())) for name in m["entrants"]},
            "hands": len(m.get("hands", ())),
        } for m in matches],
        "updated_ms": rep.get("updated_ms"),
    }
