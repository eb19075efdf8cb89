"""Each smart strategy beats random over a fixed, seeded sample (deterministic: the
same decks and decisions every run, with wide margins over the thresholds)."""

from __future__ import annotations

from engine.bots.arena import simulate


def test_smart_holdem_wins_big_blinds_from_random_heads_up():
    stats = simulate("holdem", ["smart", "random"], 1500, seed=11)
    bb, half = stats.bb_per_100(0)
    assert bb - half > 50  # the whole 95% interval is well above break-even


def test_smart_zhajinhua_wins_chips_from_two_random_players():
    stats = simulate("zhajinhua", ["smart", "random", "random"], 800, seed=12)
    mean, half = stats.per_hand(0)
    assert mean - half > 10  # chips per hand, ante 10


def test_smart_doudizhu_wins_more_often_than_random_in_both_roles():
    stats = simulate("doudizhu", ["smart", "random", "random"], 250, seed=13)
    peasant, games = stats.win_rate(0, "peasant")
    random_peasant = (sum(stats.peasant_wins[1:]) / sum(stats.peasant_games[1:]))
    assert games >= 100 and peasant > random_peasant + 0.08
    landlord, games = stats.win_rate(0, "landlord")
    random_landlord = (sum(stats.landlord_wins[1:]) / sum(stats.landlord_games[1:]))
    assert games >= 10 and landlord > random_landlord + 0.3
    assert stats.chips[0] > 0


def test_smart_zhajinhua_hands_end_well_before_the_round_cap():
    # Six smart players used to call "40 (seen)" round after round up to the 20-round
    # cap (a quarter of the hands averaged 6+ rounds, some 2,000-chip pots); now someone
    # folds or compares within a few rounds.
    stats = simulate("zhajinhua", ["smart"] * 6, 300, seed=21)
    assert stats.capped == 0 and stats.max_rounds <= 10
    assert stats.rounds_per_hand() < 4  # the cap is 20
    three = simulate("zhajinhua", ["smart"] * 3, 300, seed=23)
    assert three.capped == 0 and three.rounds_per_hand() < 3


def test_smart_zhajinhua_beats_calling_stations_and_ends_its_hands():
    heads_up = simulate("zhajinhua", ["smart", "calling_station"], 600, seed=22)
    mean, half = heads_up.per_hand(0)
    assert mean - half > 20  # chips per hand, ante 10 (measured: about +70)
    assert heads_up.capped == 0 and heads_up.rounds_per_hand() < 4
    three = simulate("zhajinhua", ["smart", "calling_station", "calling_station"], 400, seed=24)
    mean, half = three.per_hand(0)
    assert mean - half > 20


def test_smart_holdem_beats_a_calling_station():
    stats = simulate("holdem", ["smart", "calling_station"], 1500, seed=25)
    bb, half = stats.bb_per_100(0)
    assert bb - half > 50
