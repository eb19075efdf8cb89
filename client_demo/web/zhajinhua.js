// The Zha Jin Hua (炸金花) table: blind or seen status per player, a "Look" button, call
// and raise (to the allowed unit stakes) with the cost for blind vs seen, compare with a
// chosen opponent, fold, all-in; compare results only as far as the rules reveal them
// (the server's view carries exactly the cards this seat may see).
//
// View and legal wire formats: engine/zhajinhua/view.py and engine/zhajinhua/legal.py.

import { h, chips, readable } from "./dom.js";
import { cardEl, cardsText } from "./cards.js";

const STATUS = { folded: "folded", lost: "lost", out: "sitting out" };

function seatView(ctx, seat) {
  const v = ctx.view;
  return v && v.seats ? v.seats[seat] : null;
}

export default {
  stakes(ctx) {
    const c = ctx.snap.config || {};
    return `Zha Jin Hua · ante ${chips(c.ante)} · max stake ${chips(c.max_stake)}`;
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

  betMarker(ctx, seat) {
    const s = seatView(ctx, seat);
    if (!s || !s.paid || ctx.view.is_over) return null;
    return h("div", { class: "bet", "data-testid": `bet-${seat}` }, h("span", { class: "chip-icon" }), chips(s.paid));
  },

  badges(ctx, seat) {
    const v = ctx.view;
    const out = [];
    if ((v ? v.button : ctx.snap.button) === seat) out.push(h("span", { class: "dealer", title: "dealer" }, "D"));
    const s = seatView(ctx, seat);
    if (s && s.dealt_in) {
      out.push(s.seen
        ? h("span", { class: "badge seen", "data-testid": `seen-${seat}` }, "seen")
        : h("span", { class: "badge blind", "data-testid": `blind-${seat}` }, "blind"));
      if (STATUS[s.status]) out.push(h("span", { class: `badge ${s.status}`, "data-testid": `status-${seat}` }, STATUS[s.status]));
    }
    return out;
  },

  seatState(ctx, seat) {
    const v = ctx.view;
    const s = seatView(ctx, seat);
    if (!s) return {};
    const winner = v.is_over && v.winner === seat;
    const paid = (v.payouts || []).find((p) => p.seat === seat);
    let note = s.cards ? readable(s.description) : null;
    if (winner && paid) note = `wins ${chips(paid.amount)}`;
    else if (!note && !v.is_over && s.status === "playing" && ctx.ui.acts && ctx.ui.acts[seat]) note = ctx.ui.acts[seat];
    return { winner, out: s.status !== "playing" && !winner, note };
  },

  center(ctx) {
    const v = ctx.view;
    if (!v) return h("div", { class: "board-area" }, h("div", { class: "street" }, "Zha Jin Hua"));
    const parts = [
      v.is_over ? null : h("div", { class: "street" }, `Round ${v.round} of ${v.max_rounds}`),
      h("div", { class: "pot", "data-testid": "pot", "data-amount": v.pot }, `Pot ${chips(v.pot)}`),
      v.is_over ? null : h("div", { class: "stake-line", "data-testid": "stake" },
        ctx.narrow ? `Stake ${chips(v.stake)} · blind ${chips(v.stake)} · seen ${chips(2 * v.stake)}`
          : `Stake ${chips(v.stake)}: blind pays ${chips(v.stake)}, seen pays ${chips(2 * v.stake)}`),
    ];
    if (v.is_over && v.winner !== null && v.winner !== undefined) {
      const total = (v.payouts || []).reduce((a, p) => a + p.amount, 0);
      parts.push(h("div", { class: "result", "data-testid": "result" }, `${ctx.name(v.winner)} wins ${chips(total)}`));
    } else if (ctx.ui.lastCompare && ctx.ui.lastCompare.hand === ctx.snap.hand_no) {
      parts.push(h("div", { class: "last-compare", "data-testid": "last-compare", title: ctx.ui.lastCompare.full }, `Compare: ${ctx.ui.lastCompare.text}`));
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
      row.append(h("button", { class: "btn act look", "data-testid": "act-look", onclick: () => ctx.act({ type: "look" }) }, "Look at cards"));
    }
    if (!myTurn) {
      bar.append(row, h("div", { class: "muted hint", "data-testid": "waiting" }, `Waiting for ${ctx.name(v.to_act)}… You may look at your cards any time.`));
      return bar;
    }
    const unit = me.seen ? 2 : 1;
    bar.append(h("div", { class: "muted small cost-line", "data-testid": "cost-line" },
      me.seen
        ? `You have seen your cards: you pay twice the stake (${chips(2 * v.stake)} to call).`
        : `You are playing blind: you pay the stake (${chips(v.stake)} to call); after looking you pay double.`));
    if (legal.fold) row.append(h("button", { class: "btn act fold", "data-testid": "act-fold", onclick: () => ctx.act({ type: "fold" }) }, "Fold"));
    if (legal.call) {
      row.append(h("button", { class: "btn act call", "data-testid": "act-call", onclick: () => ctx.act({ type: "call" }) },
        `Call ${chips(legal.call.cost)}`));
    }
    if (legal.all_in) {
      row.append(h("button", { class: "btn act raise", "data-testid": "act-allin", onclick: () => ctx.act({ type: "all_in" }) },
        `All-in ${chips(legal.all_in.amount)} & compare`));
    }
    bar.append(row);
    if (legal.raise) bar.append(raisePanel(ctx, legal.raise, unit));
    if (legal.compare) {
      bar.append(h("div", { class: "row compare-row" },
        h("span", { class: "muted small" }, `Compare (${chips(legal.compare.cost)}):`),
        legal.compare.targets.map((t) => h("button", { class: "btn act compare", "data-testid": `compare-${t}`,
          onclick: () => ctx.act({ type: "compare", target: t }) }, `vs ${ctx.name(t)}`))));
    }
    return bar;
  },

  track(ev, ctx) {
    const acts = ctx.ui.acts = ctx.ui.acts || {};
    const word = {
      look: "Looked", call: `Call ${chips(ev.amount)}`, raise: `Raise to ${chips(ev.stake)}`,
      all_in: `All-in ${chips(ev.amount)}`, compare: "Compared",
    }[ev.type];
    if (word && ev.seat !== undefined) acts[ev.seat] = word;
  },

  opening(ctx) {
    const v = ctx.view;
    return [`Round ${v.round}, stake ${chips(v.stake)}, pot ${chips(v.pot)}`];
  },

  describe(ev, ctx) {
    const n = (s) => ctx.name(s);
    switch (ev.type) {
      case "hand_start": return `Antes of ${chips(ev.ante)} in: pot ${chips(ev.pot)}`;
      case "look": return ev.cards ? [`You look: ${cardsText(ev.cards)}`, "mine"] : `${n(ev.seat)} looks at their cards`;
      case "call": return `${n(ev.seat)} calls ${chips(ev.amount)} (${ev.seen ? "seen" : "blind"})`;
      case "raise": return `${n(ev.seat)} raises the stake to ${chips(ev.stake)}, paying ${chips(ev.amount)} (${ev.seen ? "seen" : "blind"})`;
      case "fold": return `${n(ev.seat)} folds`;
      case "all_in": return `${n(ev.seat)} goes all-in with ${chips(ev.amount)}`;
      case "compare": {
        const text = `${n(ev.seat)} compares with ${n(ev.target)}: ${n(ev.winner)} wins, ${n(ev.loser)} is out`;
        ctx.ui.lastCompare = { hand: ctx.snap.hand_no, text: `${n(ev.winner)} beat ${n(ev.loser)}`, full: text };
        return [text, "warn"];
      }
      case "compare_reveal":
        return ev.hands ? [`You see: ${ev.hands.map((x) => `${n(x.seat)} ${cardsText(x.cards)}`).join(", ")}`, "mine"] : null;
      case "showdown":
        return [`Showdown: ${ev.hands.map((x) => `${n(x.seat)} ${cardsText(x.cards)} (${readable(x.description)})`).join(" · ")}`, "board"];
      case "hand_over":
        return [`${n(ev.winner)} wins ${ev.payouts.map((p) => `${chips(p.amount)}${p.seat !== ev.winner ? ` (${n(p.seat)})` : ""}`).join(", ")}`, "win"];
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
        h("td", {}, s.cards ? readable(s.description) : STATUS[s.status] || ""),
        h("td", {}, paid ? `+${chips(paid.amount)}` : ""));
    });
    return h("table", { class: "score summary", "data-testid": "last-hand-seats" }, h("tbody", {}, rows));
  },

  notice(ev, ctx) {
    if (ev.type === "compare") return `${ctx.name(ev.seat)} compared with ${ctx.name(ev.target)}: ${ctx.name(ev.winner)} wins`;
    return null;
  },
};

function raisePanel(ctx, raise, unit) {
  const key = `${ctx.snap.hand_no}:${ctx.view.stake}:${unit}`;
  if (ctx.ui.raiseKey !== key) { ctx.ui.raiseKey = key; ctx.ui.raiseStake = raise.min; }
  const clamp = (x) => Math.min(raise.max, Math.max(raise.min, Math.round(x)));
  let stake = clamp(ctx.ui.raiseStake);
  const go = h("button", { class: "btn act raise", "data-testid": "act-raise",
    onclick: () => ctx.act({ type: "raise", stake }) });
  const slider = h("input", { type: "range", min: raise.min, max: raise.max, step: 1, value: stake,
    "data-testid": "raise-slider", "aria-label": "new stake" });
  const set = (x) => {
    stake = clamp(x);
    ctx.ui.raiseStake = stake;
    slider.value = String(stake);
    go.textContent = `Raise stake to ${chips(stake)} (pay ${chips(stake * unit)})`;
  };
  slider.addEventListener("input", () => set(Number(slider.value)));
  set(stake);
  const double = clamp(ctx.view.stake * 2);
  return h("div", { class: "raise-panel" },
    h("div", { class: "row quicks" },
      h("button", { class: "btn quick", "data-testid": "raise-min", onclick: () => set(raise.min) }, `Stake ${chips(raise.min)}`),
      double > raise.min ? h("button", { class: "btn quick", "data-testid": "raise-double", onclick: () => set(double) }, `×2 (${chips(double)})`) : null,
      h("button", { class: "btn quick", "data-testid": "raise-max", onclick: () => set(raise.max) }, `Max ${chips(raise.max)}`)),
    h("div", { class: "row slider-row" }, slider, go));
}
