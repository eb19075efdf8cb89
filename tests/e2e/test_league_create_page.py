"""Making and filling a league from the browser (docs/league.md, "The league page"), in a
real Chromium against the real test server.

On ``#/leagues``, **New league** opens a form that sends ``league_create`` (name, game,
deals and seats per match, duplicate deals, a Hold'em sit-and-go) and goes to the new
league's page; there its owner adds built-in bots (``league_enter`` with a ``strategy``)
and runs a round, which the page follows until the match is over. Refusals
(``league_exists``, ``bad_league``, ``entrant_taken``) are shown in the form in the page's
language and change nothing. Also in Chinese, and at phone size with nothing sticking out
sideways.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from .test_league_page import _EN_LABELS
from .test_league_protocol_page import POLL_S, ZH, untranslated
from .ui import SIZES, enter, expect, screenshot

pytestmark = pytest.mark.browser

# Every box inside the league screen (the form, the owner's controls, the hint) and the
# page's own width: nothing may stick out sideways.
_SIDEWAYS = """() => {
  const width = document.documentElement.clientWidth;
  const bad = [];
  for (const el of document.querySelectorAll('.league-screen, .league-screen *')) {
    const r = el.getBoundingClientRect();
    if (!r.width || !r.height) continue;
    if (r.left < -0.5 || r.right > width + 0.5)
      bad.push(`${el.dataset.testid || el.tagName} ${JSON.stringify(el.textContent.trim().slice(0, 30))}: ${r.left.toFixed(0)}..${r.right.toFixed(0)}`);
  }
  if (document.documentElement.scrollWidth > width) bad.push(`the page scrolls sideways: ${document.documentElement.scrollWidth} > ${width}`);
  return bad;
}"""


def sideways(page: Any) -> list[str]:
    return page.evaluate(_SIDEWAYS)


# The visible texts inside ``selector`` (commands in <code> aside).
_TEXTS_IN = """(sel) => {
  const out = [];
  for (const root of document.querySelectorAll(sel)) {
    const walk = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let n = walk.nextNode(); n; n = walk.nextNode()) {
      const text = n.textContent.trim();
      if (text && !n.parentElement.closest('code') && n.parentElement.getClientRects().length) out.push(text);
    }
  }
  return out;
}"""


def english_in(page: Any, selector: str, names: set[str] = frozenset()) -> list[str]:
    """Texts inside ``selector`` that are an English label or hold English words (``names`` aside)."""
    labels = set(page.evaluate(_EN_LABELS))
    bad = []
    for text in page.evaluate(_TEXTS_IN, selector):
        rest = text
        for name in sorted(names, key=len, reverse=True):
            rest = rest.replace(name, " ")
        if text in labels or re.search(r"[A-Za-z]{2,}", rest):
            bad.append(text)
    return bad


def open_form(page: Any) -> Any:
    """From the lobby: Leagues, then New league; the form."""
    page.get_by_test_id("open-leagues").click()
    expect(page.get_by_test_id("leagues-page")).to_be_visible()
    page.get_by_test_id("league-new").click()
    form = page.get_by_test_id("league-new-form")
    expect(form).to_be_visible()
    expect(form.get_by_test_id("league-new-name")).to_be_focused()
    return form


def create(form: Any, name: str, game: str | None = None, deals: int | None = None) -> None:
    """Fill the name (and the game, the deals) and submit."""
    if game is not None:
        form.get_by_test_id("league-new-game").select_option(game)
    form.get_by_test_id("league-new-name").fill(name)
    if deals is not None:
        form.get_by_test_id("league-new-hands").fill(str(deals))
    form.get_by_test_id("league-new-submit").click()


def add_builtin(page: Any, strategy: str, name: str | None = None) -> None:
    page.get_by_test_id("league-add-strategy").select_option(strategy)
    page.get_by_test_id("league-add-name").fill(name or "")
    page.get_by_test_id("league-add").click()


def rows_named(page: Any, name: str) -> int:
    """How many rows of the list of leagues are the league ``name``."""
    return page.locator(f".league-list .league-row[data-league='{name}']").count()


def test_make_a_league_add_built_ins_and_run_a_round(new_page, shots: Path) -> None:
    """New league (Hold'em, 3 deals) → its page; smart and random added → listed with their
    labels; a taken name refused; Run a round → the run shows, then the finished match."""
    page = new_page(SIZES["desktop"])
    enter(page, "Host")
    form = open_form(page)
    # the defaults: the first game, 100 deals, its fewest players, duplicate deals
    expect(form.get_by_test_id("league-new-game")).to_have_value("holdem")
    expect(form.get_by_test_id("league-new-game").locator("option")).to_have_text(
        ["Texas Hold'em", "Zha Jin Hua", "Dou Dizhu"])
    expect(form.get_by_test_id("league-new-hands")).to_have_value("100")
    expect(form.get_by_test_id("league-new-seats")).to_have_value("2")
    expect(form.get_by_test_id("league-new-seats")).to_have_attribute("max", "10")
    expect(form.get_by_test_id("league-new-duplicate")).to_be_checked()
    expect(form.get_by_test_id("league-new-sng")).not_to_be_checked()
    expect(form.get_by_test_id("league-new-level")).to_have_count(0)
    # a sit-and-go is for Hold'em: its hands per blind level (10) once ticked
    form.get_by_test_id("league-new-sng").check()
    expect(form.get_by_test_id("league-new-level")).to_have_value("10")
    form.get_by_test_id("league-new-name").fill("frie")  # what was typed survives the game's changes
    form.get_by_test_id("league-new-game").select_option("doudizhu")
    expect(form.get_by_test_id("league-new-seats")).to_have_value("3")
    expect(form.get_by_test_id("league-new-sng")).to_have_count(0)
    expect(form.get_by_test_id("league-new-level")).to_have_count(0)
    form.get_by_test_id("league-new-game").select_option("zhajinhua")
    expect(form.get_by_test_id("league-new-seats")).to_have_value("2")
    form.get_by_test_id("league-new-game").select_option("holdem")
    expect(form.get_by_test_id("league-new-sng")).not_to_be_checked()
    expect(form.get_by_test_id("league-new-name")).to_have_value("frie")
    screenshot(page, shots, "desktop-form")

    create(form, "friends", deals=3)
    league = page.get_by_test_id("league-page")
    expect(league).to_have_attribute("data-league", "friends")
    assert page.evaluate("location.hash") == "#/league/friends"
    expect(league.locator(".league-title .muted")).to_contain_text(
        re.compile(r"Texas Hold'em · 3 deals per match · 2 seats · duplicate deals"))
    expect(page.get_by_test_id("league-run")).to_be_visible()
    # the game's built-ins, from what the server offers
    strategy = page.get_by_test_id("league-add-strategy")
    expect(strategy.locator("option")).to_have_text(["smart", "random", "calling station"])
    assert strategy.locator("option").evaluate_all("els => els.map(e => e.value)") == ["smart", "random", "calling_station"]
    # not an entrant: how a bot enters itself, in one muted line
    hint = page.get_by_test_id("league-enter-hint")
    expect(hint).to_contain_text("python -m client_demo.sdk.entrant --game holdem --strategy smart --league friends")
    expect(hint).to_contain_text("play_league")

    add_builtin(page, "smart")
    expect(page.get_by_test_id("entrant-smart")).to_have_text("smart built-in: smart")
    add_builtin(page, "random", "Rando")
    expect(page.get_by_test_id("entrant-Rando")).to_have_text("Rando built-in: random")
    expect(page.get_by_test_id("league-add-name")).to_have_value("")
    screenshot(page, shots, "desktop-built-ins")  # docs/img/league-new.png
    # a name already taken: refused in the form, the entrants unchanged
    add_builtin(page, "calling_station", "smart")
    error = page.get_by_test_id("league-add-error")
    expect(error).to_have_attribute("data-code", "entrant_taken")
    expect(error).to_contain_text("The league has an entrant of this name already")
    expect(page.get_by_test_id("league-add-name")).to_have_class(re.compile(r"\binvalid\b"))
    expect(page.get_by_test_id("league-entrants").locator("li")).to_have_count(2)
    page.get_by_test_id("league-refresh").click()  # and so says the server
    expect(page.get_by_test_id("league-entrants").locator("li")).to_have_count(2)
    expect(page.get_by_test_id("entrant-smart")).to_have_text("smart built-in: smart")
    assert sideways(page) == [], sideways(page)
    screenshot(page, shots, "desktop-entrants")

    page.get_by_test_id("league-run").click()
    expect(page.get_by_test_id("league-run-status")).to_contain_text("Running: round 1 of 1")
    expect(page.get_by_test_id("league-page")).to_have_attribute("data-polling", "1")
    # the page asks again by itself until the match is over
    expect(page.get_by_test_id("league-run-status")).to_have_count(0, timeout=(POLL_S + 40) * 1000)
    expect(page.get_by_test_id("league-standings").locator("tbody tr")).to_have_count(2)
    expect(page.get_by_test_id("standing-smart")).to_contain_text("built-in: smart")
    expect(page.get_by_test_id("standing-Rando")).to_contain_text("built-in: random")
    expect(page.get_by_test_id("league-matches").locator(".match-row[data-status=done]")).to_have_count(1)
    expect(page.get_by_test_id("league-page")).to_have_attribute("data-polling", "0")
    expect(page.get_by_test_id("league-run")).to_be_enabled()
    screenshot(page, shots, "desktop-over")

    # the same name again: refused, still one "friends" in the list
    page.get_by_test_id("league-back").click()
    expect(page.get_by_test_id("league-friends")).to_be_visible()
    page.get_by_test_id("league-new").click()
    form = page.get_by_test_id("league-new-form")
    create(form, "friends", deals=3)
    error = form.get_by_test_id("league-new-error")
    expect(error).to_have_attribute("data-code", "league_exists")
    expect(error).to_contain_text("A league of this name exists already")
    expect(form.get_by_test_id("league-new-name")).to_have_class(re.compile(r"\binvalid\b"))
    expect(page.get_by_test_id("leagues-page")).to_be_visible()
    page.get_by_test_id("league-refresh").click()
    expect(page.get_by_test_id("league-friends")).to_be_visible()
    assert rows_named(page, "friends") == 1
    expect(form.get_by_test_id("league-new-name")).to_have_value("friends")  # the form kept through the refresh


def test_refusals_in_the_form_change_nothing(new_page, shots: Path) -> None:
    """A bad name (the server's reason under the title), the page's own checks, a name
    taken by another player's league, a built-in's name taken twice; nothing is made."""
    owner = new_page(SIZES["desktop"])
    enter(owner, "Rival")
    form = open_form(owner)
    create(form, "rivals", deals=5)
    expect(owner.get_by_test_id("league-page")).to_have_attribute("data-league", "rivals")

    other = new_page(SIZES["desktop"])
    enter(other, "Other")
    form = open_form(other)
    create(form, "bad name!", deals=5)
    error = form.get_by_test_id("league-new-error")
    expect(error).to_have_attribute("data-code", "bad_league")
    expect(error.locator("b")).to_have_text("Check the league's settings")
    expect(error).to_contain_text("a league name is 1-64 letters, digits")
    # what the page tells at once, in its own words
    create(form, "   ")
    expect(error).to_contain_text("Name the league: 1 to 64 letters")
    expect(form.get_by_test_id("league-new-name")).to_have_class(re.compile(r"\binvalid\b"))
    create(form, "ok-name", deals=5000)
    expect(error).to_contain_text("Deals per match: a whole number from 1 to 1,000")
    expect(form.get_by_test_id("league-new-hands")).to_have_class(re.compile(r"\binvalid\b"))
    form.get_by_test_id("league-new-hands").fill("5")
    form.get_by_test_id("league-new-seats").fill("11")
    form.get_by_test_id("league-new-submit").click()
    expect(error).to_contain_text("Seats per match: 2 to 10 for this game")
    form.get_by_test_id("league-new-seats").fill("2")
    # another player's league of this name
    create(form, "rivals")
    expect(error).to_have_attribute("data-code", "league_exists")
    expect(error).to_contain_text("A league of this name exists already")
    screenshot(other, shots, "desktop-league-exists")
    other.get_by_test_id("league-refresh").click()
    expect(other.get_by_test_id("league-rivals")).to_be_visible()
    assert rows_named(other, "rivals") == 1
    for made in ("bad name!", "ok-name"):
        assert rows_named(other, made) == 0
    # the league's page for someone else: no owner's controls, the hint
    other.get_by_test_id("league-rivals").click()
    expect(other.get_by_test_id("league-page")).to_have_attribute("data-league", "rivals")
    expect(other.get_by_test_id("league-enter-hint")).to_be_visible()
    expect(other.get_by_test_id("league-add-form")).to_have_count(0)
    expect(other.get_by_test_id("league-run")).to_have_count(0)

    # the owner: a built-in's name taken
    add_builtin(owner, "smart")
    expect(owner.get_by_test_id("entrant-smart")).to_have_text("smart built-in: smart")
    add_builtin(owner, "random", "  smart ")
    error = owner.get_by_test_id("league-add-error")
    expect(error).to_have_attribute("data-code", "entrant_taken")
    expect(owner.get_by_test_id("league-entrants").locator("li")).to_have_count(1)
    # the error goes once an entrant is added
    add_builtin(owner, "random")
    expect(owner.get_by_test_id("entrant-random")).to_have_text("random built-in: random")
    expect(error).to_have_count(0)
    other.get_by_test_id("league-refresh").click()
    expect(other.get_by_test_id("league-entrants").locator("li")).to_have_count(2)


def test_the_form_and_the_owners_page_in_chinese_on_a_phone(new_page, shots: Path) -> None:
    """Chinese at 390×844: the form's words, a Dou Dizhu league (3 seats, its two
    built-ins), refusals in Chinese; no English left (names and commands aside) and
    nothing sticking out sideways."""
    page = new_page(SIZES["phone"], locale="zh-CN", init_script=ZH)
    enter(page, "房主")
    expect(page.get_by_test_id("open-leagues")).to_have_text("联赛")
    page.get_by_test_id("open-leagues").click()
    expect(page.get_by_test_id("league-new")).to_have_text("新建联赛")
    page.get_by_test_id("league-new").click()
    form = page.get_by_test_id("league-new-form")
    expect(form.locator("label")).to_have_text(["名称", "游戏", "每场手数", "每场人数", "复式发牌", "坐满即玩"])
    expect(form.get_by_test_id("league-new-game").locator("option")).to_have_text(["德州扑克", "炸金花", "斗地主"])
    form.get_by_test_id("league-new-sng").check()
    expect(form.locator("label")).to_have_text(["名称", "游戏", "每场手数", "每场人数", "复式发牌", "坐满即玩", "每级盲注手数"])
    expect(form.get_by_test_id("league-new-submit")).to_have_text("创建联赛")
    assert english_in(page, ".league-bar, .league-new") == [], english_in(page, ".league-bar, .league-new")
    assert sideways(page) == [], sideways(page)
    screenshot(page, shots, "phone-zh-form")

    # a bad name: the title in Chinese, the server's reason as it gave it
    create(form, "坏 名字", deals=3)
    error = form.get_by_test_id("league-new-error")
    expect(error).to_have_attribute("data-code", "bad_league")
    expect(error.locator("b")).to_have_text("联赛设置有误")
    assert sideways(page) == [], sideways(page)

    name = "friends-zh"
    create(form, name, game="doudizhu", deals=3)
    league = page.get_by_test_id("league-page")
    expect(league).to_have_attribute("data-league", name)
    expect(league.locator(".league-title .muted")).to_contain_text("斗地主 · 每场 3 手 · 每桌 3 人 · 复式发牌")
    strategy = page.get_by_test_id("league-add-strategy")
    assert strategy.locator("option").evaluate_all("els => els.map(e => e.value)") == ["smart", "random"]
    expect(strategy.locator("option")).to_have_text(["聪明", "随机"])
    expect(page.get_by_test_id("league-add")).to_have_text("加入内置机器人")
    expect(page.get_by_test_id("league-add-name")).to_have_attribute("placeholder", "名字（可选）")
    expect(page.get_by_test_id("league-enter-hint")).to_contain_text("机器人可以自己参赛")
    expect(page.get_by_test_id("league-enter-hint").locator("code").first).to_have_text(
        f"python -m client_demo.sdk.entrant --game doudizhu --strategy smart --league {name}")
    add_builtin(page, "smart")
    expect(page.get_by_test_id("entrant-smart")).to_have_text("smart 内置：聪明")
    add_builtin(page, "random", "smart")
    error = page.get_by_test_id("league-add-error")
    expect(error).to_have_attribute("data-code", "entrant_taken")
    expect(error).to_have_text("联赛里已有同名的参赛者")
    expect(page.get_by_test_id("league-entrants").locator("li")).to_have_count(1)
    expect(page.get_by_test_id("league-run")).to_have_text("开始一轮")
    assert untranslated(page, {"smart", name}) == [], untranslated(page, {"smart", name})
    assert sideways(page) == [], sideways(page)
    screenshot(page, shots, "phone-zh-league")

    # the same name again, in Chinese only
    page.get_by_test_id("league-back").click()
    page.get_by_test_id("league-new").click()
    form = page.get_by_test_id("league-new-form")
    create(form, name, deals=3)
    error = form.get_by_test_id("league-new-error")
    expect(error).to_have_attribute("data-code", "league_exists")
    expect(error).to_have_text("已有同名的联赛")
    assert english_in(page, ".league-bar, .league-new") == [], english_in(page, ".league-bar, .league-new")
    assert rows_named(page, name) == 1
    # the switch redraws the open form in English, keeping what was typed
    page.get_by_test_id("lang-switch").click()
    form = page.get_by_test_id("league-new-form")
    expect(form.get_by_test_id("league-new-submit")).to_have_text("Create league")
    expect(form.get_by_test_id("league-new-name")).to_have_value(name)
    expect(form.get_by_test_id("league-new-error")).to_contain_text("A league of this name exists already")


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_form_and_the_owners_controls_fit(new_page, shots: Path, size: str) -> None:
    """At 1280×800 and 390×844 (English): the form with every field open and an error,
    then the owner's page with its controls, an error and the hint; nothing sideways."""
    page = new_page(SIZES[size])
    enter(page, "Fitter")
    form = open_form(page)
    form.get_by_test_id("league-new-sng").check()
    create(form, "a-name-that-is-rather-long-for-a-phone-screen.but-within-64", deals=0)
    expect(form.get_by_test_id("league-new-error")).to_be_visible()
    assert sideways(page) == [], sideways(page)
    form.get_by_test_id("league-new-hands").fill("3")
    name = f"fit-{size}-a-name-that-is-rather-long-for-a-phone.screen"
    create(form, name)
    expect(page.get_by_test_id("league-page")).to_have_attribute("data-league", name)
    add_builtin(page, "calling_station", "a-long-entrant-name-for-phones")
    expect(page.get_by_test_id("entrant-a-long-entrant-name-for-phones")).to_contain_text("built-in: calling station")
    add_builtin(page, "smart", "a-long-entrant-name-for-phones")
    expect(page.get_by_test_id("league-add-error")).to_be_visible()
    expect(page.get_by_test_id("league-enter-hint")).to_be_visible()
    assert sideways(page) == [], sideways(page)
    screenshot(page, shots, f"{size}-owner")
