"""A room: its rules on plain data (:mod:`.table`), its decisions without I/O
(:mod:`.core`), the asyncio actor that carries them out on the owning process
(:mod:`.actor`), and what each process shows its viewers (:mod:`.view`)."""

from __future__ import annotations

import os
import time


def epoch_ms() -> int:
    """The wall clock in epoch milliseconds (deadlines are stored this way)."""
    return int(time.time() * 1000)


def shuffled_deck(size: int) -> list[int]:
    """A deck of ``size`` cards in a uniformly random order from the system's CSPRNG.

    Fisher-Yates with one ``os.urandom`` read per deck (``SystemRandom.shuffle`` makes a
    system call per card): each draw takes a 64-bit number and rejects the top sliver
    that would bias ``value % n`` (a chance below 2**-57 per draw), so every order is
    equally likely."""
    deck = list(range(size))
    pool = memoryview(os.urandom(8 * size))
    used = 0
    for i in range(size - 1, 0, -1):
        n = i + 1
        limit = (1 << 64) - (1 << 64) % n
        while True:
            if used + 8 > len(pool):
                pool, used = memoryview(os.urandom(8 * size)), 0
            value = int.from_bytes(pool[used:used + 8], "little")
            used += 8
            if value < limit:
                break
        j = value % n
        deck[i], deck[j] = deck[j], deck[i]
    return deck
