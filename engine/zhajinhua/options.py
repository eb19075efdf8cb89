"""The hand options of a Zha Jin Hua table: rule variants and the betting limits."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..config import Option, parse_options
from ..errors import ConfigError
from .ranking import Rules

OPTIONS: list[Option] = [
    Option("a23", str, "lowest",
           "Where A-2-3 ranks among straights: 'lowest', or 'second' (only Q-K-A beats it).",
           choices=("lowest", "second")),
    Option("special_235", str, "offsuit",
           "2-3-5 beats any trips: 'off'; 'offsuit' when not all one suit; "
           "'rainbow' only with three different suits.",
           choices=("off", "offsuit", "rainbow")),
    Option("order", str, "common",
           "Category order: 'common' (trips > straight flush > flush > straight) or "
           "'probability' (straight flush > trips > straight > flush).",
           choices=("common", "probability")),
    Option("suit_tiebreak", bool, False,
           "Break otherwise equal hands by the suit of the highest card (spades > hearts > "
           "clubs > diamonds)."),
    Option("ante", int, 10,
           "Chips every player puts in before the deal; also the first blind unit stake.",
           min=1, max=1_000_000_000),
    Option("max_stake", int, 100,
           "Highest unit stake a raise may reach (a blind player pays the unit stake, a "
           "seen player twice it); at least the ante.",
           min=1, max=1_000_000_000),
    Option("compare_after_rounds", int, 1,
           "Compare is allowed once this many betting rounds are complete (0: at once).",
           min=0, max=100),
    Option("compare_cost_multiplier", int, 1,
           "The compare fee is this many times the initiator's own call cost.",
           min=1, max=10),
    Option("max_rounds", int, 20,
           "After this many rounds all remaining hands are compared in turn order.",
           min=1, max=200),
    Option("all_in", str, "compare_all",
           "A player who cannot pay the call: 'compare_all' (put in the rest and compare "
           "against every live player) or 'fold_only'.",
           choices=("compare_all", "fold_only")),
    Option("timeout", str, "fold",
           "What a seat does when its clock runs out: 'fold', or 'call_blind' (call while "
           "still blind and able to pay, otherwise fold).",
           choices=("fold", "call_blind")),
]

RULE_OPTION_NAMES = ("a23", "special_235", "order", "suit_tiebreak")


def parse_hand_config(config: Mapping[str, Any]) -> tuple[dict[str, Any], int]:
    """Split a ``new_hand`` config into validated options and the ``button`` seat."""
    if not isinstance(config, Mapping):
        raise ConfigError("config", "must be a map of option names to values")
    given = dict(config)
    if "button" not in given:
        raise ConfigError("button", "the dealer seat is required")
    button = given.pop("button")
    if isinstance(button, bool) or not isinstance(button, int):
        raise ConfigError("button", f"must be a seat number, got {button!r}")
    options = parse_options(OPTIONS, given)
    check_options(options)
    return options, button


def check_options(options: Mapping[str, Any]) -> None:
    """The rules between options: the stake cap is at least the ante."""
    if options["max_stake"] < options["ante"]:
        raise ConfigError("max_stake", f"must be at least the ante ({options['ante']}), "
                                       f"got {options['max_stake']}")


def rules_of(options: Mapping[str, Any]) -> Rules:
    """The ranking :class:`Rules` named by a table's options."""
    return _rules(options["a23"], options["special_235"], options["order"],
                  options["suit_tiebreak"])


_RULES_CACHE: dict[tuple, Rules] = {}


def _rules(a23: str, special_235: str, order: str, suit_tiebreak: bool) -> Rules:
    key = (a23, special_235, order, suit_tiebreak)
    rules = _RULES_CACHE.get(key)
    if rules is None:
        rules = _RULES_CACHE[key] = Rules(a23, special_235, order, suit_tiebreak)
    return rules
