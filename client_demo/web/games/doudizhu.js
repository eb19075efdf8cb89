// The Dou Dizhu (斗地主) table: bidding (score 1-3, or call / rob), your hand sorted with
// click-to-select cards (or drag across a run of them), play / pass / hint (hints cycle
// through the legal plays the server lists in `legal.plays`), each seat's last play and
// card count, the landlord marker, bottom cards, the multiplier and the final score
// breakdown. Rooms with the options `open_hand` (明牌) and `doubling` (加倍): the choices as
// buttons, the landlord's hand face up on its seat once shown, each seat's doubling and
// own multiplier on its plate, and both in the score box.
//
// View and legal wire formats: docs/doudizhu.md, engine/doudizhu/view.py and legal.py.

import { h, chips } from "../dom.js";
import { DDZ_RANKS, cardEl, ddzCardsFor, ddzRank, ddzRanksText, ddzSorted } from "../cards.js";
import { t, tMaybe, list } from "../i18n.js";
import { keepSelection, storedSelection } from "../handlog.js";

/** A play's kind in words (engine/doudizhu/plays.py: solo, pair, trio_solo, bomb, rocket, ...). */
export function kindText(kind) {
  return tMaybe(`ddz.kind.${kind}`, {}, String(kind).replaceAll("_", " "));
}

function seatView(ctx, seat) {
  const v = ctx.view;
  return v && v.seats ? v.seats[seat] : null;
}

function lastMove(v, seat) {
  if (!v) return null;
  if (v.phase === "doubling") { // each answer of the doubling round, until the landlord leads
    const s = v.seats[seat];
    return s && s.doubled !== null && s.doubled !== undefined ? { doubled: s.doubled } : null;
  }
  if (v.phase === "bidding" || (v.phase === "over" && v.landlord === null)) {
    const history = v.bidding.history || [];
    for (let i = history.length - 1; i >= 0; i--) {
      if (history[i].seat === seat) return { bid: history[i], called: calledBefore(history, i) };
    }
    return null;
  }
  const moves = (v.trick || []).filter((m) => m.seat === seat);
  return moves.length ? moves[moves.length - 1] : null;
}

/** A bid in words; `called`: someone had called the landlord before it (a pass then refuses to rob). */
function bidText(b, style, called = false) {
  if (b.action === "bid") return t("ddz.points", { n: b.value });
  if (b.action === "call") return t("ddz.landlord_call");
  if (b.action === "rob") return t("ddz.rob_call");
  if (style === "rob") return t(called ? "ddz.no_rob" : "ddz.no_call");
  return t("ddz.no_bid");
}

/** Whether a landlord had been called before the `index`-th bid of the auction. */
function calledBefore(history, index) {
  return (history || []).slice(0, index).some((b) => b.action === "call" || b.action === "rob");
}

/**
 * The cards selected in your hand (a Set of ids), kept per hand; after a reload, the
 * selection this tab had (sessionStorage, handlog.js).
 */
function selection(ctx) {
  const v = ctx.view;
  const key = `${ctx.snap.hand_no}`;
  if (ctx.ui.selKey !== key) {
    ctx.ui.selKey = key;
    ctx.ui.selected = new Set(storedSelection(ctx.snap.room, ctx.snap.hand_no) || []);
    ctx.ui.hint = -1;
  }
  // drop cards that left the hand (played)
  const hand = new Set(v && v.hand ? v.hand : []);
  const before = ctx.ui.selected.size;
  for (const c of [...ctx.ui.selected]) if (!hand.has(c)) ctx.ui.selected.delete(c);
  if (ctx.ui.selected.size !== before) saveSelection(ctx);
  return ctx.ui.selected;
}

/** Remember the selection in this tab, so that a reload keeps it. */
function saveSelection(ctx) {
  keepSelection(ctx.snap.room, ctx.snap.hand_no, ctx.ui.selected || []);
}

/** This table's own styles (its lobby tile, its seats' layout): games.js links them. */
export const stylesheet = new URL("./doudizhu.css", import.meta.url).href;

export default {
  // provably fair deals (fairness.js): the engine's dealing rule (engine/doudizhu Game.layout)
  // and the cards each event or view shows its viewer
  fair: {
    layout(deck, order) { // seventeen each, one at a time in order; the last three are the bottom
      const hands = {};
      for (const s of order) hands[s] = [];
      for (let k = 0; k < 51; k++) hands[order[k % 3]].push(deck[k]);
      return { hands, bottom: deck.slice(51, 54) };
    },
    seenFromEvent(ev, add) {
      if (ev.type === "deal") add(ev.seat, ev.cards, "dealt");
      else if (ev.type === "landlord") add(ev.seat, ev.bottom, "bottom");
      else if (ev.type === "open_hand") add(ev.seat, ev.cards, "shown"); // 明牌: the landlord's hand
      else if (ev.type === "play") add(ev.seat, ev.cards, "played");
      else if (ev.type === "hand_over") (ev.hands || []).forEach((cards, seat) => add(seat, cards, "left"));
    },
    seenFromView(view, me, add) {
      if (view.landlord !== null && view.landlord !== undefined) add(view.landlord, view.bottom, "bottom");
      if (view.you !== null && view.you !== undefined) add(view.you, view.hand, "held");
      for (const s of view.seats || []) if (s && s.shown) add(s.seat, s.shown, "shown"); // 明牌
      for (const m of view.history || []) if (m && m.type === "play") add(m.seat, m.cards, "played");
      const r = view.result;
      if (r && Array.isArray(r.hands)) r.hands.forEach((cards, seat) => add(seat, cards, "left"));
    },
  },

  /** A server message in cards: rank strings ("52", "TTJ") become "5, 2", "10, 10, J". */
  humanize(text) {
    const ranks = (r) => [...r].map((c) => ({ T: "10", B: "black joker", R: "red joker" }[c] || c)).join(", ");
    return text
      .replace(/^([3-9TJQKA2BR]+) is not a valid play/, (m, r) => `${ranks(r)} ${r.length > 1 ? "do" : "does"} not make a valid play`)
      .replace(/^([3-9TJQKA2BR]+) \((\w+)\) does not beat ([3-9TJQKA2BR]+)/, (m, a, kind, b) => `${ranks(a)} (${kind.replaceAll("_", " ")}) does not beat ${ranks(b)}`)
      .replace(/you do not hold '([3-9TJQKA2BR]+)'/, (m, r) => `you do not hold ${ranks(r)}`);
  },

  /** The lobby's stakes words for a table of these hand options ("10 a point"). */
  lobbyStakes(c) { return c.stake ? t("lobby.per_point", { n: chips(c.stake) }) : ""; },

  // where each seat's last play lies on the felt (3 seats: you, upper left, upper right)
  betPos(k) {
    return [{ x: 50, y: 66 }, { x: 25, y: 55 }, { x: 75, y: 55 }][k] || { x: 50, y: 50 };
  },

  stakes(ctx) {
    const c = ctx.snap.config || {};
    const rules = [c.doubling ? t("ddz.rules_double") : null, c.open_hand ? t("ddz.rules_open") : null].filter(Boolean);
    return t("ddz.stakes", { n: chips(c.stake), style: t(c.bidding === "rob" ? "ddz.style_rob" : "ddz.style_score") })
      + rules.map((r) => ` · ${r}`).join("");
  },

  seatCards(ctx, seat) {
    let s = seatView(ctx, seat);
    if (!s || seat === ctx.me) return null;
    const v = ctx.view;
    const rest = v.is_over && v.result && v.result.hands ? v.result.hands[seat] : null;
    if (rest && rest.length && !narrow()) { // on a phone they are listed under the felt with the score
      return h("div", { class: "cards fan rest-fan", "data-testid": `rest-${seat}`, style: { "--n": rest.length } },
        ddzSorted(rest).map((c) => cardEl(c, { size: "sm" })));
    }
    if (!v.is_over && s.shown) return shownHand(s.shown, seat); // 明牌: face up for everyone
    if (narrow()) return null; // on a phone the count is a badge on the plate (badges)
    return countNode(rest ? rest.length : s.cards_left, seat);
  },

  betMarker(ctx, seat) {
    const v = ctx.view;
    const m = lastMove(v, seat);
    if (!m || !v || v.is_over) return null; // the result panel tells the end of the hand
    if (m.bid) {
      return h("div", { class: "last-play bid", "data-testid": `last-play-${seat}` }, bidText(m.bid, v.bidding.style, m.called));
    }
    if (m.doubled !== undefined) {
      return h("div", { class: `last-play bid ${m.doubled ? "doubled" : ""}`, "data-testid": `last-play-${seat}` },
        t(m.doubled ? "ddz.doubled_badge" : "ddz.no_double"));
    }
    if (m.type === "pass") return h("div", { class: "last-play pass", "data-testid": `last-play-${seat}` }, t("ddz.pass"));
    return h("div", { class: `last-play ${m.kind === "bomb" || m.kind === "rocket" ? "boom" : ""}`,
      "data-testid": `last-play-${seat}`, "data-ranks": m.ranks },
    h("div", { class: "cards fan play-fan", style: { "--n": m.cards.length } }, ddzSorted(m.cards).map((c) => cardEl(c, { size: "sm" }))),
    h("div", { class: "kind" }, kindText(m.kind)));
  },

  badges(ctx, seat) {
    const s = seatView(ctx, seat);
    const out = [];
    if (!s) return out;
    if (s.role === "landlord") out.push(h("span", { class: "badge landlord", "data-testid": `landlord-${seat}`, title: t("ddz.landlord_title") }, t("ddz.landlord_badge")));
    else if (s.role === "peasant") out.push(h("span", { class: "badge peasant", title: t("ddz.peasant_title") }, t("ddz.peasant")));
    out.push(...rulesBadges(ctx.view, s, seat));
    if (seat === ctx.me && ctx.view.hand && ctx.view.hand.length) out.push(h("span", { class: "badge" }, t("ddz.n_cards", { n: ctx.view.hand.length })));
    if (seat !== ctx.me && narrow() && !ctx.last) {
      const v = ctx.view;
      const rest = v.is_over && v.result && v.result.hands ? v.result.hands[seat] : null;
      out.push(countNode(rest ? rest.length : s.cards_left, seat, true));
    }
    return out;
  },

  seatState(ctx, seat) {
    const v = ctx.view;
    const s = seatView(ctx, seat);
    if (!s || !v || !v.is_over || !v.result || v.result.type !== "hand_over") return {};
    const r = v.result;
    const winner = r.winner === "landlord" ? seat === r.landlord : seat !== r.landlord;
    const delta = r.chips ? r.chips[seat] : null;
    return { winner, note: delta !== null && delta !== undefined ? `${delta >= 0 ? "+" : ""}${chips(delta)}` : null };
  },

  center(ctx) {
    const v = ctx.view;
    if (!v) return h("div", { class: "board-area" }, h("div", { class: "street" }, t("ddz.title")));
    const bottom = v.bottom
      ? v.bottom.map((c) => cardEl(c, { size: "sm" }))
      : [cardEl(null, { size: "sm" }), cardEl(null, { size: "sm" }), cardEl(null, { size: "sm" })];
    const parts = [
      h("div", { class: "ddz-top" },
        h("div", { class: "bottom-cards" }, h("div", { class: "cards", "data-testid": "bottom-cards" }, bottom),
          h("div", { class: "muted small" }, t("ddz.bottom"))),
        h("div", { class: "multiplier", "data-testid": "multiplier", title: t("ddz.multiplier_title") }, `×${v.multiplier}`)),
    ];
    if (v.is_over && v.result) parts.push(resultNode(ctx, v.result, narrow() && !ctx.last));
    else if (v.phase === "open" || v.phase === "doubling") {
      const you = v.to_act === ctx.me;
      const who = v.to_act === null ? "" : ctx.name(v.to_act);
      const text = v.phase === "open"
        ? (you ? t("ddz.you_deciding_open") : t("ddz.deciding_open", { who }))
        : (you ? t("ddz.you_doubling") : t("ddz.doubling", { who }));
      parts.push(h("div", { class: "street turn-note", "data-testid": "phase-note" }, text));
    } else if (v.phase === "bidding") {
      const b = v.bidding;
      parts.push(h("div", { class: "street" }, b.style === "rob"
        ? t("ddz.calling") + (b.robs ? t("ddz.robbed", { n: b.robs }) : "")
        : t("ddz.bidding") + (b.high_bid ? t("ddz.high_bid", { n: b.high_bid }) : "")));
    } else {
      const you = v.to_act === ctx.me;
      const who = v.to_act === null ? "" : ctx.name(v.to_act);
      const text = v.to_beat
        ? (you ? t("ddz.you_to_beat", { name: ctx.name(v.to_beat.seat) }) : t("ddz.to_beat", { who, name: ctx.name(v.to_beat.seat) }))
        : (you ? t("ddz.you_lead") : t("ddz.leads", { who }));
      parts.push(h("div", { class: "street turn-note" }, text)); // (names keep their case)
    }
    return h("div", { class: "board-area" }, parts);
  },

  mine(ctx) {
    const v = ctx.view;
    if (!v || !v.hand || ctx.me === null) return null;
    if (listedBelow(ctx)) return null; // your cards left are listed with the score
    const sel = selection(ctx);
    const cards = ddzSorted(v.hand);
    const hand = h("div", { class: "my-hand", "data-testid": "my-hand", "data-count": cards.length });
    hand.style.setProperty("--n", String(cards.length));
    const back = cards.length - frontRow(cards.length); // cards in the row behind (the highest)
    if (back > 0) hand.classList.add("two-rows");
    // the bottom cards the landlord just took stand out for a moment
    const fresh = ctx.ui.fresh && ctx.ui.fresh.hand === ctx.snap.hand_no && Date.now() < ctx.ui.fresh.until
      ? new Set(ctx.ui.fresh.cards) : new Set();
    const swept = sweptCards(ctx, cards); // a sweep under way when the table re-renders keeps its highlight
    if (ctx.ui.sweep) hand.classList.toggle("sweep-off", !ctx.ui.sweep.select);
    for (const [i, c] of cards.entries()) {
      const el = cardEl(c, { size: "lg", cls: `${sel.has(c) ? "selected" : ""} ${fresh.has(c) ? "fresh" : ""} ${swept.has(c) ? "swept" : ""}` });
      el.setAttribute("data-testid", "hand-card");
      el.setAttribute("role", "button");
      el.tabIndex = 0;
      const toggle = () => {
        if (sel.has(c)) sel.delete(c); else sel.add(c);
        el.classList.toggle("selected", sel.has(c));
        saveSelection(ctx);
        updatePlayButton(ctx);
      };
      el.addEventListener("click", () => { if (!justSwept(ctx)) toggle(); }); // not the click that ends a sweep
      el.addEventListener("keydown", (e) => { if (e.key === " " || e.key === "Enter") { e.preventDefault(); toggle(); } });
      if (back > 0) { // two rows: each fanned over its own width, the front row on a line of its own
        el.style.setProperty("--n", String(i < back ? back : cards.length - back));
        el.classList.add(i < back ? "back-row" : "front-row");
        if (i === 0 || i === back) el.classList.add("row-start");
        if (i === back) hand.append(h("div", { class: "row-break" }));
      }
      hand.append(el);
    }
    hand.addEventListener("pointerdown", (e) => startSweep(ctx, e));
    hand.addEventListener("dragstart", (e) => e.preventDefault());
    return h("div", { class: "hand-area" }, counter(ctx), hand);
  },

  // your own view of the hand just over, should your seat have been freed as it ended
  // (out of chips): the cards left in your hand drawn as yours
  ownView(view, before, seat) {
    if (view.hand) return view;
    const rest = view.result && view.result.hands ? view.result.hands[seat] : null;
    const hand = rest || (before && before.hand) || null;
    return hand ? { ...view, hand, you: seat } : view;
  },

  track(ev, ctx) {
    if (ctx.replaying) return; // after a reload: the bottom cards taken long ago stand out no more
    if (ev.type === "landlord" && ev.seat === ctx.me && ev.bottom) {
      ctx.ui.fresh = { hand: ctx.snap.hand_no, cards: ev.bottom, until: Date.now() + FRESH_MS };
      setTimeout(() => ctx.rerender(), FRESH_MS + 50);
    }
  },

  actions(ctx) {
    const v = ctx.view;
    const legal = v && v.legal;
    if (!legal || v.is_over || v.to_act !== ctx.me) return null;
    const bar = h("div", { class: "action-bar ddz-actions", "data-testid": "my-turn" });
    const row = h("div", { class: "row buttons" });
    if (legal.phase === "bidding") {
      if (legal.style === "score") {
        row.append(h("button", { class: "btn act fold", "data-testid": "act-pass", onclick: () => ctx.act({ type: "pass" }) }, t("ddz.no_bid")));
        for (const b of legal.bids || []) {
          row.append(h("button", { class: "btn act bid", "data-testid": `bid-${b}`, onclick: () => ctx.act({ type: "bid", value: b }) }, t("ddz.points", { n: b })));
        }
      } else {
        row.append(h("button", { class: "btn act fold", "data-testid": "act-pass", onclick: () => ctx.act({ type: "pass" }) },
          t(legal.can_rob ? "ddz.no_rob" : "ddz.no_call")));
        if (legal.can_call) row.append(h("button", { class: "btn act bid", "data-testid": "act-call", onclick: () => ctx.act({ type: "call" }) }, t("ddz.call_landlord")));
        if (legal.can_rob) row.append(h("button", { class: "btn act bid", "data-testid": "act-rob", onclick: () => ctx.act({ type: "rob" }) }, t("ddz.rob_landlord")));
      }
      bar.append(h("div", { class: "muted small" }, t("ddz.your_bid")), row);
      return bar;
    }
    if (legal.phase === "open" || legal.phase === "doubling") return choiceBar(ctx, legal, bar, row);
    const sel = selection(ctx);
    if (legal.can_pass && !(legal.plays || []).length) {
      // nothing in the hand beats the table: passing is the only move
      row.append(h("button", { class: "btn act fold", "data-testid": "act-pass", onclick: () => ctx.act({ type: "pass" }) }, t("ddz.pass")));
      bar.append(h("div", { class: "muted small", "data-testid": "play-info" },
        t("ddz.nothing_beats", { name: ctx.name(legal.to_beat.seat), kind: kindText(legal.to_beat.kind), ranks: ddzRanksText(legal.to_beat.ranks) })), row);
      return bar;
    }
    if (legal.can_pass) row.append(h("button", { class: "btn act fold", "data-testid": "act-pass", onclick: () => ctx.act({ type: "pass" }) }, t("ddz.pass")));
    row.append(h("button", { class: "btn act", "data-testid": "act-hint", onclick: () => hint(ctx) }, t("ddz.hint")));
    row.append(h("button", { class: "btn act ghost", "data-testid": "act-clear", onclick: () => { sel.clear(); saveSelection(ctx); ctx.rerender(); } }, t("ddz.clear")));
    row.append(h("button", { class: "btn act raise", "data-testid": "act-play", disabled: sel.size === 0,
      onclick: () => {
        if (!sel.size) return;
        ctx.act({ type: "play", cards: [...sel] });
      } }, t("ddz.play")));
    const info = legal.must_lead
      ? t("ddz.lead_any")
      : t(legal.plays.length ? "ddz.beat" : "ddz.beat_none", { name: ctx.name(legal.to_beat.seat), kind: kindText(legal.to_beat.kind), ranks: ddzRanksText(legal.to_beat.ranks) });
    bar.append(h("div", { class: "muted small", "data-testid": "play-info" }, info), row);
    return bar;
  },

  opening(ctx) {
    const v = ctx.view;
    return v.hand ? [[t("ddz.you_hold", { n: v.hand.length }), "mine"]] : [];
  },

  describe(ev, ctx) {
    const n = (s) => ctx.name(s);
    switch (ev.type) {
      case "deal": return ev.cards ? [t("ddz.dealt", { n: ev.cards.length }), "mine"] : null;
      case "bid": return t("ddz.bids", { name: n(ev.seat), n: ev.value });
      case "call": return t("ddz.calls", { name: n(ev.seat), m: ev.multiplier });
      case "rob": return t("ddz.robs", { name: n(ev.seat), m: ev.multiplier });
      case "pass": return t(PASS_LINES[ev.phase] || "ddz.passes", { name: n(ev.seat) });
      case "open_hand": return [t("ddz.shows_hand", { name: n(ev.seat), ranks: ddzRanksText(ev.ranks), m: ev.multiplier }), "board"];
      case "double": return t("ddz.doubles", { name: n(ev.seat), m: ev.multiplier });
      case "redeal": return [t("ddz.redeal"), "warn"];
      case "landlord": return [t("ddz.is_landlord", { name: n(ev.seat), ranks: ddzRanksText(ev.bottom_ranks), m: ev.multiplier }), "board"];
      case "play": return t("ddz.plays", { name: n(ev.seat), kind: kindText(ev.kind), ranks: ddzRanksText(ev.ranks), n: ev.cards_left });
      case "trick_won": return [t("ddz.trick_won", { name: n(ev.seat) }), "board"];
      case "hand_over": {
        const side = ev.winner === "landlord" ? t("ddz.landlord_wins", { name: n(ev.landlord) }) : t("ddz.peasants_win");
        const who = ev.chips.map((c, s) => (c === null ? null : `${n(s)} ${c >= 0 ? "+" : ""}${chips(c)}`)).filter(Boolean);
        return [t("ddz.over_line", { side, m: ev.multiplier.final, list: list(who) }), "win"];
      }
      default: return null;
    }
  },

  summary,
  resultBelow,

  notice(ev, ctx) {
    if (ev.type === "landlord") return t("ddz.notice_landlord", { name: ctx.name(ev.seat) });
    if (ev.type === "open_hand") return t("ddz.notice_open", { name: ctx.name(ev.seat), m: ev.multiplier });
    if (ev.type === "double") return t("ddz.notice_double", { name: ctx.name(ev.seat) });
    if (ev.type === "play" && (ev.kind === "bomb" || ev.kind === "rocket")) return t("ddz.notice_bomb", { name: ctx.name(ev.seat), kind: kindText(ev.kind) });
    return null;
  },
};

// The history line of a pass, by the phase it was made in (a pass in play has none).
const PASS_LINES = { bidding: "ddz.passes_bid", open: "ddz.keeps_hidden", doubling: "ddz.no_double_line" };

/**
 * The buttons of the open-hand choice (明牌: show the hand for ×4 before the bottom cards,
 * ×2 after, or keep it hidden) and of the doubling round (加倍 or not).
 */
function choiceBar(ctx, legal, bar, row) {
  const opening = legal.phase === "open";
  row.append(h("button", { class: "btn act fold", "data-testid": "act-pass", onclick: () => ctx.act({ type: "pass" }) },
    t(opening ? "ddz.keep_hidden" : "ddz.no_double")));
  row.append(opening
    ? h("button", { class: "btn act bid", "data-testid": "act-open", onclick: () => ctx.act({ type: "open" }) },
      t("ddz.show_hand", { m: legal.multiplier }))
    : h("button", { class: "btn act bid", "data-testid": "act-double", onclick: () => ctx.act({ type: "double" }) },
      t("ddz.double")));
  const ask = opening
    ? t(legal.before_bottom ? "ddz.open_ask_before" : "ddz.open_ask_after", { m: legal.multiplier })
    : t("ddz.double_ask");
  bar.append(h("div", { class: "muted small", "data-testid": "play-info" }, ask), row);
  return bar;
}

/**
 * The landlord's hand shown face up (明牌) on its seat, as everyone sees it: two rows (the
 * higher cards first), small cards on a phone, so that every rank stays readable beside
 * the seat (one row of 20 would reach past the felt).
 */
function shownHand(cards, seat) {
  const sorted = ddzSorted(cards);
  const size = narrow() ? "xs" : "sm";
  const fan = (part) => h("div", { class: "cards fan rest-fan shown-fan", style: { "--n": part.length } },
    part.map((c) => cardEl(c, { size })));
  const half = Math.ceil(sorted.length / 2);
  return h("div", { class: "shown-hand", "data-testid": `shown-${seat}` },
    fan(sorted.slice(0, half)), sorted.length > half ? fan(sorted.slice(half)) : null);
}

/**
 * A seat's 明牌 / 加倍 badges: the landlord's open hand with its multiplier, "Doubled",
 * and (in a room with doubling) the seat's own multiplier once the landlord is known.
 */
function rulesBadges(v, s, seat) {
  const out = [];
  if (s.shown && v.open_hand > 1) {
    out.push(h("span", { class: "badge open-hand", "data-testid": `open-${seat}`, title: t("ddz.open_title") },
      t("ddz.open_badge", { m: v.open_hand })));
  }
  if (s.doubled) {
    out.push(h("span", { class: "badge doubled", "data-testid": `doubled-${seat}`, title: t("ddz.doubled_title") }, t("ddz.doubled_badge")));
  }
  if (v.options && v.options.doubling && s.multiplier !== null && s.multiplier !== undefined && !v.is_over) {
    out.push(h("span", { class: "badge seat-mult", "data-testid": `seat-mult-${seat}`, title: t("ddz.seat_mult_title") }, `×${s.multiplier}`));
  }
  return out;
}

/** The last hand's score and the cards left in every hand, for the "Last hand" view. */
function summary(ctx) {
  const v = ctx.view;
  const r = v.result;
  if (!r || !r.hands) return null;
  return h("table", { class: "score summary", "data-testid": "last-hand-seats" }, h("tbody", {},
    r.hands.map((cards, seat) => (cards === null || cards === undefined ? null : h("tr", {},
      h("td", {}, ctx.name(seat), seat === r.landlord ? " ♛" : ""),
      h("td", {}, cards.length
        ? h("div", { class: "cards fan rest-fan", style: { "--n": cards.length } }, ddzSorted(cards).map((c) => cardEl(c, { size: "sm" })))
        : t("ddz.out_of_cards")))))));
}

const FRESH_MS = 4000;
const COUNTED = [["R", "card.red_joker", 1], ["B", "card.black_joker", 1], ["2", "2", 4], ["A", "A", 4], ["K", "K", 4]];

/**
 * The card counter (记牌器): how many of the highest cards are still out, neither in your
 * hand nor played yet, from the hand's public history and your own cards.
 */
function counter(ctx) {
  const v = ctx.view;
  if (!v || v.phase !== "play" || v.is_over) return null;
  const gone = new Map();
  const drop = (ids) => { for (const c of ids) { const r = DDZ_RANKS[ddzRank(c)]; gone.set(r, (gone.get(r) || 0) + 1); } };
  drop(v.hand);
  for (const m of v.history || []) if (m && m.cards) drop(m.cards);
  const items = COUNTED.map(([r, key, total]) => {
    const out = total - (gone.get(r) || 0);
    const label = total === 1 ? t(key) : key;
    // a joker by its short name here ("Joker", red or white as on the card; 大王 / 小王), so
    // that the counter stays on one line on a phone; its tooltip names it in full
    return h("span", { class: `counter-item ${out ? "" : "none"}`, "data-rank": r, "data-out": out,
      title: t("ddz.still_out_title", { label, n: out }) }, total === 1 ? t(`ddz.counter_${r}`) : `${label}×${out}`);
  });
  return h("div", { class: "card-counter", "data-testid": "card-counter" }, h("span", { class: "muted" }, t("ddz.still_out")), items);
}

// --- drag to select (划牌) ---------------------------------------------------------------------
//
// Press on a card of your hand and move across its neighbours: every card from the one
// pressed to the one under the pointer is highlighted (`.swept`), and on release they all
// take the opposite of the first card's state (it was unselected: they are selected; it was
// selected: they are deselected). Cards are told apart by the pointer's x alone (the card
// drawn on top there), so a finger drifting up or down still sweeps the row; moving back
// shrinks the run. A press and release on one card is a plain click, handled by the card's
// click listener as before. The sweep lives in `ctx.ui.sweep` (card ids, not elements) and
// its listeners on `window`, so a re-render of the table in the middle of it loses nothing.

const HAND = "[data-testid=my-hand]";
const HAND_CARD = "[data-testid=hand-card]";

function startSweep(ctx, e) {
  if (!e.isPrimary || e.button !== 0) return;
  ctx.ui.sweptAt = null; // a new press: clicks count again
  if (ctx.ui.sweep) { ctx.ui.sweep.stop(); paintSweep(ctx); } // one whose release never came
  const el = e.target.closest(HAND_CARD);
  if (!el) return;
  const from = Number(el.dataset.card);
  const s = { pointerId: e.pointerId, from, to: from, select: !ctx.ui.selected.has(from), moved: false };
  ctx.ui.sweep = s;
  const move = (ev) => {
    if (ev.pointerId !== s.pointerId) return;
    const to = cardAt(ev.clientX, ev.clientY);
    if (to === null || to === s.to) return;
    if (!s.moved) {
      s.moved = true;
      try { el.setPointerCapture(s.pointerId); } catch { /* the card was redrawn: window listeners still follow */ }
    }
    s.to = to;
    ev.preventDefault();
    paintSweep(ctx);
  };
  const end = (ev) => {
    if (ev.pointerId !== s.pointerId) return;
    s.stop();
    const ids = s.moved && ev.type === "pointerup" ? sweepRange(s) : [];
    if (s.moved) ctx.ui.sweptAt = performance.now(); // the click that may follow this release toggles nothing
    const sel = ctx.ui.selected;
    for (const c of ids) if (s.select) sel.add(c); else sel.delete(c);
    if (ids.length) saveSelection(ctx);
    paintSweep(ctx);
    updatePlayButton(ctx);
  };
  s.stop = () => {
    window.removeEventListener("pointermove", move);
    window.removeEventListener("pointerup", end);
    window.removeEventListener("pointercancel", end);
    if (ctx.ui.sweep === s) ctx.ui.sweep = null;
  };
  window.addEventListener("pointermove", move);
  window.addEventListener("pointerup", end);
  window.addEventListener("pointercancel", end);
}

/** Whether a click is the one ending a sweep (it follows the release at once). */
function justSwept(ctx) {
  return ctx.ui.sweptAt !== null && ctx.ui.sweptAt !== undefined && performance.now() - ctx.ui.sweptAt < 500;
}

/** The card ids of the hand as drawn, left to right. */
function handOrder() {
  const hand = document.querySelector(HAND);
  return hand ? [...hand.querySelectorAll(HAND_CARD)].map((el) => Number(el.dataset.card)) : [];
}

/** The cards from the one pressed to the one under the pointer, in hand order. */
function sweepRange(s, order = handOrder()) {
  const a = order.indexOf(s.from);
  const b = order.indexOf(s.to);
  if (a < 0 || b < 0) return [];
  return order.slice(Math.min(a, b), Math.max(a, b) + 1);
}

/** The ids a sweep under way highlights (none before the pointer has left the first card). */
function sweptCards(ctx, order) {
  const s = ctx.ui.sweep;
  return new Set(s && s.moved ? sweepRange(s, order) : []);
}

/**
 * The card of your hand under the pointer at (`x`, `y`): in the row whose part on screen
 * holds `y` (a hand on two rows: above the front row is the row behind; one row: that row,
 * however far the pointer drifts up or down), the card drawn on top at `x`; past either
 * end of the row, its end card.
 */
function cardAt(x, y) {
  const hand = document.querySelector(HAND);
  const all = hand ? [...hand.querySelectorAll(HAND_CARD)] : [];
  if (!all.length) return null;
  let els = all;
  const front = all.filter((el) => el.classList.contains("front-row"));
  if (front.length) {
    // the front row's top: where its cards stand when not lifted (selected cards rise)
    const top = Math.max(...front.map((el) => el.getBoundingClientRect().top));
    els = y < top ? all.filter((el) => el.classList.contains("back-row")) : front;
  }
  for (let i = els.length - 1; i >= 0; i--) { // later cards overlap earlier ones
    const r = els[i].getBoundingClientRect();
    if (x >= r.left && x < r.right) return Number(els[i].dataset.card);
  }
  const first = els[0].getBoundingClientRect();
  return Number(els[x < first.left ? 0 : els.length - 1].dataset.card);
}

/** Bring the drawn hand in line with the selection and the sweep under way. */
function paintSweep(ctx) {
  const hand = document.querySelector(HAND);
  if (!hand) return;
  const els = [...hand.querySelectorAll(HAND_CARD)];
  const swept = sweptCards(ctx, els.map((el) => Number(el.dataset.card)));
  hand.classList.toggle("sweep-off", Boolean(ctx.ui.sweep && !ctx.ui.sweep.select));
  for (const el of els) {
    const c = Number(el.dataset.card);
    el.classList.toggle("swept", swept.has(c));
    el.classList.toggle("selected", ctx.ui.selected.has(c));
  }
}

function updatePlayButton(ctx) {
  const btn = document.querySelector("[data-testid=act-play]");
  if (btn) btn.disabled = ctx.ui.selected.size === 0;
}

function hint(ctx) {
  const v = ctx.view;
  const plays = v.legal.plays || [];
  if (!plays.length) {
    ctx.toast(t(v.legal.can_pass ? "ddz.hint_pass" : "ddz.hint_none"), "info");
    return;
  }
  const turn = `${ctx.snap.hand_no}:${(v.history || []).length}`;
  if (ctx.ui.hintTurn !== turn) { ctx.ui.hintTurn = turn; ctx.ui.hint = -1; } // a new turn: first hint again
  ctx.ui.hint = (ctx.ui.hint + 1) % plays.length;
  const ids = ddzCardsFor(plays[ctx.ui.hint].ranks, v.hand) || [];
  ctx.ui.selected = new Set(ids);
  saveSelection(ctx);
  ctx.rerender();
}

function narrow() { return window.innerWidth <= 600; }

/** The narrowest strip of a card of your hand a finger can press (px). */
const TAP = 24;

/**
 * How many of `n` cards go in the front row of your hand: all of them where one row gives
 * each card a strip of at least TAP px (a desktop, or a short hand); on a phone as many
 * as do, the highest cards going to a row behind.
 */
function frontRow(n) {
  if (!narrow()) return n;
  const width = document.documentElement.clientWidth - 24; // the page's and the hand's padding
  const cw = 46; // a large card on a phone (style.css)
  return Math.max(1, Math.min(n, Math.floor((width - cw - 8) / TAP) + 1));
}

/** Whether the end of the hand is listed under the felt (a phone), cards left included. */
function listedBelow(ctx) {
  const v = ctx.view;
  return Boolean(narrow() && !ctx.last && v && v.is_over && v.result && v.result.type === "hand_over");
}

/**
 * How many cards a seat holds: a face-down card with the number on it, or on a phone a
 * badge on the plate (`compact`: the felt has no room beside the plays).
 */
function countNode(n, seat, compact = false) {
  const attrs = { "data-testid": `count-${seat}`, "data-count": n, title: t("ddz.cards_left", { n }) };
  if (compact) return h("span", { class: "badge count-badge", ...attrs }, h("span", { class: "mini-back" }), String(n));
  return h("div", { class: "count-stack", ...attrs }, cardEl(null, { size: "sm" }), h("span", { class: "count" }, String(n)));
}

/** On a phone the score table goes under the felt, where the action bar was (no room in the middle). */
function resultBelow(ctx) {
  const v = ctx.view;
  if (!listedBelow(ctx)) return null;
  return h("div", { class: "action-bar result-below" }, resultNode(ctx, v.result, false, "result-table"), summary(ctx));
}

function resultNode(ctx, r, compact = false, testid = "result") {
  if (r.type === "redeal") {
    return h("div", { class: "result", "data-testid": "result" }, t("ddz.redeal_result"));
  }
  const m = r.multiplier;
  const factors = [t("ddz.f_bid", { n: m.bidding })];
  if (m.bombs) factors.push(t("ddz.f_bombs", { n: m.bombs, m: 2 ** m.bombs }));
  if (m.rockets) factors.push(t("ddz.f_rocket"));
  if (m.spring) factors.push(t("ddz.f_spring"));
  if (m.anti_spring) factors.push(t("ddz.f_anti_spring"));
  if (m.open_hand > 1) factors.push(t("ddz.f_open", { m: m.open_hand }));
  if (m.capped) factors.push(t("ddz.f_capped", { n: m.cap }));
  const head = r.winner === "landlord" ? t("ddz.landlord_wins", { name: ctx.name(r.landlord) }) : t("ddz.peasants_win");
  if (compact) {
    return h("div", { class: "result ddz-result compact", "data-testid": "result", title: head },
      h("div", { class: "result-head" }, `${t(r.winner === "landlord" ? "ddz.landlord_wins_short" : "ddz.peasants_win_short")} · ×${m.final}`));
  }
  const rows = [];
  // a room with doubling: each seat's own multiplier, and who doubled
  const doubling = Boolean(r.doubled && r.seat_multipliers && r.doubled.some((d) => d !== null && d !== undefined));
  r.points.forEach((p, seat) => {
    if (p === null || p === undefined) return;
    rows.push(h("tr", { class: r.chips[seat] > 0 ? "plus" : "minus", "data-testid": `score-${seat}` },
      h("td", { class: "who", title: ctx.name(seat) }, ctx.name(seat), seat === r.landlord ? " ♛" : ""),
      doubling ? h("td", { class: "mult", "data-testid": `score-mult-${seat}` }, `×${r.seat_multipliers[seat]}`,
        r.doubled[seat] ? h("span", { class: "dbl" }, ` ${t("ddz.doubled_short")}`) : null) : null,
      h("td", {}, `${p > 0 ? "+" : ""}${p}`),
      h("td", {}, `${r.chips[seat] > 0 ? "+" : ""}${chips(r.chips[seat])}`)));
  });
  return h("div", { class: "result ddz-result", "data-testid": testid },
    h("div", { class: "result-head" }, head),
    h("div", { class: "small" }, `${factors.join(" · ")} = ×${m.final}`),
    h("table", { class: "score" },
      h("thead", {}, h("tr", {}, h("th", {}, ""), doubling ? h("th", {}, t("ddz.col_mult")) : null,
        h("th", {}, t("ddz.col_points")), h("th", {}, t("ddz.col_chips")))),
      h("tbody", {}, rows)),
    r.short ? h("div", { class: "muted small" }, t("ddz.short")) : null);
}
