"""Changes stored as records: replaying a change's record on the table it was made from
gives exactly the table it made, in every game, for every kind of change; loading a room
is its last snapshot with the records after it replayed."""

from __future__ import annotations

import random
import secrets

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import bots
from server.games import GAMES
from server.room import table as tbl
from server.room.core import (
    ActCommand,
    AutoPlayCommand,
    Change,
    JoinCommand,
    LeaveCommand,
    Origin,
    Reply,
    RoomCore,
    SetSeedCommand,
    ShowCommand,
    SitInCommand,
    SitOutCommand,
)
from server.room.log import RoomLogError, current_table, needs_snapshot, replay
from server.room.options import parse_room_options
from server.store import RoomLog, pack, unpack


def new_core(game_name: str, seats: int, bot_seats: int, seed: int, config: dict | None = None) -> RoomCore:
    game = GAMES[game_name]
    given = {"seats": seats, "bots": bot_seats, "bot_delay_seconds": 0.5}
    if game_name == "holdem":
        given["time_bank_seconds"] = 5  # clocks that run out go on from the bank
    options = parse_room_options(game, given)
    table = tbl.Table(room="r-log", game=game_name, options=options, config=game.parse_config(config),
                      seats=[None] * seats, version=1, empty_since_ms=0, next_seed=secrets.token_hex(32))
    tbl.seat_bots(table, bot_seats)
    ids = random.Random(seed)
    return RoomCore(game, table, new_id=lambda: f"x{ids.getrandbits(32):08x}", rng=random.Random(seed),
                    close_empty_after_ms=3_600_000)


class Session:
    """Plays a room by hand, as the actor would, and checks every change against its record."""

    def __init__(self, core: RoomCore, rng: random.Random, may_close: bool = False) -> None:
        self.core = core
        self.rng = rng
        self.may_close = may_close
        self.now = 1_000
        self.seq = 0
        self.changes: list[tuple[tbl.Table, Change]] = []
        for player in ("p1", "p2"):
            self.apply(core.handle(JoinCommand(self.origin(player)), self.now))

    def origin(self, player: str) -> Origin:
        self.seq += 1
        return Origin("n-a", 3, self.seq, self.seq, player, player.upper())

    def apply(self, out: Change | Reply | None) -> None:
        if not isinstance(out, Change):
            return
        before = self.core.table
        record = unpack(pack(out.record))  # as it travels: through msgpack
        again = replay(self.core.game, before, record, out.table.version)
        game = self.core.game
        assert tbl.to_dict(again.table, game) == tbl.to_dict(out.table, game), out.kind
        assert again.events == out.events and again.kind == out.kind
        assert again.payouts == out.payouts and again.debit == out.debit and again.granted == out.granted
        self.changes.append((before, out))
        self.core.stored(out)
        # the actor's transfer steps, done at once or later
        if out.debit is not None and self.rng.random() < 0.7:
            self.core.buy_in_closed(out.debit.xid)
        for p in out.payouts:
            if self.rng.random() < 0.7:
                self.core.paid_out(p.xid)

    def step(self) -> None:
        core, rng = self.core, self.rng
        t = core.table
        humans = ["p1", "p2", "p3"]
        choice = rng.random()
        player = rng.choice(humans)
        seat = tbl.seat_of(t, player)
        if choice < 0.15 and seat is None:
            self.apply(core.handle(JoinCommand(self.origin(player), buy_in=rng.choice([None, 50, 400])), self.now))
        elif choice < 0.2 and seat is not None:
            self.apply(core.handle(LeaveCommand(self.origin(player)), self.now))
        elif choice < 0.25 and seat is not None:
            cmd = (SitOutCommand, SitInCommand, ShowCommand)[rng.randrange(3)](self.origin(player))
            self.apply(core.handle(cmd, self.now))
        elif choice < 0.27 and seat is not None:
            self.apply(core.handle(SetSeedCommand(self.origin(player), secrets.token_hex(8)), self.now))
        elif choice < 0.31 and seat is not None:  # auto-play asked for, taken back, or set on a disconnect
            if rng.random() < 0.3:
                cmd = AutoPlayCommand(Origin("n-a", 0, self.seq, None, "", ""), True, player, "disconnected")
            else:
                cmd = AutoPlayCommand(self.origin(player), rng.random() < 0.6)
            self.apply(core.handle(cmd, self.now))
        elif choice < 0.75 and tbl.playing(t) and t.hand.to_act is not None:
            to_act = t.hand.to_act
            info = t.seats[to_act]
            if info is not None and not info.bot:
                view = core.game.view(t.hand, to_act)
                action = bots.decide(core.game.name, "random", view, rng) or {"type": "nonsense"}
                if rng.random() < 0.05:
                    action = {"type": "raise", "amount": -3}  # refused: no change
                self.apply(core.handle(ActCommand(self.origin(info.player), action, f"a{self.seq}"), self.now))
        else:  # time passes: timers, bots, next hands, closing
            wake = core.wake_ms()
            if wake is not None and (self.may_close or tbl.has_people(t)):
                self.now = max(self.now, wake) + rng.choice([0, 0, 5, 2_000, 40_000])
            else:
                # now and then long enough for an empty room to close
                self.now += 4_000_000 if self.may_close and rng.random() < 0.03 else 100
            self.apply(core.due(self.now))


@pytest.mark.parametrize("game_name", sorted(GAMES))
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), bot_seats=st.integers(0, 2))
def test_every_change_is_made_again_exactly_from_its_record(game_name, seed, bot_seats):
    seats = 3 if game_name == "doudizhu" else 4
    session = Session(new_core(game_name, seats, bot_seats, seed), random.Random(seed))
    for i in range(300):
        session.may_close = i >= 250  # an empty room's closing too, near the end
        session.step()
    assert len(session.changes) > 10


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), bot_seats=st.integers(0, 2))
def test_dou_dizhu_open_hand_and_doubling_are_made_again_exactly_from_their_records(seed, bot_seats):
    config = {"doubling": True, "open_hand": True}
    session = Session(new_core("doudizhu", 3, bot_seats, seed, config), random.Random(seed))

    def reached() -> bool:  # a landlord's open-hand answer, or a doubling answer
        return any(e.get("type") in ("open_hand", "double") or e.get("phase") in ("open", "doubling")
                   for _, change in session.changes for e in change.events)

    for i in range(3000):  # (the deck is random: some hands end with every seat passing)
        session.step()
        if i >= 300 and reached():
            break
    assert reached()


@pytest.mark.parametrize("game_name", sorted(GAMES))
def test_auto_play_and_time_bank_changes_are_made_again_exactly(game_name):
    """The steps auto-play and the time bank add (``auto_play`` asked or set on a
    disconnect, ``auto`` turns: a drawn bot choice in Dou Dizhu, check or fold in the
    betting games, ``time_bank``) are among the changes checked against their records."""
    seats = 3 if game_name == "doudizhu" else 4
    kinds: set[str] = set()
    for seed in range(4):
        session = Session(new_core(game_name, seats, 1, seed), random.Random(seed))
        for _ in range(150):
            session.step()
        core = session.core
        if game_name == "holdem" and _to_a_persons_turn(session):  # the clock runs out: the bank runs
            session.apply(core.due(max(session.now, core.table.deadline_ms)))
        player = _to_a_persons_turn(session)
        if player is not None:  # handed to auto-play on its turn: played at once
            session.apply(core.handle(AutoPlayCommand(session.origin(player), True), session.now))
            session.apply(core.due(session.now))
        kinds |= {c.kind for _, c in session.changes}
    assert {"auto_play", "auto"} <= kinds
    if game_name == "holdem":
        assert "time_bank" in kinds


def _to_a_persons_turn(session: Session) -> str | None:
    """Play on until a person (not auto-played) is to act; returns the player (None: the
    session never got there)."""
    for _ in range(500):
        t = session.core.table
        info = t.seats[t.hand.to_act] if tbl.playing(t) and t.hand.to_act is not None else None
        if info is not None and not (info.bot or info.auto or info.sitting_out or info.leaving):
            return info.player
        session.step()
    return None


def test_loading_replays_the_records_after_the_last_snapshot():
    session = Session(new_core("holdem", 4, 2, 7), random.Random(7))
    while len(session.changes) < 80:
        session.step()
    game = session.core.game
    first, _ = session.changes[10]
    records = [(c.table.version, pack(c.record)) for _, c in session.changes[10:]]
    log = RoomLog(pack(tbl.to_dict(first, game)), first.version, session.core.table.version, records)
    assert tbl.to_dict(current_table(game, log), game) == tbl.to_dict(session.core.table, game)

    gap = RoomLog(log.snapshot, first.version, log.version, records[:5] + records[6:])
    with pytest.raises(RoomLogError):  # a record missing: refused, never a wrong table
        current_table(game, gap)
    short = RoomLog(log.snapshot, first.version, log.version + 1, records)
    with pytest.raises(RoomLogError):
        current_table(game, short)


def test_a_record_on_another_table_is_refused():
    session = Session(new_core("holdem", 4, 2, 3), random.Random(3))
    while len(session.changes) < 40:
        session.step()
    before, change = next((b, c) for b, c in session.changes if c.kind == "act")
    other = tbl.clone(before)
    other.hand = None  # no hand: the action cannot be made again
    with pytest.raises(RoomLogError):
        replay(session.core.game, other, unpack(pack(change.record)), change.table.version)
    with pytest.raises(RoomLogError):  # nor on a table of another version
        replay(session.core.game, before, change.record, change.table.version + 1)


def test_snapshots_at_each_transfer_and_every_so_many_changes():
    session = Session(new_core("zhajinhua", 4, 1, 11), random.Random(11))
    while len(session.changes) < 200:
        session.step()
    since = 1
    for before, change in session.changes:
        whole = needs_snapshot(before, change, since, every=16)
        if change.debit or change.payouts or change.granted or change.forget:
            assert whole, change.kind
        if change.table.xin != before.xin or change.table.xout != before.xout:
            assert whole
        if whole:
            since = change.table.version
        assert change.table.version - since < 16
    kinds = [c.kind for b, c in session.changes if not needs_snapshot(b, c, 0, every=10**9)]
    assert "act" in kinds or "bot" in kinds  # most changes are records only
    assert "start" in kinds  # a deal too: a recovery may replay across hands


async def test_a_room_stored_before_records_loads_and_goes_on(connect, app):
    """Data written before records (a snapshot at every version, no ``snapv``): the next
    commit, a record only, still leaves a room that loads at its new version."""
    from server.room.log import load_room

    from .test_durability import seated_pair

    a, b, room = await seated_pair(connect)
    snap = await b.expect("room", room=room, playing=True)
    keys = app.store.keys
    await app.store.redis.hdel(keys.room(room), "snapv")  # as the previous release left it
    ack = await b.request({"t": "act", "room": room, "action": {"type": "bet", "amount": 3}, "id": "b1"})
    assert ack["t"] == "ack" and ack["version"] == snap["version"] + 1
    assert int(await app.store.redis.hget(keys.room(room), "snapv")) == snap["version"]
    stored = await load_room(app.store, room, app.games)
    assert stored["version"] == ack["version"]
    assert ["b1", ack["version"]] in stored["answers"][b.player]


async def test_a_commit_writes_a_record_and_a_snapshot_only_now_and_then(connect, app):
    from .test_durability import seated_pair

    a, b, room = await seated_pair(connect)
    snap = await b.expect("room", room=room, playing=True)
    keys = app.store.keys
    ack = await b.request({"t": "act", "room": room, "action": {"type": "bet", "amount": 3}, "id": "b1"})
    version, snapv = (int(x) for x in await app.store.redis.hmget(keys.room(room), ["version", "snapv"]))
    # the deal's snapshot (it drops the buy-ins' closed journal ids), not the bet's
    assert version == ack["version"] and snapv == snap["version"]
    [(_, fields)] = await app.store.redis.xrevrange(keys.events(room), count=1)
    assert int(fields[b"v"]) == version and unpack(fields[b"c"])[0] == "act" and b"e" in fields
