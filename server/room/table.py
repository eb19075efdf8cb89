"""Room-level rules around a game engine, as pure functions on plain data.

A :class:`Table` is everything a room remembers: its options, who sits where with
what stack, the button, the current (or last) hand's engine state, the turn deadline,
and the answers to recently accepted action ids. The functions here change a table
in place and return the events that describe the change; they do no I/O and read no
clock (``now_ms`` is passed in), so the room core calls them on a copy and the actor only
keeps the copy once Redis has stored it.

Chip accounting: ``SeatInfo.stack`` is the stack a seat had when the current hand
started (or its stack now, between hands). During a hand the engine owns the chips of
the seats it dealt in; when the hand ends the table takes the engine's final stacks.
So wallets + the sum of ``SeatInfo.stack`` over every table + the chips in transit
between the two (see :mod:`server.room.core`) never changes except by grants.

Bot seats (room option ``bots``) are ordinary seats with ``SeatInfo.bot`` set: their
stacks come from grants recorded like a new player's (:func:`granted_chips` reads them
off the events), they re-buy instead of standing up when they bust, and a hand only
starts when at least one ready seat is a human. The room actor plays a bot's turn once
``Table.bot_act_ms`` (persisted, like the turn deadline) has passed.

Auto-play (托管): a person's seat with ``SeatInfo.auto`` set is played by the server at
once whenever it is its turn (the room core picks the action: check or fold in the betting
games, the built-in bot elsewhere). The player asks for it and takes it back; the server
switches it on after :data:`AUTO_PLAY_AFTER_TIMEOUTS` timeouts in a row or when the
player's last connection closes. An auto-played seat counts, like a sitting-out one,
towards ``--sit-out-minutes`` (:func:`overdue_sitters`).

Time bank (room option ``time_bank_seconds``, in the games that offer one): each seat
gets that many seconds when it sits down (``SeatInfo.bank_ms``); a turn clock that runs
out goes on from the bank (:func:`use_time_bank`, ``Table.bank_since_ms``), and what was
used is deducted when the seat acts or times out.

Seats and hands are this module's; a hand's fair deck and its proof are
:mod:`server.room.fair`'s, and a league match's room (its state and what follows each of
its hands) :mod:`server.room.league_match`'s.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any, NamedTuple

from engine import fairness
from engine.errors import IllegalAction
from engine.game import Event, Game

from ..edge.protocol import ProtocolError
from .fair import next_commitment, public_proof
from .league_match import LeagueState, league_hand_ended, sng_blinds

ANSWERS_KEPT = 32  # per player: a client only ever resends its latest actions
AUTO_PLAY_AFTER_TIMEOUTS = 2  # turn clocks run out in a row before the seat is auto-played
AUTO_REASONS = ("asked", "timeouts", "disconnected")  # why a seat is auto-played (SeatInfo.auto)
BOT_NAMES = ("Ada", "Alan", "Grace", "Edsger", "Barbara", "Donald", "Frances", "Claude", "Radia")
DEFAULT_BOT_DELAY_SECONDS = 1.0


JOIN_CODE_LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I: read aloud or typed


def new_join_code() -> str:
    """Eight characters from 32 (40 random bits): a private room's join code."""
    return "".join(secrets.choice(JOIN_CODE_LETTERS) for _ in range(8))


@dataclass
class SeatInfo:
    """One occupied seat."""

    player: str
    name: str
    stack: int
    sitting_out: bool = False
    out_since_ms: int | None = None  # since when it sits out (None: it plays, or sat out before this was kept)
    leaving: bool = False
    timeouts: int = 0  # consecutive turn timeouts
    bot: bool = False  # a server-side bot plays this seat
    strategy: str | None = None  # the bot's engine.bots strategy (None: the room's bot_strategy)
    seed: str | None = None  # the player's client seed for provably fair deals (engine/fairness.py)
    # auto-play (托管): why the server plays this person's turns at once (one of
    # AUTO_REASONS), None while the player plays; and since when (for --sit-out-minutes)
    auto: str | None = None
    auto_since_ms: int | None = None
    bank_ms: int = 0  # what is left of the seat's time bank (room option time_bank_seconds)


class Transfer(NamedTuple):
    """Chips owed to a wallet: a cash-out recorded by the change that freed the seat
    (``reason``: ``"left"`` or ``"busted"``), kept in ``Table.xout`` until the wallet side
    has it (see server/room/core.py). Stored as the list ``[xid, player, amount, seat,
    reason]``; an entry stored before seats and reasons were kept has the first three."""

    xid: str
    player: str
    amount: int
    seat: int = -1
    reason: str = "left"


@dataclass
class Table:
    """All of a room's state (persisted as one msgpack snapshot)."""

    room: str
    game: str
    options: dict[str, Any]
    config: dict[str, Any]
    seats: list[SeatInfo | None]
    version: int = 0
    button: int | None = None
    hand_no: int = 0
    hand: Any = None  # the engine state of the current or last hand
    deadline_ms: int | None = None  # turn clock of hand.to_act
    bank_since_ms: int | None = None  # since when hand.to_act's clock runs on its time bank (None: it does not)
    next_hand_ms: int | None = None  # earliest start of the next hand
    bot_act_ms: int | None = None  # when the bot to act plays (None: a human is to act)
    answers: dict[str, list[list[Any]]] = field(default_factory=dict)  # player -> [[action id, version]]
    code: str | None = None  # a private room's join code
    empty_since_ms: int | None = None  # since when no person has sat here (None: someone does)
    closed: bool = False  # closed for being empty too long: kept for its history, joined by nobody
    # provably fair deals (engine/fairness.py): the secret seed of the next hand (its
    # commitment is public), and the current or last hand's record, its seed included
    next_seed: str | None = None
    fair: dict[str, Any] | None = None
    # a league match's room (see LeagueState), None for any other room
    league: LeagueState | None = None
    creator: str | None = None  # the player who made the room: may remove seats and lock it
    locked: bool = False  # locked by its creator: nobody new sits down (watching is open)
    closing: bool = False  # an operator closes it once the hand being played is over
    # the chat's last CHAT_KEPT lines (its chat events; replaced, never changed in place)
    chat: list[dict[str, Any]] = field(default_factory=list)
    # chips moving between wallets and this table (see server/room/core.py):
    xin: list[str] = field(default_factory=list)  # buy-ins stored here, journal not yet closed
    xout: list[Transfer] = field(default_factory=list)  # cash-outs owed to wallets


def clone(table: Table) -> Table:
    """A copy that the functions below may change without touching ``table``.

    The engine state is shared, not copied: engines never mutate a state (``apply``
    returns a new one) and these functions only ever replace ``table.hand``. So are the
    lists in ``answers`` and ``chat`` (replaced, never changed) and the entries of
    ``xout`` (only ever appended or dropped).
    """
    out = _copy_table(table)
    out.seats = [None if s is None else _copy_seat(s) for s in table.seats]
    out.answers, out.xin, out.xout = dict(table.answers), list(table.xin), list(table.xout)
    return out


def _copier(cls: type) -> Callable[[Any], Any]:
    """``copy(obj)``: a new ``cls`` with ``obj``'s fields (shallow).

    What ``dataclasses.replace`` does at a fraction of its cost (every change clones the
    table, and every process following the room clones its copy): no ``__init__``
    (nothing to default or check: every field comes from ``obj``), each field set in the
    order ``__init__`` sets it, so instances keep one attribute layout and their values
    inline. (Taking ``obj.__dict__`` over in one ``dict.update`` is faster in a loop, but
    gives every copy a dictionary of its own: at a human pace the server's CPU per action
    rose, docs/performance.md.)"""
    names = tuple(f.name for f in fields(cls))
    new = object.__new__

    def copy(obj: Any) -> Any:
        out = new(cls)
        for name in names:
            setattr(out, name, getattr(obj, name))
        return out

    return copy


_copy_seat = _copier(SeatInfo)
_copy_table = _copier(Table)


# --- queries -------------------------------------------------------------------------


def playing(table: Table) -> bool:
    """Is a hand being played?"""
    return table.hand is not None and not table.hand.is_over


def has_people(table: Table) -> bool:
    """Does a person (not a bot) sit at the table?"""
    return any(s is not None and not s.bot for s in table.seats)


def may_enter(table: Table, player: str | None, code: str | None) -> bool:
    """May ``player`` join or watch? A private room asks for its code, except from the
    players already seated (they resume without it)."""
    if table.code is None or (player is not None and seat_of(table, player) is not None):
        return True
    return code is not None and hmac.compare_digest(code.upper().encode(), table.code.encode())


def seat_of(table: Table, player: str) -> int | None:
    for i, s in enumerate(table.seats):
        if s is not None and s.player == player:
            return i
    return None


def in_hand(table: Table, seat: int) -> bool:
    """Was ``seat`` dealt into the hand being played?"""
    return playing(table) and table.hand.stacks[seat] is not None


def live_stack(table: Table, seat: int) -> int:
    """The chips a seat has behind right now (the engine's figure during its hand)."""
    info = table.seats[seat]
    assert info is not None
    if table.hand is not None and playing(table) and table.hand.stacks[seat] is not None:
        return table.hand.stacks[seat]
    return info.stack


def ready_seats(table: Table) -> list[int]:
    """Seats that would be dealt into a new hand."""
    return [
        i for i, s in enumerate(table.seats)
        if s is not None and not s.sitting_out and not s.leaving and s.stack > 0
        and (s.seed is not None or s.bot or not table.options.get("require_seeds"))
    ]


def can_start(table: Table, game: Game) -> bool:
    """Enough ready seats for the game (for the first hand, ``first_hand_players`` if the
    room asks for more), and at least one of them a human playing for themselves (bots and
    auto-played seats never play alone, except in a league match, where built-in entrants
    are the room's bots)."""
    ready = ready_seats(table)
    needed = max(game.min_players, table.options.get("first_hand_players", 0) if table.hand_no == 0 else 0)
    league = table.league
    return (
        not playing(table)
        and not table.closed
        and (league is None or table.hand_no < league.hands)
        and len(ready) >= needed
        and (league is not None or any(not table.seats[i].bot and table.seats[i].auto is None  # type: ignore[union-attr]
                                       for i in ready))
    )


def bot_to_act(table: Table) -> int | None:
    """The seat to act if a server-side bot plays it, else None."""
    if not playing(table) or table.hand.to_act is None:
        return None
    info = table.seats[table.hand.to_act]
    return table.hand.to_act if info is not None and info.bot else None


def auto_to_act(table: Table) -> int | None:
    """The seat to act if it is auto-played (a person's seat whose ``auto`` is set), else None."""
    if not playing(table) or table.hand.to_act is None:
        return None
    info = table.seats[table.hand.to_act]
    return table.hand.to_act if info is not None and not info.bot and info.auto is not None else None


def may_use_bank(table: Table) -> bool:
    """Would the seat to act, its turn clock run out, go on with its time bank? Yes when
    it has bank left, is a person playing for themselves (not auto-played) and is not on
    its bank already."""
    if not playing(table) or table.hand.to_act is None or table.bank_since_ms is not None:
        return False
    info = table.seats[table.hand.to_act]
    return info is not None and not info.bot and info.auto is None and info.bank_ms > 0


def absent_step(table: Table) -> str | None:
    """``"leaver"`` when the seat to act is leaving, ``"sitting_out"`` when it sits out
    (asked to, or after timeouts), else None: either way nobody is there to play the
    turn, so the room plays it at once with the game's timeout action
    (:func:`play_for`) instead of letting everyone wait for its clock."""
    if not playing(table) or table.hand.to_act is None:
        return None
    info = table.seats[table.hand.to_act]
    if info is None:
        return None
    if info.leaving:
        return "leaver"
    if info.sitting_out:
        return "sitting_out"
    return None


def due(table: Table, game: Game, now_ms: int) -> str | None:
    """What the room must do by itself now: ``"timeout"``, ``"time_bank"``, ``"leaver"``,
    ``"sitting_out"``, ``"auto"``, ``"bot"``, ``"start"`` or None.

    A leaving or sitting-out seat's turn is due at once (:func:`absent_step`). When the
    turn clock runs out, a seat with time left in its bank goes on with it
    (``"time_bank"``, :func:`use_time_bank`), any other times out. An auto-played seat's
    turn is due at once (``"auto"``), a bot's when ``bot_act_ms`` has passed; should
    either fail to act, its turn clock still runs out like anyone's (``"timeout"`` wins
    once it has).
    """
    if playing(table):
        to_act = table.hand.to_act
        if to_act is not None:
            absent = absent_step(table)
            if absent is not None:
                return absent
            if table.deadline_ms is not None and table.deadline_ms <= now_ms:
                return "time_bank" if may_use_bank(table) else "timeout"
            if auto_to_act(table) is not None:
                return "auto"
            if bot_to_act(table) is not None and (table.bot_act_ms or 0) <= now_ms:
                return "bot"
        return None
    if can_start(table, game) and (table.next_hand_ms is None or table.next_hand_ms <= now_ms):
        return "start"
    return None


def next_wakeup_ms(table: Table, game: Game) -> int | None:
    """When the room should next look at :func:`due` if no command arrives."""
    if playing(table):
        if table.hand.to_act is None:
            return None
        if absent_step(table) is not None or auto_to_act(table) is not None:
            return 0  # a leaving, sitting-out or auto-played player's turn is played at once
        if bot_to_act(table) is not None:
            times = [x for x in (table.deadline_ms, table.bot_act_ms or 0) if x is not None]
            return min(times)
        return table.deadline_ms
    if can_start(table, game):
        return table.next_hand_ms or 0
    return None


def next_button(table: Table, ready: list[int]) -> int:
    """The dealer seat of the next hand: the next ready seat after the last button."""
    if table.button is None:
        return ready[0]
    after = [s for s in ready if s > table.button]
    return after[0] if after else ready[0]


def find_answer(table: Table, player: str, action_id: str) -> int | None:
    """The version an already accepted action id of ``player`` produced, or None."""
    for aid, version in table.answers.get(player, ()):
        if aid == action_id:
            return version
    return None


# --- changes -------------------------------------------------------------------------


def sit(table: Table, player: str, name: str, seat: int | None, buy_in: int,
        seed: str | None = None) -> tuple[int, list[Event]]:
    """Seat ``player`` with ``buy_in`` chips (the wallet transfer is the caller's)."""
    opts = table.options
    if seat_of(table, player) is not None:
        raise ProtocolError("already_seated", f"you already sit in seat {seat_of(table, player)}")
    if seat is None:
        free = [i for i, s in enumerate(table.seats) if s is None]
        if not free:
            raise ProtocolError("room_full", "every seat is taken")
        seat = free[0]
    elif not 0 <= seat < len(table.seats):
        raise ProtocolError("bad_seat", f"seat must be 0..{len(table.seats) - 1}", "seat")
    elif table.seats[seat] is not None:
        if all(s is not None for s in table.seats):
            raise ProtocolError("room_full", "every seat is taken")
        raise ProtocolError("seat_taken", f"seat {seat} is taken", "seat")
    if not opts["buy_in_min"] <= buy_in <= opts["buy_in_max"]:
        raise ProtocolError(
            "bad_buy_in", f"buy-in must be {opts['buy_in_min']}..{opts['buy_in_max']}, got {buy_in}", "buy_in",
        )
    bank_ms = round(opts.get("time_bank_seconds", 0) * 1000)
    table.seats[seat] = SeatInfo(player=player, name=name, stack=buy_in, seed=seed, bank_ms=bank_ms)
    return seat, [{"type": "joined", "seat": seat, "player": player, "name": name, "stack": buy_in}]


def bot_player_id(room: str, seat: int) -> str:
    """The player id of the bot that plays ``seat`` of ``room``."""
    return f"bot-{room}-{seat}"


def seat_bots(table: Table, count: int) -> list[Event]:
    """Seat ``count`` bots in the free seats from seat 1 up (seat 0 stays for a human).

    Each brings ``buy_in_default`` chips, granted (see :func:`granted_chips`), never
    taken from a wallet. Returns the ``joined`` events (marked ``bot: true``).
    """
    free = [i for i, s in enumerate(table.seats) if s is None]
    free = [i for i in free if i != 0] + [i for i in free if i == 0]
    taken = {s.name for s in table.seats if s is not None}
    names = [f"Bot {n}" for n in BOT_NAMES if f"Bot {n}" not in taken]  # a bot added later: another name
    events: list[Event] = []
    for n, seat in enumerate(free[:count]):
        name = names[n] if n < len(names) else f"Bot {seat}"
        player = bot_player_id(table.room, seat)
        stack = table.options["buy_in_default"]
        table.seats[seat] = SeatInfo(player=player, name=name, stack=stack, bot=True)
        events.append({"type": "joined", "seat": seat, "player": player, "name": name, "stack": stack, "bot": True})
    return events


def granted_chips(events: list[Event]) -> dict[str, int]:
    """Chips a change grants (new chips entering the game): bot buy-ins and bot re-buys;
    and takes back (negative): a bot's stack when its seat is removed (it has no wallet).

    The room records them as granted to itself (``{room}.granted``) in the same atomic
    write as the change, so ``grants = wallets + tables + pending`` keeps holding.
    """
    out: dict[str, int] = {}
    for e in events:
        if e.get("type") == "joined" and e.get("bot"):
            out[e["player"]] = out.get(e["player"], 0) + e["stack"]
        elif e.get("type") == "left" and e.get("bot"):
            out[e["player"]] = out.get(e["player"], 0) - e["stack"]
        elif e.get("type") in ("rebuy", "stack_reset"):  # a reset's amount may be negative
            out[e["player"]] = out.get(e["player"], 0) + e["amount"]
    return out


def leave(table: Table, seat: int) -> tuple[bool, int, list[Event]]:
    """Ask to free ``seat``: returns ``(pending, stack returned now, events)``.

    Outside a hand it is in, the seat is freed at once and its stack is returned.
    Inside one, the seat is marked leaving and freed when the hand ends.
    """
    info = table.seats[seat]
    assert info is not None
    if in_hand(table, seat):
        info.leaving = True
        return True, 0, [{"type": "leaving", "seat": seat}]
    table.seats[seat] = None
    return False, info.stack, [
        {"type": "left", "seat": seat, "player": info.player, "stack": info.stack, "reason": "left"}
    ]


def sit_out(table: Table, seat: int, now_ms: int, reason: str = "asked") -> list[Event]:
    info = table.seats[seat]
    assert info is not None
    if info.sitting_out:
        return []
    info.sitting_out = True
    info.out_since_ms = now_ms
    return [{"type": "sat_out", "seat": seat, "reason": reason}]


def sit_in(table: Table, seat: int) -> list[Event]:
    info = table.seats[seat]
    assert info is not None
    info.timeouts = 0
    if not info.sitting_out:
        return []
    info.sitting_out = False
    info.out_since_ms = None
    return [{"type": "sat_in", "seat": seat}]


def set_auto(table: Table, seat: int, on: bool, now_ms: int, reason: str = "asked") -> list[Event]:
    """Hand ``seat`` to the server's auto-play (``on``, for ``reason``, one of
    :data:`AUTO_REASONS`) or take it back. Returns an ``auto_play`` event, or nothing when
    the seat is already so. Taking it back also clears the count of timeouts in a row."""
    info = table.seats[seat]
    assert info is not None
    if on == (info.auto is not None):
        return []
    if on:
        info.auto, info.auto_since_ms = reason, now_ms
        return [{"type": "auto_play", "seat": seat, "on": True, "reason": reason}]
    info.auto, info.auto_since_ms, info.timeouts = None, None, 0
    return [{"type": "auto_play", "seat": seat, "on": False}]


def check_or_fold(game: Game, state: Any, seat: int) -> dict[str, Any]:
    """Auto-play's action in the betting games (:attr:`engine.game.Game.auto_play_checks`): check when
    the engine allows it, else fold."""
    try:
        game.apply(state, seat, {"type": "check"})
    except IllegalAction:
        return {"type": "fold"}
    return {"type": "check"}


def use_time_bank(table: Table) -> list[Event]:
    """The turn clock of the seat to act ran out and it has time in its bank
    (:func:`may_use_bank`): the clock goes on from the bank, to run out when the bank
    does. ``bank_since_ms`` keeps when the bank started to run (the old deadline, not the
    time this step is taken), so what the seat uses is deducted exactly when it acts
    (:func:`_spend_bank`)."""
    seat = table.hand.to_act
    info = table.seats[seat]
    assert info is not None and table.deadline_ms is not None
    table.bank_since_ms = table.deadline_ms
    table.deadline_ms += info.bank_ms
    return [{"type": "time_bank", "seat": seat, "bank_ms": info.bank_ms}]


def _spend_bank(table: Table, now_ms: int) -> None:
    """Deduct from the bank of the seat to act what its clock ran on it (from
    ``bank_since_ms`` to ``now_ms``, at most what it had), before the hand moves on."""
    if table.bank_since_ms is None:
        return
    info = table.seats[table.hand.to_act] if table.hand.to_act is not None else None
    if info is not None:
        info.bank_ms = max(0, info.bank_ms - max(0, now_ms - table.bank_since_ms))
    table.bank_since_ms = None


def _stands_up_at(table: Table, seat: int, after_ms: int) -> int | None:
    """When ``seat`` is freed for sitting out, or being auto-played, ``after_ms`` in a row
    (from the earlier of the two): a person's seat (bots never sit out) that is not leaving
    already and takes no part in the hand under way (whose turns are played for it: it is
    freed once the hand ends). None: it is not."""
    info = table.seats[seat]
    if info is None or info.bot or info.leaving:
        return None
    since = [t for t in (info.out_since_ms if info.sitting_out else None,
                         info.auto_since_ms if info.auto is not None else None) if t is not None]
    if not since or table.league is not None or in_hand(table, seat):
        return None
    return min(since) + after_ms


def overdue_sitters(table: Table, now_ms: int, after_ms: int) -> list[int]:
    """The seats to free at ``now_ms`` because their players have sat out ``after_ms`` or
    longer (the server's ``--sit-out-minutes``), so that a table its players walked away
    from does not stay full in the lobby for good."""
    return [seat for seat in range(len(table.seats))
            if (at := _stands_up_at(table, seat, after_ms)) is not None and at <= now_ms]


def next_stand_up_ms(table: Table, after_ms: int) -> int | None:
    """When :func:`overdue_sitters` next names a seat (None: it will not, as things stand)."""
    times = [at for seat in range(len(table.seats)) if (at := _stands_up_at(table, seat, after_ms)) is not None]
    return min(times, default=None)


def stand_up(table: Table, seat: int, reason: str = "sat_out") -> list[Event]:
    """Free ``seat`` outside a hand it is in (one of :func:`overdue_sitters`, reason
    ``"sat_out"``; or removed by the room's creator, ``"removed"``): its stack goes back
    to the wallet, as a leaver's does."""
    info = table.seats[seat]
    assert info is not None
    table.seats[seat] = None
    event: Event = {"type": "left", "seat": seat, "player": info.player, "stack": info.stack, "reason": reason}
    if info.bot:  # no wallet: its chips leave the game (a negative grant, granted_chips)
        event["bot"] = True
    return [event]


def close(table: Table, reason: str) -> list[Event]:
    """Close the room for ``reason`` (``"operator"``): every seat freed (reason
    ``"closed"``: a person's stack back to the wallet, a bot's taken back) and the room
    closed; during a hand, marked ``closing`` (a ``closing`` event) and closed once the
    hand is over."""
    if table.league is not None:
        raise ProtocolError("league_seat", "a league match's room closes when its match is over")
    if playing(table):
        if table.closing:
            return []
        table.closing = True
        return [{"type": "closing", "reason": reason}]
    events = [stand_up(table, i, "closed")[0] for i, s in enumerate(table.seats) if s is not None]
    table.closing = False
    table.closed = True
    return events + [{"type": "room_closed", "reason": reason}]


def remove_seat(table: Table, by: str | None, seat: int) -> list[Event]:
    """The room's creator ``by`` (None: an operator) removes whoever sits in ``seat``,
    between that seat's hands; raises :class:`ProtocolError` when it may not."""
    if by is not None:
        check_creator(table, by, "remove a seat")
    elif table.league is not None:
        raise ProtocolError("league_seat", "a league match's seats are held until the match is over")
    if not 0 <= seat < len(table.seats):
        raise ProtocolError("bad_seat", f"seat must be 0..{len(table.seats) - 1}", "seat")
    info = table.seats[seat]
    if info is None:
        raise ProtocolError("seat_empty", f"nobody sits in seat {seat}", "seat")
    if info.player == by:
        raise ProtocolError("bad_seat", "that is your own seat: leave it instead", "seat")
    if in_hand(table, seat):
        raise ProtocolError("hand_not_over", "a seat dealt into the hand being played is removed once it is over")
    return stand_up(table, seat, "removed")


def lock(table: Table, by: str, locked: bool) -> list[Event]:
    """The room's creator ``by`` locks the room (nobody new sits down) or opens it again."""
    check_creator(table, by, "lock it")
    if table.locked == locked:
        return []
    table.locked = locked
    return [{"type": "locked", "locked": locked}]


def check_open(table: Table) -> None:
    """Refuse a request to a closed room (``no_such_room``), whatever closed it."""
    if table.closed:
        raise ProtocolError("no_such_room", "this room is closed (nobody played in it for a while, its league "
                            "match is over, or the operator closed it)", "room")


def check_creator(table: Table, player: str, what: str) -> None:
    if table.league is not None:
        raise ProtocolError("league_seat", "a league match's room is run by its league")
    if table.creator is None or table.creator != player:
        raise ProtocolError("not_room_creator", f"only the player who made this room may {what}")


def show(table: Table, game: Game, seat: int) -> list[Event]:
    """``seat`` shows its cards of the hand just over (``game.show``); nothing else changes."""
    hand = table.hand
    if game.show is None:
        raise ProtocolError("nothing_to_show", f"every hand of {game.title} is face up at the end")
    if hand is None or not hand.is_over:
        raise ProtocolError("hand_not_over", "cards can be shown once the hand is over")
    if seat >= len(hand.players) or hand.players[seat] != table.seats[seat].player:  # type: ignore[union-attr]
        raise ProtocolError("nothing_to_show", "you were not dealt into the last hand")
    table.hand, events = game.show(hand, seat)
    return events


def start_hand(table: Table, game: Game, deck: list[int], now_ms: int,
               fair: dict[str, Any] | None = None) -> list[Event]:
    """Deal a new hand to the ready seats (the caller checked :func:`can_start`).

    ``fair``: the proof of a deck derived by :func:`engine.fairness.derive_deck`
    (:func:`fair_deal` makes both), kept in ``table.fair`` and published, all but its
    seed, in the ``hand_started`` event; None for a deck from elsewhere (tests).
    """
    ready = ready_seats(table)
    button = next_button(table, ready)
    seats = [
        (s.player, s.stack) if i in ready and s is not None else None
        for i, s in enumerate(table.seats)
    ]
    config = dict(table.config, button=button, **sng_blinds(table))
    table.hand = game.new_hand(config, seats, deck)
    table.button = button
    table.hand_no += 1
    table.next_hand_ms = None
    started: Event = {"type": "hand_started", "hand_no": table.hand_no, "button": button, "seats": ready,
                      "players": [table.seats[i].player for i in ready]}  # type: ignore[union-attr]
    table.fair = None
    if fair is not None:
        order = fairness.deal_order(game, table.hand, deck)  # None: a game with no dealing rule
        table.fair = dict(fair) if order is None else dict(fair, deal_order=order)
        started["fairness"] = public_proof(table.fair, reveal=False)
    events: list[Event] = [started]
    events += game.start_events(table.hand)
    events += _after_engine_step(table, now_ms)
    return events


def act(table: Table, game: Game, seat: int, action: dict[str, Any], now_ms: int) -> list[Event]:
    """Apply a player's own action (raises IllegalAction, leaving the table untouched)."""
    new_state, events = game.apply(table.hand, seat, action)
    _spend_bank(table, now_ms)
    table.hand = new_state
    info = table.seats[seat]
    if info is not None:
        info.timeouts = 0
    return list(events) + _after_engine_step(table, now_ms)


def play_for(table: Table, game: Game, now_ms: int, reason: str) -> list[Event]:
    """The server acts for the seat to act with the game's timeout action: its clock ran
    out (``reason`` ``"timeout"``: a ``timed_out`` event, its time bank, if any, is used
    up, and a person's seat is handed to auto-play after :data:`AUTO_PLAY_AFTER_TIMEOUTS`
    in a row), or it is leaving (``"leaver"``) or sitting out (``"sitting_out"``), played
    at once without a ``timed_out`` event."""
    seat = table.hand.to_act
    action = game.timeout_action(table.hand, seat)
    events: list[Event] = []
    if reason == "timeout":
        events.append({"type": "timed_out", "seat": seat, "action": action})
    new_state, engine_events = game.apply(table.hand, seat, action)
    _spend_bank(table, now_ms)
    table.hand = new_state
    events += engine_events
    info = table.seats[seat]
    if reason == "timeout" and info is not None and not info.bot and table.league is None:
        info.timeouts += 1  # a league seat is never auto-played: the timeout action plays it
        if info.timeouts >= AUTO_PLAY_AFTER_TIMEOUTS:
            events += set_auto(table, seat, True, now_ms, "timeouts")
    return events + _after_engine_step(table, now_ms)


def _after_engine_step(table: Table, now_ms: int) -> list[Event]:
    """Re-arm the turn clock, or settle the table if the hand just ended."""
    table.bank_since_ms = None
    if playing(table):
        table.deadline_ms = now_ms + round(table.options["action_seconds"] * 1000)
        delay = table.options.get("bot_delay_seconds", DEFAULT_BOT_DELAY_SECONDS)
        table.bot_act_ms = now_ms + round(delay * 1000) if bot_to_act(table) is not None else None
        return []
    table.deadline_ms = None
    table.bot_act_ms = None
    return end_hand(table, now_ms)


def end_hand(table: Table, now_ms: int) -> list[Event]:
    """Take the engine's final stacks, free leaving and busted seats, schedule the next hand.

    A busted bot re-buys instead (``rebuy`` event: its stack is topped up to
    ``buy_in_default`` with newly granted chips), and so does a ready bot the engine did
    not deal in (too short for the game), so a table playing against bots keeps going.
    """
    final = table.hand.stacks
    for i, info in enumerate(table.seats):
        if info is not None and i < len(final) and final[i] is not None:
            info.stack = final[i]
    events: list[Event] = [{
        "type": "hand_ended",
        "hand_no": table.hand_no,
        "stacks": [s.stack if s is not None else None for s in table.seats],
    }]
    if table.fair is not None:  # the proof was published by hand_started: only what it kept back
        events[0]["fairness"] = {"server_seed": table.fair["server_seed"], "next_commitment": next_commitment(table)}
    if table.league is not None:
        return events + league_hand_ended(table)
    for i, info in enumerate(table.seats):
        if info is None:
            continue
        if info.bot and not info.leaving and _bot_needs_chips(info, final[i] if i < len(final) else None):
            amount = max(0, table.options["buy_in_default"] - info.stack)
            info.stack += amount
            events.append({"type": "rebuy", "seat": i, "player": info.player, "amount": amount,
                           "stack": info.stack})
            continue
        if info.leaving or info.stack == 0:
            table.seats[i] = None
            events.append({
                "type": "left", "seat": i, "player": info.player, "stack": info.stack,
                "reason": "left" if info.leaving else "busted",
            })
    table.next_hand_ms = now_ms + round(table.options["between_hands_seconds"] * 1000)
    return events


CHAT_KEPT = 30
#: Longest chat line, in characters.
CHAT_MAX = 200


def chat_text(text: str) -> str | None:
    """A chat line as the room shows it: runs of whitespace (new lines too) made one
    space, unprintable characters dropped, ends trimmed; None if nothing is left or it
    is longer than :data:`CHAT_MAX`."""
    line = " ".join("".join(c for c in text if c.isprintable() or c.isspace()).split())
    return line if 0 < len(line) <= CHAT_MAX else None


def say(table: Table, seat: int | None, player: str, name: str, text: str, now_ms: int) -> list[Event]:
    """A line in the room's chat (``seat`` None: a spectator's): its ``chat`` event, kept
    among the table's last :data:`CHAT_KEPT` lines."""
    line: Event = {"type": "chat", "seat": seat, "player": player, "name": name, "text": text, "time_ms": now_ms}
    table.chat = [*table.chat[-(CHAT_KEPT - 1):], line]
    return [line]


def rebuy_short_bots(table: Table) -> list[Event]:
    """No hand can be dealt with the ready seats: top up every ready bot below the room's
    ``buy_in_default`` (``rebuy`` events, newly granted chips), since one too short for
    the game (e.g. below Zha Jin Hua's ante after its last hand) would otherwise keep its
    seat and stop the table for good. Nothing when no such bot sits here, nor in a
    league match's room (its stacks are the match's: a bot there is an entrant)."""
    if table.league is not None:
        return []
    target = table.options["buy_in_default"]
    events: list[Event] = []
    for i in ready_seats(table):
        info = table.seats[i]
        if info is not None and info.bot and info.stack < target:
            amount = target - info.stack
            info.stack = target
            events.append({"type": "rebuy", "seat": i, "player": info.player, "amount": amount, "stack": target})
    return events


def _bot_needs_chips(info: SeatInfo, final_stack: int | None) -> bool:
    """A bot re-buys when it busted, or when the engine did not deal it in although it
    was ready (its stack no longer covers what the game needs, e.g. Zha Jin Hua's ante)."""
    if info.stack == 0:
        return True
    return final_stack is None and not info.sitting_out


def remember_answer(table: Table, player: str, action_id: str, version: int) -> None:
    """Remember that ``action_id`` of ``player`` produced ``version`` (the player's last
    ``ANSWERS_KEPT`` ids are kept)."""
    table.answers[player] = [*table.answers.get(player, ())[-(ANSWERS_KEPT - 1):], [action_id, version]]


# --- persistence ---------------------------------------------------------------------


def to_dict(table: Table, game: Game) -> dict[str, Any]:
    return {
        "room": table.room,
        "game": table.game,
        "options": table.options,
        "config": table.config,
        "seats": [
            None if s is None else {
                "player": s.player, "name": s.name, "stack": s.stack,
                "sitting_out": s.sitting_out, "leaving": s.leaving, "timeouts": s.timeouts,
                "bot": s.bot, "seed": s.seed,
                **({"strategy": s.strategy} if s.strategy is not None else {}),
                **({"out_since_ms": s.out_since_ms} if s.out_since_ms is not None else {}),
                **({"auto": s.auto, "auto_since_ms": s.auto_since_ms} if s.auto is not None else {}),
                **({"bank_ms": s.bank_ms} if s.bank_ms else {}),
            }
            for s in table.seats
        ],
        "version": table.version,
        "button": table.button,
        "hand_no": table.hand_no,
        "hand": None if table.hand is None else game.to_dict(table.hand),
        "deadline_ms": table.deadline_ms,
        **({"bank_since_ms": table.bank_since_ms} if table.bank_since_ms is not None else {}),
        "next_hand_ms": table.next_hand_ms,
        "bot_act_ms": table.bot_act_ms,
        **({"chat": table.chat} if table.chat else {}),
        **({"creator": table.creator} if table.creator is not None else {}),
        **({"locked": True} if table.locked else {}),
        **({"closing": True} if table.closing else {}),
        "answers": table.answers,
        "xin": table.xin,
        "xout": table.xout,
        "code": table.code,
        "empty_since_ms": table.empty_since_ms,
        "closed": table.closed,
        "next_seed": table.next_seed,
        "fair": table.fair,
        "league": table.league.to_dict() if table.league is not None else None,
    }


def from_dict(d: dict[str, Any], game: Game) -> Table:
    return Table(
        room=d["room"],
        game=d["game"],
        options=dict(d["options"]),
        config=dict(d["config"]),
        seats=[None if s is None else SeatInfo(**s) for s in d["seats"]],
        version=d["version"],
        button=d["button"],
        hand_no=d["hand_no"],
        hand=None if d["hand"] is None else game.from_dict(d["hand"]),
        deadline_ms=d["deadline_ms"],
        bank_since_ms=d.get("bank_since_ms"),  # absent unless a clock runs on a time bank
        next_hand_ms=d["next_hand_ms"],
        bot_act_ms=d.get("bot_act_ms"),  # absent in snapshots written before bot seats
        answers=_answers_from(d["answers"]),
        xin=list(d.get("xin", ())),  # absent in snapshots written before scale-out
        xout=[Transfer(*x) for x in d.get("xout", ())],
        code=d.get("code"),
        empty_since_ms=d.get("empty_since_ms"),
        closed=d.get("closed", False),
        next_seed=d.get("next_seed"),  # absent in snapshots written before fair deals
        fair=d.get("fair"),
        league=LeagueState.from_dict(d["league"]) if d.get("league") else None,  # absent before leagues
        chat=list(d.get("chat", ())),  # absent while nobody talked
        creator=d.get("creator"),  # absent in rooms made before moderation
        locked=d.get("locked", False),
        closing=d.get("closing", False),
    )


def _answers_from(stored: Any) -> dict[str, list[list[Any]]]:
    """Answers as stored: a map player -> [[id, version]], or, in snapshots written before
    the per-player window, a list of [player, id, version] (the last of each player kept)."""
    if isinstance(stored, dict):
        return {p: [list(a) for a in ids] for p, ids in stored.items()}
    out: dict[str, list[list[Any]]] = {}
    for player, aid, version in stored:
        out[player] = [*out.get(player, ())[-(ANSWERS_KEPT - 1):], [aid, version]]
    return out
