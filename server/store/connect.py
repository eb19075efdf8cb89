"""Connecting to Redis: a single server or a Redis Cluster, found out by asking it, or
the primary that Redis Sentinel names (a ``redis+sentinel://`` URL, see
:mod:`server.sentinel`).

Three clients share one URL:

* ``main``: every command and script, on a pool of ``pool`` connections. The
  :class:`~server.store.Store` never runs more than ``pool`` commands at once, so a
  burst of load queues instead of failing with "too many connections".
* ``blocking``: its own small pool for the node inbox's ``XREAD BLOCK``, which holds a
  connection for up to a second at a time.
* ``pubsub``: a plain client for pub/sub. On a Cluster, ``PUBLISH`` reaches subscribers
  on every node, so subscribing on the node the URL names is enough.

Through Sentinel every client asks a sentinel for the primary whenever it opens a
connection, so each follows a failover on its next connection.

Library retries are limited to one immediate retry after a broken connection (a
pooled connection that Redis closed while idle); anything longer is the caller's job.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from redis.asyncio import BlockingConnectionPool, Redis, RedisCluster
from redis.asyncio.retry import Retry
from redis.asyncio.sentinel import SentinelConnectionPool
from redis.backoff import NoBackoff

from ..sentinel import is_sentinel_url, parse_sentinel_url

COMMAND_TIMEOUT = 5.0  # seconds a single Redis command may take before it counts as unavailable
CONNECT_TIMEOUT = 2.0


@dataclass
class Clients:
    main: Any
    blocking: Any
    pubsub: Redis
    cluster: bool

    async def aclose(self) -> None:
        for client in (self.main, self.blocking, self.pubsub):
            try:
                await client.aclose()
            except Exception:  # closing a client whose server is gone
                pass


def _retry() -> Retry:
    return Retry(NoBackoff(), 1)


class SentinelBlockingPool(SentinelConnectionPool, BlockingConnectionPool):
    """redis-py's Sentinel pool that, like :class:`BlockingConnectionPool`, makes a caller
    wait for a free connection rather than fail when all are in use."""


async def is_cluster(url: str) -> bool:
    """Does the Redis at ``url`` run in cluster mode? Raises if it does not answer."""
    probe = Redis.from_url(url, socket_connect_timeout=CONNECT_TIMEOUT, socket_timeout=COMMAND_TIMEOUT)
    try:
        info = await probe.info("cluster")
        return int(info.get("cluster_enabled", 0)) == 1
    finally:
        await probe.aclose()


async def connect(url: str, pool: int = 64) -> Clients:
    """Open the three clients for ``url`` (``redis://``, ``rediss://``, ``unix://`` or
    ``redis+sentinel://``)."""
    common: dict[str, Any] = {
        "socket_connect_timeout": CONNECT_TIMEOUT, "retry": _retry(),
    }
    if is_sentinel_url(url):
        return _through_sentinel(url, pool, common)
    cluster = await is_cluster(url)
    pubsub = Redis.from_url(url, socket_connect_timeout=CONNECT_TIMEOUT, retry=_retry())
    if cluster:
        main = RedisCluster.from_url(url, max_connections=pool, socket_timeout=COMMAND_TIMEOUT, **common)
        blocking = RedisCluster.from_url(url, max_connections=8, socket_timeout=COMMAND_TIMEOUT + 5, **common)
        await main.initialize()
        await blocking.initialize()
    else:
        main = Redis(connection_pool=BlockingConnectionPool.from_url(
            url, max_connections=pool, timeout=COMMAND_TIMEOUT, socket_timeout=COMMAND_TIMEOUT, **common))
        blocking = Redis.from_url(url, socket_timeout=COMMAND_TIMEOUT + 5, **common)
    return Clients(main=main, blocking=blocking, pubsub=pubsub, cluster=cluster)


def _through_sentinel(url: str, pool: int, common: dict[str, Any]) -> Clients:
    target = parse_sentinel_url(url)
    sentinel = target.manager(CONNECT_TIMEOUT, COMMAND_TIMEOUT)
    main = sentinel.master_for(target.service, connection_pool_class=SentinelBlockingPool, max_connections=pool,
                               timeout=COMMAND_TIMEOUT, socket_timeout=COMMAND_TIMEOUT, **common)
    blocking = sentinel.master_for(target.service, socket_timeout=COMMAND_TIMEOUT + 5, **common)
    pubsub = sentinel.master_for(target.service, **common)
    return Clients(main=main, blocking=blocking, pubsub=pubsub, cluster=False)
