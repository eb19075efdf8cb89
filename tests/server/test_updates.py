"""Updates: a room change reaches each viewer as one ``update`` whose patch, applied to the
snapshot that viewer holds, gives exactly the snapshot the server would send it now."""

from __future__ import annotations

import asyncio

from hypothesis import given, settings
from hypothesis import strategies as st

from client_demo.sdk.updates import RoomFollower, apply_patch
from server.games import GAMES
from server.room import shuffled_deck
from server.room.view import _viewer_patch, snapshot_patch

from .test_actions import heads_up_holdem
from .wsclient import Client

LEAF = st.none() | st.booleans() | st.integers() | st.text(max_size=3) | st.lists(st.integers(), max_size=3)
DOCS = st.recursive(LEAF, lambda inner: st.dictionaries(st.sampled_from("abcde"), inner, max_size=5)
                    | st.lists(inner, min_size=2, max_size=2), max_leaves=20)
OBJECTS = st.dictionaries(st.sampled_from("abcde"), DOCS, max_size=5)


@given(OBJECTS, OBJECTS)
def test_the_patch_of_two_snapshots_turns_the_first_into_the_second(old, new):
    old, new = dict(old, version=1), dict(new, version=2)  # a snapshot never loses a member
    new.update({k: None for k in old.keys() - new.keys()})
    assert apply_patch(old, snapshot_patch(old, new)) == new


def plain_patch(old, new):
    """What :func:`snapshot_patch` must give, written plainly from its definition."""
    if isinstance(new, list):
        changed = [(str(i), b, v) for i, (b, v) in enumerate(zip(old, new, strict=True)) if b != v]
    else:
        changed = [(k, old.get(k, ABSENT), v) for k, v in new.items() if old.get(k, ABSENT) != v]
    patch = {"set": {}, "in": {}}
    for key, before, value in changed:
        if isinstance(value, dict) and isinstance(before, dict) and before.keys() <= value.keys():
            patch["in"][key] = plain_patch(before, value)
        elif (isinstance(value, list) and isinstance(before, list) and len(value) == len(before)
              and (any(isinstance(v, dict) for v in value)  # a list of objects (seats), item by item
                   or 2 * sum(b != v for b, v in zip(before, value, strict=True)) <= len(value))):
            patch["in"][key] = plain_patch(before, value)
        else:
            patch["set"][key] = value
    return {part: members for part, members in patch.items() if members}


ABSENT = object()


@settings(deadline=None)
@given(OBJECTS, OBJECTS)
def test_the_patch_is_the_one_its_definition_gives_member_for_member_in_order(old, new):
    patch = snapshot_patch(old, new)
    assert repr(patch) == repr(plain_patch(old, new))  # the same members, of the same types, in order


VIEWS = st.none() | OBJECTS
SEATS = st.none() | st.integers(0, 3)


@settings(deadline=None)
@given(OBJECTS, OBJECTS, SEATS, SEATS, VIEWS, VIEWS)
def test_a_viewers_patch_is_the_shared_parts_then_its_own_members(shared0, shared1, seat0, seat1, view0, view1):
    common = snapshot_patch(shared0, shared1)
    own = plain_patch({"your_seat": seat0, "view": view0}, {"your_seat": seat1, "view": view1})
    expected = {part: {**common.get(part, {}), **own.get(part, {})} for part in ("set", "in")
                if part in common or part in own}
    patch = _viewer_patch(common, (shared0, seat0, view0), (shared1, seat1, view1))
    assert repr(patch) == repr(expected)


def test_one_changed_item_of_a_list_is_patched_alone():
    old = {"version": 1, "seats": [{"name": "a", "stack": 10}, {"name": "b", "stack": 10}]}
    new = {"version": 2, "seats": [{"name": "a", "stack": 10}, {"name": "b", "stack": 20}]}
    patch = snapshot_patch(old, new)
    assert patch == {"set": {"version": 2}, "in": {"seats": {"in": {"1": {"set": {"stack": 20}}}}}}
    assert apply_patch(old, patch) == new


def test_a_list_of_objects_is_patched_item_by_item_however_many_items_changed():
    old = {"version": 1, "seats": [{"name": "a", "bet": 10}, None, {"name": "b", "bet": 20}]}
    new = {"version": 2, "seats": [{"name": "a", "bet": 0}, None, {"name": "b", "bet": 0}]}  # a new street
    patch = snapshot_patch(old, new)
    assert patch["in"] == {"seats": {"in": {"0": {"set": {"bet": 0}}, "2": {"set": {"bet": 0}}}}}
    assert apply_patch(old, patch) == new
    # a list of other values is set whole when more than half of it changed
    assert snapshot_patch({"board": [1, 2]}, {"board": [3, 4]}) == {"set": {"board": [3, 4]}}


def test_an_unchanged_snapshot_gives_an_empty_patch():
    snap = {"version": 3, "view": {"legal": {"call": True}}, "timer": None}
    assert snapshot_patch(snap, dict(snap)) == {}


def test_an_object_that_lost_members_is_replaced_and_nulls_are_kept():
    old = {"version": 1, "view": {"legal": {"call": True, "fold": True}, "pot": 10}, "timer": {"seat": 0}}
    new = {"version": 2, "view": {"legal": {"check": True}, "pot": 10}, "timer": None}
    patch = snapshot_patch(old, new)
    assert patch == {"set": {"version": 2, "timer": None}, "in": {"view": {"set": {"legal": {"check": True}}}}}
    assert apply_patch(old, patch) == new


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
        assert not [p for p in c.patches if "version" in p.get("set", {})]
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
