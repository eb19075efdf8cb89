"""Redis with Sentinel on loopback: a primary, two replicas and three sentinels, real
processes, for the failover tests.

The replicas replicate through a :class:`~tests.redis_link.RedisLink` relay, so a test can
hold the replication stream back (the replicas fall behind, as they do on a slow
network) and cut it when the primary dies: the writes the replicas never received are the
ones an asynchronous failover loses. (Two replicas: after a failover the new primary
still has one, which ``--redis-wait-replicas 1`` needs.)
"""

from __future__ import annotations

import asyncio
import os
import secrets
import signal
import time
from pathlib import Path

from redis.asyncio import Redis

from server.redis_embedded import redis_server_binary
from tests.redis_link import RedisLink

from .harness import RedisProcess, popen_logged, wait_port

SERVICE = "cardroom"
#: a primary that has not answered for this long is down, for a sentinel. Not shorter: on a
#: starved machine (CI runs two suites at once) a sentinel with 1 s took the just-promoted
#: replica for down as well and promoted the other one 2 s later, leaving two primaries
DOWN_AFTER_MS = 5000
#: a replica's first full copy at once (Redis 7 waits 5 s for other replicas to share it)
NO_SYNC_DELAY = ("--repl-diskless-sync-delay", "0")


class Sentinel(RedisProcess):
    """One ``redis-server --sentinel`` watching the primary, on its own port."""

    def __init__(self, directory: Path, primary_port: int) -> None:
        super().__init__(directory)
        self.id = secrets.token_hex(20)
        self.primary_port = primary_port

    def start(self, replica_ports: list[int] = (), others: list[Sentinel] = ()) -> None:  # type: ignore[override]
        """Start, told of the replicas and the other sentinels up front (found out by
        itself, they take a sentinel up to ten seconds to learn)."""
        self.dir.mkdir(parents=True, exist_ok=True)
        conf = self.dir / "sentinel.conf"  # a sentinel rewrites its file: one of its own
        conf.write_text("\n".join([
            f"port {self.port}", "bind 127.0.0.1", f"dir {self.dir}", "logfile sentinel.log",
            f"sentinel myid {self.id}",
            f"sentinel monitor {SERVICE} 127.0.0.1 {self.primary_port} 2",
            f"sentinel down-after-milliseconds {SERVICE} {DOWN_AFTER_MS}",
            f"sentinel failover-timeout {SERVICE} 10000",
            f"sentinel parallel-syncs {SERVICE} 1",
            *(f"sentinel known-replica {SERVICE} 127.0.0.1 {port}" for port in replica_ports),
            *(f"sentinel known-sentinel {SERVICE} 127.0.0.1 {o.port} {o.id}" for o in others), "",
        ]))
        self.proc = popen_logged([redis_server_binary(), str(conf), "--sentinel"], self.dir)
        wait_port(self.port, proc=self.proc, logs=(self.dir / "output.log", self.dir / "sentinel.log"))


class SentinelRedis:
    """A primary, two replicas of it (through :attr:`link`) and three sentinels."""

    def __init__(self, directory: Path) -> None:
        self.primary = RedisProcess(directory / "primary", extra=NO_SYNC_DELAY)
        self.link = RedisLink(self.primary.port)
        self.replicas: list[RedisProcess] = []
        self.dir = directory
        self.sentinels = [Sentinel(directory / f"sentinel{i}", self.primary.port) for i in range(3)]

    @property
    def url(self) -> str:
        """The ``redis+sentinel://`` URL of the service."""
        return "redis+sentinel://" + ",".join(f"127.0.0.1:{s.port}" for s in self.sentinels) + f"/{SERVICE}/0"

    async def start(self) -> None:
        """Start every process and wait until the sentinels agree; if that fails, stop what
        was started."""
        try:
            self.primary.start()
            await self.link.start()
            # the replicas reach the primary through the relay; each tells the primary its
            # own port, which is where the sentinels find it
            self.replicas = [RedisProcess(self.dir / f"replica{i}",
                                          extra=(*NO_SYNC_DELAY, "--replicaof", "127.0.0.1", str(self.link.port)))
                             for i in range(2)]
            for r in self.replicas:
                r.start()
            for s in self.sentinels:
                s.start([r.port for r in self.replicas], [o for o in self.sentinels if o is not s])
            await self.wait_ready()
        except BaseException:
            await self.stop()
            raise

    async def wait_ready(self, timeout: float = 30.0) -> None:
        """Until every sentinel knows the primary, its replicas (in sync) and the other two
        sentinels: before that, a failover could not be agreed on."""
        deadline = time.monotonic() + timeout
        while True:
            states = [await self._state(s) for s in self.sentinels]
            if all(st.get("num-slaves") == "2" and st.get("num-other-sentinels") == "2" for st in states):
                links = []
                for r in self.replicas:
                    replica = Redis(port=r.port)
                    try:
                        links.append((await replica.info("replication")).get("master_link_status"))
                    finally:
                        await replica.aclose()
                if links == ["up", "up"]:
                    return
            if time.monotonic() > deadline:
                raise TimeoutError(f"the sentinels did not come together: {states}")
            await asyncio.sleep(0.2)

    async def _state(self, sentinel: Sentinel) -> dict[str, str]:
        client = Redis(port=sentinel.port, decode_responses=True)
        try:
            reply = await client.execute_command("SENTINEL", "MASTER", SERVICE)
        except Exception:
            return {}
        finally:
            await client.aclose()
        if isinstance(reply, dict):
            return {str(k): str(v) for k, v in reply.items()}
        return {str(reply[i]): str(reply[i + 1]) for i in range(0, len(reply) - 1, 2)}

    async def primary_port(self) -> int:
        """The primary's port as the first sentinel that answers sees it."""
        for s in self.sentinels:
            client = Redis(port=s.port, decode_responses=True)
            try:
                _host, port = await client.execute_command("SENTINEL", "GET-MASTER-ADDR-BY-NAME", SERVICE)
                return int(port)
            except Exception:
                continue
            finally:
                await client.aclose()
        raise RuntimeError("no sentinel answers")

    async def wait_promoted(self, timeout: float = 30.0) -> tuple[float, RedisProcess]:
        """Until every sentinel names the same replica as the primary: the seconds it
        took, and that replica."""
        started = time.monotonic()
        while True:
            ports = set()
            for s in self.sentinels:
                client = Redis(port=s.port, decode_responses=True)
                try:
                    ports.add(int((await client.execute_command("SENTINEL", "GET-MASTER-ADDR-BY-NAME", SERVICE))[1]))
                except Exception:
                    ports.add(0)
                finally:
                    await client.aclose()
            promoted = [r for r in self.replicas if ports == {r.port}]
            if promoted:
                return time.monotonic() - started, promoted[0]
            if time.monotonic() - started > timeout:
                raise TimeoutError(f"the replica was not promoted: the sentinels name ports {ports}")
            await asyncio.sleep(0.1)

    def kill_primary(self) -> None:
        """SIGKILL the primary, and cut the replication streams at the same moment: what
        the relay still held never reaches the replicas."""
        assert self.primary.proc is not None
        os.kill(self.primary.proc.pid, signal.SIGKILL)
        self.primary.proc.wait(10)
        self.primary.proc = None
        self.link.cut()

    async def stop(self) -> None:
        for s in self.sentinels:
            s.stop()
        await self.link.stop()
        for r in (*self.replicas, self.primary):
            r.stop()
