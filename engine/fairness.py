"""Provably fair deals: the deck of a hand derived from seeds anyone can check afterwards.

The scheme (``cardroom-v1``, spelled out with a worked example in ``docs/fairness.md``):

* The server draws a 256-bit ``server_seed`` and publishes ``commitment =
  sha256(server_seed)`` before the players' seeds for the hand are final; it reveals the
  seed when the hand is over.
* The deck is a Fisher–Yates shuffle of ``0 .. size-1`` driven by HMAC-SHA256 keyed with
  the server seed, over a message naming the room, the hand number, the players' seeds
  and a block counter; each 32-byte block gives eight big-endian 32-bit numbers, and a
  number that would bias ``u mod n`` is skipped (rejection sampling).
* Where each card of the deck goes is each game's dealing rule (:func:`layout`), given
  the seats in dealing order, which the hand's first event publishes.

Everything here is pure: the server draws the seed (``secrets``) and passes it in.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import struct
from collections.abc import Callable, Sequence
from typing import Any

from .game import Game

SCHEME = "cardroom-v1"
SEED_BYTES = 32
SEED_ALPHABET = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
MAX_CLIENT_SEED = 64
_EIGHT_WORDS = struct.Struct(">8I")  # a 32-byte HMAC block as eight big-endian 32-bit numbers


@functools.lru_cache(maxsize=4096)
def commitment(server_seed: str) -> str:
    """``sha256`` of the seed's 32 bytes, in hex: what is published before the deal
    (remembered for the last few thousand seeds: every snapshot of a room shows it)."""
    return hashlib.sha256(_seed_bytes(server_seed)).hexdigest()


def is_client_seed(seed: Any) -> bool:
    """A player's seed: 1 to 64 characters of ``A-Z a-z 0-9 _ -``."""
    return isinstance(seed, str) and 0 < len(seed) <= MAX_CLIENT_SEED and set(seed) <= SEED_ALPHABET


def message(room: str, hand_no: int, client_seeds: Sequence[str], counter: int) -> bytes:
    """The HMAC message of block ``counter``: ``cardroom-v1|room|hand_no|s1,s2,...|counter``
    (client seeds in the order of the dealt seats, ``""`` for a seat without one)."""
    return f"{SCHEME}|{room}|{hand_no}|{','.join(client_seeds)}|{counter}".encode()


def derive_deck(server_seed: str, room: str, hand_no: int, client_seeds: Sequence[str], size: int) -> list[int]:
    """The hand's deck: card ids ``0 .. size-1`` in the order they are dealt from.

    For ``i`` from ``size - 1`` down to 1, with ``n = i + 1``: take the next number ``u``
    that is below ``2**32 - 2**32 % n``, and swap positions ``i`` and ``u % n``. The
    numbers are those of HMAC blocks 0, 1, ... (:func:`message`), eight big-endian 32-bit
    numbers each, in order.
    """
    for seed in client_seeds:
        if seed and not is_client_seed(seed):
            raise ValueError(f"not a client seed: {seed!r}")
    deck = list(range(size))
    block = _blocks(server_seed, room, hand_no, client_seeds)
    words: list[int] = []
    taken = 0
    for i in range(size - 1, 0, -1):
        n = i + 1
        limit = (1 << 32) - (1 << 32) % n
        while True:
            if taken == len(words):
                words += block(len(words) // 8)
            u = words[taken]
            taken += 1
            if u < limit:
                break
        j = u % n
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def _blocks(server_seed: str, room: str, hand_no: int, client_seeds: Sequence[str]) -> Callable[[int], tuple[int, ...]]:
    """``block(counter)``: the eight numbers of HMAC block ``counter`` (:func:`message`)."""
    key = _seed_bytes(server_seed)
    prefix = f"{SCHEME}|{room}|{hand_no}|{','.join(client_seeds)}|"  # message() without the counter

    def block(counter: int) -> tuple[int, ...]:
        return _EIGHT_WORDS.unpack(hmac.digest(key, f"{prefix}{counter}".encode(), "sha256"))

    return block


def layout(game: Game, deck: Sequence[int], deal_order: Sequence[int]) -> dict[str, Any]:
    """Where ``game``'s dealing rule (:attr:`~engine.game.Game.layout`) puts the cards of
    ``deck``, ``deal_order`` being the dealt seats in the order they receive cards:
    ``hands`` (seat -> its cards in the order dealt) and the game's other piles (Hold'em's
    ``board``: a card is burned before each street; Dou Dizhu's ``bottom``). Raises
    ``ValueError`` for a game without a dealing rule."""
    if game.layout is None:
        raise ValueError(f"{game.name} declares no dealing rule")
    return game.layout(deck, deal_order)


def deal_order(game: Game, state: Any, deck: Sequence[int]) -> list[int] | None:
    """The dealt seats of a freshly dealt ``state`` in the order they received cards
    (each seat's first card's place in ``deck``); None for a game that does not say
    which cards it dealt (:attr:`~engine.game.Game.dealt`)."""
    if game.dealt is None:
        return None
    cards = game.dealt(state)
    position = {c: i for i, c in enumerate(deck)}
    dealt = [s for s, held in enumerate(cards) if held]
    return sorted(dealt, key=lambda s: min(position[c] for c in cards[s]))


def match_hand_seed(match_seed: str, match: str, deal: int) -> str:
    """The server seed of deal ``deal`` (1, 2, ...) of league match ``match``:
    ``HMAC-SHA256(match seed, "cardroom-league-v1|match|deal")`` in hex.

    Every room of a duplicate match derives its hands' seeds from the one match seed and
    its decks with ``match`` in place of the room id (the proof's ``context``), so the
    mirrored rooms deal the same decks; revealing the match seed afterwards lets anyone
    recompute every deal."""
    msg = f"cardroom-league-v1|{match}|{deal}".encode()
    return hmac.new(_seed_bytes(match_seed), msg, hashlib.sha256).hexdigest()


def _seed_bytes(server_seed: str) -> bytes:
    try:
        raw = bytes.fromhex(server_seed)
    except (TypeError, ValueError):
        raw = b""
    if len(raw) != SEED_BYTES:
        raise ValueError("a server seed is 64 hex digits (32 bytes)")
    return raw
