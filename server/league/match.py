"""One league match: its rooms made in Redis, its entrants' programs started, the hands
played by the servers, the results read back from the rooms' event streams.

A match of a group of entrants plays ``league.hands`` deals in each of its rooms, one room
per seating (:func:`server.league.schedule.seatings`). Every room derives its decks from
the match's one secret seed (:func:`engine.fairness.match_hand_seed`), so a deal is the
same deck in every room, held by other entrants. The rooms are ordinary private rooms with
a ``league`` record (see :mod:`server.room.table`): seats held, stacks reset after every
hand, closed after the last. A server process takes each room up like any room nobody
owns; the entrants' programs say hello with their tokens, find their seat and play it
over the ordinary protocol. One that is late, stalls or drops has its turns played by the
game's timeout action; the match goes on. A match in which an entrant's turns were mostly
played by that clock is *void* (:func:`void_reason`): ``cardroom league run`` records none
such, and stops. One whose entrant's programs are all gone before its first move is given
up at once (:meth:`Programs.gone_without_moving`).
"""

from __future__ import annotations

import asyncio
import os
import secrets
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine import fairness
from engine.game import Game

from ..games import GAMES
from ..room import table as tbl
from ..room.league_match import LeagueState
from ..room.log import load_room
from ..room.options import parse_room_options
from ..store import Store
from .files import PRIVATE_DIR, PRIVATE_FILE, Entrant, League
from .schedule import seatings

START_SECONDS = 3.0  # between making a match's rooms and its first deal: the entrants connect
POLL_SECONDS = 0.5
EXIT_GRACE_SECONDS = 5.0
#: a match is void when an entrant that had turns in it had more than this share of them
#: (over all the match's rooms) played by the turn clock; an entrant that made no move of
#: its own at all is the common case (its program never connected)
VOID_CLOCK_SHARE = 0.5

Log = Callable[[str], None]
GiveUp = Callable[[list[dict[str, Any]]], str | None]


def entrant_command(entrant: Entrant, game: str) -> list[str]:
    """The program that plays ``entrant``'s seats: its own command, or the built-in
    entrant (``python -m client_demo.sdk.entrant``) with its strategy."""
    if entrant.command:
        return shlex.split(entrant.command)
    return [sys.executable, "-m", "client_demo.sdk.entrant", "--game", game, "--strategy", entrant.strategy or "smart"]


def league_table(league: League, game: Game, room: str, seating: tuple[str, ...], match: str, seed: str,
                 now_ms: int) -> tuple[tbl.Table, list[dict[str, Any]]]:
    """A match's room: every seat taken by its entrant with the match's stack, the first
    deal ``START_SECONDS`` from now; and the ``joined`` events of its creation."""
    options = parse_room_options(game, {
        "name": f"{league.name} {match}", "seats": len(seating), "action_seconds": league.action_seconds,
        "between_hands_seconds": 0, "bot_delay_seconds": 0, "buy_in_min": 1, "buy_in_max": max(league.stack, 1),
        "buy_in_default": league.stack, "private": True,
    })
    config = game.parse_config(league.config)
    seats: list[tbl.SeatInfo | None] = []
    events = []
    for i, name in enumerate(seating):
        e = league.entrant(name)
        seats.append(tbl.SeatInfo(player=e.player, name=e.name, stack=league.stack, bot=e.bot,
                                  strategy=e.strategy if e.bot else None))
        events.append({"type": "joined", "seat": i, "player": e.player, "name": e.name, "stack": league.stack})
    table = tbl.Table(room=room, game=game.name, options=options, config=config, seats=seats, version=1,
                      code=tbl.new_join_code(), next_hand_ms=now_ms + round(START_SECONDS * 1000),
                      league=LeagueState(match, seed, league.hands, league.stack)
                      if league.format != "sng" else
                      LeagueState(match, seed, league.hands, league.stack, "sng",
                                      tuple((small, big) for small, big in league.levels), league.level_hands))
    table.next_seed = fairness.match_hand_seed(seed, match, 1)
    return table, events


def hand_results(entries: list[tuple[int, list[dict[str, Any]]]], seating: tuple[str, ...], stack: int
                 ) -> tuple[list[dict[str, Any]], dict[int, str], dict[str, int]]:
    """From a room's event stream: each hand's chips won per entrant (its stack after
    the hand less its stack before: the match's stack, or in a sit-and-go what the last
    hand left it), each deal's commitment, and a sit-and-go's places by entrant."""
    hands = []
    commitments: dict[int, str] = {}
    places: dict[str, int] = {}
    before = [stack] * len(seating)
    for _version, events in entries:
        for e in events:
            kind = e.get("type")
            if kind == "hand_started":
                commitments[e["hand_no"]] = (e.get("fairness") or {}).get("commitment", "")
            elif kind == "hand_ended":
                results = {seating[i]: s - before[i] for i, s in enumerate(e.get("stacks", ()))
                           if s is not None and i < len(seating)}
                before = [s if s is not None else b for s, b in zip(e.get("stacks", ()), before, strict=False)]
                hands.append({"deal": e["hand_no"], "results": results})
            elif kind == "stack_reset" and e["seat"] < len(seating):
                before[e["seat"]] = e["stack"]
            elif kind in ("eliminated", "placed") and e["seat"] < len(seating):
                places[seating[e["seat"]]] = e["place"]
    return hands, commitments, places


@dataclass
class ProgramSeat:
    """One seat's program: whose it is, where it plays, its log, its process (None: it
    could not be started)."""

    entrant: str
    room: str
    seat: int
    log: Path
    proc: subprocess.Popen[bytes] | None

    def exited(self) -> bool:
        return self.proc is None or self.proc.poll() is not None


class Programs:
    """The entrants' programs of one match (stdout and stderr to a log file each, mode
    0600 in a directory of mode 0700: a program may print what it was given)."""

    def __init__(self, logs: Path) -> None:
        self.logs = logs
        self.seats: list[ProgramSeat] = []

    def start(self, entrant: Entrant, game: str, url: str, room: str, seat: int) -> None:
        self.logs.parent.mkdir(parents=True, exist_ok=True, mode=PRIVATE_DIR)
        self.logs.mkdir(exist_ok=True, mode=PRIVATE_DIR)
        env = dict(os.environ, CARDROOM_URL=url, CARDROOM_TOKEN=entrant.token, CARDROOM_ROOM=room,
                   CARDROOM_SEAT=str(seat), CARDROOM_GAME=game)
        path = self.logs / f"{room}-{seat}-{entrant.name}.log"
        proc = None
        with os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, PRIVATE_FILE), "wb") as log:
            try:
                proc = subprocess.Popen(entrant_command(entrant, game), stdout=log, stderr=subprocess.STDOUT,
                                        stdin=subprocess.DEVNULL, env=env, start_new_session=True)
            except OSError as exc:  # a command that cannot start: the match is given up (gone_without_moving)
                log.write(f"league: could not start {entrant.command!r}: {exc}\n".encode())
        self.seats.append(ProgramSeat(entrant.name, room, seat, path, proc))

    def gone_without_moving(self, league: League, tables: list[dict[str, Any]], url: str) -> str | None:
        """Why the match cannot count, when an entrant's programs have all exited (or never
        started) while none of the match's ``tables`` (room snapshots) has an action of its
        player: it will make no move in this match. None while that is not so."""
        for name in dict.fromkeys(p.entrant for p in self.seats):
            mine = [p for p in self.seats if p.entrant == name]
            if not all(p.exited() for p in mine):
                continue
            player = league.entrant(name).player
            if any((t.get("answers") or {}).get(player) for t in tables):
                continue
            first = mine[0]
            how = ("could not be started" if first.proc is None
                   else f"exited (status {first.proc.returncode}) before its first move")
            said = last_line(first.log)
            return (f"entrant {name} did not play on {url}: its program {how}"
                    f"{f', saying: {said}' if said else ''} (log: {first.log})")
        return None

    def log_of(self, name: str) -> tuple[Path | None, str]:
        """The log of ``name``'s first seat in this match, and its last line ("" if none)."""
        for p in self.seats:
            if p.entrant == name:
                return p.log, last_line(p.log)
        return None, ""

    async def stop(self, grace: float = EXIT_GRACE_SECONDS) -> list[str]:
        """Wait up to ``grace`` seconds for them to exit, then end them; returns the names
        of those that had to be ended."""
        procs = [(p.entrant, p.proc) for p in self.seats if p.proc is not None]
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline and any(p.poll() is None for _, p in procs):
            await asyncio.sleep(0.1)
        ended = []
        for name, p in procs:
            if p.poll() is None:
                ended.append(name)
                for sig in (signal.SIGTERM, signal.SIGKILL):
                    try:
                        os.killpg(p.pid, sig)
                        p.wait(timeout=3)
                        break
                    except (ProcessLookupError, subprocess.TimeoutExpired):
                        continue
        return ended


def last_line(path: Path, tail: int = 2048) -> str:
    """The last non-empty line of the file at ``path`` (its last ``tail`` bytes read; at
    most 300 characters), or "" when there is none."""
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - tail))
            text = f.read().decode(errors="replace")
    except OSError:
        return ""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1][:300] if lines else ""


def seat_turns(entries: list[tuple[int, list[dict[str, Any]]]], seats: int) -> list[list[int]]:
    """Per seat of a room, from its event stream: ``[own moves, turns played by the turn
    clock]``. Only the changes made while a hand is played count (after its
    ``hand_started``, up to the one with its ``hand_ended``): one opening with
    ``timed_out`` is the clock's turn of that event's seat; any other is a move of the seat
    its first event names (every game's move events name the seat that moved first).

    The clock's turns before a seat's first move of its own are its program starting up
    (a loaded machine may take seconds) and do not count, unless it never moved at all."""
    turns = [[0, 0] for _ in range(seats)]
    before_first = [0] * seats  # clock turns before the seat's first own move
    in_hand = False
    for _version, events in entries:
        if not events:
            continue
        kinds = {e.get("type") for e in events}
        if "hand_started" in kinds:
            in_hand = "hand_ended" not in kinds
            continue
        if not in_hand:
            continue
        first = events[0]
        seat = first.get("seat")
        if isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < seats:
            if first.get("type") != "timed_out":
                turns[seat][0] += 1
            elif turns[seat][0]:
                turns[seat][1] += 1
            else:
                before_first[seat] += 1
        in_hand = "hand_ended" not in kinds
    for seat, (moves, _clock) in enumerate(turns):
        if not moves:  # it never moved: every turn was the clock's
            turns[seat][1] += before_first[seat]
    return turns


def match_turns(league: League, record: dict[str, Any],
                streams: list[list[tuple[int, list[dict[str, Any]]]]]) -> dict[str, list[int]]:
    """Per entrant of the match that is not a room bot: ``[own moves, turns played by the
    turn clock]`` over all its rooms (``streams``: each room's event stream, in the order
    of ``record["rooms"]``)."""
    total = {name: [0, 0] for name in record["entrants"] if not league.entrant(name).bot}
    for room, entries in zip(record["rooms"], streams, strict=True):
        for name, (moves, clock) in zip(room["seats"], seat_turns(entries, len(room["seats"])), strict=True):
            if name in total:
                total[name][0] += moves
                total[name][1] += clock
    return total


def void_reason(record: dict[str, Any], turns: dict[str, list[int]], url: str,
                log_of: Callable[[str], tuple[Path | None, str]]) -> str | None:
    """Why the match must not count, or None: no hand of it was played, or an entrant
    had more than ``VOID_CLOCK_SHARE`` of its turns played by the turn clock (one that
    made no move at all included). ``log_of(entrant)``: its program's log and last line."""
    if not record.get("hands"):
        return f"no hand of match {record['match']} was played (is a server on this Redis?)"
    for name, (moves, clock) in turns.items():
        if moves + clock == 0 or clock <= VOID_CLOCK_SHARE * (moves + clock):
            continue
        log, said = log_of(name)
        where = f"log: {log}" if log is not None else "no program log"
        if moves == 0:
            return (f"entrant {name} made no move in match {record['match']}: all {clock} of its turns were "
                    f"played by the turn clock (did it connect to {url}?{f' it said: {said};' if said else ''} "
                    f"{where})")
        return (f"entrant {name} had {clock} of its {moves + clock} turns in match {record['match']} played "
                f"by the turn clock, more than {VOID_CLOCK_SHARE:.0%} ({where})")
    return None


def match_seconds(league: League, group: tuple[str, ...] | list[str]) -> float:
    """How long a match may take before it is stopped and recorded ``incomplete``: 60 s
    plus four turn clocks per hand and seat."""
    return 60 + league.hands * 4 * len(group) * league.action_seconds


def plan_match(league: League, group: tuple[str, ...] | list[str]) -> tuple[dict[str, Any], str]:
    """A new match of ``group``: its record so far (id, rooms, seed commitment; no hands)
    and its secret seed."""
    match = "m-" + secrets.token_hex(4)
    seed = secrets.token_hex(32)
    rooms = [("r-" + secrets.token_hex(4), seating) for seating in seatings(tuple(group), league.duplicate)]
    record: dict[str, Any] = {
        "match": match, "league": league.name, "game": league.game, "unit": league.unit,
        "entrants": list(group), "duplicate": league.duplicate, "deals": league.hands, "stack": league.stack,
        "format": league.format,
        "commitment": fairness.commitment(seed), "started_ms": int(time.time() * 1000),
        "rooms": [{"room": room, "seats": list(seating)} for room, seating in rooms],
    }
    return record, seed


async def open_match(store: Store, league: League, record: dict[str, Any], seed: str) -> None:
    """Make the match's rooms (seats taken, held for their players). A room that exists
    already is left as it is, so opening a match again is harmless."""
    game = GAMES[league.game]
    now_ms = int(time.time() * 1000)
    for r in record["rooms"]:
        room, seating = r["room"], tuple(r["seats"])
        table, events = league_table(league, game, room, seating, record["match"], seed, now_ms)
        await store.create_unowned_room(room, game.name, tbl.to_dict(table, game), events,
                                        league.stack * len(seating), creator="league")
        for name in seating:
            if not league.entrant(name).bot:
                await store.hold_seat(league.entrant(name).player, room)


async def start_match(store: Store, league: League, group: tuple[str, ...], log: Log) -> tuple[dict[str, Any], str]:
    """Plan and open a match of ``group``: its record so far and its secret seed."""
    record, seed = plan_match(league, group)
    log(f"match {record['match']}: {' vs '.join(group)}, {league.hands} deals in {len(record['rooms'])} room(s) "
        f"({', '.join(r['room'] for r in record['rooms'])}); match seed commitment {record['commitment'][:16]}…")
    await open_match(store, league, record, seed)
    return record, seed


def match_seats(league: League, record: dict[str, Any]) -> list[tuple[Entrant, str, int]]:
    """Every seat of the match's rooms that is not the room's own bot: (entrant, room, seat)."""
    return [(league.entrant(name), r["room"], seat) for r in record["rooms"]
            for seat, name in enumerate(r["seats"]) if not league.entrant(name).bot]


async def finish_match(store: Store, league: League, record: dict[str, Any], seed: str, log: Log,
                       timeout: float | None = None, give_up: GiveUp | None = None) -> dict[str, Any]:
    """Wait for the match's rooms to close (or its time to run out, counted from its
    start, or ``give_up(room snapshots)`` to give a reason to stop waiting), then complete
    its record from the rooms' event streams and free the seats."""
    limit = timeout if timeout is not None else match_seconds(league, record["entrants"])
    limit -= max(0.0, time.time() - record["started_ms"] / 1000)
    rooms = [(r["room"], tuple(r["seats"])) for r in record["rooms"]]
    closed = await _wait_closed(store, record["match"], [room for room, _ in rooms], league.hands, limit, log,
                                give_up)
    hands: list[dict[str, Any]] = []
    by_room: list[dict[int, str]] = []
    whole = True  # every room's hands are all in its stream, from the first
    for k, (room, seating) in enumerate(rooms):
        played, commitments, places = hand_results(await store.room_events(room), seating, league.stack)
        numbers = [h["deal"] for h in played]
        if numbers != list(range(1, len(numbers) + 1)) or (league.format != "sng" and len(numbers) != league.hands):
            whole = False
            log(f"match {record['match']}: room {room} has hands {numbers[:1]}..{numbers[-1:]} "
                f"({len(numbers)} of them): not every hand was found")
        hands += [dict(h, room=room) for h in played]
        by_room.append(commitments)
        if league.format == "sng":
            record["rooms"][k]["places"] = places
        for name in seating:
            if not league.entrant(name).bot:
                await store.hold_seat(league.entrant(name).player, room, held=False)
    deals = set().union(*(set(c) for c in by_room))
    record.update(
        hands=hands, seed=seed, finished_ms=int(time.time() * 1000),
        status="done" if closed and whole else "incomplete",
        # (a sit-and-go's rooms may end after different numbers of hands: compare those all played)
        same_decks=all(len({c[d] for c in by_room if d in c}) == 1 for d in deals),
    )
    return record


async def run_match(store: Store, league: League, group: tuple[str, ...], url: str, logs: Path,
                    log: Log, timeout: float | None = None) -> dict[str, Any]:
    """Play one match of ``group``, starting a program for every seat; returns its
    record (see docs/league.md). A match that must not count comes back with status
    ``void`` and the reason, one line, in ``void``: an entrant whose programs all ended
    before its first move (found as soon as they have, without waiting for the match to
    end), or one of :func:`void_reason`."""
    record, seed = await start_match(store, league, group, log)
    programs = Programs(logs / record["match"])
    for entrant, room, seat in match_seats(league, record):
        programs.start(entrant, league.game, url, room, seat)

    def give_up(tables: list[dict[str, Any]]) -> str | None:
        return programs.gone_without_moving(league, tables, url)

    gone = None
    try:
        record = await finish_match(store, league, record, seed, log, timeout, give_up)
        if record["status"] != "done":  # given up, or out of time: was an entrant gone? (before stop() ends them)
            gone = give_up(await _snapshots(store, [r["room"] for r in record["rooms"]]))
    finally:
        ended = await programs.stop()
        if ended:
            log(f"match {record['match']}: ended entrant programs still running after the match: {', '.join(ended)}")
    streams = [await store.room_events(r["room"]) for r in record["rooms"]]
    why = gone or void_reason(record, match_turns(league, record, streams), url, programs.log_of)
    if why is not None:
        record.update(status="void", void=why)
    return record


async def _wait_closed(store: Store, match: str, rooms: list[str], hands: int, limit: float, log: Log,
                       give_up: GiveUp | None = None) -> bool:
    """Wait until every room of the match is closed (True) or ``limit`` seconds passed
    or ``give_up`` (called with the rooms' snapshots found) gave a reason (False)."""

    def over(tables: list[dict[str, Any]]) -> bool:
        return len(tables) == len(rooms) and all(t.get("closed") for t in tables)

    deadline = time.monotonic() + limit
    said = time.monotonic()
    while True:
        tables = await _snapshots(store, rooms)
        if over(tables):
            return True
        if give_up is not None and give_up(tables) is not None:
            # read again: what gave up (a program that exited) may have followed the close
            tables = await _snapshots(store, rooms)
            if over(tables):
                return True
            why = give_up(tables)
            if why is not None:
                log(f"match {match}: given up: {why}")
                return False
        if time.monotonic() >= deadline:
            log(f"match {match}: not over after {limit:.0f} s: stopped")
            return False
        if time.monotonic() - said >= 5:
            said = time.monotonic()
            log(f"match {match}: " + ", ".join(f"{t['room']} hand {t['hand_no']}/{hands}" for t in tables))
        await asyncio.sleep(POLL_SECONDS)


async def _snapshots(store: Store, rooms: list[str]) -> list[dict[str, Any]]:
    """The snapshots of those of ``rooms`` that exist."""
    found = [await load_room(store, room) for room in rooms]
    return [t for t in found if t is not None]
