// The games the server hosts, as the lobby's `games` describes them (each game's
// descriptor: engine/game.py Game.describe), and each game's table module, loaded by name
// from games/<name>.js. The server serves a plugin game's own module there; the built-in
// games' modules are this page's games/ folder. The page names no game: a game it has
// never heard of plays as soon as the server hosts it.
//
// A table module's default export is the table (see table.js for what it may offer: center,
// actions, seatCards, describe, ...); a module may also export `strings`, its words by
// language ({en: {...}, zh: {...}}), which join the page's (i18n.js), and `stylesheet`, the
// address of its own CSS (its lobby tile, its table's layout), which the page links before
// the game counts as loaded.

import { LANGS, STRINGS } from "./i18n.js";

const modules = new Map(); // name -> the table (a module's default export)
const failed = new Map(); // name -> why its module did not load
const loading = new Map(); // name -> the promise of its import
const listeners = [];
let descriptors = [];

/** Call `fn(name)` whenever a game's table module has loaded (or failed to). */
export function onGameLoaded(fn) { listeners.push(fn); }

/** The descriptors the server sent last (`rooms.games`). */
export function gameList() { return descriptors; }

/** One game's descriptor, or undefined for a game the server does not host. */
export function gameInfo(name) { return descriptors.find((g) => g.game === name); }

/** The game's icon for tiles and room rows. */
export function gameIcon(name) {
  const info = gameInfo(name);
  return (info && info.icon) || "\u2663";
}

/**
 * Take the server's descriptors: their words join the page's under the keys the page
 * looks up (`title` → `game.<name>`, `blurb` → `blurb.<name>`, `opt.<option>` →
 * `opt.<name>.<option>`, likewise `optdoc.` and `choice.`), a language a game does not
 * speak falling back to its English; and every game's table module starts loading.
 */
export function describeGames(games) {
  descriptors = games || [];
  for (const g of descriptors) {
    const words = g.strings || {};
    for (const language of LANGS) {
      const own = { title: g.title, ...(words.en || {}), ...(words[language] || {}) };
      for (const [key, text] of Object.entries(own)) STRINGS[language][pageKey(g.game, key)] = text;
    }
    loadGame(g.game);
  }
}

function pageKey(game, key) {
  if (key === "title") return `game.${game}`;
  if (key === "blurb") return `blurb.${game}`;
  const dot = key.indexOf(".");
  return dot < 0 ? `${game}.${key}` : `${key.slice(0, dot)}.${game}.${key.slice(dot + 1)}`;
}

/** The game's table, or undefined while its module loads (or when it failed: see gameFailure). */
export function gameModule(name) {
  if (!modules.has(name)) loadGame(name);
  return modules.get(name);
}

/** Why the game's table module could not be loaded, or undefined. */
export function gameFailure(name) { return failed.get(name); }

/** Load `name`'s table module (once); resolves to the table, or null when it cannot be had. */
export function loadGame(name) {
  if (!loading.has(name)) {
    const url = `./games/${encodeURIComponent(name)}.js`;
    loading.set(name, import(url).then(async (mod) => {
      for (const language of LANGS) Object.assign(STRINGS[language], (mod.strings || {}).en || {}, (mod.strings || {})[language] || {});
      if (mod.stylesheet) await linkStylesheet(mod.stylesheet);
      modules.set(name, mod.default);
      return mod.default;
    }, (err) => {
      failed.set(name, String(err && err.message ? err.message : err));
      return null;
    }).then((table) => {
      for (const fn of listeners) fn(name);
      return table;
    }));
  }
  return loading.get(name);
}

/** Link a game's stylesheet; resolves once it applies (or failed to load: the table still plays). */
function linkStylesheet(href) {
  return new Promise((resolve) => {
    const link = document.createElement("link");
    link.rel = "stylesheet";
    link.href = href;
    link.onload = link.onerror = () => resolve();
    document.head.append(link);
  });
}
