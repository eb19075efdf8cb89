"""A room: its rules on plain data (:mod:`.table`), its decisions without I/O
(:mod:`.core`), the asyncio actor that carries them out on the owning process
(:mod:`.actor`), and what each process shows its viewers (:mod:`.view`)."""

from __future__ import annotations

import secrets
import time

_rng = secrets.SystemRandom()


def epoch_ms() -> int:
    """The wall clock in epoch milliseconds (deadlines are stored this way)."""
    return int(time.time() * 1000)


def shuffled_deck(size: int) -> list[int]:
    """A deck of ``size`` cards shuffled with the system's CSPRNG."""
    deck = list(range(size))
    _rng.shuffle(deck)
    return deck
