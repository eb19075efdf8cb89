"""Small asyncio helpers shared by the server's layers."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Hashable, Iterable
from typing import Any, TypeVar

T = TypeVar("T")

#: seconds :func:`cancel_and_wait` gives a task to end before asking it again
CANCEL_PATIENCE = 0.25


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


async def cancel_and_wait(tasks: Iterable[asyncio.Task[Any] | None]) -> None:
    """Cancel ``tasks`` and return once every one has ended.

    A task may swallow one cancellation: on Python 3.11 redis-py can turn a
    ``CancelledError`` that lands inside a command into a connection error and then retry
    the command, which succeeds, so the loop around it never learns it was asked to stop.
    A task still running after :data:`CANCEL_PATIENCE` is therefore cancelled again, until
    it ends. Every long-lived loop of the server is stopped through here."""
    tasks = [t for t in tasks if t is not None]
    pending = {t for t in tasks if not t.done()}
    while pending:
        for task in pending:
            task.cancel()
        _, pending = await asyncio.wait(pending, timeout=CANCEL_PATIENCE)
    for task in tasks:  # retrieved, also of a task that ended before this was called (its
        if not task.cancelled():  # connection closed under it): a loop's last error is not
            task.exception()      # worth a warning at exit


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

    async def cancel(self) -> None:
        """Cancel the tasks still running, and return once they have ended."""
        await cancel_and_wait(list(self._tasks))


def event_loop_factory(choice: str) -> Callable[[], asyncio.AbstractEventLoop] | None:
    """What makes the event loop ``cardroom serve`` runs on for the setting
    ``--event-loop`` (``auto``, ``uvloop`` or ``asyncio``): None for asyncio's own loop.
    ``auto`` takes uvloop where it is installed (a dependency but on Windows): its
    sockets and timers are written in C, which a process with many connections each
    sending a little feels most. Raises :class:`ImportError` when ``uvloop`` is asked
    for and missing."""
    if choice == "asyncio":
        return None
    try:
        import uvloop
    except ImportError:
        if choice == "uvloop":
            raise ImportError("--event-loop uvloop: the uvloop package is not installed "
                              "(pip install uvloop, or --event-loop asyncio)") from None
        return None
    return uvloop.new_event_loop
