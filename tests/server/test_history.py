"""``cardroom history`` reads hand histories back from the durable event stream: a hand of
each game is played through a real server, then the command runs against the same Redis."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from redis.asyncio import Redis

from engine.cards import format_cards
from engine.game import event_for
from server.cli import main
from server.games import GAMES
from server.redis_embedded import EmbeddedRedis
from server.room import shuffled_deck
from server.room import table as tbl
from server.store import Store

from .test_real_games import next_action
from .wsclient import Client

# What each game's history must say about the hand played by test_real_games' players.
ACTION_WORDS = {"holdem": ("posts small blind", "checks"), "zhajinhua": ("Ante 10 each", "calls"),
                "doudizhu": ("plays", "is the landlord")}
RESULT_WORDS = {"holdem": " wins ", "zhajinhua": "wins the hand", "doudizhu": " win"}


def seeded_deck(size: int) -> list[int]:
    return random.Random(7).sample(range(size), size)


async def play_one_hand(make_app, game_name: str) -> dict[str, Any]:
    """Seat player0, player1 (, player2) with 2000 chips and play one hand over the wire:
    Hold'em checks/calls to the river, Zha Jin Hua calls twice, Dou Dizhu plays the smart bot."""
    game = GAMES[game_name]
    app = await make_app(games=GAMES, deck=seeded_deck)
    n = game.min_players
    clients = [await Client.connect(app.ws_url) for _ in range(n)]
    for i, c in enumerate(clients):
        await c.hello(f"player{i}")
    reply = await clients[0].request({"t": "create_room", "game": game_name, "options": {
        "seats": n, "between_hands_seconds": 600, "buy_in_default": 2000}})
    room = reply["room"]
    for i, c in enumerate(clients):
        assert (await c.request({"t": "join", "room": room, "seat": i}))["t"] == "room"
    actor = app.directory.actors[room]
    rng = random.Random(3)
    for step in range(400):
        # the room's actor of now: on a starved machine a late lease renewal drops the room
        # and the next request takes it again, in a new actor (the old one's table stops)
        actor = app.directory.actors.get(room, actor)
        hand = actor.table.hand
        if hand is None:
            await clients[0].expect("event", timeout=10, event=lambda e: e["type"] == "hand_started")
            continue
        if hand.is_over:
            break
        seat = hand.to_act
        action = next_action(game_name, hand, rng)
        ack = await clients[seat].request({"t": "act", "room": room, "action": action, "id": f"a{step}"})
        assert ack["t"] == "ack", (action, ack)
    await clients[0].expect("event", timeout=10, event=lambda e: e["type"] == "hand_ended")
    for c in clients:
        await c.close()
    return {"app": app, "room": room}


def run(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(["history", *argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.fixture
def history(redis_url, prefix, capsys):
    """``cardroom history`` against the test Redis and key prefix: (status, stdout, stderr)."""
    return lambda *argv: run(capsys, "--redis-url", redis_url, "--prefix", prefix, *argv)


async def stream_events(app, room: str) -> list[dict[str, Any]]:
    return [e for _, evs in await app.store.room_events(room) for e in evs]


def hand_events(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The events of the (only) hand: from hand_started to the end of the stream."""
    start = next(i for i, e in enumerate(events) if e["type"] == "hand_started")
    return events[start:]


@pytest.mark.parametrize("game_name", sorted(GAMES))
async def test_history_of_a_played_hand_names_players_actions_and_result(make_app, history, game_name):
    played = await play_one_hand(make_app, game_name)
    room = played["room"]
    status, out, err = history("--room", room)
    assert status == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("=== Hand 1 of room " + room) and GAMES[game_name].title in lines[0]
    assert "UTC" in lines[0]  # the time comes from the stream id
    assert lines[1].startswith("Seats: 0: player0 (2000), 1: player1 (2000)") and "button player" in lines[1]
    for words in ACTION_WORDS[game_name]:
        assert words in out, out
    assert RESULT_WORDS[game_name] in out
    assert "Hand 1 ends; stacks: player0 " in out
    assert lines[-1].startswith("Result: player0 ")
    net = [int(part.rsplit(" ", 1)[1]) for part in lines[-1].removeprefix("Result: ").split(", ")]
    assert sum(net) == 0 and any(net)  # chips moved, none created
    assert "{" not in out  # every event in words, none in the generic key=value form


async def test_as_seat_hides_other_seats_hole_cards_and_the_full_view_shows_them(make_app, history):
    played = await play_one_hand(make_app, "holdem")
    room = played["room"]
    deals = {e["seat"]: e["cards"] for e in await stream_events(played["app"], room) if e["type"] == "deal"}
    full = history("--room", room)[1]
    seat0 = history("--room", room, "--as-seat", "0")[1]
    watcher = history("--room", room, "--spectator")[1]
    for seat, cards in deals.items():
        assert f"Dealt to player{seat}: [{format_cards(cards)}]" in full
    assert f"Dealt to player0: [{format_cards(deals[0])}]" in seat0
    assert "Dealt to player1: [hidden]" in seat0 and f"Dealt to player1: [{format_cards(deals[1])}]" not in seat0
    assert "(as seen by seat 0 (player0))" in seat0
    assert "Dealt to player0: [hidden]" in watcher and "Dealt to player1: [hidden]" in watcher


async def test_as_seat_hides_the_other_dou_dizhu_hands(make_app, history):
    played = await play_one_hand(make_app, "doudizhu")
    room = played["room"]
    full = history("--room", room)[1]
    seat2 = history("--room", room, "--as-seat", "2")[1]
    assert all(f"Dealt to player{s} (17 cards): " in full for s in range(3))
    assert "Dealt to player2 (17 cards): " in seat2
    assert "Dealt to player0 (17 cards)\n" in seat2 and "Dealt to player0 (17 cards): " not in seat2


@pytest.mark.parametrize("view", [[], ["--as-seat", "1"], ["--spectator"]])
async def test_json_lines_round_trip_to_the_stream_events_as_that_viewer_saw_them(make_app, history, view):
    played = await play_one_hand(make_app, "holdem")
    room = played["room"]
    status, out, err = history("--room", room, "--json", *view)
    assert status == 0, err
    records = [json.loads(line) for line in out.splitlines()]
    viewer = None if view == ["--spectator"] else int(view[1]) if view else "all"
    expected = [e if viewer == "all" else event_for(e, viewer) for e in hand_events(await stream_events(played["app"], room))]
    assert [r["event"] for r in records] == expected
    assert {r["hand"] for r in records} == {1} and {r["room"] for r in records} == {room}
    versions = [r["v"] for r in records]
    assert versions == sorted(versions) and all(isinstance(r["time_ms"], int) for r in records)
    if viewer == "all":
        assert any(e.get("only") for e in expected)  # the private parts are there to be hidden
    else:
        assert not any("only" in r["event"] for r in records)


async def test_room_list_shows_id_game_name_hands_and_seats(make_app, history):
    played = await play_one_hand(make_app, "holdem")
    status, out, _ = history()
    assert status == 0
    header, row = out.splitlines()[:2]
    assert header.split()[:5] == ["ROOM", "GAME", "NAME", "HANDS", "SEATS"]
    assert row.startswith(played["room"]) and " holdem " in row and "No-limit Texas Hold'em table" in row
    assert "2/2 0: player0 (" in row
    status, out, _ = history("--json")
    (summary,) = [json.loads(line) for line in out.splitlines()]
    assert summary["room"] == played["room"] and summary["hands"] == 1
    assert [s["name"] for s in summary["seats"]] == ["player0", "player1"]


async def test_hand_and_last_pick_hands_and_a_missing_hand_exits_2(make_app, history):
    played = await play_one_hand(make_app, "holdem")
    room = played["room"]
    assert history("--room", room, "--hand", "1")[1] == history("--room", room, "--last", "3")[1]
    status, out, err = history("--room", room, "--hand", "7")
    assert status == 2 and out == "" and "no hand 7" in err and "hands 1..1" in err


async def test_unknown_room_exits_2_with_a_message_and_no_traceback(history):
    status, out, err = history("--room", "r-nope")
    assert status == 2 and out == ""
    assert err.strip() == "cardroom history: no room 'r-nope' (list the rooms with: cardroom history)"


def test_unreachable_redis_exits_1_with_a_message(capsys):
    status, out, err = run(capsys, "--redis-url", "redis://127.0.0.1:1", "--room", "x")
    assert status == 1 and out == ""
    assert err.startswith("cardroom history: cannot reach Redis at redis://127.0.0.1:1") and "Traceback" not in err


def test_a_data_dir_without_data_exits_1(capsys, tmp_path, monkeypatch):
    monkeypatch.delenv("REDIS_URL", raising=False)
    monkeypatch.delenv("CARDROOM_REDIS_URL", raising=False)
    status, _, err = run(capsys, "--data-dir", str(tmp_path / "none"))
    assert status == 1 and "no cardroom data in" in err
    assert not (tmp_path / "none").exists()  # nothing created


async def _write_a_played_room(url: str) -> str:
    """A Hold'em room with one finished hand, committed like the server does (no server)."""
    game = GAMES["holdem"]
    t = tbl.Table(room="r-disk", game="holdem", config=game.parse_config({}), seats=[None] * 2,
                  options={"name": "Disk table", "action_seconds": 30, "between_hands_seconds": 0,
                           "buy_in_min": 1, "buy_in_max": 10**6})
    events = tbl.sit(t, "p-a", "Alice", 0, 1000)[1] + tbl.sit(t, "p-b", "Bob", 1, 1000)[1]
    events += tbl.start_hand(t, game, shuffled_deck(52), 0)
    while tbl.playing(t):
        events += tbl.play_for(t, game, 0, "timeout")
    r = Redis.from_url(url)
    await Store(r).create_room("r-disk", "holdem", tbl.to_dict(t, game), events, 0, "n-test", 1)
    await r.aclose()
    return "r-disk"


async def test_data_dir_uses_a_running_servers_redis_and_leaves_it_running(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("REDIS_URL", raising=False)
    monkeypatch.delenv("CARDROOM_REDIS_URL", raising=False)
    server_redis = EmbeddedRedis(tmp_path)
    server_redis.start()
    try:
        room = await _write_a_played_room(server_redis.url)
        status, out, err = run(capsys, "--data-dir", str(tmp_path), "--room", room)
        assert status == 0, err
        assert "Alice" in out and "Bob" in out and "clock runs out: the server plays" in out
        assert server_redis.process is not None and server_redis.process.poll() is None  # still serving
    finally:
        server_redis.stop()


async def test_data_dir_without_a_server_starts_redis_for_the_command_and_stops_it(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("REDIS_URL", raising=False)
    monkeypatch.delenv("CARDROOM_REDIS_URL", raising=False)
    earlier = EmbeddedRedis(tmp_path)
    earlier.start()
    await _write_a_played_room(earlier.url)
    earlier.stop()  # the data stays on disk (append-only file)
    status, out, err = run(capsys, "--data-dir", str(tmp_path))
    assert status == 0, err
    assert "r-disk" in out and "Disk table" in out and "2/2 0: Alice (" in out
    assert not (tmp_path / "redis" / "redis.pid").exists()  # the command's own redis-server has exited
    assert earlier.running_pid() is None


ROOM_EVENT_SAMPLES = [
    {"type": "joined", "seat": 1, "player": "p-1", "name": "Bob", "stack": 500},
    {"type": "joined", "seat": 2, "player": "bot-r-2", "name": "Bot Ada", "stack": 2000, "bot": True},
    {"type": "left", "seat": 1, "player": "p-1", "stack": 0, "reason": "busted"},
    {"type": "sat_out", "seat": 1, "reason": "timeouts"},
    {"type": "sat_in", "seat": 1},
    {"type": "auto_play", "seat": 1, "on": True, "reason": "timeouts"},
    {"type": "auto_play", "seat": 1, "on": True, "reason": "asked"},
    {"type": "auto_play", "seat": 1, "on": False},
    {"type": "time_bank", "seat": 1, "bank_ms": 12_500},
    {"type": "leaving", "seat": 1},
    {"type": "hand_started", "hand_no": 4, "button": 1, "seats": [1, 2]},
    {"type": "timed_out", "seat": 1, "action": {"type": "fold"}},
    {"type": "hand_ended", "hand_no": 4, "stacks": [None, 0, 2500]},
    {"type": "rebuy", "seat": 2, "player": "bot-r-2", "amount": 300, "stack": 2000},
    {"type": "stack_reset", "seat": 1, "player": "p-b", "amount": -150, "stack": 2000},
    {"type": "eliminated", "seat": 1, "player": "p-b", "place": 2},
    {"type": "placed", "seat": 2, "player": "p-c", "place": 1},
    {"type": "room_closed", "reason": "empty"},
    {"type": "room_closed", "reason": "match_over"},
    {"type": "room_closed", "reason": "operator"},
    {"type": "closing", "reason": "operator"},
    {"type": "locked", "locked": True},
    {"type": "locked", "locked": False},
    {"type": "chat", "seat": 1, "player": "p-b", "name": "Bob", "text": "gl all", "time_ms": 1},
    {"type": "chat", "seat": None, "player": "p-w", "name": "Watcher", "text": "go Bob", "time_ms": 2},
]


def test_every_room_event_type_has_its_words():
    from server.edge.protocol import ROOM_EVENTS
    from server.records.history import format_room_event

    assert {e["type"] for e in ROOM_EVENT_SAMPLES} == set(ROOM_EVENTS)
    names = {1: "Bob", 2: "Bot Ada"}
    lines = [format_room_event(e, names.__getitem__) for e in ROOM_EVENT_SAMPLES]
    assert lines == [
        "Bob sits down in seat 1 with 500",
        "Bot Ada (bot) sits down in seat 2 with 2000",
        "Bob leaves seat 1 (busted), taking 0",
        "Bob sits out after timing out",
        "Bob sits back in",
        "Bob is auto-played after timing out twice",
        "Bob is auto-played",
        "Bob takes the seat back from auto-play",
        "Bob's clock runs out: 12.5 s of time bank start",
        "Bob will leave after this hand",
        "Hand 4 starts; button Bob",
        "Bob's clock runs out: the server plays fold",
        "Hand 4 ends; stacks: Bob 0, Bot Ada 2500",
        "Bot Ada re-buys 300 (stack 2000)",
        "Bob's stack is reset to 2000 for the next deal (-150)",
        "Bob is out of chips: eliminated in place 2",
        "Bot Ada finishes in place 1",
        "The room is closed: nobody sat in it for a while",
        "The match is over: the room is closed",
        "The room is closed by the operator",
        "The operator closes the room once this hand is over",
        "The room is locked: nobody new sits down",
        "The room is open again",
        "Bob says: gl all",
        "Watcher says: go Bob",
    ]


def test_hands_are_cut_at_hand_started_and_each_starts_with_the_stacks_the_last_one_left():
    from server.records.history import Entry, hand_lines, net_results, select_hands, split_hands

    game = GAMES["holdem"]
    t = tbl.Table(room="r", game="holdem", config=game.parse_config({}), seats=[None] * 3,
                  options={"action_seconds": 30, "between_hands_seconds": 0, "buy_in_min": 1, "buy_in_max": 10**6})
    entries = [Entry("1000-0", 1, tbl.sit(t, "p-a", "Alice", 0, 1000)[1] + tbl.sit(t, "p-b", "Bob", 2, 700)[1])]
    for n in range(2):
        entries.append(Entry(f"{2000 + n}-0", len(entries) + 1, tbl.start_hand(t, game, seeded_deck(52), 0)))
        while tbl.playing(t):
            seat = t.hand.to_act  # Alice raises, Bob checks or folds
            action = ({"type": "raise", "to": game.legal_actions(t.hand, 0).min_to} if seat == 0
                      else game.timeout_action(t.hand, seat))
            entries.append(Entry(f"{2000 + n}-{len(entries)}", len(entries) + 1, tbl.act(t, game, seat, action, 0)))
    hands = split_hands(entries)
    assert [h.number for h in hands] == [1, 2] and all(h.finished for h in hands)
    first, second = hands
    assert [(s.name, s.stack) for s in first.seats] == [("Alice", 1000), ("Bob", 700)]
    moved = net_results(first)
    assert moved == {0: 100, 2: -100}  # Bob folded his big blind to Alice's raise
    assert [(s.name, s.stack) for s in second.seats] == [("Alice", 1000 + moved[0]), ("Bob", 700 + moved[2])]
    assert select_hands(hands, last=1) == [second] and select_hands(hands, number=1) == [first]
    lines = hand_lines(second, game)
    assert lines[0] == "=== Hand 2 (No-limit Texas Hold'em), 1970-01-01 00:00:02 UTC ==="
    assert lines[1] == f"Seats: 0: Alice ({1000 + moved[0]}), 2: Bob ({700 + moved[2]}); button Bob"


# --- --format jsonl / text with fairness proofs -------------------------------------------


def merged_proof(events: list[dict[str, Any]]) -> dict[str, Any] | None:
    """What the hand's ``hand_started`` and ``hand_ended`` events say of its fairness proof."""
    from server.records.history import FAIRNESS_KEYS

    proof: dict[str, Any] = {}
    for e in events:
        if e["type"] in ("hand_started", "hand_ended"):
            proof.update(e.get("fairness") or {})
    return {**{k: proof.get(k) for k in FAIRNESS_KEYS}, **proof} if proof else None


@pytest.mark.parametrize("game_name", sorted(GAMES))
@pytest.mark.parametrize("view", [[], ["--as-seat", "1"], ["--spectator"]])
async def test_jsonl_is_one_object_per_hand_as_that_viewer_saw_it(make_app, history, game_name, view):
    played = await play_one_hand(make_app, game_name)
    room = played["room"]
    status, out, err = history("--room", room, "--format", "jsonl", *view)
    assert status == 0, err
    (hand,) = [json.loads(line) for line in out.splitlines()]
    viewer = None if view == ["--spectator"] else int(view[1]) if view else "all"
    stored = hand_events(await stream_events(played["app"], room))
    assert set(hand) == {"room", "game", "hand", "time_ms", "time", "viewer", "button", "seats", "events", "result",
                         "finished", "fairness"}
    assert (hand["room"], hand["game"], hand["hand"], hand["viewer"], hand["finished"]) == (room, game_name, 1, viewer, True)
    assert hand["time"].endswith("Z") and isinstance(hand["time_ms"], int)
    assert [(s["seat"], s["name"], s["stack"]) for s in hand["seats"]] == \
        [(i, f"player{i}", 2000) for i in range(GAMES[game_name].min_players)]
    assert hand["events"] == [e if viewer == "all" else event_for(e, viewer) for e in stored]
    final = next(e for e in stored if e["type"] == "hand_ended")["stacks"]
    assert hand["result"] == [{"seat": s["seat"], "stack": final[s["seat"]], "net": final[s["seat"]] - 2000}
                              for s in hand["seats"]]
    assert sum(r["net"] for r in hand["result"]) == 0
    assert hand["fairness"] == merged_proof(stored)  # what the server published, or null


async def test_jsonl_carries_the_hands_fairness_proof_and_older_hands_write_null(redis_url, prefix, history):
    from engine import fairness

    from .test_pokerstars import SCENARIOS, SERVER_SEED, store_scripted_hand

    spec = SCENARIOS["showdown"]
    seeds = {0: "alice-seed", 2: "carol_2"}
    await store_scripted_hand(redis_url, prefix, "r-fair", spec["stacks"], spec["script"], seeds=seeds)
    await store_scripted_hand(redis_url, prefix, "r-old", spec["stacks"], spec["script"], proof=False)
    await store_scripted_hand(redis_url, prefix, "r-live", spec["stacks"], spec["script"][:2], finish=False)
    out = history("--room", "r-fair", "--format", "jsonl")[1]
    assert history("--room", "r-fair", "--format", "json")[1] == out  # json: the same
    (hand,) = [json.loads(line) for line in out.splitlines()]
    proof = hand["fairness"]
    assert list(proof) == ["scheme", "commitment", "seeds", "deal_order", "deck_size", "server_seed", "next_commitment"]
    assert proof["scheme"] == "cardroom-v1" and proof["server_seed"] == SERVER_SEED and proof["deck_size"] == 52
    assert proof["commitment"] == fairness.commitment(SERVER_SEED) != proof["next_commitment"]
    assert proof["seeds"] == [{"seat": 0, "seed": "alice-seed"}, {"seat": 1, "seed": ""}, {"seat": 2, "seed": "carol_2"}]
    # the export alone proves the deal: the deck derived from it puts every card seen where it was
    deck = fairness.derive_deck(proof["server_seed"], hand["room"], hand["hand"], [s["seed"] for s in proof["seeds"]], 52)
    placed = fairness.layout(GAMES["holdem"], deck, proof["deal_order"])
    assert {e["seat"]: e["cards"] for e in hand["events"] if e["type"] == "deal"} == placed["hands"]
    assert [e["board"] for e in hand["events"] if e["type"] == "board"][-1] == placed["board"]
    # a hand stored before fair deals: null; a hand still being played: no seed yet
    (old,) = [json.loads(line) for line in history("--room", "r-old", "--format", "jsonl")[1].splitlines()]
    assert old["fairness"] is None and old["finished"]
    (live,) = [json.loads(line) for line in history("--room", "r-live", "--format", "jsonl")[1].splitlines()]
    assert not live["finished"] and live["result"] == []
    assert live["fairness"]["commitment"] == proof["commitment"] and live["fairness"]["server_seed"] is None
    # without --room, --format jsonl lists the rooms as --json does
    assert history("--format", "jsonl")[1] == history("--json")[1]


async def test_text_shows_the_commitment_and_the_revealed_seed(redis_url, prefix, history):
    from engine import fairness

    from .test_pokerstars import SCENARIOS, SERVER_SEED, store_scripted_hand

    spec = SCENARIOS["folds"]
    await store_scripted_hand(redis_url, prefix, "r-fair", spec["stacks"], spec["script"], seeds={1: "bob"})
    await store_scripted_hand(redis_url, prefix, "r-old", spec["stacks"], spec["script"], proof=False)
    status, out, err = history("--room", "r-fair")
    assert status == 0, err
    assert history("--room", "r-fair", "--format", "text")[1] == out
    lines = out.splitlines()
    assert lines[2] == (f"Deck commitment {fairness.commitment(SERVER_SEED)} (cardroom-v1); "
                        'seeds: Alice none, Bob "bob", Dave none')
    ends = next(i for i, line in enumerate(lines) if line.startswith("Hand 1 ends"))
    assert lines[ends + 1] == (f"Server seed {SERVER_SEED} (matches the commitment), "
                               "verify with: cardroom verify --room r-fair --hand 1")
    old = history("--room", "r-old")[1]
    assert "Deck commitment" not in old and "Server seed" not in old


def test_a_revealed_seed_that_does_not_match_its_commitment_is_called_out():
    from server.records.history import seed_line

    proof = {"commitment": "00" * 32}
    assert "(does NOT match the commitment)" in seed_line({"server_seed": "11" * 32}, proof, "r-x", 3)
    assert "(not a valid seed)" in seed_line({"server_seed": "xyz"}, proof, None, 3)
    assert seed_line({"server_seed": "11" * 32}, proof, None, 3).endswith("verify with: cardroom verify --hand 3")


@pytest.mark.parametrize("fmt", [[], ["--format", "jsonl"], ["--json"], ["--format", "pokerstars"]])
async def test_as_seat_beyond_the_table_is_refused_naming_its_seats(redis_url, prefix, history, fmt):
    from .test_pokerstars import store_scripted_hand

    await store_scripted_hand(redis_url, prefix, "r-five", [2000] * 5, ["fold"] * 4)
    for seat in ("9", "5"):
        assert history("--room", "r-five", "--as-seat", seat, *fmt) == (
            2, "", f"cardroom history: --as-seat {seat}: room r-five has no seat {seat} (its table has seats 0-4)\n")
    status, out, err = history("--room", "r-five", "--as-seat", "4", *fmt)
    assert (status, err) == (0, "") and out


def test_help_says_what_each_format_is_and_which_one_verify_reads(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["history", "--help"])
    assert exited.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "jsonl: one JSON object per hand (seats, events, result, fairness proof), what `cardroom verify " \
           "--file` checks; json: the same as jsonl (unlike --json)" in text
    assert "one JSON line per event (or per room without --room), not one per hand, so not what `cardroom " \
           "verify --file` reads (that is --format jsonl)" in text
