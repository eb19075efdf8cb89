"""Numbers the load test reads or derives: percentiles, Prometheus text, ``/proc``.

Pure helpers, no asyncio: nearest-rank percentiles of latency samples, the parsing of a
server's ``/metrics`` page (an unlabelled histogram, plain ``process_*`` samples) and the
CPU time and resident memory of a local process from ``/proc`` (Linux).
"""

from __future__ import annotations

import os
import re
import urllib.error
import urllib.request
from typing import Any

_BUCKET = re.compile(r'^(\w+)_bucket\{le="([^"]+)"\}\s+(\S+)$')
_SCALAR = re.compile(r"^(\w+)_(count|sum)\s+(\S+)$")
_SAMPLE = re.compile(r"^(\w+)\s+(\S+)$")


def percentile(sorted_values: list[float], q: float) -> float:
    """Nearest-rank percentile ``q`` (0..1) of an already sorted, non-empty list."""
    index = min(len(sorted_values) - 1, max(0, int(q * len(sorted_values) + 0.5) - 1))
    return sorted_values[index]


def latency_summary(values: list[float]) -> dict[str, float] | None:
    """``{"p50", "p90", "p99", "max"}`` of latency samples in seconds, or None without samples."""
    if not values:
        return None
    ordered = sorted(values)
    return {"p50": percentile(ordered, 0.50), "p90": percentile(ordered, 0.90),
            "p99": percentile(ordered, 0.99), "max": ordered[-1]}


# ---------------------------------------------------------------- /metrics


def http_get(url: str, timeout: float = 5.0) -> tuple[int, str]:
    """GET ``url``: its status and body (an HTTP error status gives an empty body)."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp:
            return resp.status, resp.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as exc:
        return exc.code, ""


def fetch_metrics(http_base: str) -> str | None:
    """The text of ``{http_base}/metrics``, or None when the server does not answer 200."""
    try:
        status, text = http_get(f"{http_base}/metrics")
    except OSError:
        return None
    return text if status == 200 else None


def parse_histogram(text: str, name: str) -> dict[str, Any]:
    """``{"buckets": [(le, cumulative count)], "count": n, "sum": s}`` of an unlabelled histogram."""
    buckets: list[tuple[float, float]] = []
    hist: dict[str, Any] = {"buckets": buckets, "count": 0.0, "sum": 0.0}
    for line in text.splitlines():
        m = _BUCKET.match(line)
        if m and m.group(1) == name:
            buckets.append((float(m.group(2)), float(m.group(3))))
            continue
        m = _SCALAR.match(line)
        if m and m.group(1) == name:
            hist[m.group(2)] = float(m.group(3))
    return hist


def histogram_delta(after: dict[str, Any], before: dict[str, Any] | None) -> dict[str, Any]:
    """The observations ``after`` holds beyond ``before`` (two reads of one histogram)."""
    if not before:
        return after
    earlier = dict(before["buckets"])
    return {
        "buckets": [(le, n - earlier.get(le, 0.0)) for le, n in after["buckets"]],
        "count": after["count"] - before["count"],
        "sum": after["sum"] - before["sum"],
    }


def histogram_quantile(hist: dict[str, Any], q: float) -> float | None:
    """The upper bound of the bucket holding quantile ``q`` (inf: above the last bound);
    None for an empty histogram."""
    total = hist["count"]
    if total <= 0:
        return None
    for le, cumulative in sorted(hist["buckets"]):
        if cumulative >= q * total:
            return le
    return float("inf")


def metric_value(text: str, name: str) -> float | None:
    """The value of the unlabelled sample ``name`` (e.g. ``process_cpu_seconds_total``)."""
    for line in text.splitlines():
        m = _SAMPLE.match(line)
        if m and m.group(1) == name:
            return float(m.group(2))
    return None


# ---------------------------------------------------------------- /proc


def cpu_seconds_of(pid: int) -> float | None:
    """User + system CPU seconds the process has used so far, or None if it is gone."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def rss_of(pid: int) -> int | None:
    """Resident memory of the process in bytes (``VmRSS``), or None if it is gone."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def children_of(pid: int) -> list[int]:
    """The pids of the direct children of ``pid`` (its main thread's children)."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children", encoding="ascii") as f:
            return [int(p) for p in f.read().split()]
    except (OSError, ValueError):
        return []
