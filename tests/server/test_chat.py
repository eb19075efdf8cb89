"""Table chat over real sockets: who may talk, what a line may hold, its limit, the lines
a newcomer gets, and lines crossing processes and surviving a restart."""

from __future__ import annotations

import asyncio

from .test_play import new_room, seated_pair
from .wsclient import Client


async def version_of(c: Client, room: str) -> int:
    return (await c.request({"t": "sync", "room": room}))["version"]


async def test_seated_players_talk_and_everyone_watching_reads_it(connect):
    a, b, room = await seated_pair(connect)
    spy = await connect("spy")
    await spy.request({"t": "spectate", "room": room})
    said = await a.request({"t": "say", "room": room, "text": "  good\\n luck \n  all "})
    assert said["t"] == "said" and said["room"] == room
    for c in (a, b, spy):
        line = await c.expect("event", room=room, event=lambda e: e["type"] == "chat")
        assert line["event"] == {"type": "chat", "seat": 0, "player": a.player, "name": "alice",
                                 "text": "good\\n luck all", "time_ms": line["event"]["time_ms"]}
        assert line["version"] == said["version"]
    # a spectator reads but may not talk, unless the room says so
    refused = await spy.request({"t": "say", "room": room, "text": "hi"})
    assert (refused["code"], refused["room"]) == ("not_seated", room)
    stranger = await connect("stranger")
    assert (await stranger.request({"t": "say", "room": room, "text": "hi"}))["code"] == "not_seated"


async def test_spectators_talk_where_the_room_lets_them(connect):
    a = await connect("alice")
    room = await new_room(a, seats=2, spectator_chat=True)
    spy = await connect("spy")
    await spy.request({"t": "spectate", "room": room})
    assert (await spy.request({"t": "say", "room": room, "text": "watching!"}))["t"] == "said"
    line = await a.expect("event", room=room, event=lambda e: e["type"] == "chat")
    assert (line["event"]["seat"], line["event"]["name"]) == (None, "spy")
    # not watching: no
    other = await connect("other")
    assert (await other.request({"t": "say", "room": room, "text": "hi"}))["code"] == "not_seated"


async def test_a_bad_line_is_refused_and_changes_nothing(connect):
    a, b, room = await seated_pair(connect)
    await a.expect("room", room=room, playing=True)  # the first hand dealt: nothing else happens now
    before = await version_of(a, room)
    for text, code in (("   \n\t ", "bad_message"), ("x" * 201, "bad_message"), ("\x00\x07", "bad_message"),
                       ("y" * 1001, "bad_message")):
        reply = await a.request({"t": "say", "room": room, "text": text})
        assert (reply["t"], reply["code"], reply["field"]) == ("error", code, "text"), reply
    assert await version_of(a, room) == before
    assert (await a.request({"t": "say", "room": room, "text": "z" * 200}))["t"] == "said"  # the longest
    assert await version_of(a, room) == before + 1


async def test_chat_has_its_own_limit(connect):
    a, b, room = await seated_pair(connect)
    replies = [await a.request({"t": "say", "room": room, "text": f"line {i}"}) for i in range(6)]
    assert [r["t"] for r in replies] == ["said"] * 5 + ["error"]
    assert (replies[-1]["code"], replies[-1]["field"]) == ("rate_limited", "text")
    assert (await a.request({"t": "list_rooms"}))["t"] == "rooms"  # the rest of the connection is not limited


async def test_a_newcomer_gets_the_last_thirty_lines_after_the_snapshot(connect):
    a = await connect("alice")
    room = await new_room(a, seats=2, spectator_chat=True)
    talkers = []
    for k in range(7):  # 35 lines, five from each connection (the chat limit is per connection)
        c = await connect(f"talker{k}")
        await c.request({"t": "spectate", "room": room})
        for i in range(5):
            assert (await c.request({"t": "say", "room": room, "text": f"{k}.{i}"}))["t"] == "said"
        talkers.append(c)
    late = await connect("late")
    snap = await late.request({"t": "spectate", "room": room})
    lines = await late.expect("chat", room=room)
    assert lines["version"] == snap["version"]
    assert [x["text"] for x in lines["lines"]] == [f"{k}.{i}" for k in range(7) for i in range(5)][-30:]


async def test_lines_cross_processes_and_outlive_the_process_that_kept_them(make_app):
    first = await make_app()
    a, b = await Client.connect(first.ws_url), await Client.connect(first.ws_url)
    await a.hello("alice")
    await b.hello("bob")
    room = await new_room(a, seats=2, between_hands_seconds=60)
    await a.request({"t": "join", "room": room, "seat": 0, "buy_in": 500})
    second = await make_app()
    far = await Client.connect(second.ws_url)
    await far.hello(token=b.token)  # bob on the other process
    await far.request({"t": "join", "room": room, "seat": 1, "buy_in": 500})
    assert (await far.request({"t": "say", "room": room, "text": "from afar"}))["t"] == "said"
    line = await a.expect("event", room=room, event=lambda e: e["type"] == "chat")
    assert line["event"]["name"] == "bob" and line["event"]["seat"] == 1
    history = await a.request({"t": "history", "room": room})
    said = [e for h in [history["current"]] + history["hands"] if h for e in h["events"] if e["type"] == "chat"]
    assert [e["text"] for e in said] == ["from afar"]
    for c in (a, b, far):
        await c.close()
    await first.stop()  # the owner goes; the room is loaded again from Redis
    await asyncio.sleep(0.1)
    again = await Client.connect(second.ws_url)
    await again.hello(token=a.token)
    lines = await again.expect("chat", room=room)
    assert [x["text"] for x in lines["lines"]] == ["from afar"]
    await again.close()


async def test_the_python_client_says_a_line(app, connect):
    from client_demo.sdk.client import CardroomClient

    a = await connect("alice")
    room = await new_room(a, seats=2)
    async with CardroomClient(app.ws_url, "sdk") as c:
        await c.join(room, buy_in=100)
        assert (await c.say(room, "hello from Python"))["t"] == "said"
    line = await a.expect("event", room=room, event=lambda e: e["type"] == "chat")
    assert (line["event"]["name"], line["event"]["text"]) == ("sdk", "hello from Python")
