"""Bots over the network: the :class:`Bot` interface and a runner that plays one in a room.

A bot is any object with ``decide(view, legal) -> action``: ``view`` is the seat's
view from the latest ``room`` snapshot (the engine's ``view`` for that seat), ``legal``
its legal actions in the game's wire form (``view["legal"]``); the result is an
action map (see each game's doc). :func:`play` connects, joins (or creates) a room and
calls the bot whenever it is the bot's turn, until enough hands are played::

    class AlwaysCall(Bot):
        def decide(self, view, legal):
            return {"type": "check"} if legal.get("check") else {"type": "call"}

    stats = asyncio.run(play(AlwaysCall(), "ws://127.0.0.1:8765/ws", game="holdem",
                             create=True, hands=10))

:class:`StrategyBot` wraps a built-in strategy (``engine.bots``, ``smart`` or
``random``) with a seeded random generator.
"""

from __future__ import annotations

import asyncio
import inspect
import random
import sys
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .client import CardroomClient, ConnectionLost, ServerError

Action = dict[str, Any]


def min_players(game: str) -> int:
    """Players a hand of ``game`` needs (a bot stops once fewer are ready after it played):
    the installed game's ``min_players``, 2 for a game not installed here."""
    from engine.registry import installed

    found = installed().get(game)
    return found.min_players if found is not None else 2

#: seconds a table may stay without enough ready players (after a hand) before a bot gives up
SHORT_TABLE_GRACE = 3.0


def ready_players(snapshot: Mapping[str, Any]) -> list[int]:
    """Seats of a ``room`` snapshot that would be dealt into the next hand: taken, not
    sitting out, not leaving, with chips."""
    return [i for i, s in enumerate(snapshot.get("seats") or [])
            if s and not s.get("sitting_out") and not s.get("leaving") and s.get("stack", 0) > 0]


def short_table(snapshot: Mapping[str, Any]) -> str | None:
    """Why no next hand can start at this table (in words), or None when one can."""
    need = min_players(snapshot.get("game") or "")
    seats = [s for s in snapshot.get("seats") or [] if s]
    ready = len(ready_players(snapshot))
    if snapshot.get("playing") or ready >= need:
        return None
    why = []
    out = sum(1 for s in seats if s.get("sitting_out"))
    leaving = sum(1 for s in seats if s.get("leaving"))
    broke = sum(1 for s in seats if not s.get("sitting_out") and not s.get("leaving") and s.get("stack", 0) <= 0)
    if out:
        why.append(f"{out} sitting out")
    if leaving:
        why.append(f"{leaving} leaving")
    if broke:
        why.append(f"{broke} without chips")
    detail = f" ({', '.join(why)})" if why else ""
    return (f"{ready} of {len(seats)} seated player(s) ready{detail}; "
            f"a {snapshot.get('game') or 'hand'} hand needs {need}")


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


class Bot(ABC):
    """Subclass and implement :meth:`decide` (a plain or an ``async`` method)."""

    @abstractmethod
    def decide(self, view: dict[str, Any], legal: dict[str, Any]) -> Action:
        """The action to play now, given the seat's view and its legal actions."""


class StrategyBot(Bot):
    """A strategy of an installed game (its ``Game.bots[name]``, :mod:`engine.bots`) as a :class:`Bot`."""

    def __init__(self, game: str, name: str = "smart", seed: int | None = None) -> None:
        from engine.bots import get_strategy

        self.game = game
        self.name = name
        self.strategy = get_strategy(game, name)
        self.rng = random.Random(seed)

    def decide(self, view: dict[str, Any], legal: dict[str, Any]) -> Action:
        return self.strategy(view, legal, self.rng)


@dataclass
class BotStats:
    """What a bot did in its room."""

    name: str = ""
    room: str | None = None
    seat: int | None = None
    buy_in: int = 0
    stack: int = 0
    hands: int = 0
    actions: int = 0
    rejected: int = 0
    reconnects: int = 0
    errors: list[str] = field(default_factory=list)
    finished: bool = False
    stop_reason: str = ""  # why the bot stopped, in words ("" while playing)

    @property
    def net(self) -> int:
        """Chips won (negative: lost) since sitting down."""
        return self.stack - self.buy_in


def _viewer_seat(view: Mapping[str, Any]) -> int | None:
    seat = view.get("you")
    return view.get("seat") if seat is None else seat


async def run_in_room(bot: Bot | Callable[..., Any], client: CardroomClient, room: str, *,
                      seat: int | None = None, buy_in: int | None = None,
                      hands: int | None = None, stop: asyncio.Event | None = None,
                      on_hand: Callable[[BotStats, dict[str, Any]], None] | None = None,
                      delay: float = 0.0, stats: BotStats | None = None,
                      log: Callable[[str], None] | None = None,
                      joined: dict[str, Any] | None = None,
                      grace: float = SHORT_TABLE_GRACE) -> BotStats:
    """Sit ``bot`` in ``room`` on a connected ``client`` and play.

    Stops after ``hands`` hands the bot was dealt into (``None``: no limit), when
    ``stop`` is set, when the server stands it up (busted), or when, after it played a
    hand, too few players are ready for another one (the others left, busted or sit
    out) for ``grace`` seconds; then leaves the seat (the server frees it when the
    running hand ends). ``stats.stop_reason`` says which. ``on_hand(stats,
    hand_ended_event)`` is called after every hand played. ``delay`` seconds are waited
    before each action (to look human, or to watch). ``log(line)`` is told what the
    bot waits for (a seat, more players) and why it stops. ``joined``: the ``room``
    snapshot of a join already made on ``client`` (then the bot does not join again).
    """
    stats = stats or BotStats(name=client.name or "")
    stats.room = room
    decide = bot.decide if isinstance(bot, Bot) else bot
    say = log or (lambda _line: None)
    snapshot = joined if joined is not None else await client.join(room, seat=seat, buy_in=buy_in)
    stats.seat = snapshot.get("your_seat")
    me = snapshot["seats"][stats.seat] if stats.seat is not None else None
    stats.buy_in = stats.stack = (me or {}).get("stack", 0)
    joined_version = snapshot.get("version", 0)
    dealt_in = False
    min_version = 0  # snapshots older than this are stale (we acted since)
    stop_waiter = asyncio.ensure_future(stop.wait()) if stop is not None else None
    pending: dict[str, Any] | None = snapshot
    short_since: float | None = None  # since when too few players are ready (after a hand)
    waiting_for = ""  # the last "waiting for ..." line logged
    taken_back_at = -1  # the version at which we last asked for our seat back from auto-play
    say(f"{stats.name}: seat {stats.seat} in room {room} with {stats.buy_in} chips")

    async def next_msg() -> dict[str, Any] | None:
        getter = asyncio.ensure_future(client.next_message())
        waiters = {getter} if stop_waiter is None else {getter, stop_waiter}
        timeout = None if short_since is None else max(0.0, short_since + grace - time.monotonic())
        done, _ = await asyncio.wait(waiters, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        if getter in done:
            return getter.result()
        getter.cancel()
        if stop_waiter is not None and stop_waiter in done:
            stats.stop_reason = stats.stop_reason or "stopped"
            return None
        return {"t": "_tick"}

    try:
        while True:
            msg = pending if pending is not None else await next_msg()
            pending = None
            if msg is None:
                stats.stop_reason = stats.stop_reason or "the connection closed"
                break
            t = msg.get("t")
            if short_since is not None and time.monotonic() - short_since >= grace:
                latest = client.rooms.get(room) or {}
                reason = short_table(latest)
                if reason is not None:
                    stats.stop_reason = f"no further hand can start: {reason}"
                    say(f"{stats.name}: stopping, {stats.stop_reason}")
                    break
                short_since = None
            if t == "_tick":
                continue
            if t == "reconnected":
                stats.reconnects += 1
                continue
            if msg.get("room") != room:
                continue
            if t == "event":
                ev = msg.get("event") or {}
                kind = ev.get("type")
                if kind == "hand_started":
                    dealt_in = stats.seat in (ev.get("seats") or [])
                elif kind == "hand_ended":
                    stacks = ev.get("stacks") or []
                    if stats.seat is not None and stats.seat < len(stacks) and stacks[stats.seat] is not None:
                        stats.stack = stacks[stats.seat]
                    if dealt_in:
                        stats.hands += 1
                        dealt_in = False
                        if on_hand is not None:
                            on_hand(stats, ev)
                        if hands is not None and stats.hands >= hands:
                            stats.stop_reason = f"played {stats.hands} hand(s)"
                            break
                continue
            if t == "left" and not msg.get("pending"):
                # the server stood us up (busted, or left elsewhere)
                if msg.get("reason") == "busted" or msg.get("stack") == 0:
                    stats.stop_reason = "busted (no chips left)"
                    stats.stack = 0
                else:
                    stats.stop_reason = "stood up by the server"
                say(f"{stats.name}: {stats.stop_reason}")
                break
            if t != "room":
                continue
            version = msg.get("version", 0)
            if version < joined_version:
                continue  # a snapshot from before the join (e.g. the create_room reply)
            if msg.get("closed"):
                reason = "the match is over" if msg.get("league") else "the room closed"
                stats.stop_reason = stats.stop_reason or reason
                say(f"{stats.name}: {stats.stop_reason}")
                break
            if msg.get("your_seat") is None:
                busted = stats.hands and stats.stack == 0
                stats.stop_reason = stats.stop_reason or ("busted (no chips left)" if busted else "no longer seated")
                say(f"{stats.name}: {stats.stop_reason}")
                break
            if _auto_played(msg) and version > taken_back_at:
                taken_back_at = await _take_back(client, room, msg, stats, say)
            reason = short_table(msg)
            if reason is None:
                short_since = None
            elif stats.hands:
                if short_since is None:
                    short_since = time.monotonic()  # give a sitting-out player a moment
            elif reason != waiting_for:
                waiting_for = reason
                say(f"{stats.name}: waiting for players: {reason}")
            view = msg.get("view")
            if not view or view.get("is_over") or version < min_version:
                continue
            latest = client.rooms.get(room)
            if latest is not None and latest.get("version", 0) > version:
                continue  # a newer snapshot is already queued: act on that one
            legal = view.get("legal")
            if legal is None or view.get("to_act") is None or view.get("to_act") != _viewer_seat(view):
                continue
            if delay:
                await asyncio.sleep(delay)
            action = decide(view, legal)
            if inspect.isawaitable(action):
                action = await action
            min_version = version + 1
            try:
                ack = await client.act(room, action)
                stats.actions += 1
                min_version = max(min_version, ack.get("version", 0))
            except ServerError as exc:
                # A stale snapshot (the clock ran out, someone else acted): wait for the next.
                stats.rejected += 1
                if len(stats.errors) < 20:
                    stats.errors.append(f"{exc.code}: {exc.message}")
        stats.finished = True
    finally:
        if stop_waiter is not None:
            stop_waiter.cancel()
        try:
            left = await client.leave(room)
            if left.get("pending"):  # mid-hand: the seat is freed, with its final stack, when the hand ends
                left = await _final_left(client, room, LEAVE_WAIT_SECONDS) or left
            if not left.get("pending") and "stack" in left:
                stats.stack = left["stack"]
        except (ServerError, ConnectionLost, TimeoutError):
            pass
    return stats


LEAVE_WAIT_SECONDS = 10.0  # how long a stopping bot waits for its pending leave to complete


def _auto_played(snapshot: Mapping[str, Any]) -> str | None:
    """Why the server auto-plays our seat in this ``room`` snapshot (None: it does not)."""
    seat = snapshot.get("your_seat")
    seats = snapshot.get("seats") or []
    mine = seats[seat] if seat is not None and seat < len(seats) else None
    return (mine or {}).get("auto")


async def _take_back(client: Any, room: str, snapshot: Mapping[str, Any], stats: BotStats,
                     say: Callable[[str], None]) -> int:
    """A bot plays its own turns: the server handed its seat to auto-play (two turns timed
    out, or its connection dropped), so ask for it back (``auto_play`` off). Returns the
    snapshot's version, so each switch is answered once."""
    say(f"{stats.name}: the server auto-plays our seat ({_auto_played(snapshot)}): taking it back")
    try:
        await client.auto_play(room, False)
    except (ServerError, ConnectionLost, TimeoutError):
        pass
    return snapshot.get("version", 0)


async def _final_left(client: Any, room: str, limit: float) -> dict[str, Any] | None:
    """The ``left`` message that completes a pending leave of ``room`` (None after ``limit`` s)."""
    deadline = time.monotonic() + limit
    while (left_s := deadline - time.monotonic()) > 0:
        msg = await client.next_message(timeout=left_s)
        if msg is None:
            return None
        if msg.get("t") == "left" and msg.get("room") == room and not msg.get("pending"):
            return msg
    return None


async def play(bot: Bot | Callable[..., Any], url: str, *, name: str = "bot", room: str | None = None,
               game: str | None = None, create: bool = False, options: Mapping[str, Any] | None = None,
               config: Mapping[str, Any] | None = None, hands: int | None = None,
               buy_in: int | None = None, stop: asyncio.Event | None = None,
               on_hand: Callable[[BotStats, dict[str, Any]], None] | None = None,
               delay: float = 0.0, log: Callable[[str], None] | None = _stderr) -> BotStats:
    """Connect as a new player ``name``, take a seat and play ``bot`` (see :func:`run_in_room`).

    The room is ``room``, or a new one of ``game`` when ``create`` (with room
    ``options`` and hand ``config``; ``options={"bots": 1}`` seats a server-side bot to
    play against), or else the first room of ``game`` with a free seat. ``log`` gets
    a line when the bot sits down, while it waits for players, and when it stops
    (default: printed to stderr; ``None``: silent).
    """
    async with CardroomClient(url, name=name) as client:
        room_id = room or await find_or_create_room(client, game, create, options, config)
        stats = await run_in_room(bot, client, room_id, buy_in=buy_in, hands=hands, stop=stop,
                                  on_hand=on_hand, delay=delay, log=log,
                                  stats=BotStats(name=client.name or name))
        if log is not None:
            log(f"{stats.name}: left room {room_id} after {stats.hands} hand(s), "
                f"net {stats.net:+d}: {stats.stop_reason or 'done'}")
        return stats


async def play_seat(bot: Bot | Callable[..., Any], url: str | None = None, token: str | None = None,
                    room: str | None = None, *, log: Callable[[str], None] | None = _stderr,
                    wait: float = 30.0) -> BotStats:
    """Play a seat the server already gave this player (a league match's, see
    docs/league.md) until the room closes. ``url``, ``token`` and ``room`` default to
    the environment variables ``CARDROOM_URL``, ``CARDROOM_TOKEN`` and ``CARDROOM_ROOM``
    that ``cardroom league run`` sets for the programs it starts. Waits up to ``wait``
    seconds for the seat to show (a room just made may still be taken up by a server).
    """
    import os

    url = url or os.environ["CARDROOM_URL"]
    token = token or os.environ["CARDROOM_TOKEN"]
    room = room or os.environ["CARDROOM_ROOM"]
    deadline = time.monotonic() + wait
    while True:
        async with CardroomClient(url, token=token, fair_seeds=False) as client:
            snapshot = client.rooms.get(room)
            until = time.monotonic() + 1.0  # the held seats' snapshots follow the welcome
            while snapshot is None and time.monotonic() < until:
                try:
                    msg = await client.next_message(timeout=until - time.monotonic())
                except TimeoutError:
                    break
                if msg is not None and msg.get("t") == "room" and msg.get("room") == room:
                    snapshot = msg
            if snapshot is not None:
                stats = await run_in_room(bot, client, room, joined=snapshot, log=log,
                                          stats=BotStats(name=client.name or ""))
                if log is not None:
                    log(f"{stats.name}: {stats.hands} hand(s) in room {room}: {stats.stop_reason or 'done'}")
                return stats
        if time.monotonic() >= deadline:
            raise TimeoutError(f"no seat in room {room} showed within {wait:.0f} s")
        await asyncio.sleep(0.5)


async def play_league(bot: Bot | Callable[..., Any], league: str, url: str, *, name: str = "bot",
                      token: str | None = None, entrant: str | None = None, stop: asyncio.Event | None = None,
                      log: Callable[[str], None] | None = _stderr) -> list[BotStats]:
    """Enter ``league`` (one the servers run: ``league_create``, docs/league.md) and play
    every seat its matches give this player, until ``stop`` is set (or for ever).

    Connects as a new player ``name``, or as the player of session ``token``; enters the
    league as ``entrant`` (default: the player's name; entering again is harmless). Each
    seat (a ``league_seat`` message, or a seat held from before, listed by ``welcome``)
    is played by :func:`play_seat` over a connection of its own, so the seats of a
    duplicate match's rooms are played at the same time. Returns the stats of every
    room played.
    """
    playing: dict[str, asyncio.Task[BotStats]] = {}
    async with CardroomClient(url, name=name, token=token, fair_seeds=False) as client:
        try:
            await client.request({"t": "league_enter", "name": league, **({"entrant": entrant} if entrant else {})})
        except ServerError as exc:
            if exc.code != "already_entered":
                raise
        if log is not None:
            log(f"{client.name}: entered league {league}; waiting for its matches")

        def seat(room: str) -> None:
            if room not in playing:
                playing[room] = asyncio.ensure_future(play_seat(bot, url, client.token, room, log=log))

        for held in (client.welcome or {}).get("seats", ()):
            seat(held["room"])
        stopped = asyncio.ensure_future(stop.wait()) if stop is not None else None
        try:
            while stopped is None or not stopped.done():
                getter = asyncio.ensure_future(client.next_message())
                await asyncio.wait({getter} | ({stopped} if stopped else set()), return_when=asyncio.FIRST_COMPLETED)
                if not getter.done():
                    getter.cancel()
                    break
                msg = getter.result()
                if msg is None:
                    break
                if msg.get("t") == "league_seat" and msg.get("league") == league:
                    seat(msg["room"])
                elif msg.get("t") == "reconnected":  # seats given while away are held: listed by welcome
                    for held in (client.welcome or {}).get("seats", ()):
                        seat(held["room"])
        finally:
            if stopped is not None:
                stopped.cancel()
            for task in playing.values():
                task.cancel()
            done = await asyncio.gather(*playing.values(), return_exceptions=True)
    return [s for s in done if isinstance(s, BotStats)]


async def find_or_create_room(client: CardroomClient, game: str | None, create: bool,
                              options: Mapping[str, Any] | None = None,
                              config: Mapping[str, Any] | None = None) -> str:
    """A room id: a new room of ``game`` when ``create``, else one with a free seat."""
    if game is None:
        raise ValueError("give a room id or a game")
    if not create:
        listing = await client.list_rooms(game=game)
        for r in listing.get("rooms", []):
            if r.get("game") == game and r.get("players", 0) < r.get("seats", 0):
                return r["room"]
    snapshot = await client.create_room(game, options=options, config=config)
    return snapshot["room"]


__all__ = ["Bot", "BotStats", "StrategyBot", "find_or_create_room", "play", "play_league", "play_seat",
           "ready_players", "run_in_room", "short_table"]
