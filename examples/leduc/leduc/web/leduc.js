// The Leduc Hold'em table for the cardroom page. A server hosting the game serves this
// file at /games/leduc.js (the package's Game.web folder), and the page loads it by the
// game's name the first time it meets a Leduc room: nothing in cardroom names the game.
// It uses the page's own helpers (../dom.js, ../cards.js, ../i18n.js: the paths the
// built-in games' modules use) and brings its words in both languages (`strings`).
//
// The view and legal actions are leduc/rules.py's `view`: `round` ("first", "second",
// "over"), `board` (the public card once shown), `pot`, `to_act`, `seats` (stack, bet,
// folded, cards at a showdown, won), `hole` (your card) and `legal` ({fold, check, call,
// raise}: the chips a call or a raise puts in, 0 when not allowed).

import { h, chips, who } from "../dom.js";
import { cardEl } from "../cards.js";
import { t, tParts } from "../i18n.js";

export const strings = {
  en: {
    "ld.stakes": "Ante {ante} · bets {small} then {big}",
    "ld.first": "First round",
    "ld.second": "Second round",
    "ld.showdown": "Showdown",
    "ld.check": "Check",
    "ld.call": "Call {n}",
    "ld.bet": "Bet {n}",
    "ld.raise": "Raise: {n} in",
    "ld.your_card": "Your card",
    "ld.antes": "{name} antes {n}",
    "ld.dealt": "Your card: {card}",
    "ld.folds": "{name} folds",
    "ld.checks": "{name} checks",
    "ld.calls": "{name} calls {n}",
    "ld.raises": "{name} raises, {n} in",
    "ld.all_in": " (all in)",
    "ld.public": "The public card: {card}",
    "ld.shows": "{name} shows {card}: {hand}",
    "ld.wins": "{name} wins {n}",
    "ld.wins_with": "{name} wins {n} with {hand}",
    "ld.split": "Split pot: {n} each",
    "ld.opening": "{round}, pot {pot}",
    "ld.pair0": "a pair of jacks",
    "ld.pair1": "a pair of queens",
    "ld.pair2": "a pair of kings",
    "ld.high0": "jack high",
    "ld.high1": "queen high",
    "ld.high2": "king high",
  },
  zh: {
    "ld.stakes": "底注 {ante} · 下注 {small} 然后 {big}",
    "ld.first": "第一轮",
    "ld.second": "第二轮",
    "ld.showdown": "摊牌",
    "ld.check": "过牌",
    "ld.call": "跟注 {n}",
    "ld.bet": "下注 {n}",
    "ld.raise": "加注：放入 {n}",
    "ld.your_card": "你的牌",
    "ld.antes": "{name} 下底注 {n}",
    "ld.dealt": "你的牌：{card}",
    "ld.folds": "{name} 弃牌",
    "ld.checks": "{name} 过牌",
    "ld.calls": "{name} 跟注 {n}",
    "ld.raises": "{name} 加注，放入 {n}",
    "ld.all_in": "（全下）",
    "ld.public": "公共牌：{card}",
    "ld.shows": "{name} 亮出 {card}：{hand}",
    "ld.wins": "{name} 赢得 {n}",
    "ld.wins_with": "{name} 以{hand}赢得 {n}",
    "ld.split": "平分底池：每人 {n}",
    "ld.opening": "{round}，底池 {pot}",
    "ld.pair0": "一对 J",
    "ld.pair1": "一对 Q",
    "ld.pair2": "一对 K",
    "ld.high0": "J 高",
    "ld.high1": "Q 高",
    "ld.high2": "K 高",
  },
};

// Leduc's six cards (ids 0..5: J♥ J♠ Q♥ Q♠ K♥ K♠) as the page draws cards (id = rank * 4
// + suit, rank 9 = jack, suit 2 = hearts, 3 = spades)
const rankOf = (c) => c >> 1;
const face = (c) => (9 + rankOf(c)) * 4 + (c & 1 ? 3 : 2);
const card = (c, opts) => cardEl(c === null || c === undefined ? null : face(c), opts);
const cardName = (c) => ["J", "Q", "K"][rankOf(c)] + (c & 1 ? "♠" : "♥");
const ROUND = { first: "ld.first", second: "ld.second" };

/** A private card's hand with the public card: "a pair of kings", "queen high". */
function handOf(c, pub) {
  return t(pub !== null && pub !== undefined && rankOf(c) === rankOf(pub) ? `ld.pair${rankOf(c)}` : `ld.high${rankOf(c)}`);
}

function seatOf(ctx, seat) {
  const v = ctx.view;
  return v && v.seats ? v.seats[seat] : null;
}

function actText(a) {
  if (a.kind === "check") return t("ld.check");
  if (a.kind === "call") return t("ld.call", { n: chips(a.amount) });
  if (a.kind === "raise") return t("ld.raise", { n: chips(a.amount) });
  if (a.kind === "fold") return t("table.fold");
  return "";
}

/** The tile's colours (leduc.css, served beside this module at /games/leduc/leduc.css). */
export const stylesheet = new URL("./leduc/leduc.css", import.meta.url).href;

export default {
  cardsBeside: true, // the seats hold their cards beside their plates, as Hold'em's do
  // provably fair deals (fairness.js): leduc/rules.py `layout` and what a viewer saw
  fair: {
    cardText: cardName,  // the fair-deal checker's reasons name Leduc's own six cards
    layout(deck, order) {
      const hands = {};
      order.forEach((s, i) => { hands[s] = [deck[i]]; });
      return { hands, board: [deck[order.length]] };
    },
    seenFromEvent(ev, add) {
      if (ev.type === "deal") add(ev.seat, ev.cards, "dealt");
      else if (ev.type === "board") add(null, ev.board, "board");
      else if (ev.type === "showdown") for (const x of ev.hands || []) add(x.seat, x.cards, "shown");
    },
    seenFromView(view, me, add) {
      if (me !== null && me !== undefined) add(me, view.hole, "dealt");
      add(null, view.board, "board");
      for (const s of view.seats || []) if (s) add(s.seat, s.cards, "shown");
    },
  },

  lobbyStakes(c) { return c.ante ? t("ld.stakes", { ante: chips(c.ante), small: chips(c.small_bet), big: chips(c.big_bet) }) : ""; },

  stakes(ctx) {
    const c = ctx.snap.config || {};
    return t("ld.stakes", { ante: chips(c.ante), small: chips(c.small_bet), big: chips(c.big_bet) });
  },

  seatCards(ctx, seat) {
    const v = ctx.view;
    const s = seatOf(ctx, seat);
    if (!v || !s) return null;
    const size = seat === ctx.me || (v.is_over && s.cards) ? "md" : "sm";
    if (seat === ctx.me && v.hole) {
      return h("div", { class: `cards hole ${s.folded ? "folded" : ""}`, "data-testid": "my-hole" }, v.hole.map((c) => card(c, { size })));
    }
    if (s.cards) return h("div", { class: "cards hole shown", "data-testid": `shown-${seat}` }, s.cards.map((c) => card(c, { size })));
    if (!s.folded && !v.is_over) return h("div", { class: "cards hole" }, card(null, { size }));
    return null;
  },

  betMarker(ctx, seat) {
    const s = seatOf(ctx, seat);
    if (!s || !s.bet || ctx.view.is_over) return null;
    return h("div", { class: "bet", "data-testid": `bet-${seat}` }, h("span", { class: "chip-icon" }), chips(s.bet));
  },

  badges(ctx, seat) {
    const out = [];
    if (ctx.snap.button === seat) out.push(h("span", { class: "dealer", title: t("table.dealer_title"), "data-testid": "dealer" }, t("table.dealer")));
    const s = seatOf(ctx, seat);
    if (s && s.folded) out.push(h("span", { class: "badge" }, t("table.folded")));
    return out;
  },

  seatState(ctx, seat) {
    const s = seatOf(ctx, seat);
    if (!s) return {};
    const v = ctx.view;
    const winner = v.is_over && s.won > 0;
    const last = ctx.ui.ldActs && ctx.ui.ldActs[seat];
    const note = winner ? t("table.wins", { n: chips(s.won) })
      : v.is_over && s.cards ? handOf(s.cards[0], v.board[0])
        : !v.is_over && last ? actText(last) : null;
    return { winner, out: s.folded, note, title: note };
  },

  center(ctx) {
    const v = ctx.view;
    const slot = h("div", { class: "card md slot" });
    if (!v) return h("div", { class: "board-area" }, h("div", { class: "board empty-board" }, slot));
    const board = h("div", { class: "board", "data-testid": "board", "data-cards": v.board.join(",") },
      v.board.length ? v.board.map((c) => card(c, { size: "md" })) : slot);
    const parts = [];
    if (v.is_over) {
      const shown = v.seats.some((s) => s && s.cards);
      if (shown) parts.push(h("div", { class: "street", "data-testid": "street" }, t("ld.showdown")));
      parts.push(board);
      const won = v.seats.filter((s) => s && s.won > 0);
      parts.push(h("div", { class: "pot", "data-testid": "pot", "data-amount": v.pot }, t("table.pot", { n: chips(v.pot) })));
      const lines = won.length > 1 ? [t("ld.split", { n: chips(won[0].won) })]
        : won.map((s) => (s.cards ? tParts("ld.wins_with", { name: who(ctx.name(s.seat)), n: chips(s.won), hand: handOf(s.cards[0], v.board[0]) })
          : tParts("ld.wins", { name: who(ctx.name(s.seat)), n: chips(s.won) })));
      parts.push(h("div", { class: "result", "data-testid": "result" }, lines.map((l) => h("div", { class: "result-group" }, l))));
    } else {
      parts.push(h("div", { class: "street", "data-testid": "street" }, t(ROUND[v.round] || "ld.first")), board,
        h("div", { class: "pot", "data-testid": "pot", "data-amount": v.pot }, t("table.pot", { n: chips(v.pot) })));
    }
    return h("div", { class: "board-area" }, parts);
  },

  // your hand in words while you play it, once the public card shows
  mine(ctx) {
    const v = ctx.view;
    if (!v || !v.hole || v.is_over || !ctx.snap.playing || !v.board.length) return null;
    return h("div", { class: "my-strength", "data-testid": "my-strength" },
      h("span", { class: "muted" }, t("ld.your_card")), " ", handOf(v.hole[0], v.board[0]));
  },

  actions(ctx) {
    const v = ctx.view;
    const legal = v && v.legal;
    if (!legal || v.is_over || v.to_act !== ctx.me) return null;
    const row = h("div", { class: "row buttons" });
    if (legal.fold) row.append(h("button", { class: "btn act fold", "data-testid": "act-fold", onclick: () => ctx.act({ type: "fold" }) }, t("table.fold")));
    if (legal.check) row.append(h("button", { class: "btn act", "data-testid": "act-check", onclick: () => ctx.act({ type: "check" }) }, t("ld.check")));
    if (legal.call > 0) row.append(h("button", { class: "btn act call", "data-testid": "act-call", onclick: () => ctx.act({ type: "call" }) }, t("ld.call", { n: chips(legal.call) })));
    if (legal.raise > 0) {
      row.append(h("button", { class: "btn act raise", "data-testid": "act-raise", onclick: () => ctx.act({ type: "raise" }) },
        t(legal.call > 0 ? "ld.raise" : "ld.bet", { n: chips(legal.raise) })));
    }
    return h("div", { class: "action-bar", "data-testid": "my-turn" }, row);
  },

  // the last thing each seat did this round, shown on its seat
  track(ev, ctx) {
    const acts = ctx.ui.ldActs = ctx.ui.ldActs || {};
    if (ev.type === "board" || ev.type === "hand_start" || ev.type === "hand_started") for (const k of Object.keys(acts)) delete acts[k];
    if (ev.type === "action") acts[ev.seat] = { kind: ev.action, amount: ev.amount };
  },

  // what the history says when it starts in the middle of a hand (after a reload)
  opening(ctx) {
    const v = ctx.view;
    const lines = [t("ld.opening", { round: t(ROUND[v.round] || "ld.first"), pot: chips(v.pot) })];
    if (v.board.length) lines.push([t("ld.public", { card: cardName(v.board[0]) }), "board"]);
    if (v.hole) lines.push([t("ld.dealt", { card: cardName(v.hole[0]) }), "mine"]);
    return lines;
  },

  describe(ev, ctx) {
    const n = (s) => ctx.name(s);
    switch (ev.type) {
      case "ante": return t("ld.antes", { name: n(ev.seat), n: chips(ev.amount) });
      case "deal": return ev.cards ? [t("ld.dealt", { card: cardName(ev.cards[0]) }), "mine"] : null;
      case "action": {
        const allIn = ev.all_in ? t("ld.all_in") : "";
        if (ev.action === "fold") return t("ld.folds", { name: n(ev.seat) });
        if (ev.action === "check") return t("ld.checks", { name: n(ev.seat) });
        if (ev.action === "call") return t("ld.calls", { name: n(ev.seat), n: chips(ev.amount) }) + allIn;
        return t("ld.raises", { name: n(ev.seat), n: chips(ev.amount) }) + allIn;
      }
      case "board": return [t("ld.public", { card: cardName(ev.board[0]) }), "board"];
      case "showdown":
        return ev.hands.map((x) => t("ld.shows", { name: n(x.seat), card: cardName(x.cards[0]), hand: handOf(x.cards[0], ev.public) })).join(" · ");
      case "hand_over": {
        const won = (ev.won || []).map((w, s) => [s, w]).filter(([, w]) => w > 0);
        return won.length ? [won.map(([s, w]) => t("ld.wins", { name: n(s), n: chips(w) })).join(" · "), "win"] : null;
      }
      default: return null;
    }
  },
};
