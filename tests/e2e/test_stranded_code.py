"""A private room can be joined by typing its code (issue #28, item 10): the lobby's "Join
with a code" takes the code alone (the server finds its table: ``find_room``), the table's
number (shown beside the code at the table) with the code, or the invitation link, and
seats you; a wrong code or table is said in the form, in English and in Chinese."""

from __future__ import annotations

import re

import pytest

from .ui import SIZES, create_table, enter, expect, outside_viewport, screenshot, table

pytestmark = pytest.mark.browser

LOCALES = {"en": "en-US", "zh": "zh-CN"}
TEXT = {
    "en": {"title": "Join with a code", "bad": "Wrong code for table {room}: check the invitation.",
           "no_room": "There is no table r-00000000 on this server.",
           "unknown": "No open table has the code {code}: check the invitation.",
           "need_code": "Type the invitation code."},
    "zh": {"title": "用邀请码加入", "bad": "牌桌 {room} 的邀请码不对：请核对邀请。",
           "no_room": "这个服务器上没有牌桌 r-00000000。",
           "unknown": "没有开着的牌桌使用邀请码 {code}：请核对邀请。",
           "need_code": "请输入邀请码。"},
}


def _private_table(new_page) -> tuple[str, str, str]:
    """alice opens a private heads-up table: its room id, code and invitation link."""
    alice = new_page(SIZES["desktop"])
    enter(alice, "alice")
    room = create_table(alice, "holdem", seats=2, private=True, action_seconds=120)
    code = alice.get_by_test_id("invite-code").inner_text()
    expect(alice.get_by_test_id("invite-room")).to_have_text(room)  # said beside the code
    link = alice.get_by_test_id("invite").get_attribute("data-link") or ""
    return room, code, link


@pytest.mark.parametrize("size, lang", [("desktop", "en"), ("phone", "zh")])
def test_join_a_private_table_by_typing_its_code(new_page, shots, size, lang):
    room, code, _ = _private_table(new_page)
    bob = new_page(SIZES[size], locale=LOCALES[lang])
    enter(bob, "bob")
    form = bob.get_by_test_id("code-form")
    expect(form).to_contain_text(TEXT[lang]["title"])
    assert not outside_viewport(bob, "[data-testid=code-form] input, [data-testid=code-join]")
    error = bob.get_by_test_id("code-error")
    room_field, code_field, join = bob.get_by_test_id("code-room"), bob.get_by_test_id("code-input"), bob.get_by_test_id("code-join")

    # a code alone that names no table
    wrong = "ABCDEFGH" if code != "ABCDEFGH" else "HGFEDCBA"
    code_field.fill(wrong.lower())
    join.click()
    expect(error).to_have_text(TEXT[lang]["unknown"].format(code=wrong))
    expect(code_field).to_have_class(re.compile(r"\binvalid\b"))
    # a table without a code
    code_field.fill("")
    room_field.fill(room)
    join.click()
    expect(error).to_have_text(TEXT[lang]["need_code"])
    # a wrong code for the table: said in the form, the player stays in the lobby
    code_field.fill(wrong.lower())
    join.click()
    expect(error).to_have_text(TEXT[lang]["bad"].format(room=room))
    expect(code_field).to_have_class(re.compile(r"\binvalid\b"))
    expect(bob.get_by_test_id("lobby")).to_be_visible()
    screenshot(bob, shots, f"{size}-{lang}-wrong-code")
    # a table that does not exist
    room_field.fill("r-00000000")
    join.click()
    expect(error).to_have_text(TEXT[lang]["no_room"])
    expect(bob.get_by_test_id("toast-error")).to_have_count(0)  # said once, in the form

    # the right code alone (typed in lower case, with a space): seated at alice's table
    room_field.fill("")
    code_field.fill(f"{code[:4].lower()} {code[4:]}")
    expect(error).to_be_hidden()
    join.click()
    t = table(bob)
    expect(t).to_have_attribute("data-room", room)
    expect(t).to_have_attribute("data-your-seat", "1")
    expect(bob.get_by_test_id("seat-name-1")).to_have_text("bob")
    expect(bob.get_by_test_id("invite-code")).to_have_text(code)
    assert bob.evaluate("location.hash") == f"#/room/{room}/{code}"
    screenshot(bob, shots, f"{size}-{lang}-joined")


def test_join_with_the_invitation_link_pasted_and_watch_a_full_table(new_page, shots):
    room, code, link = _private_table(new_page)
    bob = new_page(SIZES["phone"])
    enter(bob, "bob")
    bob.get_by_test_id("code-room").fill(link)  # the whole link in the table field
    bob.get_by_test_id("code-join").click()
    expect(table(bob)).to_have_attribute("data-your-seat", "1")

    carol = new_page(SIZES["desktop"])
    enter(carol, "carol")
    carol.get_by_test_id("code-room").fill(f"{room.upper()} {code}")  # table (in capitals) and code in one field
    carol.get_by_test_id("code-join").click()
    # every seat is taken: carol watches the table instead
    expect(table(carol)).to_have_attribute("data-room", room)
    expect(carol.get_by_test_id("watching")).to_be_visible()
    screenshot(carol, shots, "desktop-watching-a-full-private-table")
