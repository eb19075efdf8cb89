"""The operator console (issue #26, part 3) in a real browser, against a server run with
``--admin-token`` that also takes the club's sign-in tokens: a member signs in with a
token issued here, plays, chats, is muted by the operator and cannot talk; the operator
closes the table from the console during the hand (both players see their chips back in
their wallet once it is over), and bans the member, whose page says so; the audit log
lists every act."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator

import jwt
import pytest

from .conftest import Server, discard, running_server
from .ui import SIZES, create_table, enter, expect, join_from_lobby, screenshot, table

pytestmark = pytest.mark.browser

TOKEN = "console-token-0123456789abcdef"
SECRET = "console-club-secret-0123456789abcdef0123"
CLOSED = re.compile(r"The operator closed this table: ([\d,]+) chips went back to your wallet\.")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with running_server(tmp_path_factory.mktemp("console-server"), "--admin-token", TOKEN,
                        "--auth-jwt-secret", SECRET) as srv:
        yield srv


def console(new_page, server: Server, prompts: list[str]):
    """The console in a page, signed in; each prompt it asks gets the next of ``prompts``."""
    page = new_page(SIZES["desktop"])
    discard(page)
    page.on("dialog", lambda dialog: dialog.accept(prompts.pop(0) if prompts else ""))
    page.goto(server.url + "admin/console")
    page.get_by_test_id("console-token").fill(TOKEN)
    page.get_by_test_id("console-enter").click()
    expect(page.get_by_test_id("console-status")).to_have_text("ready")
    return page


def test_the_operator_mutes_closes_a_table_and_bans_from_the_console(new_page, server, shots):
    pat = new_page(SIZES["desktop"])
    discard(pat)
    enter(pat, "pat")
    room = create_table(pat, "holdem", seats=3, bots=1, first_hand_players=3, action_seconds=3,
                        bot_delay_seconds=0.2, between_hands_seconds=30)
    quin = new_page(SIZES["desktop"])
    discard(quin)
    now = int(time.time())
    token = jwt.encode({"sub": "member-7", "name": "quin", "iat": now, "exp": now + 300}, SECRET, algorithm="HS256")
    quin.goto("about:blank")
    quin.goto(f"{server.url}#token={token}")  # the club's link: a signed-in member
    expect(quin.get_by_test_id("me-name")).to_have_text("quin")
    join_from_lobby(quin, room, 2)
    expect(quin.get_by_test_id("wallet")).to_have_text("9,000")
    expect(table(quin)).to_have_attribute("data-playing", "1")  # three at the table: a hand is dealt
    quin.get_by_test_id("chat-input").fill("good luck all")
    quin.get_by_test_id("chat-send").click()
    expect(pat.locator("[data-testid=chat-list] li").last).to_contain_text("quin: good luck all")

    prompts: list[str] = []
    ops = console(new_page, server, prompts)
    expect(ops.locator(f"[data-room={room}]")).to_be_visible()

    # mute quin: a line he tries is refused, and says why
    ops.get_by_test_id("console-search").fill("quin")
    ops.get_by_test_id("console-find").click()
    row = ops.locator("[data-testid=console-players] tr", has_text="quin")
    expect(row).to_have_count(1)
    prompts += ["30", "spam"]
    row.get_by_role("button", name="Mute", exact=True).click()
    expect(ops.get_by_test_id("console-status")).to_have_text("quin muted")
    quin.get_by_test_id("chat-input").fill("can anyone hear me")
    quin.get_by_test_id("chat-send").click()
    expect(quin.get_by_test_id("toast-error")).to_contain_text("muted you in chat")

    # close the table during its hand: once the hand is over, both players get their chips back
    prompts.append("broken table")
    ops.get_by_test_id(f"console-close-{room}").click()
    expect(ops.get_by_test_id("console-status")).to_have_text(f"{room} closes once its hand is over")
    for page in (pat, quin):
        note = page.get_by_test_id("toast").filter(has_text=CLOSED)
        expect(note).to_be_visible(timeout=30_000)
        back = int(CLOSED.search(note.inner_text()).group(1).replace(",", ""))
        expect(page.get_by_test_id("wallet")).to_have_text(f"{9_000 + back:,}")
    audit = ops.get_by_test_id("console-audit")
    expect(audit.locator("tr").first).to_contain_text("close_room")
    expect(audit).to_contain_text("broken table")
    screenshot(ops, shots, "desktop-console")

    # ban quin: his page says so, and stays out
    prompts.append("cheating")
    ops.locator("[data-testid=console-players] tr", has_text="quin").get_by_role("button", name="Ban", exact=True).click()
    expect(quin.get_by_test_id("banned")).to_be_visible()
    expect(quin.get_by_test_id("banned")).to_contain_text(re.compile("cheating"))
    quin.reload()
    expect(quin.get_by_test_id("banned")).to_be_visible()
    screenshot(quin, shots, "desktop-banned")
