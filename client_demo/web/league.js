// The league pages (docs/league.md, "The league page"): every bot league the server knows
// (`list_leagues`) at #/leagues, and one league (`league`) at #/league/<name>: its
// settings, the standings with their 95 % intervals, an SVG chart of each entrant's
// cumulative result over its deals, and the matches, whose rooms' hands (`history`, open
// to anyone once a league match is over) open in a panel, in the words of the table's
// hand history (the game module's `describe`, through table.js's `lineFor`).
//
// A league made over the protocol (`league_create`) says who made it (`owner`) and,
// while the servers run it (`run`), the round being played: the page shows the run and
// asks for the league again every few seconds until the run is over. Its owner gets a
// "Run a round" button (`league_run`).
//
// A league is also made and filled from here: "New league" on the list opens a form
// (`league_create`: name, game, deals and seats per match, duplicate deals, a Hold'em
// sit-and-go), and the owner's page has "Add a built-in" (`league_enter` with a
// `strategy`). Their refusals are shown in the form, in the page's words.

import { h, clear, chips, focusOf, restoreFocus } from "./dom.js";
import { describeStakes, shortTitle } from "./lobby.js";
import { gameIcon } from "./games.js";
import { blindsOf, historyContext, lineFor } from "./table.js";
import { t, tMaybe, lang } from "./i18n.js";

const SVG = "http://www.w3.org/2000/svg";
// line colours, told apart on the dark green page
const COLORS = ["#f2c14e", "#5ec8ff", "#ff6b9a", "#9be564", "#ff9f43", "#b48cff", "#2ee6c5", "#e8e8e8"];
// how often a page showing a league being run asks for it again
export const POLL_MS = 5000;
// how a league is run, for the empty list (docs/league.md, "Walkthrough")
// what a league made from the page may ask (docs/protocol.md, league_create)
const MAX_DEALS = 1000;
const COMMANDS = [
  "cardroom league create friday --game holdem --hands 200",
  "cardroom league enter friday --entrant smart --strategy smart",
  "cardroom league enter friday --entrant random --strategy random",
  "cardroom league run friday",
];

export class LeagueScreen {
  constructor({ conn, store, app }) {
    this.conn = conn;
    this.store = store;
    this.app = app;
    this.cache = new Map(); // "" (the list) or "league:<name>" -> {data, error, loading, stale}
    this.hands = new Map(); // room id -> {hands, error, loading}
    this.shown = null;      // the room whose hands are open: {room, seats}
    this.main = null;
    this.poll = null;       // the next re-ask of a league being run: {key, timer}
    this.starting = false;  // a league_run sent, not answered yet
    this.draft = null;      // the open "New league" form: its values, error, sending
    this.adding = new Map(); // league name -> the owner's "Add a built-in": {strategy, entrant, error, sending}
    let pending = false;
    window.addEventListener("resize", () => { // the chart is drawn to its box's width
      if (pending) return;
      pending = true;
      requestAnimationFrame(() => { pending = false; this.drawChart(); });
    });
    document.addEventListener("keydown", (e) => { if (e.key === "Escape" && this.shown) this.closeHands(); });
  }

  /** A page was navigated to: what was fetched for it is asked again (and shown meanwhile). */
  refresh(page) {
    const entry = this.cache.get(cacheKey(page));
    if (entry) {
      entry.stale = true;
      entry.asked = (entry.asked || 0) + 1; // an answer to a request sent before this is stale too
    }
  }

  render(main, page) {
    this.main = main;
    const entry = this.fetch(page);
    if (page.kind !== "league") this.shown = null;
    // an open hands panel keeps where it was scrolled to (the page is drawn again while a run polls)
    const open = main.querySelector("[data-testid=hands-panel]");
    const scrolled = open && this.shown && open.dataset.room === this.shown.room ? open.scrollTop : 0;
    const focus = focusOf(main); // a field being typed in keeps the caret when a poll draws the page again
    clear(main).append(page.kind === "league" ? this.leagueNode(page.name, entry) : this.listNode(entry));
    restoreFocus(main, focus);
    if (this.shown) {
      const panel = this.handsPanel();
      main.append(panel);
      if (scrolled) panel.querySelector("[data-testid=hands-panel]").scrollTop = scrolled;
    }
    this.drawChart();
    this.schedulePoll(page, entry);
  }

  /**
   * While what the page shows is being run (a league's `run`, or a league of the list
   * `running`), ask for it again in POLL_MS; the answer draws the page and schedules the
   * next. Nothing once the run is over, or once another page is shown.
   */
  schedulePoll(page, entry) {
    const key = cacheKey(page);
    if (!isRunning(page, entry.data)) this.stopPoll();
    else if (!this.poll || this.poll.key !== key) this.startPoll(page);
    this.markPolling();
  }

  startPoll(page) {
    this.stopPoll();
    const poll = { key: cacheKey(page) };
    poll.timer = setTimeout(() => {
      if (this.poll !== poll) return;
      this.poll = null;
      if (!this.showing(page)) return; // the user went elsewhere: no more asking
      this.refresh(page);
      this.fetch(page); // its answer draws the page again, which schedules the next
    }, POLL_MS);
    this.poll = poll;
  }

  /** No more re-asking (the run is over, or the user left the league pages). */
  stopPoll() {
    if (!this.poll) return;
    clearTimeout(this.poll.timer);
    this.poll = null;
    this.markPolling();
  }

  /** `data-polling` on the page: 1 while a re-ask is scheduled (for the tests). */
  markPolling() {
    const el = this.main && this.main.querySelector(".league-screen");
    if (el) el.dataset.polling = this.poll ? "1" : "0";
  }

  /** The owner's "Run a round": `league_run` with one round; the reply shows the run. */
  async runRound(name) {
    const page = { kind: "league", name };
    if (this.starting) return;
    this.starting = true;
    if (this.showing(page)) this.app.render();
    try {
      const reply = await this.conn.request({ t: "league_run", name, rounds: 1 }, { quiet: true });
      const entry = this.cache.get(cacheKey(page)) || {};
      Object.assign(entry, { data: reply, error: null, stale: false });
      this.cache.set(cacheKey(page), entry);
    } catch (err) {
      // a toast in the page's words (too_few_entrants, league_running, not_league_owner,
      // ...); the field the server names is the league's name, not a table option
      if (err.code !== "disconnected") this.app.showError({ ...err, field: null });
      this.refresh(page); // (e.g. league_running: what the page shows is out of date)
    } finally {
      this.starting = false;
      if (this.showing(page)) this.app.render();
    }
  }

  /** The page's reply, asked for when missing or stale; the page is drawn again when it comes. */
  fetch(page) {
    const key = cacheKey(page);
    const entry = this.cache.get(key) || {};
    this.cache.set(key, entry);
    if ((entry.data || entry.error) && !entry.stale) return entry;
    if (entry.loading) return entry;
    entry.loading = true;
    const asked = entry.asked || 0;
    const msg = page.kind === "league" ? { t: "league", name: page.name } : { t: "list_leagues" };
    this.conn.request(msg, { quiet: true }).then(
      // a refresh while this was on its way (↻ during a poll) asks again once it is back
      (reply) => { entry.data = reply; entry.error = null; entry.stale = (entry.asked || 0) !== asked; },
      (err) => { entry.error = err; entry.stale = offline(err); }, // asked again after the reconnect
    ).finally(() => {
      entry.loading = false;
      if (!offline(entry.error) && this.showing(page)) this.app.render();
    });
    return entry;
  }

  showing(page) {
    return !this.store.current && this.store.page && cacheKey(this.store.page) === cacheKey(page);
  }

  /** The top of both pages: a way back, the title and a refresh. */
  bar(back, title, sub, page, extra = null) {
    return h("div", { class: "league-bar" },
      back,
      h("div", { class: "league-title" }, h("h1", {}, title), sub ? h("div", { class: "muted small" }, sub) : null),
      extra,
      h("button", { class: "btn ghost", type: "button", "data-testid": "league-refresh", title: t("lg.refresh"),
        "aria-label": t("lg.refresh"), onclick: () => { this.refresh(page); this.app.render(); } }, "↻"));
  }

  // --- the list of leagues ----------------------------------------------------------------

  listNode(entry) {
    const leagues = entry.data ? entry.data.leagues : null;
    const back = h("button", { class: "btn ghost", type: "button", "data-testid": "leagues-to-lobby",
      onclick: () => this.app.toLobby() }, t("lg.back_lobby"));
    let body;
    if (!leagues) body = statusNode(entry);
    else if (!leagues.length) body = emptyNode();
    else body = h("div", { class: "league-list", "data-testid": "league-list" }, leagues.map(leagueRow));
    const add = h("button", { class: "btn primary league-new-btn", type: "button", "data-testid": "league-new",
      "aria-expanded": this.draft ? "true" : "false", onclick: () => this.openNew() }, t("lg.new"));
    return h("div", { class: "league-screen", "data-testid": "leagues-page" },
      this.bar(back, t("lg.title"), null, { kind: "leagues" }, add),
      this.draft ? this.newLeagueNode() : null,
      h("section", { class: "panel" }, h("p", { class: "muted intro" }, t("lg.intro")), body));
  }

  // --- a new league (league_create) -------------------------------------------------------

  gameInfo(game) { return this.store.games.find((g) => g.game === game) || null; }

  /** "New league": the form, with the defaults (the first game the server hosts). */
  openNew() {
    if (!this.draft) {
      const game = this.store.games.length ? this.store.games[0].game : "";
      this.draft = { name: "", game, hands: "100", seats: String(seatRange(this.gameInfo(game)).min),
        duplicate: true, sng: false, level_hands: "10", error: null, sending: false };
    }
    this.app.render();
    const input = this.main && this.main.querySelector("[data-testid=league-new-name]");
    if (input) {
      input.focus();
      input.scrollIntoView({ block: "nearest" });
    }
  }

  closeNew() {
    this.draft = null;
    this.app.render();
  }

  /**
   * The form, drawn from `this.draft` (so a redraw, or a switch of language, keeps what was
   * typed): name, game, deals and seats per match (bounded by the game's players, from the
   * `rooms` reply), duplicate deals, and for Hold'em a sit-and-go with its blind levels.
   */
  newLeagueNode() {
    const d = this.draft;
    const range = seatRange(this.gameInfo(d.game));
    const games = this.store.games.length ? this.store.games.map((g) => g.game) : [d.game];
    const wrong = d.error ? d.error.field : null;
    const set = (key) => (e) => {
      d[key] = e.target.type === "checkbox" ? e.target.checked : e.target.value;
      e.target.classList.remove("invalid");
    };
    const field = (key, label, input, doc, bool = false) => {
      input.id = `league-new-${key}`;
      input.dataset.field = key;
      if (wrong === key) input.classList.add("invalid");
      return h("div", { class: `field${bool ? " bool" : ""}` },
        h("label", { for: input.id }, label), input, doc ? h("div", { class: "doc" }, doc) : null);
    };
    const sng = playedWithBlinds(this.gameInfo(d.game)) && d.sng;
    const fields = [
      field("name", t("lg.f_name"), h("input", { type: "text", "data-testid": "league-new-name", maxlength: 64,
        autocomplete: "off", spellcheck: "false", value: d.name, oninput: set("name") }), t("lg.f_name_doc")),
      field("game", t("lg.f_game"), h("select", { "data-testid": "league-new-game", onchange: (e) => {
        d.game = e.target.value;
        d.seats = String(seatRange(this.gameInfo(d.game)).min); // the new game's fewest players
        if (!playedWithBlinds(this.gameInfo(d.game))) d.sng = false;
        if (d.error && d.error.field === "seats") d.error = null;
        this.app.render();
      } }, games.map((g) => h("option", { value: g, selected: g === d.game }, shortTitle(g))))),
      field("hands", t("lg.f_hands"), h("input", { type: "number", "data-testid": "league-new-hands", min: 1,
        max: MAX_DEALS, step: 1, inputmode: "numeric", value: d.hands, oninput: set("hands") }),
      t(sng ? "lg.f_hands_sng_doc" : "lg.f_hands_doc")),
      field("seats", t("lg.f_seats"), h("input", { type: "number", "data-testid": "league-new-seats", min: range.min,
        max: range.max, step: 1, inputmode: "numeric", value: d.seats, oninput: set("seats") }),
      t("lg.f_seats_doc", range)),
      field("duplicate", t("lg.f_duplicate"), h("input", { type: "checkbox", "data-testid": "league-new-duplicate",
        checked: d.duplicate, onchange: set("duplicate") }), t("lg.f_duplicate_doc"), true),
    ];
    if (playedWithBlinds(this.gameInfo(d.game))) {
      fields.push(field("format", t("lg.f_sng"), h("input", { type: "checkbox", "data-testid": "league-new-sng",
        checked: d.sng, onchange: (e) => { d.sng = e.target.checked; this.app.render(); } }), t("lg.f_sng_doc"), true));
      if (d.sng) {
        fields.push(field("level_hands", t("lg.f_level"), h("input", { type: "number", "data-testid": "league-new-level",
          min: 1, step: 1, inputmode: "numeric", value: d.level_hands, oninput: set("level_hands") }), t("lg.f_level_doc")));
      }
    }
    return h("section", { class: "panel create-panel league-new" },
      h("form", { "data-testid": "league-new-form", "data-game": d.game, novalidate: true,
        onsubmit: (e) => { e.preventDefault(); this.submitNew(); } },
      h("div", { class: "create-head" },
        h("h2", {}, t("lg.new_title")),
        h("button", { type: "button", class: "btn ghost", "data-testid": "league-new-close", "aria-label": t("table.close"),
          onclick: () => this.closeNew() }, "✕")),
      h("p", { class: "muted small new-intro" }, t("lg.new_intro")),
      h("div", { class: "fields" }, fields),
      d.error ? errorBox(d.error, "league-new-error") : null,
      h("div", { class: "row end" },
        h("button", { type: "submit", class: "btn primary", "data-testid": "league-new-submit", disabled: d.sending },
          t("lg.new_submit")))));
  }

  /** `league_create` from the form; the new league's page on success, else the error in the form. */
  async submitNew() {
    const d = this.draft;
    if (!d || d.sending) return;
    const range = seatRange(this.gameInfo(d.game));
    const sng = playedWithBlinds(this.gameInfo(d.game)) && d.sng;
    const name = d.name.trim();
    const hands = whole(d.hands);
    const seats = whole(d.seats);
    const levelHands = whole(d.level_hands);
    // what the page can tell at once, in its own words; the server judges everything else
    let local = null;
    if (!name) local = { field: "name", text: t("lg.bad_name") };
    else if (hands === null || hands < 1 || hands > MAX_DEALS) local = { field: "hands", text: t("lg.bad_hands") };
    else if (seats === null || seats < range.min || seats > range.max) local = { field: "seats", text: t("lg.bad_seats", range) };
    else if (sng && (levelHands === null || levelHands < 1)) local = { field: "level_hands", text: t("lg.bad_level") };
    if (local) {
      d.error = { code: "bad_league", field: local.field, local: local.text };
      this.app.render();
      return;
    }
    const msg = { t: "league_create", name, game: d.game, hands, seats, duplicate: Boolean(d.duplicate) };
    if (sng) Object.assign(msg, { format: "sng", level_hands: levelHands });
    d.sending = true;
    d.error = null;
    this.app.render();
    try {
      const reply = await this.conn.request(msg, { quiet: true });
      if (this.draft === d) this.draft = null;
      this.cache.set(cacheKey({ kind: "league", name: reply.name }), { data: reply, error: null, stale: false });
      const list = this.cache.get("");
      if (list) list.stale = true;
      this.app.openLeague(reply.name);
    } catch (err) {
      d.sending = false;
      d.error = err;
      if (this.draft === d && this.showing({ kind: "leagues" })) this.app.render();
    }
  }

  // --- one league -------------------------------------------------------------------------

  leagueNode(name, entry) {
    const back = h("button", { class: "btn ghost", type: "button", "data-testid": "league-back",
      onclick: () => this.app.openLeagues() }, t("lg.back"));
    const page = { kind: "league", name };
    const L = entry.data;
    if (!L) {
      return h("div", { class: "league-screen", "data-testid": "league-page", "data-league": name },
        this.bar(back, name, null, page), h("section", { class: "panel" }, statusNode(entry, name)));
    }
    const colors = colorsOf(L);
    this.drawn = { L, colors };
    return h("div", { class: "league-screen", "data-testid": "league-page", "data-league": L.name,
      "data-running": L.run ? "1" : "0" },
      this.bar(back, L.name, settingsLine(L), page),
      this.runLine(L),
      this.enterHint(L),
      h("div", { class: "league-grid" },
        h("section", { class: "panel" }, h("h2", {}, t("lg.standings")), standingsNode(L, colors)),
        h("section", { class: "panel chart-panel" }, h("h2", {}, t("lg.chart")),
          h("div", { class: "chart-box" }), legendNode(L, colors))),
      h("section", { class: "panel" }, h("h2", {}, t("lg.matches")), this.matchesNode(L, colors)));
  }

  /**
   * Under the header: while the league is being run, the round and the matches left
   * ("Running: round 1 of 3 · 2 matches left in this round"); for its owner, the button
   * that runs a round (not while a run is on).
   */
  runLine(L) {
    const me = this.store.welcome ? this.store.welcome.player : null;
    const owner = Boolean(L.owner) && L.owner === me;
    if (!L.run && !owner) return null;
    return h("div", { class: "league-run" },
      L.run ? runStatus(L.run) : null,
      owner ? h("button", { class: "btn primary", type: "button", "data-testid": "league-run",
        disabled: Boolean(L.run) || this.starting, title: t("lg.run_title"),
        onclick: () => this.runRound(L.name) }, t("lg.run")) : null,
      owner ? this.addNode(L) : null);
  }

  /**
   * The owner's "Add a built-in": one of the game's built-in strategies and an optional
   * name, entered with `league_enter` (the rooms play it as a bot seat). Its state lives in
   * `this.adding`, so the page's redraws while a run polls keep it.
   */
  addNode(L) {
    if (!this.adding.has(L.name)) this.adding.set(L.name, { strategy: null, entrant: "", error: null, sending: false });
    const a = this.adding.get(L.name);
    const choices = builtinStrategies(L, this.gameInfo(L.game));
    if (!choices.includes(a.strategy)) a.strategy = choices[0];
    const wrong = a.error ? a.error.field : null;
    return [h("form", { class: "league-add", "data-testid": "league-add-form", novalidate: true,
      onsubmit: (e) => { e.preventDefault(); this.addBuiltin(L.name); } },
    h("select", { "data-testid": "league-add-strategy", "aria-label": t("lg.add_strategy"), title: t("lg.add_strategy"),
      class: wrong === "strategy" ? "invalid" : null,
      onchange: (e) => { a.strategy = e.target.value; e.target.classList.remove("invalid"); } },
    choices.map((s) => h("option", { value: s, selected: s === a.strategy }, strategyName(s)))),
    h("input", { type: "text", "data-testid": "league-add-name", maxlength: 32, autocomplete: "off", spellcheck: "false",
      placeholder: t("lg.add_name"), "aria-label": t("lg.add_name"), value: a.entrant,
      class: wrong === "entrant" ? "invalid" : null,
      oninput: (e) => { a.entrant = e.target.value; e.target.classList.remove("invalid"); } }),
    h("button", { type: "submit", class: "btn", "data-testid": "league-add", title: t("lg.add_title"), disabled: a.sending },
      t("lg.add"))),
    a.error ? errorBox(a.error, "league-add-error") : null];
  }

  /** `league_enter` with the chosen strategy (and name); the reply lists the new entrant. */
  async addBuiltin(name) {
    const a = this.adding.get(name);
    if (!a || a.sending) return;
    const page = { kind: "league", name };
    const msg = { t: "league_enter", name, strategy: a.strategy };
    const entrant = a.entrant.trim();
    if (entrant) msg.entrant = entrant;
    a.sending = true;
    a.error = null;
    if (this.showing(page)) this.app.render();
    try {
      const reply = await this.conn.request(msg, { quiet: true });
      a.entrant = "";
      const entry = this.cache.get(cacheKey(page)) || {};
      Object.assign(entry, { data: reply, error: null, stale: false });
      this.cache.set(cacheKey(page), entry);
      const list = this.cache.get("");
      if (list) list.stale = true;
    } catch (err) {
      a.error = err;
    } finally {
      a.sending = false;
      if (this.showing(page)) this.app.render();
    }
  }

  /**
   * For anyone who is not an entrant of a league made over the protocol: how a bot enters
   * itself. (The reply names entrants, not their players: a bot that entered itself under
   * this page's player name counts as this player.)
   */
  enterHint(L) {
    if (!L.owner) return null; // an operator's league takes no entrant over the protocol
    const me = this.store.welcome ? this.store.welcome.name : null;
    if ((L.entrants || []).some((e) => e.client && e.name === me)) return null;
    const cmd = `python -m client_demo.sdk.entrant --game ${L.game} --strategy smart --league ${L.name}`;
    return h("p", { class: "muted small league-hint", "data-testid": "league-enter-hint" },
      withCode("lg.enter_hint", { cmd, fn: "play_league", doc: "docs/league.md" }));
  }

  /** The chart, drawn (again) to the width its box has now. */
  drawChart() {
    const box = this.main && this.main.querySelector(".league-screen .chart-box");
    if (!box || !this.drawn) return;
    const chart = chartNode(this.drawn.L, this.drawn.colors, box.clientWidth);
    clear(box);
    if (chart) box.append(chart); // (none before a match is over: the legend says so)
  }

  matchesNode(L, colors) {
    if (!L.matches.length) return h("p", { class: "muted" }, t("lg.no_matches"));
    return h("div", { class: "league-matches", "data-testid": "league-matches" },
      L.matches.map((m) => h("div", { class: `match-row ${m.status}`, "data-testid": `match-${m.match}`,
        "data-match": m.match, "data-status": m.status },
      h("div", { class: "match-head" },
        h("span", { class: "badge" }, t("lg.round", { n: m.round ?? "?" })),
        h("b", { class: "match-vs" }, m.entrants.join(t("lg.vs"))),
        h("span", { class: `badge status ${m.status}` }, tMaybe(`lg.status.${m.status}`, {}, m.status)),
        h("span", { class: "muted small" }, [m.deals ? t("lg.deals_n", { n: m.deals }) : null, m.started_ms ? when(m.started_ms) : null]
          .filter(Boolean).join(" · "))),
      h("div", { class: "match-results" },
        h("span", { class: "muted small" }, t("lg.col_chips")),
        m.entrants.map((name) => {
          const won = (m.results || {})[name];
          return h("span", { class: `match-result ${signClass(won)}`, "data-entrant": name, "data-chips": won ?? "" },
            swatch(colors.get(name)), `${name} ${signedChips(won)}`);
        })),
      h("div", { class: "match-rooms" }, (m.rooms || []).map((r) => h("button", {
        class: "btn hands-btn", type: "button", "data-testid": `match-hands-${r.room}`, "data-room": r.room,
        title: t("lg.hands_title", { room: r.room }), onclick: () => this.openHands(r.room, r.seats),
      }, t("lg.hands"), h("span", { class: "muted small" }, ` ${r.seats.join(" · ")}`)))))));
  }

  // --- a room's hands ---------------------------------------------------------------------

  openHands(room, seats) {
    this.shown = { room, seats };
    const entry = this.hands.get(room);
    if (!entry || (entry.error && !entry.loading)) {
      const fresh = { loading: true };
      this.hands.set(room, fresh);
      this.conn.request({ t: "history", room, last: 50 }, { quiet: true }).then(
        (reply) => { fresh.hands = reply.hands || []; },
        (err) => { fresh.error = err; },
      ).finally(() => { fresh.loading = false; if (this.shown && this.shown.room === room) this.showPanel(); });
    }
    this.showPanel();
  }

  closeHands() {
    this.shown = null;
    if (this.main) for (const el of this.main.querySelectorAll(".hands-backdrop")) el.remove();
  }

  showPanel() {
    if (!this.main || !this.main.querySelector(".league-screen")) return;
    for (const el of this.main.querySelectorAll(".hands-backdrop")) el.remove();
    this.main.append(this.handsPanel());
  }

  handsPanel() {
    const { room, seats } = this.shown;
    const entry = this.hands.get(room) || { loading: true };
    let body;
    if (entry.loading) body = h("p", { class: "muted" }, t("lg.hands_loading"));
    else if (entry.error) body = h("p", { class: "muted" }, errorText(entry.error));
    else if (!entry.hands.length) body = h("p", { class: "muted" }, t("lg.no_hands"));
    else {
      const around = handsAround(entry.hands, this.drawn ? this.drawn.L.settings : null);
      body = h("div", { class: "league-hands", "data-testid": "league-hands" }, entry.hands.map((hand, i) => handNode(hand, around[i])));
    }
    return h("div", { class: "last-hand-backdrop hands-backdrop",
      onclick: (e) => { if (e.target === e.currentTarget) this.closeHands(); } },
    h("div", { class: "panel last-hand-panel hands-panel", role: "dialog", "aria-label": t("lg.hands"),
      "data-testid": "hands-panel", "data-room": room, "data-loading": entry.loading ? "1" : "0" },
    h("div", { class: "create-head" },
      h("h2", { title: room }, t("lg.hands_of", { seats: seats.join(" · ") })),
      h("button", { class: "btn ghost", type: "button", "data-testid": "hands-close", "aria-label": t("table.close"),
        onclick: () => this.closeHands() }, "✕")),
    body));
  }
}

// --- pieces --------------------------------------------------------------------------------

function cacheKey(page) { return page.kind === "league" ? `league:${page.name}` : ""; }

/** Is what this reply shows being run (so that it is worth asking again soon)? */
function isRunning(page, data) {
  if (!data) return false;
  if (page.kind === "league") return Boolean(data.run);
  return (data.leagues || []).some((l) => l.running);
}

/** "Running: round 1 of 3 · 2 matches left in this round" (round 0: the run is just asked for). */
function runStatus(run) {
  const rounds = run.rounds || 1;
  const round = Math.min(Math.max(run.round || 0, 1), rounds);
  const left = (run.matches || []).length;
  const parts = [t("lg.running", { round, rounds })];
  if (!run.round) parts.push(t("lg.run_starting"));
  else if (left) parts.push(t("lg.run_left", { n: left }));
  return h("p", { class: "run-status", "data-testid": "league-run-status", role: "status",
    "data-round": run.round || 0, "data-rounds": rounds, "data-left": left },
  h("span", { class: "run-dot" }), parts.join(" · "));
}

/** Can a league of this game be a sit-and-go (blinds that rise by level: the server's rule)? */
function playedWithBlinds(info) {
  const names = ((info && info.options) || []).map((o) => o.name);
  return names.includes("small_blind") && names.includes("big_blind");
}

/** The seats a match of this game may have (the `rooms` reply's player counts). */
function seatRange(info) {
  const min = info && info.min_players ? info.min_players : 2;
  return { min, max: info && info.max_players ? Math.max(info.max_players, min) : 10 };
}

/** "12" → 12; anything but a whole number → null. */
function whole(text) {
  const s = String(text ?? "").trim();
  return /^\d+$/.test(s) ? Number(s) : null;
}

/**
 * The built-in strategies a league of this game takes: those the server's table bots
 * play (the game's `bot_strategy` choices), then the league-only baselines.
 */
/** The built-ins the league takes (its `strategies`), else the game's table-bot choices. */
function builtinStrategies(L, info) {
  if (Array.isArray(L.strategies) && L.strategies.length) return L.strategies.map(String);
  const option = info ? (info.room_options || []).find((o) => o.name === "bot_strategy") : null;
  return option && Array.isArray(option.choices) && option.choices.length ? option.choices.map(String) : ["smart", "random"];
}

function strategyName(s) { return tMaybe(`lg.strategy.${s}`, {}, String(s).replaceAll("_", " ")); }

/**
 * A refusal in a form: the code's title in the page's language, then the server's message
 * (in English: it says which setting; in Chinese only for `bad_league`, whose reason the
 * page cannot word) or the page's own reason. A code the page does not know: the message.
 */
function errorBox(err, testid) {
  const title = err.code ? tMaybe(`err.${err.code}`) : null;
  const message = err.message && err.message !== err.code ? err.message : null;
  let detail = null;
  if (err.local) detail = err.local;
  else if (title && message && (lang() === "en" || err.code === "bad_league")) detail = message;
  return h("div", { class: "form-error", role: "alert", "data-testid": testid, "data-code": err.code || "" },
    h("b", {}, title || message || t("err.generic")), detail ? h("span", { class: "form-error-detail" }, detail) : null);
}

/** A text whose {placeholders} are code (a command, a function, a file), each in a <code>. */
function withCode(key, codes) {
  const marks = Object.fromEntries(Object.keys(codes).map((k) => [k, `\u0000${k}\u0000`]));
  return t(key, marks).split("\u0000").map((part, i) => (i % 2 ? h("code", {}, codes[part]) : part));
}

function offline(err) { return Boolean(err) && (err.code === "disconnected" || err.code === "offline"); }

function errorText(err, name = "") {
  if (err.code === "no_such_league") return t("lg.no_such", { name });
  if (err.code === "unknown_type") return t("lg.unsupported");
  return tMaybe(`err.${err.code}`, {}, err.message || err.code);
}

function statusNode(entry, name = "") {
  return h("p", { class: "muted", "data-testid": "league-status" },
    entry.error && !entry.loading ? errorText(entry.error, name) : t("lg.loading"));
}

/** No league yet: how to run one (docs/league.md). */
function emptyNode() {
  return h("div", { class: "league-empty", "data-testid": "leagues-empty" },
    h("p", {}, t("lg.none")),
    h("p", { class: "muted" }, t("lg.how")),
    h("pre", { class: "commands" }, COMMANDS.join("\n")),
    h("p", { class: "muted", "data-testid": "leagues-protocol" }, t("lg.how_protocol")));
}

function leagueRow(l) {
  return h("a", { class: "league-row", href: `#/league/${encodeURIComponent(l.name)}`,
    "data-testid": `league-${l.name}`, "data-league": l.name },
  h("div", { class: "room-game" }, gameIcon(l.game)),
  h("div", { class: "league-main" },
    h("div", { class: "league-name" }, l.name,
      l.running ? h("span", { class: "badge running", "data-testid": `league-running-${l.name}` }, t("lg.running_badge")) : null),
    h("div", { class: "muted small" }, [shortTitle(l.game), t("lg.entrants_n", { n: l.entrants.length, names: l.entrants.join(", ") }),
      t("lg.matches_done", { done: l.done, n: l.matches }), l.updated_ms ? t("lg.updated", { time: when(l.updated_ms) }) : null]
      .filter(Boolean).join(" · "))),
  h("span", { class: "btn" }, t("lg.open")));
}

/** The header's line: game, deals per match, seats, duplicate or not, stack and stakes, progress. */
function settingsLine(L) {
  const s = L.settings || {};
  const done = L.matches.filter((m) => m.status === "done").length;
  const sng = s.format === "sng"; // a sit-and-go: --hands is a cap, the blinds rise
  return [
    shortTitle(L.game),
    s.hands ? t(sng ? "lg.sng_cap" : "lg.deals_per_match", { n: s.hands }) : null,
    s.seats ? t("lg.seats_n", { n: s.seats }) : null,
    t(s.duplicate ? "lg.duplicate" : "lg.single"),
    sng ? t("lg.sng", { n: s.level_hands ?? "?" }) : null,
    s.stack ? t("lg.stack", { n: chips(s.stack) }) : null,
    describeStakes({ game: L.game, config: s.config }) || null,
    t("lg.matches_done", { done, n: L.matches.length }),
    L.updated_ms ? t("lg.updated", { time: when(L.updated_ms) }) : null,
  ].filter(Boolean).join(" · ");
}

/** Each entrant's colour, the same in the standings, the chart and the matches (best first). */
function colorsOf(L) {
  const names = [...L.standings.map((r) => r.entrant), ...L.entrants.map((e) => e.name), ...Object.keys(L.series || {})];
  const colors = new Map();
  for (const name of names) if (!colors.has(name)) colors.set(name, COLORS[colors.size % COLORS.length]);
  return colors;
}

function swatch(color) { return h("span", { class: "swatch", style: { "--c": color || "#888" } }); }

function standingsNode(L, colors) {
  const placed = new Set(L.standings.map((r) => r.entrant));
  const waiting = (L.entrants || []).filter((e) => !placed.has(e.name));
  if (!L.standings.length) return [h("p", { class: "muted" }, t("lg.no_standings")), waitingNode(waiting, colors, true)];
  const entrants = new Map(L.entrants.map((e) => [e.name, e]));
  const th = (key, cls = "") => h("th", { class: cls, scope: "col" }, t(key));
  return [h("table", { class: "standings", "data-testid": "league-standings" },
    h("thead", {}, h("tr", {},
      th("lg.col_rank", "num"), th("lg.col_entrant"), th("lg.col_rating", "num"), th("lg.col_matches", "num col-wide"),
      th(L.standings[0].unit === "place" ? "lg.col_tables" : "lg.col_deals", "num"), th("lg.col_result", "num"), th("lg.col_chips", "num col-wide"))),
    h("tbody", {}, L.standings.map((row, i) => standingRow(row, i + 1, entrants.get(row.entrant), colors.get(row.entrant))))),
  waitingNode(waiting, colors, false)];
}

/** The entrants with no finished match yet, with what plays them ("built-in: smart", "connected bot"). */
function waitingNode(waiting, colors, alone) {
  if (!waiting.length) return null;
  return h("div", { class: "league-entrants", "data-testid": "league-entrants" },
    h("div", { class: "muted small" }, t(alone ? "lg.entrants" : "lg.not_played")),
    h("ul", {}, waiting.map((e) => h("li", { "data-testid": `entrant-${e.name}`, "data-entrant": e.name },
      swatch(colors.get(e.name)), h("b", {}, e.name), " ", h("span", { class: "muted small" }, entrantNote(e))))));
}

function standingRow(row, rank, entrant, color) {
  const r = row.result || {};
  const sign = intervalSign(r);
  return h("tr", { "data-testid": `standing-${row.entrant}`, "data-entrant": row.entrant, "data-rank": rank },
    h("td", { class: "num rank" }, rank),
    h("td", { class: "entrant" },
      h("div", { class: "entrant-name" }, swatch(color), h("b", {}, row.entrant)),
      h("div", { class: "muted small" }, entrantNote(entrant)),
      h("div", { class: "muted small phone-line" }, t("lg.phone_line", { m: row.matches, chips: signedChips(row.chips) }))),
    h("td", { class: "num rating", title: t("lg.rating_title", { o: fixed(row.ordinal, 1), mu: fixed(row.mu, 1), sigma: fixed(row.sigma, 1) }) },
      h("div", {}, fixed(row.ordinal, 1)),
      h("div", { class: "muted small" }, `${fixed(row.mu, 1)} ± ${fixed(row.sigma, 1)}`)),
    h("td", { class: "num col-wide", "data-col": "matches" }, row.matches),
    h("td", { class: "num", "data-col": "deals" }, row.hands),
    h("td", { class: `num res ${sign > 0 ? "plus" : sign < 0 ? "minus" : ""}`, "data-col": "result", "data-sign": sign,
      title: t(row.unit === "place" ? "lg.place_title" : "lg.result_title", { n: r.n ?? row.hands }) }, resultNodes(r, row.unit)),
    h("td", { class: "num col-wide", "data-col": "chips" }, signedChips(row.chips)));
}

/**
 * "built-in: smart" for a server strategy (also one the rooms play as a bot seat),
 * "connected bot" for a player that entered itself and plays over its own connections,
 * "program" for the operator's own bot.
 */
function entrantNote(entrant) {
  if (!entrant) return "";
  if (entrant.client) return t("lg.client");
  if (entrant.program || !entrant.strategy) return t("lg.program");
  return t("lg.builtin", { name: tMaybe(`lg.strategy.${entrant.strategy}`, {}, String(entrant.strategy).replaceAll("_", " ")) });
}

/**
 * +1 when the 95 % interval lies above zero, -1 below, 0 when it holds zero (or is
 * unknown, or is a sit-and-go's finishing place, where zero means nothing).
 */
function intervalSign(r) {
  if (r.unit === "place") return 0;
  if (r.half_width === null || r.half_width === undefined || r.mean === null || r.mean === undefined) return 0;
  if (r.mean - r.half_width > 0) return 1;
  if (r.mean + r.half_width < 0) return -1;
  return 0;
}

/** "+64.0 ± 41.2 bb/100" (a place without a sign); "±?" without an interval; "—" without a sample. */
function resultNodes(r, unit) {
  if (!r.n || r.mean === null || r.mean === undefined) return "—";
  const d = Math.max(Math.abs(r.mean), Math.abs(r.half_width ?? 0)) < 10 ? 2 : 1;
  const width = r.half_width === null || r.half_width === undefined ? "±?" : `± ${fixed(r.half_width, d)}`;
  const mean = (r.unit || unit) === "place" ? fixed(r.mean, d) : signed(r.mean, d);
  return [h("span", { class: "mean" }, mean), " ", h("span", { class: "width" }, width), " ",
    h("span", { class: "unit" }, tMaybe(`lg.unit.${r.unit || unit}`, {}, r.unit || unit))];
}

function fixed(x, d) { return x === null || x === undefined ? "?" : Number(x).toFixed(d); }

function signed(x, d) {
  const text = Number(x).toFixed(d);
  return Number(text) > 0 ? `+${text}` : Number(text) === 0 ? Number(0).toFixed(d) : text;
}

export function signedChips(n) {
  if (n === null || n === undefined) return "–";
  return n > 0 ? `+${chips(n)}` : chips(n);
}

export function signClass(n) { return n > 0 ? "plus" : n < 0 ? "minus" : ""; }

/** A time as people of this language read it: 25 Nov 2026, 12:48 / 2026年11月25日 12:48. */
export function when(ms) {
  try {
    return new Date(ms).toLocaleString(lang() === "zh" ? "zh-CN" : "en-GB", { dateStyle: "medium", timeStyle: "short" });
  } catch (err) {
    return new Date(ms).toISOString();
  }
}

/**
 * What the wording of each hand needs from the hands around it, for a sit-and-go's
 * "Blinds up": the blinds of the hand before (the one listed before it, else the league's
 * schedule: `levels`, `level_hands` hands each) and the hand's level number, when the
 * schedule gives the blinds the hand was played at.
 */
function handsAround(hands, settings) {
  let before = null;
  return hands.map((hand) => {
    const blinds = blindsOf(hand);
    const at = levelBlinds(settings, hand.hand);
    const around = {
      blindsBefore: before && before.no === hand.hand - 1 ? before.blinds : levelBlinds(settings, hand.hand - 1),
      level: at && blinds && at[0] === blinds[0] && at[1] === blinds[1] ? levelIndex(settings, hand.hand) + 1 : null,
    };
    before = { no: hand.hand, blinds };
    return around;
  });
}

/** A sit-and-go's level (from 0) for hand `n` (from 1), or null (not a sit-and-go, no schedule). */
function levelIndex(settings, n) {
  const s = settings || {};
  if (s.format !== "sng" || !Array.isArray(s.levels) || !s.levels.length || !(s.level_hands >= 1) || !(n >= 1)) return null;
  return Math.min(Math.floor((n - 1) / s.level_hands), s.levels.length - 1);
}

/** A sit-and-go's [small, big] blinds of hand `n` by its schedule, or null. */
function levelBlinds(settings, n) {
  const i = levelIndex(settings, n);
  return i === null ? null : settings.levels[i];
}

/**
 * The hands of a room as its history words them: number, each seat's net, then each line
 * (`testid`: the section's, for the page it is on).
 */
export function handNode(hand, around = {}, testid = "league-hand") {
  const ctx = historyContext(hand, { room: hand.room, game: hand.game }, around);
  const lines = [];
  for (const ev of hand.events || []) {
    if (ev.type === "hand_started") continue; // the heading says it
    const [text, cls] = lineFor(ev, ctx);
    if (text) lines.push(h("li", { class: cls || "" }, text));
  }
  const nets = (hand.result || []).map((r) => h("span", { class: `hand-net ${signClass(r.net)}` },
    `${ctx.name(r.seat)} ${signedChips(r.net)}`));
  return h("section", { class: "league-hand", "data-testid": testid, "data-hand": hand.hand },
    h("h3", {}, t("table.hand", { n: hand.hand }), h("span", { class: "hand-nets" }, nets)),
    h("ol", { class: "history-list" }, lines));
}

// --- the chart -------------------------------------------------------------------------------

function legendNode(L, colors) {
  const names = Object.keys(L.series || {});
  if (!names.length) return h("p", { class: "muted" }, t("lg.no_chart"));
  const unit = tMaybe(`lg.sunit.${L.series_unit}`, {}, L.series_unit);
  const order = [...colors.keys()].filter((n) => names.includes(n));
  return h("div", { class: "chart-legend", "data-testid": "chart-legend" }, order.map((name) => {
    const s = L.series[name];
    const last = s.length ? s[s.length - 1] : 0;
    return h("span", { class: "legend-item", "data-entrant": name },
      swatch(colors.get(name)), h("b", {}, name), h("span", { class: "muted small legend-value" }, `${signed(last, Math.abs(last) < 10 ? 2 : 1)} ${unit}`));
  }));
}

function svgEl(tag, attrs, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) if (v !== null && v !== undefined) el.setAttribute(k, String(v));
  for (const c of children) if (c !== null && c !== undefined) el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return el;
}

/** Round steps (1, 2 or 5 × 10^k) covering lo..hi in about `count` intervals. */
export function niceTicks(lo, hi, count) {
  const raw = (hi - lo) / Math.max(1, count);
  const pow = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * pow).find((s) => s >= raw) || raw;
  const ticks = [];
  for (let v = Math.floor(lo / step) * step; v <= hi + step * 1e-9; v += step) ticks.push(Number(v.toFixed(10)));
  if (ticks[ticks.length - 1] < hi) ticks.push(Number((ticks[ticks.length - 1] + step).toFixed(10)));
  return { ticks, step };
}

function tickText(v, step) {
  const d = step >= 1 ? 0 : Math.min(4, Math.ceil(-Math.log10(step)));
  const text = v.toFixed(d);
  return Number(text) > 0 ? `+${text}` : Number(text) === 0 ? "0" : text;
}

/**
 * The SVG line chart of `L.series`: one polyline per entrant (its cumulative result after
 * each deal, starting from 0 before the first), a zero line, y labels in the series unit,
 * x labels in deals; `width` px wide, so labels keep their size on a phone.
 */
function chartNode(L, colors, width) {
  const names = [...colors.keys()].filter((n) => (L.series || {})[n]);
  if (!names.length) return null;
  width = Math.max(240, Math.floor(width || 0));
  const narrow = width < 480;
  const height = narrow ? 210 : 250;
  const unit = tMaybe(`lg.sunit.${L.series_unit}`, {}, L.series_unit);
  const lines = names.map((n) => [0, ...L.series[n]]);
  const all = lines.flat();
  let lo = Math.min(0, ...all);
  let hi = Math.max(0, ...all);
  if (hi - lo < 1e-9) { lo -= 1; hi += 1; }
  const y = niceTicks(lo, hi, narrow ? 4 : 5);
  lo = y.ticks[0];
  hi = y.ticks[y.ticks.length - 1];
  // a long league's lines come thinned (every `series_step`-th deal, and the last): the deal of point i
  const step = L.series_step || 1;
  const dealOf = (k, i) => (i === lines[k].length - 1 && L.series_deals ? L.series_deals[names[k]] : i * step);
  const deals = Math.max(1, ...lines.map((s, k) => dealOf(k, s.length - 1)));
  const x = niceTicks(0, deals, narrow ? 4 : 8);
  const xStep = Math.max(1, Math.round(x.step));
  const labels = y.ticks.map((v) => tickText(v, y.step));
  const pad = { left: 12 + Math.max(...labels.map((l) => l.length)) * 7, right: 14, top: 24, bottom: 38 };
  const px = (i) => pad.left + (i / deals) * (width - pad.left - pad.right);
  const py = (v) => pad.top + ((hi - v) / (hi - lo)) * (height - pad.top - pad.bottom);
  const svg = svgEl("svg", { class: "league-chart", "data-testid": "league-chart", width, height,
    viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": t("lg.chart_label", { unit }) });
  y.ticks.forEach((v, i) => {
    svg.append(svgEl("line", { class: "grid", x1: pad.left, x2: width - pad.right, y1: py(v), y2: py(v) }),
      svgEl("text", { class: "tick", x: pad.left - 6, y: py(v) + 4, "text-anchor": "end" }, labels[i]));
  });
  for (let i = 0; i <= deals; i += xStep) {
    svg.append(svgEl("line", { class: "tick-mark", x1: px(i), x2: px(i), y1: height - pad.bottom, y2: height - pad.bottom + 4 }),
      svgEl("text", { class: "tick", x: px(i), y: height - pad.bottom + 16, "text-anchor": "middle" }, i));
  }
  svg.append(
    svgEl("line", { class: "zero", "data-testid": "chart-zero", x1: pad.left, x2: width - pad.right, y1: py(0), y2: py(0) }),
    svgEl("text", { class: "axis-title", x: 4, y: 13 }, t("lg.chart_y", { unit })),
    svgEl("text", { class: "axis-title", x: width - pad.right, y: height - 4, "text-anchor": "end" }, t("lg.chart_x")));
  const dots = deals <= 60;
  names.forEach((name, k) => {
    const color = colors.get(name);
    const points = lines[k].map((v, i) => `${px(dealOf(k, i)).toFixed(1)},${py(v).toFixed(1)}`);
    const group = svgEl("g", { class: "series", "data-entrant": name });
    group.append(svgEl("polyline", { points: points.join(" "), stroke: color, "data-testid": `chart-line-${name}`,
      "data-entrant": name, "data-points": points.length }, svgEl("title", {}, name)));
    if (dots) lines[k].forEach((v, i) => group.append(svgEl("circle", { cx: px(dealOf(k, i)).toFixed(1), cy: py(v).toFixed(1), r: 2.6, fill: color },
      svgEl("title", {}, `${name} · ${t("lg.chart_x")} ${dealOf(k, i)}: ${signed(v, Math.abs(v) < 10 ? 2 : 1)} ${unit}`))));
    svg.append(group);
  });
  return svg;
}
