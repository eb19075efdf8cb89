"""Redis through Sentinel: the URL form, and the clients that follow a failover.

A primary with replicas watched by Redis Sentinel is named by the sentinels and the name
they watch it under::

    redis+sentinel://[[username]:password@]host:port[,host:port...]/service[/db][?options]

* ``host:port`` pairs are the sentinels (port 26379 when left out); any of them answers.
* ``service`` is the name the sentinels know the primary by (``sentinel monitor <name>``).
* ``username``/``password`` are for the Redis servers (primary and replicas); the
  sentinels get ``sentinel_password`` (and ``sentinel_username``) from the query string
  when they require one of their own.

Every client made from such a URL asks a sentinel for the current primary whenever it opens
a connection; a connection to a primary that was demoted (it answers ``READONLY``) is
closed, so that the next one asks again. What cardroom does about a write Redis lost in
the failover is the owner's job (see :mod:`server.room.actor`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

SCHEME = "redis+sentinel"
DEFAULT_PORT = 26379
_OPTIONS = ("sentinel_username", "sentinel_password")


class SentinelURLError(ValueError):
    """A ``redis+sentinel://`` URL that cannot be used; the message says why."""


@dataclass(frozen=True)
class SentinelTarget:
    """What a ``redis+sentinel://`` URL names."""

    sentinels: tuple[tuple[str, int], ...]
    service: str
    db: int = 0
    username: str | None = None
    password: str | None = None
    sentinel_username: str | None = None
    sentinel_password: str | None = None

    def manager(self, connect_timeout: float, timeout: float) -> Any:
        """redis-py's asyncio ``Sentinel`` for these sentinels (asking them with the given
        timeouts), whose clients connect to the servers with these credentials."""
        from redis.asyncio.sentinel import Sentinel

        return Sentinel(list(self.sentinels), sentinel_kwargs=self._sentinel_kwargs(connect_timeout, timeout),
                        **self._server_kwargs())

    def sync_manager(self, connect_timeout: float, timeout: float) -> Any:
        """The same with redis-py's blocking ``Sentinel`` (for the command-line tools)."""
        from redis.sentinel import Sentinel

        return Sentinel(list(self.sentinels), sentinel_kwargs=self._sentinel_kwargs(connect_timeout, timeout),
                        **self._server_kwargs())

    def _sentinel_kwargs(self, connect_timeout: float, timeout: float) -> dict[str, Any]:
        kw: dict[str, Any] = {"socket_connect_timeout": connect_timeout, "socket_timeout": timeout}
        if self.sentinel_password is not None:
            kw["password"] = self.sentinel_password
        if self.sentinel_username is not None:
            kw["username"] = self.sentinel_username
        return kw

    def _server_kwargs(self) -> dict[str, Any]:
        return {"db": self.db, "username": self.username, "password": self.password}


def is_sentinel_url(url: str) -> bool:
    return url.startswith(SCHEME + "://")


def parse_sentinel_url(url: str) -> SentinelTarget:
    """The sentinels, service, database and credentials of a ``redis+sentinel://`` URL;
    raises :class:`SentinelURLError` naming what is wrong."""
    if url.startswith("rediss+sentinel://"):
        raise SentinelURLError("TLS through Sentinel (rediss+sentinel://) is not supported")
    if not is_sentinel_url(url):
        raise SentinelURLError(f"not a {SCHEME}:// URL")
    parts = urlsplit(url)
    credentials, _, hosts = parts.netloc.rpartition("@")
    username = password = None
    if credentials:
        user, colon, secret = credentials.partition(":")
        username = unquote(user) or None
        password = unquote(secret) if colon else None
    sentinels = tuple(_address(h) for h in hosts.split(",")) if hosts else ()
    if not sentinels:
        raise SentinelURLError("no sentinel named (host:port[,host:port...])")
    path = [p for p in parts.path.split("/") if p]
    if not path:
        raise SentinelURLError("no service named: the path is /<service>[/<db>], the name the sentinels monitor")
    if len(path) > 2:
        raise SentinelURLError(f"the path is /<service>[/<db>], got {parts.path}")
    db = 0
    if len(path) == 2:
        if not path[1].isdigit():
            raise SentinelURLError(f"the database must be a number, got {path[1]!r}")
        db = int(path[1])
    query = parse_qs(parts.query, keep_blank_values=True)
    unknown = sorted(set(query) - set(_OPTIONS))
    if unknown:
        raise SentinelURLError(f"unknown option {unknown[0]!r} (known: {', '.join(_OPTIONS)})")
    return SentinelTarget(sentinels, unquote(path[0]), db, username, password,
                          query.get("sentinel_username", [None])[-1], query.get("sentinel_password", [None])[-1])


def _address(text: str) -> tuple[str, int]:
    """``host``, ``host:port``, ``[v6]`` or ``[v6]:port`` as (host, port)."""
    text = text.strip()
    if text.startswith("["):
        host, _, rest = text[1:].partition("]")
        port = rest[1:] if rest.startswith(":") else (rest or str(DEFAULT_PORT))
    elif ":" in text:
        host, _, port = text.partition(":")
    else:
        host, port = text, str(DEFAULT_PORT)
    if not host:
        raise SentinelURLError(f"a sentinel without a host: {text!r}")
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise SentinelURLError(f"a sentinel's port must be 1..65535, got {port!r}")
    return host, int(port)
