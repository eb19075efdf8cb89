// Sound and motion, both subtle and both behind one switch in the top bar (remembered in
// localStorage, `cardroom.effects`: "on" or "off"; `?effects=off` in the address sets it).
//
// Sounds are synthesized with the Web Audio API (no audio files): a soft tick for a card,
// a short click for chips, a low thump for a bomb, a two-note chime for your turn and a
// rising three notes for a win. The AudioContext is created lazily, on the first sound
// while the switch is on, and never while it is off. Motion: cards new on the felt slide
// in, a changed bet pops (CSS classes `deal-in` and `chip-in`), the clock's ring glides
// between ticks and a league run's dot pulses: all under `html.fx`, none with
// prefers-reduced-motion.

const KEY = "cardroom.effects";

function initial() {
  try {
    const param = new URLSearchParams(location.search).get("effects");
    if (param === "on" || param === "off") localStorage.setItem(KEY, param);
    return localStorage.getItem(KEY) !== "off";
  } catch (err) {
    return true;
  }
}

let on = initial();
let audio = null;

export function effectsOn() { return on; }

export function setEffects(value) {
  on = Boolean(value);
  try { localStorage.setItem(KEY, on ? "on" : "off"); } catch (err) { /* private mode */ }
  applyEffects();
  if (!on && audio) { audio.close().catch(() => {}); audio = null; }
}

export function applyEffects() {
  document.documentElement.classList.toggle("fx", on);
}

function context() {
  if (!on) return null;
  if (!audio) {
    const Ctx = window.AudioContext || window.webkitAudioContext;
    if (!Ctx) return null;
    try { audio = new Ctx(); } catch (err) { return null; }
  }
  if (audio.state === "suspended") audio.resume().catch(() => {}); // after a click it may start
  return audio;
}

/** One short tone: frequency (Hz), start offset and length (s), peak gain, wave shape. */
function tone(ac, freq, at, length, peak = 0.05, type = "sine", endFreq = null) {
  const osc = ac.createOscillator();
  const gain = ac.createGain();
  const t0 = ac.currentTime + at;
  osc.type = type;
  osc.frequency.setValueAtTime(freq, t0);
  if (endFreq) osc.frequency.exponentialRampToValueAtTime(endFreq, t0 + length);
  gain.gain.setValueAtTime(0.0001, t0);
  gain.gain.exponentialRampToValueAtTime(peak, t0 + 0.008);
  gain.gain.exponentialRampToValueAtTime(0.0001, t0 + length);
  osc.connect(gain).connect(ac.destination);
  osc.start(t0);
  osc.stop(t0 + length + 0.02);
}

const SOUNDS = {
  card: (ac) => tone(ac, 1800, 0, 0.04, 0.03, "triangle", 900),
  deal: (ac) => { for (let i = 0; i < 3; i++) tone(ac, 1700, i * 0.07, 0.04, 0.025, "triangle", 900); },
  chips: (ac) => { tone(ac, 2400, 0, 0.05, 0.03, "square", 2000); tone(ac, 3100, 0.045, 0.05, 0.02, "square", 2600); },
  bomb: (ac) => tone(ac, 140, 0, 0.35, 0.08, "sawtooth", 50),
  turn: (ac) => { tone(ac, 660, 0, 0.14, 0.035); tone(ac, 880, 0.12, 0.18, 0.035); },
  win: (ac) => { tone(ac, 523, 0, 0.16, 0.04); tone(ac, 659, 0.1, 0.16, 0.04); tone(ac, 784, 0.2, 0.26, 0.04); },
};

/** Play one of the sounds (nothing while the switch is off). */
export function play(name) {
  if (!on || !SOUNDS[name]) return;
  const ac = context();
  if (!ac) return;
  try { SOUNDS[name](ac); } catch (err) { /* a browser without some node: stay silent */ }
}

/** The sound of a room event, if it has one (the table shown only). */
export function soundFor(snap, ev) {
  if (!on) return;
  const mine = snap && snap.your_seat;
  switch (ev.type) {
    case "hand_started": play("deal"); break;
    case "board": case "look": play("card"); break;
    case "blind": case "ante": case "call": case "raise": case "all_in": case "return": play("chips"); break;
    case "action": play(ev.action === "fold" || ev.action === "check" ? "card" : "chips"); break;
    case "compare": play("chips"); break;
    case "play": play(ev.kind === "bomb" || ev.kind === "rocket" ? "bomb" : "card"); break;
    case "award": case "hand_over":
      if (ev.winner === mine || (ev.shares || []).some((x) => x.seat === mine)) play("win"); else play("chips");
      break;
    default: break;
  }
}

/**
 * Motion after a table render: cards that were not on the felt before slide in, bets that
 * changed pop. `memory` is the room's UI state (what the last render showed).
 */
export function animate(screen, memory) {
  const hand = screen.dataset.hand;
  const cards = new Set();
  const bets = new Map();
  const items = [...screen.querySelectorAll(".card:not(.slot)")];
  // a card is "the same" while it stays with the same owner (a seat, the board, your hand)
  const backs = new Map();
  const keys = new Map();
  for (const el of items) {
    const holder = el.parentElement && el.parentElement.closest("[data-testid], [data-seat]");
    const owner = holder ? holder.dataset.testid || holder.dataset.seat : "felt";
    let k;
    if (el.dataset.card !== undefined) k = `${owner}:${el.dataset.card}`;
    else { const n = (backs.get(owner) || 0) + 1; backs.set(owner, n); k = `${owner}:back${n}`; }
    keys.set(el, k);
    cards.add(k);
  }
  const key = (el) => keys.get(el);
  for (const el of screen.querySelectorAll(".bet")) bets.set(el.dataset.testid, el.textContent);
  const before = memory.fxSeen;
  memory.fxSeen = { hand, cards, bets };
  if (!on || !before || window.matchMedia("(prefers-reduced-motion: reduce)").matches) return;
  let k = 0;
  for (const el of items) {
    if (before.hand === hand && before.cards.has(key(el))) continue;
    el.classList.add("deal-in");
    el.style.animationDelay = `${Math.min(k++, 12) * 40}ms`;
  }
  for (const el of screen.querySelectorAll(".bet")) {
    if (before.bets.get(el.dataset.testid) !== el.textContent) el.classList.add("chip-in");
  }
}

/** A chime when it becomes your turn (once per turn). */
export function turnChime(snap, memory) {
  const v = snap.view;
  const turn = v && !v.is_over && snap.your_seat !== null && v.to_act === snap.your_seat ? `${snap.hand_no}:${snap.version}` : null;
  const was = memory.fxTurn;
  memory.fxTurn = turn ? (was || turn) : null;
  if (turn && !was) play("turn");
}
