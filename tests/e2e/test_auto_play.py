"""Auto-play (托管) and the Hold'em time bank in the browser (issue #28, items 13 and 15).

A player hands their seat to the server with one button ("Auto check/fold" in Hold'em,
"Auto-play" / "托管" in Dou Dizhu), every viewer sees the seat's badge, the hands go on
without them, and one click takes the seat back. A Hold'em table created with a time bank
shows each seat's bank; a clock that runs out goes on from the bank, counting down on the
seat, and only then times out; two timeouts in a row hand the seat to auto-play."""

from __future__ import annotations

import re
from typing import Any

import pytest

from .ui import SIZES, create_table, enter, expect, screenshot, table

pytestmark = pytest.mark.browser

LOCALES = {"en": "en-US", "zh": "zh-CN"}
TEXT = {
    "en": {"button": "Auto", "checkfold": "Auto check/fold", "badge_checkfold": "auto check/fold",
           "back": "Stop auto", "badge": "auto-play",
           "you_auto": "Auto-play is on: stop it to deal the next hand", "log_on": "ada hands the seat to auto-play",
           "bank_label": "Time bank (s)", "bank": "bank {n}s", "bank_running": "Time bank {n}s"},
    "zh": {"button": "托管", "checkfold": "自动让牌/弃牌", "badge_checkfold": "自动让/弃", "back": "取消托管",
           "badge": "托管",
           "you_auto": "托管中：取消托管后才会开下一局", "log_on": "ada 选择了托管",
           "bank_label": "时间银行（秒）", "bank": "时间银行 {n}秒", "bank_running": "时间银行 {n}秒"},
}
CASES = [("desktop", "en"), ("phone", "zh")]


def _caller(view: dict[str, Any]) -> dict[str, Any]:
    return {"type": "call"} if view["legal"].get("call") else {"type": "check"}


@pytest.mark.parametrize("size, lang", CASES)
def test_auto_check_fold_plays_on_shows_every_viewer_and_one_click_takes_it_back(new_page, scripted, shots,
                                                                                   size, lang):
    text = TEXT[lang]
    page = new_page(SIZES[size], locale=LOCALES[lang])
    enter(page, "ada")
    room = create_table(page, "holdem", seats=2, action_seconds=120, between_hands_seconds=3)
    sam = scripted("sam", _caller)
    sam.join(room)
    t = table(page)
    expect(t).to_have_attribute("data-playing", "1")
    watcher = new_page(SIZES[size], locale=LOCALES[lang])
    enter(watcher, "bea")
    watcher.get_by_test_id(f"watch-{room}").click()
    expect(table(watcher)).to_have_attribute("data-room", room)

    button = page.get_by_test_id("auto-play")
    expect(button).to_have_text(text["button"])  # short, so the top bar keeps its height
    expect(button).to_have_attribute("title", re.compile("^" + text["checkfold"]))
    expect(page.get_by_test_id("auto-0")).to_have_count(0)
    hand = int(t.get_attribute("data-hand") or "0")
    button.click()
    # my seat's badge, for me and for someone watching; my turns are played for me
    for p in (page, watcher):
        expect(p.get_by_test_id("auto-0")).to_have_text(text["badge_checkfold"])
        expect(p.get_by_test_id("auto-0")).to_have_attribute("data-why", "asked")
    expect(page.get_by_test_id("auto-play-off")).to_have_text(text["back"])
    # the hands go on without a click of mine (with a 120 s clock, only auto-play can do that)
    page.wait_for_function(f"() => Number(document.querySelector('[data-testid=table]').dataset.hand) >= {hand + 2}",
                           timeout=20_000)
    expect(page.get_by_test_id("my-turn")).to_have_count(0)
    expect(page.locator(".history-list")).to_contain_text(text["log_on"])
    screenshot(page, shots, f"{size}-{lang}-auto-check-fold")
    screenshot(watcher, shots, f"{size}-{lang}-auto-check-fold-watcher")

    # one click takes the seat back: the badge goes for everyone, my turn waits for me again
    page.get_by_test_id("auto-play-off").click()
    for p in (page, watcher):
        expect(p.get_by_test_id("auto-0")).to_have_count(0)
    expect(page.get_by_test_id("auto-play")).to_be_visible()
    expect(page.get_by_test_id("my-turn")).to_be_visible(timeout=15_000)


@pytest.mark.parametrize("size, lang", [("desktop", "zh"), ("phone", "en")])
def test_dou_dizhu_auto_play_is_the_bot_and_waits_to_be_taken_back(new_page, shots, size, lang):
    text = TEXT[lang]
    page = new_page(SIZES[size], locale=LOCALES[lang])
    enter(page, "ada")
    create_table(page, "doudizhu", bots=2, bot_delay_seconds=0.1, action_seconds=120, between_hands_seconds=0.5)
    t = table(page)
    expect(t).to_have_attribute("data-playing", "1")
    hand = t.get_attribute("data-hand")
    expect(page.get_by_test_id("auto-play")).to_have_text(text["button"])
    page.get_by_test_id("auto-play").click()
    expect(page.get_by_test_id("auto-play-off")).to_have_text(text["back"])
    expect(page.get_by_test_id("auto-0")).to_have_text(text["badge"])
    # the bot finishes my hand; then, like bots, an auto-played seat deals no hand alone
    expect(t).to_have_attribute("data-playing", "0", timeout=30_000)
    assert t.get_attribute("data-hand") == hand
    status = page.get_by_test_id("status")
    expect(status).to_have_text(text["you_auto"])
    expect(status).to_have_attribute("data-why", "auto")
    screenshot(page, shots, f"{size}-{lang}-doudizhu-auto")
    page.get_by_test_id("auto-play-off").click()
    expect(t).to_have_attribute("data-playing", "1")
    expect(t).not_to_have_attribute("data-hand", hand)
    expect(page.get_by_test_id("auto-0")).to_have_count(0)


@pytest.mark.parametrize("size, lang", CASES)
def test_the_time_bank_runs_on_the_seat_after_the_clock_then_two_timeouts_auto_play(new_page, shots, size, lang):
    text = TEXT[lang]
    page = new_page(SIZES[size], locale=LOCALES[lang])
    enter(page, "ada")
    page.get_by_test_id("create-holdem").click()
    form = page.get_by_test_id("create-form")
    field = form.get_by_test_id("opt-time_bank_seconds")
    expect(field).to_be_visible()  # among the main fields, not under "more"
    expect(form.locator("label[for=opt-options-time_bank_seconds]")).to_have_text(text["bank_label"])
    page.get_by_test_id("create-form").locator("button[aria-label]").click()
    create_table(page, "holdem", seats=2, bots=1, bot_delay_seconds=0.1, action_seconds=1, time_bank_seconds=3,
                 between_hands_seconds=0.5)
    t = table(page)
    seat = t.get_attribute("data-your-seat")
    bank = page.get_by_test_id(f"bank-{seat}")
    expect(bank).to_have_text(text["bank"].format(n=3))
    expect(page.locator("[data-testid^=bank-]")).to_have_count(1)  # bots have no bank
    # my clock runs out: it goes on from my bank, counting down on my seat and my clock
    expect(bank).to_have_class("badge bank bank-running", timeout=10_000)
    expect(page.locator(".my-clock.on-bank")).to_have_text(re.compile(text["bank_running"].format(n=r"[1-3]")))
    screenshot(page, shots, f"{size}-{lang}-time-bank-running")
    # the bank runs out too: a timeout, the bank empty for the rest of the session
    expect(bank).to_have_text(text["bank"].format(n=0), timeout=10_000)
    expect(bank).to_have_attribute("data-bank-ms", "0")
    expect(page.locator(".history-list")).to_contain_text("ada")
    # a second timeout in a row (no bank left): the seat is handed to auto-play
    expect(page.get_by_test_id(f"auto-{seat}")).to_have_attribute("data-why", "timeouts", timeout=15_000)
    expect(page.get_by_test_id(f"auto-{seat}")).to_have_text(text["badge_checkfold"])
    screenshot(page, shots, f"{size}-{lang}-time-bank-spent-auto")
