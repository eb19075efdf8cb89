"""Never stranded (issue #28, items 1 and 11): a player who loses all their chips sees the
hand out (their seat and cards stay on the felt until the next deal), the table says why
no hand is dealt instead of "Dealing…", the rebuy is bounded by the wallet; sitting out
during a hand plays your turns at once (check or fold) instead of making everyone wait for
your clock, and the table then says that you sit out."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from .conftest import ScriptedPlayer
from .ui import (
    SIZES,
    card_ids,
    create_table,
    enter,
    expect,
    felt_overlaps,
    screenshot,
    settle,
    table,
)

pytestmark = pytest.mark.browser

LOCALES = {"en": "en-US", "zh": "zh-CN"}
TEXT = {
    "en": {"too_few": "Waiting for players: a hand needs at least 2 players ready",
           "sitting_out": "You are sitting out: Sit in to play",
           "busted": "out of chips", "dealing": "Dealing…",
           "rebuy": "You ran out of chips. Buy in again (10–9,990) to keep playing.",
           "short": "You ran out of chips. Your wallet holds 5, less than this table's minimum buy-in of 10."},
    "zh": {"too_few": "等待玩家：一局至少需要 2 名玩家就绪",
           "sitting_out": "你已暂离：点“回到牌局”继续玩",
           "busted": "筹码输光", "dealing": "发牌中…",
           "rebuy": "你的筹码输光了。重新买入（10–9,990）即可继续。",
           "short": "你的筹码输光了。钱包里只有 5，不够这张牌桌的最低买入 10。"},
}
CASES = [("desktop", "en"), ("phone", "zh")]
# the busted player's table: six seats, where the line saying why nothing is dealt sits
# between the lower seats and must wrap clear of the winner (its shown cards reach in from
# the lower right seat on the desktop, its plate from the lower left one on a phone)
BUSTED_CASES = [("desktop", "en", 6, 5), ("phone", "zh", 6, 1)]


def _caller(view: dict[str, Any]) -> dict[str, Any]:
    return {"type": "call"} if view["legal"].get("call") else {"type": "check"}


def _other(lang: str) -> str:
    return "zh" if lang == "en" else "en"


def _shove_until_busted(page: Any, other: ScriptedPlayer) -> int:
    """Put every chip in at each turn (``other`` calls everything) until this page's
    player is out of chips; returns the seat it had."""
    t = table(page)
    seat = int(t.get_attribute("data-your-seat") or "0")
    for _ in range(60):
        try:
            page.wait_for_function(
                "() => document.querySelector('[data-testid=my-turn]')"
                " || document.querySelector('[data-testid=table][data-your-seat=\"\"]')")
        except PlaywrightTimeoutError:
            raise AssertionError(f"neither my turn nor busted: the page shows version "
                                 f"{t.get_attribute('data-version')}, to act {t.get_attribute('data-to-act')}; "
                                 f"{other.state()}") from None
        if t.get_attribute("data-your-seat") == "":
            return seat
        version = t.get_attribute("data-version") or ""
        if page.get_by_test_id("raise-max").count():
            page.get_by_test_id("raise-max").click()
            page.get_by_test_id("act-raise").click()
        else:
            for tid in ("act-call", "act-check", "act-allin"):
                if page.get_by_test_id(tid).count():
                    page.get_by_test_id(tid).click()
                    break
        expect(t).not_to_have_attribute("data-version", version)
    raise AssertionError("never busted")


@pytest.mark.parametrize("size, lang, seats, whale_seat", BUSTED_CASES)
def test_a_busted_player_sees_the_hand_out_and_why_nothing_is_dealt(new_page, scripted, shots, size, lang, seats,
                                                                     whale_seat):
    page = new_page(SIZES[size], locale=LOCALES[lang])
    enter(page, "rory")
    room = create_table(page, "holdem", seats=seats, small_blind=5, big_blind=10, buy_in_min=10,
                        buy_in_default=10, action_seconds=120, between_hands_seconds=0.3)
    whale = scripted("whale", _caller)
    whale.room = room
    whale._send({"t": "join", "room": room, "seat": whale_seat, "buy_in": 5000})
    seat = _shove_until_busted(page, whale)
    t = table(page)

    # the hand stays on the felt as it ended: my seat, name and two cards, out of chips;
    # drawn where it was (at the bottom), not offered as an empty seat
    mine = page.get_by_test_id(f"seat-{seat}")
    expect(t).to_have_attribute("data-over", "1")
    expect(mine).to_have_attribute("data-gone", "busted")
    expect(page.get_by_test_id(f"seat-name-{seat}")).to_have_text("rory")
    expect(page.get_by_test_id(f"gone-{seat}")).to_have_text(TEXT[lang]["busted"])
    expect(page.get_by_test_id(f"sit-{seat}")).to_have_count(0)
    assert len(card_ids(mine)) == 2
    assert mine.get_attribute("data-pos") == "0"
    expect(page.get_by_test_id("result")).to_contain_text("whale")

    # why nothing is dealt: one player ready, two needed (never "Dealing…")
    status = page.get_by_test_id("status")
    expect(status).to_have_text(TEXT[lang]["too_few"])
    expect(status).to_have_attribute("data-why", "too_few")
    settle(page)
    assert felt_overlaps(page) == []  # the line wraps between the seats, clear of the whale

    # the rebuy: at most what the wallet holds (9,990 after the 10 lost), not the room's 1,000,000
    panel = page.get_by_test_id("rebuy-panel")
    expect(page.get_by_test_id("rebuy-text")).to_have_text(TEXT[lang]["rebuy"])
    expect(page.get_by_test_id("rebuy-amount")).to_have_attribute("max", "9990")
    screenshot(page, shots, f"{size}-{lang}-busted")

    # the same in the other language
    page.get_by_test_id("lang-switch").click()
    other = _other(lang)
    expect(page.get_by_test_id("status")).to_have_text(TEXT[other]["too_few"])
    expect(page.get_by_test_id(f"gone-{seat}")).to_have_text(TEXT[other]["busted"])
    expect(page.get_by_test_id("rebuy-text")).to_have_text(TEXT[other]["rebuy"])
    page.get_by_test_id("lang-switch").click()

    # a reload changes none of it: the seat as it ended, why nothing is dealt, the rebuy
    page.reload()
    expect(page.get_by_test_id(f"seat-{seat}")).to_have_attribute("data-gone", "busted")
    expect(page.get_by_test_id(f"seat-name-{seat}")).to_have_text("rory")
    expect(page.get_by_test_id("status")).to_have_text(TEXT[lang]["too_few"])
    expect(page.get_by_test_id("rebuy-text")).to_have_text(TEXT[lang]["rebuy"])

    # a wallet holding less than the table's minimum: said plainly, and no Rebuy button
    page.evaluate("() => { const app = window.cardroom; app.store.wallet = 5; app.render(); }")
    expect(page.get_by_test_id("rebuy-text")).to_have_text(TEXT[lang]["short"])
    expect(panel.get_by_test_id("rebuy")).to_have_count(0)
    screenshot(page, shots, f"{size}-{lang}-wallet-short")
    page.evaluate("() => { const app = window.cardroom; app.store.wallet = 9990; app.render(); }")

    # a rebuy sits the player down again and the next hand is dealt: no seat drawn as gone
    page.get_by_test_id("rebuy-amount").fill("20")
    page.get_by_test_id("rebuy").click()
    expect(t).not_to_have_attribute("data-your-seat", "")
    expect(t).to_have_attribute("data-playing", "1")
    expect(page.locator("[data-gone]")).to_have_count(0)
    expect(page.get_by_test_id("wallet")).to_have_text("9,970")


@pytest.mark.parametrize("size, lang", CASES)
def test_sitting_out_during_a_hand_folds_at_once_and_the_table_says_why_it_waits(new_page, shots, size, lang):
    page = new_page(SIZES[size], locale=LOCALES[lang])
    enter(page, "sid")
    create_table(page, "holdem", seats=2, bots=1, bot_delay_seconds=0.3, action_seconds=120,
                 between_hands_seconds=1)
    t = table(page)
    expect(page.get_by_test_id("my-turn")).to_be_visible()
    hand = t.get_attribute("data-hand")
    page.get_by_test_id("sit-out").click()
    # the server plays the check or fold of my turns at once: the hand ends long before
    # my 120 s clock would have (the bot plays its turns)
    expect(t).to_have_attribute("data-playing", "0")
    assert t.get_attribute("data-hand") == hand
    expect(page.get_by_test_id("sit-in")).to_be_visible()
    # no hand can start (the bot never plays alone): the table says why, not "Dealing…"
    status = page.get_by_test_id("status")
    expect(status).to_have_text(TEXT[lang]["sitting_out"])
    expect(status).to_have_attribute("data-why", "sitting_out")
    assert status.get_attribute("data-until") is None  # no countdown that would end in "Dealing…"
    screenshot(page, shots, f"{size}-{lang}-sitting-out")
    page.get_by_test_id("lang-switch").click()
    expect(page.get_by_test_id("status")).to_have_text(TEXT[_other(lang)]["sitting_out"])
    page.get_by_test_id("lang-switch").click()

    page.get_by_test_id("sit-in").click()
    expect(t).to_have_attribute("data-playing", "1")
    expect(t).not_to_have_attribute("data-hand", hand)
