"""Small asyncio helpers shared by the server's layers."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Hashable
from typing import Any, TypeVar

T = TypeVar("T")


def stop_if_cancelled() -> None:
    """Raise :class:`asyncio.CancelledError` if the running task has been asked to stop.

    Every loop that retries after a Redis error calls this before retrying: on Python
    3.11 a cancellation that arrives inside a redis-py call can surface as a connection
    error (one of :data:`server.store.UNAVAILABLE`) instead of ``CancelledError``, and a
    loop that took it for an outage would outlive its cancellation (a server that never
    stops, a test that never ends). ``Task.cancelling()`` still counts the request."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError


async def single_flight(inflight: dict[Any, asyncio.Future[Any]], key: Hashable,
                        run: Callable[[], Awaitable[T]]) -> T:
    """Run ``run()`` for ``key`` once at a time: callers arriving meanwhile share its
    result (or its exception) instead of running it again."""
    pending = inflight.get(key)
    if pending is not None:
        return await asyncio.shield(pending)
    fut: asyncio.Future[T] = asyncio.get_running_loop().create_future()
    inflight[key] = fut
    try:
        result = await run()
        fut.set_result(result)
        return result
    except BaseException as exc:
        fut.set_exception(exc)
        fut.exception()  # retrieved here: the waiters re-raise it
        raise
    finally:
        del inflight[key]


class Background:
    """Fire-and-forget tasks that are kept referenced until done, and awaited on stop."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()

    def spawn(self, coro: Awaitable[Any]) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def wait(self, timeout: float) -> None:
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=timeout)
