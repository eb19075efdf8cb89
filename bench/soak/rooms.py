"""Rooms played in-process by bots, every viewer's messages captured and scanned.

A :class:`ScanRoom` runs the server's own room code without I/O: the room core
(``server.room.core.RoomCore``) decides every command and timer, and the server's own
view and delivery (``server.room.delivery.Delivery.change``: the answers, then each
viewer's update rendered by ``server.room.view.RoomView``; ``send_snapshot`` for a
spectator who starts watching) renders what each connection receives: exactly the messages the
server sends, minus the socket. The transfers with wallets are completed at once.

People come and go as on a real table: seated players act on their own snapshot with an
``engine.bots`` strategy, now and then let their clock run out, leave mid-hand, leave
between hands, sit out and back in; busted and departed players keep watching; new
players take the freed seats (often between hands, while the last hand's final view is
still the room's view); a spectator watches throughout; some rooms have bot seats.
During a hand every third change also has one viewer, in turn, ask for the room's ``history``
(the hand under way as that viewer may see it, ``server.records.history.history_reply``, as a
client coming to the table on another device does). Every message goes through the :class:`~bench.soak.leaks.Scanner` with the rules'
:class:`~bench.soak.leaks.Knowledge` of that moment: an event with what the events up to
and including it revealed, a snapshot with what the whole change revealed.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from client_demo.sdk.updates import RoomFollower
from engine import bots, fairness
from engine.game import Game
from server.records.history import Entry, history_reply, split_hands
from server.room import table as tbl
from server.room.core import (
    ActCommand,
    Change,
    JoinCommand,
    LeaveCommand,
    Origin,
    Reply,
    RoomCore,
    SayCommand,
    SitInCommand,
    SitOutCommand,
    left_message,
)
from server.room.delivery import Delivery
from server.room.options import parse_room_options
from server.room.view import RoomView

from .leaks import Knowledge, Scanner, Violation, reveal, secrets_of

NODE = "n-leakscan"
START_MS = 1_700_000_000_000
STUCK_STEPS = 5_000  # steps without a change: the room cannot go on
WATCHERS = 2  # connections watching without a seat, at most (the spectator included)
CHAT_SHARE = 0.02  # steps that begin with someone saying a line
CHAT_LINES = ("gl", "nice hand", "好牌！", "  so \n slow  ", "x" * 200)
HISTORY_EVERY = 3  # changes of a hand between two history requests (see ScanRoom._ask_history)


class Viewer:
    """One connection watching the room: to :class:`RoomView` it is a ``Session`` (``id``,
    ``player_id``, ``send``)."""

    def __init__(self, conn: int, player: str, strategy: str, room: ScanRoom) -> None:
        self.id = conn
        self.player_id = player
        self.name = player.upper()
        self.strategy = strategy
        self.room = room
        self.latest: dict[str, Any] | None = None  # the newest room snapshot received
        self.follower = RoomFollower()  # what a client keeps: updates become events + snapshot

    def send(self, msg: dict[str, Any]) -> None:
        self.room.received(self, msg)


class Sessions:
    """The answers waiting to be claimed, as ``server.edge.session.Sessions`` keeps them."""

    def __init__(self) -> None:
        self.pending: dict[tuple[int, int], Viewer] = {}

    def claim(self, conn: int, seq: int) -> Viewer | None:
        return self.pending.pop((conn, seq), None)


class Views:
    """What :class:`RoomView` asks of its owner (``server.room.view.Views``)."""

    node = NODE

    def __init__(self) -> None:
        self.sessions = Sessions()

    def watch(self, view: RoomView, session: Viewer) -> None:
        view.viewers[session.id] = session

    def is_online(self, player: str) -> bool:
        return True


async def _no_other_process(node: str, message: dict[str, Any]) -> bool:
    raise AssertionError(f"an answer for another process ({node}): every request here is this one's")


class ScanRoom:
    """One room of ``game`` played for a number of hands with every message scanned."""

    def __init__(self, game: Game, name: str, rng: random.Random, scanner: Scanner, *,
                 seats: int, bots_: int = 0, config: dict[str, Any] | None = None,
                 options: dict[str, Any] | None = None, reseat: bool = True) -> None:
        self.game = game
        self.reseat = reseat  # may a newcomer take a seat of the last hand before the next deal?
        self.stuck = False
        self.events: Counter[str] = Counter()
        self.rng = rng
        self.scanner = scanner
        opts = parse_room_options(game, {
            "seats": seats, "action_seconds": 20, "between_hands_seconds": 2, "buy_in_min": 50,
            "buy_in_max": 5000, "buy_in_default": 1000, "bots": bots_, "bot_delay_seconds": 0.5,
            "bot_strategy": rng.choice(bots.NAMES), "spectator_chat": rng.random() < 0.5, **(options or {})})
        table = tbl.Table(room=name, game=game.name, options=opts, config=game.parse_config(config),
                          seats=[None] * seats, version=1)
        tbl.seat_bots(table, opts.get("bots", 0))
        ids = itertools.count(1)
        # fair deals, as the server deals them, from seeds of our own generator
        self.core = RoomCore(game, table, new_id=lambda: f"x{next(ids)}", rng=random.Random(rng.getrandbits(64)),
                             new_seed=lambda: f"{self.rng.getrandbits(256):064x}")
        self.views = Views()
        self.view = RoomView(game, table, self.views)
        self.delivery = Delivery(NODE, self.views.sessions, self.views, _no_other_process)  # type: ignore[arg-type]
        self.know = Knowledge()
        self.now = START_MS
        self.viewers: list[Viewer] = []
        self._conns = itertools.count(1)
        self._seqs = itertools.count(1)
        self.hands = 0
        self.changes = 0
        self.entries: list[Entry] = []  # the room's stream since the last hand started

    # --- what the room needs from outside ------------------------------------------------

    def _deck(self, table: tbl.Table) -> tuple[list[int], str]:
        """The deck of the hand just dealt (from its seeds) and its server seed."""
        fair = table.fair
        assert fair is not None
        deck = fairness.derive_deck(fair["server_seed"], table.room, table.hand_no,
                                    [s["seed"] for s in fair["seeds"]], fair["deck_size"])
        return deck, fair["server_seed"]

    # --- delivering ------------------------------------------------------------------------

    def received(self, viewer: Viewer, msg: dict[str, Any]) -> None:
        """A message the server sends ``viewer``: scan it with what the rules let its
        player know once the change being shown (if any) is known. An ``update`` is
        scanned as what a client makes of it: its events and the patched snapshot (so
        whatever its patch carries is scanned)."""
        for m in viewer.follower.expand(msg):
            if m["t"] == "gap":
                raise AssertionError(f"an update {viewer.player_id} cannot apply: {msg}")
            self.scanner.check(viewer.player_id, self._seat_label(viewer), m, self.know)
            if m.get("t") == "room":
                viewer.latest = m

    def _seat_label(self, viewer: Viewer) -> str:
        seat = tbl.seat_of(self.core.table, viewer.player_id)
        return "spectator" if seat is None else f"seat{seat}"

    def apply(self, change: Change) -> None:
        """What the actor does with a change once Redis stored it: adopt it, show it to
        the viewers (all its messages go out together, so they are scanned with what
        the whole change reveals), complete its transfers."""
        self.core.stored(change)
        if change.debit is not None:
            self.core.buy_in_closed(change.debit.xid)
        self._learn(change)
        self.view.table = change.table
        self.delivery.change(self.view, change.events, change.answers)
        for payout in change.payouts:
            self.core.paid_out(payout.xid)
            for v in self.viewers:
                if v.player_id == payout.player and v.id in self.view.viewers:
                    v.send(left_message(self.core.room, payout, 10_000))
        self.changes += 1
        self._ask_history(change)

    def _ask_history(self, change: Change) -> None:
        """Keep the change in the room's stream; while a hand is under way, after every
        :data:`HISTORY_EVERY` th change one viewer (each in turn) asks for the ``history``,
        whose ``current`` tells that hand so far (every change would cost the scan as much
        again: each reply tells the whole hand)."""
        if any(e.get("type") == "hand_started" for e in change.events):
            self.entries = []
        if change.events:
            self.entries.append(Entry(f"{self.now}-{self.changes}", change.table.version, change.events))
        table = self.core.table
        if not tbl.playing(table) or not self.viewers or self.changes % HISTORY_EVERY:
            return
        viewer = self.viewers[self.changes // HISTORY_EVERY % len(self.viewers)]
        reply = history_reply(split_hands(self.entries), viewer.player_id, self.game.name, table.room, 10,
                              table.hand_no)
        viewer.send(reply)

    def _learn(self, change: Change) -> None:
        """What the change's events reveal, by the rules; a new hand starts afresh."""
        self.know.next_seed = change.table.next_seed
        for event in change.events:
            if event.get("type") == "hand_started":
                self.know = Knowledge(next_seed=change.table.next_seed)
                deck, seed = self._deck(change.table)
                self.know.start(secrets_of(self.game.name, event["hand_no"], change.table.hand, deck, seed))
            elif event.get("type") == "hand_ended":
                self.hands += 1
            self.events[str(event.get("type"))] += 1
            reveal(self.know, event)

    def command(self, viewer: Viewer, make: Callable[[Origin], Any]) -> None:
        """Send a request from ``viewer`` to the room and deliver the outcome."""
        seq = next(self._seqs)
        origin = Origin(NODE, viewer.id, seq, seq, viewer.player_id, viewer.name)
        self.views.sessions.pending[(viewer.id, seq)] = viewer
        out = self.core.handle(make(origin), self.now)
        if isinstance(out, Reply):
            self.views.sessions.pending.pop((viewer.id, seq), None)
            viewer.send(out.msg)
        else:
            self.apply(out)

    # --- people --------------------------------------------------------------------------

    def new_viewer(self) -> Viewer:
        conn = next(self._conns)
        viewer = Viewer(conn, f"p{conn}", self.rng.choice(bots.NAMES), self)
        self.viewers.append(viewer)
        return viewer

    def spectate(self, viewer: Viewer) -> None:
        """Start watching, as the lobby's ``spectate`` does: watch, then the snapshot."""
        self.views.watch(self.view, viewer)
        self.view.send_snapshot(viewer, "spectate")

    def seated(self) -> list[tuple[int, Viewer]]:
        out = []
        for v in self.viewers:
            seat = tbl.seat_of(self.core.table, v.player_id)
            if seat is not None:
                out.append((seat, v))
        return out

    def open_seats(self) -> list[int]:
        """Free seats a newcomer may take now: any, or with ``reseat`` off, between hands,
        only seats nobody was dealt into in the last hand."""
        t = self.core.table
        free = [i for i, s in enumerate(t.seats) if s is None]
        if self.reseat or t.hand is None or tbl.playing(t):
            return free
        return [i for i in free if i >= len(t.hand.stacks) or t.hand.stacks[i] is None]

    def join(self, seat: int | None = None) -> None:
        """Someone takes a free seat: a former player still watching, or a newcomer."""
        open_ = self.open_seats()
        if not open_ or (seat is not None and seat not in open_):
            return
        if seat is None and not self.reseat:
            seat = open_[0]
        sitting = {v.player_id for _, v in self.seated()}
        idle = [v for v in self.viewers if v.player_id not in sitting and v.id in self.view.viewers]
        viewer = self.rng.choice(idle) if idle and self.rng.random() < 0.5 else self.new_viewer()
        buy_in = self.rng.choice((None, 60, 200, 1000, 5000))
        self.command(viewer, lambda o: JoinCommand(o, seat, buy_in))

    def _trim_watchers(self) -> None:
        """Former players beyond :data:`WATCHERS` stop watching (the spectator stays)."""
        sitting = {v.player_id for _, v in self.seated()}
        idle = [v for v in self.view.viewers.values() if v.player_id not in sitting and v is not self.viewers[0]]
        for v in idle[:max(0, len(idle) + 1 - WATCHERS)]:
            self.view.viewers.pop(v.id, None)

    def churn(self) -> None:
        """Between hands: leave, sit out, sit in, join free seats."""
        rng = self.rng
        self._trim_watchers()
        for _, v in self.seated():
            roll = rng.random()
            info = self.core.table.seats[tbl.seat_of(self.core.table, v.player_id)]
            if roll < 0.07:
                self.command(v, LeaveCommand)
                if rng.random() < 0.3:  # and stops watching
                    self.view.viewers.pop(v.id, None)
            elif roll < 0.09 and info is not None and not info.sitting_out:
                self.command(v, SitOutCommand)
            elif info is not None and info.sitting_out and roll < 0.5:
                self.command(v, SitInCommand)
        free = [i for i, s in enumerate(self.core.table.seats) if s is None]
        for seat in free:
            if rng.random() < 0.6:
                self.join(seat if rng.random() < 0.5 else None)

    # --- playing -------------------------------------------------------------------------

    def human_to_act(self) -> Viewer | None:
        t = self.core.table
        if not tbl.playing(t) or t.hand.to_act is None:
            return None
        info = t.seats[t.hand.to_act]
        if info is None or info.bot:
            return None
        return next((v for v in self.viewers if v.player_id == info.player), None)

    def act(self, viewer: Viewer) -> bool:
        """``viewer`` acts on its own latest snapshot; False if it has nothing to do."""
        snap = viewer.latest
        if snap is None or snap.get("view") is None or snap.get("version") != self.core.table.version:
            return False
        action = bots.decide(self.game.name, viewer.strategy, snap["view"], self.rng)
        if action is None:
            return False
        self.command(viewer, lambda o: ActCommand(o, action, f"a{snap['version']}"))
        return True

    def chat(self) -> None:
        """Someone says a line: a seated player, or the spectator (refused unless the room
        lets spectators talk): the chat events go through the same scan as the rest."""
        seated = self.seated()
        speaker = self.rng.choice(seated)[1] if seated and self.rng.random() < 0.8 else self.viewers[0]
        text = self.rng.choice(CHAT_LINES)
        self.command(speaker, lambda o: SayCommand(o, text, spectator=speaker.id in self.view.viewers))

    def step(self) -> bool:
        """One thing happens; False when nothing could."""
        if self.rng.random() < CHAT_SHARE:
            self.chat()  # not counted as something happening: talk does not move a stuck room
        before = self.core.table.version
        if not tbl.playing(self.core.table):
            self.churn()
        human = self.human_to_act()
        roll = self.rng.random()
        if human is not None and roll < 0.97:
            if roll < 0.008:
                self.command(human, LeaveCommand)  # mid-hand: the seat is kept until the hand ends
            elif self.act(human):
                return True
        wake = self.core.wake_ms()
        if wake is None:
            if not tbl.playing(self.core.table):
                self._unstick()
            return self.core.table.version != before
        self.now = max(self.now, wake)
        change = self.core.due(self.now)
        if change is not None:
            self.apply(change)
        return self.core.table.version != before

    def _unstick(self) -> None:
        """No hand can start: fill a free seat, or free one (stacks too short to deal)."""
        free = [i for i, s in enumerate(self.core.table.seats) if s is None]
        if free:
            if self.open_seats():
                self.join(self.open_seats()[0])
            else:
                self.stuck = True  # only seats of the last hand are free, and reseating is off
            return
        for _, v in self.seated():
            info = self.core.table.seats[tbl.seat_of(self.core.table, v.player_id)]
            if info is not None and info.sitting_out:
                self.command(v, SitInCommand)
                return
        seated = self.seated()
        if seated:
            self.command(self.rng.choice(seated)[1], LeaveCommand)

    def play(self, hands: int) -> int:
        """Play until ``hands`` hands have ended (or the room is stuck); returns the count."""
        self.spectate(self.new_viewer())
        idle = 0
        while self.hands < hands and idle < STUCK_STEPS and not self.stuck:
            idle = 0 if self.step() else idle + 1
        return self.hands


# --- many rooms of one game ---------------------------------------------------------------------


def room_setup(game: Game, rng: random.Random) -> dict[str, Any]:
    """Seats, bot seats and hand options for one room of ``game``: varied, small stakes."""
    if game.name == "holdem":
        blinds = rng.choice(((1, 2), (5, 10), (25, 50)))
        return {"seats": rng.randint(2, 6), "bots_": int(rng.random() < 0.3),
                "config": {"small_blind": blinds[0], "big_blind": blinds[1], "ante": rng.choice((0, 0, 1))}}
    if game.name == "zhajinhua":
        ante = rng.choice((1, 5, 10))
        return {"seats": rng.randint(2, 5), "bots_": int(rng.random() < 0.3), "config": {
            "ante": ante, "max_stake": ante * rng.choice((4, 10)), "compare_after_rounds": rng.randint(0, 2),
            "compare_cost_multiplier": rng.choice((1, 2)), "max_rounds": rng.choice((2, 4, 20)),
            "all_in": rng.choice(("compare_all", "fold_only")), "timeout": rng.choice(("fold", "call_blind")),
            "a23": rng.choice(("lowest", "second")), "special_235": rng.choice(("off", "offsuit", "rainbow")),
            "order": rng.choice(("common", "probability")), "suit_tiebreak": rng.random() < 0.5}}
    return {"seats": 3, "bots_": rng.choice((0, 0, 1, 2)), "config": {
        "bidding": rng.choice(("score", "rob")), "stake": rng.choice((1, 5)),
        "max_multiplier": rng.choice((0, 8))}}


@dataclass
class GameScan:
    """The leak scan of one game: hands, rooms, messages and what was found."""

    game: str
    scanner: Scanner
    hands: int = 0
    rooms: int = 0
    changes: int = 0
    events: Counter[str] = field(default_factory=Counter)

    @property
    def messages(self) -> int:
        return self.scanner.messages

    @property
    def violations(self) -> list[Violation]:
        return self.scanner.violations


def scan_game(game: Game, hands: int, seed: int, per_room: int = 200, reseat: bool = True) -> GameScan:
    """Play at least ``hands`` hands of ``game``, rooms of up to ``per_room`` hands each,
    scanning every message (``reseat``: see :class:`ScanRoom`)."""
    result = GameScan(game.name, Scanner(game.name))
    rng = random.Random(seed)
    while result.hands < hands:
        setup = room_setup(game, rng)
        room = ScanRoom(game, f"r-scan{result.rooms:04d}", random.Random(rng.getrandbits(64)), result.scanner,
                        reseat=reseat, **setup)
        result.hands += room.play(min(per_room, hands - result.hands))
        result.rooms += 1
        result.changes += room.changes
        result.events.update(room.events)
    return result
