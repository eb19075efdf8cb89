"""The page around the tables as a player sees it (issue #28, items 4 and 12): messages at
the top of a table cover neither the top seats (phone) nor the "Hand history" heading
(desktop); the turn clock stops being green well before the last seconds; the phone
lobby names the button it shows; no table page scrolls at 1280×800 or 1366×768.

The helpers here (``inject``, ``box``, ``no_page_scroll``, ...) are shared by the other
``test_layout_*`` files."""

from __future__ import annotations

from typing import Any

import pytest

from .ui import SIZES, create_table, enter, expect, fit_window, intersect, screenshot, table

pytestmark = pytest.mark.browser

FAST = {"action_seconds": 120, "between_hands_seconds": 30, "bot_delay_seconds": 0.2}
LOCALES = {"en": "en-US", "zh": "zh-CN"}
WIDE = ("desktop", "laptop")


def inject(page: Any, mutate: str) -> None:
    """Draw the table from a changed copy of its latest snapshot (the page renders from
    snapshots alone): ``mutate`` is the body of a function of ``app``, ``snap``, ``view``,
    ``me`` (your seat) and ``ui`` (the room's page state: seat notes, last compare)."""
    page.evaluate(f"""() => {{
      const app = window.cardroom, room = app.store.current, snap = structuredClone(app.store.snaps.get(room));
      snap.version += 1000;
      const view = snap.view, me = snap.your_seat, ui = app.table.uiFor(room);
      {mutate}
      app.store.snaps.set(room, snap); app.render(); }}""")


def box(page: Any, selector: str) -> dict[str, float] | None:
    """The bounding box of the first element matching ``selector`` (None if none is drawn)."""
    return page.evaluate("""(sel) => { const el = document.querySelector(sel); if (!el) return null;
        const r = el.getBoundingClientRect(); return r.width && r.height ? {x: r.x, y: r.y, w: r.width, h: r.height} : null; }""",
                         selector)


def boxes(page: Any, selector: str) -> list[dict[str, Any]]:
    """The bounding boxes of every drawn element matching ``selector``, with its test id."""
    return page.evaluate("""(sel) => [...document.querySelectorAll(sel)].map((el) => {
        const r = el.getBoundingClientRect();
        return {id: el.dataset.testid || el.className, x: r.x, y: r.y, w: r.width, h: r.height}; }).filter((b) => b.w && b.h)""",
                         selector)


def page_overflow(page: Any) -> int:
    """How many pixels the page scrolls down (0: everything fits the window)."""
    return page.evaluate("document.documentElement.scrollHeight - window.innerHeight")


def resize(page: Any, size_name: str) -> None:
    fit_window(page, SIZES[size_name])


def seated_at_my_turn(page: Any, game: str, name: str = "Alexandra Longname", **options: Any) -> str:
    """Enter, open a table of ``game`` against the server's bots and wait for this page's
    turn; returns the room id."""
    enter(page, name)
    room = create_table(page, game, **{**FAST, "between_hands_seconds": 2, **options})
    t = table(page)
    for _ in range(20):  # the bots may all fold before this page's turn: then the next hand
        page.wait_for_function("() => document.querySelector('[data-testid=my-turn]')"
                               " || document.querySelector('[data-testid=table][data-over=\"1\"]')")
        if t.get_attribute("data-over") != "1":
            break
        expect(t).to_have_attribute("data-over", "0", timeout=20_000)
    expect(page.get_by_test_id("my-turn")).to_be_visible()
    return room


def visible_unobstructed(page: Any, selector: str) -> list[str]:
    """Elements matching ``selector`` that are not wholly on screen, or whose middle is
    covered by another element (``elementFromPoint``)."""
    return page.evaluate("""(sel) => [...document.querySelectorAll(sel)].flatMap((el) => {
        const r = el.getBoundingClientRect();
        if (!r.width || !r.height) return [`${sel} not drawn`];
        if (r.left < 0 || r.top < 0 || r.right > innerWidth + .5 || r.bottom > innerHeight + .5) return [`${el.textContent} off screen`];
        const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        return top && (top === el || el.contains(top)) ? [] : [`${el.textContent} covered by ${top && top.className}`];
      })""", selector)


# --- messages at the top of a table ---------------------------------------------------------------


def _shout(page: Any, n: int = 2) -> None:
    """``n`` refused actions in a row: each answered with an error message."""
    for _ in range(n):
        page.evaluate("window.cardroom.act(document.querySelector('[data-testid=table]').dataset.room, {type: 'bet', to: 1})")
    expect(page.get_by_test_id("toast-error").first).to_be_visible()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_messages_cover_neither_the_top_seats_nor_the_hand_history(new_page, shots, lang):
    """Two error messages at a six-seat Hold'em table keep off every seat (plates and
    cards), the table's buttons (Lobby, Last hand, Sit out, Leave) and the "Hand history"
    heading, at the three sizes (on a phone they go over the table's name and stakes)."""
    page = new_page(SIZES["phone"], locale=LOCALES[lang])
    seated_at_my_turn(page, "holdem", seats=6, bots=5)
    page.get_by_test_id("act-fold").click()  # now the refused actions are out of turn
    expect(page.get_by_test_id("my-turn")).to_have_count(0)
    for size_name in SIZES:
        resize(page, size_name)
        _shout(page, 2)
        toasts = boxes(page, ".toast")
        assert 1 <= len(toasts) <= 2, toasts
        others = boxes(page, ".seat-layer > .seat .plate, .seat-layer > .seat .seat-cards > *, .table-bar > button,"
                             " .table-bar .table-buttons button, .history-toggle")
        screenshot(page, shots, f"messages-{lang}-{size_name}")
        covered = [f"{o['id']} at {o}" for t in toasts for o in others if intersect(t, o)]
        assert not covered, f"at {size_name} the messages cover: {covered}"
        expect(page.locator(".toast")).to_have_count(0, timeout=10_000)  # they go away by themselves


# --- the turn clock ------------------------------------------------------------------------------


def test_the_clock_is_no_longer_green_with_11_seconds_left(new_page, shots):
    """A 30 s clock with 11 s left: neither the seconds on the action bar nor the ring on
    the seat are green; with 25 s left both are."""
    page = new_page(SIZES["desktop"])
    seated_at_my_turn(page, "holdem", seats=2, bots=1)
    colours = """() => [getComputedStyle(document.querySelector('.my-clock')).color,
                        getComputedStyle(document.querySelector('.seat.me .ring .arc')).stroke]"""
    green = {"rgb(125, 255, 169)", "rgb(57, 208, 122)"}
    for left, want_green in ((25_000, True), (11_000, False)):
        inject(page, f"""snap.options.action_seconds = 30;
          snap.timer = {{seat: me, deadline_ms: app.conn.serverNow() + {left}}};""")
        page.wait_for_timeout(400)  # a tick of the clock
        text, ring = page.evaluate(colours)
        assert (text in green) == want_green and (ring in green) == want_green, (left, text, ring)
        screenshot(page, shots, f"clock-{left // 1000}s")


# --- the lobby on a phone ---------------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_phone_lobby_names_the_button_it_shows(new_page, shots, lang):
    """With no table open, the lobby's hint names the play button by the label it has on
    that screen: "Play vs bots" on a phone, "Play now against bots" on a desktop."""
    page = new_page(SIZES["phone"], locale=LOCALES[lang])
    enter(page, "Pat")
    page.wait_for_function("() => (window.cardroom.store.games || []).length > 0")
    for size_name in ("phone", "desktop"):
        resize(page, size_name)
        # no table on the server (as on a fresh one): the hint in place of the list. Read
        # in the same turn of the page as the render: a lobby push from the shared test
        # server (another test's table) may refill the list any moment after it
        label, hint = page.evaluate("""() => {
          window.cardroom.store.rooms = []; window.cardroom.render();
          const hint = document.querySelector('[data-testid=rooms] .empty');
          const button = document.querySelector('[data-testid=play-now-holdem]');
          return [button.innerText.trim(), hint ? hint.innerText : null];
        }""")
        assert hint is not None, "no hint in place of an empty list"
        screenshot(page, shots, f"lobby-{lang}-{size_name}")
        assert label in hint, (label, hint)


# --- no scrolling at the desktop sizes --------------------------------------------------------------


@pytest.mark.parametrize("game", ["holdem", "zhajinhua", "doudizhu"])
def test_a_table_does_not_scroll_at_the_desktop_sizes(new_page, shots, game):
    """At 1280×800 and 1366×768 the whole table page, action bar included, fits the
    window: the page has nothing to scroll."""
    page = new_page(SIZES["desktop"])
    options = {"holdem": {"seats": 6, "bots": 5}, "zhajinhua": {"seats": 5, "bots": 4}, "doudizhu": {"bots": 2}}[game]
    seated_at_my_turn(page, game, **options)
    for size_name in WIDE:
        resize(page, size_name)
        screenshot(page, shots, f"{game}-{size_name}")
        assert page_overflow(page) <= 0, f"{game} at {size_name}: the page scrolls {page_overflow(page)} px"
    expect(table(page)).to_be_visible()
