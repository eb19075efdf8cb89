"""Hold'em events in words: one line of a hand history per event (``GAME.format_event``).

Lines read like a poker room's hand history (``Bob raises to 300``, ``-- Flop: [...] --``).
An event filtered for a viewer (:func:`engine.game.event_for`) that lacks its secret
cards prints ``[hidden]`` instead of them.
"""

from __future__ import annotations

from typing import Any

from ..cards import format_cards
from ..game import Event, SeatName, describe_event


def format_event(event: Event, name: SeatName) -> str | None:
    """One history line for a Hold'em event (an unknown type: the generic line)."""
    kind = event.get("type")
    if kind == "hand_start":
        ante = f", ante {event['ante']}" if event.get("ante") else ""
        return f"Blinds {event['small_blind']}/{event['big_blind']}{ante}"
    if kind == "ante":
        return f"{name(event['seat'])} posts ante {event['amount']}{_all_in(event)}"
    if kind == "blind":
        return f"{name(event['seat'])} posts {event['kind']} blind {event['amount']}{_all_in(event)}"
    if kind == "deal":
        return f"Dealt to {name(event['seat'])}: {_cards(event.get('cards'))}"
    if kind == "action":
        return describe_action(name(event["seat"]), event)
    if kind == "board":
        return f"-- {str(event['street']).capitalize()}: {_cards(event['board'])} --"
    if kind == "return":
        return f"Uncalled {event['amount']} returned to {name(event['seat'])}"
    if kind == "pots":
        return "Pots: " + ", ".join(_pot_text(name, i, p) for i, p in enumerate(event["pots"]))
    if kind == "showdown":
        shown = [f"{name(h['seat'])} shows {_cards(h['cards'])} ({h['description']})" for h in event["hands"]]
        mucked = [f"{name(s)} mucks" for s in event.get("mucked", ())]
        return "Showdown: " + "; ".join(shown + mucked)
    if kind == "show":
        hand = f" ({event['description']})" if event.get("description") else ""
        return f"{name(event['seat'])} shows {_cards(event['cards'])}{hand}"
    if kind == "award":
        pot = "the pot" if event["pot"] == 0 else f"side pot {event['pot']}"
        shares = " and ".join(f"{name(s['seat'])} wins {s['amount']}" for s in event["shares"])
        split = f" ({event['amount']})" if len(event["shares"]) > 1 else ""
        return f"{shares} from {pot}{split}" + (f" with {event['hand']}" if event.get("hand") else "")
    if kind == "hand_over":
        won = [f"{name(s)} {chips}" for s, chips in enumerate(event.get("won", ())) if chips]
        return "Hand over; won: " + (", ".join(won) if won else "nothing")
    return describe_event(event, name)


def describe_action(player: str, event: Event) -> str:
    """``Bob folds`` / ``checks`` / ``calls 20`` / ``bets 40`` / ``raises to 120`` (``and is all-in``)."""
    action = event["action"]
    if action == "fold":
        return f"{player} folds"
    if action == "check":
        return f"{player} checks"
    if action == "call":
        return f"{player} calls {event['amount']}{_all_in(event)}"
    if action == "bet":
        return f"{player} bets {event['to']}{_all_in(event)}"
    return f"{player} raises to {event['to']}{_all_in(event)}"


def _cards(cards: list[int] | None) -> str:
    return "[hidden]" if cards is None else f"[{format_cards(cards)}]"


def _all_in(event: Event) -> str:
    return " and is all-in" if event.get("all_in") else ""


def _pot_text(name: SeatName, index: int, pot: dict[str, Any]) -> str:
    label = "main" if index == 0 else f"side {index}"
    players = "/".join(name(s) for s in pot["eligible"])
    return f"{label} {pot['amount']} ({players})"
