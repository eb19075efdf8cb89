"""Prometheus metrics, one registry per application (so tests can run several servers)."""

from __future__ import annotations

import gc
import time
from typing import Any

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    ProcessCollector,
    generate_latest,
)
from prometheus_client.exposition import CONTENT_TYPE_LATEST

__all__ = ["Metrics", "GcPauses", "CONTENT_TYPE_LATEST"]


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        # process_cpu_seconds_total, process_resident_memory_bytes, open fds (Linux /proc)
        ProcessCollector(registry=r)
        self.connections = Gauge("cardroom_connections", "open WebSocket connections", registry=r)
        self.rooms = Gauge("cardroom_rooms", "rooms owned by this process", ["game"], registry=r)
        self.messages = Counter("cardroom_messages_total", "client messages received, by type", ["type"], registry=r)
        self.errors = Counter("cardroom_errors_total", "error replies, by code", ["code"], registry=r)
        self.actions = Counter(
            "cardroom_actions_total", "act requests by result (accepted, duplicate, rejected, error)",
            ["result"], registry=r,
        )
        self.action_latency = Histogram(
            "cardroom_action_seconds", "time from an act entering its room queue to its ack",
            buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5),
            registry=r,
        )
        self.redis_write = Histogram(
            "cardroom_redis_write_seconds", "duration of the atomic room commit in Redis",
            buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1),
            registry=r,
        )
        self.timeouts = Counter("cardroom_turn_timeouts_total", "turns the server played for a seat", registry=r)
        self.loop_lag = Histogram(
            "cardroom_event_loop_lag_seconds",
            "how late the event loop ran a timer due every 0.25 s: time every request waited behind other work",
            buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5),
            registry=r,
        )
        self.read_pauses = Counter(
            "cardroom_read_pauses_total",
            "times the process stopped reading its clients' frames because its event loop fell behind "
            "(backpressure)", registry=r,
        )
        self.read_paused_seconds = Counter(
            "cardroom_read_paused_seconds_total", "seconds spent not reading clients' frames (backpressure)",
            registry=r,
        )
        self.gc_pauses = Histogram(
            "cardroom_gc_pause_seconds",
            "garbage collections of the process, by generation: the event loop stands still meanwhile",
            ["generation"], buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25), registry=r,
        )
        # many processes on one Redis
        self.ownership = Counter(
            "cardroom_room_ownership_total",
            "room ownership changes on this process: acquired, taken_over (from another process), released, dropped",
            ["change"], registry=r,
        )
        self.fence_failures = Counter(
            "cardroom_fence_failures_total", "commits refused because this process no longer held the lease",
            registry=r,
        )
        self.lease_renew_failures = Counter(
            "cardroom_lease_renew_failures_total", "room leases that could not be renewed (lost, or Redis down)",
            registry=r,
        )
        self.forwarded = Counter(
            "cardroom_forwarded_commands_total", "room commands sent to the owning process", registry=r,
        )
        self.forward_latency = Histogram(
            "cardroom_forward_seconds", "time from a process forwarding a command to the owner receiving it",
            buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1),
            registry=r,
        )
        self.forward_timeouts = Counter(
            "cardroom_forward_timeouts_total", "room requests not answered in time and routed again", registry=r,
        )
        self.pending_transfers = Gauge(
            "cardroom_pending_transfers", "buy-ins begun and not yet completed (all processes)", registry=r,
        )
        self.lost_writes = Counter(
            "cardroom_lost_writes_total",
            "times Redis held an older room version than one acknowledged (e.g. after a failover)", registry=r,
        )
        self.in_doubt = Counter(
            "cardroom_commits_in_doubt_total",
            "room commits Redis did not answer (connection lost), by what the owner found after: "
            "stored, not_stored", ["outcome"], registry=r,
        )
        self.view_gaps = Counter(
            "cardroom_view_gaps_total", "room changes missed on the channel and filled in from Redis", registry=r,
        )
        self.view_reloads = Counter(
            "cardroom_view_reloads_total",
            "room changes made here with other events than their owner's (the room was reloaded: a bug)",
            registry=r,
        )
        self.hands = Counter("cardroom_hands_total", "hands started, by game", ["game"], registry=r)

    def render(self) -> bytes:
        return generate_latest(self.registry)


class GcPauses:
    """Times every garbage collection into :attr:`Metrics.gc_pauses` while installed (a
    collection stops the event loop: a long one is a stall every request feels)."""

    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics
        self._started = 0.0

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
        else:
            self.metrics.gc_pauses.labels(str(info["generation"])).observe(time.perf_counter() - self._started)

    def install(self) -> None:
        gc.callbacks.append(self)

    def remove(self) -> None:
        if self in gc.callbacks:
            gc.callbacks.remove(self)
