"""The Hold'em table as a player sees it (issue #28, items 2, 4 and 12): the top seat's
cards keep clear of its own bet chip, of the street label and of the board, mid-hand and
at a showdown, at 1280×800, 1366×768 and 390×844, in English and Chinese; the result in
the middle takes no more than two lines on a desktop; on a phone the winner's hand is
named where it can be read."""

from __future__ import annotations

from typing import Any

import pytest

from .test_layout_page import (
    LOCALES,
    WIDE,
    inject,
    page_overflow,
    resize,
    seated_at_my_turn,
    visible_unobstructed,
)
from .ui import SIZES, expect, felt_overlaps, intersect, screenshot

pytestmark = pytest.mark.browser

# the seat items of one seat, and its bet, measured in the page
_SEAT_ITEMS = """() => [...document.querySelectorAll('.seat-layer > .seat')].map((seat) => {
  const r = (el) => { const b = el.getBoundingClientRect(); return {x: b.x, y: b.y, w: b.width, h: b.height}; };
  const n = seat.dataset.seat;
  const own = [...seat.querySelectorAll('.plate, .seat-cards > *')].map(r).filter((b) => b.w && b.h);
  const bet = document.querySelector(`.seat-layer > .bet[data-testid=bet-${n}]`);
  return {seat: n, own, bet: bet ? r(bet) : null};
})"""


def own_bet_covered(page: Any) -> list[str]:
    """Seats whose bet chip on the felt intersects their own plate or cards."""
    return [f"seat {s['seat']}: bet {s['bet']} × {o}" for s in page.evaluate(_SEAT_ITEMS)
            if s["bet"] for o in s["own"] if intersect(s["bet"], o)]


def result_lines(page: Any) -> float:
    """How many lines of text the result in the middle of the felt takes."""
    return page.evaluate("""() => { const el = document.querySelector('[data-testid=result]');
        const s = getComputedStyle(el);
        const inner = el.clientHeight - parseFloat(s.paddingTop) - parseFloat(s.paddingBottom);
        return inner / parseFloat(s.lineHeight === 'normal' ? parseFloat(s.fontSize) * 1.35 : s.lineHeight); }""")


# Every seat in the hand with a bet, and what each did last written on its plate: the
# longest note a seat gets ("Raise to 1,000 · all-in").
_MID_HAND = """
  view.seats.forEach((s) => { if (s) Object.assign(s, {folded: false, in_hand: true, all_in: false, bet: 1000}); });
  view.current_bet = 1000;
  ui.acts = {};
  view.seats.forEach((s, i) => { if (s && i !== me) ui.acts[i] = {kind: 'raise', amount: 1000, allIn: true}; });
"""


@pytest.mark.parametrize("seats", [6, 2])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_top_seat_keeps_clear_of_its_bet_and_the_board(new_page, shots, lang, seats):
    """Mid-hand, every seat with a bet and a two-line note on its plate: no seat's cards
    cover its own bet chip, nothing of a seat covers the street label or the board, and
    the page does not scroll at the desktop sizes."""
    page = new_page(SIZES["desktop"], locale=LOCALES[lang])
    seated_at_my_turn(page, "holdem", seats=seats, bots=seats - 1, small_blind=5, big_blind=10)
    inject(page, _MID_HAND)
    expect(page.locator(".seat-layer > .bet")).to_have_count(seats)
    for size_name in SIZES:
        resize(page, size_name)
        screenshot(page, shots, f"holdem{seats}-{lang}-{size_name}")
        assert not own_bet_covered(page), f"at {size_name}: {own_bet_covered(page)}"
        assert not felt_overlaps(page), f"at {size_name}: {felt_overlaps(page)}"
        if size_name in WIDE:
            assert page_overflow(page) <= 0, f"at {size_name} the page scrolls {page_overflow(page)} px"


# A showdown won by the seat at the top of the table (heads-up: the other seat), its
# hand named on its plate and in the result; the loser shows too.
_SHOWDOWN = """
  const top = (me + Math.floor(snap.seats.length / 2)) % snap.seats.length;
  Object.assign(view, {is_over: true, street: 'river', board: [28, 24, 2, 51, 39], to_act: null, legal: null, current_bet: 0});
  const pairs = {[me]: [46, 40], [top]: [29, 25]};
  view.seats.forEach((s, i) => { if (!s) return;
    const shown = i in pairs;
    Object.assign(s, {folded: !shown, in_hand: shown, shown, bet: 0, won: i === top ? 2000 : 0, cards: shown ? pairs[i] : null,
                      hand: i === top ? 'Two pair, nines and eights, ace kicker' : shown ? 'High card, ace, king-queen-jack-nine' : null}); });
  view.hole = pairs[me];
  view.pots = [{amount: 2000, eligible: [me, top]}];
  snap.seats[top].name = 'Maximilian Wolfeschlegel';
  snap.playing = false;
"""


@pytest.mark.parametrize("seats", [2, 6])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_showdown_won_by_the_top_seat(new_page, shots, lang, seats):
    """The top seat wins a showdown with a long name: its shown cards cover neither the
    Showdown label, the board nor the result; on a desktop the result takes at most two
    lines; on a phone the winning hand is named on screen, uncovered."""
    page = new_page(SIZES["desktop"], locale=LOCALES[lang])
    seated_at_my_turn(page, "holdem", seats=seats, bots=seats - 1, small_blind=5, big_blind=10)
    inject(page, _SHOWDOWN)
    expect(page.get_by_test_id("street")).to_be_visible()
    expect(page.locator(".card.best")).to_have_count(5)  # 9 9 8 8 from the hands and the board, the ace kicker
    hand = "两对，9 和 8" if lang == "zh" else "Two pair, nines and eights"
    for size_name in SIZES:
        resize(page, size_name)
        screenshot(page, shots, f"showdown{seats}-{lang}-{size_name}")
        assert not felt_overlaps(page), f"at {size_name}: {felt_overlaps(page)}"
        if size_name in WIDE:
            assert result_lines(page) <= 2.2, f"at {size_name} the result takes {result_lines(page):.1f} lines"
            assert page_overflow(page) <= 0, f"at {size_name} the page scrolls {page_overflow(page)} px"
        # the winning hand, in words, somewhere a player reads it
        named = page.locator("[data-testid=result], .seat.winner .seat-note").filter(has_text=hand)
        expect(named.first).to_be_visible()
        assert not visible_unobstructed(page, "[data-testid=result]"), visible_unobstructed(page, "[data-testid=result]")
