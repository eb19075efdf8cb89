"""Provably fair deals in the browser (docs/fairness.md, client_demo/web/fairness.js):
the page's own code reproduces the worked example, catches a tampered hand with a reason,
and after a real hand against a bot the Verify button says ✔."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from typing import Any

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from .conftest import DESKTOP, ROOT
from .ui import create_table, enter, expect, screenshot, table

pytestmark = pytest.mark.browser

PHONE_TALL = {"width": 390, "height": 844}

SEED = bytes(range(32)).hex()
COMMITMENT = "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
DECK_52 = [int(x) for x in """
    33 19 5 20 43 37 39 24 49 7 29 2 10 42 12 8 44 27 34 22 13 9 17 51 23 4
    41 46 35 32 25 18 1 21 3 0 31 50 16 48 36 11 47 6 45 40 15 26 38 28 14 30""".split()]

# A heads-up Hold'em hand dealt from the example deck (deal order [1, 0]) as seat 1 saw it.
HOLDEM = {
    "game": "holdem", "room": "r-example", "handNo": 1,
    "fairness": {"scheme": "cardroom-v1", "commitment": COMMITMENT, "deck_size": 52, "deal_order": [1, 0],
                 "seeds": [{"seat": 0, "seed": "alice-seed"}, {"seat": 1, "seed": "bob-seed"}]},
    "reveal": {"scheme": "cardroom-v1", "commitment": COMMITMENT, "server_seed": SEED},
    "seen": [
        {"seat": 1, "cards": [33, 5], "kind": "dealt"},
        {"seat": None, "cards": [37, 39, 24], "kind": "board"},
        {"seat": None, "cards": [37, 39, 24, 7, 2], "kind": "board"},
        {"seat": 0, "cards": [19, 20], "kind": "shown"},
        {"seat": 1, "cards": [33, 5], "kind": "shown"},
    ],
}


def fair(page: Any, script: str, arg: Any = None) -> Any:
    """Run ``script`` (the body of an async function of ``f``, the page's fairness.js
    module, and ``arg``) in the page, once the built-in games' table modules (which hold
    each game's dealing rule and sightings) have loaded."""
    return page.evaluate(
        "async (arg) => { const g = await import('/games.js');"
        " await Promise.all(['holdem', 'zhajinhua', 'doudizhu'].map((n) => g.loadGame(n)));"
        f" const f = await import('/fairness.js'); {script} }}", arg)


def verify(page: Any, hand: dict[str, Any]) -> dict[str, Any]:
    return fair(page, "return await f.verifyHand(arg);", hand)


def tampered(**changes: Any) -> dict[str, Any]:
    hand = json.loads(json.dumps(HOLDEM))
    for path, value in changes.items():
        target = hand
        *parents, last = path.split("__")
        for key in parents:
            target = target[int(key)] if isinstance(target, list) else target[key]
        target[int(last) if isinstance(target, list) else last] = value
    return hand


def test_the_page_reproduces_the_worked_example(new_page):
    page = new_page(DESKTOP)
    assert fair(page, f"return await f.commitment('{SEED}');") == COMMITMENT
    assert fair(page, f"return await f.deriveDeck('{SEED}', 'r-example', 1, ['alice-seed', 'bob-seed'], 52);") == DECK_52
    lay = fair(page, "return f.layout('holdem', arg, [1, 0]);", DECK_52)
    assert lay == {"hands": {"1": [33, 5], "0": [19, 20]}, "board": [37, 39, 24, 7, 2]}
    deck54 = fair(page, f"return await f.deriveDeck('{SEED}', 'r-example', 1, ['alice-seed', 'bob-seed', ''], 54);")
    assert sorted(deck54) == list(range(54))
    assert deck54[:6] == [3, 21, 18, 23, 43, 17] and deck54[-5:] == [48, 15, 24, 41, 1]
    ddz = fair(page, "return f.layout('doudizhu', arg, [2, 0, 1]);", deck54)
    assert ddz["bottom"] == [24, 41, 1]
    assert ddz["hands"]["2"][:2] == [3, 23] and ddz["hands"]["0"][:2] == [21, 43]
    assert all(len(cards) == 17 for cards in ddz["hands"].values())
    zjh = fair(page, "return f.layout('zhajinhua', arg, [0, 1]);", DECK_52)
    assert zjh == {"hands": {"0": [33, 5, 43], "1": [19, 20, 37]}}

    # A page without Web Crypto (plain http from another machine) gets the same answers.
    page.evaluate("Object.defineProperty(window.crypto, 'subtle', {get: () => undefined, configurable: true})")
    assert fair(page, f"return await f.commitment('{SEED}');") == COMMITMENT
    assert fair(page, f"return await f.deriveDeck('{SEED}', 'r-example', 1, ['alice-seed', 'bob-seed'], 52);") == DECK_52
    assert verify(page, HOLDEM)["ok"] is True

    seeds = fair(page, "return [f.newClientSeed(), f.newClientSeed()];")
    assert seeds[0] != seeds[1] and all(re.fullmatch(r"[A-Za-z0-9_-]{22}", s) for s in seeds)


def test_a_tampered_hand_fails_with_the_reason(new_page):
    page = new_page(DESKTOP)
    good = verify(page, HOLDEM)
    assert good["ok"] is True, good
    assert "9 cards" in good["reason"] and "630dcd29" in good["reason"]

    other_seed = "ff" + SEED[2:]
    bad = verify(page, tampered(reveal__server_seed=other_seed))
    assert bad["ok"] is False and "commitment" in bad["reason"], bad

    bad = verify(page, tampered(seen__0__cards=[33, 6]))  # 6 = 3♥ is burned, not seat 1's
    assert bad == {"ok": False, "reason": "seat 1 was dealt 3♥, which the deck does not deal to seat 1: "
                                          "the deck burns it or never deals it"}

    bad = verify(page, tampered(seen__3__cards=[19, 33]))  # 10♦ was dealt to seat 1
    assert bad["reason"] == "seat 0 showed 10♦, which the deck does not deal to seat 0: the deck gives it to seat 1"

    bad = verify(page, tampered(seen__2__cards=[37, 39, 24, 2, 7]))  # turn and river swapped
    assert bad == {"ok": False, "reason": "the board had 2♥ as the turn, but the deck deals 3♠ there"}

    flipped = COMMITMENT[:-1] + "e"
    bad = verify(page, tampered(fairness__commitment=flipped, reveal__commitment=flipped))
    assert bad["ok"] is False and "commitment" in bad["reason"] and flipped[:8] in bad["reason"], bad
    bad = verify(page, tampered(reveal__commitment=flipped))  # the end of the hand names another one
    assert bad["ok"] is False and "commitment" in bad["reason"], bad

    bad = verify(page, tampered(fairness__seeds__1__seed="mallory"))  # not the seeds the deck came from
    assert bad["ok"] is False and "which the deck does not deal" in bad["reason"], bad

    bad = verify(page, {**HOLDEM, "mine": {"seat": 1, "seeds": ["my-own-seed"]}})
    assert bad["ok"] is False and "not one this browser sent" in bad["reason"], bad
    assert verify(page, {**HOLDEM, "mine": {"seat": 1, "seeds": ["x", "bob-seed"]}})["ok"] is True

    no_reveal = verify(page, {**HOLDEM, "reveal": None})
    assert no_reveal["ok"] is False and "not revealed" in no_reveal["reason"]


def test_dou_dizhu_landlord_plays_the_bottom(new_page):
    page = new_page(DESKTOP)
    deck = fair(page, f"return await f.deriveDeck('{SEED}', 'r-example', 1, ['alice-seed', 'bob-seed', ''], 54);")
    lay = fair(page, "return f.layout('doudizhu', arg, [0, 1, 2]);", deck)
    hand = {
        "game": "doudizhu", "room": "r-example", "handNo": 1,
        "fairness": {"scheme": "cardroom-v1", "commitment": COMMITMENT, "deck_size": 54, "deal_order": [0, 1, 2],
                     "seeds": [{"seat": 0, "seed": "alice-seed"}, {"seat": 1, "seed": "bob-seed"},
                               {"seat": 2, "seed": ""}]},
        "reveal": {"server_seed": SEED},
        "seen": [
            {"seat": 1, "cards": sorted(lay["hands"]["1"]), "kind": "dealt"},
            {"seat": 1, "cards": sorted(lay["bottom"]), "kind": "bottom"},  # seat 1 is the landlord
            {"seat": 1, "cards": [lay["bottom"][0]], "kind": "played"},
            {"seat": 2, "cards": lay["hands"]["2"][:2], "kind": "played"},
        ],
    }
    assert verify(page, hand)["ok"] is True
    hand["seen"].append({"seat": 0, "cards": [lay["bottom"][1]], "kind": "played"})
    bad = verify(page, hand)
    assert bad["ok"] is False and bad["reason"].startswith("seat 0 played"), bad
    assert bad["reason"].endswith("the deck puts it in the bottom"), bad


def test_dou_dizhu_open_hand_is_checked_as_cards_shown(new_page):
    """明牌: the landlord's hand shown face up (its event, or a view after a reload) is
    checked against the deck like a showdown: the landlord's dealt cards and the bottom."""
    page = new_page(DESKTOP)
    deck = fair(page, f"return await f.deriveDeck('{SEED}', 'r-example', 1, ['alice-seed', 'bob-seed', ''], 54);")
    lay = fair(page, "return f.layout('doudizhu', arg, [0, 1, 2]);", deck)
    shown = sorted(lay["hands"]["1"] + lay["bottom"])
    event = {"type": "open_hand", "seat": 1, "cards": shown, "ranks": "", "before_bottom": False, "multiplier": 2}
    assert fair(page, "return f.seenFromEvent('doudizhu', arg);", event) == [{"seat": 1, "cards": shown, "kind": "shown"}]
    view = {"landlord": 1, "bottom": lay["bottom"], "you": 0, "hand": lay["hands"]["0"], "history": [],
            "seats": [{"seat": 0, "shown": None}, {"seat": 1, "shown": shown}, {"seat": 2, "shown": None}]}
    seen = fair(page, "return f.seenFromView('doudizhu', arg, 0);", view)
    assert {"seat": 1, "cards": shown, "kind": "shown"} in seen
    hand = {
        "game": "doudizhu", "room": "r-example", "handNo": 1,
        "fairness": {"scheme": "cardroom-v1", "commitment": COMMITMENT, "deck_size": 54, "deal_order": [0, 1, 2],
                     "seeds": [{"seat": 0, "seed": "alice-seed"}, {"seat": 1, "seed": "bob-seed"},
                               {"seat": 2, "seed": ""}]},
        "reveal": {"server_seed": SEED}, "seen": seen,
    }
    assert verify(page, hand)["ok"] is True
    view["seats"][1]["shown"] = shown[:-1] + [lay["hands"]["2"][0]]  # a card of seat 2 shown as the landlord's
    hand["seen"] = fair(page, "return f.seenFromView('doudizhu', arg, 0);", view)
    bad = verify(page, hand)
    assert bad["ok"] is False and bad["reason"].startswith("seat 1 showed"), bad


def test_verify_a_hand_played_against_a_bot(new_page, server, shots, tmp_path):
    page = new_page(DESKTOP)
    enter(page, "vera")
    page.evaluate("() => window.cardroom.conn.on('event', (m) => {"
                  " if (m.event.type === 'hand_started') (window.__hands = window.__hands || []).push(m.event); })")
    create_table(page, "holdem", seats=2, bots=1, bot_delay_seconds=0.2, action_seconds=120,
                 between_hands_seconds=8)  # the checks of hand 1's result fit before the next deal
    t = table(page)
    expect(t).to_have_attribute("data-playing", "1")  # we hold the button: we act first, the hand waits for us
    commit = page.get_by_test_id("commitment")
    expect(commit).to_be_visible()
    expect(commit).to_contain_text("Deck committed:")
    full = commit.get_attribute("data-commitment") or ""
    assert re.fullmatch(r"[0-9a-f]{64}", full)
    expect(commit).to_contain_text(full[:8] + "…")
    screenshot(page, shots, "desktop-committed")
    page.set_viewport_size(PHONE_TALL)
    _inside_viewport(page, ["fairness", "to-lobby", "leave-seat"])
    screenshot(page, shots, "phone-committed")
    page.set_viewport_size(DESKTOP)

    def seat_seed(hand_no: int) -> str:
        """Our seed in the deal of ``hand_no`` (from its hand_started event)."""
        page.wait_for_function(f"() => (window.__hands || []).some(e => e.hand_no === {hand_no})")
        fairness = page.evaluate(f"() => window.__hands.find(e => e.hand_no === {hand_no}).fairness")
        return next(s["seed"] for s in fairness["seeds"] if s["seat"] == 0)

    first_seed = seat_seed(1)
    assert re.fullmatch(r"[A-Za-z0-9_-]{22}", first_seed), "the page sat down with a seed of its own"

    assert _play_out_hand(page) == 1
    verify_button = page.get_by_test_id("verify")
    expect(verify_button).to_be_visible()
    expect(verify_button).to_have_attribute("data-hand", "1")
    verify_button.click()
    result = page.get_by_test_id("verify-result")
    expect(result).to_have_attribute("data-ok", "1")
    expect(result).to_contain_text("✔ Verified:")
    screenshot(page, shots, "desktop-verified")
    _inside_viewport(page, ["verify", "verify-result", "actions", "to-lobby", "leave-seat"])
    # at phone size too, while the result still shows (the next deal replaces it)
    page.set_viewport_size(PHONE_TALL)
    _inside_viewport(page, ["verify", "verify-result", "to-lobby", "leave-seat"])
    screenshot(page, shots, "phone-verified")
    page.set_viewport_size(DESKTOP)

    # "Save" downloads the hand as this browser saw it; the Python checker agrees.
    with page.expect_download() as download:
        page.get_by_test_id("save-hand").click()
    saved = tmp_path / "hand.json"
    download.value.save_as(saved)
    exported = json.loads(saved.read_text())
    assert exported["hand"] == 1 and exported["events"][0]["type"] == "hand_started"
    assert exported["events"][-1]["type"] == "hand_ended"
    checked = subprocess.run([sys.executable, "-m", "server.cli", "verify", "--file", str(saved)],
                             cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "✔" in checked.stdout

    # The next deal: a new commitment, a fresh seed of ours, and hand 1 still verifiable.
    second_seed = seat_seed(2)
    assert second_seed != first_seed and re.fullmatch(r"[A-Za-z0-9_-]{22}", second_seed)
    # read in one go: on a loaded machine hand 2 may end between two separate reads
    now = page.evaluate("""() => {
        const q = (id) => document.querySelector(`[data-testid="${id}"]`);
        const attr = (id, name) => q(id) && q(id).getAttribute(name);
        return {hand: attr('table', 'data-hand'), over: attr('table', 'data-over'),
                commitment: attr('commitment', 'data-commitment'), verify: attr('verify', 'data-hand'),
                ok: attr('verify-result', 'data-ok')};
    }""")
    if now["hand"] == "2" and now["over"] == "0":
        assert now["commitment"] != full
        assert (now["verify"], now["ok"]) == ("1", "1"), now
    hand = _play_out_hand(page)
    expect(page.get_by_test_id("verify")).to_have_attribute("data-hand", str(hand))
    page.get_by_test_id("verify").click()
    expect(page.get_by_test_id("verify-result")).to_have_attribute("data-ok", "1")
    expect(page.get_by_test_id("verify-result")).to_have_attribute("data-hand", str(hand))


#: the history's line after a reload that missed moves (i18n.js ``log.reload_gap``)
RELOAD_GAP = "moves made while the page reloaded are not listed"


def test_verify_after_a_reload_in_the_middle_of_the_hand(new_page, server):
    page = new_page(DESKTOP)
    enter(page, "rita")
    create_table(page, "holdem", seats=2, bots=1, bot_delay_seconds=0.2, action_seconds=120,
                 between_hands_seconds=120)
    t = table(page)
    expect(page.get_by_test_id("my-turn")).to_be_visible()  # the button acts first pre-flop
    full = page.get_by_test_id("commitment").get_attribute("data-commitment")
    page.get_by_test_id("act-call").click()
    page.reload()
    expect(t).to_have_attribute("data-your-seat", "0")
    if t.get_attribute("data-over") == "0":
        expect(page.get_by_test_id("commitment")).to_have_attribute("data-commitment", full or "")
    assert _play_out_hand(page) == 1
    page.get_by_test_id("verify").click()
    result = page.get_by_test_id("verify-result")
    expect(result).to_have_attribute("data-ok", "1")  # from the snapshot's view: our cards and the board
    expect(result).to_contain_text(full[:8] if full else "?")
    # Save is offered only for a hand the page saw whole. The tab's record of the hand survives
    # the reload (handlog.js), so the page saw it whole unless moves were made while it
    # reloaded, which the history then says. Which one happens is a race (did the call go out
    # before the page unloaded, did the bot answer before the page was back).
    missed = page.get_by_test_id("history").get_by_text(RELOAD_GAP).count() > 0
    expect(page.get_by_test_id("save-hand")).to_have_count(0 if missed else 1)


def test_a_spectator_who_comes_mid_hand_verifies_it(new_page, server):
    """The snapshot carries no hand's proof: a page that comes to a table mid-hand takes it
    from the hand's own events (``history``'s ``current``), shows the commitment, and checks
    the hand once it is over."""
    rita = new_page(DESKTOP)
    enter(rita, "rita")
    room = create_table(rita, "holdem", seats=2, bots=1, bot_delay_seconds=0.2, action_seconds=120,
                        between_hands_seconds=120)
    expect(rita.get_by_test_id("my-turn")).to_be_visible()
    full = rita.get_by_test_id("commitment").get_attribute("data-commitment")
    assert full
    rita.get_by_test_id("act-call").click()
    spy = new_page(DESKTOP)
    enter(spy, "spy")
    spy.goto(f"{spy.url.split('#')[0]}#/room/{room}")
    expect(table(spy)).to_have_attribute("data-over", "0")  # it came mid-hand
    expect(spy.get_by_test_id("commitment")).to_have_attribute("data-commitment", full)
    assert _play_out_hand(rita) == 1
    expect(table(spy)).to_have_attribute("data-over", "1")
    spy.get_by_test_id("verify").click()
    result = spy.get_by_test_id("verify-result")
    expect(result).to_have_attribute("data-ok", "1")
    expect(result).to_contain_text(full[:8])
    expect(spy.get_by_test_id("save-hand")).to_have_count(0)  # it did not see the hand whole


def test_verify_zhajinhua_after_a_look_and_a_compare(new_page, server, shots):
    page = new_page(PHONE_TALL)
    enter(page, "zoe")
    create_table(page, "zhajinhua", seats=2, bots=1, bot_delay_seconds=0.2, compare_after_rounds=1,
                 action_seconds=120, between_hands_seconds=120)
    t = table(page)
    expect(page.get_by_test_id("fairness")).to_be_visible()  # the commitment, or Verify if the bot folded at once
    _inside_viewport(page, ["fairness", "to-lobby", "leave-seat"])
    screenshot(page, shots, "phone-committed")
    for _ in range(40):
        page.wait_for_function(
            "() => document.querySelector('[data-testid=my-turn], [data-testid=act-look]')"
            " || document.querySelector('[data-testid=table][data-over=\"1\"]')")
        if t.get_attribute("data-over") == "1":
            break
        version = t.get_attribute("data-version") or ""
        look, compare = page.get_by_test_id("act-look"), page.locator("[data-testid^=compare-]")
        call, fold = page.get_by_test_id("act-call"), page.get_by_test_id("act-fold")
        button = (look if look.count() else compare.first if compare.count() else call if call.count()
                  else fold if fold.count() else None)
        if button is None:  # the turn marker is up but the buttons are not drawn yet: look again
            page.wait_for_timeout(100)
            continue
        try:
            button.click(timeout=5_000)
        except PlaywrightTimeout:
            # gone before the click landed: the bot ended the hand meanwhile (Look at cards
            # is offered out of turn too, so the bot may compare or fold while we reach it)
            if t.get_attribute("data-over") == "1":
                break
            raise
        expect(t).not_to_have_attribute("data-version", version)
    expect(t).to_have_attribute("data-over", "1")
    page.get_by_test_id("verify").click()
    result = page.get_by_test_id("verify-result")
    expect(result).to_have_attribute("data-ok", "1")
    expect(result).to_contain_text("✔ Verified:")
    _inside_viewport(page, ["verify", "verify-result", "to-lobby", "leave-seat"])
    screenshot(page, shots, "phone-verified")


def test_verify_doudizhu_as_the_landlord(new_page, server, scripted, shots):
    page = new_page(DESKTOP)
    enter(page, "lena")
    room = create_table(page, "doudizhu", bidding="score", action_seconds=120, between_hands_seconds=120)
    for name in ("west", "east"):
        scripted(name, _passive).join(room)
    t = table(page)
    expect(t).to_have_attribute("data-playing", "1")
    expect(page.get_by_test_id("commitment")).to_be_visible()
    for _ in range(60):
        page.wait_for_function(
            "() => document.querySelector('[data-testid=my-turn]')"
            " || document.querySelector('[data-testid=table][data-over=\"1\"]')")
        if t.get_attribute("data-over") == "1":
            break
        version = t.get_attribute("data-version") or ""
        if page.get_by_test_id("bid-3").count():
            page.get_by_test_id("bid-3").click()
        else:
            page.get_by_test_id("act-hint").click()
            page.get_by_test_id("act-play").click()
        expect(t).not_to_have_attribute("data-version", version)
    expect(t).to_have_attribute("data-over", "1")
    page.get_by_test_id("verify").click()
    result = page.get_by_test_id("verify-result")
    expect(result).to_have_attribute("data-ok", "1")
    expect(result).to_contain_text("54 cards")  # own 17 + bottom 3 + the other hands shown at the end
    screenshot(page, shots, "desktop-verified")
    page.set_viewport_size(PHONE_TALL)
    _inside_viewport(page, ["verify", "verify-result", "to-lobby", "leave-seat"])
    screenshot(page, shots, "phone-verified")


def _passive(view: dict[str, Any]) -> dict[str, Any]:
    """A scripted Dou Dizhu player: never bids, passes whenever it may."""
    legal = view["legal"]
    if legal["phase"] == "bidding" or legal["can_pass"]:
        return {"type": "pass"}
    return {"type": "play", "cards": legal["plays"][0]["ranks"]}


def _play_out_hand(page: Any) -> int:
    """Check (or call) whenever it is our turn until the hand is over; its number."""
    t = table(page)
    for _ in range(40):
        page.wait_for_function(
            "() => document.querySelector('[data-testid=my-turn]')"
            " || document.querySelector('[data-testid=table][data-over=\"1\"]')")
        if t.get_attribute("data-over") == "1":
            return int(t.get_attribute("data-hand") or "0")
        version = t.get_attribute("data-version") or ""
        check = page.get_by_test_id("act-check")
        (check if check.count() else page.get_by_test_id("act-call")).click()
        expect(t).not_to_have_attribute("data-version", version)
    raise AssertionError("the hand did not end")


def _inside_viewport(page: Any, testids: list[str]) -> None:
    """Each element is inside the viewport, and the fairness line overlaps none of the others
    (measured in one go: the table re-renders on every snapshot)."""
    size = page.viewport_size
    boxes = page.evaluate(
        """(ids) => Object.fromEntries(ids.concat('fairness').map((id) => {
             const el = document.querySelector(`[data-testid="${id}"]`);
             const r = el && el.getBoundingClientRect();
             return [id, r && r.width ? {x: r.x, y: r.y, width: r.width, height: r.height} : null];
           }))""", testids)
    for tid in testids:
        box = boxes[tid]
        assert box, f"{tid} is not drawn"
        assert box["x"] >= 0 and box["y"] >= 0, (tid, box)
        assert box["x"] + box["width"] <= size["width"] and box["y"] + box["height"] <= size["height"], (tid, box, size)
    fair = boxes["fairness"]
    assert fair, "the fairness line is not drawn"
    for tid in testids:
        if tid in ("fairness", "commitment", "verify", "verify-result"):  # parts of the line
            continue
        box = boxes[tid]
        overlap = not (fair["x"] + fair["width"] <= box["x"] or box["x"] + box["width"] <= fair["x"]
                       or fair["y"] + fair["height"] <= box["y"] or box["y"] + box["height"] <= fair["y"])
        assert not overlap, f"the fairness line covers {tid}"
