"""Every strategy always answers with an action the engine accepts, in many seeded
positions per game (short stacks, house rules, both bidding styles ...)."""

from __future__ import annotations

import copy
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.bots import decide, get_strategy, strategies
from engine.bots.arena import play_hand
from engine.registry import installed

GAMES = installed()

HOLDEM_CONFIGS = [{"small_blind": 1, "big_blind": 2}, {"small_blind": 5, "big_blind": 10, "ante": 2}]
ZJH_CONFIGS = [
    {},
    {"all_in": "fold_only", "compare_after_rounds": 0, "max_rounds": 3},
    {"a23": "second", "special_235": "rainbow", "order": "probability", "suit_tiebreak": True,
     "compare_cost_multiplier": 2, "max_stake": 40, "ante": 5},
]
DDZ_CONFIGS = [{"bidding": "score"}, {"bidding": "rob", "max_multiplier": 16},
               {"bidding": "score", "doubling": True, "open_hand": True}]


def play_checked(game: str, names: list[str], config: dict, stacks: list[int], seed: int) -> None:
    """One hand; play_hand raises StrategyError if the engine rejects any action."""
    g = GAMES[game]
    rng = random.Random(seed)
    strategies = [get_strategy(game, n) for n in names]
    bot_rngs = [random.Random(rng.getrandbits(32)) for _ in names]
    play_hand(g, g.parse_config(config), strategies, stacks, rng.randrange(len(names)), rng, bot_rngs)


@given(seed=st.integers(0, 2**32 - 1), players=st.integers(2, 9), short=st.booleans(),
       config=st.sampled_from(HOLDEM_CONFIGS))
@settings(max_examples=120, deadline=None)
def test_holdem_strategies_only_play_legal_actions(seed, players, short, config):
    rng = random.Random(seed)
    names = [rng.choice(["smart", "random", "calling_station"]) for _ in range(players)]
    stacks = [rng.randint(1, 30) if short else rng.randint(50, 400) for _ in range(players)]
    play_checked("holdem", names, config, stacks, seed)


@given(seed=st.integers(0, 2**32 - 1), players=st.integers(2, 6), short=st.booleans(),
       config=st.sampled_from(ZJH_CONFIGS))
@settings(max_examples=120, deadline=None)
def test_zhajinhua_strategies_only_play_legal_actions(seed, players, short, config):
    rng = random.Random(seed)
    names = [rng.choice(["smart", "random", "calling_station"]) for _ in range(players)]
    ante = config.get("ante", 10)
    stacks = [rng.randint(ante, ante * 8) if short else rng.randint(500, 3000) for _ in range(players)]
    play_checked("zhajinhua", names, config, stacks, seed)


@given(seed=st.integers(0, 2**32 - 1), config=st.sampled_from(DDZ_CONFIGS))
@settings(max_examples=60, deadline=None)
def test_doudizhu_strategies_only_play_legal_actions(seed, config):
    rng = random.Random(seed)
    names = [rng.choice(["smart", "random"]) for _ in range(3)]
    play_checked("doudizhu", names, config, [1000, 1000, 1000], seed)


def test_smart_doudizhu_only_plays_legal_moves_in_all_smart_games():
    for seed in range(25):
        play_checked("doudizhu", ["smart"] * 3, DDZ_CONFIGS[seed % len(DDZ_CONFIGS)], [1000] * 3, seed)


def test_every_game_has_a_smart_and_a_random_strategy():
    assert all({"smart", "random"} <= set(strategies(g)) for g in ("holdem", "zhajinhua", "doudizhu"))
    assert "calling_station" in strategies("holdem") and "calling_station" in strategies("zhajinhua")
    assert strategies("chess") == {}
    with pytest.raises(KeyError, match="known"):
        get_strategy("holdem", "genius")


@pytest.mark.parametrize("game", ["holdem", "zhajinhua", "doudizhu"])
def test_strategies_are_pure_same_seed_same_action_and_the_view_is_untouched(game):
    g = GAMES[game]
    rng = random.Random(5)
    players = 3
    deck = list(range(g.deck_size))
    checked = 0
    for hand in range(15):
        rng.shuffle(deck)
        state = g.new_hand({"button": hand % players}, [(f"p{i}", 1000) for i in range(players)], deck)
        steps = 0
        while not state.is_over and steps < 40:
            seat = state.to_act
            view = g.view(state, seat)
            for name in ("smart", "random"):
                before = copy.deepcopy(view)
                a = get_strategy(game, name)(view, view["legal"], random.Random(hand * 100 + steps))
                b = get_strategy(game, name)(view, view["legal"], random.Random(hand * 100 + steps))
                assert a == b
                assert view == before
                checked += 1
            state, _ = g.apply(state, seat, a)
            steps += 1
    assert checked > 100


@pytest.mark.parametrize("game", ["holdem", "zhajinhua", "doudizhu"])
def test_decide_answers_only_for_the_seat_to_act(game):
    g = GAMES[game]
    deck = list(range(g.deck_size))
    random.Random(1).shuffle(deck)
    state = g.new_hand({"button": 0}, [(f"p{i}", 1000) for i in range(3)], deck)
    seat = state.to_act
    other = next(s for s in range(3) if s != seat)
    action = decide(game, "smart", g.view(state, seat), random.Random(0))
    assert action is not None
    g.apply(state, seat, action)  # accepted
    assert decide(game, "smart", g.view(state, other), random.Random(0)) is None
    assert decide(game, "smart", g.view(state, None), random.Random(0)) is None
