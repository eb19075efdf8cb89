"""A room's decisions, without I/O: a command or the time in, what to do out.

Like the sans-I/O protocol objects of the ``websockets`` library, :class:`RoomCore`
never awaits, reads no clock (``now`` is passed in), and touches neither Redis nor a
socket. The actor (:mod:`server.room.actor`) feeds it one command, or the current time
when a timer is due, and carries out what comes back:

* a :class:`Reply` answers one request and changes nothing (an error, a repeated
  action id, a buy-in check);
* a :class:`Change` is a new table to store. Once Redis has stored it (the actor's
  job), it is published with its events and the :class:`Answer` s that go with it (an
  ``ack``, the joiner's snapshot), and the chip transfers it started are completed.

Requests are addressed by :class:`Origin` (node id, connection id, request number, the
client's ``ref``), never by a live connection, so a command can come from any process.

Chips between wallets and this table (two Redis hash slots) move in two steps, and the
table remembers its side of each transfer until the other side is known to be done:

* a buy-in (:class:`Debit`) is taken from the wallet into a journal entry first; the
  change that seats the player lists the entry's id in ``table.xin``; once the journal
  entry is closed (:meth:`RoomCore.buy_in_closed`) the next change drops the id. A
  journal entry whose id is not in ``xin`` was never stored here: the sweeper refunds it
  (:class:`SettleCommand` asks).
* a cash-out (:class:`Payout`) is recorded in ``table.xout`` by the change that frees
  the seat; the wallet is paid afterwards (idempotently); once paid
  (:meth:`RoomCore.paid_out`) the next change drops the entry and tells the wallet side
  to forget the id (``Change.forget``).
"""

from __future__ import annotations

import logging
import random
import secrets
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from engine import bots
from engine.errors import IllegalAction
from engine.game import Event, Game

from ..edge.protocol import ProtocolError, error_message
from . import fair
from . import table as tbl
from .actions import parse_action

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Origin:
    """Who asked: the node and connection that hold the request, and how to answer it."""

    node: str
    conn: int  # connection id on that node (0: the node itself, e.g. its sweeper)
    seq: int  # request number on that node
    ref: Any  # the client's ref, echoed in the answer
    player: str
    name: str

    def to_wire(self) -> list[Any]:
        return [self.node, self.conn, self.seq, self.ref, self.player, self.name]

    @classmethod
    def from_wire(cls, w: list[Any]) -> Origin:
        return cls(*w)


@dataclass(frozen=True)
class JoinCommand:
    kind: ClassVar[str] = "join"
    origin: Origin
    seat: int | None = None
    buy_in: int | None = None
    code: str | None = None  # a private room's join code
    seed: str | None = None  # the player's client seed for provably fair deals
    # sent again after its forward timed out: it may have been applied already, so a
    # player found in the seat it asked for is this join's answer, not ``already_seated``
    again: bool = False


@dataclass(frozen=True)
class LeaveCommand:
    """Free my seat (at once between hands, else when the hand ends). Sent by the server
    itself for a banned player (``player`` set, origin internal)."""

    kind: ClassVar[str] = "leave"
    origin: Origin
    player: str | None = None  # whose seat (None: the requester's)


@dataclass(frozen=True)
class SitOutCommand:
    kind: ClassVar[str] = "sit_out"
    origin: Origin


@dataclass(frozen=True)
class SitInCommand:
    kind: ClassVar[str] = "sit_in"
    origin: Origin


@dataclass(frozen=True)
class ShowCommand:
    """Show my cards of the hand just over (a muck, a fold: the game's ``show``)."""

    kind: ClassVar[str] = "show"
    origin: Origin


@dataclass(frozen=True)
class AddBotCommand:
    """A server bot in a free seat, asked by a player seated here: someone alone at a
    table need not wait for another person to play."""

    kind: ClassVar[str] = "add_bot"
    origin: Origin


@dataclass(frozen=True)
class AutoPlayCommand:
    """Hand my seat to the server's auto-play (``on``) or take it back. Sent by the server
    itself (``player`` set, origin internal) when a player's last connection closes."""

    kind: ClassVar[str] = "auto_play"
    origin: Origin
    on: bool
    player: str | None = None  # whose seat (None: the requester's)
    reason: str = "asked"  # one of table.AUTO_REASONS


@dataclass(frozen=True)
class SetSeedCommand:
    kind: ClassVar[str] = "set_seed"
    origin: Origin
    seed: str


@dataclass(frozen=True)
class ActCommand:
    kind: ClassVar[str] = "act"
    origin: Origin
    action: dict[str, Any]
    action_id: str


@dataclass(frozen=True)
class SayCommand:
    """A line in the room's chat (its text tidied by :func:`table.chat_text`). ``spectator``:
    the requester watches the room (its process knows), which counts where the room lets
    spectators talk."""

    kind: ClassVar[str] = "say"
    origin: Origin
    text: str
    spectator: bool = False


@dataclass(frozen=True)
class RemoveSeatCommand:
    """The room's creator frees someone else's seat between its hands (chips to the wallet);
    or an operator does (``operator``: sent by the server itself, never by a client)."""

    kind: ClassVar[str] = "remove_seat"
    origin: Origin
    seat: int
    operator: bool = False


@dataclass(frozen=True)
class CloseCommand:
    """An operator closes the room: every person's seat freed and paid out, at once
    between hands, else when the hand being played ends. Sent by the server itself."""

    kind: ClassVar[str] = "close"
    origin: Origin
    reason: str = ""


@dataclass(frozen=True)
class LockCommand:
    """The room's creator locks the room (nobody new sits down) or opens it again."""

    kind: ClassVar[str] = "lock"
    origin: Origin
    locked: bool


@dataclass(frozen=True)
class SettleCommand:
    """Was buy-in ``xid`` stored in this room? (asked by the transfer sweeper)"""

    kind: ClassVar[str] = "settle"
    origin: Origin
    xid: str


#: what a room is asked to do: each named ``...Command``, apart from the client's message
#: of the same request (``server/edge/messages.py``: ``Join`` is the message, ``JoinCommand``
#: the command the lobby makes of it, with its Origin)
Command = (JoinCommand | LeaveCommand | SitOutCommand | SitInCommand | ShowCommand | AddBotCommand
           | AutoPlayCommand | SetSeedCommand | ActCommand | SayCommand | RemoveSeatCommand | LockCommand
           | CloseCommand | SettleCommand)
COMMANDS: dict[str, type] = {c.kind: c for c in (
    JoinCommand, LeaveCommand, SitOutCommand, SitInCommand, ShowCommand, AddBotCommand, AutoPlayCommand,
    SetSeedCommand, ActCommand, SayCommand, RemoveSeatCommand, LockCommand, CloseCommand, SettleCommand)}


def command_to_wire(cmd: Command) -> dict[str, Any]:
    out = {k: v for k, v in cmd.__dict__.items() if k != "origin"}
    out["kind"] = cmd.kind
    out["origin"] = cmd.origin.to_wire()
    return out


def command_from_wire(d: dict[str, Any]) -> Command:
    fields_ = {k: v for k, v in d.items() if k not in ("kind", "origin")}
    return COMMANDS[d["kind"]](origin=Origin.from_wire(d["origin"]), **fields_)


# a Reply's message that stands for the requester's room snapshot, rendered where the
# requester is (as an Answer of kind "room" is): the answer to a join found already applied
ROOM_ANSWER = "_room"


@dataclass(frozen=True)
class Reply:
    """Answer ``origin`` with ``msg``; nothing changes."""

    origin: Origin
    msg: dict[str, Any]


@dataclass(frozen=True)
class Answer:
    """An answer that goes out with a stored change, rendered where the requester is:
    ``"room"`` (its snapshot of the new state), ``"ack"`` (``data`` = the action id) or
    ``"msg"`` (``data`` = the message)."""

    origin: Origin
    kind: str
    data: Any = None

    def to_wire(self) -> list[Any]:
        return [self.origin.to_wire(), self.kind, self.data]

    @classmethod
    def from_wire(cls, w: list[Any]) -> Answer:
        return cls(Origin.from_wire(w[0]), w[1], w[2])


@dataclass(frozen=True)
class Debit:
    """A buy-in: take ``amount`` from ``player``'s wallet before storing the change."""

    xid: str
    player: str
    amount: int


@dataclass(frozen=True)
class Payout:
    """A cash-out to pay into ``player``'s wallet once the change is stored.

    ``origin`` is the ``leave`` request it answers, if any; everyone else of that player
    watching the room hears of it too (the ``left`` message)."""

    xid: str
    player: str
    amount: int
    seat: int
    reason: str  # "left" or "busted"
    origin: Origin | None = None


@dataclass
class Change:
    """A new table to store, and what follows once it is stored."""

    table: tbl.Table
    events: list[Event]
    kind: str  # join, leave, sit_out, sit_in, show, add_bot, auto_play, act, start, timeout, time_bank,
    # leaver, sitting_out, auto, bot, stand_up, close
    origin: Origin | None = None
    answers: list[Answer] = field(default_factory=list)
    debit: Debit | None = None
    payouts: list[Payout] = field(default_factory=list)
    granted: int = 0  # new chips (bot seats' buy-ins and re-buys)
    forget: list[tuple[str, str]] = field(default_factory=list)  # (player, cash-out id) settled
    record: list[Any] | None = None  # how to make this change again (see RoomCore.replay)


class ReplayError(Exception):
    """A recorded change could not be made again (its record does not fit the table)."""


def room_error(room: str, origin: Origin, code: str, message: str, field_: str | None = None) -> Reply:
    return Reply(origin, error_message(code, message, origin.ref, field_, room=room))


#: the replayers' ``rng``, never drawn from (a replayed bot's choice is in its record):
#: one for all (seeding a new one for every replay cost a few microseconds)
_REPLAY_RNG = random.Random(0)


class RoomCore:
    """One room's state machine around :mod:`server.room.table` and its game engine.

    Decks are derived from seeds (:func:`server.room.table.fair_deal`): ``new_seed()``
    draws a server seed (256 bits from the system's CSPRNG). ``deck(size)``, when given,
    deals stacked decks instead, with no proof (tests). ``new_id()`` makes a fresh
    transfer id, ``rng`` seeds the bot seats' random generators: what a decision may need
    from outside a table, passed in so that tests can fix it.
    """

    def __init__(self, game: Game, table: tbl.Table, *, deck: Callable[[int], list[int]] | None = None,
                 new_id: Callable[[], str], rng: random.Random, close_empty_after_ms: int = 0,
                 stand_up_after_ms: int = 0,
                 new_seed: Callable[[], str] = lambda: secrets.token_hex(32)) -> None:
        self.game = game
        self.table = table
        self.close_empty_after_ms = close_empty_after_ms  # 0: never close an empty room
        self.stand_up_after_ms = stand_up_after_ms  # 0: a seat may sit out for good
        self._now = 0
        self._deck = deck
        self._new_seed = new_seed
        self._new_id = new_id
        self._rng = rng
        self._bot_rngs: dict[int, random.Random] = {}
        self._refused_at: int | None = None  # version at which the engine refused to deal
        self._bot_failed_at: int | None = None  # version at which a bot could not act
        self._closed_in: set[str] = set()  # buy-ins whose journal entry is closed
        self._paid_out: set[str] = set()  # cash-outs paid into wallets
        # what the decision under way took from outside the table, for its change's record
        self._cmd: Command | None = None
        self._drawn: list[Any] = []
        self._dropped: tuple[list[str], list[str]] = ([], [])
        self._replaying: deque[Any] | None = None  # the drawn values still to take

    @classmethod
    def replayer(cls, game: Game, table: tbl.Table) -> RoomCore:
        """A core that only :meth:`replay` s recorded changes (it draws nothing itself)."""
        def nothing() -> str:
            raise ReplayError("a replayed change drew more than its record holds")
        return cls(game, table, new_id=nothing, new_seed=nothing, rng=_REPLAY_RNG)

    @property
    def room(self) -> str:
        return self.table.room

    # --- requests ----------------------------------------------------------------------

    def handle(self, cmd: Command, now: int) -> Change | Reply:
        """Decide a request. Rule violations become error replies; anything else raised
        is a bug, which the actor answers with ``internal_error``."""
        self._begin(cmd, now)
        try:
            return self._handle(cmd, now)
        except (ProtocolError, IllegalAction) as exc:
            return room_error(self.room, cmd.origin, exc.code, exc.message, getattr(exc, "field", None))

    def _handle(self, cmd: Command, now: int) -> Change | Reply:
        origin = cmd.origin
        if isinstance(cmd, SettleCommand):
            return Reply(origin, _with_ref(
                {"t": "_settled", "xid": cmd.xid, "applied": cmd.xid in self.table.xin}, origin.ref))
        seat_of_another = isinstance(cmd, AutoPlayCommand | LeaveCommand) and cmd.player is not None
        whose = cmd.player if seat_of_another else origin.player
        seat = tbl.seat_of(self.table, whose)
        if isinstance(cmd, JoinCommand):
            tbl.check_open(self.table)
            if not tbl.may_enter(self.table, origin.player, cmd.code):
                raise ProtocolError("bad_code", "this room is private: ask its players for the join code", "code")
            if self.table.closing and seat is None:
                raise ProtocolError("no_such_room", "this room is being closed by the operator", "room")
            if self.table.locked and seat is None:
                raise ProtocolError("room_locked", "the player who made this table locked it: nobody new sits down")
            if cmd.again and seat is not None and cmd.seat in (None, seat):
                return Reply(origin, {"t": ROOM_ANSWER, "room": self.room, "version": self.table.version,
                                      "ref": origin.ref})
            t, forget = self._draft()
            buy_in = cmd.buy_in if cmd.buy_in is not None else t.options["buy_in_default"]
            _, events = tbl.sit(t, origin.player, origin.name, cmd.seat, buy_in, cmd.seed)
            xid = self._draw(self._new_id)
            t.xin.append(xid)
            return self._change(t, events, "join", forget, origin, [Answer(origin, "room")],
                                debit=Debit(xid, origin.player, buy_in))
        if isinstance(cmd, SayCommand):
            return self._say(cmd, seat, now)
        if isinstance(cmd, RemoveSeatCommand | LockCommand | CloseCommand):  # the creator or an operator moderates
            tbl.check_open(self.table)
            t, forget = self._draft()
            if isinstance(cmd, CloseCommand):
                events = tbl.close(t, "operator")
                done = {"t": "_done", "room": self.room, "pending": not t.closed}
                return self._change(t, events, cmd.kind, forget, origin, [Answer(origin, "msg", done)])
            if isinstance(cmd, RemoveSeatCommand):
                events = tbl.remove_seat(t, None if cmd.operator else origin.player, cmd.seat)
            else:
                events = tbl.lock(t, origin.player, cmd.locked)
            answer = Answer(origin, "msg", {"t": "_done", "room": self.room}) if isinstance(cmd, RemoveSeatCommand) \
                and cmd.operator else Answer(origin, "room")
            return self._change(t, events, cmd.kind, forget, origin, [answer])
        if seat is None:
            raise ProtocolError("not_seated", "you hold no seat in this room")
        held = isinstance(cmd, LeaveCommand | SitOutCommand | AutoPlayCommand)
        if self.table.league is not None and held and not self.table.closed:
            raise ProtocolError("league_seat", "a league seat is held until the match ends; while you are "
                                "away the game's timeout action plays your turns")
        if isinstance(cmd, LeaveCommand):
            return self._leave(seat, origin, internal=cmd.player is not None)
        if isinstance(cmd, AddBotCommand):
            if self.table.league is not None:
                raise ProtocolError("league_seat", "a league match is played by its entrants only")
            if all(s is not None for s in self.table.seats):
                raise ProtocolError("room_full", "every seat is taken")
            t, forget = self._draft()
            return self._change(t, tbl.seat_bots(t, 1), "add_bot", forget, origin, [Answer(origin, "room")])
        if isinstance(cmd, SetSeedCommand):
            t, forget = self._draft()
            t.seats[seat].seed = cmd.seed  # type: ignore[union-attr]
            return self._change(t, [], "set_seed", forget, origin, [Answer(origin, "room")])
        if isinstance(cmd, ShowCommand):
            t, forget = self._draft()
            events = tbl.show(t, self.game, seat)
            return self._change(t, events, "show", forget, origin, [Answer(origin, "room")])
        if isinstance(cmd, AutoPlayCommand):
            if cmd.reason not in tbl.AUTO_REASONS:
                raise ProtocolError("bad_message", f"reason must be one of {', '.join(tbl.AUTO_REASONS)}")
            t, forget = self._draft()
            events = tbl.set_auto(t, seat, cmd.on, now, cmd.reason)
            # the server's own request (a disconnect) wants no snapshot, only to know it is done
            answer = Answer(origin, "room") if cmd.player is None else \
                Answer(origin, "msg", {"t": "_auto_play", "room": self.room})
            return self._change(t, events, cmd.kind, forget, origin, [answer])
        if isinstance(cmd, SitOutCommand | SitInCommand):
            t, forget = self._draft()
            events = tbl.sit_out(t, seat, now) if isinstance(cmd, SitOutCommand) else tbl.sit_in(t, seat)
            return self._change(t, events, cmd.kind, forget, origin, [Answer(origin, "room")])
        assert isinstance(cmd, ActCommand)
        version = tbl.find_answer(self.table, origin.player, cmd.action_id)
        if version is not None:
            return Reply(origin, _with_ref(
                {"t": "ack", "room": self.room, "id": cmd.action_id, "version": version}, origin.ref))
        action = parse_action(self.game, cmd.action)  # a malformed action is that, hand or not
        if not tbl.playing(self.table):
            raise ProtocolError("no_hand", "no hand is being played in this room")
        t, forget = self._draft()
        events = tbl.set_auto(t, seat, False, now)  # acting yourself takes your seat back
        events += tbl.act(t, self.game, seat, action, now)
        tbl.remember_answer(t, origin.player, cmd.action_id, t.version + 1)
        return self._change(t, events, "act", forget, origin, [Answer(origin, "ack", cmd.action_id)])

    def _say(self, cmd: SayCommand, seat: int | None, now: int) -> Change:
        """A chat line: from a seated player, or a spectator where the room allows it."""
        tbl.check_open(self.table)
        if seat is None and not (cmd.spectator and self.table.options.get("spectator_chat")):
            raise ProtocolError("not_seated", "only the players seated here may talk in this room's chat"
                                if cmd.spectator else "you hold no seat in this room (nor watch it)")
        text = tbl.chat_text(cmd.text)
        if text is None:
            raise ProtocolError("bad_message", f"say: text must be 1 to {tbl.CHAT_MAX} printable characters", "text")
        t, forget = self._draft()
        events = tbl.say(t, seat, cmd.origin.player, cmd.origin.name, text, now)
        said = {"t": "said", "room": self.room, "version": self.table.version + 1}
        return self._change(t, events, "say", forget, cmd.origin, [Answer(cmd.origin, "msg", said)])

    def _leave(self, seat: int, origin: Origin, internal: bool = False) -> Change | Reply:
        """A player leaves ``seat``; ``internal``: the server asked (a ban), and waits for
        a ``_done`` answer whether or not the seat is freed at once."""
        info = self.table.seats[seat]
        assert info is not None
        # stack and wallet are not known until the hand ends: the chips are still in play
        pending_msg = {"t": "left", "room": self.room, "seat": seat, "pending": True, "stack": None, "wallet": None}
        if info.leaving:  # asked twice: still pending, nothing new
            return Reply(origin, _with_ref(pending_msg if not internal else {"t": "_done", "room": self.room,
                                                                             "pending": True}, origin.ref))
        t, forget = self._draft()
        pending, _stack, events = tbl.leave(t, seat)
        answers = [Answer(origin, "msg", pending_msg)] if pending else []
        if internal:
            answers = [Answer(origin, "msg", {"t": "_done", "room": self.room, "pending": pending})]
        return self._change(t, events, "leave", forget, origin, answers)

    # --- timers ------------------------------------------------------------------------

    def wake_ms(self) -> int | None:
        """When :meth:`due` next has something to do (None: only a command can wake it)."""
        t = self.table
        if not tbl.playing(t) and self._refused_at == t.version:
            wake = None
        elif self._server_to_act(t) is not None and self._bot_failed_at == t.version:
            wake = t.deadline_ms
        else:
            wake = tbl.next_wakeup_ms(t, self.game)
        stand = tbl.next_stand_up_ms(t, self.stand_up_after_ms) if self.stand_up_after_ms else None
        return min((x for x in (self._close_at(), stand, wake) if x is not None), default=None)

    def _close_at(self) -> int | None:
        """When this room closes for being empty, if nobody sits down before."""
        t = self.table
        if t.closed or tbl.playing(t):
            return None
        if t.closing:  # closed by an operator during the hand now over: at once
            return 0
        if not self.close_empty_after_ms or t.empty_since_ms is None:
            return None
        return t.empty_since_ms + self.close_empty_after_ms

    def due(self, now: int) -> Change | None:
        """The change the room makes by itself at ``now``: a turn clock ran out, a
        leaving player's or a bot's turn, seats sat out too long freed, or the next hand.
        None when nothing is due."""
        self._begin(None, now)
        t0 = self.table
        close = self._close_at()
        if close is not None and close <= now:
            return self._step("close", now)
        if self.stand_up_after_ms and tbl.overdue_sitters(t0, now, self.stand_up_after_ms):
            return self._step("stand_up", now)
        step = tbl.due(t0, self.game, now)
        if step is None:
            return None
        if step == "start" and self._refused_at == t0.version:
            return None
        if step in ("bot", "auto") and self._bot_failed_at == t0.version:
            return None
        return self._step(step, now)

    def _step(self, step: str, now: int) -> Change | None:
        """Take the automatic step ``step`` (what :func:`server.room.table.due` named, or
        ``"close"``); None if it cannot be taken after all (remembered, not retried)."""
        if step == "close":
            t, forget = self._draft()
            if t.closing:
                return self._change(t, tbl.close(t, "operator"), "close", forget)
            t.closed = True
            return self._change(t, [{"type": "room_closed", "reason": "empty"}], "close", forget)
        if step == "stand_up":  # which seats depends on a setting: drawn, so that a replay needs none
            seats = self._draw(lambda: tbl.overdue_sitters(self.table, now, self.stand_up_after_ms))
            t, forget = self._draft()
            return self._change(t, [e for seat in seats for e in tbl.stand_up(t, seat)], "stand_up", forget)
        if step == "start":
            t0 = self.table
            t, forget = self._draft()
            try:
                if not self._stacked():
                    deck, proof = fair.fair_deal(t, self.game, tbl.ready_seats(t), lambda: self._draw(self._new_seed))
                    events = tbl.start_hand(t, self.game, deck, now, proof)
                else:  # a stacked deck (tests): no proof
                    deck = self._draw(lambda: self._deck(self.game.deck_size))  # type: ignore[misc]
                    events = tbl.start_hand(t, self.game, deck, now)
            except ValueError as exc:  # includes ConfigError: e.g. too few stacks cover the ante
                t, forget = self._draft()
                events = tbl.rebuy_short_bots(t)  # a bot too short to be dealt: the hand is tried again
                if events:
                    return self._change(t, events, "start", forget)
                log.warning("room %s: cannot deal a hand with these seats: %s", self.room, exc)
                self._refused_at = t0.version
                return None
            return self._change(t, events, "start", forget)
        if step in ("bot", "auto"):
            return self._server_turn(step, now)
        if step == "time_bank":
            t, forget = self._draft()
            return self._change(t, tbl.use_time_bank(t), step, forget)
        t, forget = self._draft()
        events = tbl.play_for(t, self.game, now, step)
        return self._change(t, events, step, forget)

    @staticmethod
    def _server_to_act(t: tbl.Table) -> int | None:
        """The seat to act if the server plays it (a bot, or an auto-played person)."""
        bot = tbl.bot_to_act(t)
        return bot if bot is not None else tbl.auto_to_act(t)

    def _server_choice(self, seat: int, step: str) -> tuple[str, dict[str, Any] | None]:
        """What the server plays for ``seat`` (``step`` ``"bot"`` or ``"auto"``), and the
        strategy named in logs. A bot seat: its strategy's choice. An auto-played seat:
        check or fold in a game that says so (:attr:`engine.game.Game.auto_play_checks`:
        decided from the table alone), else the built-in bot's first strategy (``smart``; a game without
        one: its timeout action). A strategy's choice is drawn (:meth:`_draw`), so a
        replay plays it again without the bot."""
        t0 = self.table
        info = t0.seats[seat]
        assert info is not None
        if step == "auto" and self.game.auto_play_checks:
            return "check_or_fold", tbl.check_or_fold(self.game, t0.hand, seat)
        if step == "auto" and bots.NAMES[0] not in self.game.bots:
            return "timeout_action", self.game.timeout_action(t0.hand, seat)  # a game without a bot
        if step == "auto":
            strategy = bots.NAMES[0]
        else:
            strategy = info.strategy or t0.options.get("bot_strategy", bots.NAMES[0])
        return strategy, self._draw(lambda: self._decide(seat, strategy))

    def _server_turn(self, step: str, now: int) -> Change | None:
        """The bot or auto-played seat to act plays (:meth:`_server_choice`), or, if that
        fails or is refused, the game's timeout action (both logged). If even that is
        refused, the seat's turn clock runs out like anyone's."""
        t0 = self.table
        seat = self._server_to_act(t0)
        assert seat is not None
        strategy, action = self._server_choice(seat, step)
        if action is None:
            log.error("room %s: strategy %s gave no action for seat %d; playing the timeout action",
                      self.room, strategy, seat)
        for attempt in (action, self.game.timeout_action(t0.hand, seat)):
            if attempt is None:
                continue
            t, forget = self._draft()
            try:
                events = tbl.act(t, self.game, seat, attempt, now)
                if step == "bot":
                    tbl.remember_answer(t, t0.seats[seat].player, f"bot-v{t0.version}", t0.version + 1)
            except IllegalAction as exc:
                log.error("room %s: %s for seat %d chose %r, refused (%s); %s", self.room, step, seat, attempt,
                          exc.code, "playing the timeout action" if attempt is action else "giving up")
                continue
            return self._change(t, events, step, forget)
        self._bot_failed_at = t0.version
        return None

    def _decide(self, seat: int, strategy: str) -> dict[str, Any] | None:
        """The bot's choice for ``seat`` (None if its strategy failed)."""
        rng = self._bot_rngs.setdefault(seat, random.Random(self._rng.getrandbits(64)))
        try:
            return bots.decide(self.game, strategy, self.game.view(self.table.hand, seat), rng)
        except Exception:
            log.exception("room %s: bot strategy %s failed for seat %d", self.room, strategy, seat)
            return None

    # --- replaying a change from its record -----------------------------------------------

    def replay(self, record: list[Any]) -> Change:
        """Make a stored change again from its :attr:`Change.record`, on the table it was
        made from: the same command (or automatic step) at the same time, with the same
        values drawn (transfer ids, seeds, a bot's choice) and the same settled transfers
        dropped. Decisions are pure, so the result is the change that was stored.
        Raises :class:`ReplayError` if it is not (a record of another table)."""
        kind, cmd, now, drawn, drop_in, drop_out = record
        self._replaying = deque(drawn)
        self._closed_in, self._paid_out = set(drop_in), set(drop_out)
        try:
            if cmd is not None:
                result: Change | Reply | None = self.handle(command_from_wire(cmd), now)
            else:
                self._begin(None, now)
                result = self._step(kind, now)
        finally:
            self._replaying = None
        if not isinstance(result, Change) or result.kind != kind:
            raise ReplayError(f"room {self.room}: replaying a {kind!r} change at version "
                              f"{self.table.version} gave {result!r:.200}")
        return result

    def _begin(self, cmd: Command | None, now: int) -> None:
        self._now = now
        self._cmd = cmd
        self._drawn = []

    def _stacked(self) -> bool:
        """Is the hand about to start dealt from a stacked deck (tests), not from seeds? On
        replay, the record says: a stacked deck is drawn whole, as a list."""
        if self._replaying is None:
            return self._deck is not None
        return bool(self._replaying) and isinstance(self._replaying[0], list)

    def _draw(self, make: Callable[[], Any]) -> Any:
        """A value from outside the table: made now (and recorded), or, when replaying,
        the one recorded."""
        if self._replaying is not None:
            if not self._replaying:
                raise ReplayError("a replayed change drew more than its record holds")
            return self._replaying.popleft()
        value = make()
        self._drawn.append(value)
        return value

    # --- after the actor stored a change, or completed a transfer -------------------------

    def stored(self, change: Change) -> None:
        """``change`` is in Redis: it is the room's state from now on."""
        self.table = change.table
        self._closed_in &= set(change.table.xin)
        self._paid_out &= {x.xid for x in change.table.xout}

    def buy_in_closed(self, xid: str) -> None:
        """The journal entry of buy-in ``xid`` is closed: the next change may drop it."""
        self._closed_in.add(xid)

    def paid_out(self, xid: str) -> None:
        """Cash-out ``xid`` is in the wallet: the next change may drop it."""
        self._paid_out.add(xid)

    def unpaid(self) -> list[Payout]:
        """Cash-outs recorded here and not yet known to be paid (e.g. after a takeover)."""
        return [Payout(x.xid, x.player, x.amount, x.seat, x.reason) for x in self.table.xout
                if x.xid not in self._paid_out]

    # --- helpers -----------------------------------------------------------------------

    def _draft(self) -> tuple[tbl.Table, list[tuple[str, str]]]:
        """A copy of the table to change, without the transfers now settled on both
        sides; returns it and the cash-outs whose wallet side may then forget them."""
        t = tbl.clone(self.table)
        dropped_in = [x for x in t.xin if x in self._closed_in]
        dropped_out = [x.xid for x in t.xout if x.xid in self._paid_out]
        if dropped_in:
            t.xin = [x for x in t.xin if x not in self._closed_in]
        forget = [(x.player, x.xid) for x in t.xout if x.xid in self._paid_out]
        if dropped_out:
            t.xout = [x for x in t.xout if x.xid not in self._paid_out]
        self._dropped = (dropped_in, dropped_out)
        return t, forget

    def _change(self, t: tbl.Table, events: list[Event], kind: str, forget: list[tuple[str, str]],
                origin: Origin | None = None, answers: list[Answer] | None = None,
                debit: Debit | None = None) -> Change:
        t.version = self.table.version + 1
        if tbl.has_people(t):
            t.empty_since_ms = None
        elif t.empty_since_ms is None:
            t.empty_since_ms = self._now
        payouts = []
        for e in events:
            if e.get("type") != "left" or e.get("bot"):  # a bot's chips leave the game (granted_chips)
                continue
            xid = self._draw(self._new_id)
            t.xout.append(tbl.Transfer(xid, e["player"], e["stack"], e["seat"], e["reason"]))
            asked = origin if kind == "leave" and e["reason"] == "left" and origin is not None \
                and origin.player == e["player"] else None
            payouts.append(Payout(xid, e["player"], e["stack"], e["seat"], e["reason"], asked))
        granted = sum(tbl.granted_chips(events).values())
        cmd = None if self._cmd is None else command_to_wire(self._cmd)
        record = [kind, cmd, self._now, self._drawn, *self._dropped]
        return Change(t, events, kind, origin, answers or [], debit, payouts, granted, forget, record)


def _with_ref(msg: dict[str, Any], ref: Any) -> dict[str, Any]:
    if ref is not None:
        msg["ref"] = ref
    return msg


def left_message(room: str, payout: Payout, wallet: int) -> dict[str, Any]:
    """The ``left`` message that tells a player their seat is free and their chips home."""
    msg: dict[str, Any] = {"t": "left", "room": room, "seat": payout.seat, "pending": False,
                           "stack": payout.amount, "wallet": wallet}
    if payout.origin is None:
        msg["reason"] = payout.reason
    return msg


def listed(table: tbl.Table) -> bool:
    """Does the lobby list this room? (Not when private or closed.)"""
    return table.code is None and not table.closed


def lobby_summary(table: tbl.Table) -> dict[str, Any]:
    """A room as the lobby lists it (spectators are counted per process, elsewhere)."""
    return {
        "room": table.room, "game": table.game, "name": table.options["name"], "seats": len(table.seats),
        "players": sum(1 for s in table.seats if s is not None), "playing": tbl.playing(table),
        "bots": sum(1 for s in table.seats if s is not None and s.bot), "config": table.config,
        **({"locked": True} if table.locked else {}),
    }
