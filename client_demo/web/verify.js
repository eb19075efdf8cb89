// The table's "provably fair" line: the commitment of the hand being played and, once a
// hand is over, a Verify button that checks it in the page (fairness.js) against what this
// browser saw of it. Kept per room in the table's UI state: the current hand and the one
// before, so the last hand can still be checked while the next one is dealt.
//
// Client seeds: the page sends a fresh random seed with every join and after every hand
// (app.js); the seeds sent are remembered per room (localStorage, shared by the tabs of
// this player) so that Verify can also check that the deal used one of them.

import { h } from "./dom.js";
import { newClientSeed, seenFromEvent, seenFromView, verifyHand } from "./fairness.js";
import { t, lang } from "./i18n.js";

const SEEDS_KEY = "cardroom.seeds";
const SEEDS_PER_ROOM = 8;
const ROOMS_KEPT = 20;

function loadSeeds() {
  try { return JSON.parse(localStorage.getItem(SEEDS_KEY) || "{}") || {}; } catch (err) { return {}; }
}

/** The seeds this player's browsers sent for `room`, newest last. */
export function sentSeeds(room) {
  const all = loadSeeds();
  return Array.isArray(all[room]) ? all[room] : [];
}

/** A fresh client seed for `room`, remembered before it is sent. */
export function freshSeed(room) {
  const seed = newClientSeed();
  const all = loadSeeds();
  const list = (Array.isArray(all[room]) ? all[room] : []).concat(seed).slice(-SEEDS_PER_ROOM);
  delete all[room];
  all[room] = list; // most recently used room last
  const rooms = Object.keys(all);
  for (const r of rooms.slice(0, Math.max(0, rooms.length - ROOMS_KEPT))) delete all[r];
  try { localStorage.setItem(SEEDS_KEY, JSON.stringify(all)); } catch (err) { /* private mode: not remembered */ }
  return seed;
}

function state(ui) {
  if (!ui.fair) ui.fair = { current: null, previous: null };
  return ui.fair;
}

function newRecord(snap, handNo, fairness, mySeat) {
  const { server_seed: serverSeed, ...published } = fairness;
  return {
    room: snap.room, game: snap.game, handNo, fairness: published,
    reveal: serverSeed ? { server_seed: serverSeed, commitment: published.commitment } : null,
    seen: [], viewSeen: [], mySeat: mySeat ?? null,
    events: [], // the hand's events as this page received them (for "Save"), when it saw them all
    // seeds this browser had sent for the room when the hand was dealt (none: not checked)
    mySeeds: mySeat === null || mySeat === undefined ? [] : sentSeeds(snap.room),
    result: null, busy: false,
  };
}

function start(fs, rec) {
  if (fs.current && fs.current.handNo !== rec.handNo) fs.previous = fs.current;
  fs.current = rec;
}

function recordFor(fs, handNo) {
  if (fs.current && fs.current.handNo === handNo) return fs.current;
  if (fs.previous && fs.previous.handNo === handNo) return fs.previous;
  return null;
}

/** An event of the room: a hand's commitment, the cards it shows, the reveal. */
export function trackEvent(ui, snap, ev) {
  const fs = state(ui);
  if (ev.type === "hand_started") {
    if (ev.fairness) {
      const rec = newRecord(snap, ev.hand_no, ev.fairness, snap.your_seat);
      rec.events.push(ev);
      start(fs, rec);
    }
    return;
  }
  const rec = fs.current;
  if (!rec || rec.reveal) return;
  if (rec.events.length) rec.events.push(ev);
  if (ev.type === "hand_ended") {
    if (ev.hand_no === rec.handNo && ev.fairness && ev.fairness.server_seed) rec.reveal = ev.fairness;
    return;
  }
  rec.seen.push(...seenFromEvent(rec.game, ev));
}

/** A `room` snapshot: the cards the viewer's view shows of the hand being recorded. */
export function trackSnapshot(ui, snap) {
  const rec = state(ui).current;
  if (rec && rec.handNo === snap.hand_no) rec.viewSeen = seenFromView(snap.game, snap.view, snap.your_seat);
}

/**
 * A `history` reply (docs/protocol.md): the record of a hand the page did not see start
 * (a reload that missed moves, another device, a spectator who came mid-hand), from the
 * hand's own events as the server kept them: the hand under way (`current`, whose first
 * event carries the proof), or the last finished one when the hand on the table is over
 * (its `fairness`, revealed). Not offered for "Save": the page did not see it whole.
 * True when it made a record.
 */
export function trackHistory(ui, snap, reply) {
  const fs = state(ui);
  const hands = reply.hands || [];
  const last = hands.length ? hands[hands.length - 1] : null;
  const hand = reply.current || (last && last.hand === snap.hand_no && !snap.playing ? last : null);
  if (!hand || recordFor(fs, hand.hand) || (fs.current && fs.current.handNo > hand.hand)) return false;
  const events = hand.events || [];
  const proof = (events.length && events[0].type === "hand_started" && events[0].fairness) || hand.fairness;
  if (!proof || !proof.commitment) return false;
  const rec = newRecord(snap, hand.hand, proof, snap.your_seat);
  for (const ev of events) {
    if (ev.type === "hand_ended" && ev.fairness && ev.fairness.server_seed && !rec.reveal) {
      rec.reveal = { server_seed: ev.fairness.server_seed, commitment: proof.commitment };
    } else if (ev.type !== "hand_started") {
      rec.seen.push(...seenFromEvent(rec.game, ev));
    }
  }
  start(fs, rec);
  if (snap.hand_no === hand.hand) rec.viewSeen = seenFromView(snap.game, snap.view, snap.your_seat);
  return true;
}

/** The fairness record of hand `handNo` once it is revealed (to keep for a reload), or null. */
export function revealedRecord(ui, handNo) {
  const rec = recordFor(state(ui), handNo);
  return rec && rec.reveal ? rec : null;
}

/**
 * After a reload, the record of the last finished hand as the page kept it (handlog.js),
 * when the page holds none of that hand: Verify and Save work on it again.
 */
export function restoreRecord(ui, kept) {
  const fs = state(ui);
  if (!kept || !Number.isInteger(kept.handNo) || recordFor(fs, kept.handNo)) return;
  const rec = { ...kept, busy: false, result: null };
  if (!fs.current) fs.current = rec;
  else if (fs.current.handNo > rec.handNo && (!fs.previous || fs.previous.handNo < rec.handNo)) fs.previous = rec;
}

async function runVerify(rec, name, rerender) {
  if (rec.busy) return;
  rec.busy = true;
  rec.result = null;
  rerender();
  const mine = rec.mySeat !== null && rec.mySeeds.length ? { seat: rec.mySeat, seeds: rec.mySeeds } : null;
  rec.result = await verifyHand({
    game: rec.game, room: rec.room, handNo: rec.handNo, fairness: rec.fairness, reveal: rec.reveal,
    seen: rec.seen.concat(rec.viewSeen), name, mine, say: t,
  });
  rec.result.lang = lang();
  rec.busy = false;
  rerender();
}

/** Download the hand as this page saw it, for `cardroom verify --file` (docs/fairness.md). */
function save(rec) {
  const text = JSON.stringify({ room: rec.room, game: rec.game, hand: rec.handNo, events: rec.events });
  const url = URL.createObjectURL(new Blob([text + "\n"], { type: "application/json" }));
  const a = h("a", { href: url, download: `cardroom-${rec.room}-hand-${rec.handNo}.json` });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

function short(hex) {
  return `${hex.slice(0, 8)}…`;
}

/** The fairness line of the table's top bar, or null when the server publishes nothing. */
export function fairNode(ctx) {
  const fs = state(ctx.ui);
  const { snap } = ctx;
  const parts = [];
  const cur = fs.current;
  const live = cur && !cur.reveal && snap.playing && cur.handNo === snap.hand_no ? cur : null;
  if (live) {
    const full = live.fairness.commitment;
    const open = ctx.ui.fairOpen === full;
    parts.push(h("button", { type: "button", class: "fair-commit", "data-testid": "commitment", "data-commitment": full,
      title: t(open ? "fair.commit_title_open" : "fair.commit_title", { hash: full }),
      onclick: () => { ctx.ui.fairOpen = open ? null : full; ctx.rerender(); } },
    t("fair.commit"), h("code", {}, open ? full : short(full))));
  }
  // the hand to verify: the last one revealed (the current one once over, else the one before)
  const done = cur && cur.reveal ? cur : fs.previous && fs.previous.reveal ? fs.previous : null;
  if (done) {
    const r = done.result;
    if (r && r.lang !== lang() && !done.busy) setTimeout(() => runVerify(done, ctx.name, ctx.rerender), 0); // say it again in the new language
    parts.push(h("span", { class: "fair-verify" },
      h("button", { type: "button", class: "btn ghost small", "data-testid": "verify", "data-hand": done.handNo,
        disabled: done.busy,
        title: t("fair.verify_title", { n: done.handNo }),
        onclick: () => runVerify(done, ctx.name, ctx.rerender) },
      done.busy ? t("fair.verifying") : t("fair.verify", { n: done.handNo })),
      done.events.length ? h("button", { type: "button", class: "btn ghost small", "data-testid": "save-hand",
        title: t("fair.save_title", { n: done.handNo }),
        onclick: () => save(done) }, t("fair.save")) : null,
      r ? h("span", { class: `fair-result ${r.ok ? "ok" : "bad"}`, "data-testid": "verify-result",
        "data-ok": r.ok ? "1" : "0", "data-hand": done.handNo, title: r.reason },
      t(r.ok ? "fair.ok" : "fair.bad", { reason: r.reason })) : null));
  }
  if (!parts.length) return null;
  return h("div", { class: "fair-line small", "data-testid": "fairness" }, parts);
}
