"""The store's lean connection for scripts (server/store/link.py), against a real Redis,
directly or through a relay that stalls and cuts like a network."""

from __future__ import annotations

import asyncio
import subprocess
import time
import uuid

import pytest
from redis import exceptions as rx
from redis.asyncio import Redis, RedisCluster

from client_demo.tools.loadtest.launcher import free_port
from server.redis_embedded import redis_server_binary
from server.store.link import ScriptLink, link_for
from tests.redis_link import RedisLink


def _key() -> str:
    return f"link-test:{uuid.uuid4().hex}"


def own_redis(directory, *extra: str) -> tuple[subprocess.Popen[bytes], int]:
    """A redis-server of the test's own on a free port (``extra``: more arguments)."""
    port = free_port()
    proc = subprocess.Popen([redis_server_binary(), "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no", "--dir", str(directory), *extra], stdout=subprocess.DEVNULL)
    return proc, port


async def until_up(client: Redis) -> None:
    for _ in range(100):
        try:
            await client.ping()
            return
        except rx.ConnectionError:
            await asyncio.sleep(0.05)


async def test_many_calls_at_once_each_get_their_own_reply_in_order(redis_url: str) -> None:
    link = link_for(Redis.from_url(redis_url))
    assert link is not None
    key = _key()
    try:
        replies = await asyncio.gather(*(link.call("INCR", key) for _ in range(200)))
        assert replies == list(range(1, 201))
        assert await link.call("SET", key, b"\x00\xff\r\n bytes") == b"OK"
        assert await link.call("GET", key) == b"\x00\xff\r\n bytes"
        assert await link.call("SET", key, "文字") == b"OK"
        assert (await link.call("GET", key)).decode() == "文字"
    finally:
        await link.call("DEL", key)
        await link.aclose()


async def test_an_error_reply_is_raised_to_its_caller_only(redis_url: str) -> None:
    link = link_for(Redis.from_url(redis_url))
    key = _key()
    try:
        await link.call("SET", key, "text")
        bad, good = await asyncio.gather(link.call("INCR", key), link.call("GET", key), return_exceptions=True)
        assert isinstance(bad, rx.ResponseError) and "not an integer" in str(bad)
        assert good == b"text"
    finally:
        await link.call("DEL", key)
        await link.aclose()


async def test_a_script_redis_does_not_know_is_loaded_and_run(redis_url: str) -> None:
    link = link_for(Redis.from_url(redis_url))
    source = f"return {{KEYS[1], ARGV[1], '{uuid.uuid4().hex}'}}"  # a script never loaded before
    try:
        with pytest.raises(rx.NoScriptError):
            await link.call("EVALSHA", "0" * 40, 0)
        first = await link.evalsha(source, ["k"], [7])
        second = await link.evalsha(source, ["k"], [8])
        assert first[:2] == [b"k", b"7"] and second[:2] == [b"k", b"8"]
    finally:
        await link.aclose()


async def test_one_script_for_many_keys_is_loaded_once_and_answers_in_order(redis_url: str) -> None:
    link = link_for(Redis.from_url(redis_url))
    source = f"return {{KEYS[1], ARGV[1], '{uuid.uuid4().hex}'}}"  # a script never loaded before
    failing = f"return redis.error_reply('no {uuid.uuid4().hex}')"
    try:
        replies = await link.evalsha_each(source, [([f"k{i}"], [i]) for i in range(50)])
        assert [r[:2] for r in replies] == [[f"k{i}".encode(), str(i).encode()] for i in range(50)]
        assert await link.evalsha_each(source, []) == []
        with pytest.raises(rx.ResponseError, match="^no "):
            await link.evalsha_each(failing, [(["a"], []), (["b"], [])])
        assert await link.call("PING") == b"PONG"  # and the connection goes on
    finally:
        await link.aclose()


async def test_a_cut_connection_fails_the_waiting_calls_and_the_next_call_connects_again(redis_url: str) -> None:
    relay = RedisLink(redis_url)
    await relay.start()
    link = link_for(Redis.from_url(relay.url))
    key = _key()
    try:
        assert await link.call("INCR", key) == 1
        relay.stall()
        waiting = asyncio.ensure_future(link.call("INCR", key))
        await asyncio.sleep(0.2)
        relay.cut()
        with pytest.raises(rx.ConnectionError):
            await waiting
        with pytest.raises(rx.ConnectionError):  # Redis cannot be reached at all
            await link.call("GET", key)
        relay.flow()
        assert int(await link.call("GET", key)) in (1, 2)  # the cut call may or may not have run
    finally:
        relay.flow()
        await link.call("DEL", key)
        await link.aclose()
        await relay.stop()


@pytest.mark.parametrize("loop", ["asyncio", "uvloop"])
def test_a_send_on_a_connection_found_closed_fails_its_calls(redis_url: str, loop: str) -> None:
    """A connection Redis (or the way to it) closed as soon as it was made can be handed
    to a send before its loss is reported. uvloop raises on such a write, asyncio drops
    it: either way the calls sent must fail as a lost connection, not wait for good (the
    chaos soak found rooms whose commit never returned, on uvloop, after a cut)."""

    async def body() -> None:
        link = link_for(Redis.from_url(redis_url))
        assert link is not None
        try:
            assert await link.call("PING") == b"PONG"
            protocol = link._protocol
            assert protocol is not None and protocol.transport is not None
            protocol.transport.close()
            await asyncio.sleep(0.1)  # its loss reported meanwhile
            fut = asyncio.get_running_loop().create_future()
            link._send(protocol, [(b"*1\r\n$4\r\nPING\r\n", fut)])
            with pytest.raises(rx.ConnectionError):
                await asyncio.wait_for(fut, 2)
            assert await link.call("PING") == b"PONG"  # the next call connects again
        finally:
            await link.aclose()

    uvloop = pytest.importorskip("uvloop") if loop == "uvloop" else None
    with asyncio.Runner(loop_factory=uvloop.new_event_loop if uvloop else None) as runner:
        runner.run(body())


async def test_a_reply_later_than_the_timeout_fails_every_waiting_call(redis_url: str) -> None:
    relay = RedisLink(redis_url)
    await relay.start()
    link = ScriptLink(host="127.0.0.1", port=relay.port, timeout=0.5)
    try:
        assert await link.call("PING") == b"PONG"
        relay.stall()
        calls = [asyncio.ensure_future(link.call("PING")) for _ in range(3)]
        done, _ = await asyncio.wait(calls, timeout=5)
        assert len(done) == 3
        assert all(isinstance(c.exception(), rx.TimeoutError) for c in calls)
        relay.flow()
        assert await link.call("PING") == b"PONG"  # on a new connection
    finally:
        relay.flow()
        await link.aclose()
        await relay.stop()


async def test_a_cancelled_caller_leaves_the_replies_of_the_others_in_order(redis_url: str) -> None:
    link = link_for(Redis.from_url(redis_url))
    key = _key()
    try:
        first = asyncio.ensure_future(link.call("INCR", key))
        await asyncio.sleep(0)
        first.cancel()
        assert await link.call("INCR", key) == 2
    finally:
        await link.call("DEL", key)
        await link.aclose()


async def test_password_and_database_from_the_url(tmp_path) -> None:
    proc, port = own_redis(tmp_path, "--requirepass", "s3cret")
    try:
        plain = Redis(port=port, password="s3cret", db=3)
        await until_up(plain)
        link = link_for(Redis.from_url(f"redis://:s3cret@127.0.0.1:{port}/3"))
        assert await link.call("SET", "k", "in db 3") == b"OK"
        assert await plain.get("k") == b"in db 3"  # db 3, as the URL says
        await link.aclose()
        wrong = link_for(Redis.from_url(f"redis://:wrong@127.0.0.1:{port}/0"))
        with pytest.raises(rx.ResponseError):
            await wrong.call("PING")
        await wrong.aclose()
        await plain.aclose()
    finally:
        proc.terminate()
        proc.wait()


async def test_a_replica_s_readonly_fails_the_call_and_the_next_call_connects_again(tmp_path) -> None:
    """A primary demoted by a failover answers writes with READONLY (Redis 7) or an
    error wrapping it (a script's write on 6.2): the call fails as unavailable (redis-py's
    ReadOnlyError) and the connection is given up, so that the next one goes where the
    primary is now."""
    proc, port = own_redis(tmp_path)
    plain = Redis(port=port)
    link = ScriptLink(host="127.0.0.1", port=port)
    try:
        await until_up(plain)
        assert await link.evalsha("return redis.call('SET', KEYS[1], ARGV[1])", ["k"], ["v"]) == b"OK"
        await plain.execute_command("REPLICAOF", "127.0.0.1", str(free_port()))  # a replica of nobody: read-only
        first = link._protocol
        with pytest.raises(rx.ReadOnlyError):
            await link.evalsha("return redis.call('SET', KEYS[1], ARGV[1])", ["k"], ["w"])
        with pytest.raises(rx.ReadOnlyError):
            await link.call("SET", "k", "w")
        assert link._protocol is None or link._protocol is not first  # given up after each
        await plain.execute_command("REPLICAOF", "NO", "ONE")
        assert await link.call("SET", "k", "w") == b"OK"
        assert await plain.get("k") == b"w"
    finally:
        await link.aclose()
        await plain.aclose()
        proc.terminate()
        proc.wait()


async def test_tls_and_cluster_clients_keep_redis_py() -> None:
    assert link_for(Redis.from_url("rediss://127.0.0.1:6390/0")) is None
    assert link_for(RedisCluster.__new__(RedisCluster)) is None
    assert link_for(Redis.from_url("unix:///tmp/x.sock?db=2")).path == "/tmp/x.sock"


@pytest.mark.parametrize("lean", [True, False], ids=["lean connection", "redis-py"])
async def test_presence_is_refreshed_and_read_alike_on_either_connection(redis_url: str, lean: bool) -> None:
    from server.store import Store

    redis = Redis.from_url(redis_url)
    store = Store(redis, f"{_key()}:")
    if not lean:  # what a Cluster client, which has no lean connection, goes through
        await store.aclose()
        store._link = None
    now = int(time.time() * 1000)  # (the presence keys expire at the latest expiry: a real time)
    try:
        assert await store.set_presence("p-a", "n-1", now + 30_000, now)
        assert await store.set_presence("p-b", "n-1", now + 5_000, now)
        assert await store.online(["p-a", "p-b", "p-c"], now + 10_000) == {"p-a": True, "p-b": False, "p-c": False}
        await store.refresh_presence(["p-a", "p-b"], "n-1", now + 60_000, now + 10_000)
        assert await store.online(["p-a", "p-b", "p-c"], now + 40_000) == {"p-a": True, "p-b": True, "p-c": False}
        assert await store.online([], now) == {}
    finally:
        await store.aclose()
        await redis.aclose()


async def test_a_connection_closed_under_redis_py_is_a_lost_connection(redis_url: str) -> None:
    """On uvloop, redis-py raises RuntimeError ("unable to perform operation on
    <TCPTransport closed=True ...>") when Redis closes a connection while it is being
    opened; the store reports it as the lost connection it is (the node's loops retry a
    lost connection; a RuntimeError ended the inbox reader for good, and forwarded
    requests went unanswered after a failover)."""
    from server.store import Store

    redis = Redis.from_url(redis_url)
    store = Store(redis, f"{_key()}:")

    async def closed(*_args, **_kwargs):
        raise RuntimeError("unable to perform operation on <TCPTransport closed=True reading=False>; "
                           "the handler is closed")

    async def other(*_args, **_kwargs):
        raise RuntimeError("something else")

    try:
        redis.xread = closed
        with pytest.raises(rx.ConnectionError, match="connection to Redis lost"):
            await store.read_inbox("n-1", "0", block_ms=10)
        redis.xread = other
        with pytest.raises(RuntimeError, match="something else"):  # not every RuntimeError
            await store.read_inbox("n-1", "0", block_ms=10)
    finally:
        await store.aclose()
        await redis.aclose()


@pytest.mark.parametrize("text,kind", [
    ("LOADING Redis is loading the dataset in memory", rx.BusyLoadingError),
    ("MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.", rx.MasterDownError),
    ("READONLY You can't write against a read only replica.", rx.ReadOnlyError),
])
def test_a_redis_that_cannot_serve_yet_is_unavailable_not_an_error(text: str, kind: type) -> None:
    """A Redis restarted on its append-only file answers LOADING until it has read it: the
    lean connections report it as redis-py does, one of the store's ``UNAVAILABLE`` (as a
    plain error reply it failed a room's actor, which dropped the room: a room that had
    no other request waited a lease for the wake-up scan, ci52)."""
    from server.store import UNAVAILABLE
    from server.store.link import reply_error

    error = reply_error(rx.ResponseError(text))
    assert isinstance(error, kind) and isinstance(error, UNAVAILABLE)
    assert not isinstance(reply_error(rx.ResponseError("ERR wrong number of arguments")), UNAVAILABLE)
