// The Texas Hold'em table: hole cards, board, pots and side pots, bets in front of the
// seats, dealer button, and fold / check / call / raise (slider and quick sizes, kept
// inside the legal range the server sends), showdown reveals and winners.
//
// View and legal wire formats: engine/holdem/view.py and engine/holdem/legal.py.
// Raise amounts are "raise to" totals for the street: {"type": "raise", "to": N}.

import { h, chips } from "./dom.js";
import { cardEl, cardsText } from "./cards.js";
import { bestHand, shortHand } from "./handeval.js";

const STREET = { preflop: "Pre-flop", flop: "Flop", turn: "Turn", river: "River", over: "Showdown" };

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

export default {
  stakes(ctx) {
    const c = ctx.snap.config || {};
    return `Hold'em · blinds ${chips(c.small_blind)}/${chips(c.big_blind)}${c.ante ? ` · ante ${chips(c.ante)}` : ""}`;
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

  betMarker(ctx, seat) {
    const s = seatView(ctx, seat);
    if (!s || !s.bet || ctx.view.is_over) return null;
    return h("div", { class: "bet", "data-testid": `bet-${seat}` }, h("span", { class: "chip-icon" }), chips(s.bet));
  },

  badges(ctx, seat) {
    const v = ctx.view;
    const out = [];
    const button = v ? v.button : ctx.snap.button;
    if (button === seat) out.push(h("span", { class: "dealer", title: "dealer button", "data-testid": "dealer" }, "D"));
    const s = seatView(ctx, seat);
    if (s && s.all_in && !v.is_over) out.push(h("span", { class: "badge hot" }, "all-in"));
    if (s && s.folded) out.push(h("span", { class: "badge" }, "folded"));
    return out;
  },

  seatState(ctx, seat) {
    const s = seatView(ctx, seat);
    if (!s) return {};
    const over = ctx.view.is_over;
    const winner = over && s.won > 0;
    let note = null;
    if (winner) note = `wins ${chips(s.won)}`;
    else if (s.hand) note = shortHand(s.hand);
    else if (!over && ctx.ui.acts && ctx.ui.acts[seat] && ctx.ui.acts[seat] !== "Fold") note = ctx.ui.acts[seat];
    return { winner, out: s.folded, note, title: s.hand ? `${note}: ${s.hand}` : note };
  },

  center(ctx) {
    const v = ctx.view;
    if (!v) return h("div", { class: "board-area" }, h("div", { class: "board empty-board" }, slots(5)));
    const best = winningCards(v);
    const board = h("div", { class: "board", "data-testid": "board", "data-cards": v.board.join(",") },
      v.board.map((c) => cardEl(c, { size: "md", cls: best.has(c) ? "best" : "" })), slots(5 - v.board.length));
    const label = v.is_over ? (showdown(v) ? "Showdown" : null) : STREET[v.street] || v.street;
    const parts = [label ? h("div", { class: "street", "data-testid": "street" }, label) : null, board];
    if (v.is_over) {
      const won = v.seats.filter((s) => s && s.won > 0);
      const total = won.reduce((a, s) => a + s.won, 0);
      parts.push(h("div", { class: "pot", "data-testid": "pot", "data-amount": total }, `Pot ${chips(total)}`));
      // one line per (amount, hand): "Alice, Bob win 40 each with a Flush"
      const groups = new Map();
      for (const s of won) {
        const key = `${s.won}|${s.hand || ""}`;
        if (!groups.has(key)) groups.set(key, { won: s.won, hand: s.hand, names: [] });
        groups.get(key).names.push(ctx.name(s.seat));
      }
      // the hand without its kickers on the felt (the whole description in the tooltip and the history)
      parts.push(h("div", { class: "result", "data-testid": "result" },
        [...groups.values()].map((g) => h("div", { title: g.hand || "" }, g.names.length > 1
          ? `${g.names.join(", ")} win ${chips(g.won)} each${g.hand && !ctx.narrow ? ` with ${shortHand(g.hand)}` : ""}`
          : `${g.names[0]} wins ${chips(g.won)}${g.hand && !ctx.narrow ? ` with ${shortHand(g.hand)}` : ""}`))));
    } else {
      const total = potTotal(v);
      parts.push(h("div", { class: "pot", "data-testid": "pot", "data-amount": total }, `Pot ${chips(total)}`));
      if (v.pots.length > 1) {
        parts.push(h("div", { class: "side-pots", "data-testid": "side-pots" },
          v.pots.map((p, i) => h("span", { class: "side-pot" },
            `${i === 0 ? "Main" : `Side ${i}`}: ${chips(p.amount)}`))));
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
      h("span", { class: "muted" }, "Your hand: "), bestHand(v.hole.concat(v.board)).name);
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
        h("td", {}, s.hand || (s.folded ? "folded" : "")),
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
    if (legal.fold) row.append(h("button", { class: "btn act fold", "data-testid": "act-fold", onclick: () => ctx.act({ type: "fold" }) }, "Fold"));
    if (legal.check) row.append(h("button", { class: "btn act", "data-testid": "act-check", onclick: () => ctx.act({ type: "check" }) }, "Check"));
    if (legal.call > 0) {
      const allIn = legal.call >= me.stack;
      row.append(h("button", { class: "btn act call", "data-testid": "act-call", onclick: () => ctx.act({ type: "call" }) },
        allIn ? `Call ${chips(legal.call)} (all-in)` : `Call ${chips(legal.call)}`));
    }
    if (legal.min_to !== null && legal.min_to !== undefined) {
      bar.append(raisePanel(ctx, legal, me, row));
    } else if (legal.all_in && !(legal.call > 0 && legal.call >= me.stack)) {
      row.append(h("button", { class: "btn act raise", "data-testid": "act-allin", onclick: () => ctx.act({ type: "all_in" }) }, `All-in ${chips(me.stack)}`));
    }
    bar.prepend(row);
    return bar;
  },

  // the last thing each seat did on this street, shown on its seat
  track(ev, ctx) {
    const acts = ctx.ui.acts = ctx.ui.acts || {};
    if (ev.type === "board" || ev.type === "hand_start") for (const k of Object.keys(acts)) delete acts[k];
    if (ev.type === "action") {
      const word = { fold: "Fold", check: "Check", call: `Call ${chips(ev.amount)}`, bet: `Bet ${chips(ev.to)}`, raise: `Raise to ${chips(ev.to)}` }[ev.action];
      acts[ev.seat] = ev.all_in ? `${word} · all-in` : word;
    }
    if (ev.type === "timed_out") acts[ev.seat] = "Timed out";
  },

  // what the history says when it starts in the middle of a hand (after a reload)
  opening(ctx) {
    const v = ctx.view;
    const lines = [`${STREET[v.street] || v.street}, pot ${chips(potTotal(v))}${v.board.length ? `, board ${cardsText(v.board)}` : ""}`];
    if (v.hole) lines.push([`Your cards: ${cardsText(v.hole)}`, "mine"]);
    return lines;
  },

  describe(ev, ctx) {
    const n = (s) => ctx.name(s);
    switch (ev.type) {
      case "blind": return `${n(ev.seat)} posts the ${ev.kind} blind ${chips(ev.amount)}${ev.all_in ? " (all-in)" : ""}`;
      case "ante": return `${n(ev.seat)} posts an ante of ${chips(ev.amount)}`;
      case "deal": return ev.cards ? [`You are dealt ${cardsText(ev.cards)}`, "mine"] : null;
      case "action": {
        const allIn = ev.all_in ? " (all-in)" : "";
        if (ev.action === "fold") return `${n(ev.seat)} folds`;
        if (ev.action === "check") return `${n(ev.seat)} checks`;
        if (ev.action === "call") return `${n(ev.seat)} calls ${chips(ev.amount)}${allIn}`;
        if (ev.action === "bet") return `${n(ev.seat)} bets ${chips(ev.to)}${allIn}`;
        return `${n(ev.seat)} raises to ${chips(ev.to)}${allIn}`;
      }
      case "return": return `${chips(ev.amount)} uncalled returned to ${n(ev.seat)}`;
      case "board": return [`${STREET[ev.street] || ev.street}: ${cardsText(ev.board)}`, "board"];
      case "showdown": {
        const lines = ev.hands.map((x) => `${n(x.seat)} shows ${cardsText(x.cards)} (${x.description})`);
        for (const s of ev.mucked || []) lines.push(`${n(s)} mucks`);
        return lines.join(" · ");
      }
      case "award": {
        const pot = ev.pot === 0 ? "the pot" : `side pot ${ev.pot}`;
        const hand = ev.hand ? ` with ${ev.hand}` : "";
        if (ev.shares.length === 1) return [`${n(ev.shares[0].seat)} wins ${pot} of ${chips(ev.amount)}${hand}`, "win"];
        const who = ev.shares.map((x) => `${n(x.seat)} ${chips(x.amount)}`).join(", ");
        return [`${pot[0].toUpperCase()}${pot.slice(1)} of ${chips(ev.amount)} is split${hand}: ${who}`, "win"];
      }
      default: return null;
    }
  },
};

// --- pre-actions: decide before your turn ("Check/Fold", "Call any") ----------------------

const PRE = { checkfold: "Check/Fold", callany: "Call any" };

/** While others act: toggles that play for you as soon as your turn comes. */
function preActions(ctx) {
  const v = ctx.view;
  const me = v.seats[ctx.me];
  if (!me || !me.in_hand || me.folded || me.all_in || !ctx.snap.playing) return null;
  const pre = ctx.ui.pre && ctx.ui.pre.hand === ctx.snap.hand_no ? ctx.ui.pre.kind : null;
  const who = v.to_act !== null && v.to_act !== undefined ? ctx.name(v.to_act) : "";
  return h("div", { class: "action-bar pre-actions", "data-testid": "pre-actions" },
    h("div", { class: "muted small", "data-testid": "waiting" }, `Waiting for ${who}… Decide now:`),
    h("div", { class: "row buttons" }, Object.entries(PRE).map(([kind, label]) => h("label", { class: `btn quick pre ${pre === kind ? "on" : ""}` },
      h("input", { type: "checkbox", checked: pre === kind, "data-testid": `pre-${kind}`,
        onchange: (e) => { ctx.ui.pre = e.target.checked ? { hand: ctx.snap.hand_no, kind } : null; ctx.rerender(); } }),
      ` ${label}`))));
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
  const verb = v.current_bet === 0 ? "Bet" : "Raise to";
  const pot = potTotal(v);
  const toCall = legal.call;
  const potTo = v.current_bet + pot + toCall;
  const halfTo = v.current_bet + Math.floor((pot + toCall) / 2);

  const go = h("button", { class: "btn act raise", "data-testid": "act-raise",
    onclick: () => ctx.act(amount >= max ? { type: "all_in" } : { type: "raise", to: amount }) });
  const slider = h("input", { type: "range", min, max, step: 1, value: amount, "data-testid": "raise-slider",
    "aria-label": "raise amount" });
  const number = h("input", { type: "number", min, max, step: 1, value: amount, "data-testid": "raise-amount",
    inputmode: "numeric", "aria-label": "raise to" });
  const set = (x, from) => {
    amount = clamp(x);
    ctx.ui.raiseTo = amount;
    if (from !== slider) slider.value = String(amount);
    if (from !== number) number.value = String(amount);
    go.textContent = amount >= max ? `All-in ${chips(me.bet + me.stack)}` : `${verb} ${chips(amount)}`;
  };
  slider.addEventListener("input", () => set(Number(slider.value), slider));
  number.addEventListener("input", () => { if (number.value !== "") set(Number(number.value), number); });
  number.addEventListener("change", () => set(Number(number.value)));
  const quick = (label, to, testid) => h("button", { class: "btn quick", "data-testid": testid,
    disabled: to < min && label !== "Min", onclick: () => set(to) }, label);
  set(amount);
  row.append(go);
  return h("div", { class: "raise-panel" },
    h("div", { class: "row quicks" },
      quick("Min", min, "raise-min"),
      quick("½ Pot", halfTo, "raise-half"),
      quick("Pot", potTo, "raise-pot"),
      quick("All-in", max, "raise-max")),
    h("div", { class: "row slider-row" }, slider, number));
}
