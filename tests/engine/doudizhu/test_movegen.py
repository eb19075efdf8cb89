"""Dou Dizhu move generation, cross-checked against brute force."""

from __future__ import annotations

import random
from itertools import product

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import parse_cards
from engine.doudizhu.movegen import cards_for, legal_plays
from engine.doudizhu.plays import DEFAULT_RULES, Play, Rules, beats, classify
from engine.doudizhu.ranks import counts_from_cards, ddz_rank, format_counts, to_counts

OPTION_NAMES = [name for name in Rules().to_dict() if name != "four_with_two"]
HOUSE_RULES = [Rules(four_with_two=False)] + [Rules(**{name: True}) for name in OPTION_NAMES]


def brute_force(hand: tuple[int, ...], rules: Rules) -> set[Play]:
    """Every sub-multiset of the hand through ``classify``."""
    found = set()
    for sub in product(*(range(n + 1) for n in hand)):
        play = classify(sub, rules)
        if play is not None:
            found.add(play)
    return found


def check_hand(hand: tuple[int, ...], prevs: list[Play], rules: Rules) -> set[Play]:
    """legal_plays == brute force, leading and answering each of ``prevs``."""
    every = brute_force(hand, rules)
    for prev in [None, *prevs]:
        listed = legal_plays(hand, prev, rules)
        expected = {p for p in every if prev is None or beats(p, prev)}
        assert len(listed) == len(set(listed)), "a play listed twice"
        missing = {str(p) for p in expected - set(listed)}
        extra = {str(p) for p in set(listed) - expected}
        assert not missing and not extra, (format_counts(hand), prev and str(prev), missing, extra)
    return every


def some_prevs(rng: random.Random, hand: tuple[int, ...], rules: Rules, n: int) -> list[Play]:
    """Previous plays to answer: some the hand could lead itself, some from another hand."""
    own = sorted(legal_plays(hand, None, rules), key=str)
    other = legal_plays(counts_from_cards(rng.sample(range(54), 17)), None, rules)
    return rng.sample(own, min(n, len(own))) + rng.sample(other, n)


def dense_hand(rng: random.Random, size: int) -> list[int]:
    """A hand from few ranks (plus the jokers), rich in trios, fours and airplanes."""
    start = rng.randrange(0, 8)
    ranks = range(start, start + rng.randrange(5, 8))
    deck = [c for c in range(52) if ddz_rank(c) in ranks] + [52, 53]
    return rng.sample(deck, min(size, len(deck)))


def positions(rng: random.Random, hands: int, dense: bool):
    """Rank counts of seeded random hands, alternately 20 and 17 cards."""
    for i in range(hands):
        size = 17 if i % 2 else 20
        cards = dense_hand(rng, size) if dense else rng.sample(range(54), size)
        yield counts_from_cards(cards)


def test_legal_plays_match_brute_force_on_random_17_and_20_card_hands():
    rng = random.Random(20261122)
    for hand in positions(rng, 40, dense=False):
        check_hand(hand, some_prevs(rng, hand, DEFAULT_RULES, 4), DEFAULT_RULES)


def test_legal_plays_match_brute_force_on_hands_rich_in_airplanes_and_bombs():
    rng = random.Random(7)
    for hand in positions(rng, 40, dense=True):
        check_hand(hand, some_prevs(rng, hand, DEFAULT_RULES, 4), DEFAULT_RULES)


@pytest.mark.parametrize("rules", HOUSE_RULES, ids=lambda r: next(
    (k for k, v in r.to_dict().items() if v != Rules().to_dict()[k]), "default"))
def test_legal_plays_match_brute_force_under_each_house_rule(rules):
    rng = random.Random(11)
    for hand in positions(rng, 10, dense=True):
        check_hand(hand, some_prevs(rng, hand, rules, 3), rules)


def test_every_option_at_once_still_matches_brute_force():
    rules = Rules(**{name: True for name in OPTION_NAMES})
    rng = random.Random(5)
    for hand in positions(rng, 10, dense=True):
        check_hand(hand, some_prevs(rng, hand, rules, 3), rules)


@pytest.mark.parametrize("hand", ["33344455566677789TJQ", "3334445556668899TTJJ",
                                  "3334445556667772222B", "444555666777888333BR"])
def test_twenty_card_airplanes_match_brute_force(hand):
    counts = to_counts(hand)
    every = check_hand(counts, [], DEFAULT_RULES)
    longest = max(p.length for p in every if p.kind.startswith("airplane_"))
    assert longest >= 4
    check_hand(counts, [p for p in every if p.kind.startswith("airplane_")][:5], DEFAULT_RULES)


def test_leading_lists_each_kind_the_hand_holds():
    kinds = {p.kind for p in legal_plays("3334445555667788BR")}
    assert kinds == {
        "solo", "pair", "trio", "trio_solo", "trio_pair", "pair_chain", "airplane",
        "airplane_solo", "airplane_pair", "four_two_solo", "four_two_pair", "bomb", "rocket",
        "solo_chain",
    }


def test_plays_are_listed_kind_by_kind_each_kind_by_rank():
    plays = legal_plays("33344455566677789TJQKA2222BR")
    kinds = [p.kind for p in plays]
    blocks = [k for i, k in enumerate(kinds) if i == 0 or kinds[i - 1] != k]
    assert len(blocks) == len(set(blocks)), blocks  # each kind in one block
    assert blocks[:3] == ["solo", "pair", "trio"] and blocks[-2:] == ["bomb", "rocket"]
    for kind in blocks:
        ranks = [p.rank for p in plays if p.kind == kind]
        assert ranks == sorted(ranks), kind
    answers = [p.kind for p in legal_plays("33344455566677789TJQKA2222BR", "3")]
    assert answers == ["solo"] * (len(answers) - 2) + ["bomb", "rocket"]


def test_responses_are_same_kind_and_length_and_higher_or_bombs():
    plays = {str(p) for p in legal_plays("456789TJQ3333", "45678")}
    assert plays == {"56789", "6789T", "789TJ", "89TJQ", "3333"}


def test_kickers_of_the_previous_play_do_not_matter():
    plays = {str(p) for p in legal_plays("44422", "333A")}
    assert plays == {"4442"}


def test_a_bomb_is_answered_only_by_higher_bombs_and_the_rocket():
    plays = {str(p) for p in legal_plays("3333555577BR", "4444")}
    assert plays == {"5555", "BR"}


def test_nothing_beats_the_rocket():
    assert legal_plays("22223333AAAA", "BR") == []


def test_an_empty_hand_has_no_plays():
    assert legal_plays([]) == []


def test_hand_forms_give_the_same_plays():
    ids = parse_cards("3c 3d 3h 4s 4c 4d 5h 5s BJ RJ")
    by_ids = legal_plays(ids)
    assert by_ids == legal_plays("BR33344455") == legal_plays(to_counts(ids))
    assert legal_plays(ids, "3") == legal_plays(ids, classify("3"))


def test_a_previous_play_that_is_not_a_play_is_rejected():
    with pytest.raises(ValueError):
        legal_plays("33344455", "34")


def test_cards_for_picks_the_lowest_ids_of_each_rank_deterministically():
    hand = parse_cards("3s 3c 3h 3d 4h 4c 5d BJ RJ")
    chosen = cards_for(classify("3334"), hand)
    assert chosen == sorted(parse_cards("3c 3d 3h 4c"))
    assert cards_for("3334", list(reversed(hand))) == chosen
    assert cards_for(classify("BR"), hand) == [52, 53]


def test_cards_for_rejects_a_play_the_hand_does_not_hold():
    with pytest.raises(ValueError):
        cards_for(classify("333"), parse_cards("3c 3d 4h"))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 53), min_size=1, max_size=20, unique=True))
def test_every_listed_play_can_be_played_from_the_hand(hand):
    for play in legal_plays(hand):
        cards = cards_for(play, hand)
        assert set(cards) <= set(hand)
        assert classify(cards) == play
