"""Multiplier and chip settlement rules, on their own."""

from __future__ import annotations

import pytest

from engine.doudizhu.scoring import compute_multiplier, is_anti_spring, is_spring, settle


def test_each_bomb_and_the_rocket_double_the_multiplier():
    m = compute_multiplier(bidding=3, bombs=2, rockets=1, spring=False, anti_spring=False, cap=0)
    assert m.final == 3 * 8 and not m.capped


def test_spring_and_anti_spring_double_the_multiplier():
    assert compute_multiplier(2, 0, 0, True, False, 0).final == 4
    assert compute_multiplier(2, 0, 0, False, True, 0).final == 4
    with pytest.raises(ValueError):
        compute_multiplier(2, 0, 0, True, True, 0)


def test_max_multiplier_caps_the_final_multiplier():
    m = compute_multiplier(3, 3, 1, True, False, cap=48)
    assert m.uncapped == 3 * 16 * 2 and m.final == 48 and m.capped
    assert m.to_wire()["capped"] is True
    assert compute_multiplier(3, 0, 0, False, False, cap=48).final == 3


def test_spring_needs_landlord_win_and_no_peasant_play():
    assert is_spring(True, 0) and not is_spring(True, 1) and not is_spring(False, 0)
    assert is_anti_spring(False, 1) and not is_anti_spring(False, 2) and not is_anti_spring(True, 1)


def test_landlord_wins_twice_the_stake_from_two_peasants():
    s = settle([1000, 1000, 1000], landlord=0, peasants=[1, 2], landlord_won=True, multiplier=3, stake=10)
    assert s.points == [6, -3, -3] and s.owed == [60, -30, -30] and s.chips == [60, -30, -30]
    assert s.stacks == [1060, 970, 970] and not s.short


def test_landlord_loses_twice_the_stake_to_the_peasants():
    s = settle([1000, None, 1000, 1000], landlord=3, peasants=[0, 2], landlord_won=False, multiplier=2,
               stake=5)
    assert s.points == [2, None, 2, -4] and s.chips == [10, None, 10, -20]
    assert s.stacks == [1010, None, 1010, 980]


def test_short_peasant_pays_only_its_stack():
    s = settle([100, 7, 1000], landlord=0, peasants=[1, 2], landlord_won=True, multiplier=4, stake=10)
    assert s.chips == [47, -7, -40] and s.short
    assert s.stacks == [147, 0, 960]
    assert sum(s.chips) == 0 and sum(s.points) == 0


def test_short_landlord_split_between_peasants_odd_chip_to_first():
    s = settle([500, 500, 11], landlord=2, peasants=[0, 1], landlord_won=False, multiplier=4, stake=10)
    assert s.chips == [6, 5, -11] and s.stacks == [506, 505, 0] and s.short
    assert s.owed == [40, 40, -80]
