"""Provably fair deals (docs/fairness.md): the derivation reproduces the document's worked
example and each engine's dealing, the server commits before the deal and reveals after,
the proof survives a restart mid-hand, and ``cardroom verify`` accepts honest hands and
refuses tampered ones."""

from __future__ import annotations

import copy
import hashlib
import hmac
import json
import random
import re
from pathlib import Path
from typing import Any

import pytest

from engine import fairness
from engine.game import event_for
from server.cli import main
from server.games import GAMES
from server.records.verify import verify_hand

from .test_real_games import choose, next_action
from .wsclient import Client

DOC = (Path(__file__).resolve().parents[2] / "docs" / "fairness.md").read_text()


def doc_value(name: str) -> str:
    return re.search(rf"^{name}\s+(.+)$", DOC, re.M).group(1).strip()


# --- the derivation ----------------------------------------------------------------------------

def test_the_documents_worked_example():
    seed, room, hand_no = doc_value("server_seed"), doc_value("room"), int(doc_value("hand_no"))
    seeds = [s.strip() for s in doc_value("seeds").split(",")]
    assert fairness.commitment(seed) == doc_value("commitment") == hashlib.sha256(bytes.fromhex(seed)).hexdigest()
    message = fairness.message(room, hand_no, seeds, 0)
    assert message.decode() == doc_value("message 0")
    assert hmac.new(bytes.fromhex(seed), message, hashlib.sha256).hexdigest() == doc_value("HMAC 0")
    block = DOC.split("deck (52)", 1)[1].split("as cards", 1)[0]
    assert fairness.derive_deck(seed, room, hand_no, seeds, 52) == [int(x) for x in block.split()]
    dealt = fairness.layout(GAMES["holdem"], fairness.derive_deck(seed, room, hand_no, seeds, 52), [1, 0])
    assert dealt == {"hands": {1: [33, 5], 0: [19, 20]}, "board": [37, 39, 24, 7, 2]}


def test_every_input_changes_the_deck_and_each_deck_is_a_permutation():
    seed = "ab" * 32
    base = fairness.derive_deck(seed, "r-1", 1, ["x", ""], 54)
    assert sorted(base) == list(range(54))
    assert fairness.derive_deck(seed, "r-1", 1, ["x", ""], 54) == base
    for other in [("cd" * 32, "r-1", 1, ["x", ""]), (seed, "r-2", 1, ["x", ""]), (seed, "r-1", 2, ["x", ""]),
                  (seed, "r-1", 1, ["y", ""]), (seed, "r-1", 1, ["x", "z"])]:
        assert fairness.derive_deck(*other, 54) != base


@pytest.mark.parametrize("bad", ["", "00" * 31, "zz" * 32, "00" * 33])
def test_a_malformed_server_seed_is_refused(bad):
    with pytest.raises(ValueError):
        fairness.derive_deck(bad, "r", 1, [], 52)


def test_the_first_card_is_uniform_over_many_seeds():
    counts = [0] * 52
    for i in range(5200):
        counts[fairness.derive_deck(f"{i:064x}", "r", 1, [], 52)[0]] += 1
    chi2 = sum((c - 100) ** 2 / 100 for c in counts)
    assert chi2 < 110  # 51 degrees of freedom: 110 is far beyond p = 0.0001


@pytest.mark.parametrize("name", sorted(GAMES))
def test_the_dealing_rules_are_the_engines(name):
    game, rng = GAMES[name], random.Random(name)
    for _ in range(200):
        deck = rng.sample(range(game.deck_size), game.deck_size)
        n = 3 if name == "doudizhu" else rng.randint(2, 6)
        taken = sorted(rng.sample(range(n + rng.randint(0, 3 if name != "doudizhu" else 0)), n))
        seats = [(f"p{i}", 1000) if i in taken else None for i in range(max(taken) + 1)]
        state = game.new_hand(game.parse_config({}) | {"button": rng.choice(taken)}, seats, deck)
        dealt = fairness.layout(game, deck, fairness.deal_order(game, state, deck))
        held = state.hole if name == "holdem" else state.hands
        assert {s: sorted(c) for s, c in dealt["hands"].items()} == {s: sorted(held[s]) for s in taken}
        if name == "holdem":
            rest = state.deck
            assert dealt["board"] == [rest[1], rest[2], rest[3], rest[5], rest[7]]
        if name == "doudizhu":
            assert sorted(dealt["bottom"]) == sorted(state.bottom)


# --- through the server --------------------------------------------------------------------------

async def seat_players(app, name: str, options: dict[str, Any] | None = None,
                       seeds: list[str | None] | None = None) -> tuple[str, list[Client], dict[str, Any]]:
    game = GAMES[name]
    n = max(2, game.min_players)
    clients = [await Client.connect(app.ws_url) for _ in range(n)]
    for i, c in enumerate(clients):
        await c.hello(f"player{i}")
    room = (await clients[0].request({"t": "create_room", "game": name, "options": {
        "seats": n, "between_hands_seconds": 600, "buy_in_default": 2000, **(options or {})}}))["room"]
    seeds = seeds if seeds is not None else [f"seed-of-{i}" for i in range(n)]
    first = None
    for i, c in enumerate(clients):
        msg = {"t": "join", "room": room, "seat": i} | ({"seed": seeds[i]} if seeds[i] else {})
        snap = await c.request(msg)
        assert snap["t"] == "room", snap
        first = first or snap
    return room, clients, first


async def play_out(app, name: str, room: str, clients: list[Client]) -> None:
    actor = app.directory.actors[room]
    for step in range(400):
        hand = actor.table.hand
        if hand is None:
            await clients[0].expect("event", timeout=10, event=lambda e: e["type"] == "hand_started")
            continue
        if hand.is_over:
            return
        seat = hand.to_act
        view = GAMES[name].view(hand, seat)
        ack = await clients[seat].request({"t": "act", "room": room, "id": f"a{step}",
                                           "action": choose(name, view, hand, seat)})
        assert ack["t"] == "ack", ack
    raise AssertionError("the hand did not end")


async def stored_hand(app, room: str, number: int = 1) -> list[dict[str, Any]]:
    events = [e for _, evs in await app.store.room_events(room) for e in evs]
    starts = [i for i, e in enumerate(events) if e["type"] == "hand_started"]
    begin = starts[number - 1]
    end = next(i for i in range(begin, len(events)) if events[i]["type"] == "hand_ended")
    return events[begin:end + 1]


@pytest.mark.parametrize("name", sorted(GAMES))
async def test_a_hand_is_committed_before_the_deal_revealed_after_and_verifies(make_app, name):
    app = await make_app(games=GAMES, deck=None)
    room, clients, first = await seat_players(app, name)
    committed = first["fairness"]["next_commitment"]
    assert re.fullmatch(r"[0-9a-f]{64}", committed)
    started = await clients[0].expect("event", timeout=10, event=lambda e: e["type"] == "hand_started")
    proof = started["event"]["fairness"]
    assert proof["commitment"] == committed and "server_seed" not in proof
    assert [s["seed"] for s in proof["seeds"]] == [f"seed-of-{i}" for i in range(len(clients))]
    watcher = await Client.connect(app.ws_url)
    await watcher.hello("watcher")
    during = await watcher.request({"t": "spectate", "room": room})
    assert during["playing"] and "server_seed" not in json.dumps(during)
    await play_out(app, name, room, clients)
    ended = await clients[0].expect("event", timeout=10, event=lambda e: e["type"] == "hand_ended")
    reveal = ended["event"]["fairness"]
    assert set(reveal) == {"server_seed", "next_commitment"}  # the rest was said by hand_started
    assert fairness.commitment(reveal["server_seed"]) == committed
    assert reveal["next_commitment"] != committed
    after = await watcher.request({"t": "spectate", "room": room})
    assert after["fairness"] == {"next_commitment": reveal["next_commitment"]}  # the proof is said in events
    told = (await clients[0].request({"t": "history", "room": room, "last": 1}))["hands"][-1]
    assert told["fairness"]["server_seed"] == reveal["server_seed"] and told["fairness"]["commitment"] == committed
    verdict = verify_hand(name, room, await stored_hand(app, room))
    assert verdict.ok, verdict.problems
    assert verdict.cards_checked >= {"holdem": 4, "zhajinhua": 0, "doudizhu": 51}[name]


async def test_tampering_with_a_card_a_seed_or_the_commitment_fails(make_app):
    app = await make_app(games=GAMES, deck=None)
    room, clients, _ = await seat_players(app, "holdem")
    await play_out(app, "holdem", room, clients)
    events = await stored_hand(app, room)
    assert verify_hand("holdem", room, events).ok

    def tampered(change) -> list[str]:
        copied = copy.deepcopy(events)
        change(copied)
        return verify_hand("holdem", room, copied).problems

    def event(evs, kind):
        return next(e for e in evs if e["type"] == kind)

    def swap_card(evs):
        deal = event(evs, "deal")
        deal["cards"][0] = next(c for c in range(52) if c not in deal["cards"])

    assert "which the deck does not deal" in tampered(swap_card)[0]
    assert "committed to" in tampered(lambda evs: event(evs, "hand_ended")["fairness"].update(server_seed="00" * 32))[0]
    assert "committed to" in tampered(lambda evs: event(evs, "hand_started")["fairness"].update(commitment="1" * 64))[0]
    assert tampered(lambda evs: event(evs, "hand_started")["fairness"]["seeds"][0].update(seed="other"))
    assert tampered(lambda evs: event(evs, "board")["cards"].reverse())
    assert "not revealed" in tampered(lambda evs: event(evs, "hand_ended").pop("fairness"))[0]


async def test_set_seed_changes_the_next_hands_seed(make_app):
    app = await make_app(games=GAMES, deck=None)
    room, clients, _ = await seat_players(app, "holdem", {"between_hands_seconds": 0.2})
    await play_out(app, "holdem", room, clients)
    snap = await clients[1].request({"t": "set_seed", "room": room, "seed": "fresh_one-2"})
    assert snap["t"] == "room"
    bad = await clients[1].request({"t": "set_seed", "room": room, "seed": "no spaces"})
    assert (bad["code"], bad["field"]) == ("bad_message", "seed")
    second = await clients[0].expect("event", timeout=10,
                                     event=lambda e: e["type"] == "hand_started" and e["hand_no"] == 2)
    assert [s["seed"] for s in second["event"]["fairness"]["seeds"]] == ["seed-of-0", "fresh_one-2"]


async def test_require_seeds_deals_only_seats_with_a_seed(make_app):
    app = await make_app(games=GAMES, deck=None)
    room, clients, _ = await seat_players(app, "holdem", {"require_seeds": True}, seeds=["mine", None])
    actor = app.directory.actors[room]
    assert actor.table.hand is None  # one seat has no seed: no hand
    await clients[1].request({"t": "set_seed", "room": room, "seed": "now-i-have-one"})
    started = await clients[0].expect("event", timeout=10, event=lambda e: e["type"] == "hand_started")
    assert [s["seed"] for s in started["event"]["fairness"]["seeds"]] == ["mine", "now-i-have-one"]


async def test_a_restart_between_commitment_and_reveal_deals_the_same_deck(make_app):
    first = await make_app(games=GAMES, deck=None)
    room, clients, _ = await seat_players(first, "holdem")
    started = await clients[0].expect("event", timeout=10, event=lambda e: e["type"] == "hand_started")
    hole = list(first.directory.actors[room].table.hand.hole)
    tokens = [c.token for c in clients]
    for c in clients:
        await c.close()
    await first.stop()
    second = await make_app(games=GAMES, deck=None)  # same Redis: loads the room mid-hand
    again = [await Client.connect(second.ws_url) for _ in clients]
    for c, token in zip(again, tokens, strict=True):
        assert (await c.hello(token=token))["t"] == "welcome"
    back = await again[0].request({"t": "sit_in", "room": room})  # a command: the second process takes the room
    assert back["t"] == "room" and back["playing"], back
    await play_out(second, "holdem", room, again)
    events = await stored_hand(second, room)
    assert events[0]["fairness"] == started["event"]["fairness"]
    assert second.directory.actors[room].table.hand.hole == hole
    verdict = verify_hand("holdem", room, events)
    assert verdict.ok, verdict.problems


async def test_cardroom_verify_checks_a_stored_and_an_exported_hand(make_app, redis_url, prefix, tmp_path, capsys):
    app = await make_app(games=GAMES, deck=None)
    room, clients, _ = await seat_players(app, "zhajinhua")
    await play_out(app, "zhajinhua", room, clients)
    where = ["--redis-url", redis_url, "--prefix", prefix]
    capsys.readouterr()
    assert main(["verify", "--room", room, "--hand", "1", *where]) == 0
    assert f"room {room} hand 1: ✔ verified" in capsys.readouterr().out
    assert main(["verify", "--room", room, "--hand", "9", *where]) == 2
    assert main(["history", "--room", room, "--format", "jsonl", "--as-seat", "1", *where]) == 0
    exported = tmp_path / "hand.jsonl"
    exported.write_text(capsys.readouterr().out)
    assert main(["verify", "--file", str(exported)]) == 0
    assert "✔ verified" in capsys.readouterr().out
    hand = json.loads(exported.read_text())
    ended = next(e for e in hand["events"] if e["type"] == "hand_ended")
    ended["fairness"]["server_seed"] = "11" * 32
    exported.write_text(json.dumps(hand))
    assert main(["verify", "--file", str(exported)]) == 1
    assert "✘" in capsys.readouterr().out
    (tmp_path / "junk.json").write_text("not json")
    assert main(["verify", "--file", str(tmp_path / "junk.json")]) == 2


# --- the history message ----------------------------------------------------------------------

async def test_history_gives_a_player_its_own_hands_as_it_saw_them(make_app):
    app = await make_app(games=GAMES, deck=None)
    room, clients, _ = await seat_players(app, "holdem", {"between_hands_seconds": 0.1})
    await play_out(app, "holdem", room, clients)
    await clients[0].expect("event", timeout=10, event=lambda e: e["type"] == "hand_started" and e["hand_no"] == 2)
    await play_out(app, "holdem", room, clients)
    await clients[0].expect("event", timeout=10, event=lambda e: e["type"] == "hand_ended" and e["hand_no"] == 2)
    reply = await clients[0].request({"t": "history", "room": room})
    assert reply["t"] == "history" and [h["hand"] for h in reply["hands"]] == [1, 2]
    for hand in reply["hands"]:
        assert hand["viewer"] == 0 and hand["fairness"]["server_seed"]
        deals = [e for e in hand["events"] if e["type"] == "deal"]
        assert [d["seat"] for d in deals if "cards" in d] == [0]  # only my own hole cards
        assert verify_hand("holdem", room, hand["events"]).ok
    assert [h["hand"] for h in (await clients[1].request({"t": "history", "room": room, "last": 1}))["hands"]] == [2]
    stranger = await Client.connect(app.ws_url)
    await stranger.hello("stranger")
    assert (await stranger.request({"t": "history", "room": room}))["hands"] == []
    bad = await stranger.request({"t": "history", "room": room, "last": 0})
    assert (bad["code"], bad["field"]) == ("bad_message", "last")
    assert (await stranger.request({"t": "history", "room": "r-none"}))["code"] == "no_such_room"


@pytest.mark.parametrize("name", sorted(GAMES))
async def test_history_tells_a_second_device_the_hand_under_way_as_its_seat_sees_it(make_app, name):
    app = await make_app(games=GAMES, deck=None)
    room, clients, _ = await seat_players(app, name)
    actor = app.directory.actors[room]
    if actor.table.hand is None:
        await clients[0].expect("event", timeout=10, event=lambda e: e["type"] == "hand_started")
    for step in range(2):  # two moves into the hand (three passes would end a Dou Dizhu deal)
        hand = actor.table.hand
        seat = hand.to_act
        action = next_action(name, hand, random.Random(step))
        assert (await clients[seat].request({"t": "act", "room": room, "id": f"m{step}", "action": action}))["t"] == "ack"
    assert not actor.table.hand.is_over
    token = clients[0].token
    device = await Client.connect(app.ws_url)  # the same player on another device
    await device.hello(token=token)
    reply = await device.request({"t": "history", "room": room})
    assert reply["hands"] == []  # no finished hand yet
    current = reply["current"]
    stored = stored_hand_so_far([e for _, evs in await app.store.room_events(room) for e in evs])
    assert current["hand"] == 1 and current["finished"] is False and current["viewer"] == 0
    assert current["events"] == [event_for(e, 0) for e in stored]  # every event, as seat 0 sees it
    assert len(current["events"]) > 4 and current["events"][0]["type"] == "hand_started"
    versions = [v for v, evs in await app.store.room_events(room) for _ in evs][-len(stored):]
    assert current["versions"] == versions and versions[-1] == actor.table.version
    assert not (current.get("fairness") or {}).get("server_seed")  # the seed stays secret until the end
    watcher = await Client.connect(app.ws_url)
    await watcher.hello("watcher")
    seen = (await watcher.request({"t": "history", "room": room}))["current"]
    assert seen["viewer"] is None and seen["events"] == [event_for(e, None) for e in stored]
    assert all("only" not in e for e in current["events"] + seen["events"])
    await play_out(app, name, room, clients)
    await clients[0].expect("event", timeout=10, event=lambda e: e["type"] == "hand_ended")
    after = await device.request({"t": "history", "room": room})
    assert after["current"] is None and [h["hand"] for h in after["hands"]] == [1]


def stored_hand_so_far(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The events of the last hand started, to now."""
    start = max(i for i, e in enumerate(events) if e["type"] == "hand_started")
    return events[start:]


async def test_history_never_gives_a_seats_earlier_hands_to_its_next_occupant(make_app):
    app = await make_app(games=GAMES, deck=None)
    room, clients, _ = await seat_players(app, "holdem")
    await play_out(app, "holdem", room, clients)
    assert (await clients[1].request({"t": "leave", "room": room}))["pending"] is False
    newcomer = await Client.connect(app.ws_url)
    await newcomer.hello("newcomer")
    assert (await newcomer.request({"t": "join", "room": room, "seat": 1}))["your_seat"] == 1
    assert (await newcomer.request({"t": "history", "room": room}))["hands"] == []
