"""Dou Dizhu in a real browser against two scripted WebSocket players: the browser player
bids 3 to become the landlord, takes the bottom cards, and wins a trick; cards are
selected by clicking them or by dragging across them (mouse, and touch on a phone)."""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import DESKTOP, PHONE, discard
from .ui import SIZES, create_table, enter, expect, screenshot, table, wait_turn

pytestmark = pytest.mark.browser


def passive(view):
    """Never bid; pass whenever allowed; lead the lowest legal play otherwise."""
    legal = view["legal"]
    if legal["phase"] == "bidding" or legal["can_pass"]:
        return {"type": "pass"}
    return {"type": "play", "cards": legal["plays"][0]["ranks"]}


def test_bid_landlord_take_bottom_and_win_a_trick(new_page, scripted, shots):
    alice = new_page(DESKTOP)
    enter(alice, "alice")
    room = create_table(alice, "doudizhu", stake=10, bidding="score",
                        action_seconds=120, between_hands_seconds=120)
    bots = [scripted(name, passive) for name in ("bot-west", "bot-east")]
    for bot in bots:
        bot.join(room)

    # The seat left of the dealer (seat 1) bids first; both scripted players pass.
    wait_turn(alice, "bidding")
    expect(alice.get_by_test_id("my-hand").locator("[data-card]")).to_have_count(17)
    expect(alice.get_by_test_id("last-play-1")).to_have_text("No bid")
    expect(alice.get_by_test_id("last-play-2")).to_have_text("No bid")
    expect(alice.get_by_test_id("bottom-cards").locator("[data-card]")).to_have_count(0)
    alice.get_by_test_id("bid-3").click()

    # Landlord: 20 cards, the bottom cards face up, multiplier x3, alice leads.
    wait_turn(alice, "play")
    expect(alice.get_by_test_id("landlord-0")).to_be_visible()
    expect(alice.get_by_test_id("my-hand").locator("[data-card]")).to_have_count(20)
    expect(alice.get_by_test_id("bottom-cards").locator("[data-card]")).to_have_count(3)
    expect(alice.get_by_test_id("multiplier")).to_have_text("×3")
    expect(alice.get_by_test_id("play-info")).to_contain_text("You lead")
    expect(alice.get_by_test_id("count-1")).to_have_attribute("data-count", "17")
    expect(alice.get_by_test_id("act-play")).to_be_disabled()

    # Hint selects the first legal play (the lowest single card); play it.
    alice.get_by_test_id("act-hint").click()
    expect(alice.locator("[data-testid=hand-card].selected")).to_have_count(1)
    played = alice.locator("[data-testid=hand-card].selected").get_attribute("data-card")
    alice.get_by_test_id("act-play").click()

    # Both scripted players pass: the trick is alice's and she leads again.
    expect(alice.get_by_test_id("last-play-1")).to_have_text("Pass")
    expect(alice.get_by_test_id("last-play-2")).to_have_text("Pass")
    wait_turn(alice, "play")
    expect(alice.get_by_test_id("play-info")).to_contain_text("You lead")
    expect(alice.get_by_test_id("my-hand").locator("[data-card]")).to_have_count(19)
    expect(alice.locator(f"[data-testid=my-hand] [data-card='{played}']")).to_have_count(0)
    history = alice.get_by_test_id("history")
    expect(history).to_contain_text("alice is the landlord")
    expect(history).to_contain_text("alice wins the trick and leads")

    # Select a card by clicking it (the lowest, drawn last) and play it.
    alice.locator("[data-testid=hand-card]").last.click()
    expect(alice.locator("[data-testid=hand-card].selected")).to_have_count(1)
    alice.get_by_test_id("act-play").click()
    expect(alice.get_by_test_id("last-play-0").locator("[data-card]")).to_have_count(1)
    wait_turn(alice, "play")
    expect(alice.get_by_test_id("my-hand").locator("[data-card]")).to_have_count(18)
    expect(table(alice)).to_have_attribute("data-over", "0")
    assert not any(b.errors for b in bots), [b.errors for b in bots]
    screenshot(alice, shots, "desktop")
    alice.set_viewport_size(PHONE)
    screenshot(alice, shots, "phone")
    alice.set_viewport_size(DESKTOP)

    # Play out the hand with hints: the peasants never play a card, a spring.
    play_out_with_hints(alice, 18)
    result = alice.get_by_test_id("result")
    expect(result).to_contain_text("alice (landlord) wins")
    expect(result).to_contain_text("bid ×3 · spring ×2 = ×6")
    # landlord +2 x 6 points, each peasant -6; 10 chips a point
    expect(alice.get_by_test_id("seat-0")).to_have_attribute("data-stack", "1120")
    expect(alice.get_by_test_id("seat-1")).to_have_attribute("data-stack", "940")
    expect(alice.get_by_test_id("seat-2")).to_have_attribute("data-stack", "940")
    expect(alice.get_by_test_id("rest-1").locator("[data-card]")).to_have_count(17)
    screenshot(alice, shots, "desktop-result")


def play_out_with_hints(page, cards: int) -> None:
    """Lead the first hint (the lowest single card) until the ``cards`` left in this page's
    hand are played, the others passing every time, and wait for the end of the hand."""
    selected = page.locator("[data-testid=hand-card].selected")
    for left in range(cards - 1, -1, -1):
        for attempt in range(4):  # a click the page's redraw (an update) landed between is lost
            page.get_by_test_id("act-hint").click()
            try:
                expect(selected).to_have_count(1, timeout=4000 if attempt < 3 else 15000)
                break
            except AssertionError:
                if attempt == 3:
                    raise
        page.get_by_test_id("act-play").click()
        if left == 0:
            break
        expect(page.get_by_test_id("my-hand")).to_have_attribute("data-count", str(left))
        wait_turn(page, "play")
    expect(table(page)).to_have_attribute("data-over", "1")


def test_rob_bidding_call_makes_the_landlord(new_page, scripted, shots):
    alice = new_page(PHONE)
    enter(alice, "alice")
    room = create_table(alice, "doudizhu", bidding="rob", action_seconds=120, between_hands_seconds=120)
    for name in ("bot-a", "bot-b"):
        scripted(name, passive).join(room)
    wait_turn(alice, "bidding")
    expect(alice.get_by_test_id("last-play-1")).to_have_text("Pass")
    expect(alice.get_by_test_id("act-rob")).to_have_count(0)
    alice.get_by_test_id("act-call").click()
    wait_turn(alice, "play")
    expect(alice.get_by_test_id("landlord-0")).to_be_visible()
    expect(alice.get_by_test_id("multiplier")).to_have_text("×1")
    screenshot(alice, shots, "phone")


# --- drag to select -------------------------------------------------------------------------

HAND_CARDS = "[data-testid=hand-card]"

# Where to press on each card of the hand: the middle of the strip of it left visible by
# the card drawn over it (the last card: its middle), low on the card (clear of a raise).
_CARD_POINTS = """() => {
  const els = [...document.querySelectorAll('[data-testid=hand-card]')];
  return els.map((el, i) => {
    const r = el.getBoundingClientRect();
    const right = i + 1 < els.length ? els[i + 1].getBoundingClientRect().left : r.right;
    return {card: el.dataset.card, x: (r.left + right) / 2, y: r.top + r.height * 0.75};
  });
}"""


def landlord_in_play(page, scripted):
    """A Dou Dizhu table where this page bid 3 and leads with its 20 cards."""
    enter(page, "alice")
    room = create_table(page, "doudizhu", bidding="score", action_seconds=120, between_hands_seconds=120)
    for name in ("bot-west", "bot-east"):
        scripted(name, passive).join(room)
    wait_turn(page, "bidding")
    page.get_by_test_id("bid-3").click()
    wait_turn(page, "play")
    expect(page.locator(HAND_CARDS)).to_have_count(20)
    expect(page.get_by_test_id("act-play")).to_be_disabled()


def selected_cards(page) -> set[str]:
    return set(page.locator(f"{HAND_CARDS}.selected").evaluate_all("els => els.map(e => e.dataset.card)"))


def card_points(page) -> list[dict]:
    return page.evaluate(_CARD_POINTS)


def mouse_sweep(page, first: int, last: int, shot: Path | None = None) -> list[str]:
    """Press on the ``first`` card of the hand, move across to the ``last`` and release;
    before the release, the cards swept are highlighted and nothing is selected yet
    (``shot``: a screenshot then). Returns the cards swept."""
    points = card_points(page)
    before = selected_cards(page)
    step = 1 if last >= first else -1
    path = [points[i] for i in range(first, last + step, step)]
    page.mouse.move(path[0]["x"], path[0]["y"])
    page.mouse.down()
    for p in path[1:]:
        page.mouse.move(p["x"], p["y"], steps=4)
    swept = [p["card"] for p in path]
    expect(page.locator(f"{HAND_CARDS}.swept")).to_have_count(len(swept))
    assert set(page.locator(f"{HAND_CARDS}.swept").evaluate_all("els => els.map(e => e.dataset.card)")) == set(swept)
    assert selected_cards(page) == before  # applied on release
    if shot:
        screenshot(page, shot.parent, shot.name)
    page.mouse.up()
    expect(page.locator(f"{HAND_CARDS}.swept")).to_have_count(0)
    return swept


def touch_sweep(page, cdp, first: int, last: int, shot: Path | None = None) -> list[str]:
    """The same sweep with one finger (Chromium touch input: pointer events of type touch)."""
    points = card_points(page)
    step = 1 if last >= first else -1
    path = [points[i] for i in range(first, last + step, step)]

    def touch(kind: str, p: dict | None) -> None:
        cdp.send("Input.dispatchTouchEvent", {
            "type": kind, "touchPoints": [] if p is None else [{"x": p["x"], "y": p["y"], "id": 1}]})

    touch("touchStart", path[0])
    prev = path[0]
    for p in path[1:]:
        for k in (1, 2, 3):  # a few moves per card, as a finger reports them
            touch("touchMove", {"x": prev["x"] + (p["x"] - prev["x"]) * k / 3, "y": p["y"]})
        prev = p
    swept = [p["card"] for p in path]
    expect(page.locator(f"{HAND_CARDS}.swept")).to_have_count(len(swept))
    if shot:
        screenshot(page, shot.parent, shot.name)
    touch("touchEnd", None)
    expect(page.locator(f"{HAND_CARDS}.swept")).to_have_count(0)
    return swept


def test_drag_across_cards_selects_then_deselects_them(new_page, scripted, shots):
    alice = new_page(DESKTOP)
    landlord_in_play(alice, scripted)
    hand = alice.get_by_test_id("my-hand")
    assert hand.evaluate("el => getComputedStyle(el).touchAction") == "none"
    assert hand.evaluate("el => getComputedStyle(el).userSelect") == "none"
    scroll = alice.evaluate("() => window.scrollY")
    cards = [p["card"] for p in card_points(alice)]

    # Sweep four neighbours from an unselected card: the four are selected, no others.
    swept = mouse_sweep(alice, 3, 6, shots / "desktop-sweeping")
    assert swept == cards[3:7]
    expect(alice.locator(f"{HAND_CARDS}.selected")).to_have_count(4)
    assert selected_cards(alice) == set(cards[3:7])
    expect(alice.get_by_test_id("act-play")).to_be_enabled()
    screenshot(alice, shots, "desktop-swept")

    # Sweep back from a selected card over two of them: those two are deselected.
    swept = mouse_sweep(alice, 6, 5, shots / "desktop-sweeping-off")
    assert swept == [cards[6], cards[5]]
    expect(alice.locator(f"{HAND_CARDS}.selected")).to_have_count(2)
    assert selected_cards(alice) == set(cards[3:5])
    # the page neither scrolled nor selected text while sweeping
    assert alice.evaluate("() => [window.scrollY, String(window.getSelection())]") == [scroll, ""]

    # A plain click still toggles one card.
    alice.locator(HAND_CARDS).nth(10).click()
    assert selected_cards(alice) == {*cards[3:5], cards[10]}
    alice.locator(HAND_CARDS).nth(10).click()
    assert selected_cards(alice) == set(cards[3:5])

    # Play sends the swept selection: one more click leaves a single card, played.
    alice.locator(HAND_CARDS).nth(4).click()
    assert selected_cards(alice) == {cards[3]}
    alice.get_by_test_id("act-play").click()
    expect(alice.get_by_test_id("last-play-0").locator("[data-card]")).to_have_count(1)
    expect(alice.get_by_test_id("last-play-0").locator(f"[data-card='{cards[3]}']")).to_have_count(1)
    expect(alice.locator(HAND_CARDS)).to_have_count(19)


def test_drag_selection_by_touch_on_a_phone(new_page, scripted, shots):
    phone = SIZES["phone"]  # 390 x 844
    alice = new_page(phone)
    landlord_in_play(alice, scripted)
    discard(alice)  # touch emulation stays on
    cdp = alice.context.new_cdp_session(alice)
    cdp.send("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 1})
    # what kind of pointer the page sees
    alice.evaluate("() => { window.__kinds = new Set(); addEventListener('pointerdown', (e) => __kinds.add(e.pointerType)); }")
    scroll = alice.evaluate("() => window.scrollY")
    cards = [p["card"] for p in card_points(alice)]

    assert touch_sweep(alice, cdp, 8, 11, shots / "phone-sweeping") == cards[8:12]
    expect(alice.locator(f"{HAND_CARDS}.selected")).to_have_count(4)
    assert selected_cards(alice) == set(cards[8:12])
    screenshot(alice, shots, "phone-swept")

    assert touch_sweep(alice, cdp, 9, 10) == cards[9:11]
    expect(alice.locator(f"{HAND_CARDS}.selected")).to_have_count(2)
    assert selected_cards(alice) == {cards[8], cards[11]}
    assert alice.evaluate("() => [...window.__kinds]") == ["touch"]
    assert alice.evaluate("() => window.scrollY") == scroll
