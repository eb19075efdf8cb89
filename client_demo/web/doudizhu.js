// The Dou Dizhu (斗地主) table: bidding (score 1-3, or call / rob), your hand sorted with
// click-to-select cards, play / pass / hint (hints cycle through the legal plays the
// server lists in `legal.plays`), each seat's last play and card count, the landlord
// marker, bottom cards, the multiplier and the final score breakdown.
//
// View and legal wire formats: docs/doudizhu.md, engine/doudizhu/view.py and legal.py.

import { h, chips } from "./dom.js";
import { DDZ_RANKS, cardEl, ddzCardsFor, ddzRank, ddzRanksText, ddzSorted } from "./cards.js";

const KIND = {
  solo: "single", pair: "pair", trio: "trio", trio_solo: "trio + 1", trio_pair: "trio + pair",
  solo_chain: "straight", pair_chain: "pair straight", airplane: "airplane",
  airplane_solo: "airplane + wings", airplane_pair: "airplane + pairs", four_two_solo: "four + 2",
  four_two_pair: "four + 2 pairs", bomb: "BOMB", rocket: "ROCKET",
};

function seatView(ctx, seat) {
  const v = ctx.view;
  return v && v.seats ? v.seats[seat] : null;
}

function lastMove(v, seat) {
  if (!v) return null;
  if (v.phase === "bidding" || (v.phase === "over" && v.landlord === null)) {
    const bids = (v.bidding.history || []).filter((b) => b.seat === seat);
    return bids.length ? { bid: bids[bids.length - 1] } : null;
  }
  const moves = (v.trick || []).filter((m) => m.seat === seat);
  return moves.length ? moves[moves.length - 1] : null;
}

function bidText(b, style) {
  if (b.action === "bid") return `${b.value} point${b.value > 1 ? "s" : ""}`;
  if (b.action === "call") return "Landlord!";
  if (b.action === "rob") return "Rob!";
  return style === "rob" ? "Pass" : "No bid";
}

function selection(ctx) {
  const v = ctx.view;
  const key = `${ctx.snap.hand_no}`;
  if (ctx.ui.selKey !== key) { ctx.ui.selKey = key; ctx.ui.selected = new Set(); ctx.ui.hint = -1; }
  // drop cards that left the hand (played)
  const hand = new Set(v && v.hand ? v.hand : []);
  for (const c of [...ctx.ui.selected]) if (!hand.has(c)) ctx.ui.selected.delete(c);
  return ctx.ui.selected;
}

export default {
  // where each seat's last play lies on the felt (3 seats: you, upper left, upper right)
  betPos(k) {
    return [{ x: 50, y: 66 }, { x: 25, y: 55 }, { x: 75, y: 55 }][k] || { x: 50, y: 50 };
  },

  stakes(ctx) {
    const c = ctx.snap.config || {};
    return `Dou Dizhu · ${chips(c.stake)} per point · ${c.bidding === "rob" ? "call & rob" : "bid 1-3"}`;
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
    if (rest) s = { ...s, cards_left: rest.length };
    return h("div", { class: "count-stack", "data-testid": `count-${seat}`, "data-count": s.cards_left,
      title: `${s.cards_left} cards left` },
    cardEl(null, { size: "sm" }), h("span", { class: "count" }, String(s.cards_left)));
  },

  betMarker(ctx, seat) {
    const v = ctx.view;
    const m = lastMove(v, seat);
    if (!m || !v || v.is_over) return null; // the result panel tells the end of the hand
    if (m.bid) {
      return h("div", { class: "last-play bid", "data-testid": `last-play-${seat}` }, bidText(m.bid, v.bidding.style));
    }
    if (m.type === "pass") return h("div", { class: "last-play pass", "data-testid": `last-play-${seat}` }, "Pass");
    return h("div", { class: `last-play ${m.kind === "bomb" || m.kind === "rocket" ? "boom" : ""}`,
      "data-testid": `last-play-${seat}`, "data-ranks": m.ranks },
    h("div", { class: "cards fan play-fan", style: { "--n": m.cards.length } }, ddzSorted(m.cards).map((c) => cardEl(c, { size: "sm" }))),
    h("div", { class: "kind" }, KIND[m.kind] || m.kind));
  },

  badges(ctx, seat) {
    const s = seatView(ctx, seat);
    const out = [];
    if (!s) return out;
    if (s.role === "landlord") out.push(h("span", { class: "badge landlord", "data-testid": `landlord-${seat}`, title: "landlord (地主)" }, "♛ landlord"));
    else if (s.role === "peasant") out.push(h("span", { class: "badge peasant", title: "peasant (农民)" }, "peasant"));
    if (seat === ctx.me && ctx.view.hand && ctx.view.hand.length) out.push(h("span", { class: "badge" }, `${ctx.view.hand.length} cards`));
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
    if (!v) return h("div", { class: "board-area" }, h("div", { class: "street" }, "Dou Dizhu"));
    const bottom = v.bottom
      ? v.bottom.map((c) => cardEl(c, { size: "sm" }))
      : [cardEl(null, { size: "sm" }), cardEl(null, { size: "sm" }), cardEl(null, { size: "sm" })];
    const parts = [
      h("div", { class: "ddz-top" },
        h("div", { class: "bottom-cards" }, h("div", { class: "cards", "data-testid": "bottom-cards" }, bottom),
          h("div", { class: "muted small" }, "bottom")),
        h("div", { class: "multiplier", "data-testid": "multiplier", title: "multiplier so far" }, `×${v.multiplier}`)),
    ];
    if (v.is_over && v.result) parts.push(resultNode(ctx, v.result, narrow() && !ctx.last));
    else if (v.phase === "bidding") {
      const b = v.bidding;
      parts.push(h("div", { class: "street" }, b.style === "rob"
        ? `Calling the landlord${b.robs ? ` · robbed ×${b.robs}` : ""}`
        : `Bidding${b.high_bid ? ` · high bid ${b.high_bid}` : ""}`));
    } else {
      const who = v.to_act === null ? "" : v.to_act === ctx.me ? "You" : ctx.name(v.to_act);
      parts.push(h("div", { class: "street" }, v.to_beat ? `${who} to beat ${ctx.name(v.to_beat.seat)}` : `${who} ${who === "You" ? "lead" : "leads"}`));
    }
    return h("div", { class: "board-area" }, parts);
  },

  mine(ctx) {
    const v = ctx.view;
    if (!v || !v.hand || ctx.me === null) return null;
    const sel = selection(ctx);
    const cards = ddzSorted(v.hand);
    const hand = h("div", { class: "my-hand", "data-testid": "my-hand", "data-count": cards.length });
    hand.style.setProperty("--n", String(cards.length));
    // the bottom cards the landlord just took stand out for a moment
    const fresh = ctx.ui.fresh && ctx.ui.fresh.hand === ctx.snap.hand_no && Date.now() < ctx.ui.fresh.until
      ? new Set(ctx.ui.fresh.cards) : new Set();
    for (const c of cards) {
      const el = cardEl(c, { size: "lg", cls: `${sel.has(c) ? "selected" : ""} ${fresh.has(c) ? "fresh" : ""}` });
      el.setAttribute("data-testid", "hand-card");
      el.setAttribute("role", "button");
      el.tabIndex = 0;
      const toggle = () => {
        if (sel.has(c)) sel.delete(c); else sel.add(c);
        el.classList.toggle("selected", sel.has(c));
        updatePlayButton(ctx);
      };
      el.addEventListener("click", toggle);
      el.addEventListener("keydown", (e) => { if (e.key === " " || e.key === "Enter") { e.preventDefault(); toggle(); } });
      hand.append(el);
    }
    return h("div", { class: "hand-area" }, counter(ctx), hand);
  },

  track(ev, ctx) {
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
        row.append(h("button", { class: "btn act fold", "data-testid": "act-pass", onclick: () => ctx.act({ type: "pass" }) }, "No bid"));
        for (const b of legal.bids || []) {
          row.append(h("button", { class: "btn act bid", "data-testid": `bid-${b}`, onclick: () => ctx.act({ type: "bid", value: b }) }, `${b} point${b > 1 ? "s" : ""}`));
        }
      } else {
        row.append(h("button", { class: "btn act fold", "data-testid": "act-pass", onclick: () => ctx.act({ type: "pass" }) }, "Pass"));
        if (legal.can_call) row.append(h("button", { class: "btn act bid", "data-testid": "act-call", onclick: () => ctx.act({ type: "call" }) }, "Call landlord"));
        if (legal.can_rob) row.append(h("button", { class: "btn act bid", "data-testid": "act-rob", onclick: () => ctx.act({ type: "rob" }) }, "Rob landlord"));
      }
      bar.append(h("div", { class: "muted small" }, "Your bid:"), row);
      return bar;
    }
    const sel = selection(ctx);
    if (legal.can_pass && !(legal.plays || []).length) {
      // nothing in the hand beats the table: passing is the only move
      row.append(h("button", { class: "btn act fold", "data-testid": "act-pass", onclick: () => ctx.act({ type: "pass" }) }, "Pass"));
      bar.append(h("div", { class: "muted small", "data-testid": "play-info" },
        `Nothing in your hand beats ${ctx.name(legal.to_beat.seat)}'s ${KIND[legal.to_beat.kind] || legal.to_beat.kind} (${ddzRanksText(legal.to_beat.ranks)}): pass.`), row);
      return bar;
    }
    if (legal.can_pass) row.append(h("button", { class: "btn act fold", "data-testid": "act-pass", onclick: () => ctx.act({ type: "pass" }) }, "Pass"));
    row.append(h("button", { class: "btn act", "data-testid": "act-hint", onclick: () => hint(ctx) }, "Hint"));
    row.append(h("button", { class: "btn act ghost", "data-testid": "act-clear", onclick: () => { sel.clear(); ctx.rerender(); } }, "Clear"));
    row.append(h("button", { class: "btn act raise", "data-testid": "act-play", disabled: sel.size === 0,
      onclick: () => {
        if (!sel.size) return;
        ctx.act({ type: "play", cards: [...sel] });
      } }, "Play"));
    const info = legal.must_lead
      ? "You lead: play any combination."
      : `Beat ${ctx.name(legal.to_beat.seat)}'s ${KIND[legal.to_beat.kind] || legal.to_beat.kind} (${ddzRanksText(legal.to_beat.ranks)})${legal.plays.length ? "" : " — nothing in your hand beats it"}.`;
    bar.append(h("div", { class: "muted small", "data-testid": "play-info" }, info), row);
    return bar;
  },

  opening(ctx) {
    const v = ctx.view;
    return v.hand ? [[`You hold ${v.hand.length} cards`, "mine"]] : [];
  },

  describe(ev, ctx) {
    const n = (s) => ctx.name(s);
    switch (ev.type) {
      case "deal": return ev.cards ? [`You are dealt ${ev.cards.length} cards`, "mine"] : null;
      case "bid": return `${n(ev.seat)} bids ${ev.value}`;
      case "call": return `${n(ev.seat)} calls for landlord (×${ev.multiplier})`;
      case "rob": return `${n(ev.seat)} robs the landlord (×${ev.multiplier})`;
      case "pass": return ev.phase === "bidding" ? `${n(ev.seat)} passes` : `${n(ev.seat)} passes`;
      case "redeal": return ["Everybody passed: the cards are dealt again", "warn"];
      case "landlord": return [`${n(ev.seat)} is the landlord and takes ${ddzRanksText(ev.bottom_ranks)} (×${ev.multiplier})`, "board"];
      case "play": return `${n(ev.seat)} plays ${KIND[ev.kind] || ev.kind}: ${ddzRanksText(ev.ranks)} (${ev.cards_left} left)`;
      case "trick_won": return [`${n(ev.seat)} wins the trick and leads`, "board"];
      case "hand_over": {
        const side = ev.winner === "landlord" ? `${n(ev.landlord)} (landlord) wins` : "The peasants win";
        return [`${side}: ×${ev.multiplier.final}, ${ev.chips.map((c, s) => (c === null ? null : `${n(s)} ${c >= 0 ? "+" : ""}${chips(c)}`)).filter(Boolean).join(", ")}`, "win"];
      }
      default: return null;
    }
  },

  summary,
  resultBelow,

  notice(ev, ctx) {
    if (ev.type === "landlord") return `${ctx.name(ev.seat)} is the landlord`;
    if (ev.type === "play" && (ev.kind === "bomb" || ev.kind === "rocket")) return `${ctx.name(ev.seat)}: ${KIND[ev.kind]}! Stakes double.`;
    return null;
  },
};

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
        : "out of cards"))))));
}

const FRESH_MS = 4000;
const COUNTED = [["R", "Red joker", 1], ["B", "Black joker", 1], ["2", "2", 4], ["A", "A", 4], ["K", "K", 4]];

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
  const items = COUNTED.map(([r, label, total]) => {
    const out = total - (gone.get(r) || 0);
    return h("span", { class: `counter-item ${out ? "" : "none"}`, "data-rank": r, "data-out": out,
      title: `${label}: ${out} still out` }, total === 1 ? (r === "R" ? "RJ" : "BJ") : `${label}×${out}`);
  });
  return h("div", { class: "card-counter", "data-testid": "card-counter" }, h("span", { class: "muted" }, "Still out:"), items);
}

function updatePlayButton(ctx) {
  const btn = document.querySelector("[data-testid=act-play]");
  if (btn) btn.disabled = ctx.ui.selected.size === 0;
}

function hint(ctx) {
  const v = ctx.view;
  const plays = v.legal.plays || [];
  if (!plays.length) {
    ctx.toast(v.legal.can_pass ? "Nothing in your hand beats it: pass." : "No play found.", "info");
    return;
  }
  const turn = `${ctx.snap.hand_no}:${(v.history || []).length}`;
  if (ctx.ui.hintTurn !== turn) { ctx.ui.hintTurn = turn; ctx.ui.hint = -1; } // a new turn: first hint again
  ctx.ui.hint = (ctx.ui.hint + 1) % plays.length;
  const ids = ddzCardsFor(plays[ctx.ui.hint].ranks, v.hand) || [];
  ctx.ui.selected = new Set(ids);
  ctx.rerender();
}

function narrow() { return window.innerWidth <= 600; }

/** On a phone the score table goes under the felt, where the action bar was (no room in the middle). */
function resultBelow(ctx) {
  const v = ctx.view;
  if (!narrow() || !v || !v.is_over || !v.result || v.result.type !== "hand_over") return null;
  return h("div", { class: "action-bar result-below" }, resultNode(ctx, v.result, false, "result-table"), summary(ctx));
}

function resultNode(ctx, r, compact = false, testid = "result") {
  if (r.type === "redeal") {
    return h("div", { class: "result", "data-testid": "result" }, "Everybody passed: new deal coming");
  }
  const m = r.multiplier;
  const factors = [`bid ×${m.bidding}`];
  if (m.bombs) factors.push(`${m.bombs} bomb${m.bombs > 1 ? "s" : ""} ×${2 ** m.bombs}`);
  if (m.rockets) factors.push("rocket ×2");
  if (m.spring) factors.push("spring ×2");
  if (m.anti_spring) factors.push("anti-spring ×2");
  if (m.capped) factors.push(`capped at ${m.cap}`);
  const head = r.winner === "landlord" ? `${ctx.name(r.landlord)} (landlord) wins` : "The peasants win";
  if (compact) {
    return h("div", { class: "result ddz-result compact", "data-testid": "result", title: head },
      h("div", { class: "result-head" }, `${r.winner === "landlord" ? "Landlord wins" : "Peasants win"} · ×${m.final}`));
  }
  const rows = [];
  r.points.forEach((p, seat) => {
    if (p === null || p === undefined) return;
    rows.push(h("tr", { class: r.chips[seat] > 0 ? "plus" : "minus" },
      h("td", {}, ctx.name(seat), seat === r.landlord ? " ♛" : ""),
      h("td", {}, `${p > 0 ? "+" : ""}${p}`),
      h("td", {}, `${r.chips[seat] > 0 ? "+" : ""}${chips(r.chips[seat])}`)));
  });
  return h("div", { class: "result ddz-result", "data-testid": testid },
    h("div", { class: "result-head" }, head),
    h("div", { class: "small" }, `${factors.join(" · ")} = ×${m.final}`),
    h("table", { class: "score" },
      h("thead", {}, h("tr", {}, h("th", {}, ""), h("th", {}, "points"), h("th", {}, "chips"))),
      h("tbody", {}, rows)),
    r.short ? h("div", { class: "muted small" }, "A loser could not cover the full amount: payments were capped at their stack.") : null);
}
