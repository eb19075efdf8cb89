"""The final table of ``cardroom loadtest``, its ``--json`` file and its exit status.

Everything is derived from the figures dict the phases return (``runner.py``): the JSON
file is that dict (non-finite numbers written as null), the table a readable view of it.
"""

from __future__ import annotations

import json
import math
from typing import Any

MIB = 2**20


def _num(value: float | None, fmt: str = ".1f", unit: str = "") -> str:
    if value is None:
        return "n/a"
    if math.isinf(value):
        return "above the last bucket"
    return f"{value:{fmt}}{unit}"


def _errors(errors: dict[str, int]) -> str:
    return ", ".join(f"{code}={n}" for code, n in errors.items() if n) or "none"


def _latency_rows(figures: dict[str, Any], prefix: str, label: str) -> list[tuple[str, str]]:
    return [(f"{label} {q}", _num(figures.get(f"{prefix}_{q}_ms"), unit=" ms")) for q in ("p50", "p90", "p99", "max")]


def _resource_rows(figures: dict[str, Any]) -> list[tuple[str, str]]:
    seconds = figures.get("seconds") or 0.0
    rows = []
    for who, key in (("server", "server_cpu_s"), ("redis", "redis_cpu_s"), ("load clients", "client_cpu_s")):
        cpu = figures.get(key)
        if cpu is not None:
            share = f" ({100 * cpu / seconds:.0f}% of one core)" if seconds > 0.1 else ""
            rows.append((f"CPU {who}", f"{cpu:.1f} s{share}"))
    for who in ("server", "redis"):
        rss = figures.get(f"{who}_rss_bytes")
        if rss is not None:
            rows.append((f"RSS {who}", f"{rss / MIB:.1f} MiB"))
    return rows


def _server_action_rows(figures: dict[str, Any]) -> list[tuple[str, str]]:
    if not figures.get("server_action_n"):
        return [("server action_seconds", "n/a (no /metrics data)")]
    rows = [("server action_seconds n", str(figures["server_action_n"])),
            ("server action_seconds mean", _num(figures.get("server_action_mean_ms"), unit=" ms"))]
    for q in ("p50", "p90", "p99"):
        rows.append((f"server action_seconds {q}", "<= " + _num(figures.get(f"server_action_{q}_le_ms"), ".1f", " ms")))
    return rows


def _echo_rows(figures: dict[str, Any]) -> list[tuple[str, str]]:
    if "echo_round_trips_per_s" not in figures:
        return []
    return [("echo round trips/s", _num(figures["echo_round_trips_per_s"])),
            ("echo round trip p50", _num(figures.get("echo_rtt_p50_ms"), unit=" ms")),
            ("echo errors", _errors(figures.get("echo_errors", {}))),
            ("echo CPU us/round trip", _num(figures.get("echo_cpu_us_per_round_trip"))),
            ("ratio to echo", _num(figures.get("ratio_to_echo"), ".3f")),
            ("CPU ratio to echo", _num(figures.get("cpu_ratio_to_echo"), ".3f"))]


def _per_server_rows(figures: dict[str, Any]) -> list[tuple[str, str]]:
    counts = figures.get("server_connections") or []
    if len(counts) < 2:
        return []
    return [("connections per server", ", ".join("n/a" if n is None else str(n) for n in counts))]


def _window_rows(figures: dict[str, Any]) -> list[tuple[str, str]]:
    """The run by progress line's stretch (``windows``): does it slow down as it goes?"""
    windows = figures.get("windows") or []
    if len(windows) < 2:
        return []
    rows = [("acks/s by window", " / ".join(_num(w["acks_per_s"], ".0f") for w in windows))]
    if any(w.get("server_cpu_us_per_action") is not None for w in windows):
        rows.append(("server CPU us/action by window",
                     " / ".join(_num(w.get("server_cpu_us_per_action"), ".0f") for w in windows)))
    rows.append(("ack p99 by window", " / ".join(_num(w.get("ack_p99_ms"), ".0f") for w in windows) + " ms"))
    return rows


def play_rows(f: dict[str, Any]) -> list[tuple[str, str]]:
    """The rows of a playing run."""
    return [
        ("game", f["game"]), ("rooms", str(f["rooms"])), ("seats", str(f["seats"])),
        ("connections", str(f["connections"])), ("servers", str(f["servers"])),
        *_per_server_rows(f),
        ("seconds", _num(f["seconds"])), ("hands played", str(f["hands"])),
        ("hands/s", _num(f["hands_per_s"])), ("busted players rejoined", str(f["rejoins"])),
        ("actions acked", str(f["actions"])),
        ("actions/s", _num(f["actions_per_s"])),
        *_latency_rows(f, "ack", "ack latency"),
        *_latency_rows(f, "broadcast", "action-to-broadcast"),
        ("errors", _errors(f["errors"])),
        *_resource_rows(f),
        ("server CPU us/action", _num(f.get("server_cpu_us_per_action"), ".0f")),
        *_window_rows(f),
        *_server_action_rows(f),
        *_echo_rows(f),
    ]


def idle_rows(f: dict[str, Any]) -> list[tuple[str, str]]:
    """The rows of an ``--idle-connections`` run."""
    per = f.get("server_rss_per_connection_bytes")
    before = f.get("server_rss_before_bytes")
    return [
        ("idle connections", f"{f['connections']} of {f['idle_connections_asked']}"),
        ("servers", str(f["servers"])), ("seconds held", _num(f["seconds"])),
        ("errors", _errors(f["errors"])),
        ("RSS server before", "n/a" if before is None else f"{before / MIB:.1f} MiB"),
        *_resource_rows(f),
        ("RSS server per connection", "n/a" if per is None else f"{per / 1024:.1f} KiB"),
    ]


def format_table(figures: dict[str, Any]) -> str:
    """The final table, one ``label  value`` row per figure."""
    rows = idle_rows(figures) if figures["mode"] == "idle" else play_rows(figures)
    width = max(len(label) for label, _ in rows)
    title = "== cardroom loadtest" + (" (interrupted)" if figures.get("interrupted") else "") + " =="
    return "\n".join(["", title, *(f"{label.ljust(width)}  {value}" for label, value in rows)])


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    return value


def write_json(path: str, figures: dict[str, Any]) -> None:
    """Write the figures to ``path`` as one JSON object (inf and nan as null)."""
    with open(path, "w", encoding="utf-8") as f:
        json.dump(_finite(figures), f, indent=2, sort_keys=True)
        f.write("\n")


def exit_status(figures: dict[str, Any]) -> int:
    """0 for a clean run; 1 when anything counted as an error, no action was acknowledged,
    or fewer idle connections opened than asked."""
    if figures["errors"] or figures.get("echo_errors"):
        return 1
    if figures["mode"] == "idle":
        return 0 if figures["connections"] == figures["idle_connections_asked"] else 1
    return 0 if figures["actions"] > 0 else 1
