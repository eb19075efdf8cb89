"""Dou Dizhu events in words: one line of a hand history per event (``GAME.format_event``).

Cards are written as rank strings (``3456789TJQKA2`` then ``B``/``R`` for the black
and red jokers), lowest first, as suits do not matter in Dou Dizhu. A deal filtered
for another viewer (:func:`engine.game.event_for`) gives only the card count.
"""

from __future__ import annotations

from typing import Any

from ..game import Event, SeatName, describe_event
from .ranks import counts_from_cards, format_counts


def format_event(event: Event, name: SeatName) -> str | None:
    """One history line for a Dou Dizhu event (an unknown type: the generic line)."""
    kind = event.get("type")
    if kind == "hand_start":
        order = ", ".join(name(s) for s in event["seats"])
        return f"Bidding: {event['bidding']}; order {order}"
    if kind == "deal":
        cards = event.get("cards")
        shown = f": {_ranks(cards)}" if cards is not None else ""
        return f"Dealt to {name(event['seat'])} ({event['count']} cards){shown}"
    if kind == "turn":
        verb = "bids" if event.get("phase") == "bidding" else "plays"
        return f"{name(event['seat'])} {verb} first"
    if kind == "bid":
        return f"{name(event['seat'])} bids {event['value']}"
    if kind == "call":
        return f"{name(event['seat'])} calls for the landlord (x{event['multiplier']})"
    if kind == "rob":
        return f"{name(event['seat'])} robs the landlord (x{event['multiplier']})"
    if kind == "pass":
        return f"{name(event['seat'])} {_PASSES.get(event.get('phase'), 'passes')}"
    if kind == "open_hand":
        when = "before taking the bottom cards" if event.get("before_bottom") else "after taking the bottom cards"
        return f"{name(event['seat'])} shows the hand {when}: {event['ranks']} (x{event['multiplier']})"
    if kind == "double":
        return f"{name(event['seat'])} doubles (x{event['multiplier']})"
    if kind == "redeal":
        return f"No landlord ({event.get('reason', 'every player passed')}): the hand is void"
    if kind == "landlord":
        return (f"{name(event['seat'])} is the landlord and takes the bottom cards "
                f"{event['bottom_ranks']} (x{event['multiplier']})")
    if kind == "play":
        return (f"{name(event['seat'])} plays {event['ranks']} ({str(event['kind']).replace('_', ' ')}), "
                f"{event['cards_left']} left (x{event['multiplier']})")
    if kind == "trick_won":
        return f"{name(event['seat'])} wins the trick and leads"
    if kind == "hand_over":
        return _result(event, name)
    return describe_event(event, name)


# A pass in words, by the phase it was made in (the play phase's passes carry none).
_PASSES = {"bidding": "passes (no bid)", "open": "keeps the hand hidden", "doubling": "does not double"}


def _ranks(cards: list[int]) -> str:
    return format_counts(counts_from_cards(cards)) or "-"


def _result(event: Event, name: SeatName) -> str:
    side = "The landlord wins" if event["winner"] == "landlord" else "The peasants win"
    multiplier: dict[str, Any] = event["multiplier"]
    extras = [label for key, label in (("spring", "spring"), ("anti_spring", "anti-spring")) if multiplier.get(key)]
    if multiplier.get("open_hand", 1) > 1:
        extras.append(f"open hand x{multiplier['open_hand']}")
    doubled = [name(s) for s, d in enumerate(event.get("doubled") or ()) if d]
    if doubled:
        extras.append(f"doubled by {', '.join(doubled)}")
    chips = ", ".join(f"{name(s)} {c:+d}" for s, c in enumerate(event["chips"]) if c is not None)
    left = "; ".join(f"{name(s)} held {_ranks(h)}" for s, h in enumerate(event.get("hands") or ()) if h)
    return (f"{side} ({name(event['out_seat'])} went out{', ' + ', '.join(extras) if extras else ''}): "
            f"x{multiplier['final']} at stake {event['stake']}; chips {chips}" + (f"; {left}" if left else ""))
