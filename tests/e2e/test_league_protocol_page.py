"""The league page for leagues made over the protocol (docs/league.md, "Leagues over the
protocol"), in a real browser against the real test server.

The leagues are made, entered and run with the Python SDK (``client_demo.sdk.client``), as a
league's own clients would: ``league_create``, ``league_enter`` (two built-in strategies,
which the match rooms play as bot seats, and a bot that entered itself), ``league_run``.
The page shows what plays each entrant (*built-in: smart*, *connected bot*), the run
while the servers play it (*Running: round 1 of 1*), asks again every few seconds until
the run is over (the finished matches appear without a reload) and then stops asking; the
league's owner, here the browser's own player, runs a round with **Run a round**.
"""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import Coroutine, Iterator
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytest

from client_demo.sdk.bot import StrategyBot, play_league
from client_demo.sdk.client import CardroomClient

from .test_league_page import _EN_LABELS, _TEXTS
from .ui import SIZES, enter, expect, screenshot

pytestmark = pytest.mark.browser

POLL_S = 5  # league.js POLL_MS
# Every request the page sends, by type, in window.__sent (to see it poll, and stop).
COUNT_SENT = """(() => {
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (data) {
    try { (window.__sent ||= []).push(JSON.parse(data).t); } catch (e) { /* binary */ }
    return send.call(this, data);
  };
})();"""
ZH = "localStorage.setItem('cardroom.lang', 'zh')"


class Sdk:
    """The Python SDK on an asyncio loop of its own thread (Playwright's sync API holds
    the main thread's)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="sdk", daemon=True)
        self.thread.start()
        self.clients: list[CardroomClient] = []

    def run(self, coro: Coroutine[Any, Any, Any], timeout: float = 60) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> Future[Any]:
        return asyncio.run_coroutine_threadsafe(coro, self.loop)

    def client(self, name: str | None = None, token: str | None = None) -> CardroomClient:
        """A connected client: a new player ``name``, or the player of session ``token``."""
        async def connect() -> CardroomClient:
            c = CardroomClient(self.url, name=name, token=token, fair_seeds=False)
            await c.connect()
            return c
        c = self.run(connect())
        self.clients.append(c)
        return c

    def ask(self, client: CardroomClient, msg: dict[str, Any]) -> dict[str, Any]:
        return self.run(client.request(msg))

    def close(self) -> None:
        for c in self.clients:
            self.run(c.close())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)


@pytest.fixture
def sdk(server: Any) -> Iterator[Sdk]:
    s = Sdk(server.ws_url)
    yield s
    s.close()


def sent(page: Any, kind: str) -> int:
    """How many ``kind`` requests the page has sent so far."""
    return page.evaluate("(t) => (window.__sent || []).filter((x) => x === t).length", kind)


def untranslated(page: Any, names: set[str]) -> list[str]:
    """Visible texts of the league screen that are an English label or hold English words
    (the entrants' and the league's names aside)."""
    labels = set(page.evaluate(_EN_LABELS))
    bad = []
    for text in page.evaluate(_TEXTS):
        if text in names:
            continue
        if text in labels:
            bad.append(text)
            continue
        rest = re.sub("|".join(sorted(names, key=len, reverse=True)), " ", text)
        if re.search(r"[A-Za-z]{2,}", rest):
            bad.append(text)
    return bad


def open_league(page: Any, name: str) -> None:
    """From the lobby: Leagues, then the league in the list."""
    page.get_by_test_id("open-leagues").click()
    page.get_by_test_id(f"league-{name}").click()
    expect(page.get_by_test_id("league-page")).to_have_attribute("data-league", name)


def test_a_run_seen_by_a_viewer_in_both_languages(new_page, server: Any, sdk: Sdk, shots: Path) -> None:
    """A league of two built-ins and a connected bot, made and run with the SDK, watched by
    an English desktop and a Chinese phone: the labels, the run as it goes (the page asking
    again by itself, not when it is left) and the finished matches without a reload."""
    name = "club-watch"
    owner = sdk.client(name="Owner")
    made = sdk.ask(owner, {"t": "league_create", "name": name, "game": "holdem", "hands": 3, "action_seconds": 20})
    assert made["owner"] == owner.player and made["run"] is None
    for strategy in ("smart", "random"):
        sdk.ask(owner, {"t": "league_enter", "name": name, "strategy": strategy})
    # a bot that enters itself; it plays its seats only once the test lets it (below), so
    # the run lasts until then (its turns would time out after 20 s each)
    ada = sdk.client(name="Ada")
    entered = sdk.ask(ada, {"t": "league_enter", "name": name})
    assert [(e["name"], e["bot"], e["client"]) for e in entered["entrants"]] == [
        ("smart", True, False), ("random", True, False), ("Ada", False, True)]
    ada_token = ada.token

    en = new_page(SIZES["desktop"], init_script=COUNT_SENT)
    enter(en, "rail")
    zh = new_page(SIZES["phone"], locale="zh-CN", init_script=COUNT_SENT + ZH)
    enter(zh, "观众")
    for page in (en, zh):
        open_league(page, name)
        expect(page.get_by_test_id("league-run")).to_have_count(0)  # not the owner's page
        expect(page.get_by_test_id("league-run-status")).to_have_count(0)
    # each entrant with what plays it, before any match is over
    for page, labels in ((en, {"smart": "built-in: smart", "random": "built-in: random", "Ada": "connected bot"}),
                         (zh, {"smart": "内置：聪明", "random": "内置：随机", "Ada": "在线机器人"})):
        entrants = page.get_by_test_id("league-entrants")
        expect(entrants.locator("li")).to_have_count(3)
        for who, label in labels.items():
            expect(page.get_by_test_id(f"entrant-{who}")).to_have_text(f"{who} {label}")
    expect(en.get_by_test_id("league-entrants")).to_contain_text("Entrants")
    expect(zh.get_by_test_id("league-entrants")).to_contain_text("参赛者")
    expect(en.get_by_test_id("league-page")).to_have_attribute("data-polling", "0")

    # the owner runs it; the pages learn it when asked again (↻)
    running = sdk.ask(owner, {"t": "league_run", "name": name, "rounds": 1})
    assert running["run"] is not None and running["run"]["rounds"] == 1
    statuses = {
        en: r"^Running: round 1 of 1 · (starting|3 matches left in this round)$",
        zh: r"^进行中：第1轮/共1轮 · (即将开始|本轮还剩3场对局)$",
    }
    for page in (en, zh):
        page.get_by_test_id("league-refresh").click()
        expect(page.get_by_test_id("league-run-status")).to_have_text(re.compile(statuses[page]))
        expect(page.get_by_test_id("league-page")).to_have_attribute("data-running", "1")
        expect(page.get_by_test_id("league-page")).to_have_attribute("data-polling", "1")
    # asked again every few seconds by itself: the round's matches once it has started
    expect(en.get_by_test_id("league-run-status")).to_have_text(
        "Running: round 1 of 1 · 3 matches left in this round", timeout=(POLL_S + 10) * 1000)
    expect(zh.get_by_test_id("league-run-status")).to_have_text(
        "进行中：第1轮/共1轮 · 本轮还剩3场对局", timeout=(POLL_S + 10) * 1000)
    assert untranslated(zh, {"smart", "random", "Ada", name}) == [], untranslated(zh, {"smart", "random", "Ada", name})
    screenshot(en, shots, "desktop-running")
    screenshot(zh, shots, "phone-zh-running")

    # the list marks it running
    en.get_by_test_id("league-back").click()
    expect(en.get_by_test_id(f"league-running-{name}")).to_have_text("running")
    zh.get_by_test_id("league-back").click()
    expect(zh.get_by_test_id(f"league-running-{name}")).to_have_text("进行中")
    # a page left asks no more: the lobby, for longer than the poll interval
    en.get_by_test_id("leagues-to-lobby").click()
    expect(en.get_by_test_id("lobby")).to_be_visible()
    asked = sent(en, "league") + sent(en, "list_leagues")
    en.wait_for_timeout(POLL_S * 1000 + 1500)  # (a wait for something not to happen)
    assert sent(en, "league") + sent(en, "list_leagues") == asked
    open_league(en, name)
    zh.get_by_test_id(f"league-{name}").click()

    # the bot comes and plays its seats: the matches end, the pages show them by themselves
    stop = sdk.run(_event())
    playing = sdk.spawn(play_league(StrategyBot("holdem", "smart", seed=1), name, server.ws_url, token=ada_token,
                                    stop=stop, log=None))
    before = sent(en, "league")
    try:
        for page in (en, zh):
            expect(page.get_by_test_id("league-run-status")).to_have_count(0, timeout=90_000)
            expect(page.get_by_test_id("league-page")).to_have_attribute("data-running", "0")
            expect(page.get_by_test_id("league-page")).to_have_attribute("data-polling", "0")
            expect(page.get_by_test_id("league-standings").locator("tbody tr")).to_have_count(3)
            expect(page.get_by_test_id("league-matches").locator(".match-row[data-status=done]")).to_have_count(3)
            expect(page.get_by_test_id("league-entrants")).to_have_count(0)
    finally:
        sdk.loop.call_soon_threadsafe(stop.set)
        playing.result(30)
    assert sent(en, "league") > before  # it was the page asking, not a click or a reload
    expect(en.get_by_test_id("standing-Ada")).to_contain_text("connected bot")
    expect(en.get_by_test_id("standing-smart")).to_contain_text("built-in: smart")
    expect(zh.get_by_test_id("standing-Ada")).to_contain_text("在线机器人")
    assert untranslated(zh, {"smart", "random", "Ada", name}) == [], untranslated(zh, {"smart", "random", "Ada", name})
    screenshot(en, shots, "desktop-over")
    screenshot(zh, shots, "phone-zh-over")
    # and it stops asking once the run is over
    asked = sent(en, "league")
    en.wait_for_timeout(POLL_S * 1000 + 1500)  # (a wait for something not to happen)
    assert sent(en, "league") == asked


async def _event() -> asyncio.Event:
    return asyncio.Event()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_owner_runs_a_round_from_the_page(new_page, server: Any, sdk: Sdk, shots: Path, lang: str) -> None:
    """The browser's player owns a league (made with the SDK over the browser's own
    session): **Run a round** is refused while it has one entrant, then runs a round of
    the two built-ins, shown running and then finished without a reload."""
    zh = lang == "zh"
    name = f"club-boss-{lang}"
    page = new_page(SIZES["phone"] if zh else SIZES["desktop"], locale="zh-CN" if zh else "en-US",
                    init_script=ZH if zh else None)
    enter(page, "老板" if zh else "Boss")
    token = page.evaluate("localStorage.getItem('cardroom.token')")
    me = sdk.client(token=token)  # the same player as the page
    made = sdk.ask(me, {"t": "league_create", "name": name, "game": "holdem", "hands": 3, "action_seconds": 1})
    sdk.ask(me, {"t": "league_enter", "name": name, "strategy": "smart"})
    assert made["owner"] == me.player

    open_league(page, name)
    run = page.get_by_test_id("league-run")
    expect(run).to_have_text("开始一轮" if zh else "Run a round")
    expect(run).to_be_enabled()
    expect(page.get_by_test_id("entrant-smart")).to_have_text("smart 内置：聪明" if zh else "smart built-in: smart")
    # one entrant: refused, in the page's words
    run.click()
    expect(page.get_by_test_id("toast-error")).to_have_text(
        "参赛者不够，无法开赛" if zh else re.compile(r"^Too few entrants for a match: .*needs 2 entrants"))
    expect(page.get_by_test_id("league-run-status")).to_have_count(0)

    sdk.ask(me, {"t": "league_enter", "name": name, "strategy": "random"})
    page.get_by_test_id("league-refresh").click()
    expect(page.get_by_test_id("entrant-random")).to_have_text("random 内置：随机" if zh else "random built-in: random")
    run.click()
    # the reply shows the run at once (the next ask, a few seconds on, finds it over)
    status = page.get_by_test_id("league-run-status")
    expect(status).to_contain_text("进行中：第1轮/共1轮" if zh else "Running: round 1 of 1")
    expect(run).to_be_disabled()
    expect(page.get_by_test_id("league-page")).to_have_attribute("data-polling", "1")
    if zh:
        assert untranslated(page, {"smart", "random", name}) == [], untranslated(page, {"smart", "random", name})
    screenshot(page, shots, f"{lang}-running")
    expect(status).to_have_count(0, timeout=(POLL_S + 30) * 1000)
    rows = page.get_by_test_id("league-standings").locator("tbody tr")
    expect(rows).to_have_count(2)
    expect(page.get_by_test_id("standing-smart")).to_contain_text("内置：聪明" if zh else "built-in: smart")
    expect(page.get_by_test_id("league-matches").locator(".match-row[data-status=done]")).to_have_count(1)
    expect(page.get_by_test_id("league-page")).to_have_attribute("data-polling", "0")
    expect(run).to_be_enabled()  # another round may be run
    if zh:
        assert untranslated(page, {"smart", "random", name}) == [], untranslated(page, {"smart", "random", name})
    screenshot(page, shots, f"{lang}-over")
