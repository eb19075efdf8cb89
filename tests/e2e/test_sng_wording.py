"""A sit-and-go league in a real browser: a spectator watching one of its rooms live (the
blinds in the header, eliminated seats greyed with their place, the history's "out in
3rd place" and "wins the tournament"), then the league page's hands of every room, in
English and in Chinese.

A real sit-and-go league is run on the test server, as an operator would run it
(docs/league.md, "Sit-and-go tournaments"): ``python -m server.cli league create --format
sng`` with three entrants, small stacks and blinds up after every hand, so that it ends in a
few hands. Each entrant is a small program (``--command``) playing a built-in strategy
that first writes where its room is (id and join code) and waits for the test to say go,
so that the spectator is watching before the first action. The wording expected is built
from the server's own ``history`` of each room.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from server.league.define import blind_levels

from .conftest import ROOT
from .test_league_page import _ask, _cli
from .ui import SIZES, enter, expect, screenshot

pytestmark = pytest.mark.browser

LEAGUE = "sunday"
ENTRANTS = {"smart": "smart", "random": "random", "station": "calling_station"}
# blinds up after every hand: a three-seat match that ends in its first hand (a three-way
# all-in) is rare, so some room of the three shows "Blinds up" (with 2, all three rooms
# of one run ended within their first level once: ci45)
LEVEL_HANDS = 1
CONFIG = {"small_blind": 10, "big_blind": 20}
LEVELS = blind_levels(CONFIG)  # the league's schedule: 10/20, 15/30, 25/50, ...

# The entrants' program: where its room is, then (once OUT/go exists) its seat played.
ENTRANT = '''
import asyncio, json, os, sys
from pathlib import Path
from client_demo.sdk.bot import StrategyBot, run_in_room
from client_demo.sdk.client import CardroomClient

async def main(out, strategy):
    room = os.environ["CARDROOM_ROOM"]
    async with CardroomClient(os.environ["CARDROOM_URL"], token=os.environ["CARDROOM_TOKEN"], fair_seeds=False) as client:
        snap = client.rooms.get(room)
        while snap is None:
            msg = await client.next_message(timeout=30)
            if msg is not None and msg.get("t") == "room" and msg.get("room") == room:
                snap = msg
        part = out / f"{room}.{os.getpid()}.part"  # the room's three entrants all write its file
        part.write_text(json.dumps({"room": room, "code": snap["code"]}))
        os.replace(part, out / f"{room}.json")
        while not (out / "go").exists():
            await asyncio.sleep(0.1)
        await run_in_room(StrategyBot("holdem", strategy), client, room, joined=client.rooms.get(room) or snap, log=None)

asyncio.run(main(Path(sys.argv[1]), sys.argv[2]))
'''


class SitAndGo:
    """A sit-and-go league being run in the background on the test server."""

    def __init__(self, proc: subprocess.Popen[str], out: Path, server: Any) -> None:
        self.proc = proc
        self.out = out
        self.server = server
        self.reply: dict[str, Any] | None = None

    def rooms(self, count: int = 3, timeout: float = 60) -> list[dict[str, str]]:
        """The match's rooms (id and join code) as its entrants found them."""
        deadline = time.monotonic() + timeout
        while len(found := sorted(self.out.glob("r-*.json"))) < count:
            assert self.proc.poll() is None, f"league run ended early:\n{self.proc.communicate()[0]}"
            assert time.monotonic() < deadline, f"only {len(found)} rooms after {timeout} s"
            time.sleep(0.1)
        return [json.loads(p.read_text()) for p in found]

    def go(self) -> None:
        (self.out / "go").touch()

    def finished(self) -> dict[str, Any]:
        """The league's reply once the run is over (every room of its one match done)."""
        if self.reply is None:
            self.go()
            output, _ = self.proc.communicate(timeout=240)
            assert self.proc.returncode == 0, f"league run failed ({self.proc.returncode}):\n{output}"
            self.reply = _ask(self.server.ws_url, {"t": "league", "name": LEAGUE})
            assert self.reply["t"] == "league", self.reply
            (match,) = self.reply["matches"]
            assert match["status"] == "done" and len(match["rooms"]) == 3, match
        return self.reply


@pytest.fixture(scope="module")
def sng(server: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[SitAndGo]:
    folder = tmp_path_factory.mktemp("sng")
    out = folder / "rooms"
    out.mkdir()
    program = folder / "entrant.py"
    program.write_text(ENTRANT)
    data = str(server.data)
    # a long turn clock: nothing is played for an entrant while it waits for the go
    _cli("create", LEAGUE, "--game", "holdem", "--format", "sng", "--seats", "3", "--stack", "200",
         "--level-hands", str(LEVEL_HANDS), "--hands", "60", "--action-seconds", "60",
         "--config", json.dumps(CONFIG), "--dir", str(folder))
    for name, strategy in ENTRANTS.items():
        _cli("enter", LEAGUE, "--entrant", name, "--command", f"{sys.executable} {program} {out} {strategy}",
             "--dir", str(folder), "--data-dir", data)
    proc = subprocess.Popen([sys.executable, "-m", "server.cli", "league", "run", LEAGUE, "--url", server.ws_url,
                             "--dir", str(folder), "--data-dir", data],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    run = SitAndGo(proc, out, server)
    try:
        yield run
    finally:
        run.go()
        try:
            proc.wait(timeout=240)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


# --- what the page should say --------------------------------------------------------------------


def ordinal(n: int) -> str:
    return f"{n}{'th' if n // 10 % 10 == 1 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def expected_lines(hands: list[dict[str, Any]], levels: list[list[int]] | None, zh: bool = False
                   ) -> dict[int, list[str]]:
    """Per hand: the sit-and-go lines its history must have, in order ("Blinds up", with
    the level's number when the schedule ``levels`` is known, the eliminations, the
    winner, the end of the match), from the server's own history."""
    out: dict[int, list[str]] = {}
    before = None
    for hand in hands:
        names = {s["seat"]: s["name"] for s in hand["seats"]}
        lines = []
        for e in hand["events"]:
            kind = e["type"]
            if kind == "hand_start":
                blinds = [e["small_blind"], e["big_blind"]]
                if before is not None and blinds != before:
                    sb, bb = blinds
                    if levels is None:
                        lines.append(f"盲注升至 {sb:,}/{bb:,}" if zh else f"Blinds up: {sb:,}/{bb:,}")  # as the page writes chips
                    else:
                        level = min((hand["hand"] - 1) // LEVEL_HANDS, len(levels) - 1) + 1
                        assert levels[level - 1] == blinds, (hand["hand"], blinds, levels)
                        lines.append(f"盲注升至 {sb:,}/{bb:,}（第{level}级）" if zh else f"Blinds up: {sb:,}/{bb:,} (level {level})")
                before = blinds
            elif kind == "eliminated":
                who, place = names[e["seat"]], e["place"]
                lines.append(f"{who} 第{place}名出局" if zh else f"{who} is out in {ordinal(place)} place")
            elif kind == "placed":
                who, place = names[e["seat"]], e["place"]
                if place == 1:
                    lines.append(f"{who} 获得第1名，赢得比赛" if zh else f"{who} wins the tournament")
                else:
                    lines.append(f"{who} 获得第{place}名" if zh else f"{who} finishes {ordinal(place)}")
            elif kind == "room_closed":
                lines.append("比赛结束" if zh else "The match is over")
        out[hand["hand"]] = lines
    return out


def sng_lines(hand: Any) -> list[str]:
    """The lines of a listed hand that belong to a sit-and-go (the others are the hand's play)."""
    texts = hand.locator("li").all_text_contents()
    pattern = re.compile(r"Blinds up|盲注升至|is out in|出局|wins the tournament|finishes \d|获得第|match is over|比赛结束")
    return [x.strip() for x in texts if pattern.search(x)]


def latin_words(texts: list[str]) -> list[str]:
    """Texts holding English words (the entrants' names aside)."""
    # (card ranks written together in a hand name, e.g. 对子 AA, are not English)
    return [x for x in texts if re.search(r"[A-Za-z]{2,}", re.sub(r"\b[AKQJ]{2,3}\b|" + "|".join(ENTRANTS), " ", x))]


# --- the tests -------------------------------------------------------------------------------


def check_live_end(page: Any, server: Any, room: str, zh: bool) -> int:
    """A room watched live, once its match is over: the header's level and blinds are the
    last hand's, and the history's sit-and-go lines are those of the server's history, in
    order, "Blinds up" with the level's number (the snapshot before the hand says it:
    ``league.level_no``). The number of "Blinds up" lines."""
    hands = _ask(server.ws_url, {"t": "history", "room": room, "last": 50})["hands"]
    last = max(hand["hand"] for hand in hands)
    level = min((last - 1) // LEVEL_HANDS, len(LEVELS) - 1) + 1
    sb, bb = LEVELS[level - 1]
    expect(page.get_by_test_id("sng-level")).to_have_text(
        f"德州扑克坐满即玩 · 第{level}级 · 盲注 {sb:,}/{bb:,}" if zh else f"Hold'em sit-and-go · level {level} · blinds {sb:,}/{bb:,}")
    expect(page.get_by_test_id("sng-level")).to_have_attribute("data-level", str(level))
    expected = [line for lines in expected_lines(hands, LEVELS, zh).values() for line in lines]
    assert any(("赢得比赛" if zh else "wins the tournament") in line for line in expected), expected
    history = page.get_by_test_id("history").locator(".history-list")
    expect(history).to_contain_text(expected[-1])
    assert sng_lines(history) == expected, (room, sng_lines(history), expected)
    return sum(bool(re.search(r"\(level \d+\)$|（第\d+级）$", line)) for line in expected)


def test_watching_a_sit_and_go_live(new_page, sng: SitAndGo, shots: Path) -> None:
    """Two spectators, in English on a desktop and in Chinese on a phone, watch a room from
    before its first action to the end of the match (the English one watches the match's
    other two rooms too)."""
    rooms = sng.rooms()
    room = rooms[0]
    link = f"#/room/{room['room']}/{room['code']}"
    en = new_page(SIZES["desktop"])
    enter(en, "rail-en")
    zh = new_page(SIZES["phone"], locale="zh-CN", init_script="localStorage.setItem('cardroom.lang', 'zh')")
    enter(zh, "观众")
    for page in (en, zh):
        page.evaluate(f"location.hash = '{link}'")
        expect(page.get_by_test_id("table")).to_have_attribute("data-room", room["room"])
        expect(page.get_by_test_id("watching")).to_be_visible()
    # the header: a sit-and-go at its first level (the snapshot's league.level_no)
    expect(en.get_by_test_id("sng-level")).to_have_text(re.compile(r"^Hold'em sit-and-go · level 1 · blinds 10/20"))
    expect(zh.get_by_test_id("sng-level")).to_have_text(re.compile(r"^德州扑克坐满即玩 · 第1级 · 盲注 10/20"))
    for page in (en, zh):
        expect(page.get_by_test_id("sng-level")).to_have_attribute("data-level", "1")
    screenshot(en, shots, "desktop-start")
    # the English spectator watches the other rooms as well (their history is kept), then the first again
    for other in [*rooms[1:], room]:
        en.evaluate(f"location.hash = '#/room/{other['room']}/{other['code']}'")
        expect(en.get_by_test_id("table")).to_have_attribute("data-room", other["room"])
        expect(en.get_by_test_id("sng-level")).to_have_attribute("data-level", "1")

    sng.go()
    # the match plays out; the room closes when one seat holds every chip
    for page, over in ((en, "The match is over"), (zh, "比赛结束")):
        expect(page.get_by_test_id("status")).to_have_text(over, timeout=120_000)
    hands = _ask(sng.server.ws_url, {"t": "history", "room": room["room"], "last": 50})["hands"]
    places: dict[int, int] = {}
    for hand in hands:
        for e in hand["events"]:
            if e["type"] in ("eliminated", "placed"):
                places[e["seat"]] = e["place"]
    assert sorted(places) == [0, 1, 2] and 1 in places.values(), places

    # every seat with its place: the winner marked, the others out, greyed
    for page, won, out in ((en, "Winner", "Out — {}"), (zh, "冠军", "出局 第{}名")):
        for seat, place in places.items():
            box = page.get_by_test_id(f"seat-{seat}")
            expect(box).to_have_attribute("data-place", str(place))
            badge = page.get_by_test_id(f"place-{seat}")
            if place == 1:
                expect(badge).to_have_text(won)
                expect(box).not_to_have_class(re.compile(r"\beliminated\b"))
            else:
                expect(badge).to_have_text(out.format(ordinal(place) if page is en else place))
                expect(box).to_have_class(re.compile(r"\beliminated\b"))
                assert float(box.evaluate("el => getComputedStyle(el).opacity")) < 0.7

    # the header at the end (the last hand's level and blinds) and the live history
    for page, zh_mode in ((en, False), (zh, True)):
        check_live_end(page, sng.server, room["room"], zh_mode)
    zh_texts = (zh.get_by_test_id("history").locator("li").all_text_contents()
                + zh.locator("[data-testid^=place-], [data-testid=sng-level], [data-testid=status]").all_text_contents())
    assert latin_words(zh_texts) == [], latin_words(zh_texts)
    screenshot(en, shots, "desktop-over")
    screenshot(zh, shots, "phone-zh-over")
    # the other rooms, as the English spectator saw them
    levels_up = check_live_end(en, sng.server, room["room"], False)
    for other in rooms[1:]:
        en.evaluate(f"location.hash = '#/room/{other['room']}/{other['code']}'")
        expect(en.get_by_test_id("table")).to_have_attribute("data-room", other["room"])
        expect(en.get_by_test_id("status")).to_have_text("The match is over", timeout=120_000)
        levels_up += check_live_end(en, sng.server, other["room"], False)
        screenshot(en, shots, f"desktop-over-{other['room']}")
    # (three rooms of 10 big blinds each: the blinds went up in at least one of them)
    assert levels_up, "no room of the match went beyond its first level"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_hands_of_a_sit_and_go_say_who_went_out(new_page, sng: SitAndGo, shots: Path, lang: str) -> None:
    """The league page's hands of every room: the blinds going up with their level, each
    elimination with its place, the winner and the end of the match."""
    league = sng.finished()
    levels = league["settings"]["levels"]
    assert league["settings"]["format"] == "sng" and levels[:3] == [[10, 20], [15, 30], [25, 50]], league["settings"]
    assert levels == LEVELS, levels
    zh = lang == "zh"
    if zh:
        page = new_page(SIZES["phone"], locale="zh-CN", init_script="localStorage.setItem('cardroom.lang', 'zh')")
        enter(page, "观众")
    else:
        page = new_page(SIZES["desktop"])
        enter(page, "reader")
    page.evaluate(f"location.hash = '#/league/{LEAGUE}'")
    expect(page.get_by_test_id("league-page")).to_have_attribute("data-league", LEAGUE)
    seen_out = seen_won = 0
    for room in league["matches"][0]["rooms"]:
        history = _ask(sng.server.ws_url, {"t": "history", "room": room["room"], "last": 50})["hands"]
        expected = expected_lines(history, levels, zh)
        page.get_by_test_id(f"match-hands-{room['room']}").click()
        listed = page.get_by_test_id("hands-panel").get_by_test_id("league-hand")
        expect(listed).to_have_count(len(history))
        for k, played in enumerate(history):
            hand = listed.nth(k)
            expect(hand).to_have_attribute("data-hand", str(played["hand"]))
            assert sng_lines(hand) == expected[played["hand"]], (room["room"], played["hand"], sng_lines(hand))
        lines = [line for hand_lines in expected.values() for line in hand_lines]
        seen_out += sum(("出局" if zh else "is out in") in line for line in lines)
        seen_won += sum(("赢得比赛" if zh else "wins the tournament") in line for line in lines)
        if zh:
            texts = page.get_by_test_id("hands-panel").locator("li, h3").all_text_contents()
            assert latin_words(texts) == [], latin_words(texts)
        screenshot(page, shots, f"{lang}-{room['room']}")
        page.get_by_test_id("hands-close").click()
    # every room has a winner and at least one seat out before it
    assert seen_won == 3 and seen_out >= 3, (seen_won, seen_out)
