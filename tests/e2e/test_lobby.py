"""The lobby in a real browser: names, the live table list, watching and sitting down,
play now, and server errors shown as readable messages."""

from __future__ import annotations

import re

import pytest

from .conftest import DESKTOP, PHONE
from .ui import create_table, enter, expect, screenshot, table

pytestmark = pytest.mark.browser


def test_tables_appear_live_and_a_watcher_can_take_a_seat(new_page, shots):
    bob = new_page(PHONE)
    enter(bob, "bob")
    alice = new_page(DESKTOP)
    enter(alice, "alice")

    # A bad option is refused by the server: the message is shown and the field marked.
    alice.get_by_test_id("create-holdem").click()
    form = alice.get_by_test_id("create-form")
    form.get_by_test_id("opt-seats").fill("3")
    form.get_by_test_id("opt-small_blind").fill("20")
    form.get_by_test_id("opt-big_blind").fill("40")
    form.locator("details.more > summary").click()
    form.get_by_test_id("opt-buy_in_min").fill("5000")
    form.get_by_test_id("opt-buy_in_max").fill("100")
    form.locator("details.more > summary").click()  # closed again: the error reopens it
    form.get_by_test_id("create-submit").click()
    expect(alice.get_by_test_id("toast-error")).to_contain_text("buy_in_max: must be at least buy_in_min")
    expect(form.get_by_test_id("opt-buy_in_max")).to_have_class(re.compile(r"\binvalid\b"))
    expect(form.get_by_test_id("opt-buy_in_max")).to_be_visible()

    form.get_by_test_id("opt-buy_in_min").fill("1")
    form.get_by_test_id("opt-buy_in_max").fill("100000")
    form.get_by_test_id("create-submit").click()
    expect(table(alice)).to_have_attribute("data-your-seat", "0")
    room = table(alice).get_attribute("data-room")

    # bob's lobby lists the new table without reloading
    row = bob.get_by_test_id(f"room-{room}")
    expect(row.get_by_test_id("room-players")).to_have_text("1/3 seated")
    screenshot(bob, shots, "phone-lobby")
    bob.get_by_test_id(f"watch-{room}").click()
    expect(bob.get_by_test_id("watching")).to_be_visible()
    expect(table(bob)).to_have_attribute("data-your-seat", "")
    bob.get_by_test_id("sit-2").click()
    expect(table(bob)).to_have_attribute("data-your-seat", "2")
    expect(alice.get_by_test_id("seat-name-2")).to_have_text("bob")
    # two players: the first hand starts at once
    expect(table(alice)).to_have_attribute("data-playing", "1")
    expect(alice.get_by_test_id("pot")).to_have_attribute("data-amount", "60")
    screenshot(alice, shots, "desktop")
    screenshot(bob, shots, "phone")

    # the name and seat are remembered: a reload resumes the same player at the table
    bob.reload()
    expect(table(bob)).to_have_attribute("data-your-seat", "2")
    expect(bob.get_by_test_id("me-name")).to_have_text("bob")


def test_play_now_creates_a_table_and_seats_you(new_page, shots):
    page = new_page(DESKTOP)
    enter(page, "gil")
    # the game list arrives with the first room list, possibly just after the lobby shows
    page.wait_for_function("() => (window.cardroom.store.games || []).some(g => g.game === 'doudizhu')")
    offers_bots = page.evaluate(
        "window.cardroom.store.games.find(g => g.game === 'doudizhu')"
        ".room_options.some(o => o.name === 'bots')")
    page.get_by_test_id("play-now-doudizhu").click()
    t = table(page)
    expect(t).to_have_attribute("data-game", "doudizhu")
    expect(t).to_have_attribute("data-your-seat", "0")
    expect(page.get_by_test_id("seat-name-0")).to_have_text("gil")
    if offers_bots:
        # the server filled the other seats with bots: the hand starts at once
        expect(page.get_by_test_id("bot-1")).to_be_visible()
        expect(page.get_by_test_id("bot-2")).to_be_visible()
        expect(t).to_have_attribute("data-playing", "1")
        expect(page.get_by_test_id("my-hand").locator("[data-card]")).to_have_count(17)
        screenshot(page, shots, "desktop-table")
        return
    screenshot(page, shots, "desktop-table")
    page.get_by_test_id("leave-seat").click()
    expect(page.get_by_test_id("lobby")).to_be_visible()
    expect(page.get_by_test_id("wallet")).to_have_text("10,000")


def test_a_private_table_is_unlisted_and_joined_through_its_invitation_link(new_page, server):
    alice = new_page(DESKTOP)
    enter(alice, "alice")
    room = create_table(alice, "holdem", seats=2, private=True)
    invite = alice.get_by_test_id("invite")
    expect(invite).to_be_visible()
    code = alice.get_by_test_id("invite-code").inner_text()
    link = invite.get_attribute("data-link")
    assert re.fullmatch(r"[A-Z2-9]{8}", code) and link.endswith(f"#/room/{room}/{code}")

    bob = new_page(PHONE)
    enter(bob, "bob")
    expect(bob.get_by_test_id(f"room-{room}")).to_have_count(0)  # not in the lobby
    bob.goto(link)  # the invitation: watch, then sit down
    expect(bob.get_by_test_id("watching")).to_be_visible()
    bob.get_by_test_id("sit-1").click()
    expect(table(bob)).to_have_attribute("data-your-seat", "1")
    expect(alice.get_by_test_id("seat-name-1")).to_have_text("bob")
