"""What a room change costs without any I/O: the room core, packing what a commit stores,
and rendering every viewer's update, for a heads-up Hold'em room played by two random
players (no sockets, no Redis, no event loop); ``--game`` plays another game instead
(three random players).

    .venv/bin/python bench/core_bench.py [--actions N] [--game G] [--profile]

It prints CPU microseconds per action (a hand's automatic steps, such as the deal, are
counted with the actions around them), split into the core (``RoomCore.handle`` and
``due``), the store's packing (the record, the events, and a snapshot when the change
needs one) and the views (``RoomView`` rendering each player's update). A fourth figure,
``follow``, is what each *other* process showing the room pays on top of rendering its own
viewers' updates: the change's record made again on its copy of the table
(``server.room.log.replay``) and checked against the owner's events, as
``Views._on_change`` does. The rest of a served action is I/O: frames read and written, the Redis round trip, asyncio. With
``--profile`` it prints cProfile's top functions instead.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import secrets
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import bots  # noqa: E402
from server.games import GAMES  # noqa: E402
from server.room import table as tbl  # noqa: E402
from server.room.core import ActCommand, Change, JoinCommand, LeaveCommand, Origin, RoomCore  # noqa: E402
from server.room.delivery import Delivery  # noqa: E402
from server.room.log import needs_snapshot, replay  # noqa: E402
from server.room.options import parse_room_options  # noqa: E402
from server.room.view import RoomView  # noqa: E402
from server.store import pack, unpack  # noqa: E402

GAME = GAMES["holdem"]
PLAYERS = ("p1", "p2")
OTHER_PLAYERS = ("p1", "p2", "p3")  # at the other games' tables


class Viewer:
    """A connection as a view sees it: an id, a player, and a ``send`` that only counts."""

    def __init__(self, conn: int, player: str) -> None:
        self.id, self.player_id, self.sent = conn, player, 0

    def send(self, msg: dict[str, Any]) -> None:
        self.sent += 1


class Process:
    """What a view and the delivery ask of their process: its node id, who is online
    (everyone), and its connections (none holds a request: they are all elsewhere)."""

    node = "bench"

    def is_online(self, player: str) -> bool:
        return True

    def claim(self, conn: int, seq: int) -> None:
        return None

    async def send_to_node(self, node: str, message: dict[str, Any]) -> bool:
        return True


class Bench:
    def __init__(self, seed: int = 1, game: str = GAME.name) -> None:
        self.game = GAMES[game]
        self.players = PLAYERS if game == GAME.name else OTHER_PLAYERS
        seats = len(self.players)
        options = parse_room_options(self.game, {"seats": seats})
        table = tbl.Table(room="r-bench", game=game, options=options, config=self.game.parse_config(None),
                          seats=[None] * seats, version=1, empty_since_ms=0, next_seed=secrets.token_hex(32))
        self.rng = random.Random(seed)
        self.core = RoomCore(self.game, table, new_id=lambda: f"x{self.rng.getrandbits(32):08x}", rng=self.rng,
                             close_empty_after_ms=3_600_000)
        process = Process()
        self.view = RoomView(self.game, table, process)  # type: ignore[arg-type]
        # the answers are for requests of another process: only the updates are rendered here
        self.delivery = Delivery(process.node, process, process, process.send_to_node)  # type: ignore[arg-type]
        self.now = 1_000
        self.seq = 0
        self.snapshot_version = 1
        self.actions = 0
        self.seconds = {"core": 0.0, "store": 0.0, "views": 0.0, "follow": 0.0}
        self.follower = table  # another process's copy of the table, made by replaying records
        for player in self.players:
            self.store(self.decide(lambda p=player: self.core.handle(JoinCommand(self.origin(p)), self.now)))
        for i, player in enumerate(self.players):
            viewer = Viewer(i, player)
            self.view.viewers[viewer.id] = viewer  # type: ignore[assignment]
            self.view.send_snapshot(viewer)  # type: ignore[arg-type]

    def origin(self, player: str) -> Origin:
        self.seq += 1
        return Origin("elsewhere", 1, self.seq, self.seq, player, player.upper())

    def decide(self, step: Any) -> Any:
        start = time.process_time()
        out = step()
        self.seconds["core"] += time.process_time() - start
        return out

    def store(self, change: Change) -> None:
        start = time.process_time()
        if needs_snapshot(self.core.table, change, self.snapshot_version):
            pack(tbl.to_dict(change.table, self.game))
            self.snapshot_version = change.table.version
        record = pack(change.record)
        events = pack(change.events) if change.events else b""
        shown = time.process_time()
        self.core.stored(change)
        if change.debit is not None:
            self.core.buy_in_closed(change.debit.xid)
        for payout in change.payouts:
            self.core.paid_out(payout.xid)
        self.view.table = change.table
        self.delivery.change(self.view, change.events, change.answers)
        end = time.process_time()
        self.seconds["store"] += shown - start
        self.seconds["views"] += end - shown
        self.follow(record, events, change.table.version)

    def follow(self, record: bytes, events: bytes, version: int) -> None:
        """What a process that follows the room does with the change's record (its
        viewers' updates cost what ``views`` does here)."""
        start = time.process_time()
        followed = replay(self.game, self.follower, unpack(record), version)
        if (pack(followed.events) if followed.events else b"") != events:
            raise SystemExit(f"version {version} replayed with other events than its owner's")
        self.follower = followed.table
        self.seconds["follow"] += time.process_time() - start

    def rebuy(self) -> None:
        """Seat again a player who went bust (between hands)."""
        for player in self.players:
            seat = tbl.seat_of(self.core.table, player)
            if seat is None:
                out = self.decide(lambda p=player: self.core.handle(JoinCommand(self.origin(p)), self.now))
                if isinstance(out, Change):
                    self.store(out)

    def stand_up(self) -> None:
        """Every player leaves (between hands), to buy in again."""
        for player in self.players:
            if tbl.seat_of(self.core.table, player) is not None:
                out = self.decide(lambda p=player: self.core.handle(LeaveCommand(self.origin(p)), self.now))
                if isinstance(out, Change):
                    self.store(out)

    def run(self, actions: int) -> None:
        while self.actions < actions:
            self.now += 1
            change = self.decide(lambda: self.core.due(self.now))
            if change is not None:
                self.store(change)
                continue
            hand = self.core.table.hand
            if hand is None or hand.to_act is None or not tbl.playing(self.core.table):
                self.rebuy()
                wake = self.core.wake_ms()
                if wake is None:  # no hand can be dealt (stacks short of a Zha Jin Hua ante)
                    self.stand_up()
                self.now = max(self.now + 1, wake or 0)
                continue
            seat = hand.to_act
            player = self.core.table.seats[seat].player
            action = bots.decide(self.game.name, "random", self.game.view(hand, seat), self.rng)
            if action is None:  # nothing this seat may do: its clock runs out
                self.now = max(self.now + 1, self.core.wake_ms() or 0)
                continue
            act = ActCommand(self.origin(player), action, f"a{self.actions}")
            out = self.decide(lambda a=act: self.core.handle(a, self.now))
            if not isinstance(out, Change):
                raise SystemExit(f"the core refused a legal action: {out.msg}")
            self.actions += 1
            self.store(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--actions", type=int, default=20_000, help="actions to play (default 20,000)")
    parser.add_argument("--game", choices=sorted(GAMES), default=GAME.name,
                        help=f"the game to play (default {GAME.name}, heads-up; the others with three players)")
    parser.add_argument("--profile", action="store_true", help="print cProfile's top functions instead")
    args = parser.parse_args()
    bench = Bench(game=args.game)
    if args.profile:
        profile = cProfile.Profile()
        profile.runcall(bench.run, args.actions)
        pstats.Stats(profile).sort_stats("tottime").print_stats(25)
        return
    bench.run(args.actions)
    per = {k: v / bench.actions * 1e6 for k, v in bench.seconds.items()}
    table = "heads-up Hold'em" if args.game == GAME.name else f"{len(bench.players)}-player {bench.game.title}"
    print(f"{table}, random players, {bench.actions:,} actions "
          f"({bench.core.table.hand_no:,} hands, {bench.core.table.version:,} changes):")
    owner = per["core"] + per["store"] + per["views"]
    print(f"  CPU per action: {owner:.0f} µs = core {per['core']:.0f} + store packing "
          f"{per['store']:.0f} + views {per['views']:.0f}")
    print(f"  each other process showing the room: follow {per['follow']:.0f} µs (replay and check) "
          f"+ its viewers' updates")


if __name__ == "__main__":
    main()
