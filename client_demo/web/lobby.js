// The lobby: pick a name, see the tables live, create one, join a seat or watch,
// "play now" per game, and the way to the bot leagues (league.js).

import { h, clear, chips, readable, distinctNames } from "./dom.js";
import { storedName } from "./net.js";
import { t, tIn, tMaybe, tParts, lang, LANGS, STRINGS } from "./i18n.js";
import { gameIcon, gameInfo, gameModule } from "./games.js";

// The room options shown up front in the create form (a game's own hand options up front are
// its descriptor's `main_options`; the rest go under "More rules").
const MAIN_ROOM_OPTIONS = ["name", "seats", "bots", "action_seconds", "time_bank_seconds", "buy_in_default"];

/** The table "Play now" opens and the create form proposes (the descriptor's `quick`). */
function quickTable(info) {
  return info.quick || { seats: info.max_players, config: {} };
}
export function shortTitle(game) { return tMaybe(`game.${game}`, {}, game); }

/**
 * A table's name in the page's language when the server or a page made it rather than a
 * player: the server's default name (the game's `name` option, "Texas Hold'em table",
 * which quick match's tables get) and the name Play now gives in either language ("Sam's
 * Texas Hold'em table", "Sam的德州扑克桌"). A name a player typed is shown as it is.
 */
export function roomName(room, games) {
  const info = games.find((g) => g.game === room.game);
  const option = ((info && info.room_options) || []).find((o) => o.name === "name");
  if (option && room.name === option.default) return t("lobby.default_table", { game: shortTitle(room.game) });
  for (const language of LANGS) {
    const owner = playNowOwner(language, room);
    if (owner) return t("lobby.table_name", { name: owner, game: shortTitle(room.game) });
  }
  return readable(room.name);
}

/** The player a Play now name of `language` ("Sam's Texas Hold'em table") names, or null. */
function playNowOwner(language, room) {
  const game = STRINGS[language][`game.${room.game}`];
  if (!game) return null;
  const [before, after] = tIn(language, "lobby.table_name", { name: "\u0000", game }).split("\u0000");
  const name = String(room.name);
  if (name.length <= before.length + after.length || !name.startsWith(before) || !name.endsWith(after)) return null;
  return name.slice(before.length, name.length - after.length);
}

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
      placeholder: t("lobby.name_placeholder"), autocomplete: "nickname", value: storedName(), required: true });
    const form = h("form", { class: "panel name-panel", "data-testid": "name-form",
      onsubmit: (e) => {
        e.preventDefault();
        const name = input.value.trim();
        if (!name) { this.app.toast(t("lobby.pick_name"), "error"); return; }
        form.querySelector("button").disabled = true;
        this.app.enter(name);
      } },
    h("h1", {}, t("lobby.welcome")),
    h("p", { class: "muted" }, t("lobby.intro")),
    h("label", { for: "name-input" }, t("lobby.choose_name")),
    h("div", { class: "row" }, input,
      h("button", { type: "submit", class: "btn primary", "data-testid": "name-submit" }, t("lobby.enter"))),
    );
    clear(main).append(form);
    this.root = null;
    input.focus();
  }

  /** An operator banned this player. */
  renderBanned(main, reason) {
    if (main.querySelector("[data-testid=banned]")) return;
    clear(main).append(h("div", { class: "panel name-panel", "data-testid": "banned" },
      h("h1", {}, t("lobby.banned")), h("p", { class: "muted" }, reason || "")));
    this.root = null;
  }

  /** This server takes players signed in by its operator's site only (auth_required). */
  renderSignIn(main, loginUrl) {
    if (main.querySelector("[data-testid=sign-in-needed]")) return;
    const safe = typeof loginUrl === "string" && /^https?:\/\//.test(loginUrl);
    clear(main).append(h("div", { class: "panel name-panel", "data-testid": "sign-in-needed" },
      h("h1", {}, t("lobby.welcome")),
      h("p", {}, t("lobby.sign_in_needed")),
      safe ? h("p", { class: "sign-in-row" }, h("a", { class: "btn primary", href: loginUrl, "data-testid": "sign-in-link" },
        t("lobby.sign_in"))) : null));
    this.root = null;
  }

  // --- the lobby -------------------------------------------------------------------------

  render(main) {
    if (this.root && main.contains(this.root)) { this.update(); return; }
    this.root = h("div", { class: "lobby", "data-testid": "lobby" },
      h("section", { class: "games", "data-testid": "games" }),
      this.codePanel(),
      h("section", { class: "panel create-panel hidden", "data-testid": "create-panel" }),
      h("section", { class: "panel rooms-panel" },
        h("div", { class: "rooms-head" },
          h("h2", {}, t("lobby.tables")),
          h("div", { class: "room-filters" },
            h("select", { "data-testid": "filter-game", "aria-label": t("lobby.game"), onchange: (e) => { this.filter.game = e.target.value; this.filter.stakes = ""; this.renderRooms(); } }),
            h("select", { "data-testid": "filter-stakes", "aria-label": t("lobby.stakes"), onchange: (e) => { this.filter.stakes = e.target.value; this.renderRooms(); } }),
            h("span", { class: "muted small wide-only" }, t("lobby.live")),
            h("button", { class: "btn small leagues-btn", type: "button", "data-testid": "open-leagues",
              title: t("lobby.leagues_title"), onclick: () => this.app.openLeagues() }, t("lobby.leagues")))),
        h("div", { class: "rooms", "data-testid": "rooms" })),
      h("p", { class: "muted small foot" },
        t("lobby.playing_as"), h("b", {}, this.store.welcome.name), lang() === "zh" ? "。" : ". ",
        h("a", { href: "#", onclick: (e) => { e.preventDefault(); this.app.signOut(); } }, t("lobby.someone_else"))),
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
        h("div", { class: "game-icon" }, gameIcon(g.game)),
        h("div", { class: "game-text" },
          h("h3", {}, shortTitle(g.game)),
          h("p", { class: "muted small" }, tMaybe(`blurb.${g.game}`, {}, ""),
            ` ${t("lobby.players", { n: g.min_players === g.max_players ? g.min_players : `${g.min_players}–${g.max_players}` })}`)),
        h("div", { class: "game-buttons" },
          h("button", { class: "btn primary", "data-testid": `play-now-${g.game}`,
            onclick: (e) => this.playNow(g.game, e.currentTarget) },
          h("span", { class: "wide-only" }, t("lobby.play_now")), h("span", { class: "narrow-only" }, t("lobby.play_now_short"))),
          h("button", { class: "btn", "data-testid": `quick-${g.game}`, title: t("lobby.quick_title"),
            onclick: async (e) => {
              const b = e.currentTarget;
              b.disabled = true;
              try { await this.app.quickMatch(g.game, this.filter.game === g.game ? stakeOf(g.game, this.filter.stakes, this.store.rooms) : null); } finally { b.disabled = false; }
            } }, t("lobby.quick")),
          h("button", { class: "btn", "data-testid": `create-${g.game}`,
            onclick: () => this.openCreate(g.game) },
          h("span", { class: "wide-only" }, t("lobby.create")), h("span", { class: "narrow-only" }, t("lobby.create_short")))),
      ));
    }
  }

  /** The filter selects: every game, and the stakes of the chosen game's tables. */
  renderFilters() {
    const game = this.root.querySelector("[data-testid=filter-game]");
    const stakes = this.root.querySelector("[data-testid=filter-stakes]");
    clear(game).append(h("option", { value: "" }, t("lobby.all_games")),
      ...this.store.games.map((g) => h("option", { value: g.game, selected: g.game === this.filter.game }, shortTitle(g.game))));
    const levels = [...new Set(this.store.rooms.filter((r) => r.game === this.filter.game).map(describeStakes).filter(Boolean))];
    if (this.filter.stakes && !levels.includes(this.filter.stakes)) levels.push(this.filter.stakes);
    clear(stakes).append(h("option", { value: "" }, t("lobby.all_stakes")),
      ...levels.sort((a, b) => firstNumber(a) - firstNumber(b)).map((l) => h("option", { value: l, selected: l === this.filter.stakes }, l)));
    stakes.classList.toggle("hidden", !this.filter.game);
  }

  renderRooms() {
    this.renderFilters();
    const box = this.root.querySelector(".rooms");
    // a row whose table did not change is kept as it is (the same element, moved into
    // place): a click on its Join or Watch that a push of the lobby (several a second on a
    // busy server) lands between would otherwise hit a row already replaced, and be lost
    const kept = new Map([...box.querySelectorAll(".room-row")].map((el) => [el.dataset.room, el]));
    clear(box);
    const rooms = this.store.rooms.filter((r) => (!this.filter.game || r.game === this.filter.game)
      && (!this.filter.stakes || describeStakes(r) === this.filter.stakes));
    if (!rooms.length) {
      // the play button by the label it has on this screen ("Play vs bots" on a phone)
      const play = [h("span", { class: "wide-only" }, t("lobby.play_now")), h("span", { class: "narrow-only" }, t("lobby.play_now_short"))];
      box.append(h("p", { class: "muted empty" }, this.store.rooms.length
        ? t("lobby.no_match")
        : tParts("lobby.no_tables", { play })));
      return;
    }
    const mine = this.store.seated;
    // two tables with the same name (two players may share one) get a short id suffix
    const names = distinctNames(rooms.map((r) => ({ name: roomName(r, this.store.games), id: r.room })));
    for (const [i, r] of rooms.entries()) {
      const full = r.players >= r.seats;
      const seated = mine.has(r.room);
      const stakes = describeStakes(r);
      const shown = JSON.stringify([r, seated, names[i], lang()]);
      const row = kept.get(r.room);
      if (row && row.dataset.shown === shown) {
        box.append(row);
        continue;
      }
      box.append(h("div", { class: "room-row", "data-testid": `room-${r.room}`, "data-room": r.room, "data-game": r.game,
        "data-shown": shown },
        h("div", { class: "room-game" }, gameIcon(r.game)),
        h("div", { class: "room-main" },
          h("div", { class: "room-name", "data-testid": "room-name", title: `${roomName(r, this.store.games)} (${r.room})` }, names[i]),
          h("div", { class: "muted small" }, shortTitle(r.game),
            stakes ? ` · ${stakes}` : "",
            ` · `, h("span", { "data-testid": "room-players" }, t("lobby.seated", { p: r.players, n: r.seats })),
            r.bots ? t("lobby.bots", { n: r.bots }) : "",
            r.spectators !== undefined ? t("lobby.watching", { n: r.spectators }) : "",
            r.playing ? h("span", { class: "live" }, t("lobby.playing")) : h("span", {}, t("lobby.waiting")))),
        h("div", { class: "room-buttons" },
          seated
            ? h("button", { class: "btn primary", "data-testid": `open-${r.room}`,
              onclick: () => this.app.openRoom(r.room) }, t("lobby.return"))
            : h("button", { class: "btn primary", "data-testid": `join-${r.room}`, disabled: full || r.locked,
              onclick: () => this.app.join(r.room) }, t(r.locked ? "lobby.locked" : full ? "lobby.full" : "lobby.join")),
          h("button", { class: "btn", "data-testid": `watch-${r.room}`,
            onclick: () => this.app.spectate(r.room) }, t("lobby.watch"))),
      ));
    }
  }

  // --- join with a code --------------------------------------------------------------------

  /**
   * "Join with a code": a private room's invitation code, alone (`find_room` names its
   * table) or with the table number (`r-…`, shown beside the code at the table), or the
   * invitation link pasted into either field. Sits you down (`join` with `code`), or lets
   * you watch when every seat is taken; a wrong code or table is said in the form.
   */
  codePanel() {
    const room = h("input", { type: "text", "data-testid": "code-room", maxlength: 300, autocomplete: "off",
      spellcheck: "false", placeholder: t("lobby.code_room_ph"), "aria-label": t("lobby.code_room") });
    const code = h("input", { type: "text", "data-testid": "code-input", maxlength: 300, autocomplete: "off",
      spellcheck: "false", autocapitalize: "characters", placeholder: t("lobby.code_ph"), "aria-label": t("lobby.code") });
    const error = h("div", { class: "form-error hidden", "data-testid": "code-error", role: "alert" });
    const button = h("button", { type: "submit", class: "btn", "data-testid": "code-join" }, t("lobby.code_join"));
    const say = (text, field = null) => {
      error.textContent = text;
      error.classList.toggle("hidden", !text);
      for (const el of [room, code]) el.classList.toggle("invalid", el === field);
      if (field) field.focus();
    };
    for (const el of [room, code]) el.addEventListener("input", () => say(""));
    const form = h("form", { class: "code-form", "data-testid": "code-form",
      onsubmit: async (e) => {
        e.preventDefault();
        const invite = parseInvite(room.value, code.value);
        if (!invite.code) { say(t("lobby.code_need_code"), code); return; }
        say("");
        button.disabled = true;
        try {
          if (!invite.room) { // the code alone: the server knows its table
            try {
              invite.room = (await this.conn.request({ t: "find_room", code: invite.code }, { quiet: true })).room;
            } catch (err) {
              if (err.code !== "bad_code") throw err;
              say(t("lobby.code_unknown", { code: invite.code }), code);
              return;
            }
          }
          await this.app.joinWithCode(invite.room, invite.code);
        } catch (err) {
          if (err.code === "bad_code") say(t("lobby.code_bad", { room: invite.room }), code);
          else if (err.code === "no_such_room" || err.code === "bad_message") say(t("lobby.code_no_room", { room: invite.room }), room);
          else say(tMaybe(`err.${err.code}`, {}, err.message || t("err.generic")));
        } finally {
          button.disabled = false;
        }
      } },
    h("label", { class: "code-title", for: "code-room-input" }, t("lobby.code_title")),
    h("div", { class: "code-fields" }, Object.assign(room, { id: "code-room-input" }), code, button),
    error);
    return h("section", { class: "panel code-panel", "data-testid": "code-panel" }, form);
  }

  // --- play now ---------------------------------------------------------------------------

  async playNow(game, button) {
    const info = this.gameInfo(game);
    const quick = quickTable(info);
    const seats = Math.min(Math.max(quick.seats, info.min_players), info.max_players);
    const options = { seats, name: t("lobby.table_name", { name: this.store.welcome.name, game: shortTitle(game) }) };
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
      if (!botsOption) this.app.toast(t("lobby.no_bots"), "info", 6000);
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
    const quick = quickTable(info);
    const roomOpts = info.room_options || [];
    const fields = [];
    const more = [];
    const field = (scope, o, value) => {
      const node = optionField(game, scope, o, value);
      const own = info.main_options || [];
      const main = scope === "options" ? MAIN_ROOM_OPTIONS.includes(o.name) : !own.length || own.includes(o.name);
      (main ? fields : more).push(node);
    };
    for (const o of roomOpts) {
      let value = o.default;
      if (o.name === "seats") value = Math.min(Math.max(quick.seats, o.min ?? 2), o.max ?? 10);
      if (o.name === "name") value = t("lobby.table_name", { name: this.store.welcome.name, game: shortTitle(game) });
      field("options", o, value);
    }
    for (const o of info.options || []) field("config", o, quick.config[o.name] ?? o.default);
    const sit = h("input", { type: "checkbox", checked: true, "data-testid": "create-sit" });
    const form = h("form", { "data-testid": "create-form", "data-game": game,
      onsubmit: (e) => { e.preventDefault(); this.submitCreate(game, form, sit.checked); } },
    h("div", { class: "create-head" },
      h("h2", {}, t("lobby.new_table", { game: shortTitle(game) })),
      h("button", { type: "button", class: "btn ghost", "aria-label": t("table.close"),
        onclick: () => { panel.classList.add("hidden"); this.creating = null; } }, "✕")),
    h("div", { class: "fields" }, fields),
    more.length ? h("details", { class: "more" }, h("summary", {}, t("lobby.more")), h("div", { class: "fields" }, more)) : null,
    h("div", { class: "row end" },
      h("label", { class: "check" }, sit, t("lobby.sit_at_once")),
      h("button", { type: "submit", class: "btn primary", "data-testid": "create-submit" }, t("lobby.create_submit"))),
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
        const name = err.field.replace(/^(options|config)\./, "");
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

/**
 * An option's label, help text or choice in the page's language: the key for this game
 * first (`opt.holdem.ante`: Hold'em's ante is not Zha Jin Hua's), then the option's own;
 * `fallback` (the server's words) only for an option the page does not know, e.g. of a
 * game added to the server.
 */
function optionText(prefix, game, name, fallback) {
  return tMaybe(`${prefix}.${game}.${name}`) ?? tMaybe(`${prefix}.${name}`, {}, fallback);
}

/**
 * The page's name for the field a refused request names (`err.field`: `buy_in_max`,
 * `options.seats`, `config.ante`) as the create form labels it for `game`; null for a
 * field the page has no name for (the server's own names are not for players).
 */
export function fieldLabel(game, field) {
  const name = String(field).replace(/^(options|config)\./, "");
  return /^[a-z0-9_]+$/.test(name) ? optionText("opt", game, name, null) : null;
}

// the choices of these options are worded elsewhere (the league page's strategy names)
const CHOICE_KEYS = { bot_strategy: "lg.strategy" };

function choiceText(game, name, value) {
  if (CHOICE_KEYS[name]) return tMaybe(`${CHOICE_KEYS[name]}.${value}`, {}, String(value));
  return optionText("choice", game, `${name}.${value}`, String(value));
}

function optionField(game, scope, o, value) {
  const id = `opt-${scope}-${o.name}`;
  const doc = optionText("optdoc", game, o.name, o.doc);
  let input;
  const common = { id, "data-opt": o.name, "data-scope": scope, "data-type": o.type,
    "data-testid": `opt-${o.name}`, title: doc };
  if (o.choices) {
    input = h("select", common, o.choices.map((c) => h("option", { value: String(c), selected: c === value }, choiceText(game, o.name, c))));
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
    h("label", { for: id, title: doc }, optionText("opt", game, o.name, o.name.replaceAll("_", " "))),
    input,
    h("div", { class: "doc" }, doc));
}

function readOption(el) {
  const type = el.dataset.type;
  if (type === "bool") return el.checked;
  if (type === "int") { const n = parseInt(el.value, 10); return Number.isNaN(n) ? undefined : n; }
  if (type === "float") { const n = parseFloat(el.value); return Number.isNaN(n) ? undefined : n; }
  if (el.value === "") return undefined;
  return el.value;
}

/**
 * The room and code a player typed into "Join with a code": the invitation link
 * (`…#/room/<id>/<code>`) in either field, the room as `r-…` (also `r-… CODE` or
 * `r-…/CODE` in the first field) and the code (any case, spaces ignored). Missing or
 * malformed parts are null.
 */
export function parseInvite(roomText, codeText) {
  for (const text of [roomText, codeText]) {
    const m = String(text || "").match(/#\/room\/([\w-]{1,64})\/([A-Za-z0-9]{1,16})\b/);
    if (m) return { room: m[1], code: m[2].toUpperCase() };
  }
  let room = String(roomText || "").trim();
  let code = String(codeText || "").replace(/\s+/g, "");
  const both = room.match(/^([\w-]{1,64})[\s/]+([A-Za-z0-9 ]{1,20})$/);
  if (both) { room = both[1]; if (!code) code = both[2].replace(/\s+/g, ""); }
  if (!code && /^[A-HJ-NP-Z2-9]{8}$/i.test(room) && !/^r-/i.test(room)) { code = room; room = ""; } // the code alone
  if (/^r-[0-9a-f]+$/i.test(room)) room = room.toLowerCase();
  return {
    room: /^[\w-]{1,64}$/.test(room) ? room : null,
    code: /^[A-Za-z0-9]{1,16}$/.test(code) ? code.toUpperCase() : null,
  };
}

/**
 * Stakes text from a lobby room summary, when the server includes the table config: in the
 * game's words (its table module's `lobbyStakes(config)`), else its stake option's label and
 * value ("Ante 2"); "" for a game without stakes.
 */
export function describeStakes(r) {
  const c = r.config || r.stakes;
  if (!c || typeof c !== "object") return "";
  const module = gameModule(r.game);
  if (module && module.lobbyStakes) return module.lobbyStakes(c);
  const field = (gameInfo(r.game) || {}).stake_field;
  if (!field || c[field] === undefined) return "";
  return `${fieldLabel(r.game, field) || field} ${chips(c[field])}`;
}

function firstNumber(text) {
  const m = String(text).replace(/,/g, "").match(/\d+/);
  return m ? Number(m[0]) : 0;
}

/** The quick match `stake` of a stakes filter: the stake option of the listed tables it names. */
function stakeOf(game, text, rooms) {
  if (!text) return null;
  const field = (gameInfo(game) || {}).stake_field;
  const room = field && rooms.find((r) => r.game === game && describeStakes(r) === text);
  return room ? Number((room.config || room.stakes || {})[field]) || null : null;
}
