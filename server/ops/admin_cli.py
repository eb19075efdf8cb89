"""``cardroom admin``: the operator's acts from a shell, through a running server's admin
API (:mod:`server.ops.admin_api`; the server needs ``--admin-token``)::

    export CARDROOM_ADMIN_TOKEN=...            # the server's --admin-token
    cardroom admin rooms
    cardroom admin players ali                 # players whose name has "ali"
    cardroom admin close r-1a2b3c4d --reason "broken table"
    cardroom admin remove r-1a2b3c4d 3 --reason afk
    cardroom admin mute p-5f1c0e9a2b7d --minutes 30 --reason spam
    cardroom admin ban p-5f1c0e9a2b7d --reason cheating
    cardroom admin credit p-5f1c0e9a2b7d 500 --reason "prize of the Friday league"
    cardroom admin audit

It prints the answer as JSON (``--json``) or as short lines; exit status 0 when done, 1
when the server refused (its error code and message on stderr), 2 for a bad command line.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import quote, urlencode

ACTS = {  # command -> (method, path, the arguments that go in the path, query names)
    "rooms": ("GET", "rooms", (), ()),
    "players": ("GET", "players", (), ("name", "limit")),
    "audit": ("GET", "audit", (), ("count",)),
    "close": ("POST", "rooms/{room}/close", ("room",), ("reason",)),
    "remove": ("POST", "rooms/{room}/seats/{seat}/remove", ("room", "seat"), ("reason",)),
    "mute": ("POST", "players/{player}/mute", ("player",), ("minutes", "reason")),
    "unmute": ("POST", "players/{player}/unmute", ("player",), ("reason",)),
    "ban": ("POST", "players/{player}/ban", ("player",), ("reason",)),
    "unban": ("POST", "players/{player}/unban", ("player",), ("reason",)),
    "credit": ("POST", "players/{player}/wallet", ("player",), ("amount", "reason")),
    "debit": ("POST", "players/{player}/wallet", ("player",), ("amount", "reason")),
}


def add_command(sub: Any) -> None:
    admin = sub.add_parser(
        "admin", help="an operator's acts on a running server: close rooms, remove seats, mute, ban, wallets",
        description="Asks a running server's admin API (it needs --admin-token). The token comes from "
                    "--token or CARDROOM_ADMIN_TOKEN. Every act is kept in the server's audit log "
                    "('cardroom admin audit').")
    admin.add_argument("--url", default=None,
                       help="the server (default http://127.0.0.1:$CARDROOM_PORT, port 8765 when unset)")
    admin.add_argument("--token", default=None, help="the admin token (default: $CARDROOM_ADMIN_TOKEN)")
    admin.add_argument("--json", action="store_true", help="print the server's answer as JSON")
    acts = admin.add_subparsers(dest="act", required=True)
    acts.add_parser("rooms", help="the rooms the lobby lists")
    players = acts.add_parser("players", help="players whose name contains NAME (all without it)")
    players.add_argument("name", nargs="?", default="")
    players.add_argument("--limit", type=int, default=50)
    audit = acts.add_parser("audit", help="the last acts, newest first")
    audit.add_argument("--count", type=int, default=30)
    close = acts.add_parser("close", help="close a room: every seat paid out (once its hand is over)")
    close.add_argument("room")
    remove = acts.add_parser("remove", help="free a seat between its hands; its chips go to its wallet")
    remove.add_argument("room")
    remove.add_argument("seat", type=int)
    mute = acts.add_parser("mute", help="no chat lines from a player for a while")
    mute.add_argument("player")
    mute.add_argument("--minutes", type=int, default=60)
    ban = acts.add_parser("ban", help="no hello from a player; its connections closed, its seats left")
    ban.add_argument("player")
    for name, what in (("unmute", "let a muted player talk again"), ("unban", "let a banned player in again")):
        acts.add_parser(name, help=what).add_argument("player")
    for name, what in (("credit", "add play chips to a wallet"), ("debit", "take play chips from a wallet")):
        act = acts.add_parser(name, help=what + " (counted as a grant; a reason is required)")
        act.add_argument("player")
        act.add_argument("amount", type=int)
    for act in acts.choices.values():
        if act.prog.split()[-1] not in ("rooms", "players", "audit"):
            act.add_argument("--reason", default="", help="why (kept in the audit log)")
    admin.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    token = args.token or os.environ.get("CARDROOM_ADMIN_TOKEN")
    if not token:
        print("cardroom admin: give the server's admin token: --token or CARDROOM_ADMIN_TOKEN", file=sys.stderr)
        return 2
    base = (args.url or f"http://127.0.0.1:{os.environ.get('CARDROOM_PORT') or 8765}").rstrip("/")
    method, path, in_path, names = ACTS[args.act]
    values = vars(args)
    if args.act in ("credit", "debit"):
        if values["amount"] <= 0:
            print(f"cardroom admin {args.act}: the amount must be above 0", file=sys.stderr)
            return 2
        values = dict(values, amount=values["amount"] if args.act == "credit" else -values["amount"])
    url = f"{base}/admin/api/" + path.format(**{k: quote(str(values[k]), safe="") for k in in_path})
    query = {k: values[k] for k in names if values.get(k) not in (None, "")}
    if query:
        url += "?" + urlencode(query)
    request = urllib.request.Request(url, method=method, headers={"Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(request, timeout=15) as response:
            answer = json.loads(response.read())
    except urllib.error.HTTPError as exc:
        try:
            error = json.loads(exc.read())
            print(f"cardroom admin {args.act}: {error['error']}: {error['message']}", file=sys.stderr)
        except (ValueError, KeyError):
            print(f"cardroom admin {args.act}: HTTP {exc.code} from {base}", file=sys.stderr)
        return 1
    except (OSError, ValueError) as exc:
        print(f"cardroom admin {args.act}: cannot reach {base}: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(answer, ensure_ascii=False, indent=2) if args.json else _lines(args.act, answer))
    for room, code in (answer.get("not_left") or {}).items():  # a ban that could not free every seat
        print(f"cardroom admin {args.act}: the seat in {room} was not freed ({code}): ban again to retry",
              file=sys.stderr)
    return 1 if answer.get("not_left") else 0


def _lines(act: str, answer: dict[str, Any]) -> str:
    """The answer as a person reads it."""
    if act == "rooms":
        return "\n".join(f"{r['room']}  {r['game']:<9} {r['players']}/{r['seats']}  {r['name']}"
                         for r in answer["rooms"]) or "(no rooms)"
    if act == "players":
        return "\n".join(f"{p['player']}  {p['name']:<20} wallet {p['wallet']}"
                         + ("  banned" if p.get("banned") else "") + ("  muted" if p.get("muted_until") else "")
                         for p in answer["players"]) or "(no players)"
    if act == "audit":
        return "\n".join(f"{e['time']}  {e['act']:<12} {e['target']:<16} by {e['by']}"
                         + (f"  ({e['reason']})" if e.get("reason") else "")
                         for e in answer["audit"]) or "(nothing yet)"
    return "done: " + ", ".join(f"{k} {v}" for k, v in answer.items() if k not in ("ok", "not_left"))
