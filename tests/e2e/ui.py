"""Steps the browser tests share: enter the lobby, create and join tables, read seats."""

from __future__ import annotations

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


def screenshot(page: Page, folder: Path, name: str) -> Path:
    path = folder / f"{name}.png"
    page.screenshot(path=str(path))
    return path
