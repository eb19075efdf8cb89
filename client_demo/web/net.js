// The connection to the server: one WebSocket speaking the `cardroom.json` subprotocol.
//
// - `request(msg)` tags the message with a fresh `ref` and returns a promise settled by
//   the reply carrying that ref (rejected with the `error` message when the server
//   refuses it).
// - Pushes (messages without a ref we are waiting for) go to `on(type, fn)` listeners.
// - On a drop it reconnects with exponential backoff (0.5 s doubling to 10 s, jittered)
//   and says `hello` with the session token kept in localStorage, so the server puts
//   the player back in every seat they hold (it re-sends `room` snapshots). An identity
//   token from the operator's site (the page's `#token=...`) signs in instead, once: the
//   session token it brings back is kept like any other (docs/server.md, "Sign-in from
//   your own site").
// - Actions (`act`) that were sent but not acknowledged when the connection dropped are
//   sent again with the same action id after the resume, and so are actions answered
//   `unavailable` (a moment later, with backoff): the server applies an id at most
//   once, so a retry is safe.
// - Each room change arrives as one `update` (its events and a patch of the room
//   snapshot, docs/protocol.md "update"). It is handed on as what it stands for: the
//   `ack` it carries for our own action, one `event` push per event, then the patched
//   `room` snapshot. An update that does not
//   apply to the snapshot held here is answered with `sync` (the server sends the room).

const TOKEN_KEY = "cardroom.token";
const NAME_KEY = "cardroom.name";
// The version of the protocol this page speaks (docs/protocol.md, "Versions"), said in
// `hello`. A server of another version refuses it with `unsupported_protocol`: this page
// came from before the server's update (a cache, a tab left open), so it loads itself
// again, once per tab (RELOADED_KEY), and says that it is out of date if that did not help.
const PROTOCOL_VERSION = 1;
const RELOADED_KEY = "cardroom.reloaded_for_protocol";

export function storedToken() { return localStorage.getItem(TOKEN_KEY); }
export function storedName() { return localStorage.getItem(NAME_KEY) || ""; }
export function rememberName(name) { localStorage.setItem(NAME_KEY, name); }
export function forgetToken() { localStorage.removeItem(TOKEN_KEY); }

function wsUrl() {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${location.host}/ws`;
}

export class Connection {
  constructor() {
    this.ws = null;
    this.state = "offline"; // offline | connecting | online | reconnecting
    this.player = null;     // the welcome message once authenticated
    this.nextRef = 1;
    this.pending = new Map(); // ref -> {resolve, reject, msg}
    this.unacked = new Map(); // action id -> act message, until ack or error
    this.listeners = new Map();
    this.attempt = 0;
    this.timer = null;
    this.wantName = null;   // a name to say hello with when there is no token
    this.idToken = null;    // an identity token from the operator's site (#token=...), used once
    this.signIn = null;     // the auth_required error while this server wants a signed-in player
    this.banned = null;     // {reason} once an operator banned this player: no more reconnects
    this.clockOffset = 0;   // server clock - local clock, in ms
    this.actCounter = 0;
    this.rooms = new Map(); // room id -> the latest snapshot, kept by room and update messages
  }

  on(type, fn) {
    if (!this.listeners.has(type)) this.listeners.set(type, []);
    this.listeners.get(type).push(fn);
  }

  emit(type, payload) {
    for (const fn of this.listeners.get(type) || []) {
      try { fn(payload); } catch (err) { console.error(err); }
    }
  }

  setState(state) {
    if (this.state === state) return;
    this.state = state;
    this.emit("state", state);
  }

  /** Open the socket (if not open) and authenticate with the stored token or `name`. */
  start(name) {
    if (name) this.wantName = name;
    if (this.ws && this.ws.readyState <= 1) {
      if (this.ws.readyState === 1 && !this.player) this.hello();
      return;
    }
    this.open();
  }

  open() {
    clearTimeout(this.timer);
    this.setState(this.attempt === 0 ? "connecting" : "reconnecting");
    let ws;
    try {
      ws = new WebSocket(wsUrl(), ["cardroom.json"]);
    } catch (err) {
      this.scheduleReconnect();
      return;
    }
    this.ws = ws;
    ws.onopen = async () => {
      this.attempt = 0;
      const pong = this.syncClock();
      // with nothing to resume or sign in with, first learn whether this server takes
      // anonymous names at all (pong.sign_in)
      if (!this.idToken && !storedToken()) await pong;
      if (this.ws === ws) this.hello();
    };
    this.rooms.clear(); // a new connection starts from the snapshots the server sends
    ws.onmessage = (e) => this.receive(e.data);
    ws.onclose = (e) => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.player = null;
      for (const [, p] of this.pending) p.reject({ code: "disconnected", message: "connection lost" });
      this.pending.clear();
      this.emit("closed", e);
      this.scheduleReconnect();
    };
  }

  scheduleReconnect() {
    if (this.banned) return;
    this.setState("reconnecting");
    const delay = Math.min(10000, 500 * 2 ** this.attempt) * (0.75 + Math.random() * 0.5);
    this.attempt += 1;
    this.emit("retry", Math.round(delay));
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.open(), delay);
  }

  /** Drop the connection now (used by the "reconnect" button and tests). */
  drop() {
    if (this.ws) this.ws.close();
  }

  async hello() {
    const token = storedToken();
    if (!this.idToken && !token && (!this.wantName || this.signIn)) {
      this.setState("online");
      this.emit("need_name", null);
      return;
    }
    // an identity token signs in (once); else the stored session token resumes; else a name
    const msg = this.idToken ? { t: "hello", id_token: this.idToken }
      : token ? { t: "hello", token } : { t: "hello", name: this.wantName };
    msg.protocol = PROTOCOL_VERSION;
    try {
      const welcome = await this.request(msg, { quiet: true });
      sessionStorage.removeItem(RELOADED_KEY);
      this.idToken = null;
      this.signIn = null;
      localStorage.setItem(TOKEN_KEY, welcome.token);
      rememberName(welcome.name);
      this.player = welcome;
      this.setState("online");
      this.emit("welcome", welcome);
      for (const act of this.unacked.values()) this.sendAct(act);
    } catch (err) {
      if (msg.id_token && err.code === "bad_token") { // say why, then go on as if it never came
        this.idToken = null;
        this.emit("error", err);
        this.hello();
        return;
      }
      if (err.code === "unsupported_protocol") {
        if (!sessionStorage.getItem(RELOADED_KEY)) { // the server's page speaks its version
          sessionStorage.setItem(RELOADED_KEY, "1");
          location.reload();
          return;
        }
        clearTimeout(this.timer);
        this.setState("online");
        this.emit("error", err);
        return;
      }
      if (err.code === "banned") { // the operator's ban: say so, and stop knocking
        this.banned = { reason: err.message };
        clearTimeout(this.timer);
        this.setState("online");
        this.emit("banned", this.banned);
        return;
      }
      if (err.code === "auth_required") { // signed-in players only: the page says where to sign in
        if (msg.token) forgetToken();
        this.signIn = err;
        this.setState("online");
        this.emit("need_name", err);
        return;
      }
      if (err.code === "bad_token") {
        forgetToken();
        if (this.wantName || storedName()) {
          this.wantName = this.wantName || storedName();
          this.hello();
          return;
        }
        this.setState("online");
        this.emit("need_name", err);
        return;
      }
      this.emit("error", err);
    }
  }

  async syncClock() {
    const sent = Date.now();
    try {
      const pong = await this.request({ t: "ping" }, { quiet: true });
      const now = Date.now();
      this.clockOffset = pong.time_ms - (sent + now) / 2;
      if (pong.sign_in && pong.sign_in.required && !this.player) {
        this.signIn = { code: "auth_required", login_url: pong.sign_in.login_url };
      }
    } catch (err) { /* the next connection tries again */ }
  }

  /** The server's clock now, in epoch ms. */
  serverNow() { return Date.now() + this.clockOffset; }

  send(msg) {
    if (!this.ws || this.ws.readyState !== 1) return false;
    this.ws.send(JSON.stringify(msg));
    return true;
  }

  /**
   * Send a request and wait for its reply. Errors are shown as toasts unless
   * `quiet`; the promise rejects with the error message either way.
   */
  request(msg, { quiet = false } = {}) {
    const ref = this.nextRef++;
    const out = { ...msg, ref };
    return new Promise((resolve, reject) => {
      if (!this.send(out)) {
        // never sent: an action tried while offline is dropped, not replayed later
        const err = { t: "error", code: "offline", message: "not connected to the server; retrying…" };
        if (!quiet) this.emit("error", err);
        reject(err);
        return;
      }
      this.pending.set(ref, {
        resolve,
        reject: (err) => { if (!quiet && err.code !== "disconnected") this.emit("error", err); reject(err); },
        msg: out,
      });
    });
  }

  /** Take an action in a room: exactly once, resent after a reconnect until acknowledged. */
  act(room, action) {
    this.actCounter += 1;
    const id = `${Date.now().toString(36)}-${this.actCounter}-${Math.random().toString(36).slice(2, 6)}`;
    const msg = { t: "act", room, action, id };
    this.unacked.set(id, msg);
    return this.sendAct(msg);
  }

  sendAct(msg, attempt = 0) {
    return this.request(msg, { quiet: true }).then(
      (ack) => { this.unacked.delete(msg.id); return ack; },
      (err) => {
        // The room's server is briefly unreachable (Redis, or the process owning the
        // room, is moving): the same id is sent again, so it is applied at most once.
        if (err.code === "unavailable" && attempt < 8 && this.unacked.has(msg.id)) {
          const delay = Math.min(2000, 200 * 2 ** attempt) * (0.8 + Math.random() * 0.4);
          return new Promise((resolve) => setTimeout(resolve, delay))
            .then(() => this.sendAct(msg, attempt + 1));
        }
        if (err.code !== "disconnected") {
          this.unacked.delete(msg.id);
          this.emit("error", err);
        }
        throw err;
      },
    );
  }

  receive(data) {
    let msg;
    try { msg = JSON.parse(data); } catch (err) { return; }
    if (msg.t === "update") { this.applyUpdate(msg); return; }
    if (msg.t === "room" && typeof msg.room === "string") {
      const { ref, ...snapshot } = msg;
      this.rooms.set(msg.room, snapshot);
    }
    this.dispatch(msg);
  }

  /** An update as the ack it carries, its events, then the patched snapshot; `sync` when it does not apply. */
  applyUpdate(msg) {
    if (msg.ack !== undefined) this.dispatch({ t: "ack", room: msg.room, id: msg.ack, version: msg.version, ref: msg.ref });
    const held = this.rooms.get(msg.room);
    if (!held || held.version !== (msg.base ?? msg.version - 1)) { // base: said when not the version before
      this.rooms.delete(msg.room);
      this.send({ t: "sync", room: msg.room });
      return;
    }
    const snapshot = applyPatch(held, msg.patch || {});
    snapshot.version = msg.version;
    this.rooms.set(msg.room, snapshot);
    for (const event of msg.events || []) this.dispatch({ t: "event", room: msg.room, version: msg.version, event });
    this.dispatch(structuredClone(snapshot)); // the page may change what it is given
  }

  dispatch(msg) {
    if (msg.ref !== undefined && this.pending.has(msg.ref)) {
      const p = this.pending.get(msg.ref);
      this.pending.delete(msg.ref);
      if (msg.t === "error") p.reject(msg); else p.resolve(msg);
      // a reply that is also a state update (room snapshot, left) is a push too
      if (msg.t === "room" || msg.t === "left") this.emit(msg.t, msg);
      return;
    }
    if (msg.t === "error") { this.emit("error", msg); return; }
    this.emit(msg.t, msg);
  }
}

/**
 * `doc` with `patch` applied (neither is changed), a merge patch (docs/protocol.md,
 * "update"): each member of the patch is the member's new value, or, where the member is
 * an object or a list and the value an object, a patch of the member (a list's items named
 * by index), unless the value's one key is `=`, whose value replaces the member whole.
 * `null` is a value, not a deletion.
 */
export function applyPatch(doc, patch) {
  const out = Array.isArray(doc) ? [...doc] : { ...doc };
  for (const [key, value] of Object.entries(patch)) {
    const member = out[key];
    if (isObject(value) && member !== null && typeof member === "object") {
      const keys = Object.keys(value);
      out[key] = keys.length === 1 && keys[0] === "=" ? value["="] : applyPatch(member, value);
    } else {
      out[key] = value;
    }
  }
  return out;
}

function isObject(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
