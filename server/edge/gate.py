"""Who may connect, and how much: the server's security policy at the edge.

* **Origin.** A browser says which page opened a WebSocket (the ``Origin`` header). A
  connection is accepted without an ``Origin`` (bots, scripts), from the server's own
  origin (the page it serves: same scheme-less host and port as the request's ``Host``),
  or from an origin in ``--allowed-origins`` (``*``: any). Anything else is refused during
  the handshake with 403, so another site's page cannot play in its visitors' names.
* **Per address.** At most ``--max-connections-per-ip`` open connections, and at most
  ``--new-players-per-minute`` new players and ``--new-rooms-per-minute`` new rooms per
  address (sliding one-minute windows), counted by this process. Loopback addresses are
  exempt unless ``--limit-loopback`` (local bots and tools); behind a proxy on the same
  host, trust its ``X-Forwarded-For`` with ``--forwarded-for`` so that limits apply to
  the players' addresses, not the proxy's.
* **Operators.** ``/metrics`` and ``/admin`` need ``Authorization: Bearer <--admin-token>``;
  without a token set, ``/admin`` does not exist and ``/metrics`` answers loopback only.

The policy is plain state and decisions (the transport and the lobby ask it); it does no
I/O, and ``now`` is passed in.
"""

from __future__ import annotations

import hmac
import ipaddress
from collections import Counter, deque
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from ..config import Settings

WINDOW_SECONDS = 60.0


def peer_address(remote: object) -> str:
    """The host part of a connection's ``remote_address`` ('unix' for a Unix socket)."""
    if isinstance(remote, tuple) and remote:
        return str(remote[0])
    return "unix"


def _loopback(address: str) -> bool:
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return address in ("", "unix")  # a Unix socket: local by definition


@dataclass
class Gate:
    settings: Settings
    _open: Counter[str] = field(default_factory=Counter)
    _players: dict[str, deque[float]] = field(default_factory=dict)
    _rooms: dict[str, deque[float]] = field(default_factory=dict)

    # --- who is asking ---------------------------------------------------------------

    def client_address(self, peer: str, forwarded_for: str | None) -> str:
        """The address limits apply to: the peer's, or with ``--forwarded-for`` the last
        address the trusted proxy appended to ``X-Forwarded-For``."""
        if self.settings.forwarded_for and forwarded_for:
            last = forwarded_for.split(",")[-1].strip()
            if last:
                return last
        return peer

    def limited(self, address: str) -> bool:
        return self.settings.limit_loopback or not _loopback(address)

    # --- the handshake ---------------------------------------------------------------

    def origin_allowed(self, origin: str | None, host: str | None) -> bool:
        """May a page from ``origin`` open a WebSocket to this server (reached as ``host``)?"""
        if origin is None:
            return True  # not a browser page: a bot or a script
        allowed = [o.strip().rstrip("/") for o in self.settings.allowed_origins.split(",") if o.strip()]
        if "*" in allowed or origin.rstrip("/") in allowed:
            return True
        netloc = urlsplit(origin).netloc
        return bool(host) and netloc.lower() == (host or "").lower()

    def room_for(self, address: str) -> bool:
        """Is ``address`` under its limit of open connections?"""
        limit = self.settings.max_connections_per_ip
        return not (limit and self.limited(address) and self._open[address] >= limit)

    def connect(self, address: str) -> bool:
        """Count a new connection from ``address``; False (not counted) if over its limit."""
        if not self.room_for(address):
            return False
        self._open[address] += 1
        return True

    def disconnect(self, address: str) -> None:
        self._open[address] -= 1
        if self._open[address] <= 0:
            del self._open[address]

    # --- requests ----------------------------------------------------------------------

    def new_player(self, address: str, now: float) -> bool:
        """May ``address`` create a player now? (counts it if so)"""
        return self._take(self._players, address, self.settings.new_players_per_minute, now)

    def new_room(self, address: str, now: float) -> bool:
        """May ``address`` create a room now? (counts it if so)"""
        return self._take(self._rooms, address, self.settings.new_rooms_per_minute, now)

    def _take(self, windows: dict[str, deque[float]], address: str, per_minute: int, now: float) -> bool:
        if not per_minute or not self.limited(address):
            return True
        window = windows.setdefault(address, deque())
        while window and window[0] <= now - WINDOW_SECONDS:
            window.popleft()
        if len(window) >= per_minute:
            return False
        window.append(now)
        if len(windows) > 100_000:  # forget quiet addresses rather than grow without bound
            for a in [a for a, w in windows.items() if not w or w[-1] <= now - WINDOW_SECONDS]:
                del windows[a]
        return True

    # --- operators ------------------------------------------------------------------------

    def operator(self, authorization: str | None, address: str) -> bool:
        """May this request read ``/metrics`` (and ``/admin``, when a token is set)?"""
        token = self.settings.admin_token
        if token:
            scheme, _, given = (authorization or "").strip().partition(" ")
            if scheme.lower() != "bearer":  # the scheme is case-insensitive (RFC 9110); it is required
                return False
            return hmac.compare_digest(given.strip().encode(), token.encode())
        return _loopback(address)

    @property
    def admin_page(self) -> bool:
        return bool(self.settings.admin_token)
