// The lobby: pick a name, see the tables live, create one, join a seat or watch,
// and "play now" per game.

import { h, clear, chips, readable, distinctNames } from "./dom.js";
import { storedName } from "./net.js";

const GAME_BLURB = {
  holdem: "No-limit Texas Hold'em: two hole cards, five on the board, bet it all.",
  zhajinhua: "Three-card brag: play blind or look, raise, and compare hands.",
  doudizhu: "Fight the landlord: bid, then two peasants against one landlord.",
};
const GAME_ICON = { holdem: "♠", zhajinhua: "♦", doudizhu: "♥" };
const SHORT_TITLE = { holdem: "Texas Hold'em", zhajinhua: "Zha Jin Hua", doudizhu: "Dou Dizhu" };
const CHINESE = { zhajinhua: "炸金花", doudizhu: "斗地主" };

// The options shown up front in the create form (the rest go under "More rules").
const MAIN_OPTIONS = {
  holdem: ["small_blind", "big_blind", "ante"],
  zhajinhua: ["ante", "max_stake", "compare_after_rounds", "special_235"],
  doudizhu: ["bidding", "stake", "max_multiplier"],
};
// Table settings used by "Play now" and proposed in the create form.
const QUICK = {
  holdem: { seats: 6, config: { small_blind: 5, big_blind: 10 } },
  zhajinhua: { seats: 5, config: {} },
  doudizhu: { seats: 3, config: {} },
};
const LABELS = {
  name: "Table name", seats: "Seats", action_seconds: "Seconds to act",
  between_hands_seconds: "Pause between hands (s)", buy_in_default: "Buy-in",
  buy_in_min: "Smallest buy-in", buy_in_max: "Largest buy-in",
  small_blind: "Small blind", big_blind: "Big blind", ante: "Ante", max_stake: "Max stake",
  compare_after_rounds: "Compare after rounds", special_235: "2-3-5 rule", a23: "A-2-3 straight",
  order: "Hand order", suit_tiebreak: "Suit breaks ties", compare_cost_multiplier: "Compare cost ×",
  max_rounds: "Max rounds", all_in: "All-in rule", timeout: "On timeout",
  bidding: "Bidding", stake: "Chips per point", max_multiplier: "Multiplier cap (0 = none)",
  bots: "Bots", bot_strategy: "Bot strategy", bot_delay_seconds: "Bot thinking time (s)",
  private: "Private table (by invitation link)",
};

export function shortTitle(game) { return SHORT_TITLE[game] || game; }

/** Hide Chinese names where no font can draw them (they would show as empty boxes). */
export function detectCjkFont() {
  const canvas = document.createElement("canvas").getContext("2d");
  canvas.font = "20px sans-serif";
  const cjk = canvas.measureText("炸金花斗地主").width;
  const missing = canvas.measureText("\uE000\uE001\uE002\uE003\uE004\uE005").width;
  if (Math.abs(cjk - missing) < 0.5) document.documentElement.classList.add("no-cjk");
}

export class Lobby {
  constructor({ conn, store, app }) {
    this.conn = conn;
    this.store = store;
    this.app = app;
    this.root = null;
    this.creating = null; // game name whose create form is open
    this.filter = { game: "", stakes: "" }; // the room list's filters ("" = all)
  }

  // --- the name form ---------------------------------------------------------------------

  renderName(main) {
    if (main.querySelector("[data-testid=name-form]")) return;
    const input = h("input", { id: "name-input", "data-testid": "name-input", maxlength: 32,
      placeholder: "Your name", autocomplete: "nickname", value: storedName(), required: true });
    const form = h("form", { class: "panel name-panel", "data-testid": "name-form",
      onsubmit: (e) => {
        e.preventDefault();
        const name = input.value.trim();
        if (!name) { this.app.toast("Pick a name first.", "error"); return; }
        form.querySelector("button").disabled = true;
        this.app.enter(name);
      } },
    h("h1", {}, "Welcome to the card room"),
    h("p", { class: "muted" }, "Texas Hold'em, Zha Jin Hua and Dou Dizhu, played with real people (and bots) in your browser. Play chips only."),
    h("label", { for: "name-input" }, "Choose a display name"),
    h("div", { class: "row" }, input,
      h("button", { type: "submit", class: "btn primary", "data-testid": "name-submit" }, "Enter")),
    );
    clear(main).append(form);
    this.root = null;
    input.focus();
  }

  // --- the lobby -------------------------------------------------------------------------

  render(main) {
    if (this.root && main.contains(this.root)) { this.update(); return; }
    this.root = h("div", { class: "lobby", "data-testid": "lobby" },
      h("section", { class: "games", "data-testid": "games" }),
      h("section", { class: "panel create-panel hidden", "data-testid": "create-panel" }),
      h("section", { class: "panel rooms-panel" },
        h("div", { class: "rooms-head" },
          h("h2", {}, "Tables"),
          h("div", { class: "room-filters" },
            h("select", { "data-testid": "filter-game", "aria-label": "game", onchange: (e) => { this.filter.game = e.target.value; this.filter.stakes = ""; this.renderRooms(); } }),
            h("select", { "data-testid": "filter-stakes", "aria-label": "stakes", onchange: (e) => { this.filter.stakes = e.target.value; this.renderRooms(); } }),
            h("span", { class: "muted small" }, "updates live"))),
        h("div", { class: "rooms", "data-testid": "rooms" })),
      h("p", { class: "muted small foot" },
        "Playing as ", h("b", {}, this.store.welcome.name), ". ",
        h("a", { href: "#", onclick: (e) => { e.preventDefault(); this.app.signOut(); } }, "Play as someone else")),
    );
    clear(main).append(this.root);
    this.creating = null;
    this.update();
  }

  update() {
    if (!this.root || !this.root.isConnected) return;
    this.renderGames();
    this.renderRooms();
  }

  gameInfo(game) { return this.store.games.find((g) => g.game === game); }

  renderGames() {
    const box = this.root.querySelector(".games");
    if (box.childElementCount && box.dataset.n === String(this.store.games.length)) return;
    box.dataset.n = String(this.store.games.length);
    clear(box);
    for (const g of this.store.games) {
      box.append(h("div", { class: `game-tile ${g.game}`, "data-testid": `game-${g.game}` },
        h("div", { class: "game-icon" }, GAME_ICON[g.game] || "♣"),
        h("div", { class: "game-text" },
          h("h3", {}, shortTitle(g.game), CHINESE[g.game] ? h("span", { class: "zh", lang: "zh" }, ` ${CHINESE[g.game]}`) : null),
          h("p", { class: "muted small" }, GAME_BLURB[g.game] || "",
            ` ${g.min_players === g.max_players ? g.min_players : `${g.min_players}–${g.max_players}`} players.`)),
        h("div", { class: "game-buttons" },
          h("button", { class: "btn primary", "data-testid": `play-now-${g.game}`,
            onclick: (e) => this.playNow(g.game, e.currentTarget) },
          h("span", { class: "wide-only" }, "Play now against bots"), h("span", { class: "narrow-only" }, "Play vs bots")),
          h("button", { class: "btn", "data-testid": `quick-${g.game}`, title: "Sit down at an open table of this game (or a new one)",
            onclick: async (e) => {
              const b = e.currentTarget;
              b.disabled = true;
              try { await this.app.quickMatch(g.game, this.filter.game === g.game ? stakeOf(g.game, this.filter.stakes) : null); } finally { b.disabled = false; }
            } }, "Quick match"),
          h("button", { class: "btn", "data-testid": `create-${g.game}`,
            onclick: () => this.openCreate(g.game) },
          h("span", { class: "wide-only" }, "Create a table…"), h("span", { class: "narrow-only" }, "New table…"))),
      ));
    }
  }

  /** The filter selects: every game, and the stakes of the chosen game's tables. */
  renderFilters() {
    const game = this.root.querySelector("[data-testid=filter-game]");
    const stakes = this.root.querySelector("[data-testid=filter-stakes]");
    clear(game).append(h("option", { value: "" }, "All games"),
      ...this.store.games.map((g) => h("option", { value: g.game, selected: g.game === this.filter.game }, shortTitle(g.game))));
    const levels = [...new Set(this.store.rooms.filter((r) => r.game === this.filter.game).map(describeStakes).filter(Boolean))];
    if (this.filter.stakes && !levels.includes(this.filter.stakes)) levels.push(this.filter.stakes);
    clear(stakes).append(h("option", { value: "" }, "All stakes"),
      ...levels.sort((a, b) => firstNumber(a) - firstNumber(b)).map((l) => h("option", { value: l, selected: l === this.filter.stakes }, l)));
    stakes.classList.toggle("hidden", !this.filter.game);
  }

  renderRooms() {
    this.renderFilters();
    const box = clear(this.root.querySelector(".rooms"));
    const rooms = this.store.rooms.filter((r) => (!this.filter.game || r.game === this.filter.game)
      && (!this.filter.stakes || describeStakes(r) === this.filter.stakes));
    if (!rooms.length) {
      box.append(h("p", { class: "muted empty" }, this.store.rooms.length
        ? "No table matches: change the filter, or press “Quick match”."
        : "No tables yet. Create one, or press “Play now”."));
      return;
    }
    const mine = this.store.seated;
    // two tables with the same name (two players may share one) get a short id suffix
    const names = distinctNames(rooms.map((r) => ({ name: readable(r.name), id: r.room })));
    for (const [i, r] of rooms.entries()) {
      const full = r.players >= r.seats;
      const seated = mine.has(r.room);
      const stakes = describeStakes(r);
      box.append(h("div", { class: "room-row", "data-testid": `room-${r.room}`, "data-room": r.room, "data-game": r.game },
        h("div", { class: "room-game" }, GAME_ICON[r.game] || "♣"),
        h("div", { class: "room-main" },
          h("div", { class: "room-name", "data-testid": "room-name", title: `${readable(r.name)} (${r.room})` }, names[i]),
          h("div", { class: "muted small" }, shortTitle(r.game),
            stakes ? ` · ${stakes}` : "",
            ` · `, h("span", { "data-testid": "room-players" }, `${r.players}/${r.seats} seated`),
            r.bots ? ` (${r.bots} bot${r.bots > 1 ? "s" : ""})` : "",
            r.spectators !== undefined ? ` · ${r.spectators} watching` : "",
            r.playing ? h("span", { class: "live" }, " · playing") : h("span", {}, " · waiting"))),
        h("div", { class: "room-buttons" },
          seated
            ? h("button", { class: "btn primary", "data-testid": `open-${r.room}`,
              onclick: () => this.app.openRoom(r.room) }, "Return")
            : h("button", { class: "btn primary", "data-testid": `join-${r.room}`, disabled: full,
              onclick: () => this.app.join(r.room) }, full ? "Full" : "Join"),
          h("button", { class: "btn", "data-testid": `watch-${r.room}`,
            onclick: () => this.app.spectate(r.room) }, "Watch")),
      ));
    }
  }

  // --- play now ---------------------------------------------------------------------------

  async playNow(game, button) {
    const info = this.gameInfo(game);
    const quick = QUICK[game] || { seats: info.max_players, config: {} };
    const seats = Math.min(Math.max(quick.seats, info.min_players), info.max_players);
    const options = { seats, name: `${this.store.welcome.name}'s ${shortTitle(game)} table` };
    const botsOption = (info.room_options || []).find((o) => o.name === "bots");
    if (botsOption) {
      let bots = seats - 1;
      if (botsOption.max !== undefined) bots = Math.min(bots, botsOption.max);
      if (botsOption.min !== undefined) bots = Math.max(bots, botsOption.min);
      options.bots = bots;
    }
    if (button) button.disabled = true;
    try {
      const snap = await this.conn.request({ t: "create_room", game, options, config: quick.config });
      await this.app.join(snap.room);
      if (!botsOption) this.app.toast("Table created. Waiting for other players to join (this server offers no bots for this game).", "info", 6000);
    } catch (err) { /* toast */ } finally {
      if (button) button.disabled = false;
    }
  }

  // --- create a table ----------------------------------------------------------------------

  openCreate(game) {
    const info = this.gameInfo(game);
    const panel = this.root.querySelector(".create-panel");
    this.creating = game;
    clear(panel).classList.remove("hidden");
    const quick = QUICK[game] || { seats: info.max_players, config: {} };
    const roomOpts = info.room_options || [];
    const fields = [];
    const more = [];
    const field = (scope, o, value) => {
      const node = optionField(scope, o, value);
      const main = scope === "options"
        ? ["name", "seats", "bots", "action_seconds", "buy_in_default"].includes(o.name)
        : (MAIN_OPTIONS[game] || []).includes(o.name);
      (main ? fields : more).push(node);
    };
    for (const o of roomOpts) {
      let value = o.default;
      if (o.name === "seats") value = Math.min(Math.max(quick.seats, o.min ?? 2), o.max ?? 10);
      if (o.name === "name") value = `${this.store.welcome.name}'s ${shortTitle(game)} table`;
      field("options", o, value);
    }
    for (const o of info.options || []) field("config", o, quick.config[o.name] ?? o.default);
    const sit = h("input", { type: "checkbox", checked: true, "data-testid": "create-sit" });
    const form = h("form", { "data-testid": "create-form", "data-game": game,
      onsubmit: (e) => { e.preventDefault(); this.submitCreate(game, form, sit.checked); } },
    h("div", { class: "create-head" },
      h("h2", {}, `New ${shortTitle(game)} table`),
      h("button", { type: "button", class: "btn ghost", "aria-label": "close",
        onclick: () => { panel.classList.add("hidden"); this.creating = null; } }, "✕")),
    h("div", { class: "fields" }, fields),
    more.length ? h("details", { class: "more" }, h("summary", {}, "More rules and settings"), h("div", { class: "fields" }, more)) : null,
    h("div", { class: "row end" },
      h("label", { class: "check" }, sit, " Sit down at once"),
      h("button", { type: "submit", class: "btn primary", "data-testid": "create-submit" }, "Create table")),
    );
    panel.append(form);
    panel.scrollIntoView({ block: "nearest" });
  }

  async submitCreate(game, form, sitDown) {
    const options = {};
    const config = {};
    for (const el of form.querySelectorAll("[data-opt]")) {
      const value = readOption(el);
      if (value === undefined) continue;
      (el.dataset.scope === "options" ? options : config)[el.dataset.opt] = value;
    }
    const button = form.querySelector("[data-testid=create-submit]");
    button.disabled = true;
    try {
      const snap = await this.conn.request({ t: "create_room", game, options, config });
      this.root.querySelector(".create-panel").classList.add("hidden");
      this.creating = null;
      if (sitDown) await this.app.join(snap.room);
      else await this.app.spectate(snap.room);
    } catch (err) {
      if (err.field) {
        const name = err.field.replace(/^config\./, "");
        const el = form.querySelector(`[data-opt="${name}"]`);
        if (el) {
          const details = el.closest("details");
          if (details) details.open = true;
          el.classList.add("invalid");
          el.focus();
        }
      }
    } finally {
      button.disabled = false;
    }
  }
}

function optionField(scope, o, value) {
  const id = `opt-${scope}-${o.name}`;
  let input;
  const common = { id, "data-opt": o.name, "data-scope": scope, "data-type": o.type,
    "data-testid": `opt-${o.name}`, title: o.doc };
  if (o.choices) {
    input = h("select", common, o.choices.map((c) => h("option", { value: String(c), selected: c === value }, String(c))));
  } else if (o.type === "bool") {
    input = h("input", { ...common, type: "checkbox", checked: Boolean(value) });
  } else if (o.type === "int" || o.type === "float") {
    input = h("input", { ...common, type: "number", value: String(value), min: o.min, max: o.max,
      step: o.type === "float" ? "any" : "1", inputmode: "numeric" });
  } else {
    input = h("input", { ...common, type: "text", value: String(value ?? ""), maxlength: 64 });
  }
  input.addEventListener("input", () => input.classList.remove("invalid"));
  return h("div", { class: `field ${o.type === "bool" ? "bool" : ""}` },
    h("label", { for: id, title: o.doc }, LABELS[o.name] || o.name.replaceAll("_", " ")),
    input,
    h("div", { class: "doc" }, o.doc));
}

function readOption(el) {
  const type = el.dataset.type;
  if (type === "bool") return el.checked;
  if (type === "int") { const n = parseInt(el.value, 10); return Number.isNaN(n) ? undefined : n; }
  if (type === "float") { const n = parseFloat(el.value); return Number.isNaN(n) ? undefined : n; }
  if (el.value === "") return undefined;
  return el.value;
}

/** Stakes text from a lobby room summary, when the server includes the table config. */
function describeStakes(r) {
  const c = r.config || r.stakes;
  if (!c || typeof c !== "object") return "";
  if (r.game === "holdem" && c.small_blind) return `blinds ${chips(c.small_blind)}/${chips(c.big_blind)}`;
  if (r.game === "zhajinhua" && c.ante) return `ante ${chips(c.ante)}`;
  if (r.game === "doudizhu" && c.stake) return `${chips(c.stake)} per point`;
  return "";
}

function firstNumber(text) {
  const m = String(text).replace(/,/g, "").match(/\d+/);
  return m ? Number(m[0]) : 0;
}

/** The quick match `stake` of a stakes filter ("blinds 5/10" → 10, "ante 10" → 10, "10 per point" → 10). */
function stakeOf(game, text) {
  if (!text) return null;
  const nums = String(text).replace(/,/g, "").match(/\d+/g) || [];
  return Number(game === "holdem" ? nums[nums.length - 1] : nums[0]) || null;
}
