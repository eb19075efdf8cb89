"""Prometheus metrics, one registry per application (so tests can run several servers)."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

__all__ = ["Metrics", "CONTENT_TYPE_LATEST"]


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.connections = Gauge("cardroom_connections", "open WebSocket connections", registry=r)
        self.rooms = Gauge("cardroom_rooms", "rooms hosted by this process", ["game"], registry=r)
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
        self.hands = Counter("cardroom_hands_total", "hands started, by game", ["game"], registry=r)

    def render(self) -> bytes:
        return generate_latest(self.registry)
