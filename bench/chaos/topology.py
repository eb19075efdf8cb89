"""The processes the chaos soak runs and breaks: a Redis primary with two replicas and
three sentinels, and the ``cardroom serve`` processes, every one of them behind a TCP relay
(:class:`~tests.redis_link.RedisLink`) that can stall or cut its connections.

Each Redis node announces its relay's port (``--replica-announce-port``), and the
sentinels watch the primary through its relay, so everything that reaches a node (the
servers, the replicas' replication streams, the sentinels) goes through that node's relay:
a stall or a cut of it is the node's network failing. The players reach each server
through its own relay, whose port stays the same when the server restarts on a new one.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path

from redis.asyncio import Redis

from tests.fault.harness import RedisProcess, ServerProcess
from tests.fault.sentinels import NO_SYNC_DELAY, SERVICE, Sentinel
from tests.redis_link import RedisLink


async def ask(port: int, *command: str | int) -> object:
    """One command to the Redis (or sentinel) on ``port``; None if it does not answer."""
    client = Redis(port=port, decode_responses=True, socket_timeout=2, socket_connect_timeout=2)
    try:
        return await client.execute_command(*command)
    except Exception:
        return None
    finally:
        await client.aclose()


def as_strings(reply: object) -> dict[str, str]:
    """A reply redis-py parses into a dict (``INFO``, ``SENTINEL MASTER``), values as text;
    empty for no reply."""
    return {str(k): str(v) for k, v in reply.items()} if isinstance(reply, dict) else {}


class DataNode:
    """A Redis server (append-only) behind its own relay; known to everyone by the relay's
    port. ``name`` is for the soak's report."""

    def __init__(self, directory: Path, name: str, primary: DataNode | None = None) -> None:
        self.name = name
        self.link = RedisLink(0)  # its target is set once the server's port is chosen
        self.redis = RedisProcess(directory, extra=(
            *NO_SYNC_DELAY, "--replica-announce-ip", "127.0.0.1", "--replica-announce-port", str(self.link.port),
            *(("--replicaof", "127.0.0.1", str(primary.port)) if primary else ())))
        self.link.target = self.redis.port
        self.pids: list[int] = []  # every process it ran as

    @property
    def port(self) -> int:
        return self.link.port

    async def start(self) -> None:
        if not self.link.running:
            await self.link.start()
        await asyncio.to_thread(self.redis.start)
        assert self.redis.proc is not None
        self.pids.append(self.redis.proc.pid)

    def alive(self) -> bool:
        return self.redis.proc is not None and self.redis.proc.poll() is None

    def kill9(self) -> None:
        assert self.redis.proc is not None
        os.kill(self.redis.proc.pid, signal.SIGKILL)
        self.redis.proc.wait(10)
        self.redis.proc = None

    async def role(self) -> dict[str, str]:
        """``INFO replication`` of the node, asked directly (not through its relay)."""
        return as_strings(await ask(self.redis.port, "INFO", "replication"))

    async def stop(self) -> None:
        await asyncio.to_thread(self.redis.stop)
        await self.link.stop()


class RedisHA:
    """A primary, two replicas and three sentinels (quorum 2), on loopback."""

    def __init__(self, directory: Path) -> None:
        first = DataNode(directory / "redis0", "redis0")
        self.nodes = [first, DataNode(directory / "redis1", "redis1", first),
                      DataNode(directory / "redis2", "redis2", first)]
        self.sentinels = [Sentinel(directory / f"sentinel{i}", first.port) for i in range(3)]
        self._sentinel_pids: list[int] = []

    @property
    def pids(self) -> list[int]:
        """Every process it ran (nodes restarted included)."""
        return [p for n in self.nodes for p in n.pids] + self._sentinel_pids

    @property
    def url(self) -> str:
        return "redis+sentinel://" + ",".join(f"127.0.0.1:{s.port}" for s in self.sentinels) + f"/{SERVICE}/0"

    async def start(self) -> None:
        for node in self.nodes:
            await node.start()
        for s in self.sentinels:
            s.start([n.port for n in self.nodes[1:]], [o for o in self.sentinels if o is not s])
            assert s.proc is not None
            self._sentinel_pids.append(s.proc.pid)
        if not await self.wait_healthy(60):
            raise TimeoutError("Redis and its sentinels did not come together in 60 s")

    async def primary(self) -> DataNode | None:
        """The node every sentinel names as the primary (None while they disagree or
        none answers)."""
        ports = set()
        for s in self.sentinels:
            reply = await ask(s.port, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", SERVICE)
            ports.add(int(reply[1]) if isinstance(reply, list | tuple) else 0)
        found = [n for n in self.nodes if ports == {n.port}]
        return found[0] if found else None

    async def healthy(self) -> bool:
        """Every node up, the sentinels agreed on the primary, both replicas replicating
        from it, and every sentinel knowing the other two: a failover could happen now."""
        primary = await self.primary()
        if primary is None or not all(n.alive() for n in self.nodes):
            return False
        role = await primary.role()
        if role.get("role") != "master" or role.get("connected_slaves") != "2":
            return False
        for n in self.nodes:
            if n is not primary and (await n.role()).get("master_link_status") != "up":
                return False
        for s in self.sentinels:
            if as_strings(await ask(s.port, "SENTINEL", "MASTER", SERVICE)).get("num-other-sentinels") != "2":
                return False
        return True

    async def wait_healthy(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while not await self.healthy():
            if time.monotonic() > deadline:
                return False
            await asyncio.sleep(0.2)
        return True

    async def stop(self) -> None:
        for s in self.sentinels:
            await asyncio.to_thread(s.stop)
        for n in self.nodes:
            await n.stop()


class Server:
    """One ``cardroom serve`` on the sentinels' URL, behind the relay its players use."""

    def __init__(self, directory: Path, index: int, redis_url: str, flags: list[str]) -> None:
        self.name = f"server{index}"
        self.process = ServerProcess(redis_url, directory / f"{self.name}.log", *flags)
        self.link = RedisLink(0)
        self.pids: list[int] = []  # every process it ran as (none may be left at the end)
        self.failed_starts = 0  # starts that ended at once (Redis failing over, say)

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.link.port}/ws"

    async def start(self, attempts: int = 30) -> None:
        """Start it, again after a second if it exits at once (as a supervisor does: a
        server that finds no Redis at start says so and exits)."""
        if not self.link.running:
            await self.link.start()
        for attempt in range(attempts):
            try:
                await self.process.astart(60)
                break
            except AssertionError:
                if self.process.proc is not None:
                    self.pids.append(self.process.proc.pid)
                if attempt == attempts - 1:
                    raise
                self.failed_starts += 1
                await asyncio.sleep(1.0)
        assert self.process.proc is not None and self.process.port is not None
        self.pids.append(self.process.proc.pid)
        self.link.target = self.process.port

    def alive(self) -> bool:
        return self.process.alive()

    async def stop(self) -> None:
        await asyncio.to_thread(self.process.stop)
        await self.link.stop()
