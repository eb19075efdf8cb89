"""Dou Dizhu's 明牌 (open hand) and 加倍 (doubling) in a real browser (issue #28, item 14):
the choices as buttons, the landlord's hand face up on its seat for the others, each
seat's doubling and own multiplier on its plate, and the multipliers in the score box;
the landlord's view at 1280x800, a peasant's at 390x844 then 1280x800, in English and
in Chinese."""

from __future__ import annotations

import pytest

from . import ui
from .conftest import DESKTOP
from .test_doudizhu import passive, play_out_with_hints
from .test_layout_doudizhu import ranks_cut
from .test_layout_page import LOCALES, box, page_overflow, resize
from .ui import SIZES, create_table, enter, expect, felt_overlaps, screenshot, table, wait_turn

pytestmark = pytest.mark.browser


# The buttons of the bar above the felt, and the text of its title lines (as drawn: a
# centred line's box is the width of its words, not of the column).
_TOP_BAR = """() => [...document.querySelectorAll('.table-bar .btn, .table-bar .table-title > *')].map((el) => {
  const range = document.createRange(); range.selectNodeContents(el);
  const r = el.matches('.btn') ? el.getBoundingClientRect() : range.getBoundingClientRect();
  return {id: el.dataset.testid || el.className, x: r.x, y: r.y, w: r.width, h: r.height}; }).filter((b) => b.w && b.h)"""


def clashes_with_the_top_bar(page) -> list[str]:
    """The buttons and lines of the bar above the felt that the shown hand covers."""
    shown = box(page, "[data-testid=shown-1]")
    return [b["id"] for b in page.evaluate(_TOP_BAR) if ui.intersect(shown, b)]


def doubler(view):
    """Doubles, and otherwise plays as :func:`passive` (never bids, passes when it may)."""
    if view["legal"]["phase"] == "doubling":
        return {"type": "double"}
    return passive(view)


def open_landlord(view):
    """Bids 3, shows the hand before taking the bottom cards, does not double, then leads
    the lowest play (or passes when it may)."""
    legal = view["legal"]
    if legal["phase"] == "bidding":
        return {"type": "bid", "value": 3} if legal.get("bids") else {"type": "pass"}
    if legal["phase"] == "open":
        return {"type": "open"}
    return passive(view)


def test_the_landlord_shows_the_hand_late_doubles_and_the_score_box_shows_each_multiplier(
        new_page, scripted, shots):
    alice = new_page(DESKTOP)
    enter(alice, "alice")
    room = create_table(alice, "doudizhu", stake=10, bidding="score", doubling=True, open_hand=True,
                        action_seconds=120, between_hands_seconds=120)
    expect(alice.locator(".table-title")).to_contain_text("doubling · open hand")
    west, east = scripted("bot-west", doubler), scripted("bot-east", passive)
    west.join(room)
    east.join(room)
    wait_turn(alice, "bidding")
    alice.get_by_test_id("bid-3").click()

    # 明牌 before the bottom cards: x4 offered, the bottom still face down
    wait_turn(alice, "open")
    expect(alice.get_by_test_id("act-open")).to_have_text("Show hand ×4")
    expect(alice.get_by_test_id("act-pass")).to_have_text("Keep hidden")
    expect(alice.get_by_test_id("play-info")).to_contain_text("before taking the bottom cards")
    expect(alice.get_by_test_id("bottom-cards").locator("[data-card]")).to_have_count(0)
    screenshot(alice, shots, "desktop-open-before")
    alice.get_by_test_id("act-pass").click()

    # asked again with the bottom cards in hand: x2
    expect(alice.get_by_test_id("act-open")).to_have_text("Show hand ×2")
    expect(alice.get_by_test_id("bottom-cards").locator("[data-card]")).to_have_count(3)
    expect(alice.get_by_test_id("my-hand").locator("[data-card]")).to_have_count(20)
    alice.get_by_test_id("act-open").click()

    # the open hand: x3 x2 = x6, shown on alice's seat; the others see her 20 cards
    expect(alice.get_by_test_id("multiplier")).to_have_text("×6")
    expect(alice.get_by_test_id("open-0")).to_have_text("Shown ×2")
    # the doubling round: west (seat 1) doubles, east passes, then alice
    wait_turn(alice, "doubling")
    expect(alice.get_by_test_id("last-play-1")).to_have_text("Doubled")
    expect(alice.get_by_test_id("last-play-2")).to_have_text("No double")
    expect(alice.get_by_test_id("act-double")).to_have_text("Double ×2")
    expect(alice.get_by_test_id("act-pass")).to_have_text("No double")
    expect(alice.get_by_test_id("phase-note")).to_have_text("Doubling: your choice")
    assert not felt_overlaps(alice), felt_overlaps(alice)
    screenshot(alice, shots, "desktop-doubling")
    alice.get_by_test_id("act-double").click()

    # each seat's own multiplier: west 6x2x2 = 24, east 6x2 = 12, alice 24 + 12 = 36
    wait_turn(alice, "play")
    expect(alice.get_by_test_id("doubled-0")).to_have_text("Doubled")
    expect(alice.get_by_test_id("doubled-1")).to_be_visible()
    expect(alice.get_by_test_id("doubled-2")).to_have_count(0)
    for seat, m in ((0, 36), (1, 24), (2, 12)):
        expect(alice.get_by_test_id(f"seat-mult-{seat}")).to_have_text(f"×{m}")
    for bot in (west, east):
        view = bot.snapshots[-1]["view"]
        assert view["seats"][0]["shown"] is not None and len(view["seats"][0]["shown"]) == 20
        me = view["you"]
        assert all(s["shown"] is None for s in view["seats"] if s["seat"] != 0), view["seats"]
        assert view["hand"] is not None and me != 0
    assert not felt_overlaps(alice), felt_overlaps(alice)
    screenshot(alice, shots, "desktop-play")
    history = alice.get_by_test_id("history")
    expect(history).to_contain_text("alice keeps the hand hidden")
    expect(history).to_contain_text("alice shows the hand")
    expect(history).to_contain_text("bot-west doubles")
    expect(history).to_contain_text("bot-east does not double")

    # play out with hints: a spring (x2): x12, west's pair 48, east's 24, alice's 72
    play_out_with_hints(alice, 20)
    result = alice.get_by_test_id("result")
    expect(result).to_contain_text("bid ×3 · spring ×2 · open hand ×2 = ×12")
    expect(alice.get_by_test_id("score-mult-0")).to_have_text("×72 doubled")
    expect(alice.get_by_test_id("score-mult-1")).to_have_text("×48 doubled")
    expect(alice.get_by_test_id("score-mult-2")).to_have_text("×24")
    expect(alice.get_by_test_id("score-0")).to_contain_text("+720")
    expect(alice.get_by_test_id("seat-0")).to_have_attribute("data-stack", "1720")
    expect(alice.get_by_test_id("seat-1")).to_have_attribute("data-stack", "520")
    expect(alice.get_by_test_id("seat-2")).to_have_attribute("data-stack", "760")
    spill = result.evaluate("el => el.scrollWidth - el.clientWidth")
    assert spill <= 0, f"the score table spills {spill} px past its box"
    screenshot(alice, shots, "desktop-result")
    assert not any(b.errors for b in (west, east)), [b.errors for b in (west, east)]


# What the page says, in each language.
WORDS = {
    "en": {"open": "Shown ×4", "double": "Double ×2", "no_double": "No double", "doubled": "Doubled",
           "shows": "bot-lord shows the hand"},
    "zh": {"open": "明牌 ×4", "double": "加倍 ×2", "no_double": "不加倍", "doubled": "加倍", "shows": "bot-lord 明牌"},
}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_peasant_on_a_phone_sees_the_open_hand_and_doubles(new_page, scripted, shots, lang):
    words = WORDS[lang]
    alice = new_page(SIZES["phone"], locale=LOCALES[lang])
    enter(alice, "alice")
    room = create_table(alice, "doudizhu", doubling=True, open_hand=True, action_seconds=120,
                        between_hands_seconds=120)
    lord, east = scripted("bot-lord", open_landlord), scripted("bot-east", passive)
    lord.join(room)  # seat 1: bids first, bids 3 and shows the hand before the bottom cards
    east.join(room)

    # the doubling round: east (seat 2) passes, then alice
    wait_turn(alice, "doubling")
    shown = alice.get_by_test_id("shown-1")
    expect(shown.locator("[data-card]")).to_have_count(20)
    expect(alice.get_by_test_id("open-1")).to_have_text(words["open"])
    expect(alice.get_by_test_id("multiplier")).to_have_text("×12")
    expect(alice.get_by_test_id("act-double")).to_have_text(words["double"])
    expect(alice.get_by_test_id("act-pass")).to_have_text(words["no_double"])
    expect(alice.get_by_test_id("last-play-2")).to_have_text(words["no_double"])
    # the cards shown are the landlord's, never the other peasant's
    lord_cards = set(lord.snapshots[-1]["view"]["hand"])
    drawn = set(int(c) for c in shown.locator("[data-card]").evaluate_all("els => els.map(e => e.dataset.card)"))
    assert drawn == lord_cards
    expect(alice.get_by_test_id("shown-2")).to_have_count(0)
    # every rank readable, all on screen, nothing on the felt covering anything
    assert not ranks_cut(alice, "[data-testid=shown-1] .shown-fan"), ranks_cut(alice, "[data-testid=shown-1] .shown-fan")
    edges = shown.evaluate("el => [el.getBoundingClientRect().left, el.getBoundingClientRect().right]")
    assert 0 <= edges[0] and edges[1] <= SIZES["phone"]["width"], edges
    assert not felt_overlaps(alice), felt_overlaps(alice)
    screenshot(alice, shots, f"phone-doubling-{lang}")
    alice.get_by_test_id("act-double").click()

    # the landlord did not double: alice 12 x 2 = 24, east 12, the landlord 36
    expect(alice.get_by_test_id("doubled-0")).to_have_text(words["doubled"])
    for seat, m in ((0, 24), (1, 36), (2, 12)):
        expect(alice.get_by_test_id(f"seat-mult-{seat}")).to_have_text(f"×{m}")
    expect(table(alice)).to_have_attribute("data-street", "play")
    expect(alice.get_by_test_id("history")).to_contain_text(words["shows"])
    # as the landlord plays, the shown hand follows; the play on the felt stays clear of it
    expect(shown.locator("[data-card]")).to_have_count(19)
    expect(alice.get_by_test_id("last-play-1").locator("[data-card]")).to_have_count(1)
    assert not felt_overlaps(alice), felt_overlaps(alice)
    assert not clashes_with_the_top_bar(alice)
    screenshot(alice, shots, f"phone-play-{lang}")
    for size in ("desktop", "laptop"):  # 1280x800, 1366x768
        resize(alice, size)
        expect(alice.get_by_test_id("shown-1").locator("[data-card]")).to_have_count(19)
        screenshot(alice, shots, f"{size}-play-{lang}")
        edges = shown.evaluate("el => [el.getBoundingClientRect().left, el.getBoundingClientRect().right]")
        assert 0 <= edges[0] and edges[1] <= SIZES[size]["width"], edges
        assert not ranks_cut(alice, "[data-testid=shown-1] .shown-fan"), ranks_cut(alice, "[data-testid=shown-1] .shown-fan")
        assert not felt_overlaps(alice), felt_overlaps(alice)
        assert not clashes_with_the_top_bar(alice), (size, clashes_with_the_top_bar(alice))
        assert page_overflow(alice) <= 0, f"at {size} the page scrolls {page_overflow(alice)} px"
    assert not any(b.errors for b in (lord, east)), [b.errors for b in (lord, east)]
