"""Each game's declared actions (Game.actions, made typed structs by server/room/actions.py)
agree with its engine and its document, and a malformed action is refused at the room as ``bad_message`` naming the
field, before the engine sees it, with nothing changed."""

from __future__ import annotations

import re
from pathlib import Path

import msgspec
import pytest

from engine.holdem.hand import ACTION_TYPES as HOLDEM_TYPES
from engine.zhajinhua.flow import ACTION_TYPES as ZHAJINHUA_TYPES
from server.edge.protocol import ProtocolError
from server.games import GAMES
from server.room import shuffled_deck
from server.room.actions import parse_action, tags, union_of

from .wsclient import Client

DOCS = Path(__file__).resolve().parents[2] / "docs"
ENGINE_TYPES = {"holdem": set(HOLDEM_TYPES), "zhajinhua": set(ZHAJINHUA_TYPES),
                "doudizhu": {"bid", "pass", "call", "rob", "play", "open", "double"}}


def test_every_hosted_game_declares_its_actions():
    assert all(union_of(game) is not None for game in GAMES.values())


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_declared_types_are_the_engines(game):
    assert tags(union_of(GAMES[game])) == ENGINE_TYPES[game]


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_declared_action_and_field_is_in_the_games_document(game):
    doc = (DOCS / f"{game}.md").read_text()
    for member in msgspec.inspect.multi_type_info([union_of(GAMES[game])])[0].types:
        tag = member.cls.__struct_config__.tag
        assert re.search(rf'\{{"type": "{tag}"', doc), (game, tag)
        for field in member.fields:
            assert f'"{field.name}"' in doc, (game, tag, field.name)


@pytest.mark.parametrize("game, action, field", [
    ("holdem", {"type": "raise"}, "action.to"),
    ("holdem", {"type": "raise", "to": "40"}, "action.to"),
    ("holdem", {"type": "bet", "to": 40.5}, "action.to"),
    ("holdem", {"type": "raise", "to": 10**13}, "action.to"),
    ("holdem", {"type": "raise", "to": True}, "action.to"),
    ("holdem", {"type": "shove"}, "action.type"),
    ("holdem", {"to": 40}, "action.type"),
    ("zhajinhua", {"type": "compare", "target": -1}, "action.target"),
    ("zhajinhua", {"type": "raise", "to": 4}, "action.stake"),
    ("doudizhu", {"type": "play", "cards": [3, "4"]}, "action.cards[1]"),
    ("doudizhu", {"type": "play", "cards": [54]}, "action.cards[0]"),
    ("doudizhu", {"type": "bid", "value": "3"}, "action.value"),
    ("doudizhu", {"type": "check"}, "action.type"),
])
def test_a_malformed_action_names_its_field(game, action, field):
    with pytest.raises(ProtocolError) as caught:
        parse_action(GAMES[game], action)
    assert (caught.value.code, caught.value.field) == ("bad_message", field)


@pytest.mark.parametrize("game, action", [
    ("holdem", {"type": "raise", "to": 40, "comment": "gl"}),
    ("zhajinhua", {"type": "compare", "target": 2}),
    ("doudizhu", {"type": "play", "cards": "3334"}),
    ("doudizhu", {"type": "play", "cards": [12, 13]}),
    ("doudizhu", {"type": "bid", "value": 7}),  # in shape; the engine says bad_bid
])
def test_a_well_formed_action_reaches_the_engine_as_a_plain_map(game, action):
    parsed = parse_action(GAMES[game], action)
    assert parsed == {k: v for k, v in action.items() if k != "comment"}


async def heads_up_holdem(app, b_subprotocol: str = "cardroom.json") -> tuple[Client, Client, str]:
    """alice (seat 0, JSON) and bob (seat 1) at a new heads-up Hold'em table of ``app``,
    once its first hand started (as alice saw it)."""
    a, b = await Client.connect(app.ws_url), await Client.connect(app.ws_url, b_subprotocol)
    await a.hello("alice")
    await b.hello("bob")
    room = (await a.request({"t": "create_room", "game": "holdem", "options": {"seats": 2}}))["room"]
    await a.request({"t": "join", "room": room, "seat": 0})
    await b.request({"t": "join", "room": room, "seat": 1})
    await a.expect("event", timeout=10, event=lambda e: e["type"] == "hand_started")
    return a, b, room


async def test_over_the_socket_a_malformed_action_changes_nothing(make_app):
    app = await make_app(games=GAMES, deck=shuffled_deck)
    a, b, room = await heads_up_holdem(app, "cardroom.msgpack")
    actor = app.directory.actors[room]
    before = (actor.table.version, actor.table.hand)
    to_act = a if actor.table.hand.to_act == 0 else b
    err = await to_act.request({"t": "act", "room": room, "action": {"type": "raise", "to": "all"}, "id": "x1"})
    assert (err["t"], err["code"], err["field"]) == ("error", "bad_message", "action.to")
    assert (actor.table.version, actor.table.hand) == before
    ack = await to_act.request({"t": "act", "room": room, "action": {"type": "call"}, "id": "x1"})
    assert ack["t"] == "ack"  # the refused id was not remembered


async def test_a_malformed_action_before_any_hand_is_bad_message_not_no_hand(make_app):
    app = await make_app(games=GAMES, deck=shuffled_deck)
    a = await Client.connect(app.ws_url)
    await a.hello("alice")
    room = (await a.request({"t": "create_room", "game": "holdem", "options": {"seats": 2}}))["room"]
    await a.request({"t": "join", "room": room, "seat": 0})
    err = await a.request({"t": "act", "room": room, "action": {"type": "teleport"}, "id": "1"})
    assert (err["code"], err["field"]) == ("bad_message", "action.type"), err
    err = await a.request({"t": "act", "room": room, "action": {"type": "fold"}, "id": "2"})
    assert err["code"] == "no_hand", err  # well formed: then the room says there is no hand
    await a.close()
