"""Tables that stay playable (issue #28, item 8).

- A table its player walked away from does not stay full: a player who sits out for the
  server's ``--sit-out-minutes`` (here 3 s) in a row is stood up, the page says why, the
  chips are back in the wallet, and the other players' lobby shows the seat free to take,
  where it used to say "Full · waiting" for good once the player had closed the browser
  (two turns timed out sit a seat out).
- A player alone at a table (a quick match on a quiet server) is told why nothing is
  dealt and can fill the free seats with bots ("Add a bot"), and the hand is dealt."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from .conftest import Server, running_server
from .ui import SIZES, create_table, enter, expect, join_from_lobby, screenshot, table

pytestmark = pytest.mark.browser

SIT_OUT_MINUTES = 0.05  # 3 s
LOCALES = {"en": "en-US", "zh": "zh-CN"}
CASES = [("desktop", "en"), ("phone", "zh"), ("laptop", "en")]
TEXT = {
    "en": {"toast": re.compile(r"^You sat out too long: your seat was freed and ([\d,]+) chips went back to your wallet\.$"),
           "line": "walt left the table (sat out too long)", "full": "Full", "seated": "1/2 seated",
           "needs": "Waiting for players: a hand needs at least 3 players ready", "add": "Add a bot"},
    "zh": {"toast": re.compile(r"^你暂离太久，座位已释放，([\d,]+) 筹码已退回钱包。$"),
           "line": "walt 离开了牌桌（暂离太久）", "full": "已满", "seated": "1/2 人",
           "needs": "等待玩家：一局至少需要 3 名玩家就绪", "add": "加一个机器人"},
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with running_server(tmp_path_factory.mktemp("sit-out-server"), "--sit-out-minutes", str(SIT_OUT_MINUTES)) as srv:
        yield srv


def _chips(text: str) -> int:
    return int(text.replace(",", ""))


@pytest.mark.parametrize("size, lang", CASES)
def test_a_seat_sat_out_too_long_is_freed_and_the_lobby_offers_it_again(new_page, shots, size, lang):
    page = new_page(SIZES[size], locale=LOCALES[lang])
    enter(page, "walt")
    room = create_table(page, "holdem", seats=2, bots=1, bot_delay_seconds=0.3, action_seconds=120,
                        between_hands_seconds=1)
    other = new_page(SIZES[size], locale=LOCALES[lang])
    enter(other, "lena")
    join = other.get_by_test_id(f"join-{room}")
    expect(join).to_have_text(TEXT[lang]["full"])  # walt and the bot
    expect(join).to_be_disabled()

    t = table(page)
    expect(t).to_have_attribute("data-playing", "1")
    page.get_by_test_id("sit-out").click()  # and walks away: his turns are folded at once
    expect(t).to_have_attribute("data-playing", "0")
    wallet = _chips(page.get_by_test_id("wallet").inner_text())  # the buy-in is out of it

    # three seconds later the server frees the seat and pays the stack back
    told = page.get_by_test_id("toast").filter(has_text=TEXT[lang]["toast"])
    expect(told).to_be_visible()
    returned = _chips(TEXT[lang]["toast"].match(told.inner_text()).group(1))
    assert returned > 0
    expect(page.get_by_test_id("wallet")).to_have_text(f"{wallet + returned:,}")
    expect(t).to_have_attribute("data-your-seat", "")  # watching now, not seated
    expect(page.get_by_test_id("history")).to_contain_text(TEXT[lang]["line"])
    screenshot(page, shots, f"{size}-{lang}-stood-up")

    # the other player's lobby offers the seat, and taking it deals a hand against the bot
    expect(other.get_by_test_id(f"room-{room}").get_by_test_id("room-players")).to_have_text(TEXT[lang]["seated"])
    expect(join).to_be_enabled()
    screenshot(other, shots, f"{size}-{lang}-lobby-seat-free")
    join_from_lobby(other, room, seat=0)
    expect(table(other)).to_have_attribute("data-playing", "1")


@pytest.mark.parametrize("size, lang", CASES)
def test_alone_after_a_quick_match_add_bots_and_the_hand_is_dealt(new_page, shots, size, lang):
    page = new_page(SIZES[size], locale=LOCALES[lang])
    enter(page, "quinn")
    page.get_by_test_id("quick-doudizhu").click()
    t = table(page)
    expect(t).to_have_attribute("data-your-seat", "0")  # a new table: nobody else plays Dou Dizhu here
    status = page.get_by_test_id("status")
    expect(status).to_have_attribute("data-why", "too_few")
    expect(status).to_contain_text(TEXT[lang]["needs"])
    add = page.get_by_test_id("add-bot")
    expect(add).to_have_text(TEXT[lang]["add"])
    screenshot(page, shots, f"{size}-{lang}-alone")
    add.click()
    bots = t.locator('[data-bot="1"]')
    expect(bots).to_have_count(1)
    expect(status).to_have_attribute("data-why", "too_few")  # two of three: one more
    add.click()
    expect(t).to_have_attribute("data-playing", "1")
    expect(add).to_have_count(0)
    expect(bots).to_have_count(2)
    names = [bots.nth(i).get_attribute("data-name") for i in range(2)]
    assert len(set(names)) == 2, names  # two bots, two names
    screenshot(page, shots, f"{size}-{lang}-bots-added")
