"""A player's own record (issue #28, item 16): the top bar's "My record" opens, from the
table and from the lobby, the hands played and the chips won or lost per game, exactly as
the seat's stack moved, and the last hands, each of which opens as the hand history tells
it; in the page's language, inside the window on a phone."""

from __future__ import annotations

import re
from typing import Any

import pytest

from .test_stranded_reload import CASES, LOCALES, check_or_call, heads_up_against_a_bot
from .ui import (
    SIZES,
    enter,
    expect,
    foreign_texts,
    outside_viewport,
    screenshot,
    seat_stack,
    table,
)

pytestmark = pytest.mark.browser

BUY_IN = 1000


def play_hands(page: Any, hands: int) -> int:
    """Check or call until hand ``hands`` is over; my stack then."""
    t = table(page)
    for _ in range(200):
        if t.get_attribute("data-hand") == str(hands) and t.get_attribute("data-over") == "1":
            return seat_stack(page, 0)
        turn = page.get_by_test_id("my-turn")
        if not turn.count():
            page.wait_for_timeout(100)
            continue
        check_or_call(page)
    raise AssertionError(f"hand {hands} never ended")


def open_record(page: Any, size: str) -> None:
    """Open My record from the top bar: its button, or on a phone (no room for it) your name."""
    if size == "phone":
        expect(page.get_by_test_id("my-record")).to_be_hidden()
        page.get_by_test_id("me-name").click()
    else:
        expect(page.get_by_test_id("my-record")).to_have_text(re.compile(r"^(My record|我的战绩)$"))
        page.get_by_test_id("my-record").click()


@pytest.mark.parametrize("size, lang", CASES)
def test_my_record_shows_the_hands_and_chips_of_play_and_opens_a_hand(new_page, shots, size, lang):
    page = heads_up_against_a_bot(new_page, size, lang, "rex", between_hands_seconds=4)
    stack = play_hands(page, 2)
    net = stack - BUY_IN

    open_record(page, size)  # from the table
    panel = page.get_by_test_id("record-panel")
    expect(panel).to_be_visible()
    expect(page.get_by_test_id("record-hands")).to_have_attribute("data-hands", "2")
    row = page.get_by_test_id("record-game-holdem")
    expect(row).to_have_attribute("data-hands", "2")
    expect(row).to_have_attribute("data-net", str(net))  # exactly the chips my seat won or lost
    for other in ("zhajinhua", "doudizhu"):
        expect(page.get_by_test_id(f"record-game-{other}")).to_have_attribute("data-hands", "0")
    results = page.get_by_test_id("record-result")
    expect(results).to_have_count(2)
    assert [results.nth(i).get_attribute("data-hand") for i in range(2)] == ["2", "1"]  # newest first
    assert sum(int(results.nth(i).get_attribute("data-net")) for i in range(2)) == net
    shown_net = row.locator("td").last.inner_text()
    assert shown_net.replace(",", "") == (f"+{net}" if net > 0 else str(net)), shown_net
    assert foreign_texts(page, "[data-testid=record-panel]", lang, allow=["rex"]) == []
    assert outside_viewport(page, "[data-testid=record-panel], [data-testid=record-open-hand]") == []
    screenshot(page, shots, f"{size}-{lang}-record")

    # a result opens that hand as the hand history tells it
    results.first.get_by_test_id("record-open-hand").click()
    hand = page.get_by_test_id("record-hand")
    expect(hand).to_have_attribute("data-hand", "2")
    assert hand.locator("li").count() >= 4  # the blinds, my cards, the actions, the result
    expect(hand).to_contain_text("rex")
    assert foreign_texts(page, "[data-testid=record-panel]", lang, allow=["rex", "Ada", "Bot"]) == []
    screenshot(page, shots, f"{size}-{lang}-record-hand")
    page.get_by_test_id("record-back").click()
    expect(results).to_have_count(2)
    page.get_by_test_id("record-close").click()
    expect(panel).to_have_count(0)

    # and from the lobby, reached in the top bar there too
    page.get_by_test_id("to-lobby").click()
    expect(page.get_by_test_id("lobby")).to_be_visible()
    assert outside_viewport(page, "[data-testid=my-record], [data-testid=me-name]") == []
    open_record(page, size)
    expect(page.get_by_test_id("record-game-holdem")).to_have_attribute("data-hands", re.compile(r"^[23]$"))


def test_a_new_player_is_told_there_is_nothing_yet_in_both_languages(new_page):
    page = new_page(SIZES["phone"], locale=LOCALES["zh"])
    enter(page, "新人")
    open_record(page, "phone")
    expect(page.get_by_test_id("record-empty")).to_have_text("还没有牌局：打完一局就会显示在这里。")
    expect(page.get_by_test_id("record-hands")).to_have_attribute("data-hands", "0")
    page.get_by_test_id("record-close").click()
    page.get_by_test_id("lang-switch").click()
    open_record(page, "phone")
    expect(page.get_by_test_id("record-empty")).to_have_text("No hands yet: once you play a hand it shows here.")
