import pytest

from engine.cards import (
    BLACK_JOKER,
    RED_JOKER,
    card,
    deck52,
    deck54,
    format_card,
    format_cards,
    parse_card,
    parse_cards,
)


def test_card_ids_are_rank_times_four_plus_suit():
    assert parse_card("2c") == 0
    assert parse_card("As") == 12 * 4 + 3
    assert card(8, 2) == parse_card("Th")


@pytest.mark.parametrize(
    "text",
    ["As Kd 7h", "AsKd7h", "as kd 7H", "A♠ K♦ 7♥", "A♠K♦7♥", "As,Kd, 7h", "  As  Kd\t7h "],
)
def test_parse_accepts_common_spellings(text):
    assert format_cards(parse_cards(text)) == "As Kd 7h"


def test_ten_as_t_or_10():
    assert parse_cards("Th 10h".replace("Th", "Td")) == [card(8, 1), card(8, 2)]
    assert parse_card("10♣") == card(8, 0)


def test_jokers():
    assert parse_cards("BJ RJ") == [BLACK_JOKER, RED_JOKER]
    assert parse_card("sj") == BLACK_JOKER
    assert format_cards([52, 53]) == "BJ RJ"


@pytest.mark.parametrize("text,bad", [("As Xx", "Xx"), ("As 1h", "1h"), ("Asz", "z"), ("Ks Kq", "Kq")])
def test_parse_names_the_bad_token(text, bad):
    with pytest.raises(ValueError, match=bad):
        parse_cards(text)


def test_parse_rejects_duplicates():
    with pytest.raises(ValueError, match="duplicate card 'As'"):
        parse_cards("As Kd as")


def test_format_symbols_and_roundtrip():
    assert format_card(parse_card("Qh"), symbols=True) == "Q♥"
    for c in deck54():
        assert parse_card(format_card(c)) == c


def test_decks():
    assert deck52() == list(range(52))
    assert sorted(deck54()) == list(range(54))
    with pytest.raises(ValueError):
        format_card(54)
