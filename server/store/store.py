"""Every Redis operation of the server (the key names are :mod:`server.store.keys`').

Each atomic step is one Lua script on one hash slot (``lua/*.lua``), so the same code
runs on a single Redis and on Redis Cluster:

* a room change: :meth:`Store.commit` checks the writer's lease (owner and fencing
  token) and the version it read, writes snapshot, version and events, and publishes
  the change on the room's channel, all in one step;
* ownership: :meth:`Store.acquire`, :meth:`Store.renew`, :meth:`Store.release`;
* chips between a wallet and a table, which live in two slots, move in two steps with
  a journal (see :doc:`docs/server.md`): :meth:`debit` then :meth:`finish_debit` (or
  :meth:`refund`) for a buy-in, :meth:`credit` then :meth:`forget_credit` for a
  cash-out. Every step is idempotent.

Redis being unreachable surfaces as one of :data:`UNAVAILABLE` (callers answer
``unavailable``); no library-level retries are made, because a retried write whose
first try did arrive must be told apart by the caller (the scripts are idempotent or
version-checked so that a retry is harmless).

The store is split by area over one shared script runner (:class:`~.base.Scripts`):
players (:mod:`.players`), chips (:mod:`.chips`), rooms (:mod:`.rooms`), the room list and
short locks (:mod:`.listing`), leagues (:mod:`.leagues`), server processes (:mod:`.nodes`).
"""

from __future__ import annotations

from .base import (
    CHANGE,
    INBOX_MAXLEN,
    NOTICE,
    STREAM_MAXLEN,
    UNAVAILABLE,
    Acquired,
    ChangeMessage,
    Fenced,
    RoomLog,
    ScriptBatcher,
    VersionConflict,
    change_header,
    lease_token,
    pack,
    parse_room_message,
    unpack,
)
from .chips import Chips
from .leagues import Leagues
from .listing import Listing
from .nodes import Nodes
from .players import Players
from .rooms import Rooms


class Store(Players, Chips, Rooms, Listing, Leagues, Nodes):
    """Async access to the server's Redis data (a ``Redis`` or a ``RedisCluster``), every
    area over one connection and one script runner."""


__all__ = [
    "CHANGE", "INBOX_MAXLEN", "NOTICE", "STREAM_MAXLEN", "UNAVAILABLE", "Acquired", "ChangeMessage", "Fenced",
    "RoomLog", "ScriptBatcher", "Store", "VersionConflict", "change_header", "lease_token", "pack",
    "parse_room_message", "unpack",
]
