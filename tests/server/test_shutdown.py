"""A server that is told to stop, stops: none of its loops outlives it.

On Python 3.11 a cancellation that arrives inside a redis-py call can surface as a
connection error; a loop that retried on such errors ran on after its cancellation, and
one background task (the spectator-count reporter) kept retrying against a closed Redis
client after ``App.stop()``. Both hung the test runner's teardown for good."""

from __future__ import annotations

import asyncio
import gc
import socket
import subprocess
import sys
import time

import pytest
import redis.exceptions as rx

from server.aio import cancel_and_wait, stop_if_cancelled
from server.cluster.node import Outage
from server.store import UNAVAILABLE


async def _redis_call_that_turns_cancellation_into_an_error() -> None:
    try:
        await asyncio.sleep(3600)
    except asyncio.CancelledError:
        raise rx.ConnectionError("Connection closed by server.") from None


async def test_a_retrying_loop_ends_when_cancelled_though_the_cancellation_became_a_redis_error():
    attempts = 0

    async def loop() -> None:
        nonlocal attempts
        outage = Outage("test loop")
        while True:
            attempts += 1
            try:
                await _redis_call_that_turns_cancellation_into_an_error()
            except UNAVAILABLE as exc:
                await asyncio.sleep(outage.failed(exc))

    task = asyncio.create_task(loop())
    await asyncio.sleep(0.01)
    task.cancel()
    done, _ = await asyncio.wait([task], timeout=2)
    assert done and task.cancelled() and attempts == 1


async def test_cancel_and_wait_ends_a_loop_that_swallowed_its_cancellation():
    """redis-py retries a command whose cancellation it turned into a connection error; the
    retry succeeds and the loop around it goes back to waiting, its cancellation spent."""
    swallowed = 0

    async def loop() -> None:
        nonlocal swallowed
        while True:
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                if swallowed:
                    raise
                swallowed += 1  # the "retried" call returned normally

    task = asyncio.create_task(loop())
    await asyncio.sleep(0.01)
    await asyncio.wait_for(cancel_and_wait([task, None]), 5)
    assert task.cancelled() and swallowed == 1


@pytest.mark.parametrize("redis", ["embedded", "url"])
def test_a_port_in_use_is_one_clear_line_and_exit_1(redis, redis_url, tmp_path):
    """It used to log the error and then hang for good, deaf to Ctrl-C and SIGTERM: its
    shutdown waited for a loop that had swallowed its cancellation."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        where = ["--data-dir", str(tmp_path / "data")] if redis == "embedded" else ["--redis-url", redis_url]
        run = subprocess.run([sys.executable, "-m", "server.cli", "serve", "--port", str(port), *where],
                             capture_output=True, text=True, timeout=60)
    assert run.returncode == 1, run.stderr
    last = run.stderr.strip().splitlines()[-1]
    assert last.startswith("cardroom serve: ") and "address already in use" in last, run.stderr
    assert "Traceback" not in run.stderr


async def test_a_loop_that_failed_before_it_was_stopped_is_no_warning_at_exit():
    """A node's loop whose connection was closed under it while the process stopped (an
    error on uvloop, where asyncio's own loop says nothing) ends before its cancellation
    is asked: its error is retrieved, not printed as a traceback when the process exits."""
    loop = asyncio.get_running_loop()
    reported = []
    loop.set_exception_handler(lambda _, context: reported.append(context["message"]))

    async def fails():
        raise RuntimeError("unable to perform operation on <UnixTransport closed=True>; the handler is closed")

    task = asyncio.ensure_future(fails())
    await asyncio.sleep(0)
    assert task.done()
    await cancel_and_wait([task, None])
    del task
    gc.collect()
    assert reported == []


async def test_stop_if_cancelled_does_nothing_in_a_task_nobody_cancelled():
    stop_if_cancelled()  # returns: this task runs on


async def test_after_stop_no_task_of_the_server_is_left(make_app, prefix):
    before = asyncio.all_tasks()
    app = await make_app()
    from .wsclient import Client

    a = await Client.connect(app.ws_url)
    await a.hello("alice")
    room = (await a.request({"t": "create_room", "game": "highcard"}))["room"]
    watcher = await Client.connect(app.ws_url)
    await watcher.hello("watcher")
    assert (await watcher.request({"t": "spectate", "room": room}))["t"] == "room"
    await watcher.close()  # the spectator count changes: its reporter runs
    await a.close()
    await app.stop()
    await asyncio.sleep(0.1)
    left = [t for t in asyncio.all_tasks() - before if t is not asyncio.current_task() and not t.done()]
    assert not left, [t.get_coro() for t in left]


async def test_a_stalled_event_loop_shows_in_the_lag_histogram(make_app):
    app = await make_app()
    await asyncio.sleep(0.3)  # the probe is running

    def over(seconds: float) -> float:
        samples = app.metrics.registry.get_sample_value
        total = samples("cardroom_event_loop_lag_seconds_count") or 0.0
        return total - (samples("cardroom_event_loop_lag_seconds_bucket", {"le": str(seconds)}) or 0.0)

    before = over(0.25)
    time.sleep(0.6)  # work that blocks the loop: the probe's timer is at least 0.35 s late
    await asyncio.sleep(0.3)
    assert over(0.25) >= before + 1


async def test_garbage_collections_are_timed_by_generation_while_the_server_runs(make_app):
    app = await make_app()
    samples = app.metrics.registry.get_sample_value
    before = samples("cardroom_gc_pause_seconds_count", {"generation": "2"}) or 0.0
    gc.collect()  # a full collection: generation 2
    assert samples("cardroom_gc_pause_seconds_count", {"generation": "2"}) == before + 1
    await app.stop()
    gc.collect()  # a stopped server no longer counts (its callback is gone)
    assert samples("cardroom_gc_pause_seconds_count", {"generation": "2"}) == before + 1
