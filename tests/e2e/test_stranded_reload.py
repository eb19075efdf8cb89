"""A reload mid-hand keeps the hand so far (issue #28, item 7): the hand history lists the
current hand's actions line by line as before the reload (not one summary line), the seats'
notes of the betting round come back, and a Dou Dizhu card selection survives; so do the
last finished hand's "Last hand" view and its Verify and Save (the replay of the item in a
browser lost them)."""

from __future__ import annotations

from typing import Any

import pytest

from .ui import SIZES, create_table, enter, expect, screenshot, table

pytestmark = pytest.mark.browser

LOCALES = {"en": "en-US", "zh": "zh-CN"}
CASES = [("desktop", "en"), ("phone", "zh")]

# the lines of the hand history from the last hand's separator on ("— Hand #3 —")
_HAND_LINES = """() => {
  const items = [...document.querySelectorAll('[data-testid=history] .history-list li')];
  let start = -1;
  items.forEach((li, i) => { if (li.classList.contains('sep')) start = i; });
  return start < 0 ? [] : items.slice(start).map((li) => li.textContent);
}"""


def hand_lines(page: Any) -> list[str]:
    return page.evaluate(_HAND_LINES)


def _open_history(page: Any) -> None:
    """Unfold the hand history (folded under the table on a phone)."""
    history = page.get_by_test_id("history")
    if "open" not in (history.get_attribute("class") or ""):
        history.locator(".history-toggle").click()
        expect(history).to_have_class("history open")


def play_to_my_turn_after(page: Any, bot: int) -> None:
    """Play on (call or check) until it is my turn with the bot's last action on its seat."""
    t = table(page)
    for _ in range(30):
        page.wait_for_function("() => document.querySelector('[data-testid=my-turn]')")
        if page.get_by_test_id(f"seat-note-{bot}").count() and t.get_attribute("data-over") == "0":
            return
        check_or_call(page)
    raise AssertionError("never my turn after a bot's action")


def check_or_call(page: Any) -> None:
    """Check, or else call, and wait for the table to take it."""
    t = table(page)
    version = t.get_attribute("data-version") or ""
    for tid in ("act-check", "act-call"):
        if page.get_by_test_id(tid).count():
            page.get_by_test_id(tid).click()
            break
    expect(t).not_to_have_attribute("data-version", version)


def heads_up_against_a_bot(new_page: Any, size: str, lang: str, name: str, **options: Any) -> Any:
    """A page of player ``name`` seated at a new heads-up Hold'em table against a bot."""
    page = new_page(SIZES[size], locale=LOCALES[lang])
    enter(page, name)
    create_table(page, "holdem", **{"seats": 2, "bots": 1, "bot_delay_seconds": 0.3, "action_seconds": 120,
                                    "between_hands_seconds": 1, **options})
    return page


def _reload(page: Any) -> None:
    page.reload()
    expect(table(page)).to_be_visible()
    expect(page.get_by_test_id("conn-state")).to_have_attribute("data-state", "online")


@pytest.mark.parametrize("size, lang", CASES)
def test_a_reload_mid_hand_keeps_the_holdem_history_and_the_seat_notes(new_page, shots, size, lang):
    page = new_page(SIZES[size], locale=LOCALES[lang])
    enter(page, "rhea")
    create_table(page, "holdem", seats=2, bots=1, bot_delay_seconds=0.3, action_seconds=120,
                 between_hands_seconds=1)
    t = table(page)
    bot = 1
    play_to_my_turn_after(page, bot)
    _open_history(page)
    before = hand_lines(page)
    note = page.get_by_test_id(f"seat-note-{bot}").inner_text()
    version = t.get_attribute("data-version")
    assert len(before) >= 5, before  # the separator, the blinds, my cards, actions
    screenshot(page, shots, f"{size}-{lang}-before-reload")

    _reload(page)
    expect(page.get_by_test_id("my-turn")).to_be_visible()
    assert t.get_attribute("data-version") == version  # the same moment of the same hand
    _open_history(page)
    expect(page.get_by_test_id(f"seat-note-{bot}")).to_have_text(note)
    expect(page.locator("[data-testid=history] .history-list li").last).to_have_text(before[-1])
    assert hand_lines(page) == before
    screenshot(page, shots, f"{size}-{lang}-after-reload")

    # and the hand goes on from there, its lines added after the restored ones
    for tid in ("act-check", "act-call"):
        if page.get_by_test_id(tid).count():
            page.get_by_test_id(tid).click()
            break
    expect(t).not_to_have_attribute("data-version", version)
    after = hand_lines(page)
    assert after[:len(before)] == before and len(after) > len(before)


def test_a_reload_mid_hand_keeps_the_last_hand_and_its_verify(new_page, shots):
    page = heads_up_against_a_bot(new_page, "laptop", "en", "remy")
    t = table(page)
    for _ in range(40):  # on to my turn in a hand after the first
        page.wait_for_function("() => document.querySelector('[data-testid=my-turn]')")
        if page.get_by_test_id("last-hand").count() and t.get_attribute("data-over") == "0":
            break
        check_or_call(page)
    else:
        raise AssertionError("never my turn in a second hand")
    last = page.get_by_test_id("last-hand").get_attribute("data-hand")
    expect(page.get_by_test_id("verify")).to_have_attribute("data-hand", last)
    version = t.get_attribute("data-version")

    _reload(page)
    assert t.get_attribute("data-version") == version  # the same moment of the same hand
    expect(page.get_by_test_id("last-hand")).to_have_attribute("data-hand", last)
    expect(page.get_by_test_id("save-hand")).to_be_visible()
    page.get_by_test_id("last-hand").click()
    expect(page.get_by_test_id("last-hand-panel")).to_be_visible()
    page.get_by_test_id("last-hand-close").click()
    verify = page.get_by_test_id("verify")
    expect(verify).to_have_attribute("data-hand", last)
    verify.click()
    expect(page.get_by_test_id("verify-result")).to_have_attribute("data-ok", "1")
    screenshot(page, shots, "laptop-en-last-hand-after-reload")


@pytest.mark.parametrize("size, lang", CASES)
def test_a_reload_keeps_the_dou_dizhu_selection_and_history(new_page, scripted, shots, size, lang):
    page = new_page(SIZES[size], locale=LOCALES[lang])
    enter(page, "dora")

    def passive(view: dict[str, Any]) -> dict[str, Any]:
        legal = view["legal"]
        if legal["phase"] == "bidding" or legal["can_pass"]:
            return {"type": "pass"}
        return {"type": "play", "cards": legal["plays"][0]["ranks"]}

    room = create_table(page, "doudizhu", bidding="score", action_seconds=120, between_hands_seconds=120)
    for name in ("west", "east"):
        scripted(name, passive).join(room)
    page.get_by_test_id("bid-3").click()  # the landlord: the first to play
    expect(page.get_by_test_id("act-play")).to_be_visible()
    cards = page.get_by_test_id("hand-card")  # the lowest two: in the front row on a phone
    cards.nth(19).click()
    cards.nth(18).click()
    chosen = page.locator("[data-testid=hand-card].selected").evaluate_all("els => els.map(e => e.dataset.card)")
    assert len(chosen) == 2
    _open_history(page)
    before = hand_lines(page)
    assert len(before) >= 4, before  # the separator, my cards, the bids, the landlord
    expect(page.get_by_test_id("act-play")).to_be_enabled()

    _reload(page)
    expect(page.get_by_test_id("act-play")).to_be_visible()
    selected = page.locator("[data-testid=hand-card].selected")
    expect(selected).to_have_count(2)
    assert selected.evaluate_all("els => els.map(e => e.dataset.card)") == chosen
    expect(page.get_by_test_id("act-play")).to_be_enabled()
    _open_history(page)
    expect(page.locator("[data-testid=history] .history-list li").last).to_have_text(before[-1])
    assert hand_lines(page) == before
    screenshot(page, shots, f"{size}-{lang}-selection-after-reload")

    # a cleared selection stays cleared after a reload; a single card then leads the trick
    page.get_by_test_id("act-clear").click()
    expect(selected).to_have_count(0)
    _reload(page)
    expect(page.get_by_test_id("act-play")).to_be_visible()
    expect(page.get_by_test_id("act-play")).to_be_disabled()
    page.get_by_test_id("hand-card").nth(19).click()
    page.get_by_test_id("act-play").click()
    expect(page.get_by_test_id("my-hand")).to_have_attribute("data-count", "19")
