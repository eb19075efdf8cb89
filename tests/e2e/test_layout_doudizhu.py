"""The Dou Dizhu table as a player sees it (issue #28, items 3, 5 and 12): the score at the
end of a hand fits its box with every name on one line and every leftover card's rank
readable (desktop), and on a phone all of it on screen without scrolling; on a phone a
long play is not covered by its player's card count, and a hand of 20 cards gives every
card a strip wide enough for a finger; "1 card", not "1 cards"."""

from __future__ import annotations

import re
from typing import Any

import pytest

from .conftest import discard
from .test_layout_holdem import result_lines
from .test_layout_page import LOCALES, WIDE, box, inject, page_overflow, resize, seated_at_my_turn
from .ui import SIZES, expect, felt_overlaps, intersect, screenshot

pytestmark = pytest.mark.browser

# The end of a hand: the landlord (you, or the seat LORD places after you) went out first
# (a spring); 17 cards left in each peasant's hand, jokers and tens among them; the bots
# renamed to two-word names.
_END = """
  const left = (me + 1) % 3, right = (me + 2) % 3, lord = (me + LORD) % 3;
  snap.seats[left].name = 'Bot Ada'; snap.seats[right].name = 'Bot Alan Turing';
  const rests = [[52, 53, 32, 33, 34, 4, 5, 6, 8, 9, 10, 12, 13, 14, 16, 17, 18],
                 [35, 7, 11, 15, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31]];
  const hands = [0, 1, 2].map((s) => (s === lord ? [] : rests.shift()));
  const points = [0, 1, 2].map((s) => (s === lord ? 24 : -12));
  const chipsWon = points.map((p) => p * 100);
  Object.assign(view, {phase: 'over', is_over: true, landlord: lord, to_act: null, legal: null, trick: [], hand: hands[me],
    result: {type: 'hand_over', winner: 'landlord', landlord: lord, hands, points, chips: chipsWon, short: false,
             multiplier: {bidding: 3, bombs: 1, rockets: 0, spring: true, anti_spring: false, final: 12, capped: false, cap: 0}}});
  view.seats.forEach((s, i) => { if (s) { s.role = i === lord ? 'landlord' : 'peasant'; s.cards_left = hands[i].length; } });
  snap.playing = false;
"""

# Every leftover card's rank is readable: the next card of the fan starts past it.
_RANKS_CUT = """(sel) => [...document.querySelectorAll(sel)].flatMap((fan) => {
  const cards = [...fan.querySelectorAll('[data-card]')];
  return cards.slice(0, -1).flatMap((card, i) => {
    const rank = card.querySelector('.corner .rk, .corner .jk').getBoundingClientRect();  // as drawn (a 10 is narrowed)
    const next = cards[i + 1].getBoundingClientRect();
    return rank.right > next.left + 0.5 ? [`${card.getAttribute('aria-label')}: rank to ${rank.right}, next card at ${next.left}`] : [];
  });
})"""


def ranks_cut(page: Any, selector: str) -> list[str]:
    return page.evaluate(_RANKS_CUT, selector)


def _end_of_hand(page: Any, lord: int = 0) -> None:
    """The end of a hand whose landlord sits ``lord`` places after this page's seat."""
    inject(page, _END.replace("LORD", str(lord)))
    expect(page.get_by_test_id("table")).to_have_attribute("data-over", "1")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_score_box_fits_and_the_cards_left_are_readable_on_a_desktop(new_page, shots, lang):
    page = new_page(SIZES["desktop"], locale=LOCALES[lang])
    seated_at_my_turn(page, "doudizhu", bots=2)
    _end_of_hand(page)
    for size_name in WIDE:
        resize(page, size_name)
        screenshot(page, shots, f"end-{lang}-{size_name}")
        result = page.get_by_test_id("result")
        spill = result.evaluate("el => el.scrollWidth - el.clientWidth")
        assert spill <= 0, f"at {size_name} the score table spills {spill} px past its box"
        inside, score = box(page, "[data-testid=result]"), box(page, "[data-testid=result] table.score")
        assert score["x"] >= inside["x"] and score["x"] + score["w"] <= inside["x"] + inside["w"] + 0.5, (score, inside)
        wrapped = page.evaluate("""() => [...document.querySelectorAll('[data-testid=result] table.score td:first-child')]
            .filter((td) => td.getClientRects().length && td.clientHeight > 1.6 * parseFloat(getComputedStyle(td).lineHeight))
            .map((td) => td.textContent)""")
        assert not wrapped, f"at {size_name} these names wrap: {wrapped}"
        expect(page.locator("[data-testid^=rest-] [data-card]")).to_have_count(34)
        assert not ranks_cut(page, "[data-testid^=rest-]"), f"at {size_name}: {ranks_cut(page, '[data-testid^=rest-]')}"
        assert not felt_overlaps(page), f"at {size_name}: {felt_overlaps(page)}"
        assert page_overflow(page) <= 0, f"at {size_name} the page scrolls {page_overflow(page)} px"


@pytest.mark.parametrize(("lang", "lord"), [("en", 0), ("zh", 0), ("en", 1), ("zh", 2)])
def test_the_phone_result_is_on_screen_without_scrolling(new_page, shots, lang, lord):
    """On a phone the score and every hand's leftover cards (yours too, when you lost as a
    peasant) are listed under the felt: all of it on screen at 390×844, the ranks
    readable, the names there; the felt's result on one line, not squeezed to three."""
    page = new_page(SIZES["phone"], locale=LOCALES[lang])
    seated_at_my_turn(page, "doudizhu", bots=2)
    _end_of_hand(page, lord)
    panel = page.locator(".result-below")
    expect(panel).to_be_visible()
    expect(page.get_by_test_id("last-hand-seats").locator("[data-card]")).to_have_count(34)
    screenshot(page, shots, f"end-{lang}-{lord}-phone")
    assert page.evaluate("window.scrollY") == 0
    below = box(page, ".result-below")
    assert below["y"] + below["h"] <= SIZES["phone"]["height"], f"the result ends at {below['y'] + below['h']:.0f} px"
    assert not ranks_cut(page, ".result-below .rest-fan")
    assert result_lines(page) <= 1.2, f"the felt's result takes {result_lines(page):.1f} lines"  # "Landlord wins · ×12"
    for name in ("Bot Ada", "Bot Alan Turing"):
        expect(panel.get_by_text(name, exact=False).first).to_be_visible()


_LONG_PLAYS = """
  const left = (me + 1) % 3, right = (me + 2) % 3;
  const straight = [4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48];
  const eight = [5, 9, 13, 17, 21, 25, 29, 33];
  Object.assign(view, {phase: 'play', landlord: me, multiplier: 2, bottom: [52, 53, 3],
    to_beat: {seat: left, kind: 'solo_chain', ranks: '3456789TJQKA'},
    trick: [{seat: right, type: 'play', cards: eight, ranks: '3456789T', kind: 'solo_chain'},
            {seat: left, type: 'play', cards: straight, ranks: '3456789TJQKA', kind: 'solo_chain'}],
    legal: {phase: 'play', must_lead: false, can_pass: true, plays: [], to_beat: {seat: left, kind: 'solo_chain', ranks: '3456789TJQKA'}}});
  view.seats[left].cards_left = 5; view.seats[right].cards_left = 9;
"""


def test_a_long_play_is_not_covered_by_its_players_card_count(new_page, shots):
    """A 12-card and an 8-card straight on the felt: no card count covers a card of any
    play (its own player's included), at the three sizes."""
    page = new_page(SIZES["phone"])
    seated_at_my_turn(page, "doudizhu", bots=2)
    inject(page, _LONG_PLAYS)
    expect(page.locator("[data-testid^=last-play-] [data-card]")).to_have_count(20)
    for size_name in SIZES:
        resize(page, size_name)
        screenshot(page, shots, f"long-plays-{size_name}")
        counts = page.evaluate("""() => [...document.querySelectorAll('[data-testid^=count-]')].map((el) => {
            const r = el.getBoundingClientRect(); return {id: el.dataset.testid, x: r.x, y: r.y, w: r.width, h: r.height}; })""")
        cards = page.evaluate("""() => [...document.querySelectorAll('[data-testid^=last-play-] [data-card]')].map((el) => {
            const r = el.getBoundingClientRect(); return {id: el.getAttribute('aria-label'), x: r.x, y: r.y, w: r.width, h: r.height}; })""")
        assert len(counts) == 2
        covered = [f"{c['id']} × {k['id']}" for c in cards for k in counts if intersect(c, k)]
        assert not covered, f"at {size_name}: {covered}"
        assert not felt_overlaps(page), f"at {size_name}: {felt_overlaps(page)}"


_TWENTY = """
  const left = (me + 1) % 3, right = (me + 2) % 3;
  Object.assign(view, {phase: 'play', landlord: me, multiplier: 3, bottom: [52, 53, 3], to_act: me, trick: [], to_beat: null,
    hand: [53, 52, 51, 50, 47, 46, 43, 39, 35, 34, 31, 27, 23, 19, 18, 15, 11, 7, 3, 0],
    legal: {phase: 'play', must_lead: true, can_pass: false, plays: [{ranks: '3'}], to_beat: null}});
  view.seats[me].cards_left = 20; view.seats[left].cards_left = 17; view.seats[right].cards_left = 17;
  view.seats.forEach((s, i) => { if (s) s.role = i === me ? 'landlord' : 'peasant'; });
"""

# each card of the hand: the part of it a finger can press (the next card of its row
# starts where it stops), and where that part is
_STRIPS = """() => {
  const cards = [...document.querySelectorAll('[data-testid=hand-card]')].map((el) => ({el, r: el.getBoundingClientRect()}));
  return cards.map(({el, r}, i) => {
    const next = cards.slice(i + 1).find((c) => Math.abs(c.r.top - r.top) < 2 && c.r.left > r.left);
    const right = next ? Math.min(next.r.left, r.right) : r.right;
    const below = cards.slice(i + 1).filter((c) => c.r.top > r.top + 2 && c.r.left < right && c.r.right > r.left)
      .reduce((top, c) => Math.min(top, c.r.top), r.bottom);
    return {card: el.dataset.card, x: (r.left + right) / 2, y: (r.top + below) / 2, w: right - r.left, h: below - r.top,
            left: r.left, right: r.right};
  });
}"""


def test_twenty_cards_on_a_phone_each_leave_a_finger_wide_strip(new_page, shots):
    """The landlord's 20 cards at 390×844: every card shows a strip at least 24 px wide
    and 24 px high, on screen; a tap on a card's strip selects that card, a second tap
    deselects it."""
    page = new_page(SIZES["phone"])
    seated_at_my_turn(page, "doudizhu", bots=2)
    inject(page, _TWENTY)
    cards = page.get_by_test_id("hand-card")
    expect(cards).to_have_count(20)
    screenshot(page, shots, "twenty-phone")
    strips = page.evaluate(_STRIPS)
    narrow = [s for s in strips if s["w"] < 24 or s["h"] < 24]
    assert not narrow, f"strips too small to tap: {narrow}"
    width = SIZES["phone"]["width"]
    assert all(s["left"] >= 0 and s["right"] <= width for s in strips), strips
    assert page_overflow(page) <= 0 or page.evaluate("window.scrollY") == 0

    discard(page)  # touch emulation stays on
    cdp = page.context.new_cdp_session(page)
    cdp.send("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 1})

    def tap(p: dict[str, Any]) -> None:
        point = {"x": p["x"], "y": p["y"], "id": 1}
        cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [point]})
        cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})

    for s in (strips[0], strips[7], strips[8], strips[19]):
        tap(s)
        expect(page.locator(f"[data-testid=hand-card][data-card='{s['card']}']")).to_have_class(re.compile(r"\bselected\b"))
        tap(s)
        expect(page.locator("[data-testid=hand-card].selected")).to_have_count(0)


def test_one_card_is_one_card(new_page, shots):
    """A hand down to one card says "1 card" on your seat; an opponent's one card left
    says "1 card left" in its tooltip."""
    page = new_page(SIZES["desktop"])
    seated_at_my_turn(page, "doudizhu", bots=2)
    inject(page, """
      const left = (me + 1) % 3;
      Object.assign(view, {phase: 'play', landlord: me, hand: [20], to_act: (me + 2) % 3, legal: null, trick: []});
      view.seats[me].cards_left = 1; view.seats[left].cards_left = 1;
      view.seats.forEach((s, i) => { if (s) s.role = i === me ? 'landlord' : 'peasant'; });""")
    me = page.get_by_test_id("table").get_attribute("data-your-seat")
    left = (int(me) + 1) % 3
    expect(page.get_by_test_id(f"seat-{me}").locator(".badge").filter(has_text="card")).to_have_text("1 card")
    expect(page.get_by_test_id(f"count-{left}")).to_have_attribute("title", "1 card left")
    screenshot(page, shots, "one-card")
