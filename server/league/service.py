"""Leagues the servers run: created, entered, run and exported over the protocol
(``league_create``, ``league_enter``, ``league_run``, ``league_export``; docs/league.md,
"Leagues over the protocol").

Such a league lives in Redis, not in an operator's files: its definition (entrants with
no session token) under ``league-defs``; what it publishes (as ``cardroom league run``
does: :func:`server.league.report.published`, read by ``list_leagues`` and ``league``)
under ``leagues`` and its match records in a list of their own; and, while it is being
run, the state of its run under ``league-runs``: the rounds asked for, the round being
played and the matches of that round with their secret seeds.

Every server looks for runs nobody drives (every :data:`SCAN_SECONDS`) and takes up each
one under a Redis lock it keeps renewing, at most ``max_league_runs`` at once. The one
that holds the lock plays the run round by round: it plans the round's matches and
records them with their seeds *before* making any room, then, a few matches at a time
(:data:`MATCHES_AT_ONCE`), makes their rooms, tells the entrants that play over their own
connections (``league_seat``), waits for the rooms to close, adds the match records and
publishes the league again. The rooms are ordinary rooms that any server plays, so when
the process driving a run dies, another takes the lock over, makes any room the first
did not get to (making one again is harmless), tells the entrants again and finishes the
same matches: no match is lost, and none is recorded twice.

Entrants are players who enter themselves (they play every seat they are given over
their own connections: :func:`client_demo.sdk.bot.play_league` does it) and, entered by the
league's owner, built-in strategies that the match's rooms play as server-side bots.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import asdict
from typing import Any

from ..aio import cancel_and_wait, stop_if_cancelled
from ..edge import messages as m
from ..edge.protocol import ProtocolError
from ..store import UNAVAILABLE, Store
from .define import new_league
from .files import Entrant, League, LeagueError
from .match import finish_match, match_seats, open_match, plan_match
from .report import as_published, published, report, strategies
from .schedule import groups

log = logging.getLogger(__name__)

RUN_LOCK_MS = 15_000  # a run whose driver stopped renewing is taken over after this
SCAN_SECONDS = 3.0  # how often a server looks for runs nobody drives
EDIT_LOCK_MS = 5_000  # the short lock around every change of a league's definition or report
MAX_ENTRANTS = 32
MATCHES_AT_ONCE = 8  # a run plays a round's matches this many at a time
# what one player may ask of the servers (an operator's own leagues have no such limits)
MAX_HANDS = 1_000  # deals per match
MAX_MATCHES = 500  # matches in a league, over all its runs
MAX_LEAGUES = 10  # leagues made by one player


def _run_lock(name: str) -> str:
    return f"league-run:{name}"


class LeagueService:
    """One server's part in the leagues run over the protocol.

    ``tell(player, message)`` delivers a message to a player's connections on every
    server (:meth:`server.store.Store.tell_player`).
    """

    def __init__(self, store: Store, node: str, max_runs: int,
                 tell: Callable[[str, dict[str, Any]], Awaitable[None]] | None = None) -> None:
        self.store = store
        self.node = node
        self.max_runs = max_runs
        self.tell = tell or store.tell_player
        self.driving: dict[str, asyncio.Task[None]] = {}
        self._tokens: dict[str, str] = {}
        self._scanner: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()

    # --- lifecycle ----------------------------------------------------------------------

    def start(self) -> None:
        if self.max_runs > 0:
            self._scanner = asyncio.create_task(self._scan_loop(), name="league runs")

    async def stop(self) -> None:
        """Stop driving: the locks are given back, so another server takes the runs up at once."""
        await cancel_and_wait([self._scanner, *self.driving.values()])
        for name, token in list(self._tokens.items()):
            try:
                await self.store.unlock(_run_lock(name), token)
            except UNAVAILABLE:
                pass
        self._tokens.clear()

    # --- requests -----------------------------------------------------------------------

    async def create(self, player: str, msg: m.LeagueCreate) -> dict[str, Any]:
        """``league_create``: a new league owned by ``player``; the ``league`` reply."""
        given = {k: getattr(msg, k) for k in ("hands", "seats", "stack", "action_seconds", "config", "duplicate",
                                               "format", "level_hands") if getattr(msg, k) is not None}
        try:
            league = new_league(msg.name, msg.game, owner=player, **given)
        except LeagueError as exc:
            raise ProtocolError("bad_league", str(exc)) from None
        if league.hands > MAX_HANDS:
            raise ProtocolError("bad_league", f"a league made over the protocol plays at most {MAX_HANDS:,} deals "
                                              f"per match (an operator's cardroom league has no such limit)", "hands")
        if await self.store.leagues_owned(player) >= MAX_LEAGUES:
            raise ProtocolError("league_limit", f"a player may make at most {MAX_LEAGUES} leagues")
        async with self._editing(league.name):
            if not await self.store.create_league(league.name, asdict(league)):
                raise ProtocolError("league_exists", f"a league {league.name!r} exists already: pick another name",
                                    "name")
            return await self._publish(league)

    async def enter(self, player: str, player_name: str, msg: m.LeagueEnter) -> dict[str, Any]:
        """``league_enter``: ``player`` enters itself, or (the owner) a built-in strategy."""
        async with self._editing(msg.name):
            league = await self._league(msg.name)
            if msg.strategy is not None:
                self._owner(league, player, "enter built-in strategies")
                known = strategies(league.game)
                if msg.strategy not in known:
                    raise ProtocolError("bad_league", f"no strategy {msg.strategy[:32]!r} for {league.game} "
                                                      f"(built in: {', '.join(known)})", "strategy")
                entrant = Entrant(name=" ".join((msg.entrant or msg.strategy).split()),
                                  player=f"bot-{secrets.token_hex(6)}", token="", strategy=msg.strategy, bot=True)
            else:
                if any(e.player == player for e in league.entrants):
                    raise ProtocolError("already_entered", f"you are an entrant of league {league.name} already",
                                        "name")
                entrant = Entrant(name=" ".join((msg.entrant or player_name).split()), player=player, token="")
            if not entrant.name or not entrant.name.isprintable():
                raise ProtocolError("bad_message", "league_enter: entrant must contain printable characters",
                                    "entrant")
            if any(e.name == entrant.name for e in league.entrants):
                raise ProtocolError("entrant_taken", f"league {league.name} has an entrant {entrant.name!r} "
                                                     f"already: give another name (entrant)", "entrant")
            if len(league.entrants) >= MAX_ENTRANTS:
                raise ProtocolError("league_full", f"a league takes at most {MAX_ENTRANTS} entrants")
            league.entrants.append(entrant)
            await self.store.save_league(league.name, asdict(league))
            return await self._publish(league)

    async def run(self, player: str, msg: m.LeagueRun) -> dict[str, Any]:
        """``league_run``: play ``rounds`` round robins; answered at once (the ``league``
        reply with its ``run``), the matches played by the servers in the background."""
        async with self._editing(msg.name):
            league = await self._league(msg.name)
            self._owner(league, player, "run it")
            if await self.store.league_run(league.name) is not None:
                raise ProtocolError("league_running", f"league {league.name} is being run: wait for its end", "name")
            if len(league.entrants) < league.seats:
                raise ProtocolError("too_few_entrants", f"league {league.name} needs {league.seats} entrants to "
                                                        f"play a match (has {len(league.entrants)})", "name")
            played = await self.store.league_match_count(league.name)
            asked = (msg.rounds or 1) * len(groups([e.name for e in league.entrants], league.seats))
            if played + asked > MAX_MATCHES:
                raise ProtocolError("league_limit", f"a league plays at most {MAX_MATCHES} matches: it played "
                                                    f"{played}, and this run would play {asked} more", "rounds")
            await self.store.save_league_run(league.name, {
                "rounds": msg.rounds or 1, "round": 0, "pending": [], "by": player,
                "requested_ms": int(time.time() * 1000)})
            message = await self._publish(league)
        self._wake.set()
        return message

    async def export(self, name: str) -> dict[str, Any]:
        """``league_export``: the standings and every match record (each hand's result per
        entrant, the seed once the match is over); the hands themselves are the rooms'
        ``history``."""
        found = await self.store.league_published(name)
        if found is None:
            raise ProtocolError("no_such_league", f"no league {name[:64]!r} was run here", "name")
        message = as_published(found)["message"]
        matches = found["matches"] if "message" not in found else await self.store.league_matches(name)
        return {"t": "league_export", "name": name, "game": message["game"], "standings": message["standings"],
                "matches": matches}

    # --- helpers ------------------------------------------------------------------------

    async def _league(self, name: str) -> League:
        data = await self.store.league_definition(name)
        if data is None:
            if await self.store.league_published(name) is not None:
                raise ProtocolError("not_league_owner", f"league {name[:64]!r} is run by its operator's "
                                                        f"cardroom league command, not over the protocol", "name")
            raise ProtocolError("no_such_league", f"no league {name[:64]!r} here", "name")
        data["entrants"] = [Entrant(**e) for e in data.get("entrants", ())]
        return League(**data)

    @staticmethod
    def _owner(league: League, player: str, what: str) -> None:
        if league.owner != player:
            raise ProtocolError("not_league_owner", f"only the player who created league {league.name} may {what}",
                                "name")

    @asynccontextmanager
    async def _editing(self, name: str):
        """Hold the league's short edit lock (every change of its definition, report or run
        goes through it, on every server)."""
        token = secrets.token_hex(8)
        deadline = time.monotonic() + EDIT_LOCK_MS / 1000
        while not await self.store.lock(f"league:{name}", token, EDIT_LOCK_MS):
            if time.monotonic() > deadline:
                raise ProtocolError("unavailable", f"league {name[:64]!r} is busy: retry")
            await asyncio.sleep(0.02)
        try:
            yield
        finally:
            await self.store.unlock(f"league:{name}", token)

    async def _publish(self, league: League, new: list[dict[str, Any]] | tuple[()] = (),
                       run: dict[str, Any] | None = None) -> dict[str, Any]:
        """Add the ``new`` match records (each once), and publish the league with all its
        matches and the state of its run (``run``, else as stored); the ``league`` message."""
        await self.store.add_league_matches(league.name, list(new))
        rep = report(league, await self.store.league_matches(league.name), int(time.time() * 1000))
        run = run or await self.store.league_run(league.name)
        rep["run"] = None if run is None else {"round": run["round"], "rounds": run["rounds"],
                                               "matches": [p["record"]["match"] for p in run["pending"]]}
        ready = published(rep)
        await self.store.publish_league(league.name, ready)
        return ready["message"]

    # --- driving runs -------------------------------------------------------------------

    async def _scan_loop(self) -> None:
        while True:
            try:
                await self._scan()
            except asyncio.CancelledError:
                raise
            except UNAVAILABLE as exc:
                stop_if_cancelled()
                log.warning("league runs: Redis unavailable (%s)", exc)
            except Exception:
                stop_if_cancelled()
                log.exception("league runs: scan failed")
            self._wake.clear()
            try:
                await asyncio.wait_for(self._wake.wait(), SCAN_SECONDS)
            except TimeoutError:
                pass

    async def _scan(self) -> None:
        """Take up the runs nobody drives, while this server has room for more."""
        for name in sorted(await self.store.league_runs()):
            if name in self.driving or len(self.driving) >= self.max_runs:
                continue
            token = f"{self.node} {secrets.token_hex(8)}"
            if await self.store.lock(_run_lock(name), token, RUN_LOCK_MS):
                self._tokens[name] = token
                self.driving[name] = asyncio.create_task(self._drive(name, token), name=f"league {name}")

    async def _drive(self, name: str, token: str) -> None:
        keeper = asyncio.create_task(self._keep_lock(name, token, asyncio.current_task()))
        try:
            await self._play(name)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("league %s: run failed; another server (or this one) takes it up again", name)
        finally:
            keeper.cancel()
            self.driving.pop(name, None)
            if self._tokens.pop(name, None) is not None:
                try:
                    await self.store.unlock(_run_lock(name), token)
                except UNAVAILABLE:
                    pass

    async def _keep_lock(self, name: str, token: str, driver: asyncio.Task[Any] | None) -> None:
        """Renew the run's lock; should it be lost, stop driving at once (someone else does)."""
        while True:
            await asyncio.sleep(RUN_LOCK_MS / 3000)
            try:
                held = await self.store.extend_lock(_run_lock(name), token, RUN_LOCK_MS)
            except UNAVAILABLE:
                stop_if_cancelled()
                continue  # the lock runs out if Redis stays away; the driver learns it then
            if not held:
                log.warning("league %s: run lock lost; another server drives it", name)
                self._tokens.pop(name, None)
                if driver is not None:
                    driver.cancel()
                return

    async def _holds(self, name: str) -> bool:
        """Does this server still drive the run (its lock renewed now)? Checked under the
        edit lock before every write of the run's state, so a driver that was stopped
        for longer than the lock (and taken over) never overwrites its successor's."""
        token = self._tokens.get(name)
        return token is not None and await self.store.extend_lock(_run_lock(name), token, RUN_LOCK_MS)

    async def _play(self, name: str) -> None:
        """Play the run's rounds from where its state says it is."""
        while True:
            state = await self.store.league_run(name)
            if state is None:
                return
            league = await self._league(name)
            if state["pending"]:
                await self._finish_matches(league, state)
                continue
            async with self._editing(name):
                state = await self.store.league_run(name)
                if state is None or not await self._holds(name):
                    return  # over, or taken over by another server
                if state["pending"]:
                    continue
                if state["round"] >= state["rounds"]:
                    await self.store.save_league_run(name, None)
                    await self._publish(league)
                    log.info("league %s: run of %d round(s) over", name, state["rounds"])
                    return
                planned = [plan_match(league, g) for g in groups([e.name for e in league.entrants], league.seats)]
                played = await self.store.league_match_count(name)
                if played + len(planned) > MAX_MATCHES:  # (entrants came in during the run)
                    log.warning("league %s: run stopped before round %d: it would pass %d matches",
                                name, state["round"] + 1, MAX_MATCHES)
                    await self.store.save_league_run(name, None)
                    await self._publish(league)
                    return
                state["round"] += 1
                state["pending"] = [{"record": record, "seed": seed} for record, seed in planned]
                await self.store.save_league_run(name, state)  # the seeds are kept before any room is made
                await self._publish(league)
            log.info("league %s: round %d/%d, %d match(es)", name, state["round"], state["rounds"], len(planned))

    async def _finish_matches(self, league: League, state: dict[str, Any]) -> None:
        """Play the next few of the round's matches (at most :data:`MATCHES_AT_ONCE`): open
        them (again, after a takeover: harmless), tell the entrants their seats, wait for
        the rooms to close and record the matches."""
        batch = state["pending"][:MATCHES_AT_ONCE]
        for p in batch:
            await open_match(self.store, league, p["record"], p["seed"])
            for entrant, room, seat in match_seats(league, p["record"]):
                if entrant.client:
                    await self.tell(entrant.player, {
                        "t": "league_seat", "league": league.name, "match": p["record"]["match"],
                        "game": league.game, "room": room, "seat": seat})

        def say(line: str) -> None:
            log.info("league %s: %s", league.name, line)

        records = await asyncio.gather(*(finish_match(self.store, league, dict(p["record"]), p["seed"], say)
                                         for p in batch))
        async with self._editing(league.name):
            fresh = await self.store.league_run(league.name)
            if fresh is None or not await self._holds(league.name):
                return
            for record in records:
                record["round"] = fresh["round"]
            done = {record["match"] for record in records}
            fresh["pending"] = [p for p in fresh["pending"] if p["record"]["match"] not in done]
            # the records first, then the run without them: after a crash between the two, the
            # matches are finished again and their records, added again, are kept once
            await self._publish(league, list(records), run=fresh)
            await self.store.save_league_run(league.name, fresh)
