"""Hand evaluation: exact counts, ordering, 5/6/7-card agreement, describe(), bad input."""

from __future__ import annotations

import random
import subprocess
import sys
from collections import Counter
from itertools import chain, combinations, pairwise

import numpy as np
import pytest

from engine.cards import parse_cards
from engine.holdem.batch import evaluate_many
from engine.holdem.evaluator import (
    CATEGORY_NAMES,
    MAX_VALUE,
    best_five,
    category,
    describe,
    evaluate,
    evaluate7,
    hand_class,
)
from engine.holdem.tables import NONFLUSH_VALUES, RANK_KEYS

STRAIGHT_FLUSH, FOUR, FULL_HOUSE, FLUSH, STRAIGHT, TRIPS, TWO_PAIR, PAIR, HIGH = range(8, -1, -1)


def value(text: str) -> int:
    return evaluate(parse_cards(text))


def reference_key(cards: tuple[int, ...]) -> tuple[int, tuple[int, ...]]:
    """Independent textbook classifier of five cards: (category, tie-break ranks)."""
    ranks = sorted((c >> 2 for c in cards), reverse=True)
    counts = Counter(ranks)
    by_count = sorted(counts, key=lambda r: (counts[r], r), reverse=True)
    shape = sorted(counts.values(), reverse=True)
    flush = len({c & 3 for c in cards}) == 1
    straight_top = None
    if len(counts) == 5:
        if ranks[0] - ranks[4] == 4:
            straight_top = ranks[0]
        elif ranks == [12, 3, 2, 1, 0]:
            straight_top = 3
    if straight_top is not None:
        return (STRAIGHT_FLUSH if flush else STRAIGHT, (straight_top,))
    if shape[0] == 4:
        return (FOUR, tuple(by_count))
    if shape == [3, 2]:
        return (FULL_HOUSE, tuple(by_count))
    if flush:
        return (FLUSH, tuple(ranks))
    if shape[0] == 3:
        return (TRIPS, tuple(by_count))
    if shape == [2, 2, 1]:
        return (TWO_PAIR, tuple(by_count))
    if shape[0] == 2:
        return (PAIR, tuple(by_count))
    return (HIGH, tuple(ranks))


@pytest.mark.slow
def test_all_five_card_hands_give_the_known_category_counts_and_7462_values():
    values = Counter(evaluate(five) for five in combinations(range(52), 5))
    assert sum(values.values()) == 2_598_960
    assert len(values) == 7462
    assert sorted(values) == list(range(1, MAX_VALUE + 1))
    per_category = Counter()
    for v, n in values.items():
        per_category[CATEGORY_NAMES[category(v)]] += n
    assert per_category == {
        "Straight flush": 40, "Four of a kind": 624, "Full house": 3_744,
        "Flush": 5_108, "Straight": 10_200, "Three of a kind": 54_912,
        "Two pair": 123_552, "One pair": 1_098_240, "High card": 1_302_540,
    }
    classes_per_category = Counter(CATEGORY_NAMES[category(v)] for v in values)
    assert classes_per_category == {
        "Straight flush": 10, "Four of a kind": 156, "Full house": 156, "Flush": 1_277,
        "Straight": 10, "Three of a kind": 858, "Two pair": 858, "One pair": 2_860,
        "High card": 1_277,
    }


@pytest.mark.slow
def test_batch_agrees_with_evaluate_on_all_five_card_hands():
    flat = chain.from_iterable(combinations(range(52), 5))
    hands = np.fromiter(flat, dtype=np.int8, count=2_598_960 * 5).reshape(-1, 5)
    batch = evaluate_many(hands)
    sample = range(0, len(hands), 997)
    assert all(batch[i] == evaluate(hands[i].tolist()) for i in sample)
    counts = np.bincount(batch, minlength=MAX_VALUE + 1)
    assert counts[0] == 0 and np.count_nonzero(counts) == 7462


def test_values_order_five_card_hands_like_the_textbook_ranking():
    rng = random.Random(1)
    deck = list(range(52))
    hands = [tuple(rng.sample(deck, 5)) for _ in range(20_000)]
    keyed = sorted(hands, key=reference_key)
    values = [evaluate(h) for h in keyed]
    keys = [reference_key(h) for h in keyed]
    for (k1, v1), (k2, v2) in pairwise(zip(keys, values, strict=True)):
        assert (v1 < v2) if k1 < k2 else (v1 == v2)


def test_wheel_is_the_lowest_straight():
    wheel = value("As 2d 3c 4h 5s")
    assert category(wheel) == STRAIGHT
    assert describe(wheel) == "Straight, five high"
    assert wheel < value("2d 3c 4h 5s 6s")
    assert wheel > value("As Ad Ah Ks Qd")  # above every three of a kind
    all_values = range(1, MAX_VALUE + 1)
    assert wheel == min(v for v in all_values if category(v) == STRAIGHT)
    ranks = "A23456789TJQKA"
    for suits in ("cdhsc", "sssds", "hcccc"):
        straights = [evaluate(parse_cards(" ".join(r + s for r, s in zip(
            ranks[low:low + 5], suits, strict=True)))) for low in range(10)]
        assert straights[0] == wheel
        assert straights == sorted(set(straights))  # each higher straight is better


def test_steel_wheel_is_the_lowest_straight_flush():
    steel_wheel = value("Ah 2h 3h 4h 5h")
    assert category(steel_wheel) == STRAIGHT_FLUSH
    assert describe(steel_wheel) == "Straight flush, five high"
    assert steel_wheel < value("2h 3h 4h 5h 6h")
    assert steel_wheel > value("As Ad Ah Ac Ks")  # above the best four of a kind
    all_values = range(1, MAX_VALUE + 1)
    assert steel_wheel == min(v for v in all_values if category(v) == STRAIGHT_FLUSH)
    ranks = "A23456789TJQKA"
    for suit in "cdhs":
        straight_flushes = [evaluate(parse_cards(" ".join(r + suit for r in ranks[low:low + 5])))
                            for low in range(10)]
        assert straight_flushes[0] == steel_wheel
        assert straight_flushes == sorted(set(straight_flushes))
    royal = value("Ts Js Qs Ks As")
    assert royal == MAX_VALUE and describe(royal) == "Royal flush"


def test_ace_plays_high_or_low_but_does_not_wrap_around():
    assert category(value("Qs Kd Ah 2c 3s")) == HIGH
    assert describe(value("Ts Jd Qh Kc As")) == "Straight, ace high"


def test_kickers_decide_between_equal_pairs_and_suits_never_do():
    assert value("Ah Ad Kc 9s 4h") > value("As Ac Qc Js Th")
    assert value("Ah Ad Kc 9s 4h") == value("As Ac Kd 9h 4c")
    assert value("Ah Kh 9h 7h 3h") == value("As Ks 9s 7s 3s")
    # the board plays: both players have the same best five
    board = "Ks Kd 9h 9c As"
    assert value(f"2c 3d {board}") == value(f"4c 5d {board}")


def test_hand_values_rank_the_categories_in_order():
    examples = ["As Kd 9h 7c 3s", "Ks Kd 9h 7c 3s", "Ks Kd 9h 9c 3s", "Ks Kd Kh 7c 3s",
                "9s Td Jh Qc Ks", "2s 7s 9s Js Ks", "Ks Kd Kh 7c 7s", "Ks Kd Kh Kc 3s",
                "9s Ts Js Qs Ks"]
    values = [value(e) for e in examples]
    assert values == sorted(values) and len(set(values)) == 9
    assert [category(v) for v in values] == list(range(9))


def test_seven_cards_take_the_best_of_their_21_five_card_subsets():
    rng = random.Random(7)
    for _ in range(20_000):
        cards = rng.sample(range(52), 7)
        best = max(evaluate(five) for five in combinations(cards, 5))
        assert evaluate(cards) == best
        assert evaluate7(*cards) == best


def test_seven_card_flushes_and_straight_flushes_take_the_best_subset():
    rng = random.Random(8)
    for _ in range(3_000):  # force a flush suit with 5 to 7 cards of it
        suit = rng.randrange(4)
        n_suited = rng.randint(5, 7)
        suited = rng.sample([r * 4 + suit for r in range(13)], n_suited)
        others = rng.sample([c for c in range(52) if c & 3 != suit], 7 - n_suited)
        cards = suited + others
        rng.shuffle(cards)
        assert evaluate(cards) == max(evaluate(f) for f in combinations(cards, 5))


def test_six_cards_take_the_best_of_their_6_five_card_subsets():
    rng = random.Random(6)
    for _ in range(10_000):
        cards = rng.sample(range(52), 6)
        assert evaluate(cards) == max(evaluate(f) for f in combinations(cards, 5))


def test_values_order_seven_card_hands_like_treys_and_eval7():
    import eval7
    from treys import Card, Evaluator

    names = [r + s for r in "23456789TJQKA" for s in "cdhs"]
    treys = Evaluator()
    rng = random.Random(9)
    previous = None
    for _ in range(3_000):
        cards = rng.sample(range(52), 7)
        ours = evaluate(cards)
        t = treys.evaluate([Card.new(names[c]) for c in cards[:2]],
                           [Card.new(names[c]) for c in cards[2:]])
        assert ours == MAX_VALUE + 1 - t  # treys: 1 = royal flush, 7462 = 7-high
        e = eval7.evaluate([eval7.Card(names[c]) for c in cards])
        assert CATEGORY_NAMES[category(ours)] == _EVAL7_CATEGORY_NAMES[eval7.handtype(e)]
        if previous is not None:
            prev_ours, prev_e = previous
            assert (ours > prev_ours) == (e > prev_e) and (ours == prev_ours) == (e == prev_e)
        previous = ours, e


_EVAL7_CATEGORY_NAMES = {
    "High Card": "High card", "Pair": "One pair", "Two Pair": "Two pair",
    "Trips": "Three of a kind", "Straight": "Straight", "Flush": "Flush",
    "Full House": "Full house", "Quads": "Four of a kind", "Straight Flush": "Straight flush"}


def test_rank_keys_give_distinct_sums_for_every_multiset_of_five_six_or_seven_ranks():
    # 6,175 / 18,395 / 49,205 multisets of 13 ranks with at most four of a rank
    assert [len(NONFLUSH_VALUES[n]) for n in (5, 6, 7)] == [6_175, 18_395, 49_205]
    assert len(RANK_KEYS) == 13 and list(RANK_KEYS) == sorted(set(RANK_KEYS))


def test_evaluate_many_equals_evaluate_row_by_row():
    rng = random.Random(11)
    for n in (5, 6, 7):
        rows = [rng.sample(range(52), n) for _ in range(5_000)]
        expected = [evaluate(r) for r in rows]
        assert evaluate_many(np.array(rows)).tolist() == expected
        assert evaluate_many(rows, check=False).tolist() == expected
        assert evaluate_many(np.array(rows, dtype=np.int8)).tolist() == expected
    assert evaluate_many(np.zeros((0, 7), dtype=np.int64)).shape == (0,)


@pytest.mark.parametrize("rows, message", [
    ([[0, 1, 2, 3, 4, 5, 5]], "duplicate card in row 0"),
    ([[0, 1, 2, 3, 4, 5, 6], [0, 0, 0, 0, 1, 2, 3]], "duplicate card in row 1"),
    ([[0, 1, 2, 3, 52]], "not a card id"),
    ([[0, 1, 2, 3, -1, 7]], "not a card id"),
    ([[0, 1, 2, 3]], "shape"),
    ([0, 1, 2, 3, 4, 5, 6], "shape"),
    ([[0.0, 1, 2, 3, 4]], "integer"),
])
def test_evaluate_many_rejects_bad_rows_naming_them(rows, message):
    with pytest.raises(ValueError, match=message):
        evaluate_many(rows)


@pytest.mark.parametrize("text, words", [
    ("Ts Js Qs Ks As 2d 3c", "Royal flush"),
    ("9h Th Jh Qh Kh Ah Ad", "Royal flush"),
    ("5d 6d 7d 8d 9d Kc Ks", "Straight flush, nine high"),
    ("Ac 2c 3c 4c 5c", "Straight flush, five high"),
    ("As Ad Ah Ac Ks Kd Kh", "Four of a kind, aces, king kicker"),
    ("Kc Kd Kh 7s 7c 2d 3h", "Full house, kings full of sevens"),
    ("7c 7d 7h Ks Kc Kd 2h", "Full house, kings full of sevens"),
    ("Ah Qh 9h 6h 3h 2h Kd", "Flush, ace-queen-nine-six-three"),
    ("As 2d 3c 4h 5s 9d 9c", "Straight, five high"),
    ("Ts Jd Qc Kh As 2d 3d", "Straight, ace high"),
    ("7s 7d 7c As Jd 2c 3h", "Three of a kind, sevens, ace-jack kickers"),
    ("Ac Ad 4h 4s Jc 2d 3c", "Two pair, aces and fours, jack kicker"),
    ("Ac Ad 4h 4s 3c 3d Jc", "Two pair, aces and fours, jack kicker"),
    ("Kc Kd As 9h 4c 3d 2h", "One pair, kings, ace-nine-four kickers"),
    ("Ac Kd 9h 7s 3c 2d 4h", "High card, ace-king-nine-seven-four"),
])
def test_describe_names_the_category_and_the_deciding_ranks(text, words):
    assert describe(value(text)) == words


def test_describe_gives_every_hand_class_its_own_text():
    texts = [describe(v) for v in range(1, MAX_VALUE + 1)]
    assert len(set(texts)) == MAX_VALUE
    for v, text in enumerate(texts, start=1):
        assert text.startswith(CATEGORY_NAMES[category(v)]) or text == "Royal flush"


def test_hand_class_gives_category_and_deciding_ranks():
    assert hand_class(value("Kc Kd Kh 7s 7c")) == (6, (11, 5))
    assert hand_class(value("As 2d 3c 4h 5s")) == (4, (3,))
    assert hand_class(1) == (0, (5, 3, 2, 1, 0))


def test_describe_accepts_the_numpy_ints_evaluate_many_returns():
    values = evaluate_many([parse_cards("Kc Kd Kh 7s 7c 2d 3h")])
    assert describe(values[0]) == "Full house, kings full of sevens"
    assert category(values[0]) == FULL_HOUSE


@pytest.mark.parametrize("bad", [0, MAX_VALUE + 1, -3, "7", 2.0, None, True])
def test_describe_and_category_reject_values_that_are_not_hand_values(bad):
    with pytest.raises(ValueError, match="not a hand value"):
        describe(bad)
    with pytest.raises(ValueError, match="not a hand value"):
        category(bad)


def test_best_five_picks_the_five_cards_that_make_the_hand():
    cards = parse_cards("As 2d 3c 4h 5s Kd Kc")
    assert sorted(best_five(cards)) == sorted(parse_cards("As 2d 3c 4h 5s"))
    flush = parse_cards("2h 9h Jh 3h 8h 7h Ah")
    assert sorted(best_five(flush)) == sorted(parse_cards("Ah Jh 9h 8h 7h"))
    rng = random.Random(3)
    for _ in range(300):
        seven = rng.sample(range(52), 7)
        five = best_five(seven)
        assert len(set(five)) == 5 and set(five) <= set(seven)
        assert evaluate(five) == evaluate(seven)


@pytest.mark.parametrize("cards, message", [
    ([0, 1, 2, 3], "need 5, 6 or 7 cards, got 4"),
    ([], "need 5, 6 or 7 cards, got 0"),
    (list(range(8)), "need 5, 6 or 7 cards, got 8"),
    ([0, 1, 2, 3, 4, 5, 5], "duplicate card 5"),
    ([9, 9, 9, 9, 1, 2, 3], "duplicate card 9"),
    ([0, 1, 2, 3, 3, 4], "duplicate card 3"),
    ([7, 1, 2, 3, 7], "duplicate card 7"),
    ([0, 1, 2, 3, 4, 5, 52], "not a card id .*: 52"),
    ([0, 1, 2, 3, 4, 5, -1], "not a card id .*: -1"),
    ([0, 1, 2, 3, 4, 5, 1000], "not a card id .*: 1000"),
    ([0, 1, 2, 3, -60], "not a card id .*: -60"),
    ([0, 1, 2, 3, 4, 53], "not a card id .*: 53"),
    ([0, 1, 2, 3, 4, 5, "As"], "not a card id .*: 'As'"),
    ([0, 1, 2, 3, 4.5], "not a card id .*: 4.5"),
    ([0, 1, 2, 3, 4, 5, None], "not a card id .*: None"),
    ([0, 1, 2, 3, 4, [5]], "not a card id"),
    ("AsKdQh7", "not a card id"),
    (None, "sequence of card ids"),
    (7, "sequence of card ids"),
])
def test_bad_cards_raise_a_clear_value_error(cards, message):
    with pytest.raises(ValueError, match=message):
        evaluate(cards)
    with pytest.raises(ValueError, match=message):
        best_five(cards)


def test_evaluate7_validates_like_evaluate():
    with pytest.raises(ValueError, match="duplicate card 5"):
        evaluate7(0, 1, 2, 3, 4, 5, 5)
    with pytest.raises(ValueError, match="not a card id"):
        evaluate7(0, 1, 2, 3, 4, 5, -2)


def test_evaluate_accepts_any_sequence_and_numpy_ints():
    cards = parse_cards("Kc Kd Kh 7s 7c 2d 3h")
    expected = evaluate(cards)
    assert evaluate(tuple(cards)) == expected
    assert evaluate(np.array(cards)) == expected
    assert evaluate([int(c) for c in np.array(cards)[:5]]) == evaluate(cards[:5])


def test_importing_the_evaluator_does_not_import_numpy():
    code = ("import sys, engine.holdem.evaluator as e; "
            "e.evaluate([0, 4, 8, 12, 16]); "
            "sys.exit('numpy imported' if 'numpy' in sys.modules else 0)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
