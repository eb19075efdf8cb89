// The table chat: the room's last lines (the `chat` message after each snapshot, then the
// `chat` events of its updates), a line to type, quick phrases and emotes, and muting.
//
// Muting is this browser's own: the players you mute (kept in localStorage) are hidden
// from your chat, whatever room they talk in; nobody else is told. Who may talk: a player
// seated at the table, or anyone watching where the room lets spectators talk
// (`spectator_chat`); the server checks it too (docs/protocol.md, `say`).

import { h } from "./dom.js";
import { t } from "./i18n.js";

const MUTED_KEY = "cardroom.muted";
const KEPT = 60; // lines a room keeps here (the server sends its last 30 on each snapshot)
export const EMOTES = ["👍", "😂", "😮", "😢", "🎉", "🙏"];
export const PHRASES = ["chat.p.gl", "chat.p.nh", "chat.p.wp", "chat.p.ty", "chat.p.hurry"];

/** The players muted in this browser (ids). */
export function mutedPlayers() {
  try { return new Set(JSON.parse(localStorage.getItem(MUTED_KEY) || "[]")); } catch (err) { return new Set(); }
}

function saveMuted(set) {
  try { localStorage.setItem(MUTED_KEY, JSON.stringify([...set])); } catch (err) { /* private mode */ }
}

export class Chat {
  constructor({ conn, store, app }) {
    this.conn = conn;
    this.store = store;
    this.app = app;
    this.lines = new Map(); // room id -> its lines (chat events), oldest first
    this.drafts = new Map(); // room id -> what is being typed
    this.muted = mutedPlayers();
    this.unread = new Map(); // room id -> lines said while its chat was not on screen
  }

  /** "· 2 new in chat" beside the folded panel's heading; none once the panel is open. */
  unreadBadge(roomId, open) {
    if (open) this.unread.delete(roomId);
    const n = this.unread.get(roomId) || 0;
    return n ? h("span", { class: "chat-unread", "data-testid": "chat-unread" }, t("chat.unread", { n })) : null;
  }

  /** The `chat` message: the room's last lines, after a snapshot (they replace ours). */
  onLines(msg) {
    this.lines.set(msg.room, (msg.lines || []).slice(-KEPT));
    this.redraw(msg.room);
  }

  /** A `chat` event of an update: one new line. */
  onLine(roomId, ev) {
    const lines = this.lines.get(roomId) || [];
    lines.push(ev);
    this.lines.set(roomId, lines.slice(-KEPT));
    const me = this.store.welcome && this.store.welcome.player;
    if (this.muted.has(ev.player)) return;
    const shown = this.store.current === roomId ? document.querySelector("[data-testid=chat-list]") : null;
    if (shown && shown.offsetParent !== null) {
      shown.append(this.lineNode(ev, me));
      shown.scrollTop = shown.scrollHeight;
    } else if (ev.player !== me) { // the chat is not on screen (another room, or the panel is closed)
      if (shown) this.redraw(roomId);
      this.unread.set(roomId, (this.unread.get(roomId) || 0) + 1);
      const toggle = this.store.current === roomId ? document.querySelector(".history-toggle") : null;
      if (toggle) {
        const old = toggle.querySelector("[data-testid=chat-unread]");
        const badge = this.unreadBadge(roomId, false);
        if (old) old.replaceWith(badge); else toggle.append(badge);
      }
      this.app.toast(`${ev.name}: ${ev.text}`, "chat", 5000);
    }
  }

  mayTalk(snap) {
    return snap.your_seat !== null || Boolean(snap.options && snap.options.spectator_chat);
  }

  /** The chat section of a table's side panel. */
  node(snap) {
    const room = snap.room;
    const me = this.store.welcome && this.store.welcome.player;
    const list = h("ol", { class: "chat-list", "data-testid": "chat-list", "aria-live": "polite" },
      (this.lines.get(room) || []).filter((l) => !this.muted.has(l.player)).map((l) => this.lineNode(l, me)));
    const hidden = [...this.muted].filter((p) => (this.lines.get(room) || []).some((l) => l.player === p)).length;
    const box = h("section", { class: "chat-box", "data-testid": "chat" },
      h("h3", { class: "chat-title" }, t("chat.title")),
      list,
      this.muted.size ? h("button", { class: "linkish small", type: "button", "data-testid": "chat-unmute-all",
        onclick: () => { this.muted.clear(); saveMuted(this.muted); this.redraw(room); } },
      t("chat.unmute_all", { n: this.muted.size }) + (hidden ? ` · ${t("chat.hidden", { n: hidden })}` : "")) : null,
      this.mayTalk(snap) ? this.form(room) : h("p", { class: "muted small", "data-testid": "chat-closed" },
        t("chat.spectators_cannot")));
    requestAnimationFrame(() => { list.scrollTop = list.scrollHeight; });
    return box;
  }

  lineNode(line, me) {
    const mine = line.player === me;
    return h("li", { class: `chat-line${mine ? " mine" : ""}${line.seat === null ? " watcher" : ""}`,
      "data-player": line.player },
    h("b", { class: "chat-name" }, line.name), ": ", h("span", { class: "chat-text" }, line.text),
    mine ? null : h("button", { class: "chat-mute", type: "button", title: t("chat.mute", { name: line.name }),
      "aria-label": t("chat.mute", { name: line.name }), "data-testid": `chat-mute-${line.player}`,
      onclick: () => this.mute(line.player) }, "🔇"));
  }

  form(room) {
    const input = h("input", { class: "chat-input", "data-testid": "chat-input", maxlength: 200,
      placeholder: t("chat.placeholder"), "aria-label": t("chat.placeholder"), value: this.drafts.get(room) || "",
      oninput: (e) => this.drafts.set(room, e.target.value) });
    const send = (text) => this.say(room, text, text === input.value ? input : null);
    return h("div", { class: "chat-talk" },
      h("div", { class: "chat-quick", "data-testid": "chat-quick" },
        EMOTES.map((e) => h("button", { class: "chat-chip emote", type: "button", "data-testid": "chat-emote",
          onclick: () => send(e) }, e)),
        PHRASES.map((key) => h("button", { class: "chat-chip", type: "button", "data-testid": `chat-phrase-${key.slice(7)}`,
          onclick: () => send(t(key)) }, t(key)))),
      h("form", { class: "chat-form", onsubmit: (e) => { e.preventDefault(); if (input.value.trim()) send(input.value); } },
        input, h("button", { class: "btn small", type: "submit", "data-testid": "chat-send" }, t("chat.send"))));
  }

  async say(room, text, input) {
    try {
      await this.conn.request({ t: "say", room, text });
      if (input) { input.value = ""; this.drafts.delete(room); }
    } catch (err) { /* shown as a toast */ }
  }

  mute(player) {
    this.muted.add(player);
    saveMuted(this.muted);
    this.redraw(this.store.current);
  }

  /** Draw the chat of the room shown again (its lines changed, or who is muted). */
  redraw(roomId) {
    if (!roomId || this.store.current !== roomId) return;
    const old = document.querySelector("[data-testid=chat]");
    const snap = this.store.snaps.get(roomId);
    if (!old || !snap) return;
    const focused = document.activeElement && document.activeElement.dataset
      && document.activeElement.dataset.testid === "chat-input";
    const fresh = this.node(snap);
    old.replaceWith(fresh);
    if (focused) fresh.querySelector("[data-testid=chat-input]").focus({ preventScroll: true });
  }
}

