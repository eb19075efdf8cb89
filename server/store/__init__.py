"""Redis: the key layout (:mod:`.keys`), every operation (:mod:`.store`), the scripts
(``lua/``), and connecting to a single Redis, a Redis Cluster or the primary Redis
Sentinel names (:mod:`.connect`, :mod:`server.sentinel`)."""

from .keys import Keys
from .store import (
    UNAVAILABLE,
    Acquired,
    ChangeMessage,
    Fenced,
    RoomLog,
    Store,
    VersionConflict,
    lease_token,
    pack,
    parse_room_message,
    unpack,
)

__all__ = [
    "UNAVAILABLE", "Acquired", "ChangeMessage", "Fenced", "Keys", "RoomLog", "Store", "VersionConflict",
    "lease_token", "pack", "parse_room_message", "unpack",
]
