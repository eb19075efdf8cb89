"""Dou Dizhu ranks, play classification, house-rule options and comparison."""

from __future__ import annotations

from collections import Counter
from itertools import combinations_with_replacement

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import parse_cards
from engine.doudizhu.plays import (
    DEFAULT_RULES,
    KINDS,
    Play,
    Rules,
    beats,
    classify,
    generate_readings,
    play_table,
)
from engine.doudizhu.ranks import (
    NUM_RANKS,
    RANK_NAMES,
    counts_from_cards,
    ddz_rank,
    format_counts,
    format_ranks,
    parse_ranks,
    sort_cards,
    to_counts,
)

ACE, TWO, B, R = 11, 12, 13, 14
DECK = (4,) * 13 + (1, 1)


def kind_of(text: str, rules: Rules = DEFAULT_RULES) -> str | None:
    play = classify(text, rules)
    return None if play is None else play.kind


# --------------------------------------------------------------------------- ranks


def test_rank_order_is_three_to_two_then_black_then_red_joker():
    assert RANK_NAMES == "3456789TJQKA2BR"
    three, ace, deuce = parse_cards("3c As 2d")
    assert (ddz_rank(three), ddz_rank(ace), ddz_rank(deuce)) == (0, ACE, TWO)
    assert (ddz_rank(52), ddz_rank(53)) == (B, R)
    assert sort_cards([53, deuce, 52, ace, three]) == [three, ace, deuce, 52, 53]


def test_rank_strings_parse_any_order_and_print_lowest_first():
    assert parse_ranks("55433344") == parse_ranks("33344455")
    assert format_counts(parse_ranks("R2B3t")) == "3T2BR"
    assert parse_ranks("10 J q,k a") == parse_ranks("TJQKA")
    assert format_ranks(parse_cards("Kd Kh 3s")) == "3KK"


@pytest.mark.parametrize("bad", ["33333", "BB", "RR", "1", "X", "3Z"])
def test_rank_strings_reject_unknown_ranks_and_too_many_cards(bad):
    with pytest.raises(ValueError):
        parse_ranks(bad)


@pytest.mark.parametrize("bad", [[1, 1], [54], [-1], [True], ["3"], [2.0]])
def test_card_ids_reject_repeats_and_non_ids(bad):
    with pytest.raises(ValueError):
        counts_from_cards(bad)


def test_every_input_form_gives_the_same_counts():
    ids = parse_cards("3c 3d 3h 4s 4c 4d 5h 5s")
    counts = to_counts("33344455")
    assert to_counts(ids) == to_counts(list(reversed(ids))) == to_counts(tuple(ids)) == counts
    assert to_counts(counts) == counts and len(counts) == NUM_RANKS
    with pytest.raises(ValueError):
        to_counts((5,) + (0,) * 14)


# --------------------------------------------------------------------------- kinds


@pytest.mark.parametrize(
    ("text", "kind", "rank", "length"),
    [
        ("3", "solo", 0, 1), ("R", "solo", R, 1), ("22", "pair", TWO, 1),
        ("KKK", "trio", 10, 1), ("3335", "trio_solo", 0, 1), ("333B", "trio_solo", 0, 1),
        ("AAA22", "trio_pair", ACE, 1), ("34567", "solo_chain", 0, 5),
        ("3456789TJQKA", "solo_chain", 0, 12), ("334455", "pair_chain", 0, 3),
        ("333444", "airplane", 0, 2), ("33344456", "airplane_solo", 0, 2),
        ("3334445566", "airplane_pair", 0, 2), ("333345", "four_two_solo", 0, 1),
        ("33334455", "four_two_pair", 0, 1), ("2222", "bomb", TWO, 1),
        ("BR", "rocket", R, 1), ("TTTJJJQQQKKKAAA9", None, 0, 0),
    ],
)
def test_each_kind_is_named_with_its_main_rank_and_length(text, kind, rank, length):
    play = classify(text)
    if kind is None:
        assert play is None
    else:
        assert (play.kind, play.rank, play.length) == (kind, rank, length)


@pytest.mark.parametrize(
    "text",
    ["", "34", "3344", "33445", "3456", "JQKA2", "QKA2B", "KKAA22", "AAA222", "222BR",
     "3333BR", "33334444", "33335555", "333444555666777888999",
     "3333444455556666777788", "33445566778899TTJJQQKK"],
)
def test_non_plays_classify_as_none(text):
    assert classify(text) is None


def test_chains_never_contain_a_two_or_a_joker():
    assert kind_of("TJQKA") == "solo_chain"
    assert kind_of("JQKA2") is None
    assert kind_of("QQKKAA") == "pair_chain"
    assert kind_of("KKAA22") is None
    assert kind_of("KKKAAA") == "airplane"
    assert kind_of("AAA222") is None


def test_no_play_exceeds_twenty_cards():
    assert max(sum(c) for c in play_table()) == 20
    assert kind_of("33445566778899TTJJQQ") == "pair_chain"  # 10 pairs: 20 cards
    assert kind_of("33445566778899TTJJQQKK") is None  # 11 pairs: 22 cards
    assert kind_of("333444555666777888") == "airplane"  # 6 trios: 18 cards
    assert kind_of("333444555666777888999") is None  # 21 cards


def test_the_two_jokers_are_never_a_pair_nor_kickers_together():
    assert kind_of("BR") == "rocket"
    assert kind_of("333BR") is None  # not trio + pair
    assert kind_of("3333BR") is None  # not four + two
    assert kind_of("333444BR") is None  # not airplane + two wings
    assert kind_of("3333B5") == "four_two_solo"
    assert kind_of("333444B5") == "airplane_solo"


def test_a_kicker_rank_never_equals_a_trio_rank_of_the_same_play():
    assert kind_of("33334445") is None
    assert kind_of("33334444") is None


def test_airplane_solo_wings_may_be_a_pair_or_a_non_adjacent_trio():
    assert kind_of("33344455") == "airplane_solo"
    assert kind_of("333444555888") == "airplane_solo"
    assert kind_of("3334445556662229") == "airplane_solo"
    assert kind_of("3334445556669992") == "airplane_solo"


def test_airplane_solo_wings_are_never_four_of_a_rank():
    assert kind_of("3334445556669999") is None


def test_airplane_solo_wings_are_never_a_trio_adjacent_to_the_chain():
    assert kind_of("3334445556667778") is None  # 777 next to 3456
    assert kind_of("4445556667773338") is None  # 333 next to 4567
    # 222 is not adjacent: a two never extends a chain
    assert kind_of("QQQKKKAAA222") == "airplane_solo"


def test_333444555666_is_an_airplane_of_four_never_of_three_with_wings():
    play = classify("333444555666")
    assert (play.kind, play.length) == ("airplane", 4)


def test_airplane_pair_wings_are_distinct_ranks_and_a_bomb_is_not_two_pairs():
    assert kind_of("3334445566") == "airplane_pair"
    assert kind_of("3334445555") is None
    assert kind_of("33344455BR") is None  # the jokers are not a pair


def test_four_two_solo_may_carry_a_pair_but_not_both_jokers():
    assert kind_of("333355") == "four_two_solo"
    assert kind_of("333356") == "four_two_solo"
    assert kind_of("33332B") == "four_two_solo"
    assert kind_of("3333BR") is None


def test_33334444_is_not_a_legal_four_with_two_pairs():
    assert kind_of("33334444") is None
    assert kind_of("33334455") == "four_two_pair"


def test_card_order_and_input_form_never_matter():
    ids = parse_cards("5h 3c 4s 3d 4c 3h 4d 5s")
    assert classify(ids) == classify(list(reversed(ids))) == classify("54343435")
    assert classify(ids) == classify(to_counts("33344455"))
    assert classify(ids).counts == to_counts("33344455")


def test_a_play_prints_main_ranks_first_then_kickers():
    assert str(classify("5333")) == "3335"
    assert str(classify("33AAA")) == "AAA33"
    assert str(classify("R33353")) == "33335R"
    assert classify("44455533").cards == "44455533"
    assert str(classify("RB")) == "BR"


def test_play_is_a_frozen_value_keyed_by_its_rank_counts():
    play = classify("3335")
    assert isinstance(play, Play) and play == classify("5333") and hash(play) == hash(
        classify("5333"))
    with pytest.raises(AttributeError):
        play.rank = 5  # type: ignore[misc]
    assert play.size == 4
    assert format_counts(play.kicker_counts) == "5"


# --------------------------------------------------------------------------- enumeration


def reference_readings(c: tuple[int, ...]) -> list[tuple[str, int, int]]:
    """The default rules of the issue, read literally and slowly: every (kind, rank,
    length) reading of the rank counts ``c`` (independent of the table builder)."""
    n = sum(c)
    ranks = [r for r in range(NUM_RANKS) if c[r]]
    out: list[tuple[str, int, int]] = []
    if n == 0 or n > 20:
        return out
    if c[B] and c[R] and n == 2:
        return [("rocket", R, 1)]
    if len(ranks) == 1 and n <= 4:
        return [(("solo", "pair", "trio", "bomb")[n - 1], ranks[0], 1)]
    values = {c[r] for r in ranks}
    consecutive = ranks == list(range(ranks[0], ranks[0] + len(ranks))) and ranks[-1] <= ACE
    if len(values) == 1 and consecutive:
        unit = values.pop()
        minimum = {1: 5, 2: 3, 3: 2}.get(unit, 99)
        if len(ranks) >= minimum:
            kind = {1: "solo_chain", 2: "pair_chain", 3: "airplane"}[unit]
            return [(kind, ranks[0], len(ranks))]  # a pure chain has no other reading
    if max(c) < 3:
        return out  # every other kind holds a trio or a four
    for main in ranks:
        rest = list(c)
        if c[main] == 3:
            rest[main] = 0
            others = [r for r in range(NUM_RANKS) if rest[r]]
            if n == 4:
                out.append(("trio_solo", main, 1))
            if n == 5 and len(others) == 1 and rest[others[0]] == 2:
                out.append(("trio_pair", main, 1))
        if c[main] == 4:
            rest[main] = 0
            others = [r for r in range(NUM_RANKS) if rest[r]]
            if n == 6 and not (rest[B] and rest[R]):
                out.append(("four_two_solo", main, 1))
            if n == 8 and len(others) == 2 and all(rest[r] == 2 for r in others):
                out.append(("four_two_pair", main, 1))
    for start in range(ACE + 1):
        for length in range(2, ACE + 2 - start):
            chain = range(start, start + length)
            if any(c[r] < 3 for r in chain):
                break
            rest = [0 if r in chain else c[r] for r in range(NUM_RANKS)]
            if any(c[r] > 3 for r in chain):
                continue  # a kicker would share a trio's rank
            kicker_ranks = [r for r in range(NUM_RANKS) if rest[r]]
            if n == 4 * length:
                adjacent = [r for r in (start - 1, start + length) if 0 <= r <= ACE]
                if (max(rest) <= 3 and not (rest[B] and rest[R])
                        and all(rest[r] != 3 for r in adjacent)):
                    out.append(("airplane_solo", start, length))
            if n == 5 * length and len(kicker_ranks) == length and all(
                    rest[r] == 2 for r in kicker_ranks):
                out.append(("airplane_pair", start, length))
    return out


def add(counts: list[int], extra: tuple[int, ...]) -> tuple[int, ...] | None:
    total = counts[:]
    for r in extra:
        total[r] += 1
    if any(total[r] > DECK[r] for r in extra):
        return None
    return tuple(total)


def shaped_multisets() -> set[tuple[int, ...]]:
    """Every multiset of the 54-card deck with the shape of some kind: each rank group of
    1..4 cards, each run of 2..15 consecutive rank indices with 1, 2 or 3 cards each
    (twos and jokers included), and each kicker kind's main part (a trio, a four, a run
    of 2..5 trios within 3..A) plus ANY cards from the rest of the deck in the kind's
    number (solo kickers), or any pairs of cards (pair kickers: a rank holding 4 gives
    two pairs, and both jokers are offered as a pair)."""
    walked: set[tuple[int, ...]] = set()
    zero = [0] * NUM_RANKS
    for r in range(NUM_RANKS):
        for n in range(1, DECK[r] + 1):
            walked.add(add(zero, (r,) * n))
    for unit in (1, 2, 3):
        for start in range(NUM_RANKS):
            for stop in range(start + 2, NUM_RANKS + 1):
                run = tuple(r for r in range(start, stop) for _ in range(unit))
                made = add(zero, run)
                if made is not None and len(run) <= 20:
                    walked.add(made)

    def with_solos(main: list[int], size: int) -> None:
        for extra in combinations_with_replacement(range(NUM_RANKS), size):
            made = add(main, extra)
            if made is not None:
                walked.add(made)

    def with_pairs(main: list[int], size: int) -> None:
        units = [r for r in range(NUM_RANKS - 2) for _ in range((DECK[r] - main[r]) // 2)]
        units.append(-1)  # the two jokers as a pair
        for extra in set(combinations_with_replacement(units, size)):
            cards = tuple(x for u in extra for x in ((B, R) if u == -1 else (u, u)))
            made = add(main, cards)
            if made is not None:
                walked.add(made)

    for r in range(13):
        trio = [3 if i == r else 0 for i in range(NUM_RANKS)]
        four = [4 if i == r else 0 for i in range(NUM_RANKS)]
        with_solos(trio, 1)
        with_pairs(trio, 1)
        with_solos(trio, 2)  # a trio with two odd cards is no play
        with_solos(four, 2)
        with_pairs(four, 2)
    for length in range(2, 6):
        for start in range(ACE + 2 - length):
            chain = [3 if start <= i < start + length else 0 for i in range(NUM_RANKS)]
            with_solos(chain, length)
            if length <= 4:
                with_pairs(chain, length)
    return walked


@pytest.mark.slow
def test_default_rules_have_27471_distinct_plays_counted_by_enumeration():
    walked = shaped_multisets()
    legal: dict[tuple[int, ...], tuple[str, int, int]] = {}
    ambiguous, disagree = [], []
    for counts in walked:
        readings = reference_readings(counts)
        if len(readings) > 1:
            ambiguous.append((format_counts(counts), readings))
        if readings:
            legal[counts] = readings[0]
        play = classify(counts)
        got = None if play is None else (play.kind, play.rank, play.length)
        if got != (readings[0] if readings else None):
            disagree.append(format_counts(counts))
    assert not ambiguous, ambiguous[:10]
    assert not disagree, disagree[:10]
    per_kind = Counter(kind for kind, _, _ in legal.values())
    assert len(legal) == 27471, f"{len(legal)} plays: {dict(per_kind)}"
    assert per_kind == {
        "solo": 15, "pair": 13, "trio": 13, "bomb": 13, "rocket": 1, "trio_solo": 182,
        "trio_pair": 156, "solo_chain": 36, "pair_chain": 52, "airplane": 45,
        "airplane_solo": 21822, "airplane_pair": 2939, "four_two_solo": 1326,
        "four_two_pair": 858,
    }, dict(per_kind)
    assert set(play_table()) == set(legal)
    assert len(walked) > 3 * len(legal)  # the walk also offered many non-plays


def every_multiset(most: int) -> list[tuple[int, ...]]:
    """Every rank-count multiset of the 54-card deck with at most ``most`` cards."""
    found: list[tuple[int, ...]] = []

    def extend(prefix: list[int], left: int) -> None:
        r = len(prefix)
        if r == NUM_RANKS:
            found.append(tuple(prefix))
            return
        for n in range(min(DECK[r], left) + 1):
            prefix.append(n)
            extend(prefix, left - n)
            prefix.pop()

    extend([], most)
    return found


@pytest.mark.slow
def test_every_multiset_of_up_to_8_cards_is_classified_as_the_rules_say():
    walked = every_multiset(8)
    assert len(walked) == 375_470  # the empty one included
    plays = 0
    disagree = []
    for counts in walked:
        readings = reference_readings(counts)
        play = classify(counts)
        got = None if play is None else (play.kind, play.rank, play.length)
        if got != (readings[0] if readings else None):
            disagree.append(format_counts(counts))
        plays += len(readings)
    assert not disagree, disagree[:10]
    assert plays == sum(1 for counts in play_table() if sum(counts) <= 8) == 3601


@settings(max_examples=400, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=13, max_size=13), st.integers(0, 1),
       st.integers(0, 1))
def test_classify_agrees_with_the_reference_rules_on_random_multisets(plain, black, red):
    counts = tuple(plain) + (black, red)
    readings = reference_readings(counts)
    play = classify(counts)
    assert (None if play is None else (play.kind, play.rank, play.length)) == (
        readings[0] if readings else None)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 53), max_size=8, unique=True))
def test_classify_agrees_with_the_reference_rules_on_small_random_hands(cards):
    counts = counts_from_cards(cards)
    readings = reference_readings(counts)
    play = classify(cards)
    assert (None if play is None else (play.kind, play.rank, play.length)) == (
        readings[0] if readings else None)


def test_default_table_has_one_reading_per_multiset():
    readings = list(generate_readings(DEFAULT_RULES))
    assert len(readings) == len(play_table()) == 27471


# --------------------------------------------------------------------------- options


def test_default_rules_are_the_majority_rules():
    assert Rules() == DEFAULT_RULES
    assert DEFAULT_RULES.four_with_two is True
    assert not any(v for k, v in DEFAULT_RULES.to_dict().items() if k != "four_with_two")


def test_rules_from_dict_rejects_unknown_options_and_non_bools():
    assert Rules.from_dict({"bomb_as_two_pairs": True}).bomb_as_two_pairs
    with pytest.raises(ValueError):
        Rules.from_dict({"bombs_as_pairs": True})
    with pytest.raises(ValueError):
        Rules.from_dict({"four_with_two": 1})


def test_four_with_two_false_forbids_four_with_two_solos_and_two_pairs():
    rules = Rules(four_with_two=False)
    assert kind_of("333345", rules) is None
    assert kind_of("33334455", rules) is None
    assert kind_of("3333", rules) == "bomb"
    assert len(play_table(rules)) == 27471 - 1326 - 858


def test_jokers_as_kickers_lets_both_jokers_be_solo_kickers():
    rules = Rules(jokers_as_kickers=True)
    assert kind_of("3333BR", rules) == "four_two_solo"
    assert kind_of("333444BR", rules) == "airplane_solo"
    assert kind_of("333BR", rules) is None  # still not a pair
    assert kind_of("BR", rules) == "rocket"


def test_joker_pair_as_kicker_lets_both_jokers_be_one_pair_kicker():
    rules = Rules(joker_pair_as_kicker=True)
    assert kind_of("333BR", rules) == "trio_pair"
    assert kind_of("333355BR", rules) == "four_two_pair"
    assert kind_of("33344455BR", rules) == "airplane_pair"
    assert kind_of("3333BR", rules) is None  # solo kickers: still not together


def test_kicker_matches_main_lets_a_wing_share_a_trio_rank():
    rules = Rules(kicker_matches_main=True)
    play = classify("33334445", rules)
    assert (play.kind, play.rank, play.length) == ("airplane_solo", 0, 2)
    assert kind_of("33334444", rules) == "airplane_solo"


def test_airplane_solo_wings_distinct_forbids_repeated_wing_ranks():
    rules = Rules(airplane_solo_wings_distinct=True)
    assert kind_of("33344455", rules) is None
    assert kind_of("333444555888", rules) is None
    assert kind_of("33344456", rules) == "airplane_solo"


def test_airplane_solo_wings_allow_four_accepts_four_wings_of_a_rank():
    rules = Rules(airplane_solo_wings_allow_four=True)
    assert kind_of("3334445556669999", rules) == "airplane_solo"
    assert kind_of("333444555666777TTTT", rules) is None  # 19 cards: no shape


def test_adjacent_trio_wings_option_reads_the_highest_chain():
    rules = Rules(airplane_solo_wings_allow_adjacent_trio=True)
    play = classify("3334445556667778", rules)
    assert (play.kind, play.rank, play.length) == ("airplane_solo", 1, 4)  # 4..7 + 333 + 8
    assert classify("333444555666", rules).kind == "airplane"


def test_bomb_as_two_pairs_counts_a_four_as_two_pair_kickers():
    rules = Rules(bomb_as_two_pairs=True)
    play = classify("33334444", rules)
    assert (play.kind, play.rank) == ("four_two_pair", 1)  # the higher four is the main
    assert classify("33335555", rules).rank == 2
    assert kind_of("3334445555", rules) == "airplane_pair"


def test_four_two_solo_distinct_kickers_forbids_a_pair_as_the_two_cards():
    rules = Rules(four_two_solo_distinct_kickers=True)
    assert kind_of("333355", rules) is None
    assert kind_of("333356", rules) == "four_two_solo"


def test_options_that_make_two_readings_resolve_by_kind_order():
    rules = Rules(kicker_matches_main=True, bomb_as_two_pairs=True)
    assert KINDS.index("airplane_solo") < KINDS.index("four_two_pair")
    assert kind_of("33334444", rules) == "airplane_solo"


# --------------------------------------------------------------------------- beats


def test_same_kind_and_length_with_a_higher_rank_beats():
    assert beats(classify("4"), classify("3"))
    assert beats(classify("R"), classify("B"))
    assert beats(classify("45678"), classify("34567"))
    assert not beats(classify("456789"), classify("34567"))  # longer chain
    assert not beats(classify("44"), classify("3"))  # other kind


def test_equal_never_beats():
    assert not beats(classify("5"), classify("5"))
    assert not beats(classify("3335"), classify("3336"))


def test_kickers_never_count():
    assert beats(classify("4443"), classify("333A"))
    assert not beats(classify("333A"), classify("4443"))
    assert beats(classify("44433"), classify("33322"))


def test_a_bomb_beats_any_non_bomb_and_a_lower_bomb():
    bomb = classify("3333")
    assert beats(bomb, classify("2"))
    assert beats(bomb, classify("3456789TJQKA"))
    assert beats(bomb, classify("KKKKAA22"))
    assert beats(classify("4444"), bomb)
    assert not beats(bomb, classify("4444"))
    assert not beats(classify("2"), bomb)


def test_the_rocket_beats_everything_and_nothing_beats_it():
    rocket = classify("BR")
    assert beats(rocket, classify("2222"))
    assert beats(rocket, classify("3"))
    assert not beats(classify("2222"), rocket)
    assert not beats(rocket, rocket)


def test_beats_accepts_cards_in_any_form_and_rejects_non_plays():
    assert beats("4443", parse_cards("3c 3d 3h As"))
    with pytest.raises(ValueError):
        beats("34", "3")
