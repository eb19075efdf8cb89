"""Steps the browser tests share: enter the lobby, create and join tables, read seats."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

try:  # without playwright the tests are still collected, then skipped (or failed under CI)
    from playwright.sync_api import expect
except ImportError:  # pragma: no cover - see conftest.py
    expect = None  # type: ignore[assignment]

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page


def enter(page: Page, name: str) -> None:
    """Pick a display name and wait for the lobby, connected."""
    page.get_by_test_id("name-input").fill(name)
    page.get_by_test_id("name-submit").click()
    expect(page.get_by_test_id("lobby")).to_be_visible()
    expect(page.get_by_test_id("conn-state")).to_have_attribute("data-state", "online")
    expect(page.get_by_test_id("me-name")).to_have_text(name)


def create_table(page: Page, game: str, **options: Any) -> str:
    """Fill the create form for ``game`` (options by name), sit down, return the room id."""
    page.get_by_test_id(f"create-{game}").click()
    form = page.get_by_test_id("create-form")
    for name, value in options.items():
        field = form.get_by_test_id(f"opt-{name}")
        if not field.is_visible():
            form.locator("details.more > summary").click()
        if isinstance(value, bool):
            field.set_checked(value)
        elif field.evaluate("el => el.tagName") == "SELECT":
            field.select_option(str(value))
        else:
            field.fill(str(value))
    form.get_by_test_id("create-submit").click()
    table = page.get_by_test_id("table")
    expect(table).to_be_visible()
    expect(table).to_have_attribute("data-your-seat", "0")
    room = table.get_attribute("data-room")
    assert room
    return room


def join_from_lobby(page: Page, room: str, seat: int) -> None:
    """Join ``room`` from the live room list and wait to be seated in ``seat``."""
    page.get_by_test_id(f"join-{room}").click()
    expect(page.get_by_test_id("table")).to_have_attribute("data-your-seat", str(seat))


def table(page: Page) -> Locator:
    return page.get_by_test_id("table")


def wait_turn(page: Page, street: str | None = None) -> None:
    """Wait until the table says it is this page's player to act (on ``street``)."""
    t = table(page)
    seat = t.get_attribute("data-your-seat")
    expect(t).to_have_attribute("data-to-act", seat or "")
    if street is not None:
        expect(t).to_have_attribute("data-street", street)
    expect(page.get_by_test_id("my-turn")).to_be_visible()


def seat_stack(page: Page, seat: int) -> int:
    return int(page.get_by_test_id(f"seat-{seat}").get_attribute("data-stack") or "0")


def card_ids(locator: Locator) -> list[int]:
    """The card ids drawn inside ``locator`` (face-up cards only), in order."""
    return [int(x) for x in locator.locator("[data-card]").evaluate_all("els => els.map(e => e.dataset.card)")]


#: The screenshots' format. JPEG unless ``CARDROOM_SHOTS=png``: a run takes about 200, and
#: a PNG of a 1280x800 page costs Chromium about 0.3 s of CPU where a JPEG costs 0.05 s.
#: PNG is for images that go into docs/.
SHOTS_PNG = os.environ.get("CARDROOM_SHOTS") == "png"


def screenshot(page: Page, folder: Path, name: str) -> Path:
    """Save the page as ``folder/name.jpg`` (``.png`` with ``CARDROOM_SHOTS=png``)."""
    if SHOTS_PNG:
        path = folder / f"{name}.png"
        page.screenshot(path=str(path))
    else:
        path = folder / f"{name}.jpg"
        page.screenshot(path=str(path), type="jpeg", quality=85)
    return path


SIZES = {"desktop": {"width": 1280, "height": 800}, "laptop": {"width": 1366, "height": 768},
         "phone": {"width": 390, "height": 844}}

# What may not cover what on the felt: each item belongs to a seat (its plate, its cards,
# its bet or last play) or to the middle of the table; items of different owners must not
# intersect. Measured in one go, in the page (the table re-renders on every snapshot).
_FELT_BOXES = """() => {
  const items = [];
  const add = (el, owner, what) => {
    const r = el.getBoundingClientRect();
    if (r.width && r.height && getComputedStyle(el).visibility !== 'hidden')
      items.push({owner, what, x: r.x, y: r.y, w: r.width, h: r.height});
  };
  for (const seat of document.querySelectorAll('.seat-layer > .seat')) {
    const n = seat.dataset.seat;
    const plate = seat.querySelector('.plate'); if (plate) add(plate, 'seat ' + n, 'plate');
    for (const c of seat.querySelectorAll('.seat-cards > *')) add(c, 'seat ' + n, 'cards');
    const sit = seat.querySelector('.btn.sit, .empty-label'); if (sit) add(sit, 'seat ' + n, 'empty seat');
  }
  for (const el of document.querySelectorAll('.seat-layer > .bet, .seat-layer > .last-play')) {
    const n = (el.dataset.testid || '').split('-').pop();
    add(el, 'seat ' + n, el.className.split(' ')[0]);
  }
  for (const el of document.querySelectorAll('.center .board-area > *, .center .ddz-top > *, .center > .status')) add(el, 'center', el.className || el.tagName);
  return items;
}"""


def fit_window(page: Page, viewport: dict[str, int]) -> None:
    """Resize the window to ``viewport`` and wait until the table is drawn for it and
    still: the page redraws the table on the animation frame after a resize (which a
    loaded machine delays past any fixed wait), fits the felt and marks the table with the
    size it fitted (``data-fitted``), then its items may still move for a moment."""
    page.set_viewport_size(viewport)
    page.wait_for_function(
        "([w, h]) => { const s = document.querySelector('.table-screen');"
        " return !s || s.dataset.fitted === `${w}x${h}`; }",
        arg=[viewport["width"], viewport["height"]])
    settle(page)


def settle(page: Page, timeout_ms: int = 3000) -> None:
    """Wait until the felt's items stop moving: two reads 100 ms apart agree (at most
    ``timeout_ms``). The page fits the felt to the window after a resize; on a loaded
    machine that can come later than a fixed wait, and a check made before it measures
    a layout half done."""
    before = page.evaluate(_FELT_BOXES)
    for _ in range(timeout_ms // 100):
        page.wait_for_timeout(100)
        now = page.evaluate(_FELT_BOXES)
        if now == before:
            return
        before = now


def felt_overlaps(page: Page) -> list[str]:
    """Pairs of felt items of different owners that intersect (by more than 1 px)."""
    items = page.evaluate(_FELT_BOXES)
    bad = []
    for i, a in enumerate(items):
        for b in items[i + 1:]:
            if a["owner"] == b["owner"]:
                continue
            if intersect(a, b):
                bad.append(f"{a['owner']} {a['what']} × {b['owner']} {b['what']}")
    return bad


def intersect(a: dict[str, float], b: dict[str, float], slack: float = 1.0) -> bool:
    aw, ah = a.get("w", a.get("width")), a.get("h", a.get("height"))
    bw, bh = b.get("w", b.get("width")), b.get("h", b.get("height"))
    return not (a["x"] + aw <= b["x"] + slack or b["x"] + bw <= a["x"] + slack
                or a["y"] + ah <= b["y"] + slack or b["y"] + bh <= a["y"] + slack)


def outside_viewport(page: Page, selector: str) -> list[str]:
    """Visible elements matching ``selector`` not wholly inside the viewport (no scrolling)."""
    size = page.viewport_size
    found = page.evaluate(
        """(sel) => [...document.querySelectorAll(sel)].map((el) => {
             const r = el.getBoundingClientRect();
             return {id: el.dataset.testid || el.textContent.trim().slice(0, 30), x: r.x, y: r.y, w: r.width, h: r.height};
           }).filter((b) => b.w && b.h)""", selector)
    return [f"{b['id']} at {b}" for b in found
            if b["x"] < 0 or b["y"] < 0 or b["x"] + b["w"] > size["width"] + 0.5 or b["y"] + b["h"] > size["height"] + 0.5]


# What a player sees under the elements matching a selector: the visible text, the choices
# of its selects, the placeholders of its inputs and the tooltips of its visible elements.
_SHOWN_TEXTS = """(sel) => {
  const out = [];
  const shown = (el) => el.getClientRects().length && getComputedStyle(el).visibility !== 'hidden';
  for (const root of document.querySelectorAll(sel)) {
    const walk = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let n = walk.nextNode(); n; n = walk.nextNode()) {
      const el = n.parentElement;
      if (n.textContent.trim() && el && el.tagName !== 'OPTION' && shown(el)) out.push(n.textContent.trim());
    }
    for (const el of root.querySelectorAll('select')) if (shown(el)) out.push(...[...el.options].map((o) => o.text));
    for (const el of root.querySelectorAll('input[placeholder]')) if (shown(el)) out.push(el.placeholder);
    for (const el of [root, ...root.querySelectorAll('[title]')]) if (el.title && shown(el)) out.push(el.title);
  }
  return out;
}"""

CJK = re.compile(r"[\u3400-\u9fff]")


def shown_texts(page: Page, selector: str) -> list[str]:
    """What a player sees under the elements matching ``selector`` (see _SHOWN_TEXTS)."""
    return list(page.evaluate(_SHOWN_TEXTS, selector))


def foreign_texts(page: Page, selector: str, lang: str, allow: Iterable[str] = ()) -> list[str]:
    """What a player sees under ``selector`` that is not in the page's language ``lang``:
    in English any Chinese character, in Chinese any English word (two letters or more).
    The strings in ``allow`` (player and table names) are left out, and so are, in
    Chinese, card ranks written together (AKQ), a joker's face (JOKER), hashes and
    "sha256", table numbers (r-5e6f7a8b) and the product's name."""
    allowed = sorted((a for a in allow if a), key=len, reverse=True)
    bad = []
    for text in shown_texts(page, selector):
        rest = text
        for word in allowed:
            rest = rest.replace(word, " ")
        if lang == "en":
            if CJK.search(rest):
                bad.append(text)
            continue
        rest = re.sub(r"\br-[0-9a-f]{8}\b|\b[0-9a-f]{8,}\b|\b[AKQJ]{2,3}\b|JOKER|\bcardroom\b|\bsha256\b", " ", rest)
        if re.search(r"[A-Za-z]{2,}", rest):
            bad.append(text)
    return bad
