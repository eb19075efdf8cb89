// Provably fair deals, scheme cardroom-v1 (docs/fairness.md): the browser's side.
//
// Before a hand the server publishes sha256(server_seed) (the commitment); the deck is a
// Fisher–Yates shuffle driven by HMAC-SHA256(server_seed, "cardroom-v1|room|hand|seeds|n");
// after the hand the server reveals its seed. verifyHand() recomputes the deck here, in the
// page, and checks every card this browser saw against it. engine/fairness.py is the
// Python twin; both reproduce the worked example of docs/fairness.md.
//
// Web Crypto (crypto.subtle) does the hashing. It exists only in secure contexts (https,
// or http on localhost); a page opened over plain http from another machine falls back to
// the small SHA-256 below, so Verify works there too.

import { cardText } from "./cards.js";
import { tIn } from "./i18n.js";
import { gameModule, loadGame } from "./games.js";

export const SCHEME = "cardroom-v1";
const TWO32 = 2 ** 32;
const SEED_RE = /^[A-Za-z0-9_-]{1,64}$/;
const HEX64_RE = /^[0-9a-fA-F]{64}$/;

// --- bytes and hashes ----------------------------------------------------------------------

function seedBytes(serverSeedHex) {
  if (typeof serverSeedHex !== "string" || !HEX64_RE.test(serverSeedHex)) {
    throw new Error("a server seed is 64 hex digits (32 bytes)");
  }
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) out[i] = parseInt(serverSeedHex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

function toHex(bytes) {
  return Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("");
}

function subtle() {
  return (globalThis.crypto && globalThis.crypto.subtle) || null;
}

async function sha256(bytes) {
  const s = subtle();
  return s ? new Uint8Array(await s.digest("SHA-256", bytes)) : sha256js(bytes);
}

/** An HMAC-SHA256 signer keyed by `key`: (message bytes) => Promise<32 bytes>. */
async function hmacSigner(key) {
  const s = subtle();
  if (s) {
    const k = await s.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    return async (msg) => new Uint8Array(await s.sign("HMAC", k, msg));
  }
  return async (msg) => hmacjs(key, msg);
}

// SHA-256 (FIPS 180-4) for pages without crypto.subtle. Plain 32-bit arithmetic (>>> 0).
const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

export function sha256js(data) {
  const bytes = new Uint8Array(data);
  const padded = new Uint8Array(Math.ceil((bytes.length + 9) / 64) * 64);
  padded.set(bytes);
  padded[bytes.length] = 0x80;
  const bits = bytes.length * 8;
  const dv = new DataView(padded.buffer);
  dv.setUint32(padded.length - 8, Math.floor(bits / TWO32));
  dv.setUint32(padded.length - 4, bits % TWO32);
  const hs = new Uint32Array([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
  const w = new Uint32Array(64);
  const rot = (x, n) => (x >>> n) | (x << (32 - n));
  for (let off = 0; off < padded.length; off += 64) {
    for (let t = 0; t < 16; t++) w[t] = dv.getUint32(off + 4 * t);
    for (let t = 16; t < 64; t++) {
      const s0 = rot(w[t - 15], 7) ^ rot(w[t - 15], 18) ^ (w[t - 15] >>> 3);
      const s1 = rot(w[t - 2], 17) ^ rot(w[t - 2], 19) ^ (w[t - 2] >>> 10);
      w[t] = (w[t - 16] + s0 + w[t - 7] + s1) >>> 0;
    }
    let [a, b, c, d, e, f, g, hh] = hs;
    for (let t = 0; t < 64; t++) {
      const t1 = (hh + (rot(e, 6) ^ rot(e, 11) ^ rot(e, 25)) + ((e & f) ^ (~e & g)) + K[t] + w[t]) >>> 0;
      const t2 = ((rot(a, 2) ^ rot(a, 13) ^ rot(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) >>> 0;
      hh = g; g = f; f = e; e = (d + t1) >>> 0; d = c; c = b; b = a; a = (t1 + t2) >>> 0;
    }
    [a, b, c, d, e, f, g, hh].forEach((x, i) => { hs[i] = (hs[i] + x) >>> 0; });
  }
  const out = new Uint8Array(32);
  const ov = new DataView(out.buffer);
  hs.forEach((x, i) => ov.setUint32(4 * i, x));
  return out;
}

export function hmacjs(key, msg) {
  let k = new Uint8Array(key);
  if (k.length > 64) k = sha256js(k);
  const ipad = new Uint8Array(64 + msg.length);
  const opad = new Uint8Array(64 + 32);
  for (let i = 0; i < 64; i++) {
    ipad[i] = (k[i] || 0) ^ 0x36;
    opad[i] = (k[i] || 0) ^ 0x5c;
  }
  ipad.set(new Uint8Array(msg), 64);
  opad.set(sha256js(ipad), 64);
  return sha256js(opad);
}

// --- the scheme ----------------------------------------------------------------------------

/** sha256 of the seed's 32 bytes, lowercase hex: what the server publishes before the deal. */
export async function commitment(serverSeedHex) {
  return toHex(await sha256(seedBytes(serverSeedHex)));
}

/** The HMAC message of block `counter` (client seeds in seat order, "" for none). */
export function message(room, handNo, clientSeeds, counter) {
  return `${SCHEME}|${room}|${handNo}|${clientSeeds.join(",")}|${counter}`;
}

/** A player's seed: 1 to 64 characters of A-Z a-z 0-9 _ -. */
export function isClientSeed(seed) {
  return typeof seed === "string" && SEED_RE.test(seed);
}

/**
 * The hand's deck: card ids 0..size-1 in the order they are dealt from.
 * Fisher–Yates from the back; each swap index is the next stream number u below
 * 2^32 - 2^32 mod n (rejection sampling, so u mod n is uniform), taken mod n.
 */
export async function deriveDeck(serverSeedHex, room, handNo, clientSeeds, size) {
  for (const s of clientSeeds) {
    if (s !== "" && !isClientSeed(s)) throw new Error(`not a client seed: ${JSON.stringify(s)}`);
  }
  const sign = await hmacSigner(seedBytes(serverSeedHex));
  const encoder = new TextEncoder();
  let counter = 0;
  let block = null;
  let pos = 8;
  const next = async () => {
    if (pos === 8) {
      block = new DataView((await sign(encoder.encode(message(room, handNo, clientSeeds, counter)))).buffer);
      counter += 1;
      pos = 0;
    }
    const u = block.getUint32(4 * pos); // big-endian, unsigned: 0 .. 2^32-1 as a plain number
    pos += 1;
    return u;
  };
  const deck = Array.from({ length: size }, (_, i) => i);
  for (let i = size - 1; i >= 1; i--) {
    const n = i + 1;
    const limit = TWO32 - (TWO32 % n);
    let u = await next();
    while (u >= limit) u = await next();
    const j = u % n;
    [deck[i], deck[j]] = [deck[j], deck[i]];
  }
  return deck;
}

/**
 * Where `game`'s dealing rule puts the cards of `deck` (`dealOrder`: the dealt seats in the
 * order they receive cards): {hands: {seat: [cards]}, and any other piles: board, bottom}.
 * The rule is the game's table module's `fair.layout(deck, dealOrder)` (the page's copy of
 * the engine's `Game.layout`); resolves once that module has loaded.
 */
export async function layout(game, deck, dealOrder) {
  const module = await loadGame(game);
  if (!module || !module.fair || !module.fair.layout) throw new Error(`no dealing rule for ${game}`);
  return module.fair.layout(deck, dealOrder);
}

// --- what a viewer saw ---------------------------------------------------------------------

/**
 * What the game's table module says a viewer saw (`fair.seenFromEvent(ev, add)` or
 * `fair.seenFromView(view, mySeat, add)`, which call `add(seat, cards, kind)` for each
 * sighting), as "seen" entries {seat, cards, kind}; nothing while the module loads.
 */
function sightings(game, hook, ...args) {
  const out = [];
  const add = (seat, cards, kind) => {
    if (Array.isArray(cards) && cards.length) out.push({ seat: seat ?? null, cards: [...cards], kind });
  };
  const module = gameModule(game);
  const fair = module && module.fair;
  if (fair && fair[hook]) fair[hook](...args, add);
  return out;
}

/**
 * The cards an event of the hand shows this viewer, as "seen" entries {seat, cards, kind}:
 * kinds "dealt" (own cards), "shown" (showdown, compare, Dou Dizhu's open hand), "board" (the whole board so far,
 * in order), "bottom" (Dou Dizhu; seat = the landlord), "played", "left" (Dou Dizhu's cards
 * left in a hand at the end). Events filtered for another viewer lack the cards: nothing.
 */
export function seenFromEvent(game, ev) {
  return sightings(game, "seenFromEvent", ev);
}

/** The cards a `room` snapshot's view shows its viewer (after a reload, events are gone). */
export function seenFromView(game, view, mySeat) {
  return view ? sightings(game, "seenFromView", view, mySeat) : [];
}

// --- checking a hand -----------------------------------------------------------------------

const VERB = { dealt: "fair.verb_dealt", held: "fair.verb_held", shown: "fair.verb_shown", played: "fair.verb_played", left: "fair.verb_left" };
const english = (key, params) => tIn("en", key, params);

/**
 * Check a finished hand against its published commitment and the revealed seed.
 *
 * `fairness`: the `fairness` of the hand's hand_started event; `reveal`: the `fairness` of
 * its hand_ended event (or anything with `server_seed`); `seen`: entries
 * {seat|null, cards, kind} (see seenFromEvent). Optional: `name(seat)` for the reasons'
 * wording, `mine` = {seat, seeds} (the seeds this browser sent for that seat) to check
 * that the deal used one of them, and `say(key, params)` for the language of the reasons
 * (i18n.js keys `fair.*`; English by default).
 * Resolves to {ok, reason}; never rejects.
 */
export async function verifyHand({ game, room, handNo, fairness, reveal, seen = [], name = null, mine = null, say = english }) {
  const fail = (key, params) => ({ ok: false, reason: say(key, params) });
  const seatLabel = (seat) => (name ? name(seat) : say("fair.seat", { n: seat }));
  const place = (i) => (i < 5 ? say(`fair.place${i}`) : say("fair.place_n", { n: i + 1 }));
  const whereIs = (c, lay) => {
    for (const [seat, cards] of Object.entries(lay.hands)) {
      if (cards.includes(c)) return say("fair.where_seat", { who: seatLabel(Number(seat)) });
    }
    if (lay.board && lay.board.includes(c)) return say("fair.where_board", { place: place(lay.board.indexOf(c)) });
    if (lay.bottom && lay.bottom.includes(c)) return say("fair.where_bottom");
    return say("fair.where_none");
  };
  const verb = (kind) => say(VERB[kind] || "fair.verb_had");
  try {
    if (!fairness || !fairness.commitment) return fail("fair.no_commitment");
    if (fairness.scheme !== SCHEME) return fail("fair.unknown_scheme", { scheme: JSON.stringify(fairness.scheme) });
    const seed = reveal && reveal.server_seed;
    if (!seed) return fail("fair.not_revealed");
    if (!HEX64_RE.test(seed)) return fail("fair.bad_seed");
    if (reveal.commitment && reveal.commitment !== fairness.commitment) {
      return fail("fair.commitment_changed", { end: short(reveal.commitment), deal: short(fairness.commitment) });
    }
    const hash = await commitment(seed);
    if (hash !== String(fairness.commitment).toLowerCase()) {
      return fail("fair.hash_mismatch", { hash: short(hash), commit: short(fairness.commitment) });
    }
    const seeds = (fairness.seeds || []).map((s) => s.seed ?? "");
    if (mine && mine.seeds && mine.seeds.length) {
      const entry = (fairness.seeds || []).find((s) => s.seat === mine.seat);
      if (entry && !mine.seeds.includes(entry.seed)) {
        return fail("fair.foreign_seed", { seed: JSON.stringify(entry.seed) });
      }
    }
    const size = fairness.deck_size || 52;
    // a league match's rooms derive their decks from the match id (the proof's context)
    const deck = await deriveDeck(seed, fairness.context || room, handNo, seeds, size);
    const lay = await layout(game, deck, fairness.deal_order || []);
    const cardName = cardNamer(game);  // the game's names for its cards (loaded by layout)
    const checked = new Set();

    // a bottom pile (Dou Dizhu's) joins the hand of the seat that took it (the landlord)
    let landlord = null;
    for (const e of seen) {
      if (e.kind !== "bottom") continue;
      const want = [...lay.bottom].sort((a, b) => a - b);
      const got = [...e.cards].sort((a, b) => a - b);
      for (const c of e.cards) {
        checked.add(c);
        if (!lay.bottom.includes(c)) return fail("fair.bottom_card", { card: cardName(c), where: whereIs(c, lay) });
      }
      if (got.join() !== want.join()) return fail("fair.bottom_set", { got: got.map(cardName).join(" "), want: want.map(cardName).join(" ") });
      if (e.seat !== null && e.seat !== undefined) landlord = e.seat;
    }
    for (const e of seen) {
      if (e.kind === "bottom") continue;
      if (e.kind === "board") {
        const board = lay.board || [];
        for (let i = 0; i < e.cards.length; i++) {
          const c = e.cards[i];
          checked.add(c);
          if (board[i] !== c) {
            return fail("fair.board_card", { card: cardName(c), place: place(i), want: board[i] === undefined ? say("fair.nothing") : cardName(board[i]) });
          }
        }
        continue;
      }
      const seat = e.seat;
      const dealt = lay.hands[seat];
      const label = seatLabel(seat);
      if (!dealt) return fail("fair.no_deal", { who: label, verb: verb(e.kind), cards: (e.cards || []).map(cardName).join(" ") });
      const allowed = new Set(dealt);
      if (seat === landlord && lay.bottom) for (const c of lay.bottom) allowed.add(c);
      for (const c of e.cards) {
        checked.add(c);
        if (!allowed.has(c)) {
          return fail("fair.not_dealt", { who: label, verb: verb(e.kind), card: cardName(c), where: whereIs(c, lay) });
        }
      }
    }
    const n = checked.size;
    return { ok: true, reason: say("fair.checked", { n, commit: short(fairness.commitment) }), cards: n };
  } catch (err) {
    return fail("fair.error", { msg: err && err.message ? err.message : err });
  }
}

function short(hex) {
  return `${String(hex).slice(0, 8)}…`;
}

/**
 * How the reasons name `game`'s cards: its table module's `fair.cardText(id)` where its
 * cards are not the page's 52 and jokers (a plugin's own deck), else the page's names
 * ("A♠", "10♥", the jokers).
 */
function cardNamer(game) {
  const module = gameModule(game);
  return (module && module.fair && module.fair.cardText) || cardText;
}

/** A fresh client seed: 16 random bytes as 22 characters of base64url. */
export function newClientSeed() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}
