"""The node's lean pub/sub connection (server/store/pubsub.py), against a real Redis,
directly or through a relay that cuts like a network."""

from __future__ import annotations

import asyncio
import uuid

import pytest
from redis import exceptions as rx
from redis.asyncio import Redis

from server.store.pubsub import PubSubLink, pubsub_for
from tests.redis_link import RedisLink


def _channel() -> str:
    return f"pubsub-test:{uuid.uuid4().hex}"


async def _next(link: PubSubLink, kind: str = "message") -> dict:
    """The next message of ``kind`` (others, such as confirmations, skipped)."""
    for _ in range(20):
        msg = await link.get_message(timeout=1.0)
        if msg is not None and msg["type"] == kind:
            return msg
    raise AssertionError(f"no {kind} message")


async def test_messages_arrive_in_order_and_a_burst_is_handed_out_without_waiting(redis_url: str) -> None:
    redis = Redis.from_url(redis_url)
    link = pubsub_for(redis)
    assert isinstance(link, PubSubLink)
    channel, other = _channel(), _channel()
    try:
        await link.subscribe(channel)  # returns once Redis confirmed it
        assert dict(await redis.pubsub_numsub(channel))[channel.encode()] == 1
        assert await _next(link, "subscribe") == {"type": "subscribe", "pattern": None,
                                                  "channel": channel.encode(), "data": 1}
        await redis.publish(other, b"not for us")
        for i in range(100):
            await redis.publish(channel, b"\x00\xff\r\n %d" % i)
        got = [(await _next(link))["data"] for _ in range(100)]
        assert got == [b"\x00\xff\r\n %d" % i for i in range(100)]
        assert await link.get_message(timeout=0.05) is None  # nothing else came
        await link.unsubscribe(channel)
        assert (await _next(link, "unsubscribe"))["channel"] == channel.encode()
        assert channel.encode() not in link.channels
    finally:
        await link.aclose()
        await redis.aclose()


async def test_a_cut_fails_the_reader_once_and_the_next_read_subscribes_again(redis_url: str) -> None:
    relay = RedisLink(redis_url)
    await relay.start()
    redis = Redis.from_url(redis_url)
    link = pubsub_for(Redis.from_url(relay.url))
    kept, given_up, asked = _channel(), _channel(), _channel()
    try:
        await link.subscribe(kept, given_up)
        reading = asyncio.ensure_future(link.get_message(timeout=5.0))
        await asyncio.sleep(0.05)
        relay.cut()
        with pytest.raises(rx.ConnectionError):  # the reader waiting learns of it
            while True:
                await reading
                reading = asyncio.ensure_future(link.get_message(timeout=5.0))
        with pytest.raises(rx.ConnectionError):  # Redis out of reach: not subscribed now...
            await link.unsubscribe(given_up)
        with pytest.raises((rx.ConnectionError, rx.TimeoutError)):
            await link.subscribe(asked)
        relay.flow()
        await link.get_message(timeout=0.5)  # ...but on the next connection
        subscribers = dict(await redis.pubsub_numsub(kept, given_up, asked))
        assert subscribers == {kept.encode(): 1, given_up.encode(): 0, asked.encode(): 1}
        await redis.publish(asked, b"back")
        assert (await _next(link))["data"] == b"back"
    finally:
        await link.aclose()
        await redis.aclose()
        await relay.stop()


async def test_the_reader_learns_of_a_lost_connection_that_a_subscribe_replaced(redis_url: str) -> None:
    """Redis closes the connection; before the reader looks, a ``subscribe`` connects
    again (and subscribes every channel). What was published in between is lost, so the
    reader still gets the ``ConnectionError`` once (after what came on the new connection),
    which is the node's cue to read again what its views may have missed."""
    redis = Redis.from_url(redis_url)
    link = pubsub_for(redis)
    kept, asked = _channel(), _channel()
    try:
        await link.subscribe(kept)
        await _next(link, "subscribe")
        killed = await redis.execute_command("CLIENT", "KILL", "TYPE", "pubsub")
        assert int(killed) >= 1
        await redis.publish(kept, b"lost")  # nobody hears it
        for _ in range(100):  # the link sees the connection close
            if link._live() is None:
                break
            await asyncio.sleep(0.01)
        await link.subscribe(asked)  # connects again, before the reader looks
        seen = []
        with pytest.raises(rx.ConnectionError):
            for _ in range(10):
                msg = await link.get_message(timeout=0.5)
                seen.append(None if msg is None else (msg["type"], msg["channel"]))
        assert seen == [("subscribe", kept.encode()), ("subscribe", asked.encode())]
        await redis.publish(kept, b"heard")
        assert (await _next(link))["data"] == b"heard"  # the same connection goes on
    finally:
        await link.aclose()
        await redis.aclose()


async def test_tls_keeps_redis_py() -> None:
    redis = Redis.from_url("rediss://127.0.0.1:1/0")
    pubsub = pubsub_for(redis)
    assert not isinstance(pubsub, PubSubLink)
    await pubsub.aclose()
    await redis.aclose()
