"""Dou Dizhu's 明牌 (``open_hand``) and 加倍 (``doubling``) as room options over a real
socket: a room created with them plays the open-hand and doubling phases (bots and a
human alike), every player's view then shows the landlord's hand, chips stay conserved,
and a bad value is refused naming the field."""

from __future__ import annotations

import pytest

from server.games import GAMES
from server.room import shuffled_deck

from .test_bot_seats import FAST, assert_chips_conserved, create, human, play_until


async def test_a_room_with_open_hand_and_doubling_plays_both_phases(make_app):
    app = await make_app(games=GAMES, deck=shuffled_deck)
    c = await human(app)
    # the next hand at once after a redeal (every player passed): FAST waits 600 s between hands
    created = await create(c, "doudizhu", {"doubling": True, "open_hand": True}, seats=3, bots=2,
                           **{**FAST, "between_hands_seconds": 0})
    assert created["t"] == "room", created
    assert created["config"]["doubling"] is True and created["config"]["open_hand"] is True
    room = created["room"]
    await c.request({"t": "join", "room": room})
    events = await play_until(c, room, "doudizhu", lambda e: e["type"] in ("hand_over", "redeal"), timeout=60)
    while events[-1]["type"] == "redeal":  # everyone passed: the next hand
        events = await play_until(c, room, "doudizhu", lambda e: e["type"] in ("hand_over", "redeal"), timeout=60)
    landlord = next(e["seat"] for e in events if e["type"] == "landlord")
    opened = [e for e in events if e["type"] == "open_hand" or e.get("phase") == "open"]
    assert opened and all(e["seat"] == landlord for e in opened)
    doubling = [e["seat"] for e in events if e["type"] == "double" or e.get("phase") == "doubling"]
    assert sorted(doubling) == [0, 1, 2] and doubling[-1] == landlord
    end = events[-1]
    assert all(d is not None for d in end["doubled"]) and sum(end["chips"]) == 0
    await assert_chips_conserved(app)
    await c.close()


@pytest.mark.parametrize("field", ["doubling", "open_hand"])
async def test_a_bad_value_is_refused_naming_the_option(make_app, field):
    app = await make_app(games=GAMES, deck=shuffled_deck)
    c = await human(app)
    err = await create(c, "doudizhu", {field: "yes"})
    assert err["t"] == "error" and err["code"] == "bad_config" and err["field"] == f"config.{field}", err
    await c.close()
