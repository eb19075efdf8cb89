"""Cards as small ints, parsing and formatting, and the two decks.

A card is ``rank * 4 + suit``: rank 0 is the deuce ... 12 the ace, suit 0..3 is
clubs, diamonds, hearts, spades. Dou Dizhu adds the jokers: 52 is the black (small)
joker, 53 the red (big) joker. The engine never shuffles: callers pass a deck in.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

RANKS = "23456789TJQKA"
SUITS = "cdhs"
SUIT_SYMBOLS = "♣♦♥♠"
BLACK_JOKER = 52
RED_JOKER = 53
JOKER_NAMES = {BLACK_JOKER: "BJ", RED_JOKER: "RJ"}

_SUIT_ALIASES = {"c": 0, "d": 1, "h": 2, "s": 3, "♣": 0, "♦": 1, "♥": 2, "♠": 3,
                 "♧": 0, "♢": 1, "♡": 2, "♤": 3}
_RANK_ALIASES = {r: i for i, r in enumerate(RANKS)} | {"10": 8}
_JOKER_ALIASES = {"BJ": BLACK_JOKER, "SJ": BLACK_JOKER, "RJ": RED_JOKER}
# One card: a joker name, or a rank (10 or one character) followed by a suit.
_CARD = re.compile(r"(BJ|SJ|RJ)|(10|[2-9TJQKA])([cdhs♣♦♥♠♧♢♡♤])", re.IGNORECASE)
_SEPARATORS = re.compile(r"[\s,]+")


def card(rank: int, suit: int) -> int:
    """The card of ``rank`` (0 = deuce .. 12 = ace) and ``suit`` (0..3 = c, d, h, s)."""
    return rank * 4 + suit


def rank_of(c: int) -> int:
    return c >> 2


def suit_of(c: int) -> int:
    return c & 3


def deck52() -> list[int]:
    """The 52 cards in id order (not shuffled)."""
    return list(range(52))


def deck54() -> list[int]:
    """The 52 cards and both jokers in id order (not shuffled)."""
    return list(range(54))


def parse_card(text: str) -> int:
    """One card, such as ``"As"``, ``"10h"``, ``"t♠"`` or ``"RJ"``."""
    cards = parse_cards(text)
    if len(cards) != 1:
        raise ValueError(f"expected one card, got {text!r}")
    return cards[0]


def parse_cards(text: str) -> list[int]:
    """Cards written like ``"As Kd 7h"``, ``"AsKd7h"``, ``"10♥ j♣"`` or ``"As,Kd"``.

    Ranks ``2-9``, ``T`` or ``10``, ``J Q K A`` in either case; suits ``c d h s`` or
    the symbols ``♣ ♦ ♥ ♠``; jokers ``BJ`` (or ``SJ``) and ``RJ``. Raises
    ``ValueError`` naming the bad token, or the repeated card.
    """
    cards: list[int] = []
    seen: set[int] = set()
    for token in _SEPARATORS.split(text.strip()):
        if not token:
            continue
        pos = 0
        while pos < len(token):
            m = _CARD.match(token, pos)
            if m is None:
                raise ValueError(f"bad card {token[pos:pos + 3]!r} in {text!r}")
            if m.group(1):
                c = _JOKER_ALIASES[m.group(1).upper()]
            else:
                c = card(_RANK_ALIASES[m.group(2).upper()], _SUIT_ALIASES[m.group(3).lower()])
            if c in seen:
                raise ValueError(f"duplicate card {format_card(c)!r} in {text!r}")
            seen.add(c)
            cards.append(c)
            pos = m.end()
    return cards


def format_card(c: int, symbols: bool = False) -> str:
    """``"As"`` (or ``"A♠"`` with ``symbols``); jokers are ``"BJ"`` and ``"RJ"``."""
    if c in JOKER_NAMES:
        return JOKER_NAMES[c]
    if not 0 <= c < 52:
        raise ValueError(f"not a card id: {c!r}")
    return RANKS[c >> 2] + (SUIT_SYMBOLS if symbols else SUITS)[c & 3]


def format_cards(cards: Iterable[int], symbols: bool = False) -> str:
    """Cards separated by spaces: ``"As Kd 7h"``."""
    return " ".join(format_card(c, symbols) for c in cards)
