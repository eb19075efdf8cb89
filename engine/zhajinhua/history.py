"""Zha Jin Hua events in words: one line of a hand history per event (``GAME.format_event``).

Cards are dealt face down and only show up in events when a seat looks at its own
hand (``look``), when a compare reveals hands to the two seats in it
(``compare_reveal``), at a showdown, and when a seat shows its hand after it (``show``). A copy filtered for another viewer
(:func:`engine.game.event_for`) lacks those cards and says so.
"""

from __future__ import annotations

from ..cards import format_cards
from ..game import Event, SeatName, describe_event


def format_event(event: Event, name: SeatName) -> str | None:
    """One history line for a Zha Jin Hua event (an unknown type: the generic line)."""
    kind = event.get("type")
    if kind == "hand_start":
        seats = ", ".join(name(s) for s in event["seats"])
        return (f"Ante {event['ante']} each from {seats}; pot {event['pot']}; "
                f"{name(event['first'])} acts first")
    if kind == "turn":
        return f"Round {event['round']}: {name(event['seat'])} to act"
    if kind == "look":
        cards = event.get("cards")
        return f"{name(event['seat'])} looks at the cards" + (f": [{format_cards(cards)}]" if cards else "")
    if kind in ("call", "raise"):
        how = "seen" if event.get("seen") else "blind"
        if kind == "call":
            return f"{name(event['seat'])} calls {event['amount']} ({how})"
        return f"{name(event['seat'])} raises the stake to {event['stake']}, paying {event['amount']} ({how})"
    if kind == "fold":
        return f"{name(event['seat'])} folds"
    if kind == "all_in":
        return f"{name(event['seat'])} goes all-in for {event['amount']}"
    if kind == "compare":
        fee = f" (pays {event['amount']})" if event.get("amount") else ""
        all_in = " all-in" if event.get("all_in") else ""
        return (f"{name(event['seat'])} compares{all_in} with {name(event['target'])}{fee}: "
                f"{name(event['winner'])} wins, {name(event['loser'])} is out")
    if kind == "compare_reveal":
        hands = event.get("hands")
        if hands is None:
            return f"Hands shown privately to {name(event['to'])}"
        shown = ", ".join(f"{name(h['seat'])} [{format_cards(h['cards'])}]" for h in hands)
        return f"Shown to {name(event['to'])}: {shown}"
    if kind == "showdown":
        shown = "; ".join(f"{name(h['seat'])} shows [{format_cards(h['cards'])}] ({h['description']})"
                          for h in event["hands"])
        return f"Showdown: {shown}; {name(event['winner'])} wins"
    if kind == "show":
        return f"{name(event['seat'])} shows [{format_cards(event['cards'])}] ({event['description']})"
    if kind == "hand_over":
        paid = ", ".join(f"{name(p['seat'])} {p['amount']}" for p in event["payouts"])
        return f"{name(event['winner'])} wins the hand; paid out: {paid}"
    return describe_event(event, name)
