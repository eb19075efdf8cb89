"""A saturated server slows its readers instead of failing requests: it stops reading
frames while its event loop is far behind (backpressure), keeps renewing its leases
whatever else is slow, keeps Redis connections for its own loops, and collects garbage
in a way that suits a long-running server."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time

import pytest

from server.app import App, reserved_connections
from server.cluster import node as node_module
from server.edge import backpressure
from server.edge.backpressure import PAUSE_LAG, RESUME_LAG, Admission
from server.metrics import Metrics

from .test_play import seated_pair
from .wsclient import Client


async def test_reading_pauses_past_the_lag_limit_and_resumes_once_caught_up():
    metrics = Metrics()
    admission = Admission(metrics)
    assert not admission.paused and admission.observe(0.01) == backpressure.PROBE_SECONDS
    assert admission.observe(PAUSE_LAG) == backpressure.PAUSED_PROBE_SECONDS and admission.paused
    waiting = asyncio.ensure_future(admission.wait())
    await asyncio.sleep(0.01)
    assert not waiting.done()  # a frame waits while paused
    admission.observe(RESUME_LAG * 2)
    await asyncio.sleep(0.01)
    assert admission.paused and not waiting.done()  # between the two limits: still paused
    admission.observe(RESUME_LAG)
    await asyncio.wait_for(waiting, 1)
    samples = metrics.registry.get_sample_value
    assert samples("cardroom_read_pauses_total") == 1
    assert samples("cardroom_read_paused_seconds_total") > 0
    assert samples("cardroom_event_loop_lag_seconds_count") == 4


async def test_a_frame_sent_while_the_loop_is_stalled_waits_and_is_answered(connect, app: App):
    a = await connect("alice")
    await asyncio.sleep(0.3)  # the lag probe runs
    time.sleep(0.4)  # the process falls far behind (a stall the probe sees)
    await asyncio.sleep(0.3)
    # reading paused at the probe's next sample, and resumed at a later one: the request
    # is answered, late, not refused
    reply = await a.request({"t": "list_rooms"})
    assert reply["t"] == "rooms", reply
    assert app.metrics.registry.get_sample_value("cardroom_read_pauses_total") >= 1
    assert not app.admission.paused


async def test_a_slow_presence_refresh_does_not_hold_up_lease_renewals(make_app, monkeypatch):
    """Renewals run in a loop of their own: presence for many players (here made to take
    longer than the lease) used to run in the renewal loop, which then renewed too late
    and the process dropped every room it held."""
    monkeypatch.setattr(node_module, "PRESENCE_REFRESH_SECONDS", 0.05)

    async def slow_presence(self) -> None:
        await asyncio.sleep(2.0)

    monkeypatch.setattr(node_module.Node, "_refresh_presence", slow_presence)
    app = await make_app(lease_ms=600)
    clients = [await Client.connect(app.ws_url) for _ in range(2)]
    try:
        for c, name in zip(clients, ("alice", "bob"), strict=True):
            await c.hello(name)

        async def connect(name: str) -> Client:
            return clients[0] if name == "alice" else clients[1]

        a, b, room = await seated_pair(connect)
        actor = app.directory.actors[room]
        await asyncio.sleep(2.5)  # four leases long, a presence refresh under way throughout
        assert app.directory.actors.get(room) is actor and not actor.closed
        assert app.metrics.registry.get_sample_value(
            "cardroom_room_ownership_total", {"change": "dropped"}) is None
    finally:
        for c in clients:
            await c.close()


@pytest.mark.parametrize(("pool", "reserved"), [(4, 1), (16, 4), (64, 8), (1000, 8)])
def test_some_redis_connections_are_kept_for_the_process_own_loops(pool, reserved):
    assert reserved_connections(pool) == reserved
    assert pool - reserved >= 3  # requests keep most of the pool


def test_a_serving_process_freezes_what_it_loaded_and_collects_young_objects_less_often():
    code = ("import gc; from server.app import tune_gc, GC_THRESHOLDS; import server.games; "
            "tune_gc(); assert gc.get_threshold() == GC_THRESHOLDS, gc.get_threshold(); "
            "assert gc.get_freeze_count() > 20_000, gc.get_freeze_count(); print('ok')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "ok", out.stderr


async def test_a_renewal_that_hangs_does_not_hold_up_the_next(connect, app: App, monkeypatch):
    """Renewals are sent every third of the lease even while an earlier one is still
    unanswered: the first one after the room is taken hangs (a process far behind, a
    slow connection); the next, a second later, renews the lease. Sent one after the
    other, the hung one would have made the room drop at 80 % of the lease."""
    a, b, room = await seated_pair(connect)
    actor = app.directory.actors[room]
    renew = app.store.renew
    calls = 0

    async def first_hangs(leases, lease_ms):
        nonlocal calls
        calls += 1
        if calls == 1:
            await asyncio.sleep(3600)
        return await renew(leases, lease_ms)

    monkeypatch.setattr(app.store, "renew", first_hangs)
    await asyncio.sleep(3.2)  # past the first renewal's deadline (2.4 s after the last good one)
    assert app.directory.actors.get(room) is actor and not actor.closed
    assert calls >= 3
    ack = await b.request({"t": "act", "room": room, "action": {"type": "bet", "amount": 3}, "id": "b1"})
    assert ack["t"] == "ack", ack
