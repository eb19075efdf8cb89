"""``engine.config.config_from_arguments``: the one reader of ``--config`` values for
``cardroom bots``, ``cardroom simulate`` and ``cardroom league create``."""

from __future__ import annotations

import pytest

from engine.config import config_from_arguments
from engine.errors import ConfigError


def test_no_values_give_no_options():
    assert config_from_arguments([]) == {}


def test_key_value_pairs_read_their_values_as_json_else_as_text():
    assert config_from_arguments(["big_blind=20", "suit_tiebreak=true", "a23=lowest", "x=[1, 2]",
                                  'name="a b"', "empty=", "ratio=0.5"]) == {
        "big_blind": 20, "suit_tiebreak": True, "a23": "lowest", "x": [1, 2], "name": "a b",
        "empty": "", "ratio": 0.5}


def test_a_value_may_hold_an_equals_sign():
    assert config_from_arguments(["name=a=b"]) == {"name": "a=b"}


def test_a_json_object_gives_its_keys():
    assert config_from_arguments(['{"small_blind": 10, "big_blind": 20}']) == {
        "small_blind": 10, "big_blind": 20}
    assert config_from_arguments(['  {"ante": 5}']) == {"ante": 5}


def test_both_forms_mix_and_a_later_value_overrides_an_earlier_key():
    assert config_from_arguments(['{"small_blind": 10, "big_blind": 20}', "big_blind=40", "ante=1"]) == {
        "small_blind": 10, "big_blind": 40, "ante": 1}


@pytest.mark.parametrize("value,message", [
    ("big_blind", "config: expected KEY=VALUE or a JSON object, got 'big_blind'"),
    ("=20", "config: expected KEY=VALUE or a JSON object, got '=20'"),
    ("[1, 2]", "config: expected KEY=VALUE or a JSON object, got '[1, 2]'"),
    ('{"big_blind": 20', "config: not a valid JSON object (Expecting ',' delimiter: line 1 column 17 "
                         "(char 16)): '{\"big_blind\": 20'"),
])
def test_a_value_of_neither_form_is_refused_naming_it(value, message):
    with pytest.raises(ConfigError) as info:
        config_from_arguments(["ante=1", value])
    assert str(info.value) == message
    assert info.value.field == "config" and isinstance(info.value, ValueError)
