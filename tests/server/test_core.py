"""The room core on its own: commands and times in, changes and replies out.

No Redis, no sockets, no clock: the tests play the actor's part by hand (``stored``
after a change, ``buy_in_closed`` / ``paid_out`` after a transfer step)."""

from __future__ import annotations

import itertools
import random

from server.room import table as tbl
from server.room.core import (
    ActCommand,
    AddBotCommand,
    Answer,
    Change,
    JoinCommand,
    LeaveCommand,
    Origin,
    Reply,
    RoomCore,
    SettleCommand,
    SitInCommand,
    SitOutCommand,
    command_from_wire,
    command_to_wire,
    lobby_summary,
)

from .highcard import GAME

OPTIONS = {
    "name": "t", "seats": 2, "action_seconds": 10.0, "between_hands_seconds": 2.0,
    "buy_in_min": 10, "buy_in_max": 1000, "buy_in_default": 100,
}


def core(seats: int = 2) -> RoomCore:
    table = tbl.Table(room="r-1", game="highcard", options=dict(OPTIONS, seats=seats),
                      config={"ante": 10, "max_bet": 100}, seats=[None] * seats, version=1)
    ids = (f"x{i}" for i in itertools.count(1))
    return RoomCore(GAME, table, deck=lambda n: list(range(n)), new_id=lambda: next(ids), rng=random.Random(1))


_seq = itertools.count(1)


def origin(player: str, node: str = "n-a") -> Origin:
    return Origin(node, 7, next(_seq), f"ref-{player}", player, player.upper())


def store(c: RoomCore, out: Change | Reply) -> Change:
    assert isinstance(out, Change), out
    c.stored(out)
    return out


def seated(c: RoomCore) -> None:
    for p in ("a", "b"):
        ch = store(c, c.handle(JoinCommand(origin(p)), 0))
        c.buy_in_closed(ch.debit.xid)


def test_a_join_is_a_change_with_a_buy_in_to_take_first_and_the_snapshot_as_answer():
    c = core()
    o = origin("a")
    out = c.handle(JoinCommand(o, seat=1, buy_in=300), now=0)
    assert isinstance(out, Change) and out.kind == "join"
    assert out.debit.player == "a" and out.debit.amount == 300 and out.debit.xid == "x1"
    assert out.answers == [Answer(o, "room")]
    assert out.table.version == 2 and out.table.seats[1].player == "a" and out.table.xin == ["x1"]
    assert c.table.version == 1 and c.table.seats == [None, None]  # nothing changes until stored
    c.stored(out)
    assert c.table is out.table


def test_a_refused_request_is_a_reply_naming_the_room_and_changes_nothing():
    c = core()
    seated(c)
    before = c.table
    o = origin("c")
    out = c.handle(JoinCommand(o), 0)
    assert out == Reply(o, {"t": "error", "code": "room_full", "message": "every seat is taken",
                            "ref": o.ref, "room": "r-1"})
    out = c.handle(ActCommand(origin("c"), {"type": "fold"}, "1"), 0)
    assert out.msg["code"] == "not_seated"
    out = c.handle(ActCommand(origin("a"), {"type": "fold"}, "1"), 0)
    assert out.msg["code"] == "no_hand"
    assert c.table is before


def test_the_next_hand_is_due_when_enough_players_sit_and_uses_the_given_deck():
    c = core()
    seated(c)
    assert c.wake_ms() == 0  # no pause before the first hand
    start = store(c, c.due(now=1_000))
    assert start.kind == "start" and start.events[0]["type"] == "hand_started"
    assert [e["card"] for e in start.events if e["type"] == "deal"] == [0, 1]  # the deck passed in
    assert c.table.deadline_ms == 1_000 + 10_000 and c.wake_ms() == 11_000
    assert c.due(now=10_999) is None
    timeout = store(c, c.due(now=11_000))  # the clock ran out: the game's timeout action
    assert timeout.kind == "timeout" and timeout.events[0] == {"type": "timed_out", "seat": 1,
                                                               "action": {"type": "fold"}}


def test_an_action_is_answered_with_an_ack_and_a_resent_id_gets_the_same_version():
    c = core()
    seated(c)
    store(c, c.due(0))
    o = origin("b")
    ch = store(c, c.handle(ActCommand(o, {"type": "bet", "amount": 5}, "bet-1"), 5))
    assert ch.answers == [Answer(o, "ack", "bet-1")]
    again = c.handle(ActCommand(origin("b"), {"type": "bet", "amount": 5}, "bet-1"), 6)
    assert isinstance(again, Reply) and again.msg["t"] == "ack" and again.msg["version"] == ch.table.version
    wrong = c.handle(ActCommand(origin("b"), {"type": "bet", "amount": 5}, "bet-2"), 6)
    assert wrong.msg["code"] == "not_your_turn"


def test_a_leave_between_hands_owes_the_stack_to_the_wallet_until_paid():
    c = core()
    seated(c)
    o = origin("a")
    ch = store(c, c.handle(LeaveCommand(o), 0))
    assert ch.answers == []  # the answer is the 'left' message, sent once the wallet is paid
    [p] = ch.payouts
    assert (p.player, p.amount, p.seat, p.reason, p.origin) == ("a", 100, 0, "left", o)
    assert c.table.xout == [tbl.Transfer(p.xid, "a", 100, 0, "left")] and c.unpaid() == [p.__class__(p.xid, "a", 100, 0, "left")]
    c.paid_out(p.xid)
    assert c.unpaid() == []
    nxt = store(c, c.handle(SitOutCommand(origin("b")), 1))  # the next change drops what both sides settled
    assert c.table.xout == [] and nxt.forget == [("a", p.xid)]


def test_a_buy_in_stays_listed_until_its_journal_entry_is_closed_and_settle_says_so():
    c = core()
    ch = store(c, c.handle(JoinCommand(origin("a")), 0))
    xid = ch.debit.xid
    answer = c.handle(SettleCommand(origin("sweeper"), xid), 0)
    assert answer.msg == {"t": "_settled", "xid": xid, "applied": True, "ref": answer.origin.ref}
    assert c.handle(SettleCommand(origin("sweeper"), "x-never"), 0).msg["applied"] is False
    c.buy_in_closed(xid)
    store(c, c.handle(JoinCommand(origin("b")), 0))
    assert xid not in c.table.xin


def test_a_leaving_players_turn_is_due_at_once():
    c = core()
    seated(c)
    store(c, c.due(0))
    to_act = c.table.hand.to_act
    pending = store(c, c.handle(LeaveCommand(origin("ab"[to_act])), 0))
    assert pending.answers[0].data["pending"] is True and pending.payouts == []
    assert c.wake_ms() == 0
    played = store(c, c.due(1))
    assert played.kind == "leaver"


def test_commands_cross_processes_as_plain_data():
    for cmd in (JoinCommand(origin("a"), 1, 500), LeaveCommand(origin("a")), ActCommand(origin("a"), {"type": "fold"}, "z"),
                SettleCommand(origin("s"), "x9")):
        assert command_from_wire(command_to_wire(cmd)) == cmd


def test_the_lobby_summary_leaves_spectators_to_each_process():
    c = core()
    seated(c)
    assert lobby_summary(c.table) == {"room": "r-1", "game": "highcard", "name": "t", "seats": 2, "players": 2,
                                      "playing": False, "bots": 0, "config": {"ante": 10, "max_bet": 100}}


def test_decks_are_permutations_in_uniformly_random_order():
    from collections import Counter

    from server.room import shuffled_deck

    assert sorted(shuffled_deck(52)) == list(range(52)) and sorted(shuffled_deck(54)) == list(range(54))
    orders = Counter(tuple(shuffled_deck(3)) for _ in range(60_000))
    assert len(orders) == 6
    # each of the 6 orders expects 10,000 (sd ~91): 5 sd either way fails one run in millions
    assert all(9_540 < n < 10_460 for n in orders.values()), orders


def test_a_room_nobody_sits_in_closes_and_then_refuses_joins():
    c = core()
    c.close_empty_after_ms = 60_000
    c.table.empty_since_ms = 0  # as created
    assert c.wake_ms() == 60_000 and c.due(59_999) is None
    joined = store(c, c.handle(JoinCommand(origin("a")), 10_000))  # someone sits: no longer empty
    c.buy_in_closed(joined.debit.xid)
    assert c.table.empty_since_ms is None and c.wake_ms() is None
    store(c, c.handle(LeaveCommand(origin("a")), 20_000))  # empty again, from now
    assert c.table.empty_since_ms == 20_000 and c.wake_ms() == 80_000
    closed = store(c, c.due(80_000))
    assert closed.kind == "close" and closed.events == [{"type": "room_closed", "reason": "empty"}]
    assert c.table.closed and c.wake_ms() is None
    assert c.handle(JoinCommand(origin("b")), 90_000).msg["code"] == "no_such_room"


def test_a_seat_sat_out_too_long_is_freed_and_its_stack_goes_home():
    c = core()
    c.stand_up_after_ms = 600_000
    seated(c)
    store(c, c.handle(SitOutCommand(origin("a")), 5_000))
    assert c.table.seats[0].out_since_ms == 5_000
    assert c.wake_ms() == 605_000 and c.due(604_999) is None  # nothing else to do: b cannot play alone
    before = c.table
    freed = store(c, c.due(605_000))
    assert freed.kind == "stand_up"
    assert freed.events == [{"type": "left", "seat": 0, "player": "a", "stack": 100, "reason": "sat_out"}]
    [p] = freed.payouts
    assert (p.player, p.amount, p.seat, p.reason, p.origin) == ("a", 100, 0, "sat_out", None)
    assert c.table.seats[0] is None and c.table.seats[1].player == "b" and c.wake_ms() is None
    # which seats is drawn into the record: a process with another setting replays the same change
    again = RoomCore.replayer(GAME, before).replay(freed.record)
    assert again.events == freed.events and again.table.seats == freed.table.seats
    assert again.table.xout == freed.table.xout


def test_sitting_in_again_keeps_the_seat_and_a_seat_in_a_hand_is_freed_once_it_ends():
    c = core()
    c.stand_up_after_ms = 60_000
    seated(c)
    store(c, c.handle(SitOutCommand(origin("a")), 0))
    assert c.handle(SitOutCommand(origin("a")), 1).events == []  # asked twice: nothing new
    assert c.table.seats[0].out_since_ms == 0
    store(c, c.handle(SitInCommand(origin("a")), 59_000))
    assert c.table.seats[0].out_since_ms is None and c.wake_ms() == 0  # the next hand, not a stand-up
    store(c, c.due(60_000))  # a hand starts; a sits out during it
    assert tbl.playing(c.table)
    store(c, c.handle(SitOutCommand(origin("a")), 61_000))
    while tbl.playing(c.table):  # a's turns are played for it at once; b's clock is waited out
        assert tbl.overdue_sitters(c.table, 10**9, c.stand_up_after_ms) == []  # not during the hand
        store(c, c.due(c.wake_ms()))
    assert c.wake_ms() == 121_000
    assert store(c, c.due(121_000)).kind == "stand_up" and c.table.seats[0] is None


def test_without_the_setting_a_seat_may_sit_out_for_good():
    c = core()
    seated(c)
    store(c, c.handle(SitOutCommand(origin("a")), 0))
    assert c.wake_ms() is None and c.due(10**12) is None


def test_a_player_alone_adds_a_bot_and_a_hand_can_start():
    c = core(seats=3)
    joined = store(c, c.handle(JoinCommand(origin("a")), 0))
    c.buy_in_closed(joined.debit.xid)
    assert c.wake_ms() is None  # alone: no hand
    o = origin("a")
    added = store(c, c.handle(AddBotCommand(o), 1))
    assert added.kind == "add_bot" and added.answers == [Answer(o, "room")]
    assert added.events == [{"type": "joined", "seat": 1, "player": "bot-r-1-1", "name": "Bot Ada",
                             "stack": 100, "bot": True}]
    assert added.granted == 100 and added.debit is None  # new chips, from no wallet
    assert c.wake_ms() == 0  # a hand is due (no pause before the first)
    second = store(c, c.handle(AddBotCommand(origin("a")), 2))
    assert second.events[0]["seat"] == 2 and second.events[0]["name"] != "Bot Ada"
    assert c.handle(AddBotCommand(origin("a")), 3).msg["code"] == "room_full"
    assert c.handle(AddBotCommand(origin("z")), 3).msg["code"] == "not_seated"
    assert command_from_wire(command_to_wire(AddBotCommand(o))) == AddBotCommand(o)
