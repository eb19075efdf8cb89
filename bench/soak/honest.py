"""Honest players: a few rooms played properly while the fuzzing goes on, so that hostile
frames hit rooms with hands in progress (and so that damage to real play shows).

Each room (Hold'em and Zha Jin Hua with two seats, Dou Dizhu with three) is created by
its first player and every seat is taken by a :class:`HonestPlayer`: the load test's
player (``client_demo.tools.loadtest.players.Player``: it acts when its snapshot says it is
its turn, with an ``engine.bots`` strategy) with a short think time, so that it stays
under the server's default rate limit, and a smaller buy-in, so that a busted player can
buy in again several times from its 10,000 chip grant.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from client_demo.tools.loadtest.players import Player, PlayStats

BUY_IN = 1000
THINK_SECONDS = 0.12  # at most ~8 actions a second per player: under 20 messages/s
SEATS = {"holdem": 2, "zhajinhua": 2, "doudizhu": 3}
#: small stakes, so that BUY_IN lasts (several buy-ins fit in a new player's 10,000 chips)
CONFIG = {"holdem": {"small_blind": 1, "big_blind": 2}, "zhajinhua": {"ante": 1, "max_stake": 4},
          "doudizhu": {"stake": 1}}
ROOM_OPTIONS = {"between_hands_seconds": 0.2, "action_seconds": 30, "buy_in_default": BUY_IN}


class HonestPlayer(Player):
    """A load-test player that buys in with :data:`BUY_IN` and notes what it sees."""

    def __init__(self, url: str, game: str, strategy: str, stats: PlayStats, *, seed: int,
                 honest: set[str]) -> None:
        super().__init__(url, game, strategy, stats, seed=seed, think=THINK_SECONDS)
        self.honest = honest  # every honest player id: anyone else sitting down is noted
        self.player_id: str | None = None
        self.hands = 0
        self.strangers: set[str] = set()
        self.replies: Counter[str] = Counter()

    async def open(self, name: str) -> dict[str, Any]:
        welcome = await super().open(name)
        self.player_id = welcome["player"]
        return welcome

    async def on_message(self, msg: dict[str, Any]) -> None:
        if msg.get("t") == "event" and msg.get("room") == self.room:
            event = msg.get("event") or {}
            if event.get("type") == "hand_ended":
                self.hands += 1
            elif event.get("type") == "joined" and event.get("player") not in self.honest:
                self.strangers.add(str(event.get("player")))
        await super().on_message(msg)

    async def _join_again(self) -> None:
        if self.playing and not self.stopping and self.join_ref is None:
            self.stats.rejoins += 1
            self.join_ref = self.new_ref()
            await self.send({"t": "join", "room": self.room, "buy_in": BUY_IN, "ref": self.join_ref})


@dataclass
class HonestRoom:
    """One room of honest players."""

    game: str
    room: str
    players: list[HonestPlayer]
    hands_before: int = 0
    strangers: set[str] = field(default_factory=set)

    @property
    def hands(self) -> int:
        return self.players[0].hands


async def open_rooms(url: str, games: list[str], stats: PlayStats, strategy: str, seed: int) -> list[HonestRoom]:
    """One honest room per entry of ``games``, every seat taken; play starts at once
    (``stats.go`` is set)."""
    stats.go = True
    honest: set[str] = set()
    rooms = []
    for index, game in enumerate(games):
        players = [HonestPlayer(url, game, strategy, stats, seed=seed + 10 * index + s, honest=honest)
                   for s in range(SEATS[game])]
        await asyncio.gather(*(p.open(f"honest{index}s{s}") for s, p in enumerate(players)))
        honest.update(p.player_id for p in players if p.player_id)
        created = await players[0].request({"t": "create_room", "game": game,
                                            "options": {**ROOM_OPTIONS, "seats": SEATS[game]},
                                            "config": CONFIG[game]})
        for p in players:
            p.room = created["room"]
            p.playing = True
            await p.on_room(await p.request({"t": "join", "room": p.room, "buy_in": BUY_IN}))
        rooms.append(HonestRoom(game, created["room"], players))
    return rooms


async def stop_playing(rooms: list[HonestRoom], timeout: float = 5.0) -> None:
    """Stop acting and let the actions in flight be answered."""
    players = [p for r in rooms for p in r.players]
    for p in players:
        p.stats.go = False
        p.stopping = True
    await asyncio.gather(*(asyncio.wait_for(p.idle.wait(), timeout) for p in players), return_exceptions=True)


async def close_all(rooms: list[HonestRoom]) -> None:
    await asyncio.gather(*(p.close() for r in rooms for p in r.players), return_exceptions=True)
