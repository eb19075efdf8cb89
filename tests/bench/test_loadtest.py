"""``cardroom loadtest`` run as an operator runs it: a subprocess that starts its own
servers, plays, prints the table and cleans up (real processes, loopback only)."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from client_demo.tools.loadtest import launcher
from client_demo.tools.loadtest.figures import (
    histogram_delta,
    histogram_quantile,
    parse_histogram,
    percentile,
)
from client_demo.tools.loadtest.players import BroadcastClock, Player, PlayStats
from client_demo.tools.loadtest.report import exit_status

ROOT = Path(__file__).resolve().parents[2]
CARDROOM = [sys.executable, "-m", "server.cli", "loadtest"]
JSON_KEYS = {"actions_per_s", "hands_per_s", "ack_p50_ms", "ack_p99_ms", "broadcast_p99_ms", "errors",
             "server_cpu_us_per_action", "connections", "rooms", "seconds", "game", "servers"}


def _run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    # the timeout only guards against a hang; the run itself is bounded by its arguments
    return subprocess.run([*CARDROOM, *args], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={**os.environ, **(env or {})})


def _run_json(tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    out = tmp_path / "figures.json"
    proc = _run(*args, "--json", str(out), "--progress", "1")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc, json.loads(out.read_text())


def _row(out: str, label: str) -> str:
    match = re.search(rf"^{re.escape(label)}\s{{2,}}(.+)$", out, re.MULTILINE)
    assert match, f"no {label!r} row in:\n{out}"
    return match.group(1).strip()


def _assert_cleaned_up(out: str) -> None:
    """The temporary directory is gone, the servers' ports are closed and no process
    (server, Redis) still names the directory on its command line."""
    tmp = re.search(r"\(data in (\S+)\)", out)
    ports = re.search(r"^serving on 127\.0\.0\.1 ports ([\d, ]+)$", out, re.MULTILINE)
    assert tmp and ports, out
    assert not os.path.exists(tmp.group(1))
    for port in ports.group(1).split(", "):
        with socket.socket() as s:
            assert s.connect_ex(("127.0.0.1", int(port))) != 0, f"port {port} still open"
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            assert tmp.group(1).encode() not in cmdline.read_bytes(), f"{cmdline} names {tmp.group(1)}"
        except OSError:
            continue  # the process ended meanwhile


@pytest.fixture(scope="module")
def holdem_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    """One heads-up Hold'em run with --json and --baseline-echo, shared by several tests."""
    return _run_json(tmp_path_factory.mktemp("holdem"), "--game", "holdem", "--rooms", "2", "--seconds", "3",
                     "--baseline-echo")


def test_holdem_plays_without_errors_prints_the_table_and_cleans_up(holdem_run):
    proc, figures = holdem_run
    out = proc.stdout
    assert "== cardroom loadtest ==" in out
    assert _row(out, "game") == "holdem"
    assert _row(out, "connections") == "4"
    assert _row(out, "errors") == "none"
    assert int(_row(out, "actions acked")) == figures["actions"] > 0
    assert figures["hands"] >= 2 and figures["hands_started"] >= 1
    assert figures["rejoins"] > 0  # random Hold'em busts a player about one hand in five: they join again
    assert _row(out, "action-to-broadcast p99").endswith(" ms")
    assert _row(out, "RSS server").endswith(" MiB") and _row(out, "RSS redis").endswith(" MiB")
    assert re.search(r"^\[\s*\d+\.\d s\] hands\s+\d+\s+acks\s+\d+\s+[\d.]+ acks/s", out, re.MULTILINE)
    _assert_cleaned_up(out)


def test_the_json_file_has_every_figure(holdem_run):
    _, figures = holdem_run
    assert JSON_KEYS | {"echo_round_trips_per_s", "ratio_to_echo"} <= set(figures)
    assert figures["errors"] == {}
    assert (figures["game"], figures["rooms"], figures["connections"], figures["servers"]) == ("holdem", 2, 4, 1)
    assert figures["server_cpu_us_per_action"] > 0
    assert figures["broadcast_samples"] > 0 and figures["broadcast_p99_ms"] >= figures["broadcast_p50_ms"]


def test_the_run_is_told_by_window_too(holdem_run):
    """Each progress line's stretch (1 s here, in 3 s) has its acks/s, ack p99 and the
    server's CPU per action, in the JSON and in rows of the table: whether the server slows
    down as a run goes on."""
    proc, figures = holdem_run
    windows = figures["windows"]
    assert len(windows) >= 2
    assert all(set(w) == {"end_s", "acks_per_s", "ack_p99_ms", "server_cpu_us_per_action"} for w in windows)
    assert [round(w["end_s"]) for w in windows] == list(range(1, len(windows) + 1))
    assert all(w["acks_per_s"] > 0 and w["ack_p99_ms"] > 0 and w["server_cpu_us_per_action"] > 0 for w in windows)
    # the windows' acks add up to those of the run but its last stretch (after the last line)
    ends = [0.0] + [w["end_s"] for w in windows]
    counted = sum(w["acks_per_s"] * (end - start) for w, start, end in zip(windows, ends, ends[1:], strict=False))
    assert 0 < counted <= figures["actions"] + 0.5
    out = proc.stdout
    assert _row(out, "acks/s by window") == " / ".join(f"{w['acks_per_s']:.0f}" for w in windows)
    assert _row(out, "server CPU us/action by window") == " / ".join(
        f"{w['server_cpu_us_per_action']:.0f}" for w in windows)
    assert _row(out, "ack p99 by window").endswith(" ms")
    lines = re.findall(r"^\[\s*[\d.]+ s\] hands .* acks/s\s+(\d+) us/action\s+ack p99\s+([\d.]+) ms", out, re.MULTILINE)
    assert [int(cpu) for cpu, _ in lines] == [round(w["server_cpu_us_per_action"]) for w in windows]


def test_the_echo_baseline_gives_a_ratio(holdem_run):
    proc, figures = holdem_run
    assert figures["echo_round_trips_per_s"] > 0
    assert figures["ratio_to_echo"] > 0
    assert figures["echo_errors"] == {}
    assert float(_row(proc.stdout, "ratio to echo")) > 0
    # the CPU figures: per echo round trip, and its share of the server's per action
    assert 0 < figures["echo_cpu_us_per_round_trip"] < figures["server_cpu_us_per_action"]
    assert figures["cpu_ratio_to_echo"] == pytest.approx(
        figures["echo_cpu_us_per_round_trip"] / figures["server_cpu_us_per_action"])
    assert float(_row(proc.stdout, "CPU ratio to echo")) > 0


@pytest.mark.parametrize("game", ["zhajinhua", "doudizhu"])
def test_each_game_plays_hand_after_hand_without_errors(tmp_path, game):
    proc, figures = _run_json(tmp_path, "--game", game, "--rooms", "2", "--seconds", "4")
    assert "== cardroom loadtest ==" in proc.stdout
    assert _row(proc.stdout, "errors") == "none"
    assert (figures["game"], figures["seats"], figures["connections"]) == (game, 3, 6)
    assert figures["actions"] > 0
    assert figures["hands"] >= 2 and figures["hands_started"] >= 2  # hands end and new ones start
    assert figures["broadcast_samples"] > 0


def test_two_servers_share_the_connections_without_errors(tmp_path):
    proc, figures = _run_json(tmp_path, "--servers", "2", "--rooms", "2", "--seconds", "3")
    assert figures["servers"] == 2
    assert figures["server_connections"] == [2, 2]  # round-robin: one seat of each room on each
    assert figures["errors"] == {} and figures["actions"] > 0
    assert figures["redis_cpu_s"] is not None  # the standalone Redis, read from /proc
    _assert_cleaned_up(proc.stdout)


def test_idle_connections_report_memory_per_connection(tmp_path):
    proc, figures = _run_json(tmp_path, "--idle-connections", "200", "--seconds", "1")
    assert _row(proc.stdout, "idle connections") == "200 of 200"
    assert figures["errors"] == {}
    assert figures["server_rss_per_connection_bytes"] is not None
    assert _row(proc.stdout, "RSS server per connection").endswith(" KiB")
    _assert_cleaned_up(proc.stdout)


def test_a_server_that_cannot_start_exits_2_and_leaves_nothing(tmp_path):
    proc = _run("--rooms", "1", "--seconds", "1", env={"CARDROOM_LEASE_MS": "1"})  # refused by the server
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "lease" in proc.stderr
    tmp = re.search(r"\(data in (\S+)\)", proc.stdout)
    assert tmp and not os.path.exists(tmp.group(1))


def test_ctrl_c_stops_early_prints_the_table_and_cleans_up():
    proc = subprocess.Popen([*CARDROOM, "--rooms", "2", "--seconds", "60", "--progress", "0.5"], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        lines = []
        while not any("acks/s" in line for line in lines):  # playing: a progress line came
            line = proc.stdout.readline()
            assert line, "".join(lines) + proc.stderr.read()
            lines.append(line)
        proc.send_signal(signal.SIGINT)
        rest, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    out = "".join(lines) + rest
    assert proc.returncode == 0, out + err
    assert "== cardroom loadtest (interrupted) ==" in out
    assert float(_row(out, "seconds")) < 30
    _assert_cleaned_up(out)


def test_smoke_ten_seconds_without_errors():
    """The CI smoke: ten seconds of the default game, and nothing counted as an error."""
    proc = _run("--rooms", "4", "--seconds", "10", "--progress", "5")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert _row(proc.stdout, "errors") == "none"


def test_action_to_broadcast_counts_other_players_also_when_the_event_comes_first():
    samples: list[float] = []
    clock = BroadcastClock(samples)
    actor, other, third = object(), object(), object()
    clock.arrived(5, other, at=10.004)  # read before the actor read its ack
    clock.arrived(5, actor, at=10.003)  # the actor's own event never counts
    clock.acked(5, sent_at=10.0, actor=actor)
    clock.arrived(5, third, at=10.006)
    assert [round(s, 6) for s in samples] == [0.004, 0.006]


def test_exit_status_counts_errors_missing_acks_and_missing_idle_connections():
    play = {"mode": "play", "errors": {}, "actions": 10}
    assert exit_status(play) == 0
    assert exit_status({**play, "errors": {"closed_1006": 1}}) == 1
    assert exit_status({**play, "actions": 0}) == 1
    assert exit_status({**play, "echo_errors": {"open_OSError": 1}}) == 1
    idle = {"mode": "idle", "errors": {}, "connections": 199, "idle_connections_asked": 200}
    assert exit_status(idle) == 1
    assert exit_status({**idle, "connections": 200}) == 0


def test_server_histogram_is_summarised_over_the_run_only():
    before = parse_histogram(
        'cardroom_action_seconds_bucket{le="0.001"} 10.0\n'
        'cardroom_action_seconds_bucket{le="0.01"} 10.0\n'
        'cardroom_action_seconds_bucket{le="+Inf"} 10.0\n'
        "cardroom_action_seconds_count 10.0\ncardroom_action_seconds_sum 0.005\n",
        "cardroom_action_seconds")
    after = parse_histogram(
        "# HELP cardroom_action_seconds time\n"
        'cardroom_action_seconds_bucket{le="0.001"} 10.0\n'
        'cardroom_action_seconds_bucket{le="0.01"} 100.0\n'
        'cardroom_action_seconds_bucket{le="+Inf"} 110.0\n'
        "cardroom_action_seconds_count 110.0\ncardroom_action_seconds_sum 0.505\n"
        'cardroom_redis_write_seconds_bucket{le="0.001"} 7.0\n',
        "cardroom_action_seconds")
    run = histogram_delta(after, before)
    assert run["count"] == 100
    assert abs(run["sum"] - 0.5) < 1e-9
    assert histogram_quantile(run, 0.5) == 0.01  # none of the run's acks took <= 1 ms
    assert histogram_quantile(run, 0.99) == float("inf")  # 10 of 100 above 10 ms
    assert histogram_quantile({"buckets": [], "count": 0, "sum": 0}, 0.5) is None


def test_latency_percentiles_use_the_nearest_rank():
    values = [i / 1000 for i in range(1, 101)]
    assert percentile(values, 0.50) == 0.050
    assert percentile(values, 0.99) == 0.099
    assert percentile([0.003], 0.9) == 0.003




def test_thinking_takes_half_to_one_and_a_half_times_think_and_differs_each_time():
    player = Player("ws://127.0.0.1:9/ws", "holdem", "random", PlayStats(), seed=1, think=2.0)
    waits = [player.think_delay() for _ in range(2000)]
    assert 1.0 <= min(waits) and max(waits) <= 3.0
    assert min(waits) < 1.1 and max(waits) > 2.9  # spread over the whole range, not one fixed wait
    assert abs(sum(waits) / len(waits) - 2.0) < 0.05


def test_free_port_never_hands_out_a_port_twice(monkeypatch):
    """Ports picked for several children before any of them binds (a primary, its replicas
    and their sentinels) are all different, even when chance picks one twice; with
    ``also``, neither port of the pair is handed out again."""
    picks = iter([20_000, 20_000, 20_001, 21_000, 11_000, 21_000, 20_002, 30_002, 22_000])
    monkeypatch.setattr(launcher.random, "randrange", lambda low, high: next(picks))
    monkeypatch.setattr(launcher, "_handed_out", type(launcher._handed_out)())
    monkeypatch.setattr(launcher, "_bindable", lambda port: True)
    assert launcher.free_port() == 20_000
    assert launcher.free_port() == 20_001  # 20,000 again: passed over
    assert launcher.free_port() == 21_000
    assert launcher.free_port(also=10_000) == 20_002  # 11,000's bus port is 21,000; then 21,000 itself
    assert launcher.free_port() == 22_000  # 30,002 is 20,002's bus port
