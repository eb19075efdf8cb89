// The player's own record (docs/protocol.md, `my_record`): hands played and net chips per
// game, and the last results, each of which opens that hand as the player saw it (the
// `history` of its room, worded as the league pages word a room's hands). A dialog over
// whatever screen is shown (the top bar's "My record" reaches it from the lobby and the
// tables), drawn again when the language changes.

import { h, chips } from "./dom.js";
import { t } from "./i18n.js";
import { handNode, signClass, signedChips, when } from "./league.js";
import { roomName, shortTitle } from "./lobby.js";

const RECENT = 20; // results listed

export class RecordPanel {
  constructor({ conn, store }) {
    this.conn = conn;
    this.store = store;
    this.state = null; // null: closed; {loading} | {record} | {error}, and `hand` when one is open
  }

  /** Open the panel and ask the server for the record (again: it changes with every hand). */
  open() {
    const state = { loading: true };
    this.state = state;
    this.draw();
    this.conn.request({ t: "my_record", last: RECENT }, { quiet: true }).then(
      (record) => { state.record = record; },
      (err) => { state.error = err; },
    ).finally(() => { state.loading = false; if (this.state === state) this.draw(); });
  }

  close() {
    this.state = null;
    this.draw();
  }

  /** Show one result's hand: its room's `history`, the hand of that number in it. */
  openHand(result) {
    const state = this.state;
    const shown = { result, loading: true };
    state.hand = shown;
    this.draw();
    this.conn.request({ t: "history", room: result.room, last: 50 }, { quiet: true }).then(
      (reply) => { shown.hand = (reply.hands || []).find((x) => x.hand === result.hand) || null; },
      () => { shown.hand = null; },
    ).finally(() => { shown.loading = false; if (this.state === state && state.hand === shown) this.draw(); });
  }

  back() {
    if (this.state) this.state.hand = null;
    this.draw();
  }

  /** Draw the dialog as the state says (or take it away). */
  draw() {
    for (const el of document.querySelectorAll(".record-backdrop")) el.remove();
    if (!this.state) return;
    const body = this.state.hand ? this.handBody(this.state.hand) : this.recordBody(this.state);
    const backdrop = h("div", { class: "record-backdrop", onclick: (e) => { if (e.target === e.currentTarget) this.close(); } },
      h("div", { class: "panel record-panel", role: "dialog", "aria-label": t("rec.title"), "data-testid": "record-panel" },
        h("div", { class: "create-head" },
          h("h2", {}, t("rec.title")),
          h("button", { class: "btn ghost", type: "button", "data-testid": "record-close", "aria-label": t("table.close"),
            onclick: () => this.close() }, "✕")),
        body));
    document.body.append(backdrop);
  }

  recordBody(state) {
    if (state.loading) return h("p", { class: "muted" }, t("rec.loading"));
    if (state.error) return h("p", { class: "muted" }, t("rec.failed"));
    const r = state.record;
    const order = this.store.games.map((g) => g.game); // the server's order of its games
    const games = order.filter((g) => r.games[g]).concat(Object.keys(r.games).filter((g) => !order.includes(g)));
    return h("div", { class: "record-body" },
      h("p", { class: "record-total", "data-testid": "record-hands", "data-hands": r.hands },
        t("rec.hands", { n: chips(r.hands) })),
      h("table", { class: "record-games" },
        h("thead", {}, h("tr", {}, h("th", {}, t("rec.game")), h("th", {}, t("rec.game_hands")), h("th", {}, t("rec.net")))),
        h("tbody", {}, games.map((g) => {
          const x = r.games[g];
          return h("tr", { "data-testid": `record-game-${g}`, "data-hands": x.hands, "data-net": x.net },
            h("td", {}, shortTitle(g)), h("td", {}, chips(x.hands)),
            h("td", { class: `hand-net ${signClass(x.net)}` }, signedChips(x.net)));
        }))),
      h("p", { class: "muted small" }, t("rec.play_chips")),
      h("h3", {}, t("rec.recent")),
      r.recent.length
        ? h("ol", { class: "record-recent" }, r.recent.map((x) => this.resultRow(x)))
        : h("p", { class: "muted", "data-testid": "record-empty" }, t("rec.none")));
  }

  resultRow(x) {
    return h("li", { "data-testid": "record-result", "data-room": x.room, "data-hand": x.hand, "data-net": x.net },
      h("span", { class: "record-game" }, shortTitle(x.game)),
      h("span", { class: "record-room" }, t("rec.room_hand", { room: roomName({ name: x.name, game: x.game }, this.store.games), n: x.hand })),
      h("span", { class: "record-when muted small" }, when(x.time_ms)),
      h("span", { class: `record-net hand-net ${signClass(x.net)}` }, signedChips(x.net)),
      h("button", { class: "btn", type: "button", "data-testid": "record-open-hand", onclick: () => this.openHand(x) },
        t("rec.open_hand")));
  }

  handBody(shown) {
    const { result } = shown;
    let hand;
    if (shown.loading) hand = h("p", { class: "muted" }, t("rec.loading"));
    else if (!shown.hand) hand = h("p", { class: "muted", "data-testid": "record-hand-gone" }, t("rec.hand_gone"));
    else hand = handNode(shown.hand, {}, "record-hand");
    return h("div", { class: "record-body" },
      h("div", { class: "row" },
        h("button", { class: "btn ghost", type: "button", "data-testid": "record-back", onclick: () => this.back() }, t("rec.back")),
        h("span", { class: "muted" }, `${shortTitle(result.game)} · ${roomName({ name: result.name, game: result.game }, this.store.games)}`)),
      hand);
  }
}
