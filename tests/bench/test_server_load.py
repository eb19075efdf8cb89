"""``bench/server_load.py``: the load test run as a user runs it (a subprocess that
starts its own server), plus the figures it derives from ``/metrics``."""

from __future__ import annotations

import importlib.util
import os
import re
import socket
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "bench" / "server_load.py"


def _load_bench():
    if "server_load" not in sys.modules:
        spec = importlib.util.spec_from_file_location("server_load", SCRIPT)
        module = importlib.util.module_from_spec(spec)
        sys.modules["server_load"] = module  # dataclasses look their module up
        spec.loader.exec_module(module)
    return sys.modules["server_load"]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    # the timeout only guards against a hang; the run itself is bounded by its arguments
    return subprocess.run([sys.executable, str(SCRIPT), *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=90)


def _row(out: str, label: str) -> str:
    match = re.search(rf"^{re.escape(label)}\s{{2,}}(.+)$", out, re.MULTILINE)
    assert match, f"no {label!r} row in:\n{out}"
    return match.group(1).strip()


def _port_closed(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) != 0


def test_a_short_run_acks_actions_without_errors_and_cleans_up():
    proc = _run("--tables", "2", "--seconds", "2", "--progress", "1")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout
    assert "== cardroom server load test ==" in out
    assert _row(out, "connections") == "4"
    assert _row(out, "tables") == "2"
    assert int(_row(out, "actions acked")) > 0
    assert int(_row(out, "hands played")) > 0
    assert _row(out, "errors") == "none"
    assert _row(out, "ack latency p50").endswith(" ms")
    assert int(_row(out, "server action_seconds n")) == int(_row(out, "actions acked"))
    assert _row(out, "RSS server").endswith(" MiB")
    assert re.search(r"^\[\s*\d+\.\d s\] hands\s+\d+\s+acks\s+\d+\s+[\d.]+ acks/s", out, re.MULTILINE)
    # the server was stopped and its temporary data dir removed
    started = re.search(r"on 127\.0\.0\.1:(\d+) \(data in (\S+)\)", out)
    assert started, out
    assert _port_closed(int(started.group(1)))
    assert not os.path.exists(started.group(2))


def test_hands_mode_stops_once_that_many_hands_were_played():
    proc = _run("--tables", "1", "--hands", "15", "--max-seconds", "60", "--strategy", "smart")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert int(_row(proc.stdout, "hands played")) == 15  # one table: nothing else in flight
    assert _row(proc.stdout, "errors") == "none"


def test_a_server_that_cannot_start_is_reported_and_leaves_no_temp_dir():
    bench = _load_bench()
    server = bench.LocalServer()
    blocker = socket.socket()
    blocker.bind(("127.0.0.1", server.port))
    blocker.listen()
    try:
        try:
            server.start(timeout=20)
            raise AssertionError("the server started on a taken port")
        except RuntimeError as exc:
            assert "exited" in str(exc)
    finally:
        blocker.close()
        server.stop()
    assert not os.path.exists(server.tmp)


def test_server_histogram_is_summarised_over_the_run_only():
    bench = _load_bench()
    before = bench.parse_histogram(
        'cardroom_action_seconds_bucket{le="0.001"} 10.0\n'
        'cardroom_action_seconds_bucket{le="0.01"} 10.0\n'
        'cardroom_action_seconds_bucket{le="+Inf"} 10.0\n'
        "cardroom_action_seconds_count 10.0\ncardroom_action_seconds_sum 0.005\n",
        "cardroom_action_seconds")
    after = bench.parse_histogram(
        "# HELP cardroom_action_seconds time\n"
        'cardroom_action_seconds_bucket{le="0.001"} 10.0\n'
        'cardroom_action_seconds_bucket{le="0.01"} 100.0\n'
        'cardroom_action_seconds_bucket{le="+Inf"} 110.0\n'
        "cardroom_action_seconds_count 110.0\ncardroom_action_seconds_sum 0.505\n"
        'cardroom_redis_write_seconds_bucket{le="0.001"} 7.0\n',
        "cardroom_action_seconds")
    run = bench.histogram_delta(after, before)
    assert run["count"] == 100
    assert abs(run["sum"] - 0.5) < 1e-9
    assert bench.histogram_quantile(run, 0.5) == 0.01  # none of the run's acks took <= 1 ms
    assert bench.histogram_quantile(run, 0.99) == float("inf")  # 10 of 100 above 10 ms
    assert bench.histogram_quantile({"buckets": [], "count": 0, "sum": 0}, 0.5) is None


def test_latency_percentiles_use_the_nearest_rank():
    bench = _load_bench()
    values = [i / 1000 for i in range(1, 101)]
    assert bench.percentile(values, 0.50) == 0.050
    assert bench.percentile(values, 0.99) == 0.099
    assert bench.percentile([0.003], 0.9) == 0.003
