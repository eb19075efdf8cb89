// A tiny DOM builder: h("div", {class: "x", onclick: fn}, child, "text", [more]).

import { lang } from "./i18n.js";

export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  if (attrs) {
    for (const [key, value] of Object.entries(attrs)) {
      if (value === null || value === undefined || value === false) continue;
      if (key.startsWith("on") && typeof value === "function") {
        el.addEventListener(key.slice(2), value);
      } else if (key === "style" && typeof value === "object") {
        for (const [prop, v] of Object.entries(value)) {
          if (prop.startsWith("--")) el.style.setProperty(prop, String(v)); else el.style[prop] = v;
        }
      } else if (key === "value") {
        el.value = value;
      } else if (key === "checked") {
        el.checked = Boolean(value);
      } else {
        el.setAttribute(key, value === true ? "" : String(value));
      }
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else if (child instanceof Node) el.append(child);
    else el.append(document.createTextNode(String(child)));
  }
}

export function clear(el) {
  while (el.firstChild) el.removeChild(el.firstChild);
  return el;
}

/**
 * A name a player typed (a table's) as this browser can draw it: where no font has Chinese
 * glyphs (see detectCjkFont), its Chinese, parenthesised or not, is left out (in English;
 * a page the user switched to Chinese shows it whatever the fonts).
 */
export function readable(text) {
  if (typeof text !== "string" || lang() !== "en" || !document.documentElement.classList.contains("no-cjk")) return text;
  return text.replace(/\s*[(（][^)）]*[\u3400-\u9fff][^)）]*[)）]/g, "").replace(/[\u3400-\u9fff]+/g, "").trim();
}

/** A player's name as its own element inside a line of text (see tParts), so that a style
 * can keep it on one line and cut it short (the whole name in the tooltip). */
export function who(name) {
  return h("span", { class: "who", title: name }, name);
}

/** Chips as people read them: 1,250. */
export function chips(n) {
  if (n === null || n === undefined) return "–";
  return Number(n).toLocaleString("en-US");
}

/**
 * Display names that tell people apart: a name used by two or more entries gets a short
 * suffix from each entry's id ("alice #9a2b"). `entries` are {name, id} or null.
 */
export function distinctNames(entries) {
  const count = new Map();
  for (const e of entries) if (e) count.set(e.name, (count.get(e.name) || 0) + 1);
  return entries.map((e) => {
    if (!e) return null;
    return count.get(e.name) > 1 ? `${e.name} #${String(e.id).slice(-4)}` : e.name;
  });
}

/** The field that has the focus (by its test id) and its caret, to give it back after a redraw. */
export function focusOf(main) {
  const el = document.activeElement;
  if (!el || el === document.body || !main.contains(el) || !el.dataset || !el.dataset.testid) return null;
  let start = null;
  let end = null;
  try { start = el.selectionStart; end = el.selectionEnd; } catch (err) { /* no caret in a number field */ }
  return { id: el.dataset.testid, start, end };
}

export function restoreFocus(main, focus) {
  if (!focus) return;
  const el = main.querySelector(`[data-testid="${CSS.escape(focus.id)}"]`);
  if (!el || el.disabled) return;
  el.focus({ preventScroll: true });
  try { if (focus.start !== null && focus.start !== undefined) el.setSelectionRange(focus.start, focus.end); } catch (err) { /* not a text field */ }
}
