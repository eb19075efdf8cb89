"""Hand histories from a room's durable event stream, as plain data and in words.

The stream ``{room}:events`` (see :mod:`server.store.keys`) holds one entry per accepted
change: the room version and the events of that change, in order. :func:`split_hands`
replays it, keeping track of who sits where with what stack, and cuts it into hands:
a hand runs from its ``hand_started`` event to the end of the change holding its
``hand_ended`` (so the re-buys and busted players' departures settled with it belong
to it). Events between hands (players sitting down or leaving) belong to no hand.

Room-level events (:data:`server.edge.protocol.ROOM_EVENTS`) are put into words here, in
:func:`format_room_event`; every other event by its game's ``format_event``.
Nothing in this module does I/O.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from engine import fairness
from engine.game import Event, Game, SeatName, describe_event, event_for

from ..edge.protocol import ROOM_EVENTS

VIEW_ALL = "all"  # the operator's view: every event unfiltered
# The keys of a hand's fairness proof (docs/fairness.md): published by ``hand_started``,
# completed by ``hand_ended`` (the seed, revealed, and the next hand's commitment).
FAIRNESS_KEYS = ("scheme", "commitment", "seeds", "deal_order", "deck_size", "server_seed", "next_commitment")


@dataclass(frozen=True)
class Entry:
    """One stream entry: its id (``<ms>-<seq>``), the room version it made, its events."""

    stream_id: str
    version: int
    events: list[Event]

    @property
    def time_ms(self) -> int | None:
        """The entry's time (milliseconds since the epoch), when its id carries one."""
        head = self.stream_id.split("-", 1)[0]
        return int(head) if head.isdigit() else None


@dataclass(frozen=True)
class Seat:
    """Who sat in a seat as a hand started."""

    seat: int
    player: str
    name: str
    stack: int
    bot: bool = False


@dataclass
class HandEvent:
    """One event of a hand, with the seat names in force when it happened."""

    entry: Entry
    event: Event
    names: dict[int, str]


@dataclass
class Hand:
    """One hand of a room: its number, when and how it started, its events in order."""

    number: int
    button: int | None
    started_ms: int | None
    seats: list[Seat]  # the seats dealt in, with their stacks before the hand
    events: list[HandEvent] = field(default_factory=list)
    finished: bool = False


def split_hands(entries: Iterable[Entry], snapshot_seats: list[dict[str, Any] | None] | None = None) -> list[Hand]:
    """Cut a room's stream into hands (in order), replaying seats and stacks.

    ``snapshot_seats`` (the room snapshot's seat list) supplies the names of seats whose
    ``joined`` event is no longer in the (trimmed) stream.
    """
    seats: dict[int, Seat] = {}
    for i, s in enumerate(snapshot_seats or ()):
        if s is not None:
            seats[i] = Seat(i, s.get("player", "?"), s.get("name") or s.get("player", "?"), s.get("stack", 0),
                            bool(s.get("bot")))
    names = {i: s.name for i, s in seats.items()}
    hands: list[Hand] = []
    current: Hand | None = None
    for entry in entries:
        ends_here = False
        for event in entry.events:
            kind = event.get("type")
            if kind == "hand_started":
                if current is not None:  # a hand whose end was trimmed or never written
                    hands.append(current)
                dealt = _dealt(seats, event)
                current = Hand(event.get("hand_no", len(hands) + 1), event.get("button"), entry.time_ms, dealt)
            elif kind == "joined":
                seat = Seat(event["seat"], event["player"], event.get("name") or event["player"],
                            event.get("stack", 0), bool(event.get("bot")))
                seats[seat.seat] = seat
                names = {**names, seat.seat: seat.name}  # a new dict: earlier events keep theirs
            elif kind in ("rebuy", "stack_reset") and event.get("seat") in seats:
                seats[event["seat"]] = _with_stack(seats[event["seat"]], event["stack"])
            elif kind == "hand_ended":
                for i, stack in enumerate(event.get("stacks", ())):
                    if stack is not None and i in seats:
                        seats[i] = _with_stack(seats[i], stack)
                ends_here = True
            if current is not None:
                current.events.append(HandEvent(entry, event, names))
            elif kind in ("show", "chat") and hands:  # shown by choice, or said, after the hand
                hands[-1].events.append(HandEvent(entry, event, names))
            if kind == "left":
                seats.pop(event.get("seat"), None)
        if ends_here and current is not None:
            current.finished = True
            hands.append(current)
            current = None
    if current is not None:
        hands.append(current)
    return hands


def _dealt(seats: dict[int, Seat], started: Event) -> list[Seat]:
    """Who was dealt into a hand: ``hand_started`` names the players (events written
    before it did: the seats as replayed, which a trimmed stream may get wrong)."""
    players = started.get("players")
    dealt = []
    for i, s in enumerate(started.get("seats", ())):
        known = seats.get(s)
        player = players[i] if isinstance(players, list) and i < len(players) else None
        if known is None or (player is not None and known.player != player):
            known = Seat(s, player or "?", player or f"seat {s}", 0)
        dealt.append(known)
    return dealt


def _with_stack(seat: Seat, stack: int) -> Seat:
    return Seat(seat.seat, seat.player, seat.name, stack, seat.bot)


def select_hands(hands: list[Hand], number: int | None = None, last: int | None = None) -> list[Hand]:
    """Hand ``number`` (empty if absent), else the last ``last`` hands, else all."""
    if number is not None:
        return [h for h in hands if h.number == number]
    if last is not None:
        return hands[-last:] if last > 0 else []
    return hands


def visible_events(hand: Hand, viewer: int | str | None) -> list[HandEvent]:
    """The hand's events as ``viewer`` saw them: :data:`VIEW_ALL` (unfiltered), a seat, or
    ``None`` for a spectator (:func:`engine.game.event_for`)."""
    if viewer == VIEW_ALL:
        return list(hand.events)
    return [HandEvent(h.entry, event_for(h.event, viewer), h.names) for h in hand.events]  # type: ignore[arg-type]


def seat_namer(names: dict[int, str]) -> SeatName:
    return lambda seat: names.get(seat, f"seat {seat}")


def format_room_event(event: Event, name: SeatName) -> str | None:
    """One history line for a room-level event (:data:`server.edge.protocol.ROOM_EVENTS`)."""
    kind = event.get("type")
    seat = event.get("seat")
    who = name(seat) if isinstance(seat, int) else "?"
    if kind == "joined":
        bot = " (bot)" if event.get("bot") else ""
        return f"{event.get('name') or who}{bot} sits down in seat {seat} with {event['stack']}"
    if kind == "left":
        why = {"busted": " (busted)", "removed": " (removed)", "closed": " (room closed)"}.get(event.get("reason"), "")
        return f"{who} leaves seat {seat}{why}, taking {event['stack']}"
    if kind == "sat_out":
        why = " after timing out" if event.get("reason") == "timeouts" else ""
        return f"{who} sits out{why}"
    if kind == "sat_in":
        return f"{who} sits back in"
    if kind == "auto_play":
        if not event.get("on"):
            return f"{who} takes the seat back from auto-play"
        why = {"timeouts": " after timing out twice", "disconnected": " while disconnected"}.get(event.get("reason"), "")
        return f"{who} is auto-played{why}"
    if kind == "time_bank":
        return f"{who}'s clock runs out: {event['bank_ms'] / 1000:g} s of time bank start"
    if kind == "leaving":
        return f"{who} will leave after this hand"
    if kind == "hand_started":
        return f"Hand {event.get('hand_no')} starts; button {name(event['button'])}"
    if kind == "timed_out":
        action = event.get("action") or {}
        extra = ", ".join(f"{k} {v}" for k, v in action.items() if k != "type")
        return f"{who}'s clock runs out: the server plays {action.get('type', '?')}" + (f" ({extra})" if extra else "")
    if kind == "hand_ended":
        stacks = ", ".join(f"{name(i)} {s}" for i, s in enumerate(event.get("stacks", ())) if s is not None)
        return f"Hand {event.get('hand_no')} ends; stacks: {stacks}"
    if kind == "rebuy":
        return f"{who} re-buys {event['amount']} (stack {event['stack']})"
    if kind == "stack_reset":
        return f"{who}'s stack is reset to {event['stack']} for the next deal ({event['amount']:+d})"
    if kind == "eliminated":
        return f"{who} is out of chips: eliminated in place {event['place']}"
    if kind == "placed":
        return f"{who} finishes in place {event['place']}"
    if kind == "room_closed":
        if event.get("reason") == "match_over":
            return "The match is over: the room is closed"
        if event.get("reason") == "operator":
            return "The room is closed by the operator"
        return "The room is closed: nobody sat in it for a while"
    if kind == "closing":
        return "The operator closes the room once this hand is over"
    if kind == "locked":
        return "The room is locked: nobody new sits down" if event.get("locked") else "The room is open again"
    if kind == "chat":
        return f"{event.get('name') or who} says: {event.get('text', '')}"
    return None


def format_event(game: Game | None, event: Event, name: SeatName) -> str | None:
    """A room-level event in the server's words, any other in its game's (``game`` None:
    a game this build does not host, whose events get the generic line)."""
    if event.get("type") in ROOM_EVENTS:
        return format_room_event(event, name)
    if game is None:
        return describe_event(event, name)
    return game.format_event(event, name)


def format_time(ms: int | None) -> str | None:
    if ms is None:
        return None
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def hand_lines(hand: Hand, game: Game | None, viewer: int | str | None = VIEW_ALL, room: str | None = None,
               title: str | None = None) -> list[str]:
    """A readable history of ``hand``: a header, then one line per event in order, then
    each seat's result.

    ``viewer``: :data:`VIEW_ALL` (the operator's view), a seat, or ``None`` (a spectator).
    ``title`` names the game in the header (default ``game.title``).
    """
    when = format_time(hand.started_ms)
    title = title or (game.title if game is not None else "?")
    header = f"=== Hand {hand.number}" + (f" of room {room}" if room else "") + f" ({title})"
    lines = [header + (f", {when}" if when else "") + " ==="]
    button = next((s.name for s in hand.seats if s.seat == hand.button), f"seat {hand.button}")
    lines.append("Seats: " + ", ".join(f"{s.seat}: {s.name} ({s.stack})" for s in hand.seats)
                 + f"; button {button}")
    if viewer != VIEW_ALL:
        seen_by = "a spectator" if viewer is None else f"seat {viewer}"
        names = hand.events[0].names if hand.events else {}
        if isinstance(viewer, int) and viewer in names:
            seen_by += f" ({names[viewer]})"
        lines.append(f"(as seen by {seen_by})")
    proof = hand_fairness(hand)
    if proof is not None and proof.get("commitment"):
        lines.append(commitment_line(proof, seat_namer(hand.events[0].names)))
    for item in visible_events(hand, viewer):
        if item.event.get("type") == "hand_started":
            continue  # the header says it
        line = format_event(game, item.event, seat_namer(item.names))
        if line:
            lines.append(line)
        revealed = item.event.get("fairness") if item.event.get("type") == "hand_ended" else None
        if revealed and revealed.get("server_seed"):
            lines.append(seed_line(revealed, proof, room, hand.number))
    results = net_results(hand)
    if results:
        name = seat_namer(hand.events[-1].names)
        lines.append("Result: " + ", ".join(f"{name(s)} {chips:+d}" for s, chips in results.items()))
    if not hand.finished:
        lines.append("(hand not finished)")
    return lines


def hand_fairness(hand: Hand) -> dict[str, Any] | None:
    """The hand's fairness proof: the ``fairness`` of its ``hand_started`` completed by its
    ``hand_ended``'s, every key of :data:`FAIRNESS_KEYS` present (``None`` when not known,
    e.g. ``server_seed`` of an unfinished hand); ``None`` for a hand dealt without one
    (hands stored before provably fair deals, decks passed in by tests)."""
    merged: dict[str, Any] = {}
    for item in hand.events:
        if item.event.get("type") in ("hand_started", "hand_ended") and isinstance(item.event.get("fairness"), dict):
            merged.update(item.event["fairness"])
    if not merged:
        return None
    return {**{key: merged.get(key) for key in FAIRNESS_KEYS}, **merged}


def commitment_line(proof: dict[str, Any], name: SeatName) -> str:
    """``Deck commitment <sha256> (cardroom-v1); seeds: Alice "x", Bob none``."""
    seeds = proof.get("seeds") or []
    said = ", ".join(f"{name(s['seat'])} \"{s['seed']}\"" if s.get("seed") else f"{name(s['seat'])} none"
                     for s in seeds if isinstance(s, dict) and isinstance(s.get("seat"), int))
    return f"Deck commitment {proof['commitment']} ({proof.get('scheme') or '?'})" + (f"; seeds: {said}" if said else "")


def seed_line(revealed: dict[str, Any], proof: dict[str, Any] | None, room: str | None, number: int) -> str:
    """``Server seed <hex> (matches the commitment), verify with: cardroom verify ...``."""
    seed = str(revealed["server_seed"])
    committed = (proof or {}).get("commitment")
    try:
        check = " (matches the commitment)" if fairness.commitment(seed) == committed else \
            " (does NOT match the commitment)"
    except ValueError:
        check = " (not a valid seed)"
    if committed is None:
        check = ""
    where = f"--room {room} " if room else ""
    return f"Server seed {seed}{check}, verify with: cardroom verify {where}--hand {number}"


def hand_object(hand: Hand, game: str | None, viewer: int | str | None = VIEW_ALL,
                room: str | None = None) -> dict[str, Any]:
    """One hand as one JSON object (``cardroom history --format jsonl``): ``room``, ``game``,
    ``hand`` (its number), ``time_ms`` and ``time`` (ISO 8601, UTC) of its first entry,
    ``viewer`` (``"all"``, a seat, or ``None`` for a spectator), ``button``, ``seats``
    (dealt in, with their stacks before the hand), ``events`` (as the viewer saw them),
    ``result`` (per seat: the stack after the hand and the chips won or lost; empty for an
    unfinished hand), ``finished`` and ``fairness`` (:func:`hand_fairness`, or ``None``)."""
    final: list[int | None] = []
    for item in hand.events:
        if item.event.get("type") == "hand_ended":
            final = list(item.event.get("stacks", []))
    net = net_results(hand)
    when = None if hand.started_ms is None else \
        datetime.fromtimestamp(hand.started_ms / 1000, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return {
        "room": room,
        "game": game,
        "hand": hand.number,
        "time_ms": hand.started_ms,
        "time": when,
        "viewer": viewer,
        "button": hand.button,
        "seats": [{"seat": s.seat, "player": s.player, "name": s.name, "stack": s.stack, "bot": s.bot}
                  for s in hand.seats],
        "events": [item.event for item in visible_events(hand, viewer)],
        "result": [{"seat": seat, "stack": final[seat], "net": chips} for seat, chips in net.items()],
        "finished": hand.finished,
        "fairness": hand_fairness(hand),
    }


def history_reply(hands: list[Hand], player: str | None, game: str, room: str, last: int,
                  playing: int | None = None, league_over: bool = False) -> dict[str, Any]:
    """The ``history`` reply: ``hands``, the last ``last`` finished hands ``player`` was dealt
    into, each as that seat saw it (a finished league match: every finished hand, as a
    spectator saw it, for whoever played none of them), and ``current``: hand number
    ``playing`` (the hand under way, None if none) so far, as ``player`` sees it (its seat,
    or a spectator's view if it was not dealt in) with ``versions``, the room version of
    each of its events; None when there is no hand under way or its start is no longer in
    ``hands``."""
    mine = [h for h in hands if h.finished and any(s.player == player for s in h.seats)]
    if league_over and not mine:
        mine = [h for h in hands if h.finished]
    objects = [hand_object(hand, game, _seat_of(hand, player), room) for hand in mine[-last:]]
    current = None
    under_way = hands[-1] if hands and not hands[-1].finished and hands[-1].number == playing else None
    if under_way is not None and under_way.events and under_way.events[0].event.get("type") == "hand_started":
        current = hand_object(under_way, game, _seat_of(under_way, player), room)
        current["versions"] = [item.entry.version for item in under_way.events]
    return {"t": "history", "room": room, "hands": objects, "current": current}


def _seat_of(hand: Hand, player: str | None) -> int | None:
    return next((s.seat for s in hand.seats if s.player == player), None)


def hand_records(hand: Hand, viewer: int | str | None = VIEW_ALL, room: str | None = None) -> list[dict[str, Any]]:
    """The hand's events as plain records, one per event, for JSON lines:
    ``{"room", "hand", "v" (room version), "id" (stream id), "time_ms", "event"}``."""
    return [
        {"room": room, "hand": hand.number, "v": item.entry.version, "id": item.entry.stream_id,
         "time_ms": item.entry.time_ms, "event": item.event}
        for item in visible_events(hand, viewer)
    ]


def net_results(hand: Hand) -> dict[int, int]:
    """Chips won (+) or lost (-) by each seat dealt in, from its ``hand_ended`` event."""
    for item in hand.events:
        if item.event.get("type") == "hand_ended":
            final = item.event.get("stacks", [])
            return {s.seat: final[s.seat] - s.stack for s in hand.seats
                    if s.seat < len(final) and final[s.seat] is not None}
    return {}
