"""A server told to stop, stops: SIGTERM ends the process within the grace period
(``GRACE``, as docs/server.md says) whatever it is doing and whatever state Redis is in.

Stopping used to hang now and then for good: a cancellation landing inside a redis-py
call was swallowed (redis-py turned it into a connection error and retried the command),
and the cancelled loop went on retrying after the process had closed Redis. Each test
here stops a server at a moment when Redis commands are in flight: a real ``cardroom
serve`` sent SIGTERM (the signal, the exit status, the log line), and, for the many
random moments that race needs, the same graceful stop of an :class:`~server.app.App`
in this process (``App.stop()`` is what SIGTERM runs; it costs no process start)."""

from __future__ import annotations

import asyncio
import contextlib
import random
import signal
import time

import pytest

from server.app import App
from server.config import Settings
from tests.server.wsclient import Client

from .harness import RedisProcess, ServerProcess

pytestmark = pytest.mark.slow

GRACE = 10.0  # seconds; docs/server.md "Graceful shutdown"
#: what a shared, loaded test machine may add to it (a hang is not bounded at all)
SLACK = 5.0
#: real processes stopped under load, each at its own random moment
STOPS = 5
#: in-process servers stopped under load together, and how many times (seeds)
IN_PROCESS_STOPS = 5
IN_PROCESS_ROUNDS = 4


async def _busy(url: str, name: str, until: asyncio.Event, answered: list[int] | None = None) -> None:
    """One client asking the server for work that writes to Redis, as fast as it answers
    (``answered[0]`` counts the rounds of five requests answered)."""
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
                if answered is not None:
                    answered[0] += 1
        finally:
            await c.close()


async def _busy_by_now(answered: list[int], load: list[asyncio.Task]) -> None:
    """Return once a client has had a round answered, so that the stop comes while the
    server is busy (on a loaded machine the clients may take seconds to get going); or,
    should that not happen (every client gave up, as one does at its first request that
    times out, or 30 s passed), at once: the stop is what is tested."""
    deadline = time.monotonic() + 30
    while not answered[0] and not all(t.done() for t in load) and time.monotonic() < deadline:
        await asyncio.sleep(0.01)


async def _stop_timed(server: ServerProcess) -> tuple[int, float]:
    started = time.monotonic()
    code = await server.terminate(timeout=GRACE + SLACK)  # raises TimeoutError past it
    return code, time.monotonic() - started


async def _sigterm_under_load(server: ServerProcess, name: str, moment: float) -> tuple[int, float, int]:
    """Twelve busy clients on ``server``; SIGTERM ``moment`` seconds later. The exit
    status, the seconds the process took to end and the rounds the clients had answered."""
    done, answered = asyncio.Event(), [0]
    load = [asyncio.create_task(_busy(server.ws_url, f"{name}-{k}", done, answered)) for k in range(12)]
    try:
        await _busy_by_now(answered, load)
        await asyncio.sleep(moment)
        return (*await _stop_timed(server), answered[0])
    finally:
        done.set()
        server.stop()
        await asyncio.gather(*load)


async def test_sigterm_under_load_ends_the_process_within_the_grace_every_time(tmp_path):
    """Several ``cardroom serve`` on one Redis, each under load, each sent SIGTERM at a
    moment of its own (started together: one wait for their start-up, not one each)."""
    redis = RedisProcess(tmp_path / "redis")
    redis.start()
    rng = random.Random(7)
    moments = [rng.uniform(0.0, 0.9) for _ in range(STOPS)]  # stop at a different moment each time
    servers = [ServerProcess(redis.url, tmp_path / f"server{i}.log") for i in range(STOPS)]
    try:
        await asyncio.gather(*(s.astart() for s in servers))
        ends = await asyncio.gather(*(_sigterm_under_load(s, f"p{i}", m)
                                      for i, (s, m) in enumerate(zip(servers, moments, strict=True))))
    finally:
        for s in servers:
            s.stop()
        redis.stop()
    for server, (code, _, _) in zip(servers, ends, strict=True):
        assert code == 0, server.output()[-3000:]
        assert "shutting down" in server.output()
    times = [seconds for _, seconds, _ in ends]
    print(f"{STOPS} stops under load: slowest {max(times):.2f} s, mean {sum(times) / len(times):.2f} s; "
          f"rounds answered before each: {[n for _, _, n in ends]}")


async def _end_as_asyncio_run_does(before: set[asyncio.Task]) -> None:
    """What ``asyncio.run`` does before ``cardroom serve`` exits: every task still running
    is cancelled, and the process waits for them all. One that swallows its cancellation
    would keep the process alive for good: here it fails the test after :data:`SLACK`."""
    left = [t for t in asyncio.all_tasks() - before if t is not asyncio.current_task() and not t.done()]
    for t in left:
        t.cancel()
    if left:
        _, pending = await asyncio.wait(left, timeout=SLACK)
        assert not pending, f"tasks that outlived their cancellation: {[t.get_coro() for t in pending]}"


async def _app_stop_under_load(app: App, name: str, moment: float) -> int:
    """Twelve busy clients on ``app``; ``moment`` seconds later, what SIGTERM runs:
    ``App.stop()``, which must end within the bound a process gets (:data:`GRACE` and
    the :data:`SLACK` of a loaded machine, which here shares its one event loop with
    every client). The rounds the clients had answered."""
    done, answered = asyncio.Event(), [0]
    load = [asyncio.create_task(_busy(app.ws_url, f"{name}-{k}", done, answered)) for k in range(12)]
    try:
        await _busy_by_now(answered, load)
        await asyncio.sleep(moment)
        await asyncio.wait_for(app.stop(), GRACE + SLACK)
        return answered[0]
    finally:
        done.set()
        await asyncio.gather(*load)


@pytest.mark.parametrize("seed", range(IN_PROCESS_ROUNDS))
async def test_app_stop_under_load_ends_within_the_grace_every_time(tmp_path, seed):
    """The race above at more random moments, without a process start for each: servers
    in this process (a key prefix each) under the same load, each stopped as SIGTERM
    stops ``cardroom serve`` at a moment of its own; then every task they left must end
    when cancelled, as ``asyncio.run`` requires before the process exits. (The exit
    status, 0 only for a stop within the grace, is the real processes' test above.)"""
    redis = RedisProcess(tmp_path / "redis")
    redis.start()
    rng = random.Random(seed)
    before = asyncio.all_tasks()
    apps: list[App] = []
    try:
        for i in range(IN_PROCESS_STOPS):
            apps.append(App(Settings(host="127.0.0.1", port=0, redis_url=redis.url, key_prefix=f"s{seed}-{i}:")))
            await apps[-1].start()
        answered = await asyncio.gather(*(_app_stop_under_load(app, f"p{i}", rng.uniform(0.0, 0.9))
                                          for i, app in enumerate(apps)))
        await _end_as_asyncio_run_does(before)
    finally:
        for app in apps:
            if app.clients is not None:  # not stopped (the test failed before): stop it now
                await app.stop()
        redis.stop()
    print(f"{IN_PROCESS_STOPS} stops in this process; rounds answered before each: {answered}")


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
