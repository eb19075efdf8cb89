"""A game installed as a plugin plays in the browser: examples/leduc, installed as
``pip install -e examples/leduc`` would leave it, on a server that hosts it. The page names
no game: the lobby's tile, words and create form come from the server's descriptor of the
game (``rooms.games``), the table from the plugin's own module, which the server serves at
``/games/leduc.js`` and the page loads by the game's name."""

from __future__ import annotations

import re
import urllib.request
from collections.abc import Iterator

import pytest

from tests.plugins import install_leduc

from .conftest import DESKTOP, PHONE, Server, running_server
from .ui import create_table, enter, expect, screenshot, table

#: Leduc's six cards (J♥ J♠ Q♥ Q♠ K♥ K♠) as the page draws them (cards.js ids)
PAGE_CARDS = {38, 39, 42, 43, 46, 47}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    pythonpath = install_leduc(tmp_path_factory.mktemp("leduc-site"))
    with running_server(tmp_path_factory.mktemp("leduc-data"), env={"PYTHONPATH": pythonpath}) as srv:
        yield srv


def test_the_server_serves_the_plugin_table_and_nothing_beside_it(server):
    with urllib.request.urlopen(server.url + "games/leduc.js", timeout=10) as r:
        assert r.headers["Content-Type"].startswith("text/javascript")
        assert b"export default" in r.read()
    with urllib.request.urlopen(server.url + "games/holdem.js", timeout=10) as r:  # the page's own
        assert b"export default" in r.read()
    for path in ("games/leduc/../../server/config.py", "games/leduc/rules.py", "games/leduc.py", "games/nothing.js"):
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(server.url + path, timeout=10)
        assert refused.value.code == 404, path


def test_the_lobby_shows_the_plugin_game_in_its_own_words(new_page, shots):
    page = new_page(DESKTOP)
    enter(page, "lea")
    tile = page.get_by_test_id("game-leduc")
    expect(tile).to_contain_text("Leduc Hold'em")
    expect(tile).to_contain_text("two fixed-limit rounds")
    expect(tile.locator(".game-icon")).to_have_text("♤")
    # each game's tile takes its colours from the stylesheet its table module links
    # (leduc.css, served from the plugin's package; the page's own games/zhajinhua.css)
    expect(tile).to_have_css("background-image", re.compile(r"rgb\(91, 58, 138\)"))
    expect(page.get_by_test_id("game-zhajinhua")).to_have_css("background-image", re.compile(r"rgb\(122, 34, 48\)"))
    page.get_by_test_id("create-leduc").click()
    form = page.get_by_test_id("create-form")
    expect(form).to_have_attribute("data-game", "leduc")
    expect(form.get_by_test_id("opt-ante")).to_be_visible()  # the game's main option, up front
    expect(form.get_by_test_id("opt-big_bet")).to_be_hidden()  # the rest under "more rules"
    form.locator("details.more > summary").click()
    expect(form.locator("label[for]", has_text="Second-round bet")).to_be_visible()
    screenshot(page, shots, "desktop-create")

    zh = new_page(PHONE, locale="zh-CN")
    enter(zh, "小李")
    expect(zh.get_by_test_id("game-leduc")).to_contain_text("Leduc 扑克")
    screenshot(zh, shots, "phone-zh-lobby")


def test_a_hand_against_the_bot_plays_out_and_verifies(new_page, shots):
    page = new_page(DESKTOP)
    enter(page, "leo")
    create_table(page, "leduc", bots=1, bot_delay_seconds=0.2, action_seconds=120, between_hands_seconds=30)
    t = table(page)
    expect(t).to_have_attribute("data-game", "leduc")
    expect(t).to_have_attribute("data-playing", "1")
    mine = page.get_by_test_id("my-hole").locator("[data-card]")
    expect(mine).to_have_count(1)
    assert int(mine.get_attribute("data-card") or "0") in PAGE_CARDS
    expect(page.get_by_test_id("history")).to_contain_text("Your card:")
    expect(page.get_by_test_id("history")).to_contain_text("antes 1")
    screenshot(page, shots, "desktop-dealt")

    # play it out calmly: check or call whenever it is our turn (the bot may fold first)
    for _ in range(8):
        if t.get_attribute("data-over") == "1":
            break
        turn = page.get_by_test_id("my-turn")
        try:
            turn.wait_for(state="visible", timeout=5000)
        except Exception:  # the bot's turn, or the hand ended
            continue
        try:  # (the table may redraw between finding the button and the click: try again)
            turn.locator("[data-testid=act-check], [data-testid=act-call]").first.click(timeout=5000)
        except Exception:
            continue
    expect(t).to_have_attribute("data-over", "1", timeout=30000)
    result = page.get_by_test_id("result")
    expect(result).to_contain_text(re.compile(r"wins|Split pot"))
    screenshot(page, shots, "desktop-over")

    page.get_by_test_id("verify").click()
    verdict = page.get_by_test_id("verify-result")
    expect(verdict).to_have_attribute("data-ok", "1")  # the page's check uses the plugin's dealing rule
    expect(verdict).to_contain_text("✔ Verified:")


def test_a_failed_fair_deal_check_names_the_plugins_own_cards(new_page):
    """The page's checker names a plugin's cards as the plugin does (its module's
    ``fair.cardText``), not as the page's 52-card deck would: Leduc's card 5 is K♠, not
    a 2 of some suit."""
    page = new_page(DESKTOP)
    got = page.evaluate("""async () => {
      await (await import('/games.js')).loadGame('leduc');
      const f = await import('/fairness.js');
      const seed = '11'.repeat(32);
      const fairness = {scheme: f.SCHEME, commitment: await f.commitment(seed), deck_size: 6, deal_order: [0, 1],
                        seeds: [{seat: 0, seed: ''}, {seat: 1, seed: ''}]};
      const deck = await f.deriveDeck(seed, 'r-x', 1, ['', ''], 6);
      const lay = await f.layout('leduc', deck, [0, 1]);
      const check = (cards) => f.verifyHand({game: 'leduc', room: 'r-x', handNo: 1, fairness,
                                             reveal: {server_seed: seed}, seen: [{seat: 0, cards, kind: 'dealt'}]});
      const wrong = lay.hands[1][0];  // the other seat's card
      return {good: await check(lay.hands[0]), bad: await check([wrong]), wrong};
    }""")
    assert got["good"]["ok"] is True, got
    wrong = got["wrong"]
    name = "JQK"[wrong // 2] + ("♠" if wrong % 2 else "♥")
    assert got["bad"] == {"ok": False, "reason": f"seat 0 was dealt {name}, which the deck does not deal to "
                                                 f"seat 0: the deck gives it to seat 1"}, got
