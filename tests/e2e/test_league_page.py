"""The league page in a real browser: the Leagues button of the lobby, the list of
leagues (and what it says when there is none), one league's standings, chart and
matches, and a match room's hands, at 1280×800 and 390×844, in English and in Chinese.

A real league is run on the test server once per module, as an operator would run it
(docs/league.md): ``python -m server.cli league create|enter|run`` with three built-in
Hold'em bots, 3 deals per match. The page is checked against the server's own ``league``
reply, read over a plain WebSocket.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any

import pytest

from tests.cli_in_process import run_cardroom

from .conftest import ROOT, discard
from .ui import SIZES, enter, expect, foreign_texts, screenshot

pytestmark = pytest.mark.browser

LEAGUE = "demo"
ENTRANTS = {"smart": "smart", "random": "random", "station": "calling_station"}
DEALS = 3


def _cli(*args: str) -> str:
    """``cardroom league ...``; its output. ``run`` is ``python -m server.cli`` with this
    interpreter (the venv's), as an operator starts it; the commands that set the league up
    run in this process, by the same entry point (:mod:`tests.cli_in_process`)."""
    if args[0] == "run":
        done = subprocess.run([sys.executable, "-m", "server.cli", "league", *args], cwd=ROOT,
                              capture_output=True, text=True, timeout=240, check=False)
    else:
        done = run_cardroom("league", *args)
    assert done.returncode == 0, f"league {args[0]} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
    return done.stdout


def _ask(ws_url: str, msg: dict[str, Any]) -> dict[str, Any]:
    """One request over a fresh connection (as a new player): the reply carrying its ref."""
    from websockets.sync.client import connect

    with connect(ws_url, subprotocols=["cardroom.json"]) as ws:
        ws.send(json.dumps({"t": "hello", "name": "reader", "ref": 1}))
        ws.send(json.dumps({**msg, "ref": 2}))
        while True:
            reply = json.loads(ws.recv(timeout=10))
            if reply.get("ref") == 2:
                return reply


@pytest.fixture(scope="module")
def league(server: Any, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A finished league on the test server (3 entrants, 3 matches): the server's ``league`` reply."""
    folder = str(tmp_path_factory.mktemp("leagues"))
    data = str(server.data)
    # a clock a loaded machine can keep: a match whose entrants the clock played for is void
    _cli("create", LEAGUE, "--game", "holdem", "--hands", str(DEALS), "--action-seconds", "5", "--dir", folder)
    for name, strategy in ENTRANTS.items():
        _cli("enter", LEAGUE, "--entrant", name, "--strategy", strategy, "--dir", folder, "--data-dir", data)
    _cli("run", LEAGUE, "--url", server.ws_url, "--dir", folder, "--data-dir", data)
    reply = _ask(server.ws_url, {"t": "league", "name": LEAGUE})
    assert reply["t"] == "league", reply
    assert len(reply["matches"]) == 3 and all(m["status"] == "done" for m in reply["matches"]), reply["matches"]
    return reply


# --- what the page should say ------------------------------------------------------------------


def fixed(x: float, d: int) -> str:
    """``x.toFixed(d)`` as JavaScript writes it: a tie (-1310.25) rounds away from zero."""
    return str(Decimal(x).quantize(Decimal(1).scaleb(-d), rounding=ROUND_HALF_UP))


def result_text(result: dict[str, Any], unit: str = "bb/100") -> str:
    """The page's result cell: "+64.0 ± 41.2 bb/100" (two decimals under 10, "±?" without a width)."""
    mean, width = result["mean"], result["half_width"]
    d = 2 if max(abs(mean), abs(width or 0)) < 10 else 1
    m = fixed(mean, d)
    m = f"+{m}" if float(m) > 0 else f"{0:.{d}f}" if float(m) == 0 else m
    return f"{m} {'±?' if width is None else f'± {fixed(width, d)}'} {unit}"


def signed_chips(n: int) -> str:
    return f"+{n:,}" if n > 0 else f"{n:,}"


# Every box of the standings table and of the chart, and the page's own width.
_BOXES = """() => {
  const boxes = [];
  for (const sel of ['[data-testid=league-standings]', '[data-testid=league-standings] tr > *',
                     '[data-testid=league-chart]', '[data-testid=chart-legend]', '[data-testid=hands-panel]',
                     '[data-testid=hands-panel] li']) {
    for (const el of document.querySelectorAll(sel)) {
      const r = el.getBoundingClientRect();
      if (r.width && r.height) boxes.push({sel, left: r.left, right: r.right, text: el.textContent.slice(0, 30)});
    }
  }
  return {boxes, width: window.innerWidth, scroll: document.documentElement.scrollWidth};
}"""


def outside_horizontally(page: Any) -> list[str]:
    """Boxes of the standings, the chart (and an open hands panel) not inside the window's width."""
    found = page.evaluate(_BOXES)
    bad = [f"{b['sel']} {b['text']!r}: {b['left']:.0f}..{b['right']:.0f}" for b in found["boxes"]
           if b["left"] < -0.5 or b["right"] > found["width"] + 0.5]
    if found["scroll"] > found["width"]:
        bad.append(f"the page scrolls sideways: {found['scroll']} > {found['width']}")
    return bad


def open_league_page(page: Any, name: str = "viewer") -> None:
    """From the lobby: the Leagues button, then the league in the list."""
    enter(page, name)
    page.get_by_test_id("open-leagues").click()
    expect(page.get_by_test_id("leagues-page")).to_be_visible()
    page.get_by_test_id(f"league-{LEAGUE}").click()
    expect(page.get_by_test_id("league-page")).to_have_attribute("data-league", LEAGUE)
    expect(page.get_by_test_id("league-standings")).to_be_visible()


# --- the tests -------------------------------------------------------------------------------


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_standings_chart_matches_and_hands(new_page, server: Any, shots: Path, league: dict[str, Any],
                                          size: str) -> None:
    page = new_page(SIZES[size])
    enter(page, f"viewer-{size}")
    # the lobby's Leagues button opens the list: the league with its game, entrants and progress
    page.get_by_test_id("open-leagues").click()
    expect(page).to_have_url(re.compile(r"#/leagues$"))
    row = page.get_by_test_id(f"league-{LEAGUE}")
    expect(row).to_contain_text(LEAGUE)
    expect(row).to_contain_text("Texas Hold'em")
    expect(row).to_contain_text("3 entrants: smart, random, station")
    expect(row).to_contain_text("3/3 matches done")
    screenshot(page, shots, f"{size}-list")
    row.click()
    expect(page).to_have_url(re.compile(r"#/league/demo$"))

    # the header: name, game, deals per match, seats, duplicate
    league_page = page.get_by_test_id("league-page")
    expect(league_page.locator("h1")).to_have_text(LEAGUE)
    expect(league_page.locator(".league-title")).to_contain_text(
        re.compile(r"Texas Hold'em · 3 deals per match · 2 seats · duplicate deals"))

    # the standings: every entrant, in the server's order, with its result and a note
    table = page.get_by_test_id("league-standings")
    standings = league["standings"]
    assert [r["entrant"] for r in standings] and {r["entrant"] for r in standings} == set(ENTRANTS)
    expect(table.locator("tbody tr")).to_have_count(3)
    for rank, row_data in enumerate(standings, start=1):
        name = row_data["entrant"]
        tr = page.get_by_test_id(f"standing-{name}")
        expect(tr).to_have_attribute("data-rank", str(rank))
        expect(tr.locator("[data-col=result]")).to_have_text(result_text(row_data["result"]))
        expect(tr.locator("[data-col=deals]")).to_have_text(str(row_data["hands"]))
        expect(tr.locator(".rating")).to_contain_text(fixed(row_data["ordinal"], 1))
        expect(tr.locator(".rating")).to_contain_text(f"{fixed(row_data['mu'], 1)} ± {fixed(row_data['sigma'], 1)}")
        expect(tr).to_contain_text(f"built-in: {ENTRANTS[name].replace('_', ' ')}")
        if size == "desktop":  # on a phone, matches and chips are a line under the name
            expect(tr.locator("[data-col=chips]")).to_have_text(signed_chips(row_data["chips"]))
            expect(tr.locator("[data-col=matches]")).to_have_text("2")
        else:
            expect(tr.locator(".phone-line")).to_have_text(f"2 matches · {signed_chips(row_data['chips'])} chips")

    # the chart: one line per entrant, 0 then one point per deal it played; a legend; axes
    chart = page.get_by_test_id("league-chart")
    expect(chart).to_be_visible()
    lines = chart.locator("polyline")
    expect(lines).to_have_count(3)
    for name, values in league["series"].items():
        line = page.get_by_test_id(f"chart-line-{name}")
        points = (line.get_attribute("points") or "").split()
        assert len(points) == len(values) + 1 == 2 * DEALS + 1, (name, points)
        assert all(re.fullmatch(r"-?[\d.]+,-?[\d.]+", p) for p in points), points
    colours = {lines.nth(i).get_attribute("stroke") for i in range(3)}
    assert len(colours) == 3, colours
    for name in ENTRANTS:
        expect(page.get_by_test_id("chart-legend")).to_contain_text(name)
    expect(chart.get_by_test_id("chart-zero")).to_have_count(1)
    expect(chart).to_contain_text("cumulative, bb")
    expect(chart).to_contain_text("deals")
    assert outside_horizontally(page) == [], outside_horizontally(page)
    screenshot(page, shots, f"{size}-league")

    # the matches, with each entrant's chips, and the hands of a room
    matches = page.get_by_test_id("league-matches").locator(".match-row")
    expect(matches).to_have_count(3)
    for m in league["matches"]:
        rowm = page.get_by_test_id(f"match-{m['match']}")
        expect(rowm).to_contain_text("Round 1")
        expect(rowm).to_contain_text("done")
        for name, won in m["results"].items():
            expect(rowm.locator(f".match-result[data-entrant={name}]")).to_have_text(f"{name} {signed_chips(won)}")
        expect(rowm.locator("[data-testid^=match-hands-]")).to_have_count(len(m["rooms"]))
    room = league["matches"][0]["rooms"][0]
    history = _ask(server.ws_url, {"t": "history", "room": room["room"], "last": 50})["hands"]
    assert len(history) == DEALS, history
    page.get_by_test_id(f"match-hands-{room['room']}").click()
    panel = page.get_by_test_id("hands-panel")
    expect(panel).to_have_attribute("data-room", room["room"])
    hands = panel.get_by_test_id("league-hand")
    expect(hands).to_have_count(DEALS)
    for k, played in enumerate(history):
        hand = hands.nth(k)
        expect(hand).to_have_attribute("data-hand", str(played["hand"]))
        expect(hand.locator("h3")).to_contain_text(f"Hand #{played['hand']}")
        names = {s["seat"]: s["name"] for s in played["seats"]}
        expect(hand.locator(".hand-net")).to_have_text(
            [f"{names[r['seat']]} {signed_chips(r['net'])}" for r in played["result"]])
        # the hand in words, as the table's history tells it: blinds, actions, the pot won
        # (and after the match's last deal, that the match is over; stack resets are not told)
        expect(hand.locator("li").first).to_contain_text(re.compile(r"^(smart|random|station) posts the small blind 50$"))
        expect(hand.locator("li:not(.sep)").last).to_contain_text(re.compile(r"wins (the|side) pot|is split"))
        expect(hand.locator("li.sep")).to_have_text(["The match is over"] if k == DEALS - 1 else [])
    assert outside_horizontally(page) == [], outside_horizontally(page)
    screenshot(page, shots, f"{size}-hands")
    page.get_by_test_id("hands-close").click()
    expect(panel).to_have_count(0)

    # back to the list, then to the lobby
    page.get_by_test_id("league-back").click()
    expect(page.get_by_test_id("leagues-page")).to_be_visible()
    page.get_by_test_id("leagues-to-lobby").click()
    expect(page.get_by_test_id("lobby")).to_be_visible()


# The English labels of the page (plain strings without placeholders that differ in Chinese).
_EN_LABELS = """async () => {
  const m = await import('/i18n.js');
  return Object.entries(m.STRINGS.en).filter(([k, v]) => typeof v === 'string' && !v.includes('{') && m.STRINGS.zh[k] !== v)
    .map(([k, v]) => v.trim());
}"""

# Every visible text of the league screen and of an open hands panel (a command, a function
# or a file in <code> aside: they read the same in every language).
_TEXTS = """() => {
  const out = [];
  for (const root of document.querySelectorAll('.league-screen, [data-testid=hands-panel]')) {
    const walk = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let n = walk.nextNode(); n; n = walk.nextNode()) {
      const text = n.textContent.trim();
      if (text && n.parentElement && !n.parentElement.closest('code') && n.parentElement.getClientRects().length) out.push(text);
    }
  }
  return out;
}"""


def untranslated(page: Any) -> list[str]:
    """Visible texts that are an English label or hold English words (entrant names aside)."""
    labels = set(page.evaluate(_EN_LABELS))
    bad = []
    for text in page.evaluate(_TEXTS):
        if text in ENTRANTS:  # an entrant's name, not the label of a strategy
            continue
        if text in labels:
            bad.append(text)
            continue
        rest = re.sub(r"smart|random|station|demo", " ", text)
        if re.search(r"[A-Za-z]{2,}", rest):
            bad.append(text)
    return bad


def test_the_league_page_in_chinese(new_page, shots: Path, league: dict[str, Any]) -> None:
    page = new_page(SIZES["phone"], locale="zh-CN", init_script="localStorage.setItem('cardroom.lang', 'zh')")
    expect(page.get_by_test_id("name-submit")).to_have_text("进入")
    enter(page, "观众")
    expect(page.get_by_test_id("open-leagues")).to_have_text("联赛")
    page.get_by_test_id("open-leagues").click()
    expect(page.get_by_test_id("leagues-page").locator("h1")).to_have_text("联赛")
    expect(page.get_by_test_id(f"league-{LEAGUE}")).to_contain_text("德州扑克")
    page.get_by_test_id(f"league-{LEAGUE}").click()
    league_page = page.get_by_test_id("league-page")
    expect(league_page.locator("h2").first).to_have_text("排名")
    expect(league_page.locator("h2")).to_have_text(["排名", "逐手累计成绩", "对局"])
    heads = page.get_by_test_id("league-standings").locator("th:visible")
    expect(heads).to_have_text(["名次", "参赛者", "评分", "手数", "结果"])
    expect(page.get_by_test_id("league-standings")).to_contain_text("内置：跟注站")
    expect(page.get_by_test_id("league-standings")).to_contain_text("大盲/百手")
    expect(page.get_by_test_id("league-chart")).to_contain_text("累计（大盲）")
    expect(page.get_by_test_id("league-matches")).to_contain_text("第1轮")
    assert untranslated(page) == [], untranslated(page)
    room = league["matches"][0]["rooms"][0]["room"]
    hands_button = page.get_by_test_id(f"match-hands-{room}")
    expect(hands_button).to_contain_text("查看牌局")
    hands_button.click()
    expect(page.get_by_test_id("league-hand")).to_have_count(DEALS)
    expect(page.get_by_test_id("league-hand").first.locator("h3")).to_contain_text("第1局")
    expect(page.get_by_test_id("league-hand").first).to_contain_text("下小盲 50")
    assert untranslated(page) == [], untranslated(page)
    assert outside_horizontally(page) == [], outside_horizontally(page)
    screenshot(page, shots, "phone-zh-hands")
    # the switch redraws the page (and the open hands) in English at once
    page.get_by_test_id("hands-close").click()
    page.get_by_test_id("lang-switch").click()
    expect(league_page.locator("h2").first).to_have_text("Standings")
    expect(page.get_by_test_id(f"match-hands-{room}")).to_contain_text("Hands")
    # and nothing Chinese is left in English, the hands opened again
    page.get_by_test_id(f"match-hands-{room}").click()
    expect(page.get_by_test_id("league-hand").first.locator("h3")).to_contain_text("Hand #1")
    assert foreign_texts(page, "main", "en", ENTRANTS) == [], foreign_texts(page, "main", "en", ENTRANTS)


def edited_replies(page: Any, edit: Any) -> Any:
    """``page``, reloaded with the server's JSON replies passed through ``edit`` on their way."""
    def route(ws: Any) -> None:
        server = ws.connect_to_server()
        server.on_message(lambda m: ws.send(json.dumps(edit(json.loads(m))) if isinstance(m, str) else m))

    discard(page)  # the route stays
    page.route_web_socket(re.compile(r"/ws$"), route)
    page.reload()
    return page


def test_no_league_yet_and_results_whose_interval_excludes_zero(new_page, shots: Path, league: dict[str, Any]) -> None:
    """The server's replies changed on their way to the page: an empty list says how to run
    a league; results above and below zero are coloured, one without an interval is "±?"."""
    def edit(msg: dict[str, Any]) -> dict[str, Any]:
        if msg.get("t") == "leagues":
            msg["leagues"] = []
        if msg.get("t") == "league":
            rows = msg["standings"]
            rows[0]["result"].update(mean=64.0, half_width=41.2)
            rows[1]["result"].update(mean=-0.5, half_width=0.25)
            rows[2]["result"].update(mean=12.0, half_width=None)
        return msg

    page = edited_replies(new_page(SIZES["desktop"]), edit)
    enter(page, "empty")
    page.get_by_test_id("open-leagues").click()
    empty = page.get_by_test_id("leagues-empty")
    expect(empty).to_contain_text("No league has been run on this server yet.")
    for command in ("cardroom league create", "cardroom league enter", "cardroom league run"):
        expect(empty.locator("pre")).to_contain_text(command)
    expect(empty).to_contain_text("docs/league.md")
    # and that bots can make their own over the protocol
    expect(empty.get_by_test_id("leagues-protocol")).to_have_text(
        "Bots can also make and run their own leagues over the protocol (league_create; docs/league.md).")
    screenshot(page, shots, "desktop-empty")

    # the league's reply with made-up intervals
    page.evaluate(f"location.hash = '#/league/{LEAGUE}'")
    cells = page.get_by_test_id("league-standings").locator("[data-col=result]")
    expect(cells).to_have_count(3)
    expect(cells.nth(0)).to_have_text("+64.0 ± 41.2 bb/100")
    expect(cells.nth(0)).to_have_attribute("data-sign", "1")
    expect(cells.nth(1)).to_have_text("-0.50 ± 0.25 bb/100")
    expect(cells.nth(1)).to_have_attribute("data-sign", "-1")
    expect(cells.nth(2)).to_have_text("+12.0 ±? bb/100")
    expect(cells.nth(2)).to_have_attribute("data-sign", "0")
    # (retried: a poll may draw the page again, and a replaced cell has no computed style)
    green, red = "rgb(125, 255, 169)", "rgb(255, 154, 165)"
    expect(cells.nth(0)).to_have_css("color", green)
    expect(cells.nth(1)).to_have_css("color", red)
    for colour in (green, red):
        expect(cells.nth(2)).not_to_have_css("color", colour)


def test_a_long_leagues_thinned_chart_puts_each_point_at_its_deal(new_page, league: dict[str, Any]) -> None:
    """A league of more than 1,000 deals an entrant sends every series_step-th point and the
    last (docs/protocol.md): the chart still draws each at its deal, so a line of 1,200
    deals ends 1,200/2,500 of the way along the one of 2,500."""
    from server.league.report import thinned

    made_up = {"smart": [i / 10 for i in range(1, 2_501)], "random": [-i / 10 for i in range(1, 1_201)],
               "station": [0.0] * 2_500}

    def edit(msg: dict[str, Any]) -> dict[str, Any]:
        if msg.get("t") == "league":
            msg["series"], msg["series_step"] = thinned(made_up)
            msg["series_deals"] = {name: len(v) for name, v in made_up.items()}
        return msg

    page = edited_replies(new_page(SIZES["desktop"]), edit)
    enter(page, "long")
    page.evaluate(f"location.hash = '#/league/{LEAGUE}'")
    line = {name: page.get_by_test_id(f"chart-line-{name}") for name in ("smart", "random")}
    expect(line["smart"]).to_have_attribute("data-points", "835")  # 0, then deals 3, 6, ..., 2,499 and 2,500
    xs = {name: [float(p.split(",")[0]) for p in el.get_attribute("points").split()] for name, el in line.items()}
    start, end = xs["smart"][0], xs["smart"][-1]
    assert abs((xs["random"][-1] - start) / (end - start) - 1_200 / 2_500) < 0.01, xs["random"][-1]
    assert abs((xs["smart"][1] - start) / (end - start) - 3 / 2_500) < 0.001  # the first point after 0: deal 3
    expect(page.get_by_test_id("chart-legend")).to_contain_text("+250.0")  # the last point: the exact final result
    ticks = page.get_by_test_id("league-chart").locator("text.tick[text-anchor=middle]").evaluate_all("els => els.map((e) => e.textContent)")
    assert max(int(x) for x in ticks) >= 2_000, ticks  # the x axis counts deals, not points
