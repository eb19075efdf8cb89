"""Texas Hold'em in a real browser: two players play a hand to the end through the UI,
and a refresh or a dropped connection in the middle of a hand puts the player back."""

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

SLOW = {"action_seconds": 120, "between_hands_seconds": 120}


def test_two_players_raise_call_and_play_a_hand_to_showdown(new_page, shots):
    alice = new_page(DESKTOP)
    bob = new_page(PHONE)
    enter(alice, "alice")
    enter(bob, "bob")
    room = create_table(alice, "holdem", seats=2, small_blind=5, big_blind=10, buy_in_default=1000, **SLOW)
    join_from_lobby(bob, room, seat=1)

    # Heads-up: alice holds the button, posts the small blind and acts first pre-flop.
    wait_turn(alice, "preflop")
    expect(alice.get_by_test_id("my-hole").locator("[data-card]")).to_have_count(2)
    expect(bob.get_by_test_id("my-hole").locator("[data-card]")).to_have_count(2)
    expect(alice.get_by_test_id("dealer")).to_have_count(1)
    alice.get_by_test_id("raise-amount").fill("30")
    expect(alice.get_by_test_id("act-raise")).to_have_text("Raise to 30")
    alice.get_by_test_id("act-raise").click()

    wait_turn(bob, "preflop")
    expect(bob.get_by_test_id("act-call")).to_have_text("Call 20")
    bob.get_by_test_id("act-call").click()

    # The flop: both see the same three cards and a pot of 60.
    for page in (alice, bob):
        expect(table(page)).to_have_attribute("data-street", "flop")
        expect(page.get_by_test_id("pot")).to_have_attribute("data-amount", "60")
        expect(page.get_by_test_id("board").locator("[data-card]")).to_have_count(3)
    assert card_ids(alice.get_by_test_id("board")) == card_ids(bob.get_by_test_id("board"))
    screenshot(alice, shots, "desktop-flop")

    # Checked down: bob (out of position) acts first after the flop.
    for street in ("flop", "turn", "river"):
        wait_turn(bob, street)
        bob.get_by_test_id("act-check").click()
        wait_turn(alice, street)
        alice.get_by_test_id("act-check").click()

    for page in (alice, bob):
        expect(table(page)).to_have_attribute("data-over", "1")
        expect(page.get_by_test_id("board").locator("[data-card]")).to_have_count(5)
        expect(page.get_by_test_id("result")).to_be_visible()
        expect(page.get_by_test_id("pot")).to_have_attribute("data-amount", "60")
    board = card_ids(alice.get_by_test_id("board"))
    assert board == card_ids(bob.get_by_test_id("board"))
    assert len(set(board)) == 5

    # Both hands were shown or the loser mucked; the winner took the pot of 60.
    winners = [int(s) for s in alice.locator(".seat.winner").evaluate_all("els => els.map(e => e.dataset.seat)")]
    assert winners, "a winner is highlighted"
    stacks = [seat_stack(alice, 0), seat_stack(alice, 1)]
    assert stacks == [seat_stack(bob, 0), seat_stack(bob, 1)]
    assert sum(stacks) == 2000
    if len(winners) == 1:
        winner = winners[0]
        assert stacks[winner] == 1030 and stacks[1 - winner] == 970
        expect(alice.get_by_test_id("result")).to_contain_text("wins 60")
    else:
        assert stacks == [1000, 1000]  # a split pot
    history = alice.get_by_test_id("history")
    expect(history).to_contain_text("alice raises to 30")
    expect(history).to_contain_text("bob calls 20")
    screenshot(alice, shots, "desktop")
    screenshot(bob, shots, "phone")


def test_refresh_mid_hand_restores_the_seat_and_the_hole_cards(new_page, shots):
    alice = new_page(DESKTOP)
    bob = new_page(DESKTOP)
    enter(alice, "carla")
    enter(bob, "dan")
    room = create_table(alice, "holdem", seats=2, small_blind=5, big_blind=10, **SLOW)
    join_from_lobby(bob, room, seat=1)
    wait_turn(alice, "preflop")
    hole = card_ids(alice.get_by_test_id("my-hole"))
    assert len(hole) == 2

    alice.reload()
    t = table(alice)
    expect(t).to_have_attribute("data-room", room)
    expect(t).to_have_attribute("data-your-seat", "0")
    wait_turn(alice, "preflop")
    assert card_ids(alice.get_by_test_id("my-hole")) == hole
    # bob still sees two face-down cards for alice, never her faces
    expect(bob.get_by_test_id("seat-0").locator("[data-card]")).to_have_count(0)

    alice.get_by_test_id("act-call").click()
    wait_turn(bob, "preflop")
    bob.get_by_test_id("act-check").click()
    wait_turn(bob, "flop")
    screenshot(alice, shots, "desktop-after-refresh")


def test_dropped_connection_reconnects_and_resumes_the_seat(new_page, shots):
    alice = new_page(PHONE)
    bob = new_page(DESKTOP)
    enter(alice, "erin")
    enter(bob, "fay")
    room = create_table(alice, "holdem", seats=2, **SLOW)
    join_from_lobby(bob, room, seat=1)
    wait_turn(alice, "preflop")
    hole = card_ids(alice.get_by_test_id("my-hole"))

    alice.evaluate("window.cardroom.conn.drop()")
    expect(alice.get_by_test_id("conn-state")).not_to_have_attribute("data-state", "online")
    # bob's table shows alice as away while she is gone, then back
    expect(alice.get_by_test_id("conn-state")).to_have_attribute("data-state", "online")
    wait_turn(alice, "preflop")
    assert card_ids(alice.get_by_test_id("my-hole")) == hole
    alice.get_by_test_id("act-fold").click()
    expect(table(bob)).to_have_attribute("data-over", "1")
    expect(bob.locator(".seat.winner")).to_have_attribute("data-seat", "1")
    screenshot(alice, shots, "phone-after-reconnect")
