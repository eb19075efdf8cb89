"""The Zha Jin Hua table as a player sees it (issue #28, item 6): on your turn with the
raise row and the compare row both showing, the action bar is at its tallest and the
felt at its shortest; your own chips in the pot still show beside your cards, not behind
them, at 1280×800, 1366×768 and 390×844."""

from __future__ import annotations

import pytest

from .test_layout_holdem import own_bet_covered, result_lines
from .test_layout_page import LOCALES, WIDE, inject, page_overflow, resize, seated_at_my_turn
from .ui import SIZES, expect, felt_overlaps, screenshot

pytestmark = pytest.mark.browser

# Round 3 of a five-seat hand: everybody has paid, you have looked; you may look no more,
# but call, raise the stake (the slider and its quick levels) or compare with two players.
_RAISE_AND_COMPARE = """
  const others = view.seats.map((s, i) => i).filter((i) => view.seats[i] && i !== me);
  Object.assign(view, {is_over: false, round: 3, stake: 20, pot: 500, to_act: me});
  view.seats.forEach((s) => { if (s) Object.assign(s, {dealt_in: true, paid: 100, status: 'playing', seen: true}); });
  view.legal = {actions: ['call', 'raise', 'compare', 'fold'], call: {cost: 40},
                raise: {min: 21, max: 100, cost_per_unit: 2, min_cost: 42, max_cost: 200},
                compare: {targets: others.slice(0, 2), cost: 40}, fold: {}};
  ui.acts = {};
  others.forEach((i) => { ui.acts[i] = {kind: 'raise', amount: 20}; });
"""


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_your_chips_show_beside_your_cards_with_raise_and_compare_rows(new_page, shots, lang):
    page = new_page(SIZES["desktop"], locale=LOCALES[lang])
    seated_at_my_turn(page, "zhajinhua", seats=5, bots=4)
    inject(page, _RAISE_AND_COMPARE)
    expect(page.get_by_test_id("raise-slider")).to_be_visible()
    expect(page.locator("[data-testid^=compare-]")).to_have_count(2)
    expect(page.locator(".seat-layer > .bet")).to_have_count(5)
    for size_name in SIZES:
        resize(page, size_name)
        screenshot(page, shots, f"zhajinhua-{lang}-{size_name}")
        assert not own_bet_covered(page), f"at {size_name}: {own_bet_covered(page)}"
        assert not felt_overlaps(page), f"at {size_name}: {felt_overlaps(page)}"
        if size_name in WIDE:
            assert page_overflow(page) <= 0, f"at {size_name} the page scrolls {page_overflow(page)} px"


# still blind: the bar also offers Look and explains the blind stake, the middle says
# what the stake costs blind and seen (its longest line)
_BLIND = """
  view.seats[me].seen = false;
  view.legal.actions.unshift('look'); view.legal.look = {};
  view.legal.call = {cost: 20}; view.legal.compare.cost = 20;
"""


def _stake_line_gap(page) -> float:
    """Pixels between the bottom of the stake line in the middle and the top of your cards."""
    return page.evaluate("""() => {
      const me = document.querySelector('[data-testid=table]').dataset.yourSeat;
      const cards = document.querySelector(`[data-testid=seat-${me}] .cards`).getBoundingClientRect();
      return cards.top - document.querySelector('[data-testid=stake]').getBoundingClientRect().bottom; }""")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_after_a_compare_the_middle_stays_clear_of_your_cards(new_page, shots, lang):
    """The same tallest action bar while you are still blind, before and after you won a
    compare this hand: the stake line, and then also the compare line's two lines, in the
    middle cover neither your cards nor anything else (CI saw the compare line reach down
    to your cards at 1280x800, and the stake line alone touch them at 1366x768)."""
    page = new_page(SIZES["desktop"], locale=LOCALES[lang])
    seated_at_my_turn(page, "zhajinhua", seats=5, bots=4)
    inject(page, _RAISE_AND_COMPARE + _BLIND + """
      ui.acts[me] = {kind: 'call', amount: 10};  // your plate says what you did: a line taller""")
    expect(page.get_by_test_id("act-look")).to_be_visible()
    expect(page.get_by_test_id("stake")).to_be_visible()
    for size_name in SIZES:
        resize(page, size_name)
        screenshot(page, shots, f"blind-{lang}-{size_name}")
        assert not felt_overlaps(page), f"blind, at {size_name}: {felt_overlaps(page)}"
        # not just clear: a header a line taller (hand 2's Verify button) must not close the gap
        assert _stake_line_gap(page) >= 6, f"blind, at {size_name}: {_stake_line_gap(page):.1f} px over your cards"
    inject(page, _RAISE_AND_COMPARE + _BLIND + """
      ui.acts[me] = {kind: 'compare', amount: 20};  // your plate says "Compared": a line taller
      ui.lastCompare = {hand: snap.hand_no, seat: me, target: others[0], winner: me, loser: others[0]};""")
    expect(page.get_by_test_id("last-compare")).to_be_visible()
    expect(page.locator("[data-testid^=compare-]")).to_have_count(2)
    for size_name in SIZES:
        resize(page, size_name)
        screenshot(page, shots, f"compared-{lang}-{size_name}")
        assert not felt_overlaps(page), f"compared, at {size_name}: {felt_overlaps(page)}"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_result_is_not_squeezed(new_page, shots, lang):
    """A hand won by a player with a long name: the result in the middle says who won
    and how much on one line on a desktop (two at most on a phone), covering nothing."""
    page = new_page(SIZES["desktop"], locale=LOCALES[lang])
    seated_at_my_turn(page, "zhajinhua", seats=5, bots=4)
    inject(page, """
      Object.assign(view, {is_over: true, to_act: null, legal: null, pot: 1500, winner: me,
                           payouts: [{seat: me, amount: 1500}]});
      view.seats.forEach((s, i) => { if (s) Object.assign(s, {dealt_in: true, paid: 300, status: i === me ? 'playing' : 'folded'}); });
      snap.playing = false;""")
    expect(page.get_by_test_id("result")).to_be_visible()
    for size_name in SIZES:
        resize(page, size_name)
        screenshot(page, shots, f"result-{lang}-{size_name}")
        lines = result_lines(page)
        assert lines <= (1.2 if size_name in WIDE else 2.2), f"at {size_name} the result takes {lines:.1f} lines"
        assert not felt_overlaps(page), f"at {size_name}: {felt_overlaps(page)}"
