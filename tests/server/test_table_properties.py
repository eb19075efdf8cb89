"""Property: whatever players do at a table, chips are conserved and seats stay consistent."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import IllegalAction
from server.edge.protocol import ProtocolError
from server.games import GAMES
from server.room import table as tbl

from .highcard import GAME as HIGHCARD

OPTIONS = {"name": "t", "action_seconds": 1.0, "between_hands_seconds": 0.0,
           "buy_in_min": 1, "buy_in_max": 500, "buy_in_default": 100}

ops = st.lists(st.tuples(
    st.sampled_from(["sit", "leave", "sit_out", "sit_in", "act", "timeout", "start"]),
    st.integers(0, 5),  # player / seat
    st.integers(0, 600),  # buy-in or amount
), max_size=60)


def run(game, seats: int, script, seed: int) -> None:
    rng = random.Random(seed)
    t = tbl.Table(room="r", game=game.name, options=dict(OPTIONS, seats=seats),
                  config=game.parse_config(None), seats=[None] * seats)
    wallet_moves = 0  # chips that went from wallets to the table, net
    now = 0
    for op, who, n in script:
        now += 100
        player = f"p{who}"
        seat = tbl.seat_of(t, player)
        try:
            if op == "sit":
                tbl.sit(t, player, player, None, n)
                wallet_moves += n
            elif op == "leave" and seat is not None:
                pending, stack, events = tbl.leave(t, seat)
                wallet_moves -= stack
            elif op == "sit_out" and seat is not None:
                tbl.sit_out(t, seat, 0)
            elif op == "sit_in" and seat is not None:
                tbl.sit_in(t, seat)
            elif op == "act" and tbl.playing(t) and seat is not None:
                legal = game.legal_to_wire(game.legal_actions(t.hand, seat))
                action = game.timeout_action(t.hand, t.hand.to_act) if legal is None else (
                    {"type": "bet", "amount": n} if game is HIGHCARD else game.timeout_action(t.hand, seat))
                events = tbl.act(t, game, seat, action, now)
                wallet_moves -= sum(e["stack"] for e in events if e["type"] == "left")
            elif op == "timeout" and tbl.playing(t) and t.hand.to_act is not None:
                events = tbl.play_for(t, game, now, "timeout")
                wallet_moves -= sum(e["stack"] for e in events if e["type"] == "left")
            elif op == "start" and tbl.can_start(t, game):
                deck = list(range(game.deck_size))
                rng.shuffle(deck)
                before = tbl.to_dict(t, game)
                try:
                    events = tbl.start_hand(t, game, deck, now)
                except ValueError:  # the engine may refuse the seats (e.g. stacks below the ante)
                    assert tbl.to_dict(t, game) == before
                    continue
                wallet_moves -= sum(e["stack"] for e in events if e["type"] == "left")
        except (ProtocolError, IllegalAction):
            pass
        on_table = sum(s.stack for s in t.seats if s is not None)
        assert on_table == wallet_moves
        players = [s.player for s in t.seats if s is not None]
        assert len(players) == len(set(players))
        if tbl.playing(t):
            live = sum(x for x in t.hand.stacks if x is not None)
            assert live <= on_table
        assert all(s.stack >= 0 for s in t.seats if s is not None)


@settings(max_examples=60, deadline=None)
@given(script=ops, seed=st.integers(0, 2**32))
def test_highcard_tables_conserve_chips(script, seed):
    run(HIGHCARD, 4, script, seed)


@settings(max_examples=25, deadline=None)
@given(script=ops, seed=st.integers(0, 2**32), name=st.sampled_from(sorted(GAMES)))
def test_real_game_tables_conserve_chips(script, seed, name):
    game = GAMES[name]
    run(game, min(game.max_players, 3), script, seed)
