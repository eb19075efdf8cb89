"""Zha Jin Hua in a real browser: a hand with look, raise and compare, where each side
sees exactly the cards the compare reveals to it."""

from __future__ import annotations

import pytest

from .conftest import DESKTOP, PHONE
from .ui import (
    card_ids,
    create_table,
    enter,
    expect,
    join_from_lobby,
    screenshot,
    seat_stack,
    table,
    wait_turn,
)

pytestmark = pytest.mark.browser


def test_look_raise_call_and_compare_settle_the_pot(new_page, shots):
    alice = new_page(DESKTOP)
    bob = new_page(PHONE)
    enter(alice, "alice")
    enter(bob, "bob")
    room = create_table(alice, "zhajinhua", seats=2, ante=10, max_stake=100, compare_after_rounds=1,
                        action_seconds=120, between_hands_seconds=120)
    join_from_lobby(bob, room, seat=1)

    # alice deals (seat 0), so bob acts first. Both start blind.
    wait_turn(bob, "round-1")
    for page in (alice, bob):
        expect(page.get_by_test_id("blind-0")).to_be_visible()
        expect(page.get_by_test_id("blind-1")).to_be_visible()
        expect(page.get_by_test_id("pot")).to_have_attribute("data-amount", "20")
    expect(bob.get_by_test_id("my-cards").locator("[data-card]")).to_have_count(0)
    expect(bob.get_by_test_id("act-call")).to_have_text("Call 10")

    bob.get_by_test_id("act-look").click()
    expect(bob.get_by_test_id("my-cards").locator("[data-card]")).to_have_count(3)
    expect(alice.get_by_test_id("seen-1")).to_be_visible()
    expect(alice.get_by_test_id("seat-1").locator("[data-card]")).to_have_count(0)  # alice cannot see them
    expect(bob.get_by_test_id("act-call")).to_have_text("Call 20")  # seen players pay double
    bob_cards = card_ids(bob.get_by_test_id("my-cards"))

    bob.get_by_test_id("raise-double").click()
    expect(bob.get_by_test_id("act-raise")).to_have_text("Raise stake to 20 (pay 40)")
    bob.get_by_test_id("act-raise").click()

    wait_turn(alice, "round-1")
    expect(alice.get_by_test_id("cost-line")).to_contain_text("blind")
    expect(alice.get_by_test_id("act-call")).to_have_text("Call 20")
    expect(alice.get_by_test_id("compare-1")).to_have_count(0)  # compare opens after round 1
    alice.get_by_test_id("act-call").click()

    wait_turn(bob, "round-2")
    expect(bob.get_by_test_id("pot")).to_have_attribute("data-amount", "80")
    expect(bob.get_by_test_id("compare-0")).to_be_visible()
    screenshot(bob, shots, "phone-before-compare")
    bob.get_by_test_id("compare-0").click()

    for page in (alice, bob):
        expect(table(page)).to_have_attribute("data-over", "1")
        expect(page.get_by_test_id("result")).to_be_visible()
    # bob looked and compared: he sees both hands whoever won. alice never looked: the
    # compare shows her bob's hand (and her own only if she lost).
    expect(bob.get_by_test_id("shown-0").locator("[data-card]")).to_have_count(3)
    expect(alice.get_by_test_id("shown-1").locator("[data-card]")).to_have_count(3)
    assert card_ids(alice.get_by_test_id("shown-1")) == bob_cards

    # pot: antes 20 + bob's raise 40 + alice's call 20 + bob's compare fee 40 = 120
    winner = int(alice.locator(".seat.winner").get_attribute("data-seat") or "-1")
    assert winner in (0, 1)
    expected = {0: [1090, 910], 1: [970, 1030]}[winner]
    assert [seat_stack(alice, 0), seat_stack(alice, 1)] == expected
    assert [seat_stack(bob, 0), seat_stack(bob, 1)] == expected
    loser = 1 - winner
    expect(alice.get_by_test_id(f"status-{loser}")).to_have_text("lost")
    history = alice.get_by_test_id("history")
    expect(history).to_contain_text("bob looks at their cards")
    expect(history).to_contain_text("bob raises the stake to 20")
    expect(history).to_contain_text("bob compares with alice")
    screenshot(alice, shots, "desktop")
    screenshot(bob, shots, "phone")
