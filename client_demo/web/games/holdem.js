// The Texas Hold'em table: hole cards, board, pots and side pots, bets in front of the
// seats, dealer button, and fold / check / call / raise (slider and quick sizes, kept
// inside the legal range the server sends), showdown reveals and winners.
//
// View and legal wire formats: engine/holdem/view.py and engine/holdem/legal.py.
// Raise amounts are "raise to" totals for the street: {"type": "raise", "to": N}.

import { h, chips, who } from "../dom.js";
import { cardEl, cardsText } from "../cards.js";
import { bestHand, fullHand, shortHand } from "../handeval.js";
import { t, tParts, list } from "../i18n.js";

const STREET_KEY = { preflop: "he.preflop", flop: "he.flop", turn: "he.turn", river: "he.river", over: "he.showdown" };
const street = (name) => (STREET_KEY[name] ? t(STREET_KEY[name]) : name);

function seatView(ctx, seat) {
  const v = ctx.view;
  return v && v.seats ? v.seats[seat] : null;
}

/** The cards making the winning five at a showdown (for the highlight), as a Set of ids. */
function winningCards(view) {
  const best = new Set();
  if (!view || !view.is_over || view.board.length < 5) return best;
  for (const s of view.seats) {
    if (s && s.won > 0 && s.cards) for (const c of bestHand(s.cards.concat(view.board)).best) best.add(c);
  }
  return best;
}

/** Did anyone show cards (a real showdown), or did everyone else fold? */
function showdown(view) {
  return view.is_over && view.seats.filter((s) => s && s.cards).length > 0 && view.board.length === 5;
}

function potTotal(view) {
  const pots = (view.pots || []).reduce((a, p) => a + p.amount, 0);
  const bets = (view.seats || []).reduce((a, s) => a + (s ? s.bet : 0), 0);
  return pots + bets;
}

/** This table's own styles (its lobby tile, its seats' layout): games.js links them. */
export const stylesheet = new URL("./holdem.css", import.meta.url).href;

export default {
  cardsBeside: true, // the seats hold their cards beside their plates (table.js, style.css)
  // provably fair deals (fairness.js): the engine's dealing rule (engine/holdem Game.layout)
  // and the cards each event or view shows its viewer
  fair: {
    layout(deck, order) { // one card to each seat in order, twice around; then burn, flop, burn, turn, burn, river
      const n = order.length;
      const hands = {};
      order.forEach((s, i) => { hands[s] = [deck[i], deck[n + i]]; });
      const rest = deck.slice(2 * n);
      return { hands, board: [rest[1], rest[2], rest[3], rest[5], rest[7]] };
    },
    seenFromEvent(ev, add) {
      if (ev.type === "deal") add(ev.seat, ev.cards, "dealt");
      else if (ev.type === "board") add(null, ev.board || ev.cards, "board");
      else if (ev.type === "showdown") for (const x of ev.hands || []) add(x.seat, x.cards, "shown");
      else if (ev.type === "show") add(ev.seat, ev.cards, "shown");
    },
    seenFromView(view, me, add) {
      if (me !== null && me !== undefined) add(me, view.hole, "dealt");
      add(null, view.board, "board");
      for (const s of view.seats || []) if (s) add(s.seat, s.cards, "shown");
    },
  },

  /** The lobby's stakes words for a table of these hand options ("Blinds 5/10"). */
  lobbyStakes(c) { return c.small_blind ? t("lobby.blinds", { sb: chips(c.small_blind), bb: chips(c.big_blind) }) : ""; },

  stakes(ctx) {
    const c = ctx.snap.config || {};
    const level = sngLevel(ctx);
    if (level) return level;
    return t("he.stakes", { sb: chips(c.small_blind), bb: chips(c.big_blind) }) + (c.ante ? t("he.ante", { n: chips(c.ante) }) : "");
  },

  seatCards(ctx, seat) {
    const v = ctx.view;
    const s = seatView(ctx, seat);
    if (!v || !s) return null;
    const mine = seat === ctx.me;
    const size = mine || (v.is_over && s.cards && !ctx.narrow) ? "md" : "sm";
    const best = winningCards(v);
    const face = (c) => cardEl(c, { size, cls: best.has(c) ? "best" : "" });
    if (mine && v.hole) {
      return h("div", { class: `cards hole ${s.folded ? "folded" : ""} ${s.cards ? "shown" : ""}`, "data-testid": "my-hole" },
        v.hole.map(face));
    }
    if (s.cards) {
      return h("div", { class: "cards hole shown", "data-testid": `shown-${seat}` }, s.cards.map(face));
    }
    if (s.in_hand && !s.folded && !v.is_over) {
      return h("div", { class: "cards hole" }, [cardEl(null, { size }), cardEl(null, { size })]);
    }
    return null;
  },

  // your cards of the hand just over, from your last view while seated (your seat was freed
  // as it ended: the snapshot's view is a spectator's, without a mucked hand)
  ownView(view, before, seat) {
    return !view.hole && before && before.hole ? { ...view, hole: before.hole, you: seat } : view;
  },

  betMarker(ctx, seat) {
    const s = seatView(ctx, seat);
    if (!s || !s.bet || ctx.view.is_over) return null;
    return h("div", { class: "bet", "data-testid": `bet-${seat}` }, h("span", { class: "chip-icon" }), chips(s.bet));
  },

  badges(ctx, seat) {
    const v = ctx.view;
    const out = [];
    const button = v ? v.button : ctx.snap.button;
    if (button === seat) out.push(h("span", { class: "dealer", title: t("table.dealer_title"), "data-testid": "dealer" }, t("table.dealer")));
    const s = seatView(ctx, seat);
    if (s && s.all_in && !v.is_over) out.push(h("span", { class: "badge hot" }, t("he.all_in_badge")));
    if (s && s.folded) out.push(h("span", { class: "badge" }, t("table.folded")));
    return out;
  },

  seatState(ctx, seat) {
    const s = seatView(ctx, seat);
    if (!s) return {};
    const over = ctx.view.is_over;
    const winner = over && s.won > 0;
    let note = null;
    if (winner) note = t("table.wins", { n: chips(s.won) });
    else if (s.hand) note = shortHand(s.hand);
    else if (!over && ctx.ui.acts && ctx.ui.acts[seat] && ctx.ui.acts[seat].kind !== "fold") note = actText(ctx.ui.acts[seat]);
    return { winner, out: s.folded, note, title: s.hand ? `${note}: ${fullHand(s.hand)}` : note };
  },

  center(ctx) {
    const v = ctx.view;
    if (!v) return h("div", { class: "board-area" }, h("div", { class: "board empty-board" }, slots(5)));
    const best = winningCards(v);
    const board = h("div", { class: "board", "data-testid": "board", "data-cards": v.board.join(",") },
      v.board.map((c) => cardEl(c, { size: "md", cls: best.has(c) ? "best" : "" })), slots(5 - v.board.length));
    const label = v.is_over ? (showdown(v) ? t("he.showdown") : null) : street(v.street);
    const parts = [label ? h("div", { class: "street", "data-testid": "street" }, label) : null, board];
    if (v.is_over) {
      const won = v.seats.filter((s) => s && s.won > 0);
      const total = won.reduce((a, s) => a + s.won, 0);
      parts.push(h("div", { class: "pot", "data-testid": "pot", "data-amount": total }, t("table.pot", { n: chips(total) })));
      // one line per (amount, hand): "Alice, Bob win 40 each with a Flush"
      const groups = new Map();
      for (const s of won) {
        const key = `${s.won}|${s.hand || ""}`;
        if (!groups.has(key)) groups.set(key, { won: s.won, hand: s.hand, names: [] });
        groups.get(key).names.push(ctx.name(s.seat));
      }
      // who won on one line, the hand without its kickers on the next (the whole
      // description in the tooltip and the history); style.css cuts a long name short
      parts.push(h("div", { class: "result", "data-testid": "result" },
        [...groups.values()].map((g) => h("div", { class: "result-group", title: fullHand(g.hand) || "" },
          h("div", { class: "result-who" }, g.names.length > 1
            ? t("he.win_each", { names: list(g.names), n: chips(g.won) })
            : tParts("he.wins", { name: who(g.names[0]), n: chips(g.won) })),
          // (the space: the result's text reads as one sentence, "… wins 20 with Two pair …")
          g.hand ? h("div", { class: "result-hand", "data-testid": "result-hand" }, " ", t("he.with_line", { hand: shortHand(g.hand) })) : null))));
    } else {
      const total = potTotal(v);
      parts.push(h("div", { class: "pot", "data-testid": "pot", "data-amount": total }, t("table.pot", { n: chips(total) })));
      if (v.pots.length > 1) {
        parts.push(h("div", { class: "side-pots", "data-testid": "side-pots" },
          v.pots.map((p, i) => h("span", { class: "side-pot" },
            i === 0 ? t("he.main_pot", { n: chips(p.amount) }) : t("he.side_pot", { i, n: chips(p.amount) })))));
      }
    }
    return h("div", { class: "board-area" }, parts);
  },

  // your own hand in words while you play it ("Flush, king high"), from your cards and the board
  mine(ctx) {
    const v = ctx.view;
    if (!v || !v.hole || v.is_over || !ctx.snap.playing) return null;
    const me = v.seats[ctx.me];
    if (!me || me.folded) return null;
    return h("div", { class: "my-strength", "data-testid": "my-strength" },
      h("span", { class: "muted" }, t("he.your_hand")), bestHand(v.hole.concat(v.board)).name);
  },

  // the last hand's shown cards and winners, for the "Last hand" view
  summary(ctx) {
    const v = ctx.view;
    const best = winningCards(v);
    const rows = v.seats.filter((s) => s && (s.cards || s.won > 0 || (s.seat === ctx.me && v.hole))).map((s) => {
      const cards = s.cards || (s.seat === ctx.me ? v.hole : null);
      return h("tr", { class: s.won > 0 ? "plus" : "" },
        h("td", {}, ctx.name(s.seat)),
        h("td", {}, cards ? h("div", { class: "cards" }, cards.map((c) => cardEl(c, { size: "md", cls: best.has(c) ? "best" : "" }))) : "–"),
        h("td", {}, fullHand(s.hand) || (s.folded ? t("table.folded") : "")),
        h("td", {}, s.won > 0 ? `+${chips(s.won)}` : ""));
    });
    return h("table", { class: "score summary", "data-testid": "last-hand-seats" }, h("tbody", {}, rows));
  },

  actions(ctx) {
    const v = ctx.view;
    const legal = v && v.legal;
    if (v && !v.is_over && v.to_act !== ctx.me) return preActions(ctx);
    if (!legal || v.is_over || v.to_act !== ctx.me) return null;
    const me = v.seats[ctx.me];
    const pre = takePreAction(ctx, legal);
    if (pre) { setTimeout(() => ctx.act(pre), 0); return null; }
    const bar = h("div", { class: "action-bar holdem-actions", "data-testid": "my-turn" });
    const row = h("div", { class: "row buttons" });
    if (legal.fold) row.append(h("button", { class: "btn act fold", "data-testid": "act-fold", onclick: () => ctx.act({ type: "fold" }) }, t("table.fold")));
    if (legal.check) row.append(h("button", { class: "btn act", "data-testid": "act-check", onclick: () => ctx.act({ type: "check" }) }, t("he.check")));
    if (legal.call > 0) {
      const allIn = legal.call >= me.stack;
      row.append(h("button", { class: "btn act call", "data-testid": "act-call", onclick: () => ctx.act({ type: "call" }) },
        t(allIn ? "he.call_all_in" : "he.call", { n: chips(legal.call) })));
    }
    if (legal.min_to !== null && legal.min_to !== undefined) {
      bar.append(raisePanel(ctx, legal, me, row));
    } else if (legal.all_in && !(legal.call > 0 && legal.call >= me.stack)) {
      row.append(h("button", { class: "btn act raise", "data-testid": "act-allin", onclick: () => ctx.act({ type: "all_in" }) }, t("he.all_in", { n: chips(me.stack) })));
    }
    bar.prepend(row);
    return bar;
  },

  // the last thing each seat did on this street, shown on its seat
  track(ev, ctx) {
    const acts = ctx.ui.acts = ctx.ui.acts || {};
    if (ev.type === "board" || ev.type === "hand_start") for (const k of Object.keys(acts)) delete acts[k];
    if (ev.type === "action") {
      acts[ev.seat] = { kind: ev.action, amount: ev.action === "call" ? ev.amount : ev.to, allIn: ev.all_in };
    }
    if (ev.type === "timed_out") acts[ev.seat] = { kind: "timed_out" };
  },

  // what the history says when it starts in the middle of a hand (after a reload)
  opening(ctx) {
    const v = ctx.view;
    const lines = [t(v.board.length ? "he.opening_board" : "he.opening", { street: street(v.street), pot: chips(potTotal(v)), cards: cardsText(v.board) })];
    if (v.hole) lines.push([t("he.your_cards", { cards: cardsText(v.hole) }), "mine"]);
    return lines;
  },

  describe(ev, ctx) {
    const n = (s) => ctx.name(s);
    switch (ev.type) {
      case "blind": {
        const key = ev.kind === "small" ? "he.blind_small" : ev.kind === "big" ? "he.blind_big" : "he.blind_other";
        return t(key, { name: n(ev.seat), n: chips(ev.amount) }) + (ev.all_in ? t("he.all_in_note") : "");
      }
      case "hand_start": return blindsUp(ev, ctx);
      case "ante": return t("he.ante_posted", { name: n(ev.seat), n: chips(ev.amount) });
      case "deal": return ev.cards ? [t("he.dealt", { cards: cardsText(ev.cards) }), "mine"] : null;
      case "action": {
        const allIn = ev.all_in ? t("he.all_in_note") : "";
        const who = n(ev.seat);
        if (ev.action === "fold") return t("he.folds", { name: who });
        if (ev.action === "check") return t("he.checks", { name: who });
        if (ev.action === "call") return t("he.calls", { name: who, n: chips(ev.amount) }) + allIn;
        if (ev.action === "bet") return t("he.bets", { name: who, n: chips(ev.to) }) + allIn;
        return t("he.raises", { name: who, n: chips(ev.to) }) + allIn;
      }
      case "return": return t("he.returned", { n: chips(ev.amount), name: n(ev.seat) });
      case "board": return [t("he.board", { street: street(ev.street), cards: cardsText(ev.board) }), "board"];
      case "showdown": {
        const lines = ev.hands.map((x) => t("he.shows", { name: n(x.seat), cards: cardsText(x.cards), hand: fullHand(x.description) }));
        for (const s of ev.mucked || []) lines.push(t("he.mucks", { name: n(s) }));
        return lines.join(" · ");
      }
      case "show":
        return ev.description ? t("he.shows", { name: n(ev.seat), cards: cardsText(ev.cards), hand: fullHand(ev.description) })
          : t("he.shows_cards", { name: n(ev.seat), cards: cardsText(ev.cards) });
      case "award": {
        const pot = ev.pot === 0 ? t("he.the_pot") : t("he.side_pot_n", { n: ev.pot });
        const hand = ev.hand ? t("he.with", { hand: fullHand(ev.hand) }) : "";
        if (ev.shares.length === 1) return [t("he.wins_pot", { name: n(ev.shares[0].seat), pot, n: chips(ev.amount), hand }), "win"];
        const who = list(ev.shares.map((x) => `${n(x.seat)} ${chips(x.amount)}`));
        return [t("he.split", { pot, n: chips(ev.amount), hand, who }), "win"];
      }
      default: return null;
    }
  },
};

/**
 * A sit-and-go's level and blinds in the table header (the snapshot's `league.level` and
 * `league.level_no` are the next hand's): the hand on the table's (or the last one's),
 * "level 3 · blinds 25/50", and the next hand's when they rise. A level's blinds are its
 * own, so the hand on the table is at the next hand's level unless its blinds differ
 * (then it is the level before). Without `level_no` (an older server), the blinds alone.
 */
function sngLevel(ctx) {
  const { snap, view } = ctx;
  const league = snap.league;
  if (!league || league.format !== "sng" || !league.level || !league.level.big_blind) return null;
  const next = league.level;
  const now = view && view.big_blind ? view : next;
  const same = next.small_blind === now.small_blind && next.big_blind === now.big_blind;
  const rises = !snap.closed && !same;
  const nextNo = Number.isInteger(league.level_no) && league.level_no >= 1 ? league.level_no : null;
  const nowNo = nextNo === null ? null : same ? nextNo : Math.max(1, nextNo - 1);
  const p = (b, n) => ({ sb: chips(b.small_blind), bb: chips(b.big_blind), n });
  return h("span", { class: "sng-level", "data-testid": "sng-level", "data-small": now.small_blind, "data-big": now.big_blind,
    "data-level": nowNo ?? "" },
  t(nowNo ? "he.sng_stakes_level" : "he.sng_stakes", p(now, nowNo)),
  rises ? t(nextNo ? "he.sng_next_level" : "he.sng_next", p(next, nextNo)) : "");
}

/**
 * Live, the level number of a hand whose `hand_start` arrives on the snapshot before it:
 * that snapshot's `league.level_no` (the next hand's), when its `league.level` has this
 * hand's blinds. Null for a fetched hand (no view: its caller says, as `ctx.level`).
 */
function liveLevel(ev, ctx) {
  const league = ctx.view && ctx.snap && ctx.snap.league;
  if (!league || !league.level || !Number.isInteger(league.level_no)) return null;
  return league.level.small_blind === ev.small_blind && league.level.big_blind === ev.big_blind ? league.level_no : null;
}

/**
 * "Blinds up: 25/50 (level 3)" when a hand's blinds are above the hand before's (a
 * sit-and-go's next level), else nothing. The hand before: what a fetched history knows
 * (`ctx.blindsBefore`, and the `ctx.level` number), or live, the view of the snapshot
 * the hand's first event arrives on (the last hand's), and that snapshot's level number.
 */
function blindsUp(ev, ctx) {
  const v = ctx.view;
  const before = ctx.blindsBefore || (v && v.big_blind ? [v.small_blind, v.big_blind] : null);
  if (!before || (ev.small_blind <= before[0] && ev.big_blind <= before[1])) return null;
  const level = ctx.level ?? liveLevel(ev, ctx);
  const p = { sb: chips(ev.small_blind), bb: chips(ev.big_blind), n: level };
  return [t(level ? "he.blinds_up_level" : "he.blinds_up", p), "level"];
}

/** What a seat did last on this street, in words ("Raise to 40 · all-in"). */
function actText(a) {
  if (typeof a === "string") return a;
  const word = {
    fold: () => t("table.fold"), check: () => t("he.check"), call: () => t("he.call", { n: chips(a.amount) }),
    bet: () => t("he.bet", { n: chips(a.amount) }), raise: () => t("he.raise_to", { n: chips(a.amount) }),
    timed_out: () => t("he.timed_out"),
  }[a.kind];
  const text = word ? word() : a.kind;
  return a.allIn ? t("he.act_all_in", { act: text }) : text;
}

// --- pre-actions: decide before your turn ("Check/Fold", "Call any") ----------------------

const PRE = { checkfold: "he.pre_checkfold", callany: "he.pre_callany" };

/** While others act: toggles that play for you as soon as your turn comes. */
function preActions(ctx) {
  const v = ctx.view;
  const me = v.seats[ctx.me];
  if (!me || !me.in_hand || me.folded || me.all_in || !ctx.snap.playing) return null;
  const pre = ctx.ui.pre && ctx.ui.pre.hand === ctx.snap.hand_no ? ctx.ui.pre.kind : null;
  const who = v.to_act !== null && v.to_act !== undefined ? ctx.name(v.to_act) : "";
  return h("div", { class: "action-bar pre-actions", "data-testid": "pre-actions" },
    h("div", { class: "muted small", "data-testid": "waiting" }, t("he.pre_waiting", { name: who })),
    h("div", { class: "row buttons" }, Object.entries(PRE).map(([kind, label]) => h("label", { class: `btn quick pre ${pre === kind ? "on" : ""}` },
      h("input", { type: "checkbox", checked: pre === kind, "data-testid": `pre-${kind}`,
        onchange: (e) => { ctx.ui.pre = e.target.checked ? { hand: ctx.snap.hand_no, kind } : null; ctx.rerender(); } }),
      ` ${t(label)}`))));
}

/** The action a pre-action takes now that it is your turn (used once), or null. */
function takePreAction(ctx, legal) {
  const pre = ctx.ui.pre;
  ctx.ui.pre = null;
  if (!pre || pre.hand !== ctx.snap.hand_no) return null;
  if (pre.kind === "checkfold") return legal.check ? { type: "check" } : { type: "fold" };
  if (pre.kind === "callany") return legal.check ? { type: "check" } : legal.call > 0 ? { type: "call" } : null;
  return null;
}

function slots(k) {
  return Array.from({ length: Math.max(0, k) }, () => h("div", { class: "card md slot" }));
}

function raisePanel(ctx, legal, me, row) {
  const v = ctx.view;
  const min = legal.min_to;
  const max = legal.max_to;
  const key = `${ctx.snap.hand_no}:${v.street}:${v.current_bet}`;
  if (ctx.ui.raiseKey !== key) { ctx.ui.raiseKey = key; ctx.ui.raiseTo = min; }
  const clamp = (x) => Math.min(max, Math.max(min, Math.round(x)));
  let amount = clamp(ctx.ui.raiseTo);
  const verb = v.current_bet === 0 ? "he.bet" : "he.raise_to";
  const pot = potTotal(v);
  const toCall = legal.call;
  const potTo = v.current_bet + pot + toCall;
  const halfTo = v.current_bet + Math.floor((pot + toCall) / 2);

  const go = h("button", { class: "btn act raise", "data-testid": "act-raise",
    onclick: () => ctx.act(amount >= max ? { type: "all_in" } : { type: "raise", to: amount }) });
  const slider = h("input", { type: "range", min, max, step: 1, value: amount, "data-testid": "raise-slider",
    "aria-label": t("he.raise_amount") });
  const number = h("input", { type: "number", min, max, step: 1, value: amount, "data-testid": "raise-amount",
    inputmode: "numeric", "aria-label": t("he.raise_to_label") });
  const set = (x, from) => {
    amount = clamp(x);
    ctx.ui.raiseTo = amount;
    if (from !== slider) slider.value = String(amount);
    if (from !== number) number.value = String(amount);
    go.textContent = amount >= max ? t("he.all_in", { n: chips(me.bet + me.stack) }) : t(verb, { n: chips(amount) });
  };
  slider.addEventListener("input", () => set(Number(slider.value), slider));
  number.addEventListener("input", () => { if (number.value !== "") set(Number(number.value), number); });
  number.addEventListener("change", () => set(Number(number.value)));
  const quick = (label, to, testid) => h("button", { class: "btn quick", "data-testid": testid,
    disabled: to < min && testid !== "raise-min", onclick: () => set(to) }, label);
  set(amount);
  row.append(go);
  return h("div", { class: "raise-panel" },
    h("div", { class: "row quicks" },
      quick(t("he.min"), min, "raise-min"),
      quick(t("he.half_pot"), halfTo, "raise-half"),
      quick(t("he.pot"), potTo, "raise-pot"),
      quick(t("he.max"), max, "raise-max")),
    h("div", { class: "row slider-row" }, slider, number));
}
