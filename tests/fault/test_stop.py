"""A server told to stop, stops: SIGTERM ends the process within the grace period
(``GRACE``, as docs/server.md says) whatever it is doing and whatever state Redis is in.

Stopping used to hang now and then for good: a cancellation landing inside a redis-py
call was swallowed (redis-py turned it into a connection error and retried the command),
and the cancelled loop went on retrying after the process had closed Redis. Each test
here stops a real ``cardroom serve`` at a moment when Redis commands are in flight."""

from __future__ import annotations

import asyncio
import contextlib
import random
import signal
import time

import pytest

from tests.server.wsclient import Client

from .harness import RedisProcess, ServerProcess

pytestmark = pytest.mark.slow

GRACE = 10.0  # seconds; docs/server.md "Graceful shutdown"
#: what a shared, loaded test machine may add to it (a hang is not bounded at all)
SLACK = 5.0
STOPS = 20


async def _busy(url: str, name: str, until: asyncio.Event) -> None:
    """One client asking the server for work that writes to Redis, as fast as it answers."""
    with contextlib.suppress(Exception):  # the server going away ends it, however it ends
        c = await Client.connect(url)
        try:
            await c.hello(name)
            while not until.is_set():
                room = (await c.request({"t": "create_room", "game": "holdem", "options": {"seats": 2}}))["room"]
                await c.request({"t": "join", "room": room, "seat": 0})
                await c.request({"t": "quick_match", "game": "zhajinhua"})
                await c.request({"t": "leave", "room": room})
                await c.request({"t": "rooms"})
        finally:
            await c.close()


async def _stop_timed(server: ServerProcess) -> tuple[int, float]:
    started = time.monotonic()
    code = await server.terminate(timeout=GRACE + SLACK)  # raises TimeoutError past it
    return code, time.monotonic() - started


async def test_sigterm_under_load_ends_the_process_within_the_grace_every_time(tmp_path):
    redis = RedisProcess(tmp_path / "redis")
    redis.start()
    rng = random.Random(7)
    times = []
    try:
        for i in range(STOPS):
            server = ServerProcess(redis.url, tmp_path / f"server{i}.log")
            await server.astart()
            done = asyncio.Event()
            load = [asyncio.create_task(_busy(server.ws_url, f"p{i}-{k}", done)) for k in range(12)]
            try:
                await asyncio.sleep(rng.uniform(0.3, 1.2))  # stop at a different moment each time
                code, seconds = await _stop_timed(server)
            finally:
                done.set()
                server.stop()
                await asyncio.gather(*load)
            assert code == 0, server.output()[-3000:]
            assert "shutting down" in server.output()
            times.append(seconds)
    finally:
        redis.stop()
    print(f"{STOPS} stops under load: slowest {max(times):.2f} s, mean {sum(times) / len(times):.2f} s")


@pytest.mark.parametrize("fault", ["frozen", "gone"])
async def test_sigterm_ends_the_process_within_the_grace_when_redis_is_frozen_or_gone(tmp_path, fault):
    redis = RedisProcess(tmp_path / "redis")
    redis.start()
    server = ServerProcess(redis.url, tmp_path / "server.log")
    try:
        await server.astart()
        done = asyncio.Event()
        load = [asyncio.create_task(_busy(server.ws_url, f"p{k}", done)) for k in range(6)]
        await asyncio.sleep(0.5)
        assert redis.proc is not None
        if fault == "frozen":
            redis.proc.send_signal(signal.SIGSTOP)  # connections stay open, nothing answers
        else:
            redis.proc.kill()
            redis.proc.wait(10)
        await asyncio.sleep(0.3)
        try:
            code, _ = await _stop_timed(server)
        finally:
            done.set()
            server.stop()
            await asyncio.gather(*load)
        if fault == "gone":  # every Redis call fails at once: the graceful steps all run
            assert code == 0, server.output()[-3000:]
        else:  # every Redis call waits out its timeout: past the grace, the rest is closed at once
            assert code == 1 and "closing the rest at once" in server.output(), server.output()[-3000:]
    finally:
        if redis.proc is not None and redis.proc.poll() is None:
            redis.proc.send_signal(signal.SIGCONT)
        redis.stop()


async def test_a_failed_bind_exits_with_1_every_time(tmp_path):
    """A bind that fails ends the process by itself, with 1 and one line (it used to hang
    for good now and then: tests/server/test_shutdown.py)."""
    import socket

    redis = RedisProcess(tmp_path / "redis")
    redis.start()
    try:
        with socket.socket() as taken:
            taken.bind(("127.0.0.1", 0))
            taken.listen()
            port = taken.getsockname()[1]
            for i in range(5):
                server = ServerProcess(redis.url, tmp_path / f"bind{i}.log")
                server.extra = ["--port", str(port)]  # after the harness's --port 0: this one counts
                server._spawn()
                assert server.proc is not None
                try:
                    code = await asyncio.wait_for(asyncio.to_thread(server.proc.wait), 30)
                finally:
                    server.stop()
                assert code == 1 and "address already in use" in server.output(), server.output()
    finally:
        redis.stop()
