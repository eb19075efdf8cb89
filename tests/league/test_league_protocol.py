"""Leagues made, entered, run and exported over the protocol (``league_create``,
``league_enter``, ``league_run``, ``league_export``), on two real ``cardroom serve``
processes sharing one real Redis: a bot entered with the SDK on one server plays the
matches the other drives; the run survives a SIGKILL of the process driving it."""

from __future__ import annotations

import asyncio
import json
import signal
import time

import pytest
import redis

from client_demo.sdk.bot import StrategyBot, play_league
from client_demo.sdk.client import CardroomClient, ServerError
from server.store import Keys, unpack
from tests.fault.harness import RedisProcess, ServerProcess


@pytest.fixture(scope="module")
def servers(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("league-protocol")
    r = RedisProcess(tmp / "redis")
    r.start()
    procs = [ServerProcess(r.url, tmp / f"server-{i}.log") for i in range(2)]
    for p in procs:
        p.start()
    yield r, procs
    for p in procs:
        p.stop()
    r.stop()


@pytest.fixture
def pair(tmp_path):
    """A Redis of its own and two servers on it, for the tests that stop a process (the
    module's servers would take its runs over otherwise)."""
    r = RedisProcess(tmp_path / "redis")
    r.start()
    procs = [ServerProcess(r.url, tmp_path / f"s{i}.log") for i in range(2)]
    for p in procs:
        p.start()
    yield procs
    for p in procs:
        p.stop()
    r.stop()


async def _until_over(client: CardroomClient, name: str, limit: float) -> dict:
    deadline = time.monotonic() + limit
    while True:
        info = await client.request({"t": "league", "name": name})
        if info["run"] is None and info["matches"]:
            return info
        assert time.monotonic() < deadline, f"league {name} not over after {limit} s: {info['run']}"
        await asyncio.sleep(0.5)


def _deals(r: RedisProcess, room: str) -> dict[int, str]:
    """Each hand's deck commitment in a room's event stream."""
    client = redis.Redis.from_url(r.url)
    try:
        events = [e for _, f in client.xrange(Keys("cardroom:").events(room)) for e in unpack(f[b"e"])]
    finally:
        client.close()
    return {e["hand_no"]: e["fairness"]["commitment"] for e in events if e["type"] == "hand_started"}


async def test_a_league_made_over_the_protocol_is_played_by_a_bot_on_another_server(servers):
    r, (a, b) = servers
    async with CardroomClient(a.ws_url, name="Owner") as owner:
        made = await owner.request({"t": "league_create", "name": "club", "game": "holdem", "hands": 3,
                                    "action_seconds": 2})
        assert made["t"] == "league" and made["owner"] == owner.player and made["run"] is None
        assert made["settings"]["hands"] == 3 and made["settings"]["duplicate"] is True and made["entrants"] == []
        entered = await owner.request({"t": "league_enter", "name": "club", "strategy": "random"})
        assert entered["entrants"] == [{"name": "random", "strategy": "random", "program": False, "bot": True,
                                        "client": False}]
        stop = asyncio.Event()
        ada = asyncio.create_task(play_league(StrategyBot("holdem", "smart", seed=1), "club", b.ws_url, name="Ada",
                                              stop=stop, log=None))
        for _ in range(50):  # the bot enters itself over its own connection, on the other server
            if len((await owner.request({"t": "league", "name": "club"}))["entrants"]) == 2:
                break
            await asyncio.sleep(0.1)
        running = await owner.request({"t": "league_run", "name": "club"})
        assert running["run"] == {**running["run"], "rounds": 1}
        info = await _until_over(owner, "club", 60)
        stop.set()
        played = await ada
        exported = await owner.request({"t": "league_export", "name": "club"})
    (match,) = info["matches"]
    assert match["status"] == "done" and match["same_decks"] and sorted(match["entrants"]) == ["Ada", "random"]
    assert match["hands"] == 6 and sum(match["results"].values()) == 0  # 3 deals in each of two rooms
    assert sorted(row["entrant"] for row in info["standings"]) == ["Ada", "random"]
    # the bot played both mirrored rooms, each over its own connection, to the end of the match
    assert sorted(s.room for s in played) == sorted(x["room"] for x in match["rooms"])
    assert all(s.hands == 3 and s.stop_reason == "the match is over" for s in played)
    rooms = [x["room"] for x in match["rooms"]]
    assert _deals(r, rooms[0]) == _deals(r, rooms[1]) and len(_deals(r, rooms[0])) == 3  # the same decks
    (record,) = exported["matches"]
    assert record["seed"] and len(record["hands"]) == 6 and exported["standings"] == info["standings"]


async def test_league_requests_that_fail_get_stable_codes_and_change_nothing(servers):
    _r, (a, b) = servers
    async with CardroomClient(a.ws_url, name="Boss") as boss, CardroomClient(b.ws_url, name="Other") as other:
        await boss.request({"t": "league_create", "name": "rules", "game": "doudizhu", "hands": 2})
        before = await boss.request({"t": "league", "name": "rules"})

        async def code(client: CardroomClient, msg: dict) -> str:
            with pytest.raises(ServerError) as err:
                await client.request(msg)
            return err.value.code

        assert await code(other, {"t": "league_create", "name": "rules", "game": "holdem"}) == "league_exists"
        assert await code(boss, {"t": "league_create", "name": "bad name!", "game": "holdem"}) == "bad_league"
        assert await code(boss, {"t": "league_create", "name": "x", "game": "mahjong"}) == "bad_league"
        assert await code(boss, {"t": "league_create", "name": "x", "game": "doudizhu", "seats": 4}) == "bad_league"
        assert await code(boss, {"t": "league_create", "name": "x", "game": "zhajinhua", "format": "sng"}) == "bad_league"
        assert await code(boss, {"t": "league_create", "name": "x", "game": "holdem",
                                 "config": {"big_blind": -5}}) == "bad_league"
        assert await code(boss, {"t": "league_create", "name": "x", "game": "holdem", "hands": 0}) == "bad_message"
        assert await code(boss, {"t": "league_create", "name": "x", "game": "holdem", "hands": 1001}) == "bad_league"
        assert await code(other, {"t": "league_enter", "name": "rules", "strategy": "smart"}) == "not_league_owner"
        assert await code(boss, {"t": "league_enter", "name": "rules", "strategy": "genius"}) == "bad_league"
        assert await code(boss, {"t": "league_run", "name": "rules"}) == "too_few_entrants"
        await other.request({"t": "league_enter", "name": "rules"})
        assert await code(other, {"t": "league_enter", "name": "rules"}) == "already_entered"
        assert await code(boss, {"t": "league_enter", "name": "rules", "strategy": "smart",
                                 "entrant": "Other"}) == "entrant_taken"
        assert await code(other, {"t": "league_run", "name": "rules"}) == "not_league_owner"
        for t in ("league_enter", "league_run", "league_export", "league"):
            assert await code(boss, {"t": t, "name": "nope"}) == "no_such_league"
        after = await boss.request({"t": "league", "name": "rules"})
    assert [e["name"] for e in after["entrants"]] == ["Other"]  # only the one entry that succeeded
    same = {"entrants": [], "updated_ms": 0, "ref": 0}
    assert {**after, **same} == {**before, **same}


async def test_what_one_player_may_ask_is_bounded(servers):
    _r, (a, _b) = servers
    async with CardroomClient(a.ws_url, name="Greedy") as greedy:
        await greedy.request({"t": "league_create", "name": "big", "game": "holdem", "hands": 1000})
        for i in range(11):
            await greedy.request({"t": "league_enter", "name": "big", "strategy": "random", "entrant": f"r{i}"})
        with pytest.raises(ServerError) as err:  # 55 heads-up matches a round: 10 rounds pass 500
            await greedy.request({"t": "league_run", "name": "big", "rounds": 10})
        assert err.value.code == "league_limit" and err.value.field == "rounds"
        assert (await greedy.request({"t": "league", "name": "big"}))["run"] is None  # nothing started
        for i in range(9):
            await greedy.request({"t": "league_create", "name": f"more{i}", "game": "doudizhu"})
        with pytest.raises(ServerError) as err:  # the eleventh
            await greedy.request({"t": "league_create", "name": "more9", "game": "doudizhu"})
        assert err.value.code == "league_limit"
        listed = await greedy.request({"t": "list_leagues"})
    assert "more9" not in [x["name"] for x in listed["leagues"]]


@pytest.mark.slow  # 20-25 s, mostly waiting on the driver's lock: started first, beside the others
async def test_a_run_goes_on_when_the_process_driving_it_is_killed(pair):
    """The process driving a run is SIGKILLed in the middle of a match: the other takes the
    run over, finishes the same match from its rooms and records it once."""
    async with CardroomClient(pair[0].ws_url, name="Owner") as owner:
        await owner.request({"t": "league_create", "name": "hardy", "game": "zhajinhua", "hands": 6, "seats": 3,
                             "action_seconds": 0.5})
        for strategy in ("smart", "random"):
            await owner.request({"t": "league_enter", "name": "hardy", "strategy": strategy})
        await owner.request({"t": "league_enter", "name": "hardy", "entrant": "absent"})  # never plays: its
        await owner.request({"t": "league_run", "name": "hardy"})  # turns time out, so the match lasts
        driver = await _driver(pair, "league hardy: round 1/1")
        await asyncio.sleep(1.0)
        driver.kill9()
    survivor = next(p for p in pair if p is not driver)
    async with CardroomClient(survivor.ws_url, name="Watcher") as watcher:
        assert (await watcher.request({"t": "league", "name": "hardy"}))["run"] is not None
        info = await _until_over(watcher, "hardy", 120)
    assert "league hardy: run of 1 round(s) over" in survivor.output()  # it took the run over ...
    assert "league hardy: round 1/1" not in survivor.output()  # ... and the same round, not a new one
    (match,) = info["matches"]
    assert match["status"] == "done" and match["same_decks"] and match["hands"] == 18  # 6 deals, 3 rooms
    assert sum(match["results"].values()) == 0


async def _driver(procs: list[ServerProcess], line: str) -> ServerProcess:
    """The process whose log says it plays the run."""
    deadline = time.monotonic() + 15
    while True:
        found = next((p for p in procs if line in p.output()), None)
        if found is not None:
            return found
        assert time.monotonic() < deadline, "no process took the run up"
        await asyncio.sleep(0.2)


async def test_operator_leagues_and_protocol_leagues_share_one_namespace(servers, tmp_path):
    from tests.league.test_league import CLOCK
    from tests.league.test_league import league as operator

    r, (a, _b) = servers
    operator(tmp_path, r, "create", "ops", "--game", "holdem", "--hands", "1", "--action-seconds", str(CLOCK))
    for entrant in ("smart", "random"):
        operator(tmp_path, r, "enter", "ops", "--entrant", entrant, "--strategy", entrant)
    await asyncio.to_thread(operator, tmp_path, r, "run", "ops", "--url", a.ws_url)
    async with CardroomClient(a.ws_url, name="Taker") as client:
        for msg in ({"t": "league_create", "name": "ops", "game": "holdem"},
                    {"t": "league_enter", "name": "ops"}, {"t": "league_run", "name": "ops"}):
            with pytest.raises(ServerError) as err:
                await client.request(msg)
            assert err.value.code == ("league_exists" if msg["t"] == "league_create" else "not_league_owner")
        await client.request({"t": "league_create", "name": "mine", "game": "holdem"})
    operator(tmp_path, r, "create", "mine", "--game", "holdem", "--hands", "1")
    for entrant in ("smart", "random"):
        operator(tmp_path, r, "enter", "mine", "--entrant", entrant, "--strategy", entrant)
    refused = operator(tmp_path, r, "run", "mine", "--url", a.ws_url, check=False)
    assert refused.returncode == 1 and "made over the protocol" in refused.stderr


@pytest.mark.slow  # 20-25 s, mostly waiting on the driver's lock: started first, beside the others
async def test_a_driver_stopped_past_its_lock_gives_the_run_up_without_a_trace(pair):
    """SIGSTOP the process driving a two-round run for longer than its lock: the other
    takes the run over; the first, resumed, finds its lock gone and writes nothing more.
    Each round is played once: two matches, no round planned twice."""
    async with CardroomClient(pair[0].ws_url, name="Owner") as owner:
        await owner.request({"t": "league_create", "name": "sleepy", "game": "zhajinhua", "hands": 4,
                             "seats": 3, "action_seconds": 0.5})
        for strategy in ("smart", "random"):
            await owner.request({"t": "league_enter", "name": "sleepy", "strategy": strategy})
        await owner.request({"t": "league_enter", "name": "sleepy", "entrant": "absent"})
        await owner.request({"t": "league_run", "name": "sleepy", "rounds": 2})
    driver = await _driver(pair, "league sleepy: round 1/2")
    survivor = next(p for p in pair if p is not driver)
    driver.signal(signal.SIGSTOP)
    try:
        deadline = time.monotonic() + 40
        while "league sleepy" not in survivor.output():  # it took the run over
            assert time.monotonic() < deadline, "the run was not taken over"
            await asyncio.sleep(0.5)
    finally:
        driver.signal(signal.SIGCONT)
    async with CardroomClient(survivor.ws_url, name="Watcher") as watcher:
        info = await _until_over(watcher, "sleepy", 120)
        await _keeper_has_looked(driver)
        again = await watcher.request({"t": "league", "name": "sleepy"})
    assert [m["round"] for m in info["matches"]] == [1, 2] and again["matches"] == info["matches"]
    assert all(m["status"] == "done" and m["same_decks"] for m in info["matches"])
    assert again["run"] is None
    assert "league sleepy: round 2/2" in survivor.output() and "league sleepy: round 2/2" not in driver.output()


async def _keeper_has_looked(driver: ServerProcess) -> None:
    """Return once the resumed driver's lock keeper has looked at the lock: when it logs the
    lock lost, or at the latest after its interval (5 s: a third of the 15 s lock) and a
    second more, should the driver have learnt it another way (a write it was refused)."""
    deadline = time.monotonic() + 6
    while "league sleepy: run lock lost" not in driver.output() and time.monotonic() < deadline:
        await asyncio.sleep(0.2)


async def test_the_operators_command_reads_and_exports_a_league_the_servers_run(servers, tmp_path):
    from tests.league.test_league import league as operator

    r, (a, _b) = servers
    async with CardroomClient(a.ws_url, name="Maker") as maker:
        await maker.request({"t": "league_create", "name": "export-me", "game": "holdem", "hands": 3})
        for strategy in ("smart", "random"):
            await maker.request({"t": "league_enter", "name": "export-me", "strategy": strategy})
        await maker.request({"t": "league_run", "name": "export-me"})
        info = await _until_over(maker, "export-me", 60)
    rows = [json.loads(line) for line in
            operator(tmp_path, r, "standings", "export-me", "--json", "--redis-url", r.url).stdout.splitlines()]
    assert rows == info["standings"]
    operator(tmp_path, r, "export", "export-me", "--out", str(tmp_path / "out"))
    hands = [json.loads(line) for line in (tmp_path / "out" / "hands.jsonl").read_text().splitlines()]
    assert len(hands) == 6 and {h["room"] for h in hands} == {x["room"] for x in info["matches"][0]["rooms"]}
    assert (tmp_path / "out" / "hands.txt").read_text().count("PokerStars Hand #") == 6
    (record,) = [json.loads(line) for line in (tmp_path / "out" / "matches.jsonl").read_text().splitlines()]
    assert record["seed"] and record["match"] == info["matches"][0]["match"]
    missing = operator(tmp_path, r, "standings", "nobody-has-this", "--redis-url", r.url, check=False)
    assert missing.returncode == 1 and "nor one the servers run" in missing.stderr
