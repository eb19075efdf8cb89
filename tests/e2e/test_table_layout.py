"""The table as a player sees it at 1280×800, 1366×768 and 390×844: every control inside
the window without scrolling, nothing on the felt covering something else (seats, their
cards, bets, the middle of the table), and pop-up messages clear of the table's buttons."""

from __future__ import annotations

import json

import pytest

from .ui import (
    SIZES,
    create_table,
    enter,
    expect,
    felt_overlaps,
    fit_window,
    intersect,
    outside_viewport,
    screenshot,
    table,
)

pytestmark = pytest.mark.browser

CONTROLS = "[data-testid=actions] button, [data-testid=actions] input, .table-bar button, [data-testid=my-strength]"
FAST = {"action_seconds": 120, "between_hands_seconds": 30, "bot_delay_seconds": 0.2}


def _check_all_sizes(page, shots, name: str) -> None:
    for size_name, size in SIZES.items():
        fit_window(page, size)
        assert page.evaluate("document.scrollingElement.scrollTop") == 0
        off = outside_viewport(page, CONTROLS)
        assert not off, f"{name} at {size_name}: off screen: {off}"
        over = felt_overlaps(page)
        screenshot(page, shots, f"{name}-{size_name}")
        assert not over, f"{name} at {size_name}: overlapping: {over}"


def test_holdem_six_seats(new_page, shots):
    page = new_page(SIZES["desktop"])
    enter(page, "Alexandra Longname")
    create_table(page, "holdem", seats=6, bots=5, small_blind=5, big_blind=10, **FAST)
    expect(page.get_by_test_id("my-turn")).to_be_visible()
    _check_all_sizes(page, shots, "holdem")


def test_zhajinhua_five_seats_with_compare(new_page, shots):
    page = new_page(SIZES["desktop"])
    enter(page, "Alexandra Longname")
    create_table(page, "zhajinhua", seats=5, bots=4, compare_after_rounds=1, **{**FAST, "between_hands_seconds": 4})
    t = table(page)
    for _ in range(30):
        # the bots may all fold before our first turn: then play the next hand
        page.wait_for_function("() => document.querySelector('[data-testid=my-turn]')"
                               " || document.querySelector('[data-testid=table][data-over=\"1\"]')")
        if t.get_attribute("data-over") == "1":
            expect(t).to_have_attribute("data-over", "0", timeout=20_000)
            continue
        if page.locator("[data-testid^=compare-]").count():
            break
        version = t.get_attribute("data-version") or ""
        page.get_by_test_id("act-call").click()
        expect(t).not_to_have_attribute("data-version", version)
    expect(page.locator("[data-testid^=compare-]").first).to_be_attached()
    _check_all_sizes(page, shots, "zhajinhua")
    # after a compare: the line saying who lost (or the result) covers no chips or seats
    page.set_viewport_size(SIZES["desktop"])
    page.locator("[data-testid^=compare-]").first.click()
    page.wait_for_function("() => document.querySelector('[data-testid=last-compare], [data-testid=result]')")
    _check_all_sizes(page, shots, "zhajinhua-compared")


def test_doudizhu_bidding(new_page, shots):
    page = new_page(SIZES["desktop"])
    enter(page, "Alexandra Longname")
    create_table(page, "doudizhu", bots=2, **FAST)
    expect(page.get_by_test_id("my-turn")).to_be_visible()
    _check_all_sizes(page, shots, "doudizhu")


def test_toasts_stay_clear_of_the_table_buttons_and_of_each_other(new_page, shots):
    page = new_page(SIZES["phone"])
    enter(page, "tess")
    create_table(page, "holdem", seats=2, bots=1, **FAST)
    expect(page.get_by_test_id("my-turn")).to_be_visible()
    for size in SIZES.values():
        page.set_viewport_size(size)
        for _ in range(4):  # out-of-turn actions: each refused with a message
            page.evaluate("window.cardroom.act(document.querySelector('[data-testid=table]').dataset.room, {type: 'bet', to: 1})")
        expect(page.get_by_test_id("toast-error").first).to_be_visible()
        boxes = page.evaluate("""() => [...document.querySelectorAll('.toast, [data-testid=sit-out], [data-testid=leave-seat]')]
            .map((el) => { const r = el.getBoundingClientRect();
                           return {kind: el.classList.contains('toast') ? 'toast' : el.dataset.testid, x: r.x, y: r.y, w: r.width, h: r.height}; })""")
        toasts = [b for b in boxes if b["kind"] == "toast"]
        buttons = [b for b in boxes if b["kind"] != "toast"]
        assert 1 <= len(toasts) <= 2, toasts
        for t in toasts:
            for b in buttons:
                assert not intersect(t, b), (t, b)
        for i, a in enumerate(toasts):
            for b in toasts[i + 1:]:
                assert not intersect(a, b), (a, b)
    screenshot(page, shots, "toasts")


def _inject(page, mutate: str) -> None:
    """Draw the table from a changed copy of its latest snapshot (the page renders from
    snapshots alone): ``mutate`` is the body of a function of ``snap``, ``view`` and ``me``."""
    page.evaluate(f"""() => {{
      const app = window.cardroom, room = app.store.current, snap = structuredClone(app.store.snaps.get(room));
      snap.version += 1000;
      const view = snap.view, me = snap.your_seat;
      {mutate}
      app.store.snaps.set(room, snap); app.render(); }}""")


@pytest.mark.parametrize("loser", ["Maximilian Wolfeschlegelsteinhausen", "Bot Grace"])
def test_zhajinhua_compare_line_with_long_names_keeps_to_two_lines(new_page, shots, loser):
    """Mid-hand after a compare won by a long name, with bets in front of every seat:
    the centre's compare line cuts the names (whole in their tooltips) rather than growing
    into the seats' bets (it took four lines and covered the bet below it): two lines at
    the wide sizes, and nothing covered at any size."""
    page = new_page(SIZES["desktop"])
    enter(page, "Alexandra Longname")
    create_table(page, "zhajinhua", seats=5, bots=4, **{**FAST, "between_hands_seconds": 1})
    t = table(page)
    for _ in range(30):  # our turn, with its action bar (the bots may all fold before it: next hand)
        page.wait_for_function("() => document.querySelector('[data-testid=my-turn]')"
                               " || document.querySelector('[data-testid=table][data-over=\"1\"]')")
        if t.get_attribute("data-over") != "1":
            break
        expect(t).to_have_attribute("data-over", "0", timeout=20_000)
    expect(page.get_by_test_id("my-turn")).to_be_visible()
    _inject(page, """
      const other = view.seats.findIndex((s, i) => s && i !== me);
      snap.seats[other].name = LOSER;
      Object.assign(view, {is_over: false, round: 3, stake: 100, pot: 1500});
      view.seats.forEach((s) => { if (s) Object.assign(s, {paid: 300, status: 'playing'}); });
      view.seats[other].status = 'lost';
      app.table.uiFor(snap.room).lastCompare = {hand: snap.hand_no, seat: me, target: other, winner: me, loser: other};"""
            .replace("LOSER", json.dumps(loser)))
    line = page.get_by_test_id("last-compare")
    expect(line).to_contain_text(loser)  # the text is whole, the box cuts it
    for size_name, size in SIZES.items():
        fit_window(page, size)
        lines = page.evaluate("""() => { const el = document.querySelector('[data-testid=last-compare]');
            const s = getComputedStyle(el);
            return (el.clientHeight - parseFloat(s.paddingTop) - parseFloat(s.paddingBottom)) / parseFloat(s.lineHeight || 16); }""")
        over = felt_overlaps(page)
        screenshot(page, shots, f"compare-line-{len(loser)}-{size_name}")
        if size_name != "phone":  # (a phone has the bets in the seats, and room for a third line)
            assert lines <= 2.2, f"the compare line takes {lines:.1f} lines at {size_name}"
        assert not over, f"at {size_name}: overlapping: {over}"


def test_holdem_six_seat_showdown(new_page, shots):
    """Every seat shows its cards at full size: still nothing covers anything."""
    page = new_page(SIZES["desktop"])
    enter(page, "Alexandra Longname")
    create_table(page, "holdem", seats=6, bots=5, small_blind=5, big_blind=10, **FAST)
    expect(page.get_by_test_id("my-turn")).to_be_visible()
    _inject(page, """
      Object.assign(view, {is_over: true, street: 'river', board: [0, 13, 26, 39, 51], to_act: null, legal: null, current_bet: 0});
      const pairs = [[44, 45], [5, 6], [9, 10], [17, 18], [21, 22], [29, 30]];
      view.seats.forEach((s, i) => { if (!s) return;
        Object.assign(s, {folded: false, in_hand: true, bet: 0, cards: pairs[i], won: i === 0 ? 120 : 0,
                          hand: i === 0 ? 'One pair, kings, ace-jack-eight kickers' : 'High card, ace-jack-eight-seven-five'}); });
      view.hole = pairs[me];
      view.pots = [{amount: 120, eligible: [0, 1, 2, 3, 4, 5]}];""")
    expect(page.get_by_test_id("street")).to_have_text("Showdown")
    expect(page.locator(".card.best")).to_have_count(5)  # K K, and A J 8 from the board
    for seat in range(1, 6):
        expect(page.get_by_test_id(f"shown-{seat}").locator("[data-card]")).to_have_count(2)
    _check_all_sizes(page, shots, "holdem-showdown")


def test_doudizhu_long_plays_and_the_cards_left_at_the_end(new_page, shots):
    page = new_page(SIZES["desktop"])
    enter(page, "Alexandra Longname")
    create_table(page, "doudizhu", bots=2, **FAST)
    expect(page.get_by_test_id("my-turn")).to_be_visible()
    # a 12-card straight by the seat on the left, an 8-card one by the seat on the right
    _inject(page, """
      const left = (me + 1) % 3, right = (me + 2) % 3;
      const straight = [4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48];
      const eight = [5, 9, 13, 17, 21, 25, 29, 33];
      Object.assign(view, {phase: 'play', landlord: me, multiplier: 2, bottom: [52, 53, 3],
        to_beat: {seat: left, kind: 'solo_chain', ranks: '3456789TJQKA'},
        trick: [{seat: right, type: 'play', cards: eight, ranks: '3456789T', kind: 'solo_chain'},
                {seat: left, type: 'play', cards: straight, ranks: '3456789TJQKA', kind: 'solo_chain'}],
        legal: {phase: 'play', must_lead: false, can_pass: true, plays: [], to_beat: {seat: left, kind: 'solo_chain', ranks: '3456789TJQKA'}}});
      view.seats[left].cards_left = 5; view.seats[right].cards_left = 9;""")
    expect(page.locator("[data-testid^=last-play-] [data-card]")).to_have_count(20)
    _check_all_sizes(page, shots, "doudizhu-long-plays")

    # the end: 17 cards left in each peasant's hand, jokers among them, and the score table
    page.set_viewport_size(SIZES["desktop"])
    _inject(page, """
      const left = (me + 1) % 3, right = (me + 2) % 3;
      const hands = [null, null, null];
      hands[me] = [];
      hands[left] = [52, 53, 0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, 16, 17, 18];
      hands[right] = [3, 7, 11, 15, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31];
      const points = [0, 0, 0], chipsWon = [0, 0, 0];
      points[me] = 12; points[left] = -6; points[right] = -6;
      chipsWon[me] = 120; chipsWon[left] = -60; chipsWon[right] = -60;
      Object.assign(view, {phase: 'over', is_over: true, landlord: me, to_act: null, legal: null, trick: [],
        result: {type: 'hand_over', winner: 'landlord', landlord: me, hands, points, chips: chipsWon, short: false,
                 multiplier: {bidding: 3, bombs: 0, rockets: 0, spring: true, anti_spring: false, final: 6, capped: false, cap: 0}}});
      snap.playing = false;""")
    expect(page.locator("[data-testid^=rest-]")).to_have_count(2)
    expect(page.get_by_test_id("result")).to_contain_text("spring ×2 = ×6")
    for rest in page.locator("[data-testid^=rest-]").all():
        cards = rest.locator("[data-card]")
        expect(cards).to_have_count(17)
        tops = set(cards.evaluate_all("els => els.map(e => Math.round(e.getBoundingClientRect().top))"))
        assert len(tops) == 1, f"the cards left wrap to {len(tops)} rows"
        width = cards.first.evaluate("e => e.getBoundingClientRect().width")
        assert width >= 24, f"cards left drawn {width} px wide"
    _check_all_sizes(page, shots, "doudizhu-end")
    # on a phone the score and the cards left are listed under the felt
    expect(page.get_by_test_id("result-table")).to_contain_text("spring ×2 = ×6")
    expect(page.get_by_test_id("last-hand-seats").locator("[data-card]")).to_have_count(34)
    assert not outside_viewport(page, "[data-testid=result-table]")
