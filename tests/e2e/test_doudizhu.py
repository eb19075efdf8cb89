"""Dou Dizhu in a real browser against two scripted WebSocket players: the browser player
bids 3 to become the landlord, takes the bottom cards, and wins a trick."""

from __future__ import annotations

import pytest

from .conftest import DESKTOP, PHONE
from .ui import create_table, enter, expect, screenshot, table, wait_turn

pytestmark = pytest.mark.browser


def passive(view):
    """Never bid; pass whenever allowed; lead the lowest legal play otherwise."""
    legal = view["legal"]
    if legal["phase"] == "bidding" or legal["can_pass"]:
        return {"type": "pass"}
    return {"type": "play", "cards": legal["plays"][0]["ranks"]}


def test_bid_landlord_take_bottom_and_win_a_trick(new_page, scripted, shots):
    alice = new_page(DESKTOP)
    enter(alice, "alice")
    room = create_table(alice, "doudizhu", stake=10, bidding="score",
                        action_seconds=120, between_hands_seconds=120)
    bots = [scripted(name, passive) for name in ("bot-west", "bot-east")]
    for bot in bots:
        bot.join(room)

    # The seat left of the dealer (seat 1) bids first; both scripted players pass.
    wait_turn(alice, "bidding")
    expect(alice.get_by_test_id("my-hand").locator("[data-card]")).to_have_count(17)
    expect(alice.get_by_test_id("last-play-1")).to_have_text("No bid")
    expect(alice.get_by_test_id("last-play-2")).to_have_text("No bid")
    expect(alice.get_by_test_id("bottom-cards").locator("[data-card]")).to_have_count(0)
    alice.get_by_test_id("bid-3").click()

    # Landlord: 20 cards, the bottom cards face up, multiplier x3, alice leads.
    wait_turn(alice, "play")
    expect(alice.get_by_test_id("landlord-0")).to_be_visible()
    expect(alice.get_by_test_id("my-hand").locator("[data-card]")).to_have_count(20)
    expect(alice.get_by_test_id("bottom-cards").locator("[data-card]")).to_have_count(3)
    expect(alice.get_by_test_id("multiplier")).to_have_text("×3")
    expect(alice.get_by_test_id("play-info")).to_contain_text("You lead")
    expect(alice.get_by_test_id("count-1")).to_have_attribute("data-count", "17")
    expect(alice.get_by_test_id("act-play")).to_be_disabled()

    # Hint selects the first legal play (the lowest single card); play it.
    alice.get_by_test_id("act-hint").click()
    expect(alice.locator("[data-testid=hand-card].selected")).to_have_count(1)
    played = alice.locator("[data-testid=hand-card].selected").get_attribute("data-card")
    alice.get_by_test_id("act-play").click()

    # Both scripted players pass: the trick is alice's and she leads again.
    expect(alice.get_by_test_id("last-play-1")).to_have_text("Pass")
    expect(alice.get_by_test_id("last-play-2")).to_have_text("Pass")
    wait_turn(alice, "play")
    expect(alice.get_by_test_id("play-info")).to_contain_text("You lead")
    expect(alice.get_by_test_id("my-hand").locator("[data-card]")).to_have_count(19)
    expect(alice.locator(f"[data-testid=my-hand] [data-card='{played}']")).to_have_count(0)
    history = alice.get_by_test_id("history")
    expect(history).to_contain_text("alice is the landlord")
    expect(history).to_contain_text("alice wins the trick and leads")

    # Select a card by clicking it (the lowest, drawn last) and play it.
    alice.locator("[data-testid=hand-card]").last.click()
    expect(alice.locator("[data-testid=hand-card].selected")).to_have_count(1)
    alice.get_by_test_id("act-play").click()
    expect(alice.get_by_test_id("last-play-0").locator("[data-card]")).to_have_count(1)
    wait_turn(alice, "play")
    expect(alice.get_by_test_id("my-hand").locator("[data-card]")).to_have_count(18)
    expect(table(alice)).to_have_attribute("data-over", "0")
    assert not any(b.errors for b in bots), [b.errors for b in bots]
    screenshot(alice, shots, "desktop")
    alice.set_viewport_size(PHONE)
    screenshot(alice, shots, "phone")
    alice.set_viewport_size(DESKTOP)

    # Play out the hand with hints: the peasants never play a card, a spring.
    for left in range(17, -1, -1):
        alice.get_by_test_id("act-hint").click()
        expect(alice.locator("[data-testid=hand-card].selected")).to_have_count(1)
        alice.get_by_test_id("act-play").click()
        if left == 0:
            break
        expect(alice.get_by_test_id("my-hand")).to_have_attribute("data-count", str(left))
        wait_turn(alice, "play")
    expect(table(alice)).to_have_attribute("data-over", "1")
    result = alice.get_by_test_id("result")
    expect(result).to_contain_text("alice (landlord) wins")
    expect(result).to_contain_text("bid ×3 · spring ×2 = ×6")
    # landlord +2 x 6 points, each peasant -6; 10 chips a point
    expect(alice.get_by_test_id("seat-0")).to_have_attribute("data-stack", "1120")
    expect(alice.get_by_test_id("seat-1")).to_have_attribute("data-stack", "940")
    expect(alice.get_by_test_id("seat-2")).to_have_attribute("data-stack", "940")
    expect(alice.get_by_test_id("rest-1").locator("[data-card]")).to_have_count(17)
    screenshot(alice, shots, "desktop-result")


def test_rob_bidding_call_makes_the_landlord(new_page, scripted, shots):
    alice = new_page(PHONE)
    enter(alice, "alice")
    room = create_table(alice, "doudizhu", bidding="rob", action_seconds=120, between_hands_seconds=120)
    for name in ("bot-a", "bot-b"):
        scripted(name, passive).join(room)
    wait_turn(alice, "bidding")
    expect(alice.get_by_test_id("last-play-1")).to_have_text("Pass")
    expect(alice.get_by_test_id("act-rob")).to_have_count(0)
    alice.get_by_test_id("act-call").click()
    wait_turn(alice, "play")
    expect(alice.get_by_test_id("landlord-0")).to_be_visible()
    expect(alice.get_by_test_id("multiplier")).to_have_text("×1")
    screenshot(alice, shots, "phone")
