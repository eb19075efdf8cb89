"""Updates: a room change reaches each viewer as one ``update`` whose patch, applied to the
snapshot that viewer holds, gives exactly the snapshot the server would send it now."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from client_demo.sdk.updates import RoomFollower, apply_patch
from server.games import GAMES
from server.room import shuffled_deck
from server.room.patch import snapshot_patch, viewer_patch

from .test_actions import heads_up_holdem
from .wsclient import Client

LEAF = st.none() | st.booleans() | st.integers() | st.text(max_size=3) | st.lists(st.integers(), max_size=3)
DOCS = st.recursive(LEAF, lambda inner: st.dictionaries(st.sampled_from("abcd="), inner, max_size=5)
                    | st.lists(inner, min_size=2, max_size=2), max_leaves=20)
OBJECTS = st.dictionaries(st.sampled_from("abcd="), DOCS, max_size=5)  # "=": a member named as a replacement


@given(OBJECTS, OBJECTS)
def test_the_patch_of_two_snapshots_turns_the_first_into_the_second(old, new):
    old, new = dict(old, version=1), dict(new, version=2)  # a snapshot never loses a member
    new.update({k: None for k in old.keys() - new.keys()})
    assert apply_patch(old, snapshot_patch(old, new)) == dict(new, version=1)  # the update carries version


def documented_patched():
    """The ``patched`` function docs/protocol.md gives clients (the README's is the same)."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text()
    code = re.search(r"```python\n(def patched\(doc, patch\):.*?)```", text, re.S).group(1)
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    assert code in readme
    space: dict = {}
    exec(code, space)  # a test reads the docs' own code: nothing a client sends
    return space["patched"]


@settings(deadline=None)
@given(OBJECTS, OBJECTS)
def test_the_documented_way_of_applying_a_patch_gives_the_servers_snapshot(old, new):
    old, new = dict(old, version=1), dict(new, version=1)
    new.update({k: None for k in old.keys() - new.keys()})
    assert PATCHED(old, snapshot_patch(old, new)) == new


PATCHED = documented_patched()


def plain_patch(old, new):
    """What :func:`snapshot_patch` must give, written plainly from its definition."""
    if isinstance(new, list):
        changed = [(str(i), b, v) for i, (b, v) in enumerate(zip(old, new, strict=True)) if b != v]
    else:
        changed = [(k, old.get(k, ABSENT), v) for k, v in new.items() if old.get(k, ABSENT) != v]
    patch = {}
    for key, before, value in changed:
        if isinstance(value, dict) and isinstance(before, dict) and before.keys() <= value.keys():
            inner = plain_patch(before, value)
            patch[key] = {"=": value} if list(inner) == ["="] else inner
        elif isinstance(value, dict) and isinstance(before, (dict, list)):
            patch[key] = {"=": value}  # an object that lost members, or a list that became one
        elif (isinstance(value, list) and isinstance(before, list) and len(value) == len(before)
              and (any(isinstance(v, dict) for v in value)  # a list of objects (seats), item by item
                   or 2 * sum(b != v for b, v in zip(before, value, strict=True)) <= len(value))):
            patch[key] = plain_patch(before, value)
        else:
            patch[key] = value
    return patch


ABSENT = object()


def without_version(patch):
    return {k: v for k, v in patch.items() if k != "version"}


@settings(deadline=None)
@given(OBJECTS, OBJECTS)
def test_the_patch_is_the_one_its_definition_gives_member_for_member_in_order(old, new):
    patch = snapshot_patch(old, new)
    assert repr(patch) == repr(without_version(plain_patch(old, new)))  # the same members, of the same types, in order


VIEWS = st.none() | OBJECTS
SEATS = st.none() | st.integers(0, 3)


@settings(deadline=None)
@given(OBJECTS, OBJECTS, SEATS, SEATS, VIEWS, VIEWS)
def test_a_viewers_patch_is_the_shared_parts_then_its_own_members(shared0, shared1, seat0, seat1, view0, view1):
    common = snapshot_patch(shared0, shared1)
    own = plain_patch({"your_seat": seat0, "view": view0}, {"your_seat": seat1, "view": view1})
    patch = viewer_patch(common, (shared0, seat0, view0), (shared1, seat1, view1))
    assert repr(patch) == repr({**common, **own})


def test_one_changed_item_of_a_list_is_patched_alone():
    old = {"version": 1, "seats": [{"name": "a", "stack": 10}, {"name": "b", "stack": 10}]}
    new = {"version": 2, "seats": [{"name": "a", "stack": 10}, {"name": "b", "stack": 20}]}
    patch = snapshot_patch(old, new)
    assert patch == {"seats": {"1": {"stack": 20}}}
    assert apply_patch(old, patch) == dict(new, version=1)


def test_a_list_of_objects_is_patched_item_by_item_however_many_items_changed():
    old = {"version": 1, "seats": [{"name": "a", "bet": 10}, None, {"name": "b", "bet": 20}]}
    new = {"version": 2, "seats": [{"name": "a", "bet": 0}, None, {"name": "b", "bet": 0}]}  # a new street
    patch = snapshot_patch(old, new)
    assert patch == {"seats": {"0": {"bet": 0}, "2": {"bet": 0}}}
    assert apply_patch(old, patch) == dict(new, version=1)
    # a list of other values is set whole when more than half of it changed
    assert snapshot_patch({"board": [1, 2]}, {"board": [3, 4]}) == {"board": [3, 4]}


def test_an_unchanged_snapshot_gives_an_empty_patch():
    snap = {"version": 3, "view": {"legal": {"call": True}}, "timer": None}
    assert snapshot_patch(snap, dict(snap)) == {}


def test_an_object_that_lost_members_is_replaced_whole_and_nulls_are_values():
    old = {"version": 1, "view": {"legal": {"call": True, "fold": True}, "pot": 10}, "timer": {"seat": 0}}
    new = {"version": 1, "view": {"legal": {"check": True}, "pot": 10}, "timer": None}
    patch = snapshot_patch(old, new)
    assert patch == {"timer": None, "view": {"legal": {"=": {"check": True}}}}
    assert apply_patch(old, patch) == new


def test_an_object_set_where_there_was_none_is_the_value_itself_even_one_named_like_a_replacement():
    old = {"version": 1, "timer": None, "view": {"=": 1, "pot": 0}}
    new = {"version": 1, "timer": {"=": {"seat": 0}}, "view": {"=": 2, "pot": 0}}
    patch = snapshot_patch(old, new)
    # timer was null: the object is its new value; view's one change is its member "=",
    # which a patch cannot name alone: view is replaced whole
    assert patch == {"timer": {"=": {"seat": 0}}, "view": {"=": {"=": 2, "pot": 0}}}
    assert apply_patch(old, patch) == new


def test_an_update_leaves_out_its_base_when_it_is_the_version_before():
    f = RoomFollower()
    f.expand({"t": "room", "room": "r", "version": 3, "view": None, "timer": None})
    out = f.expand({"t": "update", "room": "r", "version": 4, "events": [], "patch": {"timer": {"seat": 1}}})
    assert out[-1] == {"t": "room", "room": "r", "version": 4, "view": None, "timer": {"seat": 1}}
    # one that repeats the version it patches (a connection's status, no new version) says so
    out = f.expand({"t": "update", "room": "r", "version": 4, "base": 4, "events": [], "patch": {"timer": None}})
    assert out[-1]["timer"] is None and out[-1]["version"] == 4


async def test_every_viewer_follows_a_game_by_updates_to_the_snapshot_the_server_would_send(make_app):
    app = await make_app(games=GAMES, deck=shuffled_deck)
    a, b, watcher = (await Client.connect(app.ws_url), await Client.connect(app.ws_url, "cardroom.msgpack"),
                     await Client.connect(app.ws_url))
    for c, name in ((a, "alice"), (b, "bob"), (watcher, "watcher")):
        await c.hello(name)
    room = (await a.request({"t": "create_room", "game": "doudizhu", "options": {"seats": 3, "bots": 1}}))["room"]
    clients = {}
    for c in (a, b):
        joined = await c.request({"t": "join", "room": room})
        assert joined["t"] == "room", joined
        clients[joined["your_seat"]] = c
    await watcher.request({"t": "spectate", "room": room})
    # the humans bid and play (the bot too) until both have followed a dozen changes (the
    # watcher reads its own at the end): counted, not timed, so a slow machine only takes longer
    deadline = asyncio.get_running_loop().time() + 120
    while min(c.updates for c in clients.values()) <= 12:
        assert asyncio.get_running_loop().time() < deadline, [c.updates for c in clients.values()]
        for seat, c in clients.items():
            await c.latest_room(room, settle=0.03)  # reads what has come
            snap = c.follower.rooms[room]
            legal = snap["view"]["legal"] if snap["playing"] and snap["view"] else None
            if legal is None:
                continue
            if legal["phase"] == "play":
                action = {"type": "pass"} if legal["can_pass"] else {"type": "play", "cards": legal["plays"][0]["ranks"]}
            elif legal.get("can_pass") and snap["view"]["bidding"]["high_bid"]:
                action = {"type": "pass"}
            else:
                action = {"type": "bid", "value": max(legal.get("bids") or [1])} if legal["style"] == "score" \
                    else {"type": "call"} if legal.get("can_call") else {"type": "pass"}
            await c.request({"t": "act", "room": room, "action": action, "id": f"{seat}-{snap['version']}"})
    for c in (a, b, watcher):
        for _ in range(20):  # the bot may be acting: compare at one version
            await c.latest_room(room, settle=0.3)
            held = c.follower.rooms[room]
            fresh = await c.request({"t": "sync", "room": room})
            if fresh["version"] == held["version"]:
                break
        assert {k: v for k, v in fresh.items() if k != "ref"} == held
        assert c.updates > 10 and c.gaps == 0, (c.updates, c.gaps)
        # the version is the update's own: no patch repeats it
        assert not [p for p in c.patches if "version" in p]
    for c in (a, b, watcher):
        await c.close()


def test_an_update_for_another_snapshot_is_a_gap_but_its_ack_still_arrives():
    f = RoomFollower()
    f.expand({"t": "room", "room": "r", "version": 3, "view": None})
    out = f.expand({"t": "update", "room": "r", "version": 5, "base": 4, "events": [], "patch": {},
                    "ack": "a1", "ref": 7})
    assert out == [{"t": "ack", "room": "r", "id": "a1", "version": 5, "ref": 7}, {"t": "gap", "room": "r"}]
    assert "r" not in f.rooms  # dropped: the client asks for it again with sync


async def test_the_actor_gets_its_ack_inside_its_update_in_one_frame(make_app):
    app = await make_app(games=GAMES, deck=shuffled_deck)
    a, b, room = await heads_up_holdem(app)
    await b.expect("event", timeout=10, event=lambda e: e["type"] == "hand_started")
    snap = await a.latest_room(room)
    actor = a if snap["view"]["to_act"] == 0 else b
    frames = []
    original = actor._recv

    async def spy(timeout: float):
        before = actor.updates
        m = await original(timeout)
        frames.append((m["t"], actor.updates - before))
        return m

    actor._recv = spy
    ack = await actor.request({"t": "act", "room": room, "action": {"type": "call"}, "id": "c1"})
    assert ack["t"] == "ack" and ack["id"] == "c1"
    assert frames[-1] == ("ack", 1)  # the ack came out of an update frame
    await actor.expect("room", room=room, version=ack["version"])  # and the same frame's snapshot
    for c in (a, b):
        await c.close()
