"""``cardroom league`` end to end: a real Redis, a real ``cardroom serve``, entrants as
separate programs over WebSocket, results read back from the rooms' event streams."""

from __future__ import annotations

import json
import stat
import subprocess
import sys
from pathlib import Path

import pytest
import redis

from engine import fairness
from server.store import Keys, unpack
from tests.cli_in_process import run_cardroom
from tests.fault.harness import ROOT, RedisProcess, ServerProcess, free_port

#: the turn clock of the leagues whose entrants all play: it runs out only for a program
#: that is slow to move (a loaded machine), and a match with more than half an entrant's
#: turns played by the clock is void (the browser's league test uses the same)
CLOCK = 5


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("league")
    r = RedisProcess(tmp / "redis")
    r.start()
    server = ServerProcess(r.url, tmp / "server.log")
    server.start()
    yield r, server, tmp
    server.stop()
    r.stop()


def league(tmp: Path, r: RedisProcess, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """``cardroom league ARGS`` on the league files in ``tmp`` and the Redis ``r``. ``run``,
    the subject here (it starts the entrants' programs), is a process of its own as an
    operator starts it; the commands that set a league up run in this process, by the
    same entry point (:mod:`tests.cli_in_process`)."""
    argv = ["league", *args, "--dir", str(tmp / "leagues"),
            *([] if args[0] in ("create", "standings") else ["--redis-url", r.url])]
    if args[0] == "run":
        out = subprocess.run([sys.executable, "-m", "server.cli", *argv], cwd=ROOT, capture_output=True, text=True,
                             timeout=240)
    else:
        out = run_cardroom(*argv)
    if check:
        assert out.returncode == 0, out.stderr + out.stdout
    return out


def events_of(r: RedisProcess, room: str) -> list[dict]:
    client = redis.Redis.from_url(r.url)
    try:
        return [e for _, f in client.xrange(Keys("cardroom:").events(room)) for e in unpack(f[b"e"])]
    finally:
        client.close()


@pytest.mark.parametrize("game", ["holdem", "zhajinhua", "doudizhu"])
def test_a_league_of_three_built_in_entrants_plays_duplicate_matches_and_ranks_them(cluster, game):
    r, server, tmp = cluster
    name = f"l-{game}"
    league(tmp, r, "create", name, "--game", game, "--hands", "4", "--action-seconds", str(CLOCK))
    for entrant, strategy in (("ann", "smart"), ("bo", "random"), ("cy", "smart")):
        league(tmp, r, "enter", name, "--entrant", entrant, "--strategy", strategy)
    out = league(tmp, r, "run", name, "--url", server.ws_url).stdout
    for entrant in ("ann", "bo", "cy"):
        assert entrant in out
    matches = [json.loads(line) for line in (tmp / "leagues" / name / "matches.jsonl").read_text().splitlines()]
    seats = 3 if game == "doudizhu" else 2
    assert len(matches) == (1 if seats == 3 else 3)  # every pair heads-up; all three at a Dou Dizhu table
    for m in matches:
        assert m["status"] == "done" and m["same_decks"], m
        assert len(m["rooms"]) == seats  # one room per seating
        assert len(m["hands"]) == 4 * seats
        for h in m["hands"]:  # chips move between the entrants only
            assert sum(h["results"].values()) == 0, h
        decks = [_revealed_decks(events_of(r, room["room"])) for room in m["rooms"]]
        assert all(d == decks[0] and len(d) == 4 for d in decks)  # the same deck in every room
        if game != "zhajinhua":  # (whose cards are dealt face down, in no event)
            dealt = [_dealt_cards(events_of(r, room["room"]), room["seats"]) for room in m["rooms"]]
            for deal in range(1, 5):  # each seat held the same cards in every room
                assert len({tuple(map(tuple, d[deal])) for d in dealt}) == 1, (deal, dealt)
        # the match seed, revealed, reproduces every deal's committed seed
        for room in m["rooms"]:
            started = [e for e in events_of(r, room["room"]) if e["type"] == "hand_started"]
            for e in started:
                seed = fairness.match_hand_seed(m["seed"], m["match"], e["hand_no"])
                assert fairness.commitment(seed) == e["fairness"]["commitment"]
                assert e["fairness"]["context"] == m["match"]
        assert fairness.commitment(m["seed"]) == m["commitment"]
    standings = league(tmp, r, "standings", name, "--json").stdout.splitlines()
    rows = [json.loads(line) for line in standings]
    assert sorted(row["entrant"] for row in rows) == ["ann", "bo", "cy"]
    assert all(row["hands"] > 0 for row in rows)


def _dealt_cards(events: list[dict], seats: list[str]) -> dict[int, list[list[int]]]:
    """Per deal, the private cards of each seat (from the operator's full events)."""
    out: dict[int, list[list[int]]] = {}
    deal = 0
    for e in events:
        if e["type"] == "hand_started":
            deal = e["hand_no"]
            out[deal] = [[] for _ in seats]
        elif e["type"] == "deal" and e.get("seat") is not None:
            out[deal][e["seat"]] = sorted(e["cards"])
    return out


def _revealed_decks(events: list[dict]) -> dict[int, list[int]]:
    """Per deal, the deck recomputed from the seed the room revealed when the hand ended."""
    out, proof = {}, {}
    for e in events:
        if e["type"] == "hand_started":
            proof = e["fairness"]
        elif e["type"] == "hand_ended":
            seed = e["fairness"]["server_seed"]
            out[e["hand_no"]] = fairness.derive_deck(seed, proof["context"], e["hand_no"], [], proof["deck_size"])
    return out


def test_entrants_that_stall_or_crash_void_their_matches_and_stop_the_run(cluster):
    """One entrant's program never connects (sleeps), another exits at once: the matches of
    the one that exits are given up as soon as it has, the other's is played out by the
    turn clock; all three are void, none is recorded, and the run exits 1 with one line.

    The clock is 1 s, not shorter: the good entrant's program must start and make a move
    before all its turns are played by the clock, or its match is void for it too (a
    program takes about a second of CPU to start, and a loaded machine may take several)."""
    r, server, tmp = cluster
    league(tmp, r, "create", "stalls", "--game", "holdem", "--hands", "3", "--action-seconds", "1")
    league(tmp, r, "enter", "stalls", "--entrant", "good", "--strategy", "smart")
    league(tmp, r, "enter", "stalls", "--entrant", "sleepy", "--command", f"{sys.executable} -c 'import time; time.sleep(600)'")
    league(tmp, r, "enter", "stalls", "--entrant", "crashy", "--command", f"{sys.executable} -c 'raise SystemExit(3)'")
    out = league(tmp, r, "run", "stalls", "--url", server.ws_url, check=False)
    assert out.returncode == 1, out.stderr + out.stdout
    (line,) = out.stderr.splitlines()
    assert line.startswith("cardroom league run: entrant sleepy made no move in match m-"), line
    assert "of its turns were played by the turn clock (did it connect to" in line
    assert line.endswith("is void: not recorded, the run stopped (and 2 more void match(es): see above)"), line
    crashy = [x for x in out.stdout.splitlines() if "void, not recorded: entrant crashy did not play on" in x]
    assert len(crashy) == 2 and all("its program exited (status 3) before its first move" in x for x in crashy)
    assert "ended entrant programs still running after the match: sleepy" in out.stdout
    assert not (tmp / "leagues" / "stalls" / "matches.jsonl").exists()
    standings = league(tmp, r, "standings", "stalls").stdout
    assert "no match played yet" in standings


def _entrant_at(url: str, strategy: str = "random") -> str:
    """An entrant command that plays on ``url`` whatever league run tells it."""
    return f"env CARDROOM_URL={url} {sys.executable} -m client_demo.sdk.entrant --game holdem --strategy {strategy}"


def test_run_with_url_where_nothing_listens_plays_nothing_and_changes_nothing(cluster):
    """The tester's case: a server on the league's Redis, ``--url`` where nothing
    listens. Before, every hand was played by the clock and the made-up result rated."""
    r, server, tmp = cluster
    league(tmp, r, "create", "nowhere", "--game", "holdem", "--hands", "2", "--action-seconds", "0.3")
    for entrant, strategy in (("ann", "smart"), ("bo", "random")):
        league(tmp, r, "enter", "nowhere", "--entrant", entrant, "--strategy", strategy)
    url = f"ws://127.0.0.1:{free_port()}/ws"
    out = league(tmp, r, "run", "nowhere", "--url", url, check=False)
    assert out.returncode == 1 and out.stdout == "", out
    assert out.stderr.startswith(f"cardroom league run: no cardroom server answers at {url} (")
    assert len(out.stderr.splitlines()) == 1
    assert not (tmp / "leagues" / "nowhere" / "matches.jsonl").exists()
    assert not (tmp / "leagues" / "nowhere" / "logs").exists()  # no entrant was started
    (listed,) = _ask(server.ws_url, {"t": "list_leagues"})
    assert "nowhere" not in [x["name"] for x in listed["leagues"]]  # nothing published either


def test_an_entrant_that_cannot_connect_stops_the_run_at_once_with_its_url_and_log(cluster):
    r, server, tmp = cluster
    league(tmp, r, "create", "lost", "--game", "holdem", "--hands", "200", "--action-seconds", "2")
    league(tmp, r, "enter", "lost", "--entrant", "ann", "--strategy", "smart")
    nowhere = f"ws://127.0.0.1:{free_port()}/ws"
    league(tmp, r, "enter", "lost", "--entrant", "bo", "--command", _entrant_at(nowhere))
    out = league(tmp, r, "run", "lost", "--url", server.ws_url, check=False)
    assert out.returncode == 1, out.stderr + out.stdout
    (line,) = out.stderr.splitlines()
    assert line.startswith(f"cardroom league run: entrant bo did not play on {server.ws_url}: its program exited "
                           f"(status 1) before its first move, saying: entrant: cannot connect to {nowhere}: "), line
    log = Path(line.split("(log: ")[1].split(")")[0])
    assert log.parent.parent == tmp / "leagues" / "lost" / "logs" and log.name.endswith("-bo.log")
    assert f"entrant: cannot connect to {nowhere}" in log.read_text()
    assert stat.S_IMODE(log.stat().st_mode) == 0o600 and stat.S_IMODE(log.parent.stat().st_mode) == 0o700
    assert line.endswith("is void: not recorded, the run stopped"), line
    assert not (tmp / "leagues" / "lost" / "matches.jsonl").exists()
    assert ": given up: entrant bo did not play on" in out.stdout  # at once, not after 200 deals


def test_bad_usage_gets_one_line_and_status_2(tmp_path):
    bad = subprocess.run([sys.executable, "-m", "server.cli", "league", "create", "x/y", "--game", "holdem",
                          "--dir", str(tmp_path)], cwd=ROOT, capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stderr.startswith("cardroom league: a league name is")
    missing = subprocess.run([sys.executable, "-m", "server.cli", "league", "standings", "nope", "--dir", str(tmp_path),
                              "--data-dir", str(tmp_path / "no-data")],  # not in the files, no server Redis either
                             cwd=ROOT, capture_output=True, text=True)
    assert missing.returncode == 1 and missing.stderr.startswith("cardroom league: no league 'nope' in ")


def _ask(url: str, *requests: dict) -> list[dict]:
    """Say hello, send each request in turn and collect each reply (JSON subprotocol)."""
    from websockets.sync.client import connect

    replies = []
    with connect(url, subprotocols=["cardroom.json"]) as ws:
        ws.send(json.dumps({"t": "hello", "name": "viewer"}))
        assert json.loads(ws.recv(timeout=10))["t"] == "welcome"
        for i, req in enumerate(requests):
            ws.send(json.dumps({**req, "ref": i}))
            while True:
                msg = json.loads(ws.recv(timeout=10))
                if msg.get("ref") == i:
                    replies.append(msg)
                    break
    return replies


def test_the_league_is_readable_over_the_protocol_with_its_matches_hands(cluster):
    """After (and while) a league runs, any client reads its list entry, standings, chart
    series and matches; a finished match's rooms answer history as a spectator saw them."""
    r, server, tmp = cluster
    league(tmp, r, "create", "proto", "--game", "holdem", "--hands", "3", "--action-seconds", str(CLOCK))
    for entrant, strategy in (("ann", "smart"), ("bo", "random")):
        league(tmp, r, "enter", "proto", "--entrant", entrant, "--strategy", strategy)
    league(tmp, r, "run", "proto", "--url", server.ws_url)
    cli_rows = [json.loads(line) for line in league(tmp, r, "standings", "proto", "--json").stdout.splitlines()]
    listed, info, missing = _ask(server.ws_url, {"t": "list_leagues"}, {"t": "league", "name": "proto"},
                                 {"t": "league", "name": "nope"})
    entry = next(x for x in listed["leagues"] if x["name"] == "proto")
    assert entry == {**entry, "game": "holdem", "seats": 2, "hands": 3, "entrants": ["ann", "bo"], "matches": 1,
                     "done": 1}
    assert info["t"] == "league" and info["unit"] == "bb/100" and info["series_unit"] == "bb"
    assert info["standings"] == cli_rows  # the same table the operator's command prints
    assert all("token" not in e and "player" not in e for e in info["entrants"])  # no secrets published
    assert sorted(info["series"]) == ["ann", "bo"] and all(len(v) == 3 for v in info["series"].values())
    (match,) = info["matches"]
    assert match["status"] == "done" and sum(match["results"].values()) == 0
    # the chart ends where the standings' chips are, in big blinds (duplicate deals averaged over both rooms)
    for row in cli_rows:
        assert abs(info["series"][row["entrant"]][-1] - row["result"]["mean"] * row["result"]["n"] / 100) < 1e-6
    assert missing["t"] == "error" and missing["code"] == "no_such_league"
    room = match["rooms"][0]["room"]
    (history,) = _ask(server.ws_url, {"t": "history", "room": room, "last": 50})
    assert [h["hand"] for h in history["hands"]] == [1, 2, 3]
    for hand in history["hands"]:
        assert hand["viewer"] is None  # as a spectator: no hole cards unless shown
        assert all(not e.get("cards") for e in hand["events"] if e["type"] == "deal")


def test_a_sit_and_go_league_places_everyone_and_ranks_by_place(cluster):
    r, server, tmp = cluster
    league(tmp, r, "create", "sng", "--game", "holdem", "--format", "sng", "--seats", "3", "--stack", "200",
           "--level-hands", "2", "--hands", "80", "--action-seconds", str(CLOCK),
           "--config", '{"small_blind": 10, "big_blind": 20}')
    for entrant, strategy in (("ann", "smart"), ("bo", "random"), ("cy", "random")):
        league(tmp, r, "enter", "sng", "--entrant", entrant, "--strategy", strategy)
    league(tmp, r, "run", "sng", "--url", server.ws_url)
    (m,) = [json.loads(line) for line in (tmp / "leagues" / "sng" / "matches.jsonl").read_text().splitlines()]
    assert m["status"] == "done" and m["format"] == "sng" and m["same_decks"], m
    assert len(m["rooms"]) == 3  # the three rotations of one table over the same decks
    for room in m["rooms"]:
        assert sorted(room["places"]) == ["ann", "bo", "cy"] and 1 in room["places"].values()
        events = events_of(r, room["room"])
        closed = [e for e in events if e["type"] == "room_closed"]
        assert closed == [{"type": "room_closed", "reason": "match_over"}]
        big = [e["big_blind"] for e in events if e["type"] == "hand_start"]
        # the blinds go up every 2 hands (a room may end after one hand: two seats out at once)
        assert big and big == [20, 20, 30, 30, 50, 50, 100, 100, 150, 150, 200, 200][:len(big)] + big[12:], big
    rows = [json.loads(line) for line in league(tmp, r, "standings", "sng", "--json").stdout.splitlines()]
    assert {row["entrant"] for row in rows} == {"ann", "bo", "cy"}
    assert all(row["unit"] == "place" and 1 <= row["result"]["mean"] <= 3 for row in rows)
