"""League statistics: deal samples, t intervals, openskill ratings, standings and their table."""

from __future__ import annotations

import math
import statistics

import pytest

from server.league.files import League
from server.league.stats import (
    Interval,
    Row,
    deal_samples,
    format_standings,
    hand_samples,
    interval,
    ratings,
    standings,
    unit_of,
)


def hand(room: str, deal: int, **results: int) -> dict:
    return {"room": room, "deal": deal, "results": results}


def match(
    hands: list[dict],
    entrants: list[str],
    *,
    game: str = "holdem",
    unit: int = 10,
    status: str = "done",
    name: str = "m-1",
) -> dict:
    rooms = sorted({h["room"] for h in hands})
    return {
        "match": name,
        "game": game,
        "unit": unit,
        "entrants": entrants,
        "duplicate": len(rooms) > 1,
        "rooms": [{"room": r, "seats": list(entrants)} for r in rooms],
        "hands": hands,
        "status": status,
    }


def duel(winner: str, loser: str, chips: int = 10, **kw) -> dict:
    """A one-room, one-hand match that ``winner`` wins by ``chips``."""
    return match([hand("r-1", 1, **{winner: chips, loser: -chips})], [winner, loser], **kw)


# -- samples ---------------------------------------------------------------------------


def test_duplicate_pair_averages_a_deal_over_its_rooms_in_units():
    m = match(
        [
            # deal 2 first: samples come out sorted by deal number, not record order
            hand("r-1", 2, alice=-10, bob=10),
            hand("r-2", 2, bob=-30, alice=30),
            hand("r-1", 1, alice=20, bob=-20),
            hand("r-2", 1, bob=-5, alice=5),
        ],
        ["alice", "bob"],
    )
    assert deal_samples(m) == {"alice": [1.25, 1.0], "bob": [-1.25, -1.0]}
    assert hand_samples(m) == {"alice": [-1.0, 3.0, 2.0, 0.5], "bob": [1.0, -3.0, -2.0, -0.5]}


def test_cut_short_deal_counts_over_the_rooms_that_played_it_and_absent_is_zero():
    m = match(
        [
            hand("r-1", 1, alice=6, bob=-3, carol=-3),
            hand("r-2", 1, alice=2, bob=-2),  # carol folded nothing in: 0
            hand("r-1", 2, alice=-4, bob=4),
            hand("r-2", 2, alice=-4, carol=4),
            hand("r-1", 3, alice=-1, bob=2, carol=-1),  # r-2 never played deal 3
        ],
        ["alice", "bob", "carol"],
        game="zhajinhua",
        unit=2,
    )
    assert deal_samples(m) == {
        "alice": [2.0, -2.0, -0.5],
        "bob": [-1.25, 1.0, 1.0],
        "carol": [-0.75, 1.0, -0.5],
    }
    assert hand_samples(m)["carol"] == [-1.5, 0.0, 0.0, 2.0, -0.5]


def test_results_for_a_non_entrant_are_rejected():
    m = match([hand("r-1", 1, alice=5, mallory=-5)], ["alice", "bob"])
    with pytest.raises(ValueError, match="mallory"):
        deal_samples(m)


def test_unit_must_be_positive():
    with pytest.raises(ValueError, match="unit"):
        hand_samples(match([hand("r-1", 1, alice=5, bob=-5)], ["alice", "bob"], unit=0))


# -- intervals -------------------------------------------------------------------------


def test_t_interval_of_one_to_five():
    iv = interval([1, 2, 3, 4, 5])
    assert iv.n == 5
    assert iv.mean == 3.0
    assert iv.half_width == pytest.approx(2.776445 * math.sqrt(2.5) / math.sqrt(5), rel=1e-12)
    assert iv.half_width == pytest.approx(1.963243, abs=1e-6)
    assert iv.low == pytest.approx(1.036757, abs=1e-6)
    assert iv.high == pytest.approx(4.963243, abs=1e-6)
    assert iv.excludes_zero


def test_t_interval_factor_scales_mean_and_half_width():
    iv = interval([1, 2, 3, 4, 5], factor=100.0)
    assert iv.mean == 300.0
    assert iv.half_width == pytest.approx(196.3243, abs=1e-4)


def test_t_interval_small_and_large_degrees_of_freedom():
    # df 1: t = 12.706205, s = sqrt(2), n = 2
    assert interval([-1.0, 1.0]) == Interval(0.0, pytest.approx(12.706205), 2)
    assert not interval([-1.0, 1.0]).excludes_zero
    # df 40 (beyond the table): t = 2.021075; 0..40 has sample variance 41 * 42 / 12
    iv = interval([float(x) for x in range(41)])
    assert iv.mean == 20.0
    assert iv.half_width == pytest.approx(2.021075 * math.sqrt(143.5 / 41), rel=1e-6)


def test_one_sample_is_an_infinite_interval_and_none_is_empty():
    iv = interval([0.7], factor=100.0)
    assert iv == Interval(70.0, math.inf, 1)
    assert iv.low == -math.inf and iv.high == math.inf
    assert not iv.excludes_zero
    assert interval([]) == Interval(0.0, math.inf, 0)


def test_duplicate_cancels_the_cards_luck():
    luck = [100, -80, 60, -120, 40, -20]  # what the deck gives seat 1 in each deal
    edge = [1, 3, 2, 4, 2, 0]  # what alice wins by playing better, whatever her seat
    hands = []
    for deal, (lk, e) in enumerate(zip(luck, edge, strict=True), start=1):
        hands.append(hand("r-1", deal, alice=lk + e, bob=-lk - e))  # alice in seat 1
        hands.append(hand("r-2", deal, bob=lk - e, alice=-lk + e))  # bob in seat 1
    m = match(hands, ["alice", "bob"], unit=2)

    dup = interval(deal_samples(m)["alice"])
    single = interval(hand_samples(m)["alice"])
    assert deal_samples(m)["alice"] == [0.5, 1.5, 1.0, 2.0, 1.0, 0.0]
    assert dup.mean == single.mean == 1.0
    assert (dup.n, single.n) == (6, 12)
    stdev = statistics.stdev([0.5, 1.5, 1.0, 2.0, 1.0, 0.0])
    assert dup.half_width == pytest.approx(2.570582 * stdev / math.sqrt(6), rel=1e-12)
    assert dup.half_width == pytest.approx(0.742063, abs=1e-6)
    assert single.half_width == pytest.approx(
        2.200985 * statistics.stdev(hand_samples(m)["alice"]) / math.sqrt(12), rel=1e-12
    )
    assert single.half_width == pytest.approx(25.847912, abs=1e-6)
    assert dup.excludes_zero and not single.excludes_zero


# -- ratings ---------------------------------------------------------------------------


def test_one_win_moves_both_ratings_by_the_plackett_luce_update():
    table = ratings([duel("alice", "bob")])
    assert table["alice"].mu == pytest.approx(27.635389493140497, rel=1e-12)
    assert table["bob"].mu == pytest.approx(22.364610506859503, rel=1e-12)
    assert table["alice"].sigma == table["bob"].sigma == pytest.approx(8.06590141354368)


def test_consistent_winner_has_the_highest_ordinal_and_ratings_are_deterministic():
    matches = []
    for i in range(5):
        chips = {"alice": 30, "bob": -10 if i % 2 else -20, "carol": -20 if i % 2 else -10}
        matches.append(match([hand("r-1", 1, **chips)], ["carol", "bob", "alice"], name=f"m-{i}"))
    table = ratings(matches)
    assert set(table) == {"alice", "bob", "carol"}
    best = max(table, key=lambda name: table[name].ordinal())
    assert best == "alice"
    assert table["alice"].ordinal() > table["bob"].ordinal() + 5
    again = ratings(matches)
    assert [(r.mu, r.sigma) for r in again.values()] == [(r.mu, r.sigma) for r in table.values()]


def test_equal_chips_are_a_tie():
    table = ratings([duel("alice", "bob", chips=0)])
    assert table["alice"].mu == table["bob"].mu == 25.0
    assert table["alice"].sigma == table["bob"].sigma < 25.0 / 3

    three = match(
        [hand("r-1", 1, alice=5, bob=-10), hand("r-1", 2, bob=15, carol=-10)],
        ["alice", "bob", "carol"],
    )
    table = ratings([three])  # alice +5, bob +5, carol -10
    assert (table["alice"].mu, table["alice"].sigma) == (table["bob"].mu, table["bob"].sigma)
    assert table["alice"].mu > 25.0 > table["carol"].mu


def test_matches_that_are_not_done_are_skipped():
    done = [duel("alice", "bob", name="m-1")]
    skipped = [
        duel("bob", "alice", chips=100, status="aborted", name="m-2"),
        duel("dave", "bob", status="running", name="m-3"),
    ]
    plain = ratings(done)
    mixed = ratings(skipped[:1] + done + skipped[1:])
    assert set(mixed) == {"alice", "bob"}
    assert mixed["alice"].mu == plain["alice"].mu == pytest.approx(27.635389493140497)
    assert mixed["bob"].sigma == plain["bob"].sigma


# -- standings -------------------------------------------------------------------------


def two_duplicate_matches() -> list[dict]:
    first = match(
        [
            hand("r-1", 1, alice=20, bob=-20),
            hand("r-2", 1, bob=-5, alice=5),
            hand("r-1", 2, alice=-10, bob=10),
            hand("r-2", 2, bob=-30, alice=30),
        ],
        ["alice", "bob"],
        name="m-1",
    )
    second = match(
        [hand("r-1", 1, alice=40, bob=-40), hand("r-2", 1, bob=10, alice=-10)],
        ["bob", "alice"],
        name="m-2",
    )
    return [first, second]


def test_standings_rows():
    aborted = duel("bob", "alice", chips=500, status="aborted", name="m-3")
    rows = standings([*two_duplicate_matches(), aborted])
    table = ratings(two_duplicate_matches())
    assert [row.entrant for row in rows] == ["alice", "bob"]
    alice, bob = rows
    assert alice == Row(
        entrant="alice",
        game="holdem",
        matches=2,
        hands=3,
        chips=75,
        result=interval([1.25, 1.0, 1.5], 100.0),
        unit="bb/100",
        mu=table["alice"].mu,
        sigma=table["alice"].sigma,
        ordinal=table["alice"].ordinal(),
    )
    assert alice.result.mean == pytest.approx(125.0)
    assert alice.result.half_width == pytest.approx(4.302653 * 25.0 / math.sqrt(3), rel=1e-9)
    assert (bob.matches, bob.hands, bob.chips) == (2, 3, -75)
    assert bob.result.mean == pytest.approx(-125.0)
    assert alice.ordinal > bob.ordinal
    assert unit_of("holdem") == ("bb/100", 100.0)


def test_standings_break_ordinal_ties_by_name_and_empty_is_empty():
    rows = standings([duel("zed", "amy", chips=0, game="doudizhu", unit=1)])
    assert [row.entrant for row in rows] == ["amy", "zed"]
    assert rows[0].ordinal == rows[1].ordinal
    assert rows[0].unit == "points/game"
    assert standings([]) == []


def test_standings_refuse_mixed_games():
    with pytest.raises(ValueError, match="doudizhu, holdem"):
        standings([duel("alice", "bob"), duel("alice", "bob", game="doudizhu", unit=1)])


def test_format_standings():
    rows = standings([*two_duplicate_matches(), duel("carol", "bob", chips=30, name="m-4")])
    text = format_standings(rows)
    lines = text.splitlines()
    assert len(lines) == 4
    assert lines[0].split() == ["#", "entrant", "rating", "matches", "hands", "chips", "result"]
    for name in ("alice", "bob", "carol"):
        assert name in text
    assert "bb/100" in text
    by_name = {line.split()[1]: line for line in lines[1:]}
    alice = next(row for row in rows if row.entrant == "alice")
    assert f"{alice.ordinal:.1f} ({alice.mu:.1f} ± {alice.sigma:.1f})" in by_name["alice"]
    assert by_name["alice"].endswith("+125.0 ± 62.1 bb/100")
    assert by_name["carol"].endswith("n/a")  # one deal: no interval
    assert text == (
        "#  entrant             rating  matches  hands  chips  result\n"
        "1  alice     6.2 (29.7 ± 7.8)        2      3    +75  +125.0 ± 62.1 bb/100\n"
        "2  carol     3.1 (27.2 ± 8.1)        1      1    +30  n/a\n"
        "3  bob      -4.4 (18.4 ± 7.6)        3      4   -105  -168.8 ± 143.0 bb/100"
    )


def test_a_long_league_chart_is_thinned_to_every_step_th_deal_and_the_last():
    from server.league.report import MAX_POINTS, thinned

    lines = {"a": [float(i) for i in range(1, 2_501)], "b": [float(-i) for i in range(1, 1_201)]}
    points, step = thinned(lines)
    assert step == 3 and all(len(v) <= MAX_POINTS + 1 for v in points.values())
    assert points["a"][:2] == [3.0, 6.0] and points["a"][-1] == 2_500.0  # deals 3, 6, ... and the last
    assert points["b"] == [float(-i) for i in range(3, 1_201, 3)]  # 1,200 deals: the last is a 3rd already
    short = {"a": [1.0, 2.0]}
    assert thinned(short) == (short, 1)  # a league of fewer deals is sent whole


def test_a_report_kept_by_an_earlier_version_is_still_answered():
    from server.league.report import as_published, published, report

    old = report(League(name="old", game="holdem", seats=2, hands=1, stack=200, unit=1, action_seconds=1.0), [], 5)
    assert as_published(old) == published(old) and as_published(published(old)) == published(old)
    assert as_published(old)["message"]["t"] == "league" and as_published(old)["summary"]["name"] == "old"
