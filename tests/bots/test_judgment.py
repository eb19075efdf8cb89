"""The smart strategies make the sensible choice in clear-cut positions (set up
through the engines with fixed decks, so the views are exactly what a seat sees)."""

from __future__ import annotations

import random
from dataclasses import replace

from engine import doudizhu, holdem, zhajinhua
from engine.bots import decide
from engine.cards import parse_cards
from engine.doudizhu.bots import bid_strength, hand_cost
from engine.doudizhu.ranks import parse_ranks, sort_cards


def holdem_deck(button_cards: str, other_cards: str, board: str = "") -> list[int]:
    """Heads-up, button 0: the deck deals seat 1, seat 0, seat 1, seat 0, then burns and boards."""
    b, o = parse_cards(button_cards), parse_cards(other_cards)
    board_cards = parse_cards(board)
    used = set(b) | set(o) | set(board_cards)
    rest = [c for c in range(52) if c not in used]
    head = [o[0], b[0], o[1], b[1]]
    if board_cards:  # burn, flop, burn, turn, burn, river
        head += [rest.pop(0)] + board_cards[:3] + [rest.pop(0)] + board_cards[3:4] + [rest.pop(0)] + board_cards[4:5]
    return head + rest


def smart(game: str, state, seat: int, seed: int = 0) -> dict:
    module = {"holdem": holdem, "zhajinhua": zhajinhua, "doudizhu": doudizhu}[game]
    action = decide(game, "smart", module.view(state, seat), random.Random(seed))
    assert action is not None
    module.apply(state, seat, action)  # legal
    return action


def test_holdem_raises_pocket_aces_before_the_flop():
    state = holdem.new_hand({"button": 0, "small_blind": 1, "big_blind": 2},
                            [("a", 200), ("b", 200)], holdem_deck("As Ah", "7c 2d"))
    for seed in range(10):
        assert smart("holdem", state, 0, seed)["type"] in ("raise", "all_in")


def test_holdem_folds_seven_deuce_to_a_big_raise():
    state = holdem.new_hand({"button": 0, "small_blind": 1, "big_blind": 2},
                            [("a", 200), ("b", 200)], holdem_deck("7c 2d", "As Ah"))
    state, _ = holdem.apply(state, 0, {"type": "call"})
    state, _ = holdem.apply(state, 1, {"type": "raise", "to": 60})
    for seed in range(10):
        assert smart("holdem", state, 0, seed) == {"type": "fold"}


def test_holdem_bets_the_nuts_on_the_river_and_folds_air_to_a_pot_sized_bet():
    deck = holdem_deck("Ah Kh", "2c 3d", "Qh Jh Th 5c 8s")  # seat 0 holds a royal flush
    state = holdem.new_hand({"button": 0, "small_blind": 1, "big_blind": 2}, [("a", 200), ("b", 200)], deck)
    state, _ = holdem.apply(state, 0, {"type": "call"})
    state, _ = holdem.apply(state, 1, {"type": "check"})
    for _street in ("flop", "turn"):
        state, _ = holdem.apply(state, 1, {"type": "check"})
        state, _ = holdem.apply(state, 0, {"type": "check"})
    assert state.street == "river" and state.to_act == 1
    state, _ = holdem.apply(state, 1, {"type": "raise", "to": 4})  # seat 1 (air) bets the pot
    for seed in range(5):
        assert smart("holdem", state, 0, seed)["type"] in ("raise", "all_in")
    raised, _ = holdem.apply(state, 0, {"type": "raise", "to": 20})
    for seed in range(5):
        assert smart("holdem", raised, 1, seed) == {"type": "fold"}


def zjh_state(first_cards: str, other_cards: str, players: int = 2, **options):
    """Button 0: seat 1 acts first and is dealt deck[0], deck[n], deck[2n]."""
    mine, theirs = parse_cards(first_cards), parse_cards(other_cards)
    rest = [c for c in range(52) if c not in set(mine) | set(theirs)]
    others = [theirs] + [[rest.pop() for _ in range(3)] for _ in range(players - 2)]
    hands = [mine] + others  # in turn order: seat 1, 2, ..., 0
    deck = [hands[j][k] for k in range(3) for j in range(players)]
    deck += [c for c in rest if c not in deck]
    return zhajinhua.new_hand({"button": 0, **options}, [(f"p{i}", 2000) for i in range(players)], deck)


def test_zhajinhua_looks_before_betting_blind_most_of_the_time():
    state = zjh_state("As Ah Ad", "2c 3d 7h")
    actions = [smart("zhajinhua", state, 1, seed)["type"] for seed in range(20)]
    assert actions.count("look") >= 12 and set(actions) <= {"look", "call"}


def test_zhajinhua_never_folds_trips_and_folds_a_weak_high_card_against_many():
    strong = zjh_state("As Ah Ad", "2c 3d 7h")
    strong, _ = zhajinhua.apply(strong, 1, {"type": "look"})
    assert all(smart("zhajinhua", strong, 1, s)["type"] in ("raise", "call") for s in range(20))
    weak = zjh_state("2c 4d 7h", "As Ah Ad", players=5)
    weak, _ = zhajinhua.apply(weak, 1, {"type": "look"})
    assert all(smart("zhajinhua", weak, 1, s) == {"type": "fold"} for s in range(20))


def ddz_deck(first: str) -> list[int]:
    """Button 0: seat 1 bids first and gets ``first`` (17 ranks); the rest is dealt in id order."""
    pool = {r: [c for c in range(54) if doudizhu.ddz_rank(c) == r] for r in range(15)}
    mine = [pool[i].pop() for i, n in enumerate(parse_ranks(first)) for _ in range(n)]
    assert len(mine) == 17
    rest = [c for c in range(54) if c not in mine]
    others = [rest[0:17], rest[17:34]]
    return [(mine, *others)[k % 3][k // 3] for k in range(51)] + rest[34:]


STRONG = "BR2222AAKKQQJJ987"  # rocket, a bomb of twos, a pair chain
WEAK = "33466899TQJK57K4A"  # no big cards, no chain: six moves


def test_doudizhu_bids_three_with_a_monster_and_passes_a_weak_hand():
    assert bid_strength(parse_ranks(STRONG)) > bid_strength(parse_ranks(WEAK)) + 10
    seats = [("a", 1000), ("b", 1000), ("c", 1000)]
    for seed in range(5):
        strong = doudizhu.new_hand({"button": 0}, seats, ddz_deck(STRONG))
        assert smart("doudizhu", strong, 1, seed) == {"type": "bid", "value": 3}
        weak = doudizhu.new_hand({"button": 0}, seats, ddz_deck(WEAK))
        assert smart("doudizhu", weak, 1, seed) == {"type": "pass"}
        robbing = doudizhu.new_hand({"button": 0, "bidding": "rob"}, seats, ddz_deck(STRONG))
        assert smart("doudizhu", robbing, 1, seed) == {"type": "call"}


def test_doudizhu_shows_and_doubles_a_monster_and_keeps_a_weak_hand_quiet():
    seats = [("a", 1000), ("b", 1000), ("c", 1000)]
    config = {"button": 0, "open_hand": True, "doubling": True}
    for seed in range(5):
        strong, _ = doudizhu.apply(doudizhu.new_hand(config, seats, ddz_deck(STRONG)), 1, {"type": "bid", "value": 3})
        assert strong.phase == "open"
        assert smart("doudizhu", strong, 1, seed) == {"type": "open"}  # before the bottom cards
        weak, _ = doudizhu.apply(doudizhu.new_hand(config, seats, ddz_deck(WEAK)), 1, {"type": "bid", "value": 3})
        assert smart("doudizhu", weak, 1, seed) == {"type": "pass"}
        weak, _ = doudizhu.apply(weak, 1, {"type": "pass"})  # bottom taken: still too weak to show
        assert smart("doudizhu", weak, 1, seed) == {"type": "pass"}
        # doubling: seat 1 (the monster) is a peasant when seat 2 is the landlord
        s = doudizhu.new_hand({"button": 0, "doubling": True}, seats, ddz_deck(STRONG))
        s, _ = doudizhu.apply(s, 1, {"type": "pass"})
        s, _ = doudizhu.apply(s, 2, {"type": "bid", "value": 3})
        assert s.phase == "doubling" and s.to_act == 0
        s, _ = doudizhu.apply(s, 0, {"type": "pass"})
        assert smart("doudizhu", s, 1, seed) == {"type": "double"}
        w = doudizhu.new_hand({"button": 0, "doubling": True}, seats, ddz_deck(WEAK))
        w, _ = doudizhu.apply(w, 1, {"type": "pass"})
        w, _ = doudizhu.apply(w, 2, {"type": "bid", "value": 3})
        w, _ = doudizhu.apply(w, 0, {"type": "pass"})
        assert smart("doudizhu", w, 1, seed) == {"type": "pass"}


def ddz_playing(hands: dict[int, str], landlord: int, to_act: int, to_beat: tuple[int, str] | None):
    """A play-phase position with the given hands (rank strings) by seat."""
    base = doudizhu.new_hand({"button": 0}, [("a", 1000), ("b", 1000), ("c", 1000)], list(range(54)))
    pool = {r: [c for c in range(54) if doudizhu.ddz_rank(c) == r] for r in range(15)}
    cards = {s: sort_cards([pool[i].pop() for i, n in enumerate(parse_ranks(h)) for _ in range(n)])
             for s, h in hands.items()}
    move = None
    if to_beat is not None:
        seat, ranks = to_beat
        ids = [pool[i].pop() for i, n in enumerate(parse_ranks(ranks)) for _ in range(n)]
        play = doudizhu.classify(ids)
        move = {"seat": seat, "type": "play", "cards": sort_cards(ids), "ranks": play.cards, "kind": play.kind}
    return replace(base, phase="play", landlord=landlord, bottom_taken=True, to_act=to_act,
                   hands=[cards[0], cards[1], cards[2]], to_beat=move,
                   trick=[move] if move else [], history=[move] if move else [], passes=0)


def test_doudizhu_plays_out_when_one_play_takes_every_card():
    state = ddz_playing({0: "33344455", 1: "3456789TJQKA2", 2: "56789TJQK"}, landlord=0, to_act=0, to_beat=None)
    assert smart("doudizhu", state, 0) == {"type": "play", "cards": "33344455"}


def test_doudizhu_leads_a_chain_rather_than_breaking_it_into_solos():
    state = ddz_playing({0: "3456789QQ", 1: "3456789TJQKA2", 2: "56789TJQK"}, landlord=0, to_act=0, to_beat=None)
    action = smart("doudizhu", state, 0)
    assert action["type"] == "play" and sorted(action["cards"]) == sorted("3456789")


def test_doudizhu_peasant_lets_its_partner_s_play_stand():
    # Seat 0 is landlord; seats 1 and 2 are partners. Seat 1 played a pair; seat 2 could beat it.
    state = ddz_playing({0: "3456789TJQKA2", 1: "678", 2: "KKAA55"}, landlord=0, to_act=2, to_beat=(1, "99"))
    assert smart("doudizhu", state, 2) == {"type": "pass"}


def test_doudizhu_keeps_its_bomb_early_but_bombs_an_opponent_about_to_go_out():
    early = ddz_playing({0: "34568TJQKAA", 1: "34569TJQKA2", 2: "7777569TJQK"}, landlord=0,
                       to_act=2, to_beat=(0, "2"))
    assert smart("doudizhu", early, 2) == {"type": "pass"}
    late = ddz_playing({0: "33", 1: "34569TJQKA2", 2: "7777569TJQK"}, landlord=0, to_act=2, to_beat=(0, "2"))
    assert smart("doudizhu", late, 2) == {"type": "play", "cards": "7777"}


def test_hand_cost_counts_the_fewest_moves():
    assert hand_cost(parse_ranks("")) == 0
    assert hand_cost(parse_ranks("33344455")) == 1  # an airplane with two solo wings
    assert hand_cost(parse_ranks("3456789TJQKA")) == 1
    assert hand_cost(parse_ranks("BR2222")) == 2
    assert hand_cost(parse_ranks("3579J")) == 5


def test_doudizhu_peasant_feeds_its_lowest_card_to_a_partner_holding_one_card():
    state = ddz_playing({0: "3456789TJQKAA", 1: "K", 2: "4455JJQ"}, landlord=0, to_act=2, to_beat=None)
    assert smart("doudizhu", state, 2) == {"type": "play", "cards": "4"}
    pairs = ddz_playing({0: "3456789TJQKAA", 1: "KK", 2: "4455JJQ"}, landlord=0, to_act=2, to_beat=None)
    assert smart("doudizhu", pairs, 2) == {"type": "play", "cards": "44"}
