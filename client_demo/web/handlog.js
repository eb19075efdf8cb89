// What a reload must not lose, kept in this tab's sessionStorage (gone with the tab):
//
// - the events of the hand being played in each room this page follows, as they arrived
//   (`cardroom.hand.<room>`: {hand, since, version, opening, events: [[version, event, note?]]}), so that
//   after a reload the hand history tells the hand so far line by line and the seats'
//   notes of the betting round come back. The server's `history` answers only finished
//   hands, and a snapshot holds the state, not how it came about. `version` is the last
//   room version this page held: if the room moved on while the page reloaded, the events
//   of that moment are missing (the history says so). `opening`: the view the page drew
//   the hand's start from when it first saw the hand mid-way (no `hand_started`).
// - a Dou Dizhu hand's card selection (`cardroom.sel.<room>`: {hand, cards}).
// - the last finished hand (`cardroom.last.<room>`: {snap, fair}): its final snapshot, for
//   "Last hand" while the next one is played, and its fairness record (verify.js), for
//   "Verify" and "Save". Both live in the page's memory otherwise, and a reload mid-hand
//   lost them.

const HAND_PREFIX = "cardroom.hand.";
const SEL_PREFIX = "cardroom.sel.";
const LAST_PREFIX = "cardroom.last.";
const ROOMS_KEPT = 12; // a player follows few rooms at once: the oldest records go first

function read(key) {
  try { return JSON.parse(sessionStorage.getItem(key) || "null"); } catch (err) { return null; }
}

function write(key, value) {
  try {
    sessionStorage.setItem(key, JSON.stringify(value));
  } catch (err) { // full (or storage refused): drop the other rooms' records and try once more
    prune(key, 0);
    try { sessionStorage.setItem(key, JSON.stringify(value)); } catch (again) { /* not kept */ }
  }
}

/** Forget the records of other rooms beyond the `kept` most recently written (`key` is kept). */
function prune(key, kept = ROOMS_KEPT) {
  try {
    const keys = [];
    for (let i = 0; i < sessionStorage.length; i++) {
      const k = sessionStorage.key(i);
      if (k !== key && [HAND_PREFIX, SEL_PREFIX, LAST_PREFIX].some((p) => k.startsWith(p))) keys.push(k);
    }
    const stamped = keys.map((k) => [k, (read(k) || {}).at || 0]).sort((a, b) => b[1] - a[1]);
    for (const [k] of stamped.slice(kept)) sessionStorage.removeItem(k);
  } catch (err) { /* nothing to prune */ }
}

/** The stored record of the hand being played in `room`, or null. */
export function storedHand(room) {
  const rec = read(HAND_PREFIX + room);
  return rec && Array.isArray(rec.events) && Number.isInteger(rec.hand) ? rec : null;
}

/**
 * Keep an event of `room` (with the room `version` it came with, arriving on the snapshot
 * of hand `handNo`): a `hand_started` starts a new record, anything else is added to the
 * record of that hand (or of the hand started by the same change), if the tab has one.
 * `note`: what the page knew with it that the event does not say (a seat's name).
 */
export function keepEvent(room, ev, version, handNo, note = null) {
  const key = HAND_PREFIX + room;
  let rec = storedHand(room);
  if (ev.type === "hand_started") {
    rec = { hand: ev.hand_no, since: version, version, opening: null, events: [] };
    prune(key);
  }
  // the events that come with `hand_started` arrive on the snapshot of the hand before
  if (!rec || (rec.hand !== handNo && rec.since !== version)) return;
  rec.events.push(note === null ? [version, ev] : [version, ev, note]);
  rec.version = version;
  rec.at = Date.now();
  write(key, rec);
}

/** The page first saw hand `handNo` of `room` mid-way, drawn from `view`: a record starting there. */
export function keepOpening(room, handNo, version, view) {
  const rec = storedHand(room);
  if (rec && rec.hand === handNo) return;
  write(HAND_PREFIX + room, { hand: handNo, version, opening: view, events: [], at: Date.now() });
}

/** The whole of hand `handNo` of `room` so far (`events`: [[version, event, note?]], from its
 * `hand_started`), as the page holds it at room `version`: the record a reload starts from. */
export function keepHand(room, handNo, events, version) {
  const since = events.length ? events[0][0] : version;
  write(HAND_PREFIX + room, { hand: handNo, since, version, opening: null, events, at: Date.now() });
}

/** The room's version this page holds now (its snapshot), for the hand under way. */
export function keepVersion(room, handNo, version) {
  const rec = storedHand(room);
  if (!rec || rec.hand !== handNo || rec.version === version) return;
  rec.version = version;
  write(HAND_PREFIX + room, rec);
}

/** The cards selected in hand `handNo` of `room` before a reload (ids), or null. */
export function storedSelection(room, handNo) {
  const sel = read(SEL_PREFIX + room);
  return sel && sel.hand === handNo && Array.isArray(sel.cards) ? sel.cards : null;
}

/** Remember the selected cards of hand `handNo` of `room`. */
export function keepSelection(room, handNo, cards) {
  write(SEL_PREFIX + room, { hand: handNo, cards: [...cards], at: Date.now() });
}

/** The last finished hand of `room` this tab kept ({snap, fair}), or null. */
export function storedLastHand(room) {
  const rec = read(LAST_PREFIX + room);
  return rec && rec.snap && Number.isInteger(rec.snap.hand_no) ? rec : null;
}

/** Keep `snap`, the final snapshot of a hand of `room`, with its fairness record `fair` (or null). */
export function keepLastHand(room, snap, fair) {
  write(LAST_PREFIX + room, { snap, fair, at: Date.now() });
}
