"""Fixtures: one embedded Redis for the session and a real cardroom server (all three
games, shuffled decks) bound to a free 127.0.0.1 port for each test that needs one."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio

from server.app import App
from server.config import Settings
from server.games import GAMES
from server.redis_embedded import EmbeddedRedis


@pytest.fixture(scope="session")
def bots_redis_url(tmp_path_factory: pytest.TempPathFactory) -> Any:
    embedded = EmbeddedRedis(tmp_path_factory.mktemp("bots-redis"))
    embedded.start()
    yield embedded.url
    embedded.stop()


@pytest_asyncio.fixture
async def server(bots_redis_url: str) -> AsyncIterator[App]:
    """A running server with Hold'em, Zha Jin Hua and Dou Dizhu; ``server.ws_url``."""
    settings = Settings(host="127.0.0.1", port=0, redis_url=bots_redis_url,
                        key_prefix=f"tb{uuid.uuid4().hex[:10]}:")
    app = App(settings, dict(GAMES))
    await app.start()
    yield app
    await app.stop()
