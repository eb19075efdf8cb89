// The browser demo: wires the connection, the lobby and the tables together.
//
// State flows one way: server messages update `store`, then the visible screen is
// re-rendered from `store` (the lobby's room list, the current table, or a league page).
// Tables render from the `room` snapshot alone; events feed the hand-history panel and
// short notices. Routes: `#/room/<id>` (a table), `#/leagues` and `#/league/<name>`.

import { Connection, forgetToken, storedToken } from "./net.js";
import { h, clear, chips } from "./dom.js";
import { Lobby, detectCjkFont, fieldLabel } from "./lobby.js";
import { TableScreen } from "./table.js";
import { describeGames, gameFailure, gameModule, loadGame } from "./games.js";
import { LeagueScreen } from "./league.js";
import { RecordPanel } from "./record.js";
import { Chat } from "./chat.js";
import { freshSeed } from "./verify.js";
import { t, tMaybe, lang, setLang, onLangChange, applyLang } from "./i18n.js";
import { effectsOn, setEffects, applyEffects } from "./fx.js";

const conn = new Connection();

export const store = {
  welcome: null,
  wallet: null,
  games: [],
  rooms: [],
  snaps: new Map(),   // room id -> latest room snapshot
  logs: new Map(),    // room id -> [{text, cls}]
  current: null,      // room id shown, or null for the lobby (or a league page)
  page: null,         // with no room shown: null (the lobby), {kind: "leagues"} or {kind: "league", name}
  spectating: new Set(),
  seated: new Set(),  // rooms where this player holds a seat
  codes: new Map(),   // room id -> join code of a private room (from its link or snapshot)
  busted: new Set(),  // rooms where this player ran out of chips (offered a rebuy)
  historyAsked: new Set(), // rooms whose recent hands were fetched for the history panel
};

const main = document.getElementById("main");
const lobby = new Lobby({ conn, store, app: null });
const table = new TableScreen({ conn, store, app: null });
const leagues = new LeagueScreen({ conn, store, app: null });
const records = new RecordPanel({ conn, store });
const chat = new Chat({ conn, store, app: null });
table.chat = chat;

// --- toasts ------------------------------------------------------------------------------

// Codes whose English title goes before the server's message ("Not your turn: seat 1 is to act").
const TITLED = new Set(["not_your_turn", "bad_amount", "bad_action", "not_a_valid_play", "does_not_beat", "must_play",
  "cards_not_in_hand", "insufficient_funds", "room_full", "seat_taken", "already_seated", "bad_config", "rate_limited",
  "no_such_room", "not_enough_chips", "too_early", "internal_error", "unavailable",
  "too_few_entrants", "league_running", "not_league_owner", "league_limit"]);

const MAX_TOASTS = 2;

export function toast(text, kind = "info", ms = 4200) {
  const box = document.getElementById("toasts");
  // a repeat replaces the older copy, and only the newest few stay
  for (const old of box.children) if (old.textContent === text) old.remove();
  while (box.children.length >= MAX_TOASTS) box.firstElementChild.remove();
  const el = h("div", { class: `toast ${kind}`, role: kind === "error" ? "alert" : "status",
    "data-testid": kind === "error" ? "toast-error" : "toast" }, text);
  box.append(el);
  placeToasts(box);
  setTimeout(() => el.classList.add("fade"), ms - 400);
  setTimeout(() => el.remove(), ms);
}

/**
 * Where the messages go at a table, clear of the seats and of the table's buttons: with
 * the hand history beside the table (desktop), in its column under its heading (over its
 * oldest lines); on a phone, just above the row of the table's buttons, over the table's
 * name and stakes, growing upward (the oldest message dropped when two do not fit); on
 * a medium screen, under the table's top bar. Elsewhere (the lobby), style.css decides.
 */
function placeToasts(box) {
  const set = (top, left, width, bottom = "") => Object.assign(box.style, { top, left, width, bottom,
    right: left ? "auto" : "", transform: left ? "none" : "" });
  const bar = document.querySelector(".table-bar");
  if (!bar) { set("", "", ""); return; }
  const col = document.querySelector(".table-col");
  const history = document.querySelector(".table-screen .history");
  const heading = history && history.querySelector(".history-toggle");
  if (col && heading && history.getBoundingClientRect().left >= col.getBoundingClientRect().right) {
    const panel = history.getBoundingClientRect();
    const under = Math.max(8, Math.round(heading.getBoundingClientRect().bottom + 4));
    set(`${under}px`, `${Math.round(panel.left + 4)}px`, `${Math.round(panel.width - 8)}px`);
    return;
  }
  const row = [...bar.querySelectorAll(":scope > button, :scope > .table-buttons")];
  if (window.innerWidth <= 600 && row.length) {
    const above = Math.min(...row.map((el) => el.getBoundingClientRect().top)) - 4;
    if (above > 40) {
      set("auto", "", "", `${Math.round(window.innerHeight - above)}px`);
      while (box.children.length > 1 && box.getBoundingClientRect().top < 4) box.firstElementChild.remove();
      return;
    }
  }
  set(`${Math.max(8, Math.round(bar.getBoundingClientRect().bottom + 6))}px`, "", "");
}

// Codes whose title says all a player needs (the server's message is for developers).
const OWN_WORDS = new Set(["unsupported_protocol"]);

/**
 * An error as a message: in English the server's message after a title for the codes the
 * page knows; in Chinese the translated text of the code (with the option it names), the
 * server's English message only for a code the page does not know; for OWN_WORDS the
 * page's own text alone, in either language.
 */
function showError(err) {
  if (!err) return;
  if (OWN_WORDS.has(err.code)) { toast(t(`err.${err.code}`), "error"); return; }
  const snap = err.room ? store.snaps.get(err.room) : null;
  const message = humanize(err.message || err.code || t("err.generic"), snap);
  if (lang() === "en") {
    const title = TITLED.has(err.code) ? t(`err.${err.code}`) : null;
    toast(title ? `${title}: ${message}` : message, "error");
    return;
  }
  const title = err.code ? tMaybe(`err.${err.code}`) : null;
  if (!title) { toast(message, "error"); return; }
  const field = err.field ? fieldLabel(snap ? snap.game : lobby.creating, err.field) : null;
  toast(field ? `${title}：${field}` : title, "error");
}

// --- connection state ------------------------------------------------------------------------

function renderConnState() {
  const el = document.getElementById("conn");
  el.dataset.state = conn.state;
  el.querySelector(".label").textContent = tMaybe(`conn.${conn.state}`, {}, conn.state);
  el.title = t(conn.state === "online" ? "conn.title_online" : "conn.title_offline");
}

/** The language switch (shows the other language) and the sound-and-motion switch. */
function renderSwitches() {
  const langBtn = document.getElementById("lang");
  const other = lang() === "en" ? "zh" : "en";
  langBtn.dataset.lang = lang();
  langBtn.title = t("lang.title");
  langBtn.setAttribute("aria-label", t("lang.title"));
  // where no font draws Chinese, the way back to it still reads
  langBtn.textContent = other === "zh" ? (document.documentElement.classList.contains("no-cjk") ? "中文 ZH" : "中文") : "EN";
  const fx = document.getElementById("fx");
  fx.dataset.on = effectsOn() ? "1" : "0";
  fx.setAttribute("aria-pressed", effectsOn() ? "true" : "false");
  fx.title = t(effectsOn() ? "fx.on" : "fx.off");
  fx.setAttribute("aria-label", fx.title);
  fx.textContent = "♪"; // struck through when off (style.css): a glyph every font has
}

function renderIdentity() {
  const el = clear(document.getElementById("me"));
  if (!store.welcome) return;
  el.append(
    // the name opens your record too: on a phone the top bar has no room for its button
    h("button", { class: "me-name", type: "button", "data-testid": "me-name", title: t("rec.open_title"),
      onclick: () => records.open() }, store.welcome.name),
    h("span", { class: "me-wallet", "data-testid": "wallet", title: t("wallet.title") },
      h("span", { class: "chip-icon" }), chips(store.wallet)),
    h("button", { class: "top-switch record-switch", type: "button", "data-testid": "my-record",
      title: t("rec.open_title"), onclick: () => records.open() }, t("rec.open")),
  );
}

// --- screens ----------------------------------------------------------------------------------

export const app = {
  conn,
  store,
  toast,
  showError,

  render() {
    renderIdentity();
    if (!store.welcome) {
      if (conn.banned) lobby.renderBanned(main, conn.banned.reason);
      else if (conn.signIn) lobby.renderSignIn(main, conn.signIn.login_url);
      else if (conn.state === "online" || !storedToken()) lobby.renderName(main);
      else if (!main.querySelector(".connecting")) {
        clear(main).append(h("div", { class: "connecting panel" }, t("app.connecting")));
      }
      return;
    }
    if (store.current && store.snaps.has(store.current)) {
      leagues.stopPoll(); // a league page left: no more asking for its run
      table.render(main, store.snaps.get(store.current));
    } else if (store.page) {
      leagues.render(main, store.page);
    } else {
      leagues.stopPoll();
      lobby.render(main);
    }
    placeToasts(document.getElementById("toasts")); // messages shown before this screen move with it
  },

  openRoom(roomId) {
    store.current = roomId;
    store.page = null;
    if (location.hash !== roomHash(roomId)) history.pushState(null, "", roomHash(roomId));
    this.render();
  },

  toLobby() {
    store.current = null;
    store.page = null;
    if (location.hash) history.pushState(null, "", location.pathname);
    this.render();
  },

  /** The list of leagues (`#/leagues`), fetched afresh. */
  openLeagues() { this.openPage({ kind: "leagues" }); },

  /** One league's page (`#/league/<name>`), fetched afresh. */
  openLeague(name) { this.openPage({ kind: "league", name }); },

  openPage(page) {
    store.current = null;
    store.page = page;
    if (location.hash !== pageHash(page)) history.pushState(null, "", pageHash(page));
    leagues.refresh(page);
    this.render();
  },

  /**
   * A hand-history line: `redo()` gives [text, class] in the current language (again after a
   * switch). `partial`: the number of the hand whose start this page did not see, for the
   * lines it draws from the view instead (replaced once the server tells the hand).
   */
  log(roomId, redo, first = null, partial = null) {
    if (!store.logs.has(roomId)) store.logs.set(roomId, []);
    const log = store.logs.get(roomId);
    const [text, cls] = first || redo();
    log.push({ text, cls: cls || "", redo, partial });
    if (log.length > 300) log.splice(0, log.length - 300);
  },

  async enter(name) {
    conn.start(name);
  },

  signOut() {
    forgetToken();
    location.hash = "";
    location.reload();
  },

  async join(roomId, seat = null, buyIn = null) {
    const msg = { t: "join", room: roomId, seed: freshSeed(roomId) };
    if (seat !== null) msg.seat = seat;
    if (buyIn) msg.buy_in = buyIn;
    if (store.codes.has(roomId)) msg.code = store.codes.get(roomId);
    try {
      const snap = await conn.request(msg);
      const s = snap.seats[snap.your_seat];
      if (s && store.wallet !== null) store.wallet -= s.stack;
      this.seatedAt(snap);
    } catch (err) { /* shown as a toast */ }
  },

  /**
   * Join a private room with its code (the lobby's "Join with a code"): sit down with the
   * room's default buy-in, or watch when every seat is taken. The error is the caller's to
   * show (the promise rejects with it); nothing is shown as a message.
   */
  async joinWithCode(roomId, code) {
    const msg = { t: "join", room: roomId, code, seed: freshSeed(roomId) };
    try {
      const snap = await conn.request(msg, { quiet: true });
      store.codes.set(roomId, code);
      const s = snap.seats[snap.your_seat];
      if (s && store.wallet !== null) store.wallet -= s.stack;
      this.seatedAt(snap);
    } catch (err) {
      if (err.code === "already_seated" && store.snaps.has(roomId)) { this.openRoom(roomId); return; }
      if (err.code !== "room_full") throw err;
      await conn.request({ t: "spectate", room: roomId, code }, { quiet: true });
      store.codes.set(roomId, code);
      store.spectating.add(roomId);
      this.openRoom(roomId);
    }
  },

  /** A join (or quick match) answered with our seat: show that table. */
  seatedAt(snap) {
    store.spectating.delete(snap.room);
    store.busted.delete(snap.room);
    store.seated.add(snap.room);
    this.openRoom(snap.room);
  },

  async quickMatch(game, stake = null) {
    const msg = { t: "quick_match", game };
    if (stake) msg.stake = stake;
    try {
      const snap = await conn.request(msg);
      const s = snap.seats[snap.your_seat];
      if (s && store.wallet !== null) store.wallet -= s.stack;
      this.seatedAt(snap);
    } catch (err) {
      if (err.code === "unknown_type") toast(t("app.no_quick"), "info");
    }
  },

  async spectate(roomId) {
    try {
      await conn.request(spectateMsg(roomId));
      store.spectating.add(roomId);
      this.openRoom(roomId);
    } catch (err) {
      if (!store.current && location.hash) history.replaceState(null, "", location.pathname);
    }
  },

  async leave(roomId) {
    try {
      const left = await conn.request({ t: "leave", room: roomId });
      store.spectating.delete(roomId);
      if (left.pending) toast(t("app.leave_pending"), "info");
      else if (left.seat !== null && left.seat !== undefined) toast(t("app.left_with", { chips: chips(left.stack) }), "info");
      if (left.wallet !== undefined && left.wallet !== null) store.wallet = left.wallet;
      if (!left.pending) forgetRoom(roomId);
      this.toLobby();
    } catch (err) { /* toast */ }
  },

  async act(roomId, action) {
    try {
      await conn.act(roomId, action);
    } catch (err) { /* toast */ }
  },
};
lobby.app = app;
table.app = app;
leagues.app = app;
chat.app = app;
app.records = records;
app.table = table; // its per-room UI state (last compare, opened panels) from the devtools and tests

// --- server messages ------------------------------------------------------------------------

conn.on("state", () => { renderConnState(); if (!store.welcome) app.render(); });
conn.on("error", showError);
conn.on("need_name", () => { store.welcome = null; app.render(); });
conn.on("closed", () => { table.stopClock(); });

conn.on("welcome", async (w) => {
  store.welcome = w;
  store.wallet = w.wallet;
  const seated = new Set(w.seats.map((s) => s.room));
  store.seated = new Set(seated);
  for (const id of [...store.snaps.keys()]) if (!seated.has(id) && !store.spectating.has(id)) store.snaps.delete(id);
  const wanted = roomFromHash();
  if (store.current && !seated.has(store.current) && !store.spectating.has(store.current)) {
    // we were watching or had just left: keep watching if the room still exists
    if (!wanted || wanted !== store.current) store.current = null;
  }
  if (!store.current) {
    if (wanted && (seated.has(wanted))) store.current = wanted;
    else if (wanted) { app.spectate(wanted); }
    else if (w.seats.length && !store.page) store.current = w.seats[0].room;
  }
  for (const roomId of store.spectating) {
    if (!seated.has(roomId)) conn.request(spectateMsg(roomId), { quiet: true }).catch(() => store.spectating.delete(roomId));
  }
  if (store.current && location.hash !== roomHash(store.current)) history.replaceState(null, "", roomHash(store.current));
  app.render();
  try {
    const rooms = await conn.request({ t: "list_rooms", watch: true });
    gotRooms(rooms);
  } catch (err) { /* toast */ }
});

conn.on("rooms", gotRooms);

/** The lobby's list and the games it describes (a league page's forms need the games too). */
function gotRooms(msg) {
  const known = store.games.map((g) => g.game).join();
  store.rooms = msg.rooms;
  store.games = msg.games;
  describeGames(msg.games);
  if (store.current) return;
  if (store.page) {
    if (known !== store.games.map((g) => g.game).join()) app.render(); // the games came (after a reload there)
  } else lobby.update();
}

/**
 * A room's messages wait for its game's table module (loaded by name the first time a room
 * of that game shows up, e.g. after a reload in the middle of a hand), then pass in the
 * order they came: the table restores a hand from its first snapshot only with the module.
 */
const waiting = new Map(); // room id -> [handler, message] held while its game's module loads
function whenGameReady(roomId, game, handler, msg) {
  const queue = waiting.get(roomId);
  if (queue) { queue.push([handler, msg]); return; }
  if (!game || gameModule(game) || gameFailure(game)) { handler(msg); return; }
  waiting.set(roomId, [[handler, msg]]);
  loadGame(game).then(() => {
    const held = waiting.get(roomId) || [];
    waiting.delete(roomId);
    for (const [fn, m] of held) fn(m);
  });
}

conn.on("room", (msg) => whenGameReady(msg.room, msg.game, gotSnapshot, msg));

function gotSnapshot(snap) {
  const prev = store.snaps.get(snap.room);
  if (prev && prev.version > snap.version) return; // an older snapshot arriving late
  if (snap.code) store.codes.set(snap.room, snap.code);
  store.snaps.set(snap.room, snap);
  // (a spectator who comes mid-hand asks too: the hand's fairness proof is in its events)
  if ((snap.your_seat !== null || snap.playing) && !store.historyAsked.has(snap.room)) loadHistory(snap.room);
  table.onSnapshot(snap);
  if (store.current === snap.room) table.render(main, snap);
}

conn.on("chat", (msg) => chat.onLines(msg));

// an operator's acts on this player (docs/protocol.md, "Operator acts")
conn.on("wallet", (msg) => {
  store.wallet = msg.wallet;
  renderIdentity();
  toast(t(msg.change > 0 ? "app.credited" : "app.debited", { chips: chips(Math.abs(msg.change)), reason: msg.reason || "—" }), "info", 6000);
});
conn.on("banned", (msg) => { conn.banned = msg; store.welcome = null; app.render(); });

conn.on("event", (msg) => whenGameReady(msg.room, (store.snaps.get(msg.room) || {}).game, gotEvent, msg));

function gotEvent(msg) {
  if (msg.event.type === "chat") { chat.onLine(msg.room, msg.event); return; }
  const snap = store.snaps.get(msg.room);
  table.onEvent(msg.room, msg.event, snap, msg.version ?? null);
  if (msg.event.type === "hand_ended" && snap && snap.your_seat !== null && store.seated.has(msg.room)) newSeed(msg.room);
}

/**
 * A fresh client seed for the next hand of a room where we sit (docs/fairness.md): a seed
 * the server could not know when it committed to its own. Only errors are shown.
 */
let seedsUnsupported = false;
function newSeed(roomId) {
  if (seedsUnsupported) return;
  conn.request({ t: "set_seed", room: roomId, seed: freshSeed(roomId) }, { quiet: true }).catch((err) => {
    if (err.code === "unknown_type") seedsUnsupported = true; // a server without client seeds
    else if (err.code !== "disconnected" && err.code !== "offline" && err.code !== "not_seated") showError(err);
  });
}

conn.on("left", (msg) => {
  if (msg.wallet !== undefined && msg.wallet !== null) store.wallet = msg.wallet;
  if (!msg.pending && msg.ref === undefined) {
    store.seated.delete(msg.room);
    if (store.current !== msg.room) store.snaps.delete(msg.room);
  }
  if (msg.ref === undefined && msg.seat !== null) {
    if (msg.reason === "busted") {
      store.busted.add(msg.room);
      toast(t("app.busted"), "info");
      if (store.current === msg.room && store.snaps.has(msg.room)) table.render(main, store.snaps.get(msg.room));
    }
    else {
      const key = { sat_out: "app.stood_up", removed: "app.removed", closed: "app.closed_by_operator" }[msg.reason]
        || "app.left_with";
      toast(t(key, { chips: chips(msg.stack) }), "info");
    }
  }
  renderIdentity();
});

/**
 * The hand-history panel after a reload: our last hands of the room, as we saw them, go
 * before whatever this page logged live, and the hand under way, when this page came to it
 * mid-way without this tab's record of it (another device), is told from its start
 * (docs/protocol.md, `history`); the fairness record of a hand the page did not see start
 * is made from the same reply.
 */
async function loadHistory(roomId) {
  store.historyAsked.add(roomId);
  try {
    const reply = await conn.request({ t: "history", room: roomId, last: 10 }, { quiet: true });
    const snap = store.snaps.get(roomId);
    if (!snap) return;
    const tracked = table.trackHistory(snap, reply);
    const told = reply.current ? table.tellCurrent(snap, reply.current) : false;
    const lines = reply.hands && reply.hands.length ? table.historyLines(snap, reply.hands) : [];
    if (lines.length) store.logs.set(roomId, lines.concat(store.logs.get(roomId) || []));
    if ((tracked || told || lines.length) && store.current === roomId) table.render(main, store.snaps.get(roomId));
  } catch (err) {
    if (err.code === "disconnected") store.historyAsked.delete(roomId); // asked again after the resume
  }
}

/**
 * A server message in the words of this table: seat numbers become names, and the game's
 * table module may word the rest (Dou Dizhu: rank strings "52", "TTJ" become cards).
 */
export function humanize(message, snap) {
  if (!snap || typeof message !== "string") return message;
  let text = message.replace(/\bseat (\d+)('s)?/g, (m, n, s) => {
    const seat = snap.seats[Number(n)];
    return seat ? `${seat.name}${s || ""}` : m;
  });
  const module = gameModule(snap.game);
  if (module && module.humanize) text = module.humanize(text);
  return text;
}

/** We neither sit nor watch there any more: the server stops sending its snapshots. */
function forgetRoom(roomId) {
  store.seated.delete(roomId);
  store.spectating.delete(roomId);
  store.snaps.delete(roomId);
}

/** The link of a room (with a private room's code, so a reload can watch it again). */
export function roomHash(roomId) {
  const code = store.codes.get(roomId);
  return `#/room/${roomId}${code ? `/${code}` : ""}`;
}

function spectateMsg(roomId) {
  const msg = { t: "spectate", room: roomId };
  if (store.codes.has(roomId)) msg.code = store.codes.get(roomId);
  return msg;
}

/** The room a link names: #/room/<id>, or #/room/<id>/<code> for a private room's invitation. */
function roomFromHash() {
  const m = location.hash.match(/^#\/room\/([\w-]+)(?:\/([A-Za-z0-9]{1,16}))?$/);
  if (!m) return null;
  if (m[2]) store.codes.set(m[1], m[2].toUpperCase());
  return m[1];
}

/** The league page a link names: #/leagues, or #/league/<name>; null for anything else. */
function pageFromHash() {
  if (location.hash === "#/leagues") return { kind: "leagues" };
  const m = location.hash.match(/^#\/league\/([^/]+)$/);
  if (!m) return null;
  try { return { kind: "league", name: decodeURIComponent(m[1]) }; } catch (err) { return null; }
}

function pageHash(page) {
  return page.kind === "leagues" ? "#/leagues" : `#/league/${encodeURIComponent(page.name)}`;
}

function followHash() {
  const wanted = roomFromHash();
  if (!wanted) {
    store.current = null;
    store.page = pageFromHash();
    if (store.page) leagues.refresh(store.page);
    app.render();
    return;
  }
  store.page = null;
  if (store.snaps.has(wanted)) { store.current = wanted; app.render(); }
  else if (store.welcome) app.spectate(wanted); // a link to a room we do not show yet (an invitation)
}
window.addEventListener("popstate", followHash);
window.addEventListener("hashchange", followHash);

document.getElementById("conn").addEventListener("click", () => {
  if (conn.state !== "online") conn.open();
});

// --- start ---------------------------------------------------------------------------------

/** An identity token the operator's site sent us with (`#token=...`): used to sign in, and
 * taken out of the address bar at once (a reload, bookmark or shared link must not carry it). */
function takeIdToken() {
  const m = location.hash.match(/^#token=([A-Za-z0-9_.-]+)$/);
  if (!m) return;
  conn.idToken = m[1];
  history.replaceState(null, "", location.pathname + location.search);
}

takeIdToken();
store.page = pageFromHash();
applyLang();
applyEffects();
detectCjkFont();
renderConnState();
renderSwitches();
if (lang() === "zh" && document.documentElement.classList.contains("no-cjk")) toast(t("app.no_cjk"), "info", 8000);

document.getElementById("lang").addEventListener("click", () => setLang(lang() === "en" ? "zh" : "en"));
document.getElementById("fx").addEventListener("click", () => { setEffects(!effectsOn()); renderSwitches(); });

onLangChange(() => {
  for (const lines of store.logs.values()) {
    for (const line of lines) if (line.redo) { const [text, cls] = line.redo(); line.text = text; line.cls = cls || ""; }
  }
  lobby.filter.stakes = "";
  records.draw();
  renderConnState();
  renderSwitches();
  clear(main);
  app.render();
});
app.render();
conn.start(); // signs in with #token=, resumes with the stored token, or asks for a name (need_name)
window.cardroom = app; // handy from the devtools console (and the browser tests)

