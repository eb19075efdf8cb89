// A table screen shared by the three games: the felt, seats around an oval with names,
// stacks, connection state and the turn clock, the action bar, and the hand history.
// What is game specific (cards, bets, center of the felt, buttons, event wording) comes
// from the game modules.

import { h, clear, chips, distinctNames, focusOf, restoreFocus } from "./dom.js";
import { gameFailure, gameModule, onGameLoaded } from "./games.js";
import { roomName, shortTitle } from "./lobby.js";
import { fairNode, restoreRecord, revealedRecord, trackEvent, trackHistory, trackSnapshot } from "./verify.js";
import { keepEvent, keepHand, keepLastHand, keepOpening, keepVersion, storedHand, storedLastHand } from "./handlog.js";
import { t, tParts } from "./i18n.js";
import { animate, soundFor, turnChime } from "./fx.js";

const RING = 2 * Math.PI * 27; // circumference of the clock ring (r = 27 in a 60x60 box)

/**
 * The classes a game's table (or its last hand's panel) is styled by: `game-<name>` (its own
 * stylesheet's rules) and the shared layouts its module asks for: `cards-beside` (the
 * module's `cardsBeside`: the seats on the sides hold their cards toward the middle and the
 * top seat right of its plate; on a phone others' face-down cards are left to the plates).
 */
function layoutClasses(game, module) {
  return `game-${game}${module && module.cardsBeside ? " cards-beside" : ""}`;
}

export class TableScreen {
  constructor({ conn, store, app }) {
    this.conn = conn;
    this.store = store;
    this.app = app;
    this.ui = new Map(); // room id -> per-room UI state kept across re-renders
    this.clock = null;
    this.main = null;
    let pending = false;
    onGameLoaded((game) => { // a table waiting for its game's module
      const snap = this.store.current && this.store.snaps.get(this.store.current);
      if (snap && snap.game === game && this.main) this.render(this.main, snap);
    });
    window.addEventListener("resize", () => { // phones lay the seats out differently: draw again
      if (pending) return;
      pending = true;
      requestAnimationFrame(() => {
        pending = false;
        const snap = this.store.current && this.store.snaps.get(this.store.current);
        if (snap && this.main && this.main.querySelector(".table-screen")) this.render(this.main, snap);
      });
    });
  }

  uiFor(room) {
    if (!this.ui.has(room)) this.ui.set(room, {});
    return this.ui.get(room);
  }

  context(snap) {
    const module = gameModule(snap.game);
    const ui = this.uiFor(snap.room);
    // seats freed when the hand ended (busted, or left), still drawn until the next deal;
    // yours among them: the table is drawn around your seat, with your cards
    const ghosts = this.ghostSeats(snap, ui);
    const me = snap.your_seat ?? ghosts.mine;
    let view = snap.view;
    if (snap.your_seat === null && me !== null && module && module.ownView && ui.ownView
        && ui.ownView.hand === snap.hand_no && ui.ownView.seat === me && view) {
      view = module.ownView(view, ui.ownView.view, me);
    }
    const ctx = {
      snap,
      view,
      game: snap.game,
      me,
      ghosts: ghosts.seats,
      n: snap.seats.length,
      ui,
      module,
      name: (seat) => {
        if (seat === null || seat === undefined) return "?";
        const s = snap.seats[seat];
        if (s) return displayNames(snap.seats)[seat];
        const ui = this.uiFor(snap.room);
        return (ui.names && ui.names[seat]) || t("table.seat", { n: seat + 1 });
      },
      act: (action) => this.app.act(snap.room, action),
      rerender: () => {
        const latest = this.store.snaps.get(snap.room);
        if (latest && this.store.current === snap.room) this.render(this.main, latest);
      },
      toast: this.app.toast,
      serverNow: () => this.conn.serverNow(),
      narrow: window.innerWidth <= 600, // a phone: less room on the felt
    };
    // remember names so that seats emptied after a hand still read well in the results
    ctx.ui.names = ctx.ui.names || {};
    const shown = displayNames(snap.seats);
    snap.seats.forEach((s, i) => { if (s) ctx.ui.names[i] = shown[i]; });
    return ctx;
  }

  render(main, snap) {
    this.main = main;
    const module = gameModule(snap.game);
    if (!module) { // its table module is on its way (drawn when it comes), or could not be had
      const failure = gameFailure(snap.game);
      clear(main).append(h("div", { class: "panel", "data-testid": failure ? "cannot-show" : "table-loading" },
        failure ? t("table.cannot_show", { game: shortTitle(snap.game) }) : t("table.loading")));
      return;
    }
    const ctx = this.context(snap);
    const view = ctx.view;
    const historyOpen = ctx.ui.historyOpen ?? window.innerWidth >= 900;
    if (snap.playing && view && ctx.ui.openedHand !== snap.hand_no) {
      // The opening of a hand (blinds, antes, your cards) for the history panel, from the
      // view, unless the server already sent the engine's opening events for this hand.
      ctx.ui.openedHand = snap.hand_no;
      if (ctx.ui.sawOpeningFor !== snap.hand_no && module.opening) {
        if (ctx.ui.expectHand !== snap.hand_no) {
          const handNo = snap.hand_no;
          this.app.log(snap.room, () => [t("log.in_progress", { n: handNo }), "sep"], null, handNo);
          ctx.ui.partialHand = snap.hand_no;
          ctx.ui.partialVersion = snap.version;
          keepOpening(snap.room, snap.hand_no, snap.version, view); // a reload starts the hand here too
        }
        const partial = ctx.ui.partialHand === snap.hand_no ? snap.hand_no : null;
        module.opening(ctx).forEach((_, i) => this.app.log(snap.room, () => {
          const line = module.opening(ctx)[i];
          return Array.isArray(line) ? line : [line, ""];
        }, null, partial));
      }
    }
    const log = this.store.logs.get(snap.room) || [];

    const seatLayer = h("div", { class: "seat-layer" });
    // your seat at the bottom; once you ran out of chips, the seat you had
    const anchor = ctx.me ?? (this.store.busted.has(snap.room) ? ctx.ui.formerSeat : null) ?? 0;
    const order = rotation(snap.seats.length, anchor);
    // on a phone the chips a seat has in front of it go on its plate: the felt has no room
    const betsOnPlates = window.innerWidth <= 600 && !module.betPos;
    order.forEach((seat, k) => {
      const pos = ellipsePos(k, snap.seats.length, 1);
      const bet = module.betMarker ? module.betMarker(ctx, seat) : null;
      if (bet && betsOnPlates) bet.classList.add("on-plate");
      seatLayer.append(this.seatBox(ctx, seat, pos, k, betsOnPlates ? bet : null));
      if (bet && !betsOnPlates) {
        const bpos = module.betPos ? module.betPos(k, snap.seats.length) : ellipsePos(k, snap.seats.length, 0.42);
        bet.style.left = `${bpos.x}%`;
        bet.style.top = `${bpos.y}%`;
        bet.dataset.seat = seat;
        seatLayer.append(bet);
      }
    });

    const screen = h("div", {
      class: `table-screen ${layoutClasses(snap.game, module)}`, "data-testid": "table", "data-room": snap.room,
      "data-game": snap.game, "data-your-seat": snap.your_seat ?? "", "data-hand": snap.hand_no,
      "data-version": snap.version, "data-playing": snap.playing ? "1" : "0",
      "data-over": view && view.is_over ? "1" : "0",
      "data-to-act": view && !view.is_over && view.to_act !== null && view.to_act !== undefined ? view.to_act : "",
      "data-street": view ? (view.street || view.phase || `round-${view.round}`) : "",
    },
    this.topBar(ctx),
    h("div", { class: "table-layout" },
      h("div", { class: "table-col" },
        h("div", { class: `felt-wrap seats-${snap.seats.length}` },
          h("div", { class: "felt" },
            h("div", { class: "felt-logo" }, shortTitle(snap.game)),
            h("div", { class: `center ${view && view.is_over ? "over" : ""}`, "data-testid": "center" },
              module.center(ctx),
              this.statusNode(ctx))),
          seatLayer),
        module.mine ? module.mine(ctx) : null,
        h("div", { class: "actions", "data-testid": "actions" }, this.actionsNode(ctx))),
      h("aside", { class: `history ${historyOpen ? "open" : ""}`, "data-testid": "history" },
        h("button", { class: "history-toggle", type: "button", "data-testid": "history-toggle",
          onclick: () => { ctx.ui.historyOpen = !historyOpen; ctx.rerender(); } },
        t(historyOpen ? "table.history_open" : "table.history_closed"),
        this.chat ? this.chat.unreadBadge(snap.room, historyOpen) : null),
        h("ol", { class: "history-list" },
          log.map((line) => h("li", { class: line.cls }, line.text))),
        this.chat ? this.chat.node(snap) : null,
        this.hostNode(ctx))));

    const focus = focusOf(main);
    clear(main).append(screen);
    if (focus && focus.id === "chat-input") restoreFocus(main, focus); // a line being typed keeps its caret
    if (ctx.ui.showLast) main.append(this.lastHandPanel(ctx));
    fitFelt(screen);
    if (!module.betPos) placeBets(screen);
    animate(screen, ctx.ui);
    turnChime(snap, ctx.ui);
    const list = screen.querySelector(".history-list");
    list.scrollTop = list.scrollHeight;
    this.startClock();
    this.tick();
  }

  /**
   * The tools of the player who made the table (`snap.creator`), in the side panel: lock
   * the table (nobody new sits down) or open it, and remove someone else's seat between
   * hands (its chips go back to its player's wallet). Null for everyone else.
   */
  hostNode(ctx) {
    const { snap } = ctx;
    const me = this.store.welcome && this.store.welcome.player;
    if (!me || snap.creator !== me || snap.league || snap.closed) return null;
    const request = (msg) => this.conn.request({ ...msg, room: snap.room }).catch(() => {});
    const others = snap.seats.map((s, i) => [s, i]).filter(([s]) => s && s.player !== me);
    return h("section", { class: "host-box", "data-testid": "host-tools" },
      h("h3", { class: "chat-title" }, t("host.title")),
      h("button", { class: "btn small", type: "button", "data-testid": "lock-room",
        title: t(snap.locked ? "host.unlock_title" : "host.lock_title"),
        onclick: () => request({ t: "lock", locked: !snap.locked }) }, t(snap.locked ? "host.unlock" : "host.lock")),
      others.length ? h("ul", { class: "host-seats" }, others.map(([s, i]) => h("li", {},
        h("span", {}, ctx.name(i)),
        h("button", { class: "btn small danger", type: "button", "data-testid": `remove-seat-${i}`,
          disabled: snap.playing, title: t(snap.playing ? "host.remove_later" : "host.remove_title", { name: ctx.name(i) }),
          onclick: () => { if (window.confirm(t("host.remove_confirm", { name: ctx.name(i) }))) request({ t: "remove_seat", seat: i }); } },
        t("host.remove"))))) : null);
  }

  topBar(ctx) {
    const { snap } = ctx;
    const seated = snap.your_seat !== null;
    const mySeat = seated ? snap.seats[snap.your_seat] : null;
    const last = ctx.ui.lastOver;
    const buttons = [
      h("button", { class: "btn ghost", "data-testid": "to-lobby", title: t("table.lobby_title"),
        onclick: () => this.app.toLobby() }, t("table.lobby")),
      last ? h("button", { class: "btn ghost last-hand-btn", "data-testid": "last-hand", "data-hand": last.hand_no,
        title: t("table.last_title", { n: last.hand_no }),
        onclick: () => { ctx.ui.showLast = !ctx.ui.showLast; ctx.rerender(); } }, t("table.last")) : null,
    ];
    const right = [];
    if (seated) {
      if (mySeat && !mySeat.leaving && !snap.league) right.push(autoPlayButton(snap, mySeat, this.conn, this.store.games));
      if (mySeat && mySeat.sitting_out) {
        right.push(h("button", { class: "btn", "data-testid": "sit-in",
          onclick: () => this.conn.request({ t: "sit_in", room: snap.room }).catch(() => {}) }, t("table.sit_in")));
      } else if (mySeat && !mySeat.leaving) {
        right.push(h("button", { class: "btn", "data-testid": "sit-out",
          onclick: () => this.conn.request({ t: "sit_out", room: snap.room }).catch(() => {}) }, t("table.sit_out")));
      }
      right.push(h("button", { class: "btn danger", "data-testid": "leave-seat",
        disabled: mySeat && mySeat.leaving, onclick: () => this.app.leave(snap.room) },
      t(mySeat && mySeat.leaving ? "table.leaving_btn" : "table.leave")));
    } else {
      right.push(h("span", { class: "badge watching", "data-testid": "watching" }, t("table.watching")));
      right.push(h("button", { class: "btn", "data-testid": "stop-watching",
        onclick: () => this.app.leave(snap.room) }, t("table.stop_watching")));
    }
    return h("div", { class: "table-bar" },
      buttons,
      h("div", { class: "table-title" },
        h("div", { class: "table-name" }, roomName(snap, this.store.games)),
        h("div", { class: "muted small" }, ctx.module.stakes ? ctx.module.stakes(ctx) : shortTitle(snap.game),
          snap.hand_no ? t("table.hand_no", { n: snap.hand_no }) : "",
          snap.locked ? h("span", { "data-testid": "table-locked" }, t("table.locked")) : null),
        snap.code ? this.invitation(snap) : null,
        fairNode(ctx)),
      h("div", { class: "table-buttons" }, right));
  }

  /** A private room: its code, and a button copying the link that lets a friend in. */
  invitation(snap) {
    const link = `${location.origin}${location.pathname}#/room/${snap.room}/${snap.code}`;
    const copy = h("button", { class: "btn ghost small", "data-testid": "copy-invite", title: link,
      onclick: async () => {
        try { await navigator.clipboard.writeText(link); this.app.toast(t("table.copied"), "info"); }
        catch (err) { window.prompt(t("table.copy_prompt"), link); }
      } }, t("table.copy"));
    return h("div", { class: "invite small", "data-testid": "invite", "data-link": link },
      tParts("table.private", { room: h("b", { "data-testid": "invite-room" }, snap.room),
        code: h("b", { "data-testid": "invite-code" }, snap.code) }), " ", copy);
  }

  /**
   * Between hands: when the next hand comes (a countdown, then "Dealing…"), or, when no
   * hand can start, why not: too few players ready, only bots ready, or you sitting out.
   */
  statusNode(ctx) {
    const { snap } = ctx;
    if (snap.playing) return null;
    if (snap.closed) {
      return h("div", { class: "status", "data-testid": "status" }, t(snap.league ? "table.match_over" : "table.closed"));
    }
    const attrs = { class: "status", "data-testid": "status" };
    const why = this.noHandReason(snap);
    if (why) {
      attrs["data-why"] = why.code;
      let text = t(why.key, why.params);
      if (snap.your_seat === null && snap.seats.some((s) => !s) && !this.store.busted.has(snap.room)) text += t("table.take_seat");
      // seated and waiting for players with a seat free: a bot can take it (not in a league match)
      const addBot = why.code === "too_few" && snap.your_seat !== null && !snap.league && snap.seats.some((s) => !s)
        ? h("button", { type: "button", class: "btn small add-bot", "data-testid": "add-bot",
          onclick: () => this.conn.request({ t: "add_bot", room: snap.room }).catch(() => {}) }, t("table.add_bot"))
        : null;
      return h("div", attrs, text, addBot);
    }
    if (snap.next_hand_ms) {
      attrs["data-until"] = snap.next_hand_ms;
      return h("div", attrs, t("table.next_soon"));
    }
    return h("div", attrs, t("table.dealing"));
  }

  /**
   * Why no hand can start at this table now ({code, key, params}), or null when one will
   * be dealt once the pause between hands is over. The server's rule
   * (server/room/table.py `can_start`): enough ready seats (seated, not sitting out, not
   * leaving, chips left) for the game (for the first hand, the room's
   * `first_hand_players` if more), and a person playing for themselves among them (bots
   * and auto-played seats never play alone, except in a league match).
   */
  noHandReason(snap) {
    if (snap.playing || snap.closed) return null;
    const league = snap.league;
    if (league && snap.hand_no >= league.hands) return null; // the match is over
    const info = this.store.games.find((g) => g.game === snap.game);
    const min = info ? info.min_players : 2;
    const first = snap.hand_no === 0 ? Number((snap.options || {}).first_hand_players) || 0 : 0;
    const needed = Math.max(min, first);
    // (a game may deal only the stacks that cover more than a chip: Zha Jin Hua's ante)
    const module = gameModule(snap.game);
    const least = module && module.leastStack ? module.leastStack(snap.config || {}) : 1;
    const ready = snap.seats.filter((s) => s && !s.sitting_out && !s.leaving && s.stack >= least);
    const person = Boolean(league) || ready.some((s) => !s.bot && !s.auto);
    if (ready.length >= needed && person) return null;
    const mine = snap.your_seat !== null ? snap.seats[snap.your_seat] : null;
    if (mine && mine.sitting_out) return { code: "sitting_out", key: "table.you_sitting_out" };
    if (mine && mine.auto && ready.length >= needed) return { code: "auto", key: "table.you_auto" };
    if (ready.length >= needed) return { code: "no_person", key: "table.waiting_person" };
    return { code: "too_few", key: "table.waiting_ready", params: { n: needed } };
  }

  /**
   * Seats the hand just over freed when it ended (their player ran out of chips, or had
   * asked to leave): drawn until the next hand is dealt, so the result stays readable.
   * Returns {seats: seat -> seat info (`gone`: "busted" or "left"), mine: your own such
   * seat or null}. From the `left` events that came with `hand_ended` (`ui.gone`).
   */
  ghostSeats(snap, ui) {
    const out = { seats: {}, mine: null };
    const v = snap.view;
    if (snap.playing || !v || !v.is_over || !v.seats || !ui.gone) return out;
    const player = this.store.welcome ? this.store.welcome.player : null;
    for (const [k, g] of Object.entries(ui.gone)) {
      const seat = Number(k);
      if (g.hand !== snap.hand_no || snap.seats[seat] || !v.seats[seat]) continue;
      out.seats[seat] = { player: g.player, name: g.name, stack: g.stack, connected: true, sitting_out: false,
        leaving: false, bot: false, gone: g.reason };
      if (player && g.player === player) out.mine = seat;
    }
    return out;
  }

  seatBox(ctx, seat, pos, k, bet = null) {
    const { snap, view } = ctx;
    const info = snap.seats[seat];
    const style = { left: `${pos.x}%`, top: `${pos.y}%` };
    // where the seat's cards go: toward the middle of the table
    // (the seat right at the top holds them beside its plate, below it they would reach
    // the board; at 9-10 seats its neighbours have that room)
    const side = pos.x < 30 ? "pos-left" : pos.x > 70 ? "pos-right" : pos.y > 60 ? "pos-bottom"
      : Math.abs(pos.x - 50) < 1 && snap.seats.length <= 8 ? "pos-top top-middle" : "pos-top";
    const place = placeOf(snap, seat);
    if (!info && place !== null) return this.placedSeat(ctx, seat, place, side, style);
    if (!info && ctx.ghosts[seat]) return this.ghostSeat(ctx, seat, pos, k, side, style, bet);
    if (!info) {
      const canSit = snap.your_seat === null && !snap.closed && !snap.locked;
      return h("div", { class: `seat empty ${side}`, style, "data-testid": `seat-${seat}`, "data-seat": seat },
        canSit
          ? h("button", { class: "btn sit", "data-testid": `sit-${seat}`, onclick: () => this.app.join(snap.room, seat) }, t("table.sit_here"))
          : h("div", { class: "empty-label" }, t(snap.locked && snap.your_seat === null ? "lobby.locked" : "table.empty")));
    }
    const mine = seat === ctx.me;
    const toAct = view && !view.is_over && view.to_act === seat;
    const timer = snap.timer && snap.timer.seat === seat ? snap.timer : null;
    const extra = ctx.module.seatState ? ctx.module.seatState(ctx, seat) : {};
    const classes = ["seat", side, mine ? "me" : "", toAct ? "to-act" : "", extra.winner ? "winner" : "",
      extra.out ? "out" : "", place > 1 ? "eliminated" : "", info.connected || info.bot ? "" : "offline",
      info.sitting_out ? "sitting-out" : ""];
    const avatar = h("div", { class: "avatar" },
      h("span", { class: "initial" }, info.bot ? "⚙" : (info.name || "?").slice(0, 1).toUpperCase()),
      timer ? clockRing(timer.deadline_ms, clockTotal(snap, timer)) : null);
    const badges = [];
    if (place !== null) badges.push(placeBadge(seat, place));
    if (ctx.module.badges) badges.push(...ctx.module.badges(ctx, seat));
    if (info.bot) badges.push(h("span", { class: "badge bot", title: t("table.bot_title"), "data-testid": `bot-${seat}` }, t("table.bot")));
    else if (!info.connected) badges.push(h("span", { class: "badge offline-badge", title: t("table.away_title") }, t("table.away")));
    if (info.auto) badges.push(autoBadge(snap, seat, info, this.store.games));
    if (info.sitting_out) badges.push(h("span", { class: "badge" }, t("table.sitting_out")));
    if (info.leaving) badges.push(h("span", { class: "badge" }, t("table.leaving")));
    const bank = bankBadge(snap, seat, info, timer);
    if (bank) badges.push(bank);
    if (bet) badges.push(bet);
    // on a phone the cards a seat shows at the end go on its plate too (Hold'em, Zha Jin Hua)
    const cards = ctx.module.seatCards ? ctx.module.seatCards(ctx, seat) : null;
    const onPlate = Boolean(bet !== null || (ctx.narrow && !ctx.module.betPos)) && !mine && cards;
    return h("div", { class: classes.filter(Boolean).join(" "), style, "data-testid": `seat-${seat}`,
      "data-seat": seat, "data-pos": k, "data-name": info.name, "data-stack": info.stack, "data-bot": info.bot ? "1" : "0",
      "data-place": place ?? "" },
    onPlate ? null : h("div", { class: "seat-cards" }, cards),
    h("div", { class: "plate" },
      avatar,
      h("div", { class: "plate-text" },
        h("div", { class: "seat-name", "data-testid": `seat-name-${seat}`, title: ctx.name(seat) }, ctx.name(seat)),
        h("div", { class: "seat-stack", "data-testid": `seat-stack-${seat}` }, chips(info.stack))),
      badges.length ? h("div", { class: "badges" }, badges) : null,
      onPlate ? h("div", { class: "seat-cards plate-cards" }, cards) : null,
      extra.note ? h("div", { class: "seat-note", "data-testid": `seat-note-${seat}`, title: extra.title || extra.note }, extra.note) : null),
    );
  }

  /**
   * A seat freed at the end of the hand on the table (its player busted or left): drawn as
   * it ended, with the cards the hand showed and "out of chips" / "left", until the next
   * deal. Others watching may take it ("Sit here"); its own player has the Rebuy panel.
   */
  ghostSeat(ctx, seat, pos, k, side, style, bet) {
    const { snap } = ctx;
    const info = ctx.ghosts[seat];
    const mine = seat === ctx.me;
    const extra = ctx.module.seatState ? ctx.module.seatState(ctx, seat) : {};
    const classes = ["seat", "gone", side, mine ? "me" : "", extra.winner ? "winner" : "", extra.out ? "out" : ""];
    const badges = [];
    if (ctx.module.badges) badges.push(...ctx.module.badges(ctx, seat));
    badges.push(h("span", { class: "badge gone-badge", "data-testid": `gone-${seat}` },
      t(info.gone === "busted" ? "table.gone_busted" : "table.gone_left")));
    if (bet) badges.push(bet);
    const player = this.store.welcome ? this.store.welcome.player : null;
    const canSit = snap.your_seat === null && !snap.closed && info.player !== player;
    const cards = ctx.module.seatCards ? ctx.module.seatCards(ctx, seat) : null;
    const onPlate = Boolean(bet !== null || (ctx.narrow && !ctx.module.betPos)) && !mine && cards;
    return h("div", { class: classes.filter(Boolean).join(" "), style, "data-testid": `seat-${seat}`,
      "data-seat": seat, "data-pos": k, "data-name": info.name, "data-stack": info.stack, "data-bot": "0",
      "data-gone": info.gone, "data-place": "" },
    onPlate ? null : h("div", { class: "seat-cards" }, cards),
    h("div", { class: "plate" },
      h("div", { class: "avatar" }, h("span", { class: "initial" }, (ctx.name(seat) || "?").slice(0, 1).toUpperCase())),
      h("div", { class: "plate-text" },
        h("div", { class: "seat-name", "data-testid": `seat-name-${seat}`, title: ctx.name(seat) }, ctx.name(seat)),
        h("div", { class: "seat-stack", "data-testid": `seat-stack-${seat}` }, chips(info.stack))),
      h("div", { class: "badges" }, badges),
      onPlate ? h("div", { class: "seat-cards plate-cards" }, cards) : null,
      extra.note ? h("div", { class: "seat-note", "data-testid": `seat-note-${seat}`, title: extra.title || extra.note }, extra.note) : null,
      canSit ? h("button", { class: "btn sit small", "data-testid": `sit-${seat}`, onclick: () => this.app.join(snap.room, seat) }, t("table.sit_here")) : null),
    );
  }

  /** A sit-and-go's seat whose player left once the match was over: who sat there, and the place. */
  placedSeat(ctx, seat, place, side, style) {
    return h("div", { class: `seat placed ${place > 1 ? "eliminated" : ""} ${side}`, style, "data-testid": `seat-${seat}`,
      "data-seat": seat, "data-place": place },
    h("div", { class: "plate" },
      h("div", { class: "avatar" }, h("span", { class: "initial" }, ctx.name(seat).slice(0, 1).toUpperCase())),
      h("div", { class: "plate-text" },
        h("div", { class: "seat-name", "data-testid": `seat-name-${seat}`, title: ctx.name(seat) }, ctx.name(seat))),
      h("div", { class: "badges" }, placeBadge(seat, place))));
  }

  actionsNode(ctx) {
    const { snap, view } = ctx;
    if (snap.your_seat === null) {
      const free = snap.seats.some((s) => !s);
      if (free && this.store.busted.has(snap.room)) return this.rebuyNode(ctx);
      return h("div", { class: "muted hint" }, t(free && !snap.closed ? "table.watching_free" : "table.watching_full"));
    }
    const below = ctx.module.resultBelow ? ctx.module.resultBelow(ctx) : null;
    if (below) return below;
    const mine = snap.seats[snap.your_seat];
    if (mine && mine.auto && snap.playing) return this.autoPlayingNode(ctx, mine);
    if (!view || !snap.playing) {
      // sitting out: said here unless the felt says so already (no hand can start)
      const out = snap.seats[snap.your_seat] && snap.seats[snap.your_seat].sitting_out;
      const felt = this.noHandReason(snap);
      const text = snap.playing ? "" : out ? (felt && felt.code === "sitting_out" ? "" : t("table.you_sitting_out")) : t("table.next_hand");
      const hint = h("div", { class: "muted hint", "data-testid": "between-hands" }, text);
      const show = this.showButton(ctx);
      return show ? h("div", { class: "after-hand" }, show, hint) : hint;
    }
    const node = ctx.module.actions(ctx);
    if (node) {
      const timer = snap.timer && snap.timer.seat === snap.your_seat ? snap.timer : null;
      if (timer) {
        node.prepend(h("div", { class: `my-clock${timer.bank_since_ms ? " on-bank" : ""}`,
          "data-deadline": timer.deadline_ms, "data-total": clockTotal(snap, timer),
          "data-bank": timer.bank_since_ms ? "1" : "" }, ""));
      }
      return node;
    }
    const who = view.to_act !== null && view.to_act !== undefined ? ctx.name(view.to_act) : null;
    return h("div", { class: "muted hint", "data-testid": "waiting" }, who ? t("table.waiting_for", { name: who }) : "");
  }

  /** While my seat is auto-played during a hand: what plays for me, and one click to take
   * the seat back (the action buttons would only race the server, which plays at once). */
  autoPlayingNode(ctx, mine) {
    const { snap } = ctx;
    return h("div", { class: "auto-playing", "data-testid": "auto-playing" },
      h("span", { class: "muted" }, t(checkFoldGame(this.store.games, snap.game) ? "table.auto_on_checkfold" : "table.auto_on_bot")
        + (mine.auto === "asked" ? "" : ` (${t(`table.auto_why_${mine.auto}`)})`)),
      h("button", { class: "btn primary", "data-testid": "auto-play-back",
        onclick: () => this.conn.request({ t: "auto_play", room: snap.room, on: false }).catch(() => {}) },
      t("table.auto_back")));
  }

  /** After a hand I was dealt into, my cards still face down (mucked, folded, or won
   * uncontested): a button that shows them to the table (``show``). Games whose hands
   * all end face up have no ``shown`` flag in their view, so no button. */
  showButton(ctx) {
    const { snap, view } = ctx;
    if (!view || !view.is_over || !view.seats) return null;
    const mine = view.seats[snap.your_seat];
    const seat = snap.seats[snap.your_seat];
    if (!mine || mine.shown !== false || !seat || mine.player !== seat.player) return null;
    if (mine.in_hand === false || mine.dealt_in === false) return null;
    return h("button", { class: "btn ghost", "data-testid": "show-cards", title: t("table.show_title"),
      onclick: () => this.conn.request({ t: "show", room: snap.room }).catch(() => {}) }, t("table.show"));
  }

  /**
   * Out of chips: buy in again (a join of the same room). The amount is bounded by the
   * room's `buy_in_min..buy_in_max` and by the wallet (`buy_in_default` proposed, or the
   * most the wallet allows); a wallet holding less than `buy_in_min` is told so, with no
   * button.
   */
  rebuyNode(ctx) {
    const o = ctx.snap.options || {};
    const min = o.buy_in_min || 1;
    const wallet = this.store.wallet;
    const known = wallet !== null && wallet !== undefined;
    if (known && wallet < min) {
      return h("div", { class: "action-bar rebuy", "data-testid": "rebuy-panel" },
        h("div", { class: "muted small", "data-testid": "rebuy-text" }, t("table.rebuy_short", { wallet: chips(wallet), min: chips(min) })));
    }
    const max = Math.min(o.buy_in_max || 1e12, known ? wallet : Infinity);
    const amount = h("input", { type: "number", min, max, step: 1, value: Math.min(max, Math.max(min, o.buy_in_default || min)),
      "data-testid": "rebuy-amount", "aria-label": t("table.rebuy_label"), inputmode: "numeric" });
    amount.addEventListener("input", () => amount.classList.remove("invalid"));
    const rebuy = () => {
      const n = Number(amount.value);
      if (!Number.isInteger(n) || n < min || n > max) {
        amount.classList.add("invalid");
        this.app.toast(t("table.rebuy_range", { min: chips(min), max: chips(max) }), "error");
        return;
      }
      this.app.join(ctx.snap.room, null, n);
    };
    return h("div", { class: "action-bar rebuy", "data-testid": "rebuy-panel" },
      h("div", { class: "muted small", "data-testid": "rebuy-text" }, t("table.rebuy_text", { min: chips(min), max: chips(max) })),
      h("div", { class: "row buttons" }, amount,
        h("button", { class: "btn act raise", "data-testid": "rebuy", onclick: rebuy }, t("table.rebuy"))));
  }

  // --- events -----------------------------------------------------------------------------

  /**
   * Every snapshot of a room this page follows, shown or not: the fairness record, the
   * last finished hand, your own view of the hand (kept should the seat be freed when it
   * ends), and, the first time after the page (re)loads, the hand so far from this tab's
   * record of it (handlog.js).
   */
  onSnapshot(snap) {
    const ui = this.uiFor(snap.room);
    if (!ui.restoreChecked) {
      ui.restoreChecked = true;
      this.restore(snap, ui);
    }
    trackSnapshot(ui, snap);
    // the last finished hand, kept for the "Last hand" view while the next one is played
    // (and in the tab's storage, with its fairness record, for a reload)
    if (snap.view && snap.view.is_over && snap.hand_no) {
      ui.lastOver = snap;
      keepLastHand(snap.room, snap, revealedRecord(ui, snap.hand_no));
    }
    if (snap.your_seat !== null && snap.your_seat !== undefined) {
      ui.formerSeat = snap.your_seat;
      if (snap.view) ui.ownView = { hand: snap.hand_no, seat: snap.your_seat, view: snap.view };
    }
    if (snap.playing) keepVersion(snap.room, snap.hand_no, snap.version);
  }

  /**
   * After a reload, the hand under way as this tab saw it before: its history lines one by
   * one, the seats' notes of the betting round (the games' `track`), the fairness record
   * when nothing was missed. If the room moved on while the page reloaded (the record's
   * version is older than the snapshot's), a line says that moves are missing. Reloaded
   * once the hand is over (its lines then come from `history`): the seats it freed as it
   * ended, and whether you ran out of chips (the Rebuy panel). And the last finished hand
   * the tab kept, for "Last hand", "Verify" and "Save" (handlog.js).
   */
  restore(snap, ui) {
    const last = storedLastHand(snap.room);
    if (last && last.snap.game === snap.game && last.snap.hand_no <= snap.hand_no) {
      ui.lastOver = last.snap;
      restoreRecord(ui, last.fair);
    }
    const rec = storedHand(snap.room);
    if (!rec || rec.hand !== snap.hand_no || !gameModule(snap.game)) return;
    if (!snap.playing) { this.restoreEnd(snap, ui, rec); return; }
    const whole = rec.events.length > 0 && rec.events[0][1].type === "hand_started";
    if (!whole && !rec.opening) return;
    const complete = rec.version === snap.version;
    const ctx = { ...this.context(snap), replaying: true };
    const room = snap.room;
    const handNo = snap.hand_no;
    if (!whole) {
      this.app.log(room, () => [t("log.in_progress", { n: handNo }), "sep"], null, handNo);
      const octx = { ...ctx, view: rec.opening };
      const opening = () => (ctx.module.opening ? ctx.module.opening(octx) : []);
      opening().forEach((_, i) => this.app.log(room, () => {
        const line = opening()[i];
        return Array.isArray(line) ? line : [line, ""];
      }, null, handNo));
      ui.partialHand = handNo;
      ui.partialVersion = rec.events.length ? rec.events[0][0] - 1 : rec.version;
    }
    for (const [version, ev] of rec.events) {
      const [line, cls] = this.absorb(ev, ctx, version, whole && complete);
      if (line) this.app.log(room, () => lineFor(ev, ctx), [line, cls]);
    }
    if (!complete) this.app.log(room, () => [t("log.reload_gap"), "warn"]);
    ui.expectHand = handNo;
    ui.sawOpeningFor = handNo;
  }

  /**
   * The hand under way as the server tells it (`history`'s `current`: its events as this
   * page's viewer may see them, with their room versions), for a page that came to it
   * mid-way without this tab's record of it (another device, a new tab): its lines take the
   * place of the summary drawn from the view, the events that came live since stay after
   * them, the seats' notes are worked out again from the start, and the tab's record keeps
   * the hand whole for a reload. False when there is nothing to tell (the page saw the hand
   * start, or the hand is no longer the one on the table).
   */
  tellCurrent(snap, current) {
    const ui = this.uiFor(snap.room);
    const events = current.events || [];
    const versions = current.versions || [];
    if (current.hand !== snap.hand_no || ui.partialHand !== current.hand || !gameModule(snap.game)) return false;
    if (!events.length || events[0].type !== "hand_started" || versions.length !== events.length) return false;
    const upto = ui.partialVersion ?? snap.version;
    const ctx = { ...this.context(snap), replaying: true };
    const told = [];
    const kept = [];
    events.forEach((ev, i) => {
      if (versions[i] > upto) return; // it came live: logged and kept already
      kept.push([versions[i], ev]);
      const [line, cls] = this.absorb(ev, ctx, versions[i], false);
      if (line) told.push({ text: line, cls: cls || "", redo: () => lineFor(ev, ctx), partial: null });
    });
    const rec = storedHand(snap.room);
    const live = rec && rec.hand === current.hand ? rec.events.filter(([v]) => v > upto) : [];
    if (ctx.module && ctx.module.track) for (const [, ev] of live) ctx.module.track(ev, ctx);
    const log = this.store.logs.get(snap.room) || [];
    const at = log.findIndex((line) => line.partial === current.hand);
    const rest = log.filter((line) => line.partial !== current.hand);
    rest.splice(at < 0 ? rest.length : at, 0, ...told);
    this.store.logs.set(snap.room, rest);
    keepHand(snap.room, current.hand, kept.concat(live), Math.max(upto, rec ? rec.version : 0));
    ui.partialHand = null;
    ui.sawOpeningFor = current.hand;
    return true;
  }

  /** A `history` reply: the fairness record of a hand this page did not see start (verify.js); true if made. */
  trackHistory(snap, reply) {
    return trackHistory(this.uiFor(snap.room), snap, reply);
  }

  /** The end of the hand on the table, from the tab's record of it: who was stood up then. */
  restoreEnd(snap, ui, rec) {
    const ended = rec.events.find(([, ev]) => ev.type === "hand_ended");
    if (!ended || !snap.view || !snap.view.is_over) return;
    const ctx = this.context(snap);
    const player = this.store.welcome ? this.store.welcome.player : null;
    ui.endedAt = ended[0];
    ui.gone = {};
    for (const [version, ev, name] of rec.events) {
      if (ev.type !== "left" || version !== ended[0]) continue;
      ui.gone[ev.seat] = { hand: snap.hand_no, reason: ev.reason, player: ev.player, name: name || ctx.name(ev.seat), stack: ev.stack };
      (ui.names ||= {})[ev.seat] = name || ctx.name(ev.seat);
      if (ev.reason === "busted" && player && ev.player === player && snap.your_seat === null) this.store.busted.add(snap.room);
    }
  }

  /** The result of the last finished hand: its center (board, pot, winners, score) and the hands shown. */
  lastHandPanel(ctx) {
    const last = ctx.ui.lastOver;
    const lctx = { ...this.context(last), rerender: () => {}, act: () => {}, last: true, narrow: false };
    const close = () => { ctx.ui.showLast = false; ctx.rerender(); };
    return h("div", { class: "last-hand-backdrop", onclick: (e) => { if (e.target === e.currentTarget) close(); } },
      h("div", { class: `panel last-hand-panel ${layoutClasses(last.game, gameModule(last.game))}`, role: "dialog", "aria-label": t("table.last"),
        "data-testid": "last-hand-panel", "data-hand": last.hand_no },
      h("div", { class: "create-head" },
        h("h2", {}, t("table.hand", { n: last.hand_no })),
        h("button", { class: "btn ghost", "data-testid": "last-hand-close", "aria-label": t("table.close"), onclick: close }, "✕")),
      h("div", { class: "last-center" }, ctx.module.center(lctx)),
      ctx.module.summary ? ctx.module.summary(lctx) : null));
  }

  /**
   * An event of a room this page follows (`version`: the room version it came with): the
   * page's state of the room takes it in, the history gets its line, the tab's record of
   * the hand keeps it (for a reload), and, on the room shown, its sound and notice.
   */
  onEvent(roomId, ev, snap, version = null) {
    if (!snap) return;
    const ctx = this.context(snap);
    const [line, cls] = this.absorb(ev, ctx, version);
    // (a seat stood up: its name too, for the seats drawn until the next deal after a reload)
    if (version !== null) keepEvent(roomId, ev, version, snap.hand_no, ev.type === "left" ? ctx.name(ev.seat) : null);
    if (line) this.app.log(roomId, () => lineFor(ev, ctx), [line, cls]);
    if (this.store.current === roomId) soundFor(snap, ev);
    if (ctx.module && ctx.module.notice) {
      const note = ctx.module.notice(ev, ctx);
      if (note && this.store.current === roomId) this.app.toast(note, "game", 3500);
    }
    if (this.store.current === roomId && this.main) {
      const list = this.main.querySelector(".history-list");
      if (list && line) {
        list.append(h("li", { class: cls }, line));
        list.scrollTop = list.scrollHeight;
      }
    }
  }

  /**
   * What an event changes in the page's state of its room (live, or replayed after a
   * reload): the fairness record (unless `fair` is false), the hand expected, the seats'
   * notes (the game's `track`), the seats freed as a hand ends (`ui.gone`: the `left`
   * events that came with `hand_ended`). Returns the event's history line.
   */
  absorb(ev, ctx, version, fair = true) {
    const { ui, snap } = ctx;
    if (fair) trackEvent(ui, snap, ev);
    if (ev.type === "hand_started") {
      ui.expectHand = ev.hand_no;
      ui.acts = {};
      ui.gone = {};
      (ui.loggedHands ||= new Set()).add(ev.hand_no);
    }
    if (ev.type === "hand_ended") { ui.endedAt = version; ui.gone = {}; }
    if (ev.type === "left" && version !== null && version === ui.endedAt) {
      (ui.gone ||= {})[ev.seat] = { hand: snap.hand_no, reason: ev.reason, player: ev.player, name: ctx.name(ev.seat), stack: ev.stack };
    }
    if (ctx.module && ctx.module.track) ctx.module.track(ev, ctx);
    if (["hand_start", "deal", "blind", "ante"].includes(ev.type)) ui.sawOpeningFor = ui.expectHand;
    return lineFor(ev, ctx);
  }

  /** History panel lines for hands fetched with `history` (those not already logged live). */
  historyLines(snap, hands) {
    const ui = this.uiFor(snap.room);
    const lines = [];
    let before = null; // the hand before: {no, blinds}, for a sit-and-go's "Blinds up"
    for (const hand of hands) {
      const blindsBefore = before && before.no === hand.hand - 1 ? before.blinds : null;
      before = { no: hand.hand, blinds: blindsOf(hand) };
      if ((ui.loggedHands && ui.loggedHands.has(hand.hand)) || ui.partialHand === hand.hand) continue;
      const ctx = historyContext(hand, snap, { blindsBefore });
      let started = false;
      for (const ev of hand.events || []) {
        if (ev.type === "hand_started") started = true;
        const [line, cls] = lineFor(ev, ctx);
        if (line) lines.push({ text: line, cls, redo: () => lineFor(ev, ctx) });
      }
      if (!started) {
        const handNo = hand.hand;
        const redo = () => [t("log.sep", { n: handNo }), "sep"];
        lines.unshift({ text: redo()[0], cls: "sep", redo });
      }
    }
    return lines;
  }

  // --- the turn clock ---------------------------------------------------------------------

  startClock() {
    if (this.clock) return;
    this.clock = setInterval(() => this.tick(), 250);
  }

  stopClock() {
    clearInterval(this.clock);
    this.clock = null;
  }

  tick() {
    if (!this.main) return;
    const now = this.conn.serverNow();
    for (const el of this.main.querySelectorAll(".ring[data-deadline]")) {
      const deadline = Number(el.dataset.deadline);
      const total = Number(el.dataset.total);
      const left = Math.max(0, deadline - now);
      const frac = total > 0 ? Math.min(1, left / total) : 0;
      const arc = el.querySelector(".arc");
      arc.style.strokeDashoffset = String(RING * (1 - frac));
      clockColour(el, left, total);
    }
    for (const el of this.main.querySelectorAll(".my-clock[data-deadline]")) {
      const left = Math.max(0, Number(el.dataset.deadline) - now);
      const n = Math.ceil(left / 1000);
      setText(el, el.dataset.bank ? t("table.bank_running", { n }) : t("table.seconds", { n }));
      clockColour(el, left, Number(el.dataset.total));
    }
    for (const el of this.main.querySelectorAll(".bank[data-bank-until]")) {
      setText(el, t("table.bank", { n: Math.ceil(Math.max(0, Number(el.dataset.bankUntil) - now) / 1000) }));
    }
    for (const el of this.main.querySelectorAll("[data-until]")) {
      const left = Math.max(0, Number(el.dataset.until) - now);
      setText(el, left > 0 ? t("table.next_in", { n: Math.ceil(left / 1000) }) : t("table.dealing"));
    }
  }
}

/** Sets `el`'s text only when it changes: the clock ticks four times a second, and a
 * text set again, even the same, makes the page lay itself out again. */
function setText(el, text) {
  if (el.textContent !== text) el.textContent = text;
}

/**
 * The felt takes the height left in the window once the bar, your hand and the action bar
 * are laid out, so every control stays on screen without scrolling (within sane bounds).
 */
function fitFelt(screen) {
  const wrap = screen.querySelector(".felt-wrap");
  if (!wrap) return;
  const phone = window.innerWidth <= 600;
  wrap.style.height = "";
  // the page's own margin under the table (the main column's bottom padding) counts too
  const pad = Math.max(8, parseFloat(getComputedStyle(screen.parentElement).paddingBottom) || 0);
  const top = wrap.getBoundingClientRect().top + window.scrollY;
  const col = screen.querySelector(".table-col");
  const below = col.getBoundingClientRect().bottom - wrap.getBoundingClientRect().bottom;
  const room = window.innerHeight - top - below - pad;
  const [lo, hi] = phone ? [330, 470] : [300, 560];
  wrap.style.height = `${Math.floor(Math.min(hi, Math.max(lo, room)))}px`;
  // the history beside the table ends where the window does
  const history = screen.querySelector(".history");
  if (history && history.getBoundingClientRect().left >= col.getBoundingClientRect().right) {
    const limit = window.innerHeight - (history.getBoundingClientRect().top + window.scrollY) - pad;
    history.style.maxHeight = `${Math.floor(Math.max(200, limit))}px`;
  }
  screen.dataset.fitted = `${window.innerWidth}x${window.innerHeight}`; // the window it was fitted to
}


/**
 * A turn clock's colour for `left` ms of `total`: green, then amber (`warn`) once half
 * the clock or 15 s remain, whichever is less, then red (`hurry`) for the last 5 s.
 */
function clockColour(el, left, total) {
  const hurry = left < 5000;
  el.classList.toggle("hurry", hurry);
  el.classList.toggle("warn", !hurry && left <= Math.min(15000, (total || 30000) / 2));
}

/**
 * Each seat's chips on the felt (Hold'em and Zha Jin Hua) just in front of the seat: on
 * the line from the seat to the middle of the table, at the first spot clear of the
 * seat's plate and cards and of everything else there (other seats, the board, the pot,
 * bets already placed). Where the line finds no such spot (a short felt: the middle
 * reaches down to your own cards), the clear one nearest the middle of: left or right of
 * the seat, above or below its cards. On a crowded felt with no clear spot at all, the
 * spot clear of the seat itself that covers the least of the rest.
 */
function placeBets(screen) {
  const wrap = screen.querySelector(".felt-wrap");
  const bets = wrap ? [...wrap.querySelectorAll(".seat-layer > .bet[data-seat]")] : [];
  if (!bets.length) return;
  const origin = wrap.getBoundingClientRect();
  const rect = (el) => {
    const r = el.getBoundingClientRect();
    return { x: r.left - origin.left, y: r.top - origin.top, w: r.width, h: r.height };
  };
  const drawn = (els) => els.map(rect).filter((r) => r.w > 0 && r.h > 0);
  const seats = new Map(); // seat -> {own: its plate and cards, cards: its cards alone}
  for (const seat of wrap.querySelectorAll(".seat-layer > .seat")) {
    const cards = drawn([...seat.querySelectorAll(".seat-cards > *")]);
    seats.set(seat.dataset.seat, { own: drawn([...seat.querySelectorAll(".plate")]).concat(cards), cards });
  }
  const taken = drawn([...screen.querySelectorAll(".center .board-area > *, .center > .status")]);
  for (const { own } of seats.values()) taken.push(...own);
  const middle = { x: origin.width / 2, y: origin.height / 2 };
  const inside = (r) => r.x >= 0 && r.y >= 0 && r.x + r.w <= origin.width && r.y + r.h <= origin.height;
  for (const bet of bets) {
    const { own = [], cards = [] } = seats.get(bet.dataset.seat) || {};
    if (!own.length) continue;
    const spots = betSpots(own, cards, { w: bet.offsetWidth, h: bet.offsetHeight }, middle)
      .filter((r) => inside(r) && !own.some((o) => overlaps(r, o, 4)));
    if (!spots.length) continue;
    // how much of the rest a spot covers (0: clear of everything)
    const scored = spots.map((r) => ({ r, cost: taken.reduce((sum, o) => sum + (overlaps(r, o, 2) ? overlapArea(r, o) + 1 : 0), 0) }));
    const { r: spot } = scored.find((x) => x.cost === 0) || scored.reduce((a, b) => (b.cost < a.cost ? b : a));
    bet.style.left = `${Math.round(spot.x + spot.w / 2)}px`;
    bet.style.top = `${Math.round(spot.y + spot.h / 2)}px`;
    taken.push(spot);
  }
}

/**
 * Where a bet of `size` may go, best first: along the line from the seat (its plate and
 * cards, `own`) to `middle`, every 3 px; then left or right of the seat and above or
 * below its cards, the one nearest the middle first.
 */
function betSpots(own, cards, size, middle) {
  const at = (x, y) => ({ x: x - size.w / 2, y: y - size.h / 2, w: size.w, h: size.h });
  const seat = union(own);
  const from = { x: seat.x + seat.w / 2, y: seat.y + seat.h / 2 };
  const dist = Math.hypot(middle.x - from.x, middle.y - from.y) || 1;
  const line = [];
  for (let d = 0; d <= dist; d += 3) {
    line.push(at(from.x + ((middle.x - from.x) * d) / dist, from.y + ((middle.y - from.y) * d) / dist));
  }
  const c = union(cards.length ? cards : own);
  const mid = { x: c.x + c.w / 2, y: c.y + c.h / 2 };
  const far = (r) => Math.hypot(r.x + r.w / 2 - middle.x, r.y + r.h / 2 - middle.y);
  const around = [at(seat.x - 6 - size.w / 2, mid.y), at(seat.x + seat.w + 6 + size.w / 2, mid.y),
    at(mid.x, c.y - 6 - size.h / 2), at(mid.x, c.y + c.h + 6 + size.h / 2)].sort((a, b) => far(a) - far(b));
  return line.concat(around);
}

/** The area two boxes share. */
function overlapArea(a, b) {
  const w = Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y);
  return w > 0 && h > 0 ? w * h : 0;
}

/** The smallest box holding every box of `items` ({x, y, w, h}). */
function union(items) {
  const x = Math.min(...items.map((r) => r.x));
  const y = Math.min(...items.map((r) => r.y));
  const right = Math.max(...items.map((r) => r.x + r.w));
  const bottom = Math.max(...items.map((r) => r.y + r.h));
  return { x, y, w: right - x, h: bottom - y };
}

/** Whether two boxes come closer than `gap` pixels. */
function overlaps(a, b, gap = 0) {
  return a.x < b.x + b.w + gap && b.x < a.x + a.w + gap && a.y < b.y + b.h + gap && b.y < a.y + a.h + gap;
}

/** Whether auto-play only checks or folds in `game` (its `auto_play` among the lobby's
 * `games`; the bot plays it otherwise). */
function checkFoldGame(games, game) {
  const info = (games || []).find((g) => g.game === game);
  return Boolean(info && info.auto_play === "check_or_fold");
}

/** The length of the running turn clock: the room's `action_seconds`, or, once the clock
 * runs on the seat's time bank (`bank_since_ms`), the bank it started with. */
function clockTotal(snap, timer) {
  if (timer.bank_since_ms) return Math.max(1, timer.deadline_ms - timer.bank_since_ms);
  return (snap.options.action_seconds || 30) * 1000;
}

/** The top bar's auto-play switch for my own seat: "Auto" / "托管" (what it does in this
 * game in its tooltip: check or fold in Hold'em and Zha Jin Hua, the bot in Dou Dizhu;
 * short, so the bar keeps its height), and while it is on, one click takes the seat back. */
function autoPlayButton(snap, mine, conn, games) {
  const on = Boolean(mine.auto);
  const title = on ? "table.auto_back_title" : checkFoldGame(games, snap.game) ? "table.auto_title_checkfold" : "table.auto_title";
  return h("button", { class: `btn${on ? " primary" : ""}`, "data-testid": on ? "auto-play-off" : "auto-play",
    title: t(title), onclick: () => conn.request({ t: "auto_play", room: snap.room, on: !on }).catch(() => {}) },
  t(on ? "table.auto_back" : "table.auto_play"));
}

/** A seat's auto-play badge, for every viewer: why it is on in its title. */
function autoBadge(snap, seat, info, games) {
  const text = checkFoldGame(games, snap.game) ? "table.auto_badge_checkfold" : "table.auto_badge";
  return h("span", { class: "badge auto-badge", "data-testid": `auto-${seat}`, "data-why": info.auto,
    title: t(`table.auto_why_${info.auto}`) }, t(text));
}

/** A seat's time bank (room option `time_bank_seconds`): what is left, and while its clock
 * runs on the bank, the bank counting down (the tick sets the text). */
function bankBadge(snap, seat, info, timer) {
  if (!(snap.options.time_bank_seconds > 0) || info.bot || info.time_bank_ms === undefined) return null;
  const running = Boolean(timer && timer.bank_since_ms);
  const attrs = { class: `badge bank${running ? " bank-running" : ""}${info.time_bank_ms > 0 ? "" : " empty"}`,
    "data-testid": `bank-${seat}`, "data-bank-ms": info.time_bank_ms, title: t("table.bank_title") };
  if (running) attrs["data-bank-until"] = timer.deadline_ms;
  return h("span", attrs, t("table.bank", { n: Math.ceil(info.time_bank_ms / 1000) }));
}

function clockRing(deadline, total) {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", "0 0 60 60");
  svg.setAttribute("class", "ring");
  svg.dataset.deadline = String(deadline);
  svg.dataset.total = String(total);
  svg.setAttribute("data-testid", "turn-clock");
  const bg = document.createElementNS(ns, "circle");
  const arc = document.createElementNS(ns, "circle");
  for (const c of [bg, arc]) {
    c.setAttribute("cx", "30"); c.setAttribute("cy", "30"); c.setAttribute("r", "27");
  }
  bg.setAttribute("class", "track");
  arc.setAttribute("class", "arc");
  arc.setAttribute("stroke-dasharray", String(RING));
  svg.append(bg, arc);
  return svg;
}

/**
 * The context the game's wording needs for a hand fetched with `history`: seats named
 * from the hand's own `seats` array (the table's snapshot, or for a hand seen from
 * elsewhere such as the league page, just `{room, game}`). `extra`: what the caller knows
 * of the hands around it (`blindsBefore`: the hand before's [small, big] blinds; `level`:
 * a sit-and-go's level number of this hand), for Hold'em's "Blinds up".
 */
export function historyContext(hand, snap, extra = {}) {
  const names = {};
  for (const s of hand.seats || []) names[s.seat] = s.name;
  const game = snap.game || hand.game;
  return {
    snap: { ...snap, hand_no: hand.hand }, view: null, game, me: hand.viewer ?? null, module: gameModule(game), ui: {},
    name: (seat) => (seat === null || seat === undefined ? "?" : names[seat] || t("table.seat", { n: seat + 1 })),
    ...extra,
  };
}

/** A fetched hand's [small, big] blinds (its Hold'em `hand_start` event), or null. */
export function blindsOf(hand) {
  const start = (hand.events || []).find((e) => e.type === "hand_start" && e.big_blind);
  return start ? [start.small_blind, start.big_blind] : null;
}

/** The history line of an event: [text or null, class]. */
export function lineFor(ev, ctx) {
  const name = ctx.name(ev.seat);
  switch (ev.type) {
    case "joined": return [t(ev.bot ? "log.joined_bot" : "log.joined", { name: ev.name, seat: ev.seat + 1, chips: chips(ev.stack) }), ""];
    case "rebuy": return [t("log.rebuy", { name, chips: chips(ev.stack) }), ""];
    case "left": return [t({ busted: "log.left_busted", sat_out: "log.left_sat_out", removed: "log.left_removed" }[ev.reason]
      || "log.left", { name }), ""];
    case "locked": return [t(ev.locked ? "log.locked" : "log.unlocked"), ""];
    case "leaving": return [t("log.leaving", { name }), ""];
    case "sat_out": return [t(ev.reason === "timeouts" ? "log.sat_out_timeouts" : "log.sat_out", { name }), ""];
    case "sat_in": return [t("log.sat_in", { name }), ""];
    case "auto_play": return [ev.on ? t(`log.auto_on_${ev.reason}`, { name }) : t("log.auto_off", { name }), ""];
    case "time_bank": return [t("log.time_bank", { name, n: Math.round(ev.bank_ms / 1000) }), "warn"];
    case "hand_started": return [t("log.sep", { n: ev.hand_no }), "sep"];
    case "timed_out": return [t("log.timed_out", { name }), "warn"];
    case "hand_ended": return [null, ""];
    // a sit-and-go (league rooms): who is out, in which place, and who won
    case "eliminated": return [t("log.eliminated", { name, n: ev.place }), "out"];
    case "placed": return ev.place === 1 ? [t("log.won_tournament", { name }), "win"] : [t("log.placed", { name, n: ev.place }), ""];
    // a league room's chips set back (every hand of a deal-format match, or to 0 when the
    // match ends): bookkeeping, not play; the hand's nets already say who won what
    case "stack_reset": return [null, ""];
    case "room_closed": return [t(ev.reason === "match_over" ? "log.match_over" : "log.room_closed"), "sep"];
    default: {
      const out = ctx.module ? ctx.module.describe(ev, ctx) : null;
      return Array.isArray(out) ? [out[0], out[1] || ""] : [out, ""];
    }
  }
}

/** A sit-and-go seat's finishing place (the snapshot's `league.places`), or null. */
function placeOf(snap, seat) {
  const places = snap.league && snap.league.places;
  const place = places ? places[String(seat)] : undefined;
  return place === undefined || place === null ? null : place;
}

/** "Out — 3rd" on a seat a sit-and-go eliminated, "Winner" on the one placed first. */
function placeBadge(seat, place) {
  return h("span", { class: `badge place ${place === 1 ? "won" : "gone"}`, title: t("table.place_title"),
    "data-testid": `place-${seat}`, "data-place": place }, place === 1 ? t("table.place_won") : t("table.place_out", { n: place }));
}

/** Seats in screen order, starting with `first` (drawn at the bottom). */
function rotation(n, first) {
  return Array.from({ length: n }, (_, k) => (first + k) % n);
}

/** Position (percent of the table box) of the k-th seat clockwise from the bottom. */
function ellipsePos(k, n, scale) {
  const theta = (2 * Math.PI * k) / n;
  let x = 50 - 43 * scale * Math.sin(theta);
  const y = 50 + 41 * scale * Math.cos(theta);
  if (scale === 1) x = Math.min(86, Math.max(14, x));
  return { x, y };
}

/** The seats' names as shown: two players with the same name get a short id suffix. */
function displayNames(seats) {
  return distinctNames(seats.map((s) => (s ? { name: s.name, id: s.player || "" } : null)));
}
