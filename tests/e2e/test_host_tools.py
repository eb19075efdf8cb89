"""The tools of the player who made a table (issue #26, part 3, the creator's share): lock
the table, so nobody new sits down (the lobby says *Locked*), and remove a seat between
hands, its chips back in its player's wallet, who is told so."""

from __future__ import annotations

import re

import pytest

from .conftest import discard
from .ui import SIZES, create_table, enter, expect, join_from_lobby, screenshot, table

pytestmark = pytest.mark.browser


def test_the_host_locks_the_table_and_removes_a_seat(new_page, shots):
    host = new_page(SIZES["desktop"])
    discard(host)
    enter(host, "hosta")
    room = create_table(host, "holdem", seats=3, first_hand_players=3, action_seconds=120)
    guest = new_page(SIZES["desktop"], locale="zh-CN")
    discard(guest)
    enter(guest, "guest")
    join_from_lobby(guest, room, 1)
    expect(guest.get_by_test_id("host-tools")).to_have_count(0)  # only the table's maker has them
    expect(guest.get_by_test_id("wallet")).to_have_text("9,000")

    tools = host.get_by_test_id("host-tools")
    expect(tools).to_be_visible()
    host.get_by_test_id("lock-room").click()
    expect(host.get_by_test_id("lock-room")).to_have_text("Open the table again")
    expect(host.get_by_test_id("table-locked")).to_have_text("· 🔒 locked")
    expect(guest.get_by_test_id("table-locked")).to_have_text("· 🔒 已锁定")
    late = new_page(SIZES["desktop"])
    discard(late)
    enter(late, "late")
    expect(late.get_by_test_id(f"join-{room}")).to_have_text("Locked")
    expect(late.get_by_test_id(f"join-{room}")).to_be_disabled()

    host.once("dialog", lambda dialog: dialog.accept())
    host.get_by_test_id("remove-seat-1").click()
    expect(host.get_by_test_id("seat-1")).to_have_class(re.compile(r"\bempty\b"))
    expect(guest.get_by_test_id("toast").filter(has_text="开桌的玩家请你离座了：1,000 筹码已退回钱包。")).to_be_visible()
    expect(guest.get_by_test_id("wallet")).to_have_text("10,000")
    expect(table(guest)).to_have_attribute("data-your-seat", "")
    expect(host.locator(".history-list li").last).to_have_text(
        "guest left the table (removed by the player who made it)")
    screenshot(host, shots, "desktop-host-tools")

    host.get_by_test_id("lock-room").click()
    expect(late.get_by_test_id(f"join-{room}")).to_have_text("Join")
    expect(late.get_by_test_id(f"join-{room}")).to_be_enabled()
