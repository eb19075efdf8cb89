"""Reading the servers under test: CPU seconds, resident memory and ``/metrics``.

Local servers (started by the load test) are read from ``/proc``, server and Redis
apart; a server given by ``--url`` from its ``/metrics`` (``process_cpu_seconds_total``,
``process_resident_memory_bytes``), with no Redis figures. Several servers are summed.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from .figures import fetch_metrics, histogram_delta, metric_value, parse_histogram
from .launcher import LocalServers

ACTION_HISTOGRAM = "cardroom_action_seconds"


@dataclass
class Reading:
    """One look at the servers: CPU seconds and RSS bytes by role, and each ``/metrics`` page."""

    cpu: dict[str, float] = field(default_factory=dict)
    rss: dict[str, int] = field(default_factory=dict)
    metrics: list[str | None] = field(default_factory=list)


def http_base(ws_url: str) -> str:
    """``ws://host:port/ws`` -> ``http://host:port`` (``wss`` -> ``https``)."""
    return "http" + ws_url[len("ws"):].rsplit("/ws", 1)[0]


class Probe:
    """Reads the servers behind ``urls``; ``local`` when the load test started them."""

    def __init__(self, urls: list[str], local: LocalServers | None) -> None:
        self.bases = [http_base(u) for u in urls]
        self.local = local

    async def read(self) -> Reading:
        pages = list(await asyncio.gather(*(asyncio.to_thread(fetch_metrics, b) for b in self.bases)))
        if self.local is not None:
            return Reading(self.local.cpu_seconds(), self.local.rss(), pages)
        reading = Reading(metrics=pages)
        cpu = [metric_value(p, "process_cpu_seconds_total") for p in pages if p]
        rss = [metric_value(p, "process_resident_memory_bytes") for p in pages if p]
        if cpu and None not in cpu and len(cpu) == len(pages):
            reading.cpu["server"] = sum(c for c in cpu if c is not None)
        if rss and None not in rss and len(rss) == len(pages):
            reading.rss["server"] = int(sum(r for r in rss if r is not None))
        return reading

    async def server_cpu(self) -> float | None:
        """The servers' CPU seconds so far (summed), None where they cannot be read: from
        ``/proc`` for local servers (no request to them), else from ``/metrics``."""
        if self.local is not None:
            return self.local.cpu_seconds()["server"]
        return (await self.read()).cpu.get("server")


def cpu_used(before: Reading, after: Reading) -> dict[str, float]:
    """CPU seconds used between two readings, by role (roles read both times only)."""
    return {who: t - before.cpu[who] for who, t in after.cpu.items() if who in before.cpu}


def action_histogram(before: Reading, after: Reading) -> dict[str, Any] | None:
    """The servers' ``cardroom_action_seconds`` between two readings, summed over servers;
    None unless every server answered ``/metrics`` both times."""
    if not after.metrics or None in after.metrics or None in before.metrics:
        return None
    total: dict[str, Any] = {"buckets": [], "count": 0.0, "sum": 0.0}
    bounds: dict[float, float] = {}
    for page_before, page_after in zip(before.metrics, after.metrics, strict=True):
        assert page_before is not None and page_after is not None
        delta = histogram_delta(parse_histogram(page_after, ACTION_HISTOGRAM),
                                parse_histogram(page_before, ACTION_HISTOGRAM))
        total["count"] += delta["count"]
        total["sum"] += delta["sum"]
        for le, n in delta["buckets"]:
            bounds[le] = bounds.get(le, 0.0) + n
    total["buckets"] = sorted(bounds.items())
    return total
