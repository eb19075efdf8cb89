"""League statistics: per-deal samples, t confidence intervals, ratings and a standings table.

Pure functions over match records (plain dicts as read from JSON lines, see below); no I/O.

A match record::

    {"match": "m-1a2b", "game": "holdem", "unit": 10,
     "entrants": ["alice", "bob"], "duplicate": true,
     "rooms": [{"room": "r-1", "seats": ["alice", "bob"]},
               {"room": "r-2", "seats": ["bob", "alice"]}],
     "hands": [{"room": "r-1", "deal": 1, "results": {"alice": 20, "bob": -20}},
               {"room": "r-2", "deal": 1, "results": {"bob": -5, "alice": 5}}],
     "status": "done"}

``unit`` is the chips per result unit (the big blind, the ante, the base stake);
``results`` holds the chips each entrant won (+) or lost (-) in that hand, an entrant
absent from it took no part (0). Deal ``k`` is the k-th deck of the match: in a duplicate
match every room plays deal ``k`` with the same deck and the entrants in other seats, so
averaging a deal over its rooms cancels most of the cards' luck (:func:`deal_samples`).

The result of an entrant is the mean of its samples in units, with a 95% Student's t
interval (:func:`interval`); its rating is an openskill Plackett-Luce rating from the
match rankings by chips (:func:`ratings`); :func:`standings` puts both in one row per
entrant and :func:`format_standings` prints them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from engine.game import Stakes

Match = Mapping[str, Any]



def stakes_of(game: str) -> Stakes:
    """``game``'s :class:`engine.game.Stakes` (what a league counts in); ``ValueError`` for a
    game not installed or without stakes (a league of it cannot be made)."""
    from ..games import GAMES  # (deferred: the rest of this module is plain arithmetic)

    stakes = GAMES[game].stakes if game in GAMES else None
    if stakes is None:
        known = ", ".join(name for name, g in GAMES.items() if g.stakes is not None)
        raise ValueError(f"unknown game {game!r}; known: {known}")
    return stakes


def unit_of(game: str) -> tuple[str, float]:
    """The result's unit label and the factor applied to the per-hand mean in units, of
    ``game`` (``("bb/100", 100.0)`` for Hold'em; see :func:`stakes_of`)."""
    stakes = stakes_of(game)
    return stakes.unit, stakes.per

#: Student's t two-sided 95% quantile (0.975) for 1..30 degrees of freedom
_T975 = (
    12.706205, 4.302653, 3.182446, 2.776445, 2.570582, 2.446912, 2.364624, 2.306004,
    2.262157, 2.228139, 2.200985, 2.178813, 2.160369, 2.144787, 2.131450, 2.119905,
    2.109816, 2.100922, 2.093024, 2.085963, 2.079614, 2.073873, 2.068658, 2.063899,
    2.059539, 2.055529, 2.051831, 2.048407, 2.045230, 2.042272,
)  # fmt: skip
#: the standard normal 0.975 quantile
_Z975 = 1.959963984540054


class Rating(Protocol):
    """What this module reads of an openskill rating."""

    mu: float
    sigma: float

    def ordinal(self) -> float: ...


class RatingModel(Protocol):
    """What this module calls of an openskill model (e.g. ``PlackettLuce()``)."""

    def rating(
        self, mu: float | None = None, sigma: float | None = None, name: str | None = None
    ) -> Rating: ...

    def rate(
        self, teams: list[list[Rating]], ranks: list[float] | None = None
    ) -> list[list[Rating]]: ...


@dataclass(frozen=True)
class Interval:
    """A mean with its 95% confidence half-width, over ``n`` samples.

    ``half_width`` is ``math.inf`` when there are fewer than two samples (no spread to
    estimate); ``mean`` is 0.0 when there are none.
    """

    mean: float
    half_width: float
    n: int

    @property
    def low(self) -> float:
        """The interval's lower end (``-inf`` when the half-width is infinite)."""
        return self.mean - self.half_width

    @property
    def high(self) -> float:
        """The interval's upper end (``+inf`` when the half-width is infinite)."""
        return self.mean + self.half_width

    @property
    def excludes_zero(self) -> bool:
        """True when the whole interval lies strictly above or strictly below 0."""
        return self.low > 0.0 or self.high < 0.0


@dataclass(frozen=True)
class Row:
    """One entrant's line in the standings.

    ``matches`` counts its finished matches, ``hands`` its samples (deals, summed over
    those matches), ``chips`` the chips it won over them, ``result`` the interval over
    all those samples scaled by the game's factor (:func:`unit_of`) and labelled ``unit``;
    ``mu``, ``sigma`` and ``ordinal`` come from its rating.
    """

    entrant: str
    game: str
    matches: int
    hands: int
    chips: int | float
    result: Interval
    unit: str
    mu: float
    sigma: float
    ordinal: float


def _t975(df: int) -> float:
    """Student's t 0.975 quantile for ``df`` >= 1 degrees of freedom.

    From the table for df 1..30; beyond, the Cornish-Fisher expansion in 1/df around
    the normal quantile (four terms; within 1e-6 of the exact value for df > 30).
    """
    if df <= len(_T975):
        return _T975[df - 1]
    z = _Z975
    g1 = (z**3 + z) / 4
    g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
    g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
    g4 = (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160
    return z + g1 / df + g2 / df**2 + g3 / df**3 + g4 / df**4


def _entrants(match: Match) -> list[str]:
    """The match's entrants, checking that every name in its results is one of them."""
    entrants = list(match["entrants"])
    known = set(entrants)
    for hand in match["hands"]:
        unknown = set(hand["results"]) - known
        if unknown:
            raise ValueError(
                f"match {match.get('match')!r}: results for non-entrants {sorted(unknown)}"
            )
    return entrants


def _unit(match: Match) -> float:
    """The match's chips per result unit (must be positive)."""
    unit = float(match["unit"])
    if not unit > 0:
        raise ValueError(f"match {match.get('match')!r}: unit must be positive, got {unit}")
    return unit


def deal_samples(match: Match) -> dict[str, list[float]]:
    """Per entrant, one sample per deal of ``match``, sorted by deal number.

    A deal's sample is the entrant's results in that deal summed over the rooms that
    played it, divided by the number of those rooms and by ``unit``: a duplicate pair
    where alice wins 20 and 5 with unit 10 gives (20 + 5) / 2 / 10 = 1.25. A deal that
    only some rooms played (a match cut short) is averaged over the rooms that did.
    """
    entrants = _entrants(match)
    unit = _unit(match)
    sums: dict[int, dict[str, float]] = {}
    rooms: dict[int, set[str]] = {}
    for hand in match["hands"]:
        deal = int(hand["deal"])
        rooms.setdefault(deal, set()).add(hand["room"])
        totals = sums.setdefault(deal, dict.fromkeys(entrants, 0.0))
        for name, chips in hand["results"].items():
            totals[name] += chips
    deals = sorted(sums)
    return {name: [sums[d][name] / len(rooms[d]) / unit for d in deals] for name in entrants}


def hand_samples(match: Match) -> dict[str, list[float]]:
    """Per entrant, one sample per hand of ``match`` (each room's separately), in units.

    This is what the same number of non-duplicate hands would give: the baseline a bench
    compares :func:`deal_samples` intervals against. Hands are in record order.
    """
    entrants = _entrants(match)
    unit = _unit(match)
    return {
        name: [hand["results"].get(name, 0) / unit for hand in match["hands"]] for name in entrants
    }


def interval(samples: Sequence[float], factor: float = 1.0) -> Interval:
    """The mean of ``samples`` and its 95% confidence half-width, both times ``factor``.

    The half-width is ``t * s / sqrt(n)``, ``s`` the sample standard deviation (n - 1
    denominator) and ``t`` Student's two-sided 0.975 quantile with n - 1 degrees of
    freedom: tabulated for df 1..30 (6 decimals), a Cornish-Fisher expansion beyond
    (within 1e-6). Fewer than two samples give an infinite half-width; none, mean 0.0.
    """
    n = len(samples)
    if n == 0:
        return Interval(0.0, math.inf, 0)
    mean = math.fsum(samples) / n
    if n < 2:
        return Interval(mean * factor, math.inf, n)
    variance = math.fsum((x - mean) ** 2 for x in samples) / (n - 1)
    half = _t975(n - 1) * math.sqrt(variance / n)
    return Interval(mean * factor, half * abs(factor), n)


def _chips(match: Match) -> dict[str, int | float]:
    """Per entrant, its chips won over all hands of ``match``."""
    totals: dict[str, int | float] = dict.fromkeys(_entrants(match), 0)
    for hand in match["hands"]:
        for name, chips in hand["results"].items():
            totals[name] += chips
    return totals


def place_samples(match: Match) -> dict[str, list[float]]:
    """A sit-and-go match's finishing places per entrant, one per room (1 = winner)."""
    out: dict[str, list[float]] = {name: [] for name in _entrants(match)}
    for room in match["rooms"]:
        for name, place in (room.get("places") or {}).items():
            out[name].append(float(place))
    return out


def _sng(match: Match) -> bool:
    return match.get("format") == "sng"


def _score(match: Match) -> dict[str, float]:
    """What ranks the entrants of ``match`` (higher is better): chips won, or in a
    sit-and-go the mean finishing place, negated."""
    if not _sng(match):
        return dict(_chips(match))
    return {name: -sum(p) / len(p) if p else -math.inf for name, p in place_samples(match).items()}


def _done(matches: Iterable[Match]) -> list[Match]:
    return [m for m in matches if m.get("status") == "done"]


def ratings(matches: Iterable[Match], model: RatingModel | None = None) -> dict[str, Rating]:
    """Openskill ratings of every entrant of the finished matches, applied in order.

    ``model`` defaults to ``openskill.models.PlackettLuce()``; every entrant starts at
    ``model.rating(name=entrant)``. Each match with status ``"done"`` and at least two
    entrants is one ``model.rate`` call, one single-player team per entrant, ranked by
    chips won in the match, or a sit-and-go's mean finishing place over its rooms (rank
    1 + the number of entrants who did better, so equal
    chips are a tie); other matches are skipped. Deterministic for a given input.
    Returns the model's rating objects (``mu``, ``sigma``, ``ordinal()``) by name.
    """
    if model is None:
        from openskill.models import PlackettLuce

        model = PlackettLuce()
    table: dict[str, Rating] = {}
    for match in _done(matches):
        score = _score(match)
        entrants = list(score)
        for name in entrants:
            if name not in table:
                table[name] = model.rating(name=name)
        if len(entrants) < 2:
            continue
        ranks = [1 + sum(c > score[name] for c in score.values()) for name in entrants]
        teams = model.rate([[table[name]] for name in entrants], ranks=ranks)
        for name, team in zip(entrants, teams, strict=True):
            table[name] = team[0]
    return table


def standings(matches: Iterable[Match]) -> list[Row]:
    """One :class:`Row` per entrant of the finished matches, best first.

    All matches must be of one game with a unit (:func:`unit_of`; ``ValueError`` naming the games
    found otherwise). Only matches with status ``"done"`` count, for the rating and the
    result alike, so an entrant of unfinished matches only has no row. ``result`` is the
    :func:`interval` over all the entrant's :func:`deal_samples` (a sit-and-go league's:
    its :func:`place_samples`, in unit ``place``). Rows are sorted by
    rating ordinal, highest first, then by entrant name.
    """
    matches = list(matches)
    games = sorted({m["game"] for m in matches})
    if len(games) > 1:
        raise ValueError(f"standings need matches of one game, found {', '.join(games)}")
    if not games:
        return []
    game = games[0]
    unit = unit_of(game)
    done = _done(matches)
    sng = any(_sng(m) for m in done)
    label, factor = ("place", 1.0) if sng else unit
    count: dict[str, int] = {}
    chips: dict[str, int | float] = {}
    samples: dict[str, list[float]] = {}
    for match in done:
        for name, won in _chips(match).items():
            count[name] = count.get(name, 0) + 1
            chips[name] = chips.get(name, 0) + won
        for name, values in (place_samples(match) if sng else deal_samples(match)).items():
            samples.setdefault(name, []).extend(values)
    rated = ratings(done)
    rows = [
        Row(
            entrant=name,
            game=game,
            matches=count[name],
            hands=len(samples[name]),
            chips=chips[name],
            result=interval(samples[name], factor),
            unit=label,
            mu=rated[name].mu,
            sigma=rated[name].sigma,
            ordinal=rated[name].ordinal(),
        )
        for name in count
    ]
    rows.sort(key=lambda row: (-row.ordinal, row.entrant))
    return rows


def _signed(value: float) -> str:
    """``value`` with a sign and one decimal, never ``-0.0``."""
    return "+0.0" if round(value, 1) == 0 else f"{value:+.1f}"


def _result(row: Row) -> str:
    if math.isinf(row.result.half_width):
        return "n/a"
    return f"{_signed(row.result.mean)} ± {row.result.half_width:.1f} {row.unit}"


def format_standings(rows: Sequence[Row]) -> str:
    """The standings as a fixed-width text table, a header line then one line per row.

    Columns: rank, entrant, rating (ordinal with one decimal, then ``(mu ± sigma)``),
    matches, hands, chips (signed), result (``+12.3 ± 4.5 bb/100``, ``n/a`` when the
    interval is infinite). Text columns are left-aligned, numbers right-aligned.
    """
    header = ("#", "entrant", "rating", "matches", "hands", "chips", "result")
    right = (True, False, True, True, True, True, False)
    lines = [header] + [
        (
            str(rank),
            row.entrant,
            f"{row.ordinal:.1f} ({row.mu:.1f} ± {row.sigma:.1f})",
            str(row.matches),
            str(row.hands),
            f"{row.chips:+}" if row.chips else "0",
            _result(row),
        )
        for rank, row in enumerate(rows, start=1)
    ]
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    return "\n".join(
        "  ".join(
            cell.rjust(width) if r else cell.ljust(width)
            for cell, width, r in zip(line, widths, right, strict=True)
        ).rstrip()
        for line in lines
    )
