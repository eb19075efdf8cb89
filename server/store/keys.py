"""Every Redis key and channel the server uses, in one place.

The layout is Redis Cluster-safe: each key that a script touches together with others
carries the same hash tag (the part in braces), so every script runs on one slot:

=================================  =====================================================
``{room}``                          hash: ``snap`` (msgpack table), ``version``, ``game``,
                                    ``fence`` (grows on every change of owner), ``owner``
                                    (the last owner's node id), ``granted`` (chips granted
                                    to the room's bot seats)
``{room}:events``                   stream, one entry per accepted change: ``v``, ``e``
``{room}:lease``                    string ``"<node> <fence>"`` with a TTL: the owner
``{player}``                        hash: ``name``, ``wallet``, ``granted``
``{player}:journal``                hash: buy-in id -> ``"room|amount|ms"``: chips taken
                                    from the wallet, not yet known to be on the table
``{player}:credited``               set of cash-out ids already paid into the wallet
``{player}:rooms``                  set of the rooms the player sits in
``{player}:presence``               sorted set: node id -> expiry (ms) of a connection there
``{player}:record``                 hash: ``<game>:hands``, ``<game>:net``: the player's totals
``{player}:results``                sorted set: ``"<room> <hand>"`` -> ms, the last results
``{player}:result``                 hash: ``"<room> <hand>"`` -> the result (JSON), see
                                    :mod:`server.records.record`
``{node}:inbox``                    stream: commands forwarded to a node, and answers
=================================  =====================================================

Single keys without a tag (each touched on its own): ``token:<sha256 of a session
token>`` (the player id; the token itself is never stored),  ``players`` and ``rooms`` (sets: every player, every room), ``lobby``
(hash: room -> msgpack summary), ``spectators`` (hash: ``"<room> <node>"`` -> count),
``nodes`` (sorted set: node -> expiry ms), ``wakeups`` (sorted set: room -> the time
someone must look at it if its owner is gone), ``transfers`` (sorted set:
``"<player> <id>"`` -> ms, buy-ins not yet completed, for the sweeper), ``retired``
(sorted set: closed room -> when its data expires, to take it off ``rooms`` then),
``lock:<name>`` (a short lock: the token of its holder, with a TTL; quick match takes one
per bucket), ``qm:<bucket>`` (the room a quick-match bucket opened last, with a TTL).

Channels: ``ch:<room>`` carries a room's changes (published by the commit script; the
owner does not listen to its own), ``ch:<room>:n`` its notices (presence, cash-out
messages, a new owner); ``ch:lobby`` says the room list changed.

Room ids start with ``r-``, player ids with ``p-``, node ids with ``n-``, so the tags of
different kinds never collide.
"""

from __future__ import annotations

import hashlib


class Keys:
    """Key and channel names under one prefix (default ``cardroom:``)."""

    def __init__(self, prefix: str = "cardroom:") -> None:
        if "{" in prefix or "}" in prefix:
            raise ValueError("the key prefix must not contain braces (they would break the hash tags)")
        self.prefix = prefix
        p = prefix
        self.players = p + "players"
        self.rooms = p + "rooms"
        self.lobby = p + "lobby"
        self.spectators = p + "spectators"
        self.nodes = p + "nodes"
        self.wakeups = p + "wakeups"
        self.retired = p + "retired"
        self.transfers = p + "transfers"
        self.lobby_channel = p + "ch:lobby"
        self.migration_lock = p + "migrating"
        self.tokens_hashed = p + "tokens-hashed"
        self.leagues = p + "leagues"  # league name -> what it publishes: list entry, league message
        self.league_defs = p + "league-defs"  # league name -> a league the servers run (league_create)
        self.league_runs = p + "league-runs"  # league name -> the state of its run (league_run)
        self.audit = p + "audit"  # a stream: every moderation act (server/ops/moderation.py)
        self.replicated = p + "replicated"  # a counter written to ask the replicas to confirm (WAIT)

    # --- rooms ---------------------------------------------------------------------

    def lock(self, name: str) -> str:
        return f"{self.prefix}lock:{name}"

    def quick_match(self, bucket: str) -> str:
        return f"{self.prefix}qm:{bucket}"

    def join_code(self, code: str) -> str:
        """A private room's join code -> its room id (``find_room``)."""
        return f"{self.prefix}code:{code}"

    def room(self, room: str) -> str:
        return f"{self.prefix}{{{room}}}"

    def events(self, room: str) -> str:
        return f"{self.prefix}{{{room}}}:events"

    def lease(self, room: str) -> str:
        return f"{self.prefix}{{{room}}}:lease"

    def room_channel(self, room: str) -> str:
        return f"{self.prefix}ch:{room}"

    def notice_channel(self, room: str) -> str:
        return f"{self.prefix}ch:{room}:n"

    def room_of_channel(self, channel: str) -> str:
        """The room a :meth:`room_channel` or :meth:`notice_channel` belongs to."""
        room = channel[len(self.prefix) + len("ch:"):]
        return room[:-2] if room.endswith(":n") else room

    # --- leagues -------------------------------------------------------------------

    def league_matches(self, league: str) -> str:
        """A league's match records, in the order they were played (a list)."""
        return f"{self.prefix}{{league:{league}}}:matches"

    def league_match_ids(self, league: str) -> str:
        """The ids of the records in :meth:`league_matches` (a set: each is added once)."""
        return f"{self.prefix}{{league:{league}}}:match-ids"

    # --- players -------------------------------------------------------------------

    def player(self, player: str) -> str:
        return f"{self.prefix}{{{player}}}"

    def journal(self, player: str) -> str:
        return f"{self.prefix}{{{player}}}:journal"

    def credited(self, player: str) -> str:
        return f"{self.prefix}{{{player}}}:credited"

    def seats(self, player: str) -> str:
        return f"{self.prefix}{{{player}}}:rooms"

    def presence(self, player: str) -> str:
        return f"{self.prefix}{{{player}}}:presence"

    def record(self, player: str) -> str:
        """The player's totals per game (:mod:`server.records.record`)."""
        return f"{self.prefix}{{{player}}}:record"

    def results(self, player: str) -> str:
        """The ids of the player's last results, scored by when the hand ended."""
        return f"{self.prefix}{{{player}}}:results"

    def result(self, player: str) -> str:
        """The player's last results by id."""
        return f"{self.prefix}{{{player}}}:result"

    def token(self, token: str) -> str:
        """The key of a session token: named by the token's SHA-256, so that whoever reads
        Redis (or its files) learns no token."""
        return f"{self.prefix}token:{hashlib.sha256(token.encode()).hexdigest()}"

    def identity(self, identity: str) -> str:
        """A signed-in identity (:func:`server.edge.auth.identity_key`) -> its player."""
        return f"{self.prefix}identity:{identity}"

    def token_pattern(self) -> str:
        return f"{self.prefix}token:*"

    # --- nodes ---------------------------------------------------------------------

    def inbox(self, node: str) -> str:
        return f"{self.prefix}{{{node}}}:inbox"

    # --- the layout before scale-out (read once by the migration) ------------------

    def legacy(self, *parts: str) -> str:
        return self.prefix + ":".join(parts)
