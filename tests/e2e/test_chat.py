"""The table chat in the browser (issue #26, part 2): players talk, quick phrases and emotes
in either language, muting someone for yourself, spectators who read but may not talk
(unless the room lets them), and on a phone, where the side panel is closed, a line
arrives as a message over the table."""

from __future__ import annotations

import pytest

from .conftest import discard
from .ui import SIZES, create_table, enter, expect, join_from_lobby, screenshot, table

pytestmark = pytest.mark.browser


def chat_texts(page) -> list[str]:
    return [t.strip() for t in page.locator("[data-testid=chat-list] li .chat-text").all_inner_texts()]


def say(page, text: str) -> None:
    page.get_by_test_id("chat-input").fill(text)
    page.get_by_test_id("chat-send").click()
    expect(page.get_by_test_id("chat-input")).to_have_value("")


def test_players_talk_mute_each_other_and_spectators_read(new_page, shots):
    ann = new_page(SIZES["desktop"])
    discard(ann)
    enter(ann, "ann")
    room = create_table(ann, "holdem", seats=3, bots=1, bot_delay_seconds=0.3, action_seconds=120,
                        between_hands_seconds=1)
    ben = new_page(SIZES["desktop"], locale="zh-CN")
    discard(ben)
    enter(ben, "ben")
    join_from_lobby(ben, room, 2)

    say(ann, "hello   there")
    expect(ben.locator("[data-testid=chat-list] li").last).to_contain_text("ann: hello there")
    ben.get_by_test_id("chat-phrase-hurry").click()  # in Chinese on ben's page
    expect(ann.locator("[data-testid=chat-list] li").last).to_contain_text("ben: 快点吧，我等得花儿都谢了！")
    ben.get_by_test_id("chat-emote").nth(4).click()
    expect(ann.locator("[data-testid=chat-list] li").last).to_contain_text("🎉")

    # a line being typed survives the table being drawn again (every change draws it)
    ann.get_by_test_id("chat-input").fill("half a thou")
    version = table(ann).get_attribute("data-version")
    say(ben, "second line")
    expect(table(ann)).not_to_have_attribute("data-version", version)
    expect(ann.locator("[data-testid=chat-list] li").last).to_contain_text("ben: second line")
    expect(ann.get_by_test_id("chat-input")).to_have_value("half a thou")
    expect(ann.get_by_test_id("chat-input")).to_be_focused()
    ann.get_by_test_id("chat-input").fill("")

    # ann mutes ben: his lines go, and what he says next does not show (only for ann)
    player = ann.locator("[data-testid=chat-list] li", has_text="ben:").first.get_attribute("data-player")
    ann.get_by_test_id(f"chat-mute-{player}").first.click()
    expect(ann.locator("[data-testid=chat-list] li", has_text="ben:")).to_have_count(0)
    say(ben, "can you hear me?")
    expect(ben.locator("[data-testid=chat-list] li").last).to_contain_text("can you hear me?")
    ann.wait_for_timeout(500)
    assert "can you hear me?" not in chat_texts(ann)
    screenshot(ann, shots, "desktop-muted")
    ann.get_by_test_id("chat-unmute-all").click()
    expect(ann.locator("[data-testid=chat-list] li").last).to_contain_text("can you hear me?")

    # a spectator reads, and may not talk in this room
    spy = new_page(SIZES["desktop"])
    discard(spy)
    enter(spy, "spy")
    spy.goto(f"{spy.url.split('#')[0]}#/room/{room}")
    expect(table(spy)).to_be_visible()
    expect(spy.get_by_test_id("chat-closed")).to_be_visible()
    expect(spy.get_by_test_id("chat-input")).to_have_count(0)
    assert "hello there" in chat_texts(spy)  # the room's last lines came with its snapshot
    screenshot(spy, shots, "desktop-spectator")


def test_on_a_phone_a_line_comes_over_the_table_and_spectators_talk_where_allowed(new_page, shots):
    host = new_page(SIZES["desktop"])
    discard(host)
    enter(host, "host")
    room = create_table(host, "zhajinhua", seats=3, bots=1, bot_delay_seconds=0.3, action_seconds=120,
                        between_hands_seconds=1, spectator_chat=True)
    phone = new_page(SIZES["phone"])
    discard(phone)
    enter(phone, "fan")
    phone.goto(f"{phone.url.split('#')[0]}#/room/{room}")
    expect(table(phone)).to_be_visible()
    say(host, "welcome, fan")
    expect(phone.get_by_test_id("toast").filter(has_text="host: welcome, fan")).to_be_visible()
    expect(phone.get_by_test_id("chat-unread")).to_have_text("· 1 new in chat")  # on the folded panel
    say(host, "still there?")
    expect(phone.get_by_test_id("chat-unread")).to_have_text("· 2 new in chat")
    screenshot(phone, shots, "phone-chat-toast")
    phone.get_by_test_id("history-toggle").click()
    expect(phone.get_by_test_id("chat-unread")).to_have_count(0)  # read
    expect(phone.get_by_test_id("chat-input")).to_be_visible()  # this room lets spectators talk
    say(phone, "thanks!")
    expect(host.locator("[data-testid=chat-list] li").last).to_contain_text("fan: thanks!")
    screenshot(phone, shots, "phone-chat-open")
