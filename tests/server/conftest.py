"""Fixtures: one embedded Redis for the whole session, a fresh key prefix per test,
and servers bound to 127.0.0.1 on a free port, stopped by the test."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
import pytest_asyncio
from redis.asyncio import Redis

from server.app import App
from server.config import Settings
from server.redis_embedded import EmbeddedRedis

from .highcard import GAME as HIGHCARD
from .wsclient import Client


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Any:
    embedded = EmbeddedRedis(tmp_path_factory.mktemp("redis"))
    embedded.start()
    yield embedded.url
    embedded.stop()


@pytest.fixture
def prefix() -> str:
    return f"t{uuid.uuid4().hex[:10]}:"


def fixed_deck(size: int) -> list[int]:
    """Deal order 0, 1, 2, ...: in High Card the seat dealt last holds the best card."""
    return list(range(size))


@pytest_asyncio.fixture
async def make_app(redis_url: str, prefix: str, tmp_path) -> AsyncIterator[Callable[..., Any]]:
    apps: list[App] = []

    async def start(games: dict | None = None, deck=fixed_deck, clock=None, **settings: Any) -> App:
        s = Settings(host="127.0.0.1", port=0, redis_url=redis_url, key_prefix=prefix, **settings)
        kw = {"deck": deck}
        if clock is not None:
            kw["clock"] = clock
        app = App(s, games if games is not None else {"highcard": HIGHCARD}, **kw)
        await app.start()
        apps.append(app)
        return app

    yield start
    for app in apps:
        await app.stop()


@pytest_asyncio.fixture
async def app(make_app) -> App:
    return await make_app()


@pytest_asyncio.fixture
async def connect(app: App) -> AsyncIterator[Callable[..., Any]]:
    clients: list[Client] = []

    async def open_client(name: str | None = None, subprotocol: str = "cardroom.json", target: App | None = None) -> Client:
        c = await Client.connect((target or app).ws_url, subprotocol)
        clients.append(c)
        if name is not None:
            reply = await c.hello(name)
            assert reply["t"] == "welcome", reply
        return c

    yield open_client
    for c in clients:
        await c.close()


@pytest_asyncio.fixture
async def redis(redis_url: str) -> AsyncIterator[Redis]:
    r = Redis.from_url(redis_url)
    yield r
    await r.aclose()


async def owned(app: App, room: str, timeout: float = 10.0):
    """The room's actor on ``app``, once ``app`` has taken the room (rooms are taken lazily:
    by a request, or by the scan for rooms with a due timer and no owner)."""
    import asyncio

    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while room not in app.directory.actors:
        if loop.time() > deadline:
            raise TimeoutError(f"{app.node_id} did not take room {room}")
        await asyncio.sleep(0.02)
    return app.directory.actors[room]
