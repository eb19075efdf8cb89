// Hold'em hand strength in the page: the best five of 5-7 cards, named the way players
// say it ("Flush, king high"). Only for showing your own hand during play and picking
// the winning five at a showdown; the server's engine decides who wins.
//
// Card ids as in cards.js: rank * 4 + suit, rank 0 = deuce .. 12 = ace.

import { holdemHandName, lang, RANK_WORDS } from "./i18n.js";

/** Category (0 high card .. 8 straight flush) and deciding ranks of exactly five cards. */
function rank5(cards) {
  const ranks = cards.map((c) => c >> 2).sort((a, b) => b - a);
  const flush = cards.every((c) => (c & 3) === (cards[0] & 3));
  const uniq = [...new Set(ranks)];
  let straightHigh = null;
  if (uniq.length === 5) {
    if (uniq[0] - uniq[4] === 4) straightHigh = uniq[0];
    else if (uniq[0] === 12 && uniq[1] === 3) straightHigh = 3; // A-2-3-4-5, five high
  }
  const counts = new Map();
  for (const r of ranks) counts.set(r, (counts.get(r) || 0) + 1);
  // ranks grouped by count, then by rank: [[rank, count], ...]
  const groups = [...counts.entries()].sort((a, b) => b[1] - a[1] || b[0] - a[0]);
  const byGroup = groups.map((g) => g[0]);
  if (straightHigh !== null && flush) return { cat: 8, ranks: [straightHigh] };
  if (groups[0][1] === 4) return { cat: 7, ranks: byGroup };
  if (groups[0][1] === 3 && groups[1][1] === 2) return { cat: 6, ranks: byGroup };
  if (flush) return { cat: 5, ranks };
  if (straightHigh !== null) return { cat: 4, ranks: [straightHigh] };
  if (groups[0][1] === 3) return { cat: 3, ranks: byGroup };
  if (groups[0][1] === 2 && groups[1][1] === 2) return { cat: 2, ranks: byGroup };
  if (groups[0][1] === 2) return { cat: 1, ranks: byGroup };
  return { cat: 0, ranks };
}

function score(r) {
  return r.ranks.reduce((acc, x) => acc * 16 + x, r.cat) * 16 ** (5 - r.ranks.length);
}

/** The hand in words: "Flush, king high", "Two pair, aces and fours", "Straight, five high" (or 同花，K 高). */
export function handName({ cat, ranks }) {
  return holdemHandName({ cat, ranks });
}

/**
 * The best five of 5 to 7 card ids: {cat, ranks, best (the five ids), value (higher is
 * better), name}. Fewer than five cards (pre-flop): the pair or high card they make.
 */
export function bestHand(cards) {
  const ids = [...cards];
  if (ids.length < 5) {
    const rs = ids.map((c) => c >> 2).sort((a, b) => b - a);
    const r = rs.length === 2 && rs[0] === rs[1] ? { cat: 1, ranks: [rs[0]] } : { cat: 0, ranks: rs };
    return { ...r, best: ids, value: score(r), name: handName(r) };
  }
  let top = null;
  const pick = [];
  const walk = (start) => {
    if (pick.length === 5) {
      const r = rank5(pick);
      const value = score(r);
      if (!top || value > top.value) top = { ...r, best: [...pick], value };
      return;
    }
    for (let i = start; i <= ids.length - (5 - pick.length); i++) {
      pick.push(ids[i]);
      walk(i + 1);
      pick.pop();
    }
  };
  walk(0);
  return { ...top, name: handName(top) };
}

// --- the server's descriptions (engine/holdem/evaluator.py describe) ---------------------

function rankOfWord(w) {
  const x = String(w).toLowerCase();
  if (x === "deuce" || x === "deuces") return 0;
  let i = RANK_WORDS.names.indexOf(x);
  if (i < 0) i = RANK_WORDS.plurals.indexOf(x);
  return i;
}

const PATTERNS = [
  [/^Royal flush$/, () => ({ cat: 8, ranks: [12] })],
  [/^Straight flush, (\w+) high$/, (m) => ({ cat: 8, ranks: [m[1]] })],
  [/^Four of a kind, (\w+), (\w+) kicker$/, (m) => ({ cat: 7, ranks: [m[1]], kickers: [m[2]] })],
  [/^Full house, (\w+) full of (\w+)$/, (m) => ({ cat: 6, ranks: [m[1], m[2]] })],
  [/^Flush, ([\w-]+)$/, (m) => ({ cat: 5, ranks: m[1].split("-") })],
  [/^Straight, (\w+) high$/, (m) => ({ cat: 4, ranks: [m[1]] })],
  [/^Three of a kind, (\w+), ([\w-]+) kickers?$/, (m) => ({ cat: 3, ranks: [m[1]], kickers: m[2].split("-") })],
  [/^Two pair, (\w+) and (\w+), (\w+) kicker$/, (m) => ({ cat: 2, ranks: [m[1], m[2]], kickers: [m[3]] })],
  [/^One pair, (\w+), ([\w-]+) kickers?$/, (m) => ({ cat: 1, ranks: [m[1]], kickers: m[2].split("-") })],
  [/^High card, ([\w-]+)$/, (m) => ({ cat: 0, ranks: m[1].split("-") })],
];

/** A server description as {cat, ranks, kickers} (rank indexes), or null when it is not one. */
export function parseHoldem(text) {
  if (typeof text !== "string") return null;
  for (const [re, make] of PATTERNS) {
    const m = text.match(re);
    if (!m) continue;
    const raw = make(m);
    const ranks = raw.ranks.map((r) => (typeof r === "number" ? r : rankOfWord(r)));
    const kickers = (raw.kickers || []).map(rankOfWord);
    if ([...ranks, ...kickers].some((r) => r < 0)) return null;
    return { cat: raw.cat, ranks, kickers };
  }
  return null;
}

/** A server hand description in the page's language (the whole of it, kickers and all). */
export function fullHand(text) {
  const p = parseHoldem(text);
  if (!p || lang() === "en") return text;
  return holdemHandName(p, { full: true });
}

/** A server hand description cut before its kickers: "One pair, sixes, queen-ten-four kickers" → "One pair, sixes". */
export function shortHand(text) {
  if (!text) return text;
  const p = parseHoldem(text);
  if (p) return holdemHandName({ cat: p.cat, ranks: p.cat === 5 || p.cat === 0 ? p.ranks.slice(0, 1) : p.ranks });
  const parts = text.split(", ");
  if (parts.length < 2) return text;
  if (/-/.test(parts[1])) return `${parts[0]}, ${parts[1].split("-")[0]} high`; // flush, high card
  return `${parts[0]}, ${parts[1]}`;
}
