// The Zha Jin Hua (炸金花) table: blind or seen status per player, a "Look" button, call
// and raise (to the allowed unit stakes) with the cost for blind vs seen, compare with a
// chosen opponent, fold, all-in; compare results only as far as the rules reveal them
// (the server's view carries exactly the cards this seat may see).
//
// View and legal wire formats: engine/zhajinhua/view.py and engine/zhajinhua/legal.py.

import { h, chips, who } from "../dom.js";
import { cardEl, cardsText } from "../cards.js";
import { t, tParts, lang, list, RANK_WORDS } from "../i18n.js";

const STATUS = { folded: "zjh.folded", lost: "zjh.lost", out: "zjh.out" };
const statusText = (status) => (STATUS[status] ? t(STATUS[status]) : "");
const CATEGORY = { "Trips": "trips", "Straight flush": "straight_flush", "Flush": "flush", "Straight": "straight", "Pair": "pair", "High card": "high_card" };

/** A rank word or character of engine/zhajinhua/ranking.py describe ("Kings", "Nine", "T") as players write it. */
function rankChar(word) {
  const w = String(word);
  if (w.length === 1) return w === "T" ? "10" : w;
  const low = w.toLowerCase();
  let i = RANK_WORDS.names.indexOf(low);
  if (i < 0) i = RANK_WORDS.plurals.indexOf(low);
  return i < 0 ? w : ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"][i];
}

// the Chinese name the server's descriptions give each category: "Pair (对子) of Kings"
const CHINESE_ASIDE = /\s*\([^)]*[\u3400-\u9fff][^)]*\)/g;

/**
 * The server's hand description ("Pair (对子) of Kings, kicker Nine") in the page's
 * language; in English as sent without the Chinese, a ten written as on the cards
 * ("Pair of Kings, kicker Nine", "Flush: A 10 9").
 */
export function zjhHand(text) {
  if (typeof text !== "string") return text;
  if (lang() === "en") return text.replace(CHINESE_ASIDE, "").replace(/\bT\b/g, "10");
  const special = text.match(/^Special 2-3-5 \(beats trips\), otherwise (.*)$/);
  if (special) {
    const rest = zjhHand(special[1][0].toUpperCase() + special[1].slice(1));
    return t("zjh.hand.special", { rest });
  }
  const m = text.match(/^([A-Za-z ]+?) \(([^)]*)\)(.*)$/);
  const key = m && CATEGORY[m[1][0].toUpperCase() + m[1].slice(1)];
  if (!key) return text;
  const cat = t(`zjh.cat.${key}`);
  const rest = m[3];
  let x;
  if ((x = rest.match(/^: three (\w+)$/))) { const r = rankChar(x[1]); return t("zjh.hand.trips", { cat, rs: `${r}${r}${r}`, r }); }
  if ((x = rest.match(/^: A-2-3 \(the lowest\)$/))) return t("zjh.hand.a23_lowest", { cat });
  if ((x = rest.match(/^: A-2-3 \(/))) return t("zjh.hand.a23_second", { cat });
  if ((x = rest.match(/^: ([2-9TJQKA](?:-[2-9TJQKA]){2}), (\w+) high$/))) {
    return t("zjh.hand.run", { cat, seq: x[1].split("-").map(rankChar).join("-"), r: rankChar(x[2]) });
  }
  if ((x = rest.match(/^ of (\w+), kicker (\w+)$/))) { const r = rankChar(x[1]); return t("zjh.hand.pair", { cat, rs: `${r}${r}`, k: rankChar(x[2]) }); }
  if ((x = rest.match(/^: ([2-9TJQKA](?: [2-9TJQKA]){2})$/))) return t("zjh.hand.cards", { cat, cards: x[1].split(" ").map(rankChar).join(" ") });
  return text;
}

function seatView(ctx, seat) {
  const v = ctx.view;
  return v && v.seats ? v.seats[seat] : null;
}

/** This table's own styles (its lobby tile, its seats' layout): games.js links them. */
export const stylesheet = new URL("./zhajinhua.css", import.meta.url).href;

export default {
  cardsBeside: true, // the seats hold their cards beside their plates (table.js, style.css)
  // provably fair deals (fairness.js): the engine's dealing rule (engine/zhajinhua Game.layout)
  // and the cards each event or view shows its viewer
  fair: {
    layout(deck, order) { // one card to each seat in order, three times around
      const n = order.length;
      const hands = {};
      order.forEach((s, i) => { hands[s] = [deck[i], deck[n + i], deck[2 * n + i]]; });
      return { hands };
    },
    seenFromEvent(ev, add) {
      if (ev.type === "look") add(ev.seat, ev.cards, "dealt");
      else if (ev.type === "compare_reveal" || ev.type === "showdown") for (const x of ev.hands || []) add(x.seat, x.cards, "shown");
      else if (ev.type === "show") add(ev.seat, ev.cards, "shown");
    },
    seenFromView(view, me, add) {
      for (const s of view.seats || []) if (s) add(s.seat, s.cards, s.seat === me ? "dealt" : "shown");
    },
  },

  /** The smallest stack dealt in: one that covers the ante. */
  leastStack(config) { return Math.max(1, Number(config.ante) || 1); },

  /** The lobby's stakes words for a table of these hand options ("Ante 10"). */
  lobbyStakes(c) { return c.ante ? t("lobby.ante", { n: chips(c.ante) }) : ""; },

  stakes(ctx) {
    const c = ctx.snap.config || {};
    return t("zjh.stakes", { ante: chips(c.ante), max: chips(c.max_stake) });
  },

  seatCards(ctx, seat) {
    const s = seatView(ctx, seat);
    if (!s || !s.dealt_in) return null;
    const mine = seat === ctx.me;
    const size = mine ? "md" : "sm";
    const dim = s.status === "folded" || s.status === "lost" ? "folded" : "";
    if (s.cards) {
      return h("div", { class: `cards hole ${dim} shown`, "data-testid": mine ? "my-cards" : `shown-${seat}` },
        s.cards.map((c) => cardEl(c, { size })));
    }
    return h("div", { class: `cards hole ${dim}`, "data-testid": mine ? "my-cards" : null },
      [cardEl(null, { size }), cardEl(null, { size }), cardEl(null, { size })]);
  },

  // your cards of the hand just over (looked at, or shown to you by a compare), from your
  // last view while seated: your seat was freed as the hand ended
  ownView(view, before, seat) {
    const was = before && before.seats ? before.seats[seat] : null;
    const now = view.seats ? view.seats[seat] : null;
    if (!was || !was.cards || !now || now.cards) return view;
    const seats = [...view.seats];
    seats[seat] = { ...now, cards: was.cards, category: was.category, description: was.description };
    return { ...view, seats };
  },

  betMarker(ctx, seat) {
    const s = seatView(ctx, seat);
    if (!s || !s.paid || ctx.view.is_over) return null;
    return h("div", { class: "bet", "data-testid": `bet-${seat}` }, h("span", { class: "chip-icon" }), chips(s.paid));
  },

  badges(ctx, seat) {
    const v = ctx.view;
    const out = [];
    if ((v ? v.button : ctx.snap.button) === seat) out.push(h("span", { class: "dealer", title: t("zjh.dealer_title") }, t("table.dealer")));
    const s = seatView(ctx, seat);
    if (s && s.dealt_in) {
      out.push(s.seen
        ? h("span", { class: "badge seen", "data-testid": `seen-${seat}` }, t("zjh.seen"))
        : h("span", { class: "badge blind", "data-testid": `blind-${seat}` }, t("zjh.blind")));
      if (STATUS[s.status]) out.push(h("span", { class: `badge ${s.status}`, "data-testid": `status-${seat}` }, statusText(s.status)));
    }
    return out;
  },

  seatState(ctx, seat) {
    const v = ctx.view;
    const s = seatView(ctx, seat);
    if (!s) return {};
    const winner = v.is_over && v.winner === seat;
    const paid = (v.payouts || []).find((p) => p.seat === seat);
    let note = s.cards ? zjhHand(s.description) : null;
    if (winner && paid) note = t("table.wins", { n: chips(paid.amount) });
    else if (!note && !v.is_over && s.status === "playing" && ctx.ui.acts && ctx.ui.acts[seat]) note = actText(ctx.ui.acts[seat]);
    return { winner, out: s.status !== "playing" && !winner, note };
  },

  center(ctx) {
    const v = ctx.view;
    if (!v) return h("div", { class: "board-area" }, h("div", { class: "street" }, t("zjh.title")));
    const last = ctx.ui.lastCompare && ctx.ui.lastCompare.hand === ctx.snap.hand_no ? ctx.ui.lastCompare : null;
    const parts = [
      // the compare line's two lines take the round's place: with every control showing,
      // the felt is short, and a taller middle reached down to your own cards
      v.is_over || last ? null : h("div", { class: "street" }, t("zjh.round", { r: v.round, max: v.max_rounds })),
      h("div", { class: "pot", "data-testid": "pot", "data-amount": v.pot }, t("table.pot", { n: chips(v.pot) })),
      v.is_over ? null : h("div", { class: "stake-line", "data-testid": "stake" },
        t(ctx.narrow || v.stake >= 100 ? "zjh.stake_short" : "zjh.stake_long", { s: chips(v.stake), d: chips(2 * v.stake) })),
    ];
    if (v.is_over && v.winner !== null && v.winner !== undefined) {
      const total = (v.payouts || []).reduce((a, p) => a + p.amount, 0);
      parts.push(h("div", { class: "result", "data-testid": "result" },
        h("div", { class: "result-who" }, tParts("he.wins", { name: who(ctx.name(v.winner)), n: chips(total) }))));
    } else if (last) {
      const c = last;
      parts.push(h("div", { class: "last-compare", "data-testid": "last-compare", title: compareText(ctx, c) },
        tParts("zjh.compare_line", { text: h("span", { class: "beat" },
          tParts("zjh.beat", { w: who(ctx.name(c.winner)), l: who(ctx.name(c.loser)) })) })));
    }
    return h("div", { class: "board-area" }, parts);
  },

  actions(ctx) {
    const v = ctx.view;
    const legal = v && v.legal;
    if (!legal || v.is_over) return null;
    const me = v.seats[ctx.me];
    const myTurn = v.to_act === ctx.me;
    const bar = h("div", { class: "action-bar zjh-actions", "data-testid": myTurn ? "my-turn" : "can-look" });
    const row = h("div", { class: "row buttons" });
    if (legal.look) {
      row.append(h("button", { class: "btn act look", "data-testid": "act-look", onclick: () => ctx.act({ type: "look" }) }, t("zjh.look")));
    }
    if (!myTurn) {
      bar.append(row, h("div", { class: "muted hint", "data-testid": "waiting" }, t("zjh.waiting", { name: ctx.name(v.to_act) })));
      return bar;
    }
    const unit = me.seen ? 2 : 1;
    bar.append(h("div", { class: "muted small cost-line", "data-testid": "cost-line" },
      me.seen
        ? t("zjh.cost_seen", { n: chips(2 * v.stake) })
        : t("zjh.cost_blind", { n: chips(v.stake) })));
    if (legal.fold) row.append(h("button", { class: "btn act fold", "data-testid": "act-fold", onclick: () => ctx.act({ type: "fold" }) }, t("table.fold")));
    if (legal.call) {
      row.append(h("button", { class: "btn act call", "data-testid": "act-call", onclick: () => ctx.act({ type: "call" }) },
        t("zjh.call", { n: chips(legal.call.cost) })));
    }
    if (legal.all_in) {
      row.append(h("button", { class: "btn act raise", "data-testid": "act-allin", onclick: () => ctx.act({ type: "all_in" }) },
        t("zjh.all_in", { n: chips(legal.all_in.amount) })));
    }
    bar.append(row);
    if (legal.raise) bar.append(raisePanel(ctx, legal.raise, unit));
    if (legal.compare) {
      bar.append(h("div", { class: "row compare-row" },
        h("span", { class: "muted small" }, t("zjh.compare_cost", { n: chips(legal.compare.cost) })),
        legal.compare.targets.map((target) => h("button", { class: "btn act compare", "data-testid": `compare-${target}`,
          title: t("zjh.vs", { name: ctx.name(target) }), // the whole name, where a phone cuts it short
          onclick: () => ctx.act({ type: "compare", target }) },
          // a phone: the name alone (the line above says "Compare"), the targets side by side
          h("span", { class: "wide-only" }, t("zjh.vs", { name: ctx.name(target) })),
          h("span", { class: "narrow-only" }, ctx.name(target))))));
    }
    return bar;
  },

  track(ev, ctx) {
    const acts = ctx.ui.acts = ctx.ui.acts || {};
    if (["look", "call", "raise", "all_in", "compare"].includes(ev.type) && ev.seat !== undefined) {
      acts[ev.seat] = { kind: ev.type, amount: ev.type === "raise" ? ev.stake : ev.amount };
    }
    if (ev.type === "compare") ctx.ui.lastCompare = { hand: ctx.snap.hand_no, seat: ev.seat, target: ev.target, winner: ev.winner, loser: ev.loser };
  },

  opening(ctx) {
    const v = ctx.view;
    return [t("zjh.opening", { r: v.round, s: chips(v.stake), pot: chips(v.pot) })];
  },

  describe(ev, ctx) {
    const n = (s) => ctx.name(s);
    const how = (seen) => t(seen ? "zjh.seen" : "zjh.blind");
    switch (ev.type) {
      case "hand_start": return t("zjh.antes", { ante: chips(ev.ante), pot: chips(ev.pot) });
      case "look": return ev.cards ? [t("zjh.you_look", { cards: cardsText(ev.cards) }), "mine"] : t("zjh.looks", { name: n(ev.seat) });
      case "call": return t("zjh.calls", { name: n(ev.seat), n: chips(ev.amount), how: how(ev.seen) });
      case "raise": return t("zjh.raises", { name: n(ev.seat), s: chips(ev.stake), n: chips(ev.amount), how: how(ev.seen) });
      case "fold": return t("zjh.folds", { name: n(ev.seat) });
      case "all_in": return t("zjh.goes_all_in", { name: n(ev.seat), n: chips(ev.amount) });
      case "compare": return [compareText(ctx, ev), "warn"];
      case "compare_reveal":
        return ev.hands ? [t("zjh.you_see", { list: list(ev.hands.map((x) => `${n(x.seat)} ${cardsText(x.cards)}`)) }), "mine"] : null;
      case "showdown":
        return [t("zjh.showdown", { list: ev.hands.map((x) => `${n(x.seat)} ${cardsText(x.cards)} (${zjhHand(x.description)})`).join(" · ") }), "board"];
      case "show": return t("zjh.shows", { name: n(ev.seat), cards: cardsText(ev.cards), hand: zjhHand(ev.description) });
      case "hand_over":
        return [t("zjh.wins", { name: n(ev.winner), list: list(ev.payouts.map((p) => `${chips(p.amount)}${p.seat !== ev.winner ? ` (${n(p.seat)})` : ""}`)) }), "win"];
      default: return null;
    }
  },

  // the last hand's cards (as far as you saw them) and the winner, for the "Last hand" view
  summary(ctx) {
    const v = ctx.view;
    const rows = v.seats.filter((s) => s && s.dealt_in).map((s) => {
      const paid = (v.payouts || []).find((p) => p.seat === s.seat);
      return h("tr", { class: v.winner === s.seat ? "plus" : "" },
        h("td", {}, ctx.name(s.seat)),
        h("td", {}, s.cards ? h("div", { class: "cards" }, s.cards.map((c) => cardEl(c, { size: "md" }))) : "–"),
        h("td", {}, s.cards ? zjhHand(s.description) : statusText(s.status)),
        h("td", {}, paid ? `+${chips(paid.amount)}` : ""));
    });
    return h("table", { class: "score summary", "data-testid": "last-hand-seats" }, h("tbody", {}, rows));
  },

  notice(ev, ctx) {
    if (ev.type === "compare") return t("zjh.compared_notice", { a: ctx.name(ev.seat), b: ctx.name(ev.target), w: ctx.name(ev.winner) });
    return null;
  },
};

/** A compare in words: "alice compares with bob: bob wins, alice is out". */
function compareText(ctx, c) {
  const n = (s) => ctx.name(s);
  return t("zjh.compares", { a: n(c.seat), b: n(c.target), w: n(c.winner), l: n(c.loser) });
}

/** What a seat did last, shown on its plate ("Raise to 20"). */
function actText(a) {
  if (typeof a === "string") return a;
  switch (a.kind) {
    case "look": return t("zjh.looked");
    case "call": return t("zjh.call", { n: chips(a.amount) });
    case "raise": return t("zjh.raised", { n: chips(a.amount) });
    case "all_in": return t("zjh.all_in_act", { n: chips(a.amount) });
    case "compare": return t("zjh.compared");
    default: return a.kind;
  }
}

function raisePanel(ctx, raise, unit) {
  const key = `${ctx.snap.hand_no}:${ctx.view.stake}:${unit}`;
  if (ctx.ui.raiseKey !== key) { ctx.ui.raiseKey = key; ctx.ui.raiseStake = raise.min; }
  const clamp = (x) => Math.min(raise.max, Math.max(raise.min, Math.round(x)));
  let stake = clamp(ctx.ui.raiseStake);
  const go = h("button", { class: "btn act raise", "data-testid": "act-raise",
    onclick: () => ctx.act({ type: "raise", stake }) });
  const slider = h("input", { type: "range", min: raise.min, max: raise.max, step: 1, value: stake,
    "data-testid": "raise-slider", "aria-label": t("zjh.new_stake") });
  const set = (x) => {
    stake = clamp(x);
    ctx.ui.raiseStake = stake;
    slider.value = String(stake);
    go.textContent = t("zjh.raise", { s: chips(stake), c: chips(stake * unit) });
  };
  slider.addEventListener("input", () => set(Number(slider.value)));
  set(stake);
  const double = clamp(ctx.view.stake * 2);
  return h("div", { class: "raise-panel" },
    h("div", { class: "row quicks" },
      h("button", { class: "btn quick", "data-testid": "raise-min", onclick: () => set(raise.min) }, t("zjh.stake_btn", { n: chips(raise.min) })),
      double > raise.min ? h("button", { class: "btn quick", "data-testid": "raise-double", onclick: () => set(double) }, t("zjh.double", { n: chips(double) })) : null,
      h("button", { class: "btn quick", "data-testid": "raise-max", onclick: () => set(raise.max) }, t("zjh.max", { n: chips(raise.max) }))),
    h("div", { class: "row slider-row" }, slider, go));
}
