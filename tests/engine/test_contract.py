"""Every game honours the same contract the server relies on (engine/game.py)."""

import json
import random

import msgpack
import pytest

from engine.doudizhu import GAME as DOUDIZHU
from engine.errors import ConfigError, IllegalAction
from engine.game import event_for
from engine.holdem import GAME as HOLDEM
from engine.zhajinhua import GAME as ZHAJINHUA

GAMES = [HOLDEM, ZHAJINHUA, DOUDIZHU]


def _deal(game, players=None, seed=1):
    players = players or game.min_players
    seats = [(f"p{i}", 1000) for i in range(players)]
    deck = list(range(game.deck_size))
    random.Random(seed).shuffle(deck)
    return game.new_hand(game.parse_config({}) | {"button": 0}, seats, deck)


def _plain(value):
    assert json.loads(json.dumps(value)) == value
    assert msgpack.unpackb(msgpack.packb(value)) == value


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_every_game_describes_itself_and_validates_options(game):
    info = game.describe()
    _plain(info)
    assert info["game"] == game.name and info["options"]
    with pytest.raises(ConfigError):
        game.parse_config({"no_such_option": 1})


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_opening_events_views_and_state_are_plain_data(game):
    state = _deal(game)
    assert state.to_act is not None and not state.is_over
    events = game.start_events(state)
    assert events and all("type" in e for e in events)
    _plain(events)
    for seat in [None, *range(game.min_players)]:
        view = game.view(state, seat)
        _plain(view)
        assert view["you"] == seat and view["to_act"] == state.to_act
    assert game.from_dict(msgpack.unpackb(msgpack.packb(game.to_dict(state)))) == state


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_private_deals_reach_only_their_seat(game):
    state = _deal(game)
    deals = [e for e in game.start_events(state) if "only" in e]
    if not deals:  # a game that deals face down without naming cards has nothing to hide
        return
    for event in deals:
        owner = event["only"][0]
        assert set(event["secret"]) <= set(event_for(event, owner))
        for viewer in [None, *range(game.min_players)]:
            if viewer not in event["only"]:
                assert not set(event["secret"]) & set(event_for(event, viewer))


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_timeout_action_is_always_accepted(game):
    state = _deal(game)
    for _ in range(400):
        if state.is_over:
            break
        seat = state.to_act
        state, events = game.apply(state, seat, game.timeout_action(state, seat))
        _plain(events)
    assert state.is_over


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_out_of_turn_action_is_rejected_with_a_code(game):
    state = _deal(game)
    other = next(s for s in range(game.min_players) if s != state.to_act)
    before = game.to_dict(state)
    with pytest.raises(IllegalAction) as err:
        game.apply(state, other, {"type": "fold"})
    assert err.value.code
    assert game.to_dict(state) == before


@pytest.mark.parametrize("game,given,field", [
    (HOLDEM, {"small_blind": 100, "big_blind": 50}, "big_blind"),
    (ZHAJINHUA, {"ante": 50, "max_stake": 20}, "max_stake"),
])
def test_options_that_contradict_each_other_are_refused_before_any_deal(game, given, field):
    with pytest.raises(ConfigError) as err:
        game.parse_config(given)
    assert err.value.field == field


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_every_game_tells_the_page_its_words_and_tables(game):
    """What the browser page shows of a game comes from its descriptor: a title and a blurb
    in both languages, front options that are options, a quick table it would open."""
    info = game.describe()
    for lang in ("en", "zh"):
        assert info["strings"][lang]["title"] and info["strings"][lang]["blurb"], lang
    names = {o.name for o in game.options}
    assert set(info["main_options"]) <= names
    for key in {k for words in info["strings"].values() for k in words} - {"title", "blurb"}:
        kind, _, rest = key.partition(".")
        assert kind in ("opt", "optdoc", "choice") and rest.split(".")[0] in names, key
    quick = info["quick"]
    assert game.min_players <= quick["seats"] <= game.max_players
    game.parse_config(quick["config"])
    assert len(info["icon"]) == 1
