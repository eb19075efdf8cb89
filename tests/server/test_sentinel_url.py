"""The ``redis+sentinel://`` URL form (server/sentinel.py)."""

from __future__ import annotations

import pytest

from server.sentinel import SentinelTarget, SentinelURLError, parse_sentinel_url
from server.store.link import address_of


def test_sentinels_service_database_and_credentials() -> None:
    assert parse_sentinel_url("redis+sentinel://s1:26380,s2,[::1]:5000/mymaster/2") == SentinelTarget(
        (("s1", 26380), ("s2", 26379), ("::1", 5000)), "mymaster", 2)
    got = parse_sentinel_url("redis+sentinel://app:p%40ss@s1/main?sentinel_password=watch&sentinel_username=w")
    assert (got.username, got.password, got.db) == ("app", "p@ss", 0)
    assert (got.sentinel_username, got.sentinel_password) == ("w", "watch")
    assert parse_sentinel_url("redis+sentinel://:secret@s1/main").password == "secret"


@pytest.mark.parametrize("url,message", [
    ("redis+sentinel://s1", "no service named"),
    ("redis+sentinel:///main", "no sentinel named"),
    ("redis+sentinel://s1:0/main", "port must be 1..65535, got '0'"),
    ("redis+sentinel://s1:x/main", "port must be 1..65535, got 'x'"),
    ("redis+sentinel://:1/main", "a sentinel without a host"),
    ("redis+sentinel://s1/main/1/2", "the path is /<service>[/<db>]"),
    ("redis+sentinel://s1/main?timeout=1", "unknown option 'timeout'"),
    ("rediss+sentinel://s1/main", "TLS through Sentinel"),
])
def test_a_bad_url_says_what_is_wrong(url: str, message: str) -> None:
    with pytest.raises(SentinelURLError, match=message.replace("[", r"\[").replace("(", r"\(")):
        parse_sentinel_url(url)


async def test_its_clients_ask_the_sentinels_on_every_new_connection() -> None:
    """The lean connections (scripts, pub/sub) of a Sentinel client find the primary
    through the sentinels, as redis-py's own connections do."""
    from server.store.connect import SentinelBlockingPool

    target = parse_sentinel_url("redis+sentinel://127.0.0.1:1/main/3")
    client = target.manager(1.0, 1.0).master_for("main", connection_pool_class=SentinelBlockingPool)
    where = address_of(client)
    assert where is not None and where["locate"] is not None and where["db"] == 3
    await client.aclose()
