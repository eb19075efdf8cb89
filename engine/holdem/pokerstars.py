"""Hold'em hands in the PokerStars hand-history text layout, for hand trackers to import.

:func:`export_hand` writes one stored hand as a viewer saw it: the hand as plain data (the
``hand`` objects of ``cardroom history --format jsonl``: ``room``, ``hand``, ``time_ms``,
``button``, ``seats``, ``events`` already as the viewer saw them, ``finished``), the
operator's full view (every hole card), a seat's (its own cards, and the cards shown at the
showdown) or a spectator's. It is Hold'em's history export (``Game.exports``, used by
``cardroom history --format pokerstars`` and league exports). The layout is the one PokerStars writes for a
play-money cash game; tracking tools (and PokerKit's ``PokerStarsParser``) read it::

    PokerStars Hand #739154237210584461: Hold'em No Limit (50/100) - 2026/11/22 00:29:34 ET
    Table 'Friday game' 6-max Seat #1 is the button
    Seat 1: Alice (2000 in chips)
    Seat 2: Bob (2000 in chips)
    Alice: posts small blind 50
    Bob: posts big blind 100
    *** HOLE CARDS ***
    Dealt to Alice [Qd 4d]
    Alice: raises 200 to 300
    Bob: folds
    Uncalled bet (200) returned to Alice
    Alice collected 200 from pot
    Alice: doesn't show hand
    *** SUMMARY ***
    Total pot 200 | Rake 0
    Seat 1: Alice (button) (small blind) collected (200)
    Seat 2: Bob (big blind) folded before Flop

What maps to what:

* Hand numbers: PokerStars numbers are unique across its tables, ours only within a room,
  so the number written is :func:`hand_number`: the first 8 bytes of
  ``SHA-256("cardroom|<room id>|<hand number>")`` as a big-endian integer, modulo 10**18.
  The same hand always gets the same number; two hands get the same one with
  probability about 1 in 10**18 per pair.
* Seats are numbered from 1 (our seat 0 is ``Seat 1``), chips are play money (no
  currency sign), the time is the hand's first stream entry in US Eastern time (``ET``).
* Names are the display names with the characters that would make a line ambiguous
  (``: ( ) [ ]`` and control characters) replaced by ``_``; a name used by two seats
  gets ``_<seat>`` appended, since trackers key players by name.
* Raises are written ``raises <increment> to <total>`` as PokerStars does; calls and
  uncalled bets in chips added or returned; ``and is all-in`` where the engine says so.
* Pots: ``collected N from pot`` with one pot, else ``from main pot`` / ``from side
  pot`` (``side pot-1``, ``side pot-2`` ... when there are several).
* Showdown descriptions are PokerStars' wording (``a pair of Kings``, ``two pair, Aces
  and Fours``), from the hand value the showdown event carries. There is no rake.

Only finished hands can be written (a hand without its end has no result); nothing here
does I/O.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, timezone, tzinfo
from typing import Any

from ..cards import format_cards
from . import evaluator
from .evaluator import hand_class

STREETS = {"flop": "Flop", "turn": "Turn", "river": "River"}
RANK_NAMES = tuple(n.capitalize() for n in evaluator.RANK_NAMES)  # PokerStars writes "a pair of Kings"
RANK_PLURALS = tuple(n.capitalize() for n in evaluator.RANK_PLURALS)
_UNSAFE = re.compile(r"[\x00-\x1f\x7f:()\[\]]")


def hand_number(room: str, hand_no: int) -> int:
    """The hand's number in the export: unique across rooms, the same on every export."""
    digest = hashlib.sha256(f"cardroom|{room}|{hand_no}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % 10**18


def eastern() -> tzinfo:
    """US Eastern time (PokerStars' ``ET``); a fixed UTC-5 where the system has no tz data."""
    try:
        from zoneinfo import ZoneInfo

        return ZoneInfo("America/New_York")
    except Exception:  # no tz database on this system
        return timezone(timedelta(hours=-5), "ET")


def stars_time(ms: int | None) -> str:
    """``YYYY/MM/DD HH:MM:SS ET`` of a time in milliseconds since the epoch."""
    when = datetime.fromtimestamp((ms or 0) / 1000, UTC).astimezone(eastern())
    return when.strftime("%Y/%m/%d %H:%M:%S") + " ET"


def describe_value(value: int) -> str:
    """A hand value (:mod:`engine.holdem.evaluator`) in PokerStars' words."""
    cat, ranks = hand_class(value)
    if cat == 8:
        if ranks[0] == 12:
            return "a Royal Flush"
        return f"a straight flush, {RANK_NAMES[(ranks[0] - 4) % 13]} to {RANK_NAMES[ranks[0]]}"
    if cat == 7:
        return f"four of a kind, {RANK_PLURALS[ranks[0]]}"
    if cat == 6:
        return f"a full house, {RANK_PLURALS[ranks[0]]} full of {RANK_PLURALS[ranks[1]]}"
    if cat == 5:
        return f"a flush, {RANK_NAMES[ranks[0]]} high"
    if cat == 4:  # the wheel's high card is the five, its low one the ace
        return f"a straight, {RANK_NAMES[(ranks[0] - 4) % 13]} to {RANK_NAMES[ranks[0]]}"
    if cat == 3:
        return f"three of a kind, {RANK_PLURALS[ranks[0]]}"
    if cat == 2:
        return f"two pair, {RANK_PLURALS[ranks[0]]} and {RANK_PLURALS[ranks[1]]}"
    if cat == 1:
        return f"a pair of {RANK_PLURALS[ranks[0]]}"
    return f"high card {RANK_NAMES[ranks[0]]}"


def player_names(hand: Mapping[str, Any]) -> dict[int, str]:
    """Each dealt seat's name as written (see the module doc)."""
    names: dict[int, str] = {}
    for s in hand["seats"]:
        seat = s["seat"]
        name = _UNSAFE.sub("_", str(s.get("name") or "")).strip() or f"Seat{seat + 1}"
        if name in names.values():
            name = f"{name}_{seat + 1}"
        names[seat] = name
    return names


def _cards(cards: Sequence[int]) -> str:
    return f"[{format_cards(cards)}]"


def _all_in(event: dict[str, Any]) -> str:
    return " and is all-in" if event.get("all_in") else ""


@dataclass
class _Seen:
    """What the summary needs, gathered while writing the hand's lines."""

    folded_on: dict[int, str] = field(default_factory=dict)  # seat -> "before Flop", "on the Turn" ...
    put_in: set[int] = field(default_factory=set)  # seats that posted a blind or bet/called
    blinds: dict[int, str] = field(default_factory=dict)  # seat -> "small" / "big"
    hole: dict[int, list[int]] = field(default_factory=dict)  # cards the viewer saw dealt
    shown: dict[int, tuple[list[int], str]] = field(default_factory=dict)  # seat -> cards, words
    mucked: set[int] = field(default_factory=set)
    won: dict[int, int] = field(default_factory=dict)
    pots: list[int] = field(default_factory=list)  # amount of each pot awarded, by index
    board: list[int] = field(default_factory=list)


def export_hand(hand: Mapping[str, Any], table: str | None = None, max_seats: int | None = None) -> list[str]:
    """The lines of one finished Hold'em ``hand`` (plain data, see the module doc) in the
    PokerStars layout.

    ``table`` is the table's name (default: the room id); ``max_seats`` the table size for
    ``N-max`` (default: the engine's seat list). Raises ``ValueError`` for an unfinished
    hand or one that is not Hold'em.
    """
    number, room, seats = hand["hand"], str(hand.get("room") or ""), hand["seats"]
    if not hand.get("finished"):
        raise ValueError(f"hand {number} is not finished")
    events = list(hand["events"])
    start = next((e for e in events if e.get("type") == "hand_start"), None)
    if start is None:
        raise ValueError(f"hand {number} is not a Hold'em hand")
    names = player_names(hand)

    def name(seat: int) -> str:
        return names.get(seat, f"Seat{seat + 1}")

    pot_count = sum(1 for e in events if e.get("type") == "award")
    size = max_seats or len(start.get("seats") or ()) or len(seats)
    table_name = (table or room).replace("'", "’")
    lines = [
        f"PokerStars Hand #{hand_number(room, number)}: Hold'em No Limit "
        f"({start['small_blind']}/{start['big_blind']}) - {stars_time(hand.get('time_ms'))}",
        f"Table '{table_name}' {size}-max Seat #{(hand.get('button') or 0) + 1} is the button",
    ]
    lines += [f"Seat {s['seat'] + 1}: {name(s['seat'])} ({s['stack']} in chips)" for s in seats]
    seen = _Seen()
    street, current_bet = "preflop", int(start["big_blind"])
    hole_cards_written = showdown_written = False
    shows_later = {e.get("seat") for e in events if e.get("type") == "show"}
    for event in events:
        kind = event.get("type")
        seat = event.get("seat")
        if kind in ("deal", "action", "board", "return", "showdown", "award") and not hole_cards_written:
            lines.append("*** HOLE CARDS ***")
            hole_cards_written = True
        if kind == "ante":
            lines.append(f"{name(seat)}: posts the ante {event['amount']}{_all_in(event)}")
        elif kind == "blind":
            seen.blinds[seat] = event["kind"]
            seen.put_in.add(seat)
            lines.append(f"{name(seat)}: posts {event['kind']} blind {event['amount']}{_all_in(event)}")
        elif kind == "deal" and event.get("cards"):
            seen.hole[seat] = list(event["cards"])
            lines.append(f"Dealt to {name(seat)} {_cards(event['cards'])}")
        elif kind == "timed_out":
            lines.append(f"{name(seat)} has timed out")
        elif kind == "action":
            lines.append(_action_line(name(seat), event, current_bet))
            if event["action"] == "fold":
                seen.folded_on[seat] = "before Flop" if street == "preflop" else f"on the {STREETS[street]}"
            elif event["action"] != "check":
                seen.put_in.add(seat)
            if event["action"] in ("bet", "raise"):
                current_bet = int(event["to"])
        elif kind == "return":
            lines.append(f"Uncalled bet ({event['amount']}) returned to {name(seat)}")
        elif kind == "board":
            street, current_bet = event["street"], 0
            seen.board = list(event["board"])
            before = event["board"][:-len(event["cards"])]
            shown = f"{_cards(before)} " if before else ""
            lines.append(f"*** {street.upper()} *** {shown}{_cards(event['cards'])}")
        elif kind == "showdown":
            lines.append("*** SHOW DOWN ***")
            showdown_written = True
            for shown_hand in event["hands"]:
                words = describe_value(shown_hand["value"])
                seen.shown[shown_hand["seat"]] = (list(shown_hand["cards"]), words)
                lines.append(f"{name(shown_hand['seat'])}: shows {_cards(shown_hand['cards'])} ({words})")
            for mucked in event.get("mucked", ()):
                seen.mucked.add(mucked)
                lines.append(f"{name(mucked)}: mucks hand")
        elif kind == "award":
            index = int(event["pot"])
            seen.pots += [0] * (index + 1 - len(seen.pots))
            seen.pots[index] += int(event["amount"])
            for share in event["shares"]:
                seen.won[share["seat"]] = seen.won.get(share["seat"], 0) + int(share["amount"])
                lines.append(f"{name(share['seat'])} collected {share['amount']} from {_pot_name(index, pot_count)}")
        elif kind == "hand_over" and not showdown_written:
            lines += [f"{name(s)}: doesn't show hand" for s in sorted(seen.won) if s not in shows_later]
        elif kind == "show":  # shown by choice after the hand
            words = describe_value(event["value"]) if "value" in event else None
            if words is not None and seat not in seen.folded_on:  # the summary says "showed ... with"
                seen.shown[seat] = (list(event["cards"]), words)
                seen.mucked.discard(seat)
            lines.append(f"{name(seat)}: shows {_cards(event['cards'])}" + (f" ({words})" if words else ""))
    lines += _summary(hand, seen, name)
    return lines


def _action_line(player: str, event: dict[str, Any], current_bet: int) -> str:
    action = event["action"]
    if action == "fold":
        return f"{player}: folds"
    if action == "check":
        return f"{player}: checks"
    if action == "call":
        return f"{player}: calls {event['amount']}{_all_in(event)}"
    if action == "bet":
        return f"{player}: bets {event['to']}{_all_in(event)}"
    return f"{player}: raises {event['to'] - current_bet} to {event['to']}{_all_in(event)}"


def _pot_name(index: int, count: int) -> str:
    if count <= 1:
        return "pot"
    if index == 0:
        return "main pot"
    return "side pot" if count == 2 else f"side pot-{index}"


def _summary(hand: Mapping[str, Any], seen: _Seen, name: Any) -> list[str]:
    total = sum(seen.pots)
    split = ""
    if len(seen.pots) > 1:
        sides = seen.pots[1:]
        split = f" Main pot {seen.pots[0]}." + "".join(
            f" Side pot {amount}." if len(sides) == 1 else f" Side pot-{i} {amount}."
            for i, amount in enumerate(sides, 1))
    lines = ["*** SUMMARY ***", f"Total pot {total}{split} | Rake 0"]
    if seen.board:
        lines.append(f"Board {_cards(seen.board)}")
    for s in hand["seats"]:
        seat = s["seat"]
        where = "".join(f" ({label})" for label, yes in (
            ("button", seat == hand.get("button")), ("small blind", seen.blinds.get(seat) == "small"),
            ("big blind", seen.blinds.get(seat) == "big")) if yes)
        won = seen.won.get(seat, 0)
        if seat in seen.folded_on:
            outcome = f"folded {seen.folded_on[seat]}"
            if seen.folded_on[seat] == "before Flop" and seat not in seen.put_in:
                outcome += " (didn't bet)"
        elif seat in seen.shown:
            cards, words = seen.shown[seat]
            outcome = (f"showed {_cards(cards)} and won ({won}) with {words}" if won
                       else f"showed {_cards(cards)} and lost with {words}")
        elif won or seat not in seen.mucked:  # won without showing (everyone else folded)
            outcome = f"collected ({won})"
        else:
            outcome = f"mucked {_cards(seen.hole[seat])}" if seat in seen.hole else "mucked"
        lines.append(f"Seat {seat + 1}: {name(seat)}{where} {outcome}")
    return lines


__all__ = ["describe_value", "export_hand", "hand_number", "player_names", "stars_time"]
