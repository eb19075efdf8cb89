"""The owner's connection to Redis stalls while Redis itself is fine (a network partition):
the owner must stop acting before its lease could have run out, another process takes
the room, and when the stalled traffic finally reaches Redis it changes nothing."""

from __future__ import annotations

import asyncio
import re
import time
import urllib.request

import pytest

from ..redis_link import RedisLink
from .harness import (
    Player,
    RedisProcess,
    ServerProcess,
    check_nothing_lost_or_doubled,
    lease_holder,
    wait_for,
)

pytestmark = pytest.mark.slow


async def test_an_owner_cut_off_from_redis_lets_go_and_its_late_writes_change_nothing(tmp_path):
    redis = RedisProcess(tmp_path / "redis")
    redis.start()
    proxy = RedisLink(redis.port)
    await proxy.start()
    a = ServerProcess(proxy.url, tmp_path / "a.log", "--lease-ms", "2000", "--forward-timeout", "1")
    b = ServerProcess(redis.url, tmp_path / "b.log", "--lease-ms", "2000", "--forward-timeout", "1")
    try:
        await a.astart()
        await b.astart()
        urls = [a.ws_url, b.ws_url]
        p0 = Player("p0", "holdem", urls, home=0, strategy="passive")
        p1 = Player("p1", "holdem", urls, home=1, strategy="passive")
        for p in (p0, p1):
            await p.connect()
        room = (await p0.request({"t": "create_room", "game": "holdem",
                                  "options": {"seats": 2, "action_seconds": 2, "between_hands_seconds": 0.2},
                                  "config": {"small_blind": 1, "big_blind": 2}}))["room"]
        for i, p in enumerate((p0, p1)):
            p.room = room
            p.seat = i
            assert (await p.request({"t": "join", "room": room, "seat": i, "buy_in": 1000}))["t"] == "room"
        assert await lease_holder(redis.url, room) == a.node
        tasks = [asyncio.create_task(p.play(lambda _p: False)) for p in (p0, p1)]
        await wait_for(lambda: p1.hands_seen, 60, "a hand")

        proxy.stall()  # process A can no longer reach Redis; Redis and process B are fine
        stalled_at = time.monotonic()
        await wait_for(lambda: "lease not renewed in time" in a.output(), 10, "A to let the room go")
        # by A's own clock, before the lease could have run out in Redis
        found = re.search(r"lease not renewed in time: ([0-9.]+) s after the last renewal was sent "
                          r"\(lease ([0-9.]+) s\)", a.output())
        let_go, lease = float(found.group(1)), float(found.group(2))
        # A arms its timer for 80 % of the lease (1.6 s here) and fires it by its own clock;
        # on a CI machine running two suites at once a process starved of CPU fired it at
        # 2.25 s once (ci46): what keeps the room safe then is the fencing, checked below
        # (nothing lost or applied twice); this bounds only how late the timer may be
        assert let_go < 2 * lease, found.group(0)
        last = max((x["version"] for x in p1.acks), default=0)
        await wait_for(lambda: any(x["version"] > last for x in p1.acks), 20, "B to take the room")
        took = time.monotonic() - stalled_at
        assert await lease_holder(redis.url, room) == b.node
        hands = max(p1.hands_seen)
        await wait_for(lambda: max(p1.hands_seen) >= hands + 1, 60, "a hand played by B")

        proxy.flow()  # A's stalled commands (renewals, reads) finally reach Redis
        await asyncio.sleep(2.0)
        for p in (p0, p1):
            p.stop.set()
        await asyncio.gather(*tasks)
        assert await lease_holder(redis.url, room) == b.node

        await check_nothing_lost_or_doubled(redis.url, room, [p0, p1])
        metrics = urllib.request.urlopen(a.http_url + "metrics", timeout=5).read().decode()
        assert "cardroom_lease_renew_failures_total" in metrics
        print(f"\nA cut off from Redis: it let the room go {let_go:.2f} s after its last renewal (lease {lease} s); "
              f"B played on after {took:.2f} s; nothing lost or applied twice")
    finally:
        a.stop()
        b.stop()
        await proxy.stop()
        redis.stop()
