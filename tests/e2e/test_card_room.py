"""The table as a card room (issue #16): the last hand stays readable and reachable, the
history survives a reload, your hand is named while you play it, server messages speak in
card names, Pass alone when nothing beats the table, rebuy after busting, quick match, the
lobby's filters and names that tell tables and players apart."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest

from .ui import SIZES, card_ids, create_table, enter, expect, outside_viewport, screenshot, table

pytestmark = pytest.mark.browser


def _act_until_over(page: Any, prefer: tuple[str, ...] = ("act-check", "act-call")) -> int:
    """Take the first preferred action whenever it is our turn until the hand is over."""
    t = table(page)
    for _ in range(40):
        page.wait_for_function(
            "() => document.querySelector('[data-testid=my-turn]')"
            " || document.querySelector('[data-testid=table][data-over=\"1\"]')")
        if t.get_attribute("data-over") == "1":
            return int(t.get_attribute("data-hand") or "0")
        version = t.get_attribute("data-version") or ""
        for tid in prefer:
            if page.get_by_test_id(tid).count():
                page.get_by_test_id(tid).click()
                break
        expect(t).not_to_have_attribute("data-version", version)
    raise AssertionError("the hand did not end")


def _caller(view: dict[str, Any]) -> dict[str, Any]:
    return {"type": "call"} if view["legal"].get("call") else {"type": "check"}


def test_last_hand_stays_then_opens_from_the_table_and_the_history_survives_a_reload(new_page, scripted, shots):
    page = new_page(SIZES["desktop"])
    enter(page, "lucia")
    room = create_table(page, "holdem", seats=2, action_seconds=120, between_hands_seconds=1)
    scripted("carl", _caller).join(room)  # checks or calls: every hand waits for us
    t = table(page)
    expect(page.get_by_test_id("my-strength")).to_be_visible()
    hand = _act_until_over(page)
    assert hand == 1
    # the result is on the felt for the whole pause, the shown hands highlighted
    expect(page.get_by_test_id("result")).to_be_visible()
    shown = page.locator("[data-testid^=shown-]").count()
    if shown:
        expect(page.get_by_test_id("street")).to_have_text("Showdown")
        winners = page.locator(".seat.winner").count()
        if winners == 1:
            best = page.locator(".board .card.best, .seat.winner .card.best")
            expect(best).to_have_count(5)
    else:
        expect(page.get_by_test_id("street")).to_have_count(0)  # everyone else folded: no showdown
    result_text = page.get_by_test_id("result").inner_text()
    screenshot(page, shots, "desktop-result")

    # the next hand is dealt: the last one is a click away, with the same result
    expect(t).to_have_attribute("data-hand", "2")
    last = page.get_by_test_id("last-hand")
    expect(last).to_have_attribute("data-hand", "1")
    for size in SIZES.values():
        page.set_viewport_size(size)
        assert not outside_viewport(page, "[data-testid=last-hand]")
        last.click()
        panel = page.get_by_test_id("last-hand-panel")
        expect(panel).to_be_visible()
        expect(panel).to_contain_text("Hand #1")
        expect(panel.get_by_test_id("result")).to_have_text(result_text)
        expect(panel.get_by_test_id("last-hand-seats")).to_contain_text("lucia")
        assert not outside_viewport(page, "[data-testid=last-hand-panel], [data-testid=last-hand-close]")
        screenshot(page, shots, f"last-hand-{size['width']}")
        page.get_by_test_id("last-hand-close").click()
        expect(panel).to_have_count(0)
    page.set_viewport_size(SIZES["desktop"])

    # a reload: the history panel is filled from the server with hand 1 as we saw it
    page.reload()
    expect(t).to_have_attribute("data-your-seat", "0")
    history = page.get_by_test_id("history")
    expect(history).to_contain_text("— Hand #1 —")
    expect(history).to_contain_text("You are dealt")
    expect(history.locator("li.win").first).to_be_visible()
    screenshot(page, shots, "desktop-history-after-reload")


HANDS = [  # hole + board card ids (rank * 4 + suit) and the name the page gives them
    ([51, 47, 43, 39, 35, 2, 5], "Royal flush"),
    ([46, 30, 22, 10, 2, 51, 48], "Flush, king high"),
    ([48, 1, 6, 11, 12, 45, 31], "Straight, five high"),
    ([44, 45, 46, 23, 22, 21, 0], "Full house, kings full of sevens"),
    ([48, 49, 8, 9, 4, 5, 39], "Two pair, aces and fours"),
    ([20, 21, 30, 44, 3], "One pair, sevens"),
    ([51, 45], "High card, ace"),
    ([20, 21], "One pair, sevens"),
]


def test_the_page_names_hands_and_speaks_in_card_names(new_page):
    page = new_page(SIZES["desktop"])
    named = page.evaluate("async (hands) => { const e = await import('/handeval.js');"
                          " return hands.map(([cards]) => { const b = e.bestHand(cards); return [b.name, b.best]; }); }",
                          [h for h in HANDS])
    for (cards, want), (name, best) in zip(HANDS, named, strict=True):
        assert name == want, (cards, name)
        assert len(best) == min(5, len(cards)) and set(best) <= set(cards)
    assert sorted(named[4][1]) == sorted([48, 49, 8, 9, 39])  # the jack kicker, not the threes

    # (Dou Dizhu's words come with its table module, loaded once a room of the game shows up)
    human = page.evaluate("async () => { await (await import('/games.js')).loadGame('doudizhu');"
                          " const a = await import('/app.js'); const snap = {game: 'doudizhu',"
                          " seats: [{name: 'ann'}, {name: 'Bot Ada'}, null]};"
                          " return [a.humanize('52 is not a valid play', snap),"
                          " a.humanize('TTJ (pair) does not beat QQ', snap),"
                          " a.humanize(\"you do not hold 'BR'\", snap),"
                          " a.humanize('seat 1 is to act', snap)]; }")
    assert human == ["5, 2 do not make a valid play", "10, 10, J (pair) does not beat Q, Q",
                     "you do not hold black joker, red joker", "Bot Ada is to act"]


def test_dou_dizhu_offers_only_pass_when_nothing_beats_the_table(new_page, shots):
    page = new_page(SIZES["phone"])
    enter(page, "pia")
    create_table(page, "doudizhu", bots=2, bot_delay_seconds=0.2, action_seconds=120, between_hands_seconds=120)
    expect(page.get_by_test_id("my-hand").locator("[data-card]")).to_have_count(17)
    # the page draws what the snapshot says: here, a red joker to beat and no legal play
    page.evaluate("""() => {
      const app = window.cardroom, room = app.store.current, snap = structuredClone(app.store.snaps.get(room));
      snap.version += 1000; snap.playing = true;
      Object.assign(snap.view, {phase: 'play', is_over: false, to_act: snap.your_seat,
        legal: {phase: 'play', must_lead: false, can_pass: true, plays: [], to_beat: {seat: 1, kind: 'solo', ranks: 'R'}}});
      app.store.snaps.set(room, snap); app.render(); }""")
    bar = page.get_by_test_id("my-turn")
    expect(bar).to_be_visible()
    expect(bar.locator("button")).to_have_count(1)
    expect(page.get_by_test_id("act-pass")).to_be_visible()
    expect(page.get_by_test_id("play-info")).to_contain_text("Nothing in your hand beats")
    screenshot(page, shots, "phone-pass-only")


def test_a_busted_player_can_rebuy(new_page, scripted, shots):
    page = new_page(SIZES["desktop"])
    enter(page, "rory")
    room = create_table(page, "holdem", seats=2, small_blind=5, big_blind=10, buy_in_min=10,
                        buy_in_default=10, action_seconds=120, between_hands_seconds=0.3)

    whale = scripted("whale", _caller)
    whale.room = room
    whale._send({"t": "join", "room": room, "buy_in": 5000})
    t = table(page)
    deadline = time.monotonic() + 90
    while not page.get_by_test_id("rebuy-panel").count():
        assert time.monotonic() < deadline, "never busted"
        page.wait_for_function(
            "() => document.querySelector('[data-testid=my-turn], [data-testid=rebuy-panel]')"
            " || document.querySelector('[data-testid=table][data-over=\"1\"]')")
        if page.get_by_test_id("my-turn").count():
            version = t.get_attribute("data-version") or ""
            for tid in ("act-fold", "act-check", "act-call"):
                if page.get_by_test_id(tid).count():
                    page.get_by_test_id(tid).click()
                    break
            expect(t).not_to_have_attribute("data-version", version)
        else:
            page.wait_for_timeout(100)
    expect(t).to_have_attribute("data-your-seat", "")
    expect(page.get_by_test_id("rebuy-panel")).to_contain_text("ran out of chips")
    screenshot(page, shots, "desktop-busted")
    page.get_by_test_id("rebuy-amount").fill("50")
    page.get_by_test_id("rebuy").click()
    expect(t).to_have_attribute("data-your-seat", re.compile(r"\d"))
    seat = t.get_attribute("data-your-seat")
    expect(page.get_by_test_id(f"seat-name-{seat}")).to_have_text("rory")


def test_quick_match_filters_and_names_that_tell_tables_apart(new_page, shots):
    one = new_page(SIZES["desktop"])
    enter(one, "Sam")
    two = new_page(SIZES["phone"])
    enter(two, "Sam")
    for page in (one, two):
        page.get_by_test_id("play-now-holdem").click()
        expect(table(page)).to_have_attribute("data-your-seat", "0")
        page.get_by_test_id("to-lobby").click()
    names = one.locator("[data-testid^=room-r-][data-game=holdem] [data-testid=room-name]").all_inner_texts()
    sams = [n for n in names if n.startswith("Sam's Texas Hold'em table")]
    assert len(sams) >= 2 and len(set(sams)) == len(sams), sams  # told apart by a suffix

    one.get_by_test_id("filter-game").select_option("doudizhu")
    expect(one.locator("[data-testid^=room-r-][data-game=holdem]")).to_have_count(0)
    one.get_by_test_id("filter-game").select_option("holdem")
    expect(one.locator("[data-testid^=room-r-][data-game=holdem]").first).to_be_visible()
    expect(one.locator("[data-testid^=room-r-][data-game=doudizhu]")).to_have_count(0)
    stakes = one.get_by_test_id("filter-stakes")
    expect(stakes.locator("option", has_text="blinds 5/10")).to_have_count(1)
    stakes.select_option("blinds 5/10")
    expect(one.locator("[data-testid^=room-r-]").first).to_contain_text("blinds 5/10")
    screenshot(one, shots, "desktop-lobby-filtered")

    three = new_page(SIZES["phone"])
    enter(three, "Quinn")
    three.get_by_test_id("quick-zhajinhua").click()
    t = table(three)
    expect(t).to_have_attribute("data-game", "zhajinhua")
    expect(t).to_have_attribute("data-your-seat", re.compile(r"\d"))
    seat = t.get_attribute("data-your-seat")
    expect(three.get_by_test_id(f"seat-name-{seat}")).to_have_text("Quinn")
    screenshot(three, shots, "phone-quick-match")


def test_holdem_pre_actions_play_when_the_turn_comes(new_page, shots):
    page = new_page(SIZES["phone"])
    enter(page, "pipa")
    create_table(page, "holdem", seats=2, bots=1, bot_delay_seconds=1.5, action_seconds=120, between_hands_seconds=120)
    t = table(page)
    expect(page.get_by_test_id("my-turn")).to_be_visible()  # the button acts first pre-flop
    page.get_by_test_id("act-call").click()
    pre = page.get_by_test_id("pre-callany")
    expect(pre).to_be_visible()  # while the bot thinks
    pre.check()
    screenshot(page, shots, "phone-pre-action")
    history = page.get_by_test_id("history")
    mine = history.locator("li", has_text=re.compile(r"^pipa (checks|calls)"))
    expect(mine).to_have_count(2, timeout=20_000)  # our next turn was played for us
    expect(t).not_to_have_attribute("data-to-act", "0")
    if page.get_by_test_id("pre-callany").count():
        expect(page.get_by_test_id("pre-callany")).not_to_be_checked()  # used once


def test_dou_dizhu_card_counter_and_the_bottom_cards_taken(new_page, scripted, shots):
    page = new_page(SIZES["desktop"])
    enter(page, "cora")

    def passive(view: dict[str, Any]) -> dict[str, Any]:
        legal = view["legal"]
        if legal["phase"] == "bidding" or legal["can_pass"]:
            return {"type": "pass"}
        return {"type": "play", "cards": legal["plays"][0]["ranks"]}

    room = create_table(page, "doudizhu", bidding="score", action_seconds=120, between_hands_seconds=120)
    for name in ("west", "east"):
        scripted(name, passive).join(room)
    expect(page.get_by_test_id("bid-3")).to_be_visible()
    page.get_by_test_id("bid-3").click()
    # the three bottom cards stand out in the landlord's hand for a moment
    fresh = page.locator("[data-testid=my-hand] .card.fresh")
    expect(fresh).to_have_count(3)
    bottom = sorted(int(x) for x in page.get_by_test_id("bottom-cards").locator("[data-card]").evaluate_all("els => els.map(e => e.dataset.card)"))
    assert sorted(int(x) for x in fresh.evaluate_all("els => els.map(e => e.dataset.card)")) == bottom
    screenshot(page, shots, "desktop-bottom-taken")
    expect(fresh).to_have_count(0, timeout=8000)

    # the counter: jokers, 2s, aces and kings neither in our hand nor played
    counter = page.get_by_test_id("card-counter")
    expect(counter).to_be_visible()
    hand = [int(x) for x in page.get_by_test_id("my-hand").locator("[data-card]").evaluate_all("els => els.map(e => e.dataset.card)")]
    held = {"R": hand.count(53), "B": hand.count(52), "2": sum(1 for c in hand if c < 52 and c >> 2 == 0),
            "A": sum(1 for c in hand if c < 52 and c >> 2 == 12), "K": sum(1 for c in hand if c < 52 and c >> 2 == 11)}
    total = {"R": 1, "B": 1, "2": 4, "A": 4, "K": 4}
    for rank, n in held.items():
        expect(counter.locator(f"[data-rank='{rank}']")).to_have_attribute("data-out", str(total[rank] - n))


def _fold_hand_one(page: Any) -> None:
    """Fold at our first turn of hand 1 and wait for the hand to be over."""
    t = table(page)
    page.wait_for_function(
        "() => document.querySelector('[data-testid=my-turn]')"
        " || document.querySelector('[data-testid=table][data-over=\"1\"]')")
    if t.get_attribute("data-over") != "1":
        page.get_by_test_id("act-fold").click()
    expect(t).to_have_attribute("data-over", "1")


@pytest.mark.parametrize("size", ["desktop", "laptop", "phone"])
def test_a_folded_holdem_hand_can_be_shown_until_the_next_deal(new_page, scripted, shots, size):
    page = new_page(SIZES[size])
    enter(page, "sofia")
    room = create_table(page, "holdem", seats=2, action_seconds=120, between_hands_seconds=30)
    carl = scripted("carl", _caller)
    carl.join(room)
    _fold_hand_one(page)
    t = table(page)
    seat = int(t.get_attribute("data-your-seat") or "0")
    show = page.get_by_test_id("show-cards")
    expect(show).to_be_visible()
    expect(show).to_have_text("Show cards")
    assert outside_viewport(page, "[data-testid=show-cards]") == []
    mine = card_ids(page.get_by_test_id("my-hole"))
    screenshot(page, shots, f"{size}-show-offered")
    show.click()
    expect(page.get_by_test_id("show-cards")).to_have_count(0)
    expect(page.get_by_test_id("my-hole")).to_have_class(re.compile(r"\bshown\b"))
    expect(page.get_by_test_id("history")).to_contain_text("sofia shows")

    def seen_by_carl() -> list[int] | None:
        for snap in reversed(carl.snapshots):
            if snap["view"] and snap["hand_no"] == 1:
                return snap["view"]["seats"][seat]["cards"]
        return None

    deadline = time.monotonic() + 10
    while seen_by_carl() != mine:
        assert time.monotonic() < deadline, f"the other player never saw the shown cards: {seen_by_carl()}"
        time.sleep(0.05)


def test_a_folded_zhajinhua_hand_can_be_shown(new_page, scripted, shots):
    page = new_page(SIZES["desktop"])
    enter(page, "mei")
    room = create_table(page, "zhajinhua", seats=2, action_seconds=120, between_hands_seconds=30)
    scripted("lin", lambda view: {"type": "call"}).join(room)
    _fold_hand_one(page)
    expect(page.get_by_test_id("my-cards").locator(".card.back")).to_have_count(3)  # folded blind: face down
    page.get_by_test_id("show-cards").click()
    expect(page.get_by_test_id("show-cards")).to_have_count(0)
    expect(page.get_by_test_id("my-cards").locator(".card.back")).to_have_count(0)
    expect(page.get_by_test_id("history")).to_contain_text("mei shows")
    screenshot(page, shots, "zhajinhua-shown")
