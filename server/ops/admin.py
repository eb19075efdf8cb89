"""The read-only status page at ``/admin`` (only with ``--admin-token``; the acts are at
``/admin/console``, :mod:`server.ops.admin_api`): this process, the
cluster's live processes, every room, and this process's connections and error counts."""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

#: the operator console's page (served at /admin/console with --admin-token): a page
#: without data, what it shows comes from the admin API
CONSOLE = Path(__file__).with_name("console.html")


def console_page() -> bytes:
    return CONSOLE.read_bytes()


def _table(headers: list[str], rows: list[list[Any]]) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in r) + "</tr>" for r in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _errors(metrics: Any) -> list[list[Any]]:
    rows = []
    for family in metrics.errors.collect():
        for sample in family.samples:
            if sample.name.endswith("_total") and sample.value:
                rows.append([sample.labels.get("code", "?"), int(sample.value)])
    return sorted(rows, key=lambda r: -r[1])


def render_admin(node: str, nodes: list[str], rooms: list[dict[str, Any]], sessions: Any, directory: Any,
                 metrics: Any, audit: list[dict[str, Any]] | None = None) -> bytes:
    players = {s.player_id for s in sessions if s.player_id}
    owned = sorted(directory.actors)
    room_rows = [[r["room"], r["game"], r["name"], f"{r['players']}/{r['seats']}", r.get("bots", 0),
                  r.get("spectators", 0), "yes" if r["playing"] else "no", "here" if r["room"] in owned else ""]
                 for r in rooms]
    page = f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>cardroom admin</title>
<style>body{{font:14px system-ui,sans-serif;margin:2em}}table{{border-collapse:collapse;margin:.5em 0 1.5em}}
td,th{{border:1px solid #ccc;padding:.2em .6em;text-align:left}}</style></head><body>
<h1>cardroom: {html.escape(node)}</h1>
<p>Live processes: {html.escape(", ".join(nodes) or "none")}</p>
<p>To act on rooms and players: the <a href="/admin/console">operator console</a> (or <code>cardroom admin</code>).</p>
<h2>This process</h2>
{_table(["connections", "players connected", "rooms owned"], [[len(sessions), len(players), len(owned)]])}
<h2>Errors answered by this process</h2>
{_table(["code", "count"], _errors(metrics))}
<h2>Rooms ({len(rooms)})</h2>
{_table(["room", "game", "name", "players", "bots", "spectators", "playing", "owned"], room_rows)}
<h2>Last moderation acts</h2>
{_table(["when (UTC)", "act", "target", "by", "reason"],
        [[e["time"], e["act"], e["target"], e["by"], e["reason"]] for e in audit or []])}
</body></html>"""
    return page.encode()
