"""The page in Chinese and English, and the sound-and-motion switch.

Every table is played against the server's bots in both languages; in Chinese no visible
text of the table is left in English (player names, numbers and card codes aside), in
English no Chinese character. The lobby, the create forms and the names of tables made by
the server or by a page of the other language speak the page's language too. The machine
running the tests may have no Chinese font: the checks read the DOM, not pixels, and the
English pages are told there is one (so they would show any Chinese they have).
"""

from __future__ import annotations

import re

import pytest

from .conftest import DESKTOP, PHONE
from .ui import CJK, create_table, enter, expect, foreign_texts, screenshot, shown_texts, table

pytestmark = pytest.mark.browser

FAST = {"action_seconds": 120, "between_hands_seconds": 5, "bot_delay_seconds": 0.2}
ZH = "zh-CN"
EN = "en-US"
LOCALE = {"zh": ZH, "en": EN}

# As on a machine with a Chinese font (detectCjkFont measures one): the page then leaves
# no Chinese out of English for want of glyphs, so whatever Chinese it has shows.
CJK_FONT = """
const measure = CanvasRenderingContext2D.prototype.measureText;
CanvasRenderingContext2D.prototype.measureText = function (text) {
  const m = measure.call(this, text);
  return /[\\u3400-\\u9fff]/.test(text) ? { width: m.width + 10 } : m;
};
"""

# Every visible text node of the table screen (seats, felt, action bar, top bar, history).
_TEXTS = """() => {
  const root = document.querySelector('[data-testid=table]');
  const out = [];
  const walk = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    const text = n.textContent.trim();
    const el = n.parentElement;
    if (!text || !el || !el.getClientRects().length) continue;
    const style = getComputedStyle(el);
    if (style.visibility === 'hidden' || style.display === 'none') continue;
    out.push(text);
  }
  for (const el of root.querySelectorAll('button, input')) {
    if (el.getClientRects().length && el.value && el.tagName === 'INPUT' && el.type === 'text') out.push(el.value);
  }
  return out;
}"""

# The English labels of the page (plain strings without placeholders) that differ in Chinese.
_EN_LABELS = """async () => {
  const m = await import('/i18n.js');
  const out = [];
  for (const [k, v] of Object.entries(m.STRINGS.en)) {
    if (typeof v === 'string' && !v.includes('{') && m.STRINGS.zh[k] !== v) out.push(v.trim());
  }
  return out;
}"""


def untranslated(page) -> list[str]:
    """Visible texts and tooltips of the table that are (or contain) English: player
    names, numbers, card codes and hashes aside."""
    names = page.locator("[data-testid=table] .seat[data-name]").evaluate_all("els => els.map(e => e.dataset.name)")
    labels = set(page.evaluate(_EN_LABELS))
    bad = []
    for text in page.evaluate(_TEXTS):
        if text in labels:
            bad.append(text)
            continue
        rest = text
        for name in sorted(names, key=len, reverse=True):
            rest = rest.replace(name, " ")
        # (card ranks written together in a hand name, e.g. 对子 AA or 顺子 AKQ, are not English)
        rest = re.sub(r"\b[0-9a-f]{8}\b|JOKER|sha256|\b[AKQJ]{2,3}\b", " ", rest)
        if re.search(r"[A-Za-z]{2,}", rest):
            bad.append(text)
    # (the Save button's tooltip names the command that checks a saved hand)
    tooltips = foreign_texts(page, "[data-testid=table]", "zh", [*names, "cardroom verify --file"])
    return bad + [x for x in tooltips if x not in bad]


def _wait_turn_or_over(page) -> bool:
    """Wait until it is our turn or the hand is over; True when over."""
    page.wait_for_function("() => document.querySelector('[data-testid=my-turn]')"
                           " || document.querySelector('[data-testid=table][data-over=\"1\"]')")
    return table(page).get_attribute("data-over") == "1"


def _click_first(page, *testids: str) -> bool:
    for testid in testids:
        loc = page.locator(f"[data-testid^={testid}]" if testid.endswith("-") else f"[data-testid={testid}]")
        if loc.count() and loc.first.is_enabled():
            loc.first.click()
            return True
    return False


def chinese_left(page) -> list[str]:
    """Visible texts of an English table with a Chinese character (player names aside)."""
    names = page.locator("[data-testid=table] .seat[data-name]").evaluate_all("els => els.map(e => e.dataset.name)")
    return foreign_texts(page, "[data-testid=table]", "en", names)


def play_out(page, game: str, checks: list[list[str]] | None = None, check=untranslated) -> None:
    """Play the hand to its end with simple moves (collecting, at every turn, what
    ``check`` finds: texts not in the page's language)."""
    t = table(page)
    for _ in range(80):
        if _wait_turn_or_over(page):
            return
        if checks is not None:
            checks.append(check(page))
        version = t.get_attribute("data-version") or ""
        if game == "holdem":
            _click_first(page, "act-check", "act-call", "act-fold")
        elif game == "zhajinhua":
            _click_first(page, "compare-", "act-call", "act-allin", "act-fold")
        elif page.get_by_test_id("act-hint").count():
            page.get_by_test_id("act-hint").click()
            expect(page.get_by_test_id("act-play")).to_be_enabled()
            page.get_by_test_id("act-play").click()
        else:
            _click_first(page, "bid-3", "act-rob", "act-call", "act-pass")
        expect(t).not_to_have_attribute("data-version", version)
    raise AssertionError("the hand did not end")


# What each table says at our first turn, per language: test id -> text (a prefix).
FIRST_TURN = {
    "holdem": {"zh": {"act-fold": "弃牌", "street": "翻牌前"}, "en": {"act-fold": "Fold", "street": "Pre-flop"}},
    "zhajinhua": {"zh": {"act-fold": "弃牌", "act-call": "跟注", "act-look": "看牌"},
                  "en": {"act-fold": "Fold", "act-call": "Call", "act-look": "Look at cards"}},
    # bidding, or (when a bot bid 3 first) playing
    "doudizhu": {"zh": {"bid-3": "3分", "act-hint": "提示", "act-play": "出牌", "act-pass": re.compile("不出|不叫")},
                 "en": {"bid-3": "3 points", "act-hint": "Hint", "act-play": "Play", "act-pass": re.compile("Pass|No bid")}},
}
OPTIONS = {
    "holdem": {"seats": 3, "bots": 2, "small_blind": 5, "big_blind": 10},
    "zhajinhua": {"seats": 3, "bots": 2, "compare_after_rounds": 1},
    "doudizhu": {"bots": 2, "bidding": "score"},
}


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("game", ["holdem", "zhajinhua", "doudizhu"])
def test_each_table_in_both_languages(new_page, shots, game, lang):
    page = new_page(DESKTOP, locale=LOCALE[lang], init_script=CJK_FONT if lang == "en" else None)
    expect(page.locator("html")).to_have_attribute("lang", "zh-CN" if lang == "zh" else "en")
    enter(page, "莉莉" if lang == "zh" else "lily")
    create_table(page, game, **OPTIONS[game], **FAST)
    t = table(page)
    # the first turn (bots may end a Hold'em or Zha Jin Hua hand before it: then the next)
    for _ in range(5):
        if not _wait_turn_or_over(page):
            break
        expect(t).to_have_attribute("data-over", "0", timeout=20_000)
    words = FIRST_TURN[game][lang]
    checked = 0
    for testid, text in words.items():
        if testid == "street":
            expect(page.locator("[data-testid=center] .street").first).to_have_text(text)
        elif page.get_by_test_id(testid).count():  # what this turn offers (look, bid or play)
            expect(page.get_by_test_id(testid)).to_contain_text(text)
        else:
            continue
        checked += 1
    assert checked >= (1 if game == "doudizhu" else 2), f"{game} {lang}: {list(words)} not on screen"
    top = {"zh": ["← 大厅", "离开牌桌"], "en": ["← Lobby", "Leave table"]}[lang]
    expect(page.get_by_test_id("to-lobby")).to_have_text(top[0])
    expect(page.get_by_test_id("leave-seat")).to_have_text(top[1])
    if lang == "en":  # no Chinese in an English hand, its end and its history
        en_checks: list[list[str]] = []
        play_out(page, game, en_checks, chinese_left)
        en_checks.append(chinese_left(page))
        assert not [c for c in en_checks if c], f"Chinese in the English {game} table: {en_checks}"
        return
    checks: list[list[str]] = []
    play_out(page, game, checks)
    expect(t).to_have_attribute("data-over", "1")
    checks.append(untranslated(page))
    page.get_by_test_id("verify").click()
    expect(page.get_by_test_id("verify-result")).to_contain_text("✔ 已验证")
    history = page.get_by_test_id("history")
    expect(history).to_contain_text("牌局记录")
    expect(history).to_contain_text("— 第1局 —")
    checks.append(untranslated(page))
    screenshot(page, shots, f"{game}-zh")
    assert not [c for c in checks if c], f"English left in the Chinese {game} table: {checks}"
    # the same table switched to English, then back: nothing of the other language stays
    page.get_by_test_id("lang-switch").click()
    expect(page.get_by_test_id("to-lobby")).to_have_text("← Lobby")
    expect(history).to_contain_text("— Hand #1 —")
    page.get_by_test_id("lang-switch").click()
    expect(history).to_contain_text("— 第1局 —")
    assert untranslated(page) == []


def test_the_two_tables_have_the_same_keys_and_placeholders(new_page):
    page = new_page(DESKTOP)
    diff = page.evaluate("""async () => {
      const { STRINGS } = await import('/i18n.js');
      const en = STRINGS.en, zh = STRINGS.zh;
      // placeholders, a rank's plural ({as}) counted as its name ({a}): Chinese has no plurals
      const holes = (v) => typeof v === 'string'
        ? new Set([...v.matchAll(/\\{(\\w+)\\}/g)].map(m => ({ as: 'a', bs: 'b' }[m[1]] || m[1]))) : null;
      return {
        onlyEn: Object.keys(en).filter(k => !(k in zh)),
        onlyZh: Object.keys(zh).filter(k => !(k in en)),
        // a Chinese text filling in something the English one is not given (functions take what they need)
        holes: Object.keys(en).filter(k => k in zh && holes(en[k]) !== null && holes(zh[k]) !== null
                                        && [...holes(zh[k])].some(x => !holes(en[k]).has(x))),
        // a Chinese text dropping a name or an amount the English one shows
        dropped: Object.keys(en).filter(k => k in zh && holes(en[k]) !== null && holes(zh[k]) !== null
                                          && [...holes(en[k])].some(x => ['name', 'n', 'who', 'chips'].includes(x) && !holes(zh[k]).has(x))),
        count: Object.keys(en).length,
      };
    }""")
    assert diff["onlyEn"] == [] and diff["onlyZh"] == [], diff
    assert diff["holes"] == [] and diff["dropped"] == [], diff
    assert diff["count"] > 300


def test_the_language_follows_the_browser_and_the_switch_is_remembered(new_page, shots):
    zh = new_page(PHONE, locale=ZH)
    expect(zh.get_by_test_id("name-submit")).to_have_text("进入")
    expect(zh.get_by_test_id("lang-switch")).to_have_attribute("data-lang", "zh")
    expect(zh.get_by_test_id("lang-switch")).to_have_text("EN")
    enter(zh, "小明")
    expect(zh.get_by_test_id("play-now-doudizhu")).to_contain_text("对战")
    expect(zh.get_by_test_id("conn-state")).to_have_attribute("data-state", "online")
    screenshot(zh, shots, "lobby-zh-phone")
    # switch to English: the lobby redraws at once, and a reload keeps it
    zh.get_by_test_id("lang-switch").click()
    expect(zh.get_by_test_id("quick-holdem")).to_have_text("Quick match")
    expect(zh.locator("html")).to_have_attribute("lang", "en")
    zh.reload()
    expect(zh.get_by_test_id("quick-holdem")).to_have_text("Quick match")
    expect(zh.get_by_test_id("lang-switch")).to_have_attribute("data-lang", "en")
    assert zh.evaluate("localStorage.getItem('cardroom.lang')") == "en"

    en = new_page(DESKTOP, locale=EN)
    expect(en.get_by_test_id("name-submit")).to_have_text("Enter")
    en.get_by_test_id("lang-switch").click()
    expect(en.get_by_test_id("name-submit")).to_have_text("进入")
    en.reload()
    expect(en.get_by_test_id("name-submit")).to_have_text("进入")
    # an error of a known code in Chinese; the server's English only for codes the page does not know
    enter(en, "阿强")
    shown = en.evaluate("""async () => {
      const app = window.cardroom;
      app.showError({ code: 'not_your_turn', message: 'seat 1 is to act' });
      app.showError({ code: 'some_new_code', message: 'a brand new problem' });
      return [...document.querySelectorAll('[data-testid=toast-error]')].map(e => e.textContent);
    }""")
    assert shown == ["还没轮到你", "a brand new problem"], shown


# Counts the AudioContexts the page creates.
_COUNT_AUDIO = """
window.__audioContexts = 0;
for (const name of ['AudioContext', 'webkitAudioContext']) {
  const Base = window[name];
  if (!Base) continue;
  window[name] = class extends Base { constructor(...a) { super(...a); window.__audioContexts += 1; } };
}
"""


def test_sound_and_motion_switch(new_page):
    # off (the tests' preset): no AudioContext while a hand is played
    quiet = new_page(DESKTOP, init_script=_COUNT_AUDIO)
    toggle = quiet.get_by_test_id("fx-toggle")
    expect(toggle).to_have_attribute("data-on", "0")
    enter(quiet, "quiet")
    create_table(quiet, "holdem", seats=2, bots=1, **FAST)
    play_out(quiet, "holdem")
    assert quiet.evaluate("window.__audioContexts") == 0
    assert quiet.evaluate("document.documentElement.classList.contains('fx')") is False
    assert quiet.locator(".deal-in, .chip-in").count() == 0

    # on: remembered across a reload; the next hand's sounds come from one AudioContext
    toggle.click()
    expect(toggle).to_have_attribute("data-on", "1")
    quiet.reload()
    expect(quiet.get_by_test_id("fx-toggle")).to_have_attribute("data-on", "1")
    assert quiet.evaluate("localStorage.getItem('cardroom.effects')") == "on"

    loud = new_page(DESKTOP, effects=True, init_script=_COUNT_AUDIO)
    expect(loud.get_by_test_id("fx-toggle")).to_have_attribute("data-on", "1")
    enter(loud, "loud")
    create_table(loud, "holdem", seats=2, bots=1, **FAST)
    play_out(loud, "holdem")
    assert loud.evaluate("window.__audioContexts") == 1
    assert loud.evaluate("document.documentElement.classList.contains('fx')") is True
    # and off again: the switch says so and the page stops making sound
    loud.get_by_test_id("fx-toggle").click()
    expect(loud.get_by_test_id("fx-toggle")).to_have_attribute("data-on", "0")
    assert loud.evaluate("localStorage.getItem('cardroom.effects')") == "off"


def test_hand_names_in_chinese(new_page):
    """The server's English hand descriptions and the page's own hand names, in Chinese."""
    page = new_page(DESKTOP, locale=ZH)
    names = page.evaluate("""async () => {
      const z = await import('/games/zhajinhua.js');
      const e = await import('/handeval.js');
      const d = await import('/games/doudizhu.js');
      return {
        zjh: ['Trips (豹子): three Kings', 'Straight flush (顺金): Q-K-A, Ace high', 'Flush (金花): A K 9',
              'Straight (顺子): A-2-3 (the lowest)', 'Pair (对子) of Kings, kicker Nine', 'High card (单张): A T 9',
              'Special 2-3-5 (beats trips), otherwise high card (单张): 5 3 2'].map(z.zjhHand),
        holdem: ['Royal flush', 'Two pair, queens and eights, ace kicker', 'Full house, kings full of sevens',
                 'Flush, ace-queen-nine-six-three', 'One pair, deuces, ace-nine-four kickers'].map(e.fullHand),
        short: e.shortHand('Two pair, queens and eights, ace kicker'),
        mine: e.bestHand([46, 30, 22, 10, 2, 51, 48]).name,
        kinds: ['solo', 'pair', 'trio', 'trio_solo', 'trio_pair', 'solo_chain', 'pair_chain', 'airplane',
                'airplane_solo', 'airplane_pair', 'four_two_solo', 'four_two_pair', 'bomb', 'rocket', 'new_kind'].map(d.kindText),
      };
    }""")
    assert names["zjh"] == ["豹子 KKK", "顺金 Q-K-A", "金花 A K 9", "顺子 A-2-3（最小）", "对子 KK，单张 9",
                            "单张 A 10 9", "特殊牌 235（吃豹子），否则为单张 5 3 2"]
    assert names["holdem"] == ["皇家同花顺", "两对，Q 和 8，踢脚 A", "葫芦，三条 K 带一对 7", "同花，A-Q-9-6-3",
                               "一对 2，踢脚 A-9-4"]
    assert names["short"] == "两对，Q 和 8"
    assert names["mine"] == "同花，K 高"
    assert names["kinds"] == ["单张", "对子", "三张", "三带一", "三带二", "顺子", "连对", "飞机", "飞机带单", "飞机带对",
                              "四带二", "四带两对", "炸弹", "王炸", "new kind"]


def test_hand_and_card_names_in_english(new_page):
    """English hand names, play kinds and jokers without Chinese (even with a Chinese font)."""
    page = new_page(DESKTOP, locale=EN, init_script=CJK_FONT)
    names = page.evaluate("""async () => {
      const z = await import('/games/zhajinhua.js');
      const e = await import('/handeval.js');
      const d = await import('/games/doudizhu.js');
      const c = await import('/cards.js');
      return {
        zjh: ['Trips (豹子): three Kings', 'Straight flush (顺金): Q-K-A, Ace high', 'Flush (金花): A K 9',
              'Straight (顺子): A-2-3 (the lowest)', 'Pair (对子) of Tens, kicker Nine', 'High card (单张): A T 9',
              'Special 2-3-5 (beats trips), otherwise high card (单张): 5 3 2'].map(z.zjhHand),
        holdem: ['Two pair, queens and eights, ace kicker', 'Flush, ace-queen-nine-six-three'].map(e.fullHand),
        kinds: ['solo', 'pair', 'trio', 'trio_solo', 'trio_pair', 'solo_chain', 'pair_chain', 'airplane',
                'airplane_solo', 'airplane_pair', 'four_two_solo', 'four_two_pair', 'bomb', 'rocket'].map(d.kindText),
        jokers: [c.cardText(52), c.cardText(53), c.ddzRanksText('3BR')],
      };
    }""")
    assert names["zjh"] == ["Trips: three Kings", "Straight flush: Q-K-A, Ace high", "Flush: A K 9",
                            "Straight: A-2-3 (the lowest)", "Pair of Tens, kicker Nine", "High card: A 10 9",
                            "Special 2-3-5 (beats trips), otherwise high card: 5 3 2"]
    assert names["holdem"] == ["Two pair, queens and eights, ace kicker", "Flush, ace-queen-nine-six-three"]
    assert not [k for k in names["kinds"] if CJK.search(k)], names["kinds"]
    assert names["jokers"] == ["Black Joker", "Red Joker", "3 Black Joker Red Joker"]
    page.get_by_test_id("lang-switch").click()
    jokers = page.evaluate("""async () => {
      const c = await import('/cards.js');
      return [c.cardText(52), c.cardText(53), c.ddzRanksText('3BR')];
    }""")
    assert jokers == ["小王", "大王", "3 小王 大王"]


# The tables a page of the other language makes (its player Ada, or Bo): its Play now
# table (the page names it), and a quick match's (the server names it); and their names as
# this page shows them (the lobby adds a short suffix to a name another table has too).
OTHER = {"zh": "Ada", "en": "Bo"}
ROOM_NAMES = {"zh": {"play_now": "Ada的炸金花桌", "quick": "斗地主桌"},
              "en": {"play_now": "Bo's Zha Jin Hua table", "quick": "Dou Dizhu table"}}
QUICK_STAKE = {"zh": 37, "en": 41}  # stakes no other test asks for: the quick match opens a table
# Developer wording a player should not read: option names (buy_in_min) and file paths.
DEV_WORDS = re.compile(r"\b[a-z]+_[a-z_]+\b|docs/")


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_lobby_and_the_create_forms_speak_one_language(new_page, shots, lang):
    other = new_page(DESKTOP, locale=EN if lang == "zh" else ZH)
    enter(other, OTHER[lang])
    other.get_by_test_id("play-now-zhajinhua").click()
    expect(table(other)).to_have_attribute("data-your-seat", "0")
    play_now = table(other).get_attribute("data-room")
    other.evaluate(f"window.cardroom.quickMatch('doudizhu', {QUICK_STAKE[lang]})")
    expect(table(other)).not_to_have_attribute("data-room", play_now or "")
    quick = table(other).get_attribute("data-room")

    page = new_page(DESKTOP, locale=LOCALE[lang], init_script=CJK_FONT if lang == "en" else None)
    enter(page, "Lin")
    for room, name in ((play_now, ROOM_NAMES[lang]["play_now"]), (quick, ROOM_NAMES[lang]["quick"])):
        expect(page.get_by_test_id(f"room-{room}").get_by_test_id("room-name")).to_have_text(
            re.compile(rf"{re.escape(name)}( #[0-9a-f]{{4}})?"))
    # other tests' tables are listed too: their names (as shown, and whole in the tooltip) may be what players typed
    shown = page.get_by_test_id("room-name").evaluate_all(
        "els => els.flatMap(e => [e.textContent, e.title.replace(/ \\(r-[0-9a-f]+\\)$/, '')])")
    typed = [n for n in shown if not n.startswith(tuple(ROOM_NAMES[lang].values()))]
    assert foreign_texts(page, "main, header .me, header .conn", lang, ["Lin", OTHER[lang], *typed]) == []
    assert page.title() == ("cardroom · 德州扑克、炸金花、斗地主" if lang == "zh" else "cardroom · Hold'em, Zha Jin Hua, Dou Dizhu")
    screenshot(page, shots, f"lobby-{lang}")

    # every label, help text and choice of each game's form, the more rules opened
    for game in ("holdem", "zhajinhua", "doudizhu"):
        page.get_by_test_id(f"create-{game}").click()
        form = page.get_by_test_id("create-form")
        expect(form).to_have_attribute("data-game", game)
        form.locator("details.more > summary").click()
        expect(form.locator("details.more")).to_have_attribute("open", "")
        assert foreign_texts(page, "[data-testid=create-form]", lang, ["Lin"]) == [], game
        assert [x for x in shown_texts(page, "[data-testid=create-form]") if DEV_WORDS.search(x)] == [], game
        screenshot(page, shots, f"create-{game}-{lang}")
    zh = lang == "zh"
    page.get_by_test_id("create-holdem").click()
    expect(page.locator("label[for=opt-config-ante]")).to_have_text("前注" if zh else "Ante")
    expect(page.get_by_test_id("opt-bot_strategy").locator("option")).to_have_text(["聪明", "随机"] if zh else ["smart", "random"])
    page.get_by_test_id("create-zhajinhua").click()
    expect(page.locator("label[for=opt-config-ante]")).to_have_text("底注" if zh else "Ante")

    # the quick match's table, watched: its name in the top bar
    page.get_by_test_id(f"watch-{quick}").click()
    expect(page.locator("[data-testid=table] .table-name")).to_have_text(ROOM_NAMES[lang]["quick"])
    assert foreign_texts(page, "[data-testid=table]", lang, [OTHER[lang]]) == []


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_refused_option_is_named_in_chinese_by_the_forms_label(new_page, viewport):
    page = new_page(viewport, locale=ZH)
    enter(page, "小红")
    page.get_by_test_id("create-holdem").click()
    form = page.get_by_test_id("create-form")
    cases = [("buy_in_max", "最大买入"), ("ante", "前注")]  # Hold'em's ante (Zha Jin Hua's is 底注)
    for name, label in cases:
        field = form.get_by_test_id(f"opt-{name}")
        if not field.is_visible():
            form.locator("details.more > summary").click()
        before = field.input_value()
        field.fill("99999999999999999")  # past what JSON carries exactly: refused, naming the field
        form.get_by_test_id("create-submit").click()
        toast = page.get_by_test_id("toast-error").last
        expect(toast).to_have_text(f"服务器没看懂这个请求：{label}")
        assert not re.search(r"[A-Za-z_]", toast.inner_text()), toast.inner_text()
        expect(field).to_have_class(re.compile(r"\binvalid\b"))  # and the form marks it
        field.fill(before)


# Every text measures the same: the page finds no font with Chinese glyphs.
_NO_CJK_FONT = """
CanvasRenderingContext2D.prototype.measureText = function () { return { width: 120 }; };
"""


def test_the_missing_chinese_font_notice_is_in_the_pages_language(new_page):
    zh = new_page(DESKTOP, locale=ZH, init_script=_NO_CJK_FONT)
    expect(zh.locator("html")).to_have_class(re.compile(r"\bno-cjk\b"))
    notice = zh.get_by_test_id("toast").first
    expect(notice).to_contain_text("中文字体")
    assert not re.search(r"[A-Za-z]{3,}", notice.inner_text()), notice.inner_text()  # no English words
    en = new_page(DESKTOP, locale=EN, init_script=_NO_CJK_FONT)
    expect(en.locator("html")).to_have_class(re.compile(r"\bno-cjk\b"))
    expect(en.get_by_test_id("toast")).to_have_count(0)  # the English page has nothing to say
