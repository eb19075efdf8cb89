// Card faces drawn with HTML/CSS (no image assets).
//
// Card ids follow engine/cards.py: id = rank * 4 + suit, rank 0 = deuce .. 12 = ace,
// suit 0..3 = clubs, diamonds, hearts, spades; 52 = black joker, 53 = red joker.

import { h } from "./dom.js";
import { t } from "./i18n.js";

export const SUITS = ["♣", "♦", "♥", "♠"];
export const SUIT_NAMES = ["clubs", "diamonds", "hearts", "spades"];
export const RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"];
export const BLACK_JOKER = 52;
export const RED_JOKER = 53;

export function rankOf(id) { return id >> 2; }
export function suitOf(id) { return id & 3; }

/** Short text for a card id: "A♠", "10♥"; a joker by its name ("Red Joker", 大王). */
export function cardText(id) {
  if (id === BLACK_JOKER) return t("card.black_joker");
  if (id === RED_JOKER) return t("card.red_joker");
  return RANKS[rankOf(id)] + SUITS[suitOf(id)];
}

export function cardsText(ids) {
  return (ids || []).map(cardText).join(" ");
}

/** One card face (or a back when `id` is null). Options: size ("sm", "md", "lg"), extra classes. */
export function cardEl(id, { size = "md", cls = "", testid = null } = {}) {
  const attrs = { class: `card ${size} ${cls}` };
  if (testid) attrs["data-testid"] = testid;
  if (id === null || id === undefined) {
    attrs.class += " back";
    attrs["aria-label"] = t("card.facedown");
    return h("div", attrs, h("div", { class: "back-pattern" }));
  }
  attrs["data-card"] = String(id);
  attrs["aria-label"] = cardText(id);
  attrs.title = cardText(id);
  if (id === BLACK_JOKER || id === RED_JOKER) {
    attrs.class += ` joker ${id === RED_JOKER ? "red" : "black"}`;
    return h("div", attrs,
      // a small card has room for two letters: "JK", one over the other like a rank and suit
      h("div", { class: "corner" }, h("span", { class: "jk" }, size === "sm" || size === "xs" ? "JK" : "JOKER")),
      h("div", { class: "pip joker-pip" }, "★"));
  }
  const suit = suitOf(id);
  attrs.class += ` ${suit === 1 || suit === 2 ? "red" : "black"} ${SUIT_NAMES[suit]}`;
  return h("div", attrs,
    h("div", { class: "corner" },
      h("span", { class: rankOf(id) === 8 ? "rk ten" : "rk" }, RANKS[rankOf(id)]),
      h("span", { class: "st" }, SUITS[suit])),
    h("div", { class: "pip" }, SUITS[suit]));
}

/** A row of cards; `null` entries draw backs. */
export function cardRow(ids, opts = {}) {
  const row = h("div", { class: `cards ${opts.rowCls || ""}` });
  for (const id of ids) row.append(cardEl(id, opts));
  return row;
}

// --- Dou Dizhu ranks: 3 < 4 < ... < A < 2 < black joker < red joker --------------------

export const DDZ_RANKS = "3456789TJQKA2BR";

/** Dou Dizhu rank index (0 = three .. 12 = two, 13/14 = jokers) of a card id. */
export function ddzRank(id) {
  if (id === BLACK_JOKER) return 13;
  if (id === RED_JOKER) return 14;
  return ((id >> 2) + 12) % 13;
}

/** A rank string ("33344455") shown the way players write it ("3 3 3 4 4 4 5 5", 10 for T). */
export function ddzRanksText(ranks) {
  return [...(ranks || "")].map((c) => ({ T: "10", B: t("card.black_joker"), R: t("card.red_joker") }[c] || c)).join(" ");
}

/** Card ids sorted for a Dou Dizhu hand: highest first (red joker, black joker, 2, A, ...). */
export function ddzSorted(ids) {
  return [...ids].sort((a, b) => ddzRank(b) - ddzRank(a) || b - a);
}

/** Pick card ids from `hand` matching a rank string (lowest ids of each rank), or null. */
export function ddzCardsFor(ranks, hand) {
  const byRank = new Map();
  for (const id of [...hand].sort((a, b) => a - b)) {
    const r = DDZ_RANKS[ddzRank(id)];
    if (!byRank.has(r)) byRank.set(r, []);
    byRank.get(r).push(id);
  }
  const out = [];
  for (const c of ranks) {
    const list = byRank.get(c);
    if (!list || !list.length) return null;
    out.push(list.shift());
  }
  return out;
}
