"""bench/ab.py: builds of the server under the same load tests in one run, alternating."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import ab  # noqa: E402


def run(*args: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(ROOT / "bench" / "ab.py"), *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout)


def test_a_revision_and_a_tree_are_loaded_in_turn_and_compared(tmp_path):
    out = tmp_path / "ab.json"
    done = run("--rev", "HEAD", "--tree", str(ROOT), "--rounds", "2", "--json", str(out),
               "--", "--rooms", "2", "--seconds", "1", "--think-ms", "100")
    assert done.returncode == 0, done.stdout + done.stderr
    rounds = [line.split()[1:3] for line in done.stdout.splitlines() if line.startswith("round ")]
    head, tree = "HEAD", str(ROOT)
    assert [(r, b) for r, b in rounds] == [("1/2", head), ("1/2", tree), ("2/2", tree), ("2/2", head)]
    report = json.loads(out.read_text())
    assert report["loadtest"] == ["--rooms", "2", "--seconds", "1", "--think-ms", "100"]
    exported, given = report["builds"]
    assert exported["build"].startswith("HEAD (") and Path(exported["source"]) != ROOT
    assert Path(given["source"]) == ROOT
    for build in report["builds"]:
        assert len(build["runs"]) == 2
        for figures in build["runs"]:
            assert figures["errors"] == {} and figures["actions"] > 0 and figures["server_cpu_us_per_action"] > 0
    first, second = report["summary"]
    assert first["ratio_to_first"] == 1.0
    assert second["ratio_to_first"] == pytest.approx(second["us_per_action_median"] / first["us_per_action_median"])
    assert "ratio of medians to the first build" in done.stdout


def test_one_build_on_one_process_and_on_two(tmp_path):
    out = tmp_path / "ab.json"
    done = run("--rev", "HEAD", "--rev", "HEAD", "--servers", "1,2", "--rounds", "1", "--json", str(out),
               "--", "--rooms", "2", "--seconds", "1", "--think-ms", "100")
    assert done.returncode == 0, done.stdout + done.stderr
    one, two = json.loads(out.read_text())["builds"]
    assert (one["servers"], two["servers"]) == (1, 2)
    assert one["build"].endswith(" x1") and two["build"].endswith(" x2")
    assert one["runs"][0]["servers"] == 1 and two["runs"][0]["servers"] == 2  # as the load test saw them
    assert two["runs"][0]["errors"] == {} and two["runs"][0]["server_cpu_us_per_action"] > 0


@pytest.mark.parametrize("args, says", [
    (["--rev", "HEAD"], "at least two builds"),
    (["--rev", "no-such-revision", "--rev", "HEAD"], "no such revision"),
    (["--rev", "HEAD", "--tree", "/"], "not a cardroom source tree"),
    (["--rev", "HEAD", "--rev", "HEAD", "--", "--url", "ws://x/ws"], "the tool's own"),
    (["--rev", "HEAD", "--rev", "HEAD", "--rounds", "0"], "at least 1"),
    (["--rev", "HEAD", "--rev", "HEAD", "--servers", "1,2,3"], "3 counts for 2 builds"),
    (["--rev", "HEAD", "--rev", "HEAD", "--servers", "0"], "at least 1"),
    (["--rev", "HEAD", "--rev", "HEAD", "--servers", "two"], "not a count"),
    (["--rev", "HEAD", "--rev", "HEAD", "--", "--idle-connections", "100"], "measures memory"),
])
def test_a_bad_command_line_exits_2_and_says_why(args, says):
    done = run(*args, timeout=30)
    assert done.returncode == 2
    assert says in done.stderr


def test_a_build_that_cannot_start_exits_2_with_its_log(tmp_path):
    broken = tmp_path / "broken"
    (broken / "server").mkdir(parents=True)
    (broken / "server" / "__init__.py").write_text("")
    (broken / "server" / "__main__.py").write_text("raise SystemExit('this build needs another package')\n")
    done = run("--tree", str(broken), "--tree", str(broken), timeout=60)
    assert done.returncode == 2
    assert "did not start" in done.stderr and "this build needs another package" in done.stderr


def test_the_summary_gives_medians_ranges_and_ratios_to_the_first_build():
    a, b = ab.Build("a", ROOT), ab.Build("b", ROOT)
    a.runs = [{"server_cpu_us_per_action": cpu, "actions_per_s": 100.0, "ack_p99_ms": 10.0, "errors": {}}
              for cpu in (900.0, 1000.0, 1100.0)]
    b.runs = [{"server_cpu_us_per_action": cpu, "actions_per_s": 200.0, "ack_p99_ms": 5.0, "errors": {}}
              for cpu in (450.0, 520.0)] + [{"failed": "exit status 1: boom"}]
    first, second = ab.summary([a, b])
    assert (first["us_per_action_median"], first["ratio_to_first"], first["failed_or_errors"]) == (1000.0, 1.0, 0)
    assert second["us_per_action_median"] == 485.0
    assert (second["us_per_action_min"], second["us_per_action_max"]) == (450.0, 520.0)
    assert second["ratio_to_first"] == pytest.approx(0.485)
    assert second["failed_or_errors"] == 1 and second["runs"] == 3


def test_the_summary_prints_builds_without_figures_and_without_a_ratio(capsys):
    failed, measured = ab.Build("old", ROOT), ab.Build("new", ROOT)
    failed.runs = [{"failed": "exit status 2: no such option"}]
    measured.runs = [{"server_cpu_us_per_action": 500.0, "actions_per_s": 100.0, "ack_p99_ms": None, "errors": {}}]
    rows = ab.summary([failed, measured])
    assert rows[1]["ratio_to_first"] is None and rows[0]["failed_or_errors"] == 1
    ab.print_summary(rows, 3)
    out = capsys.readouterr().out
    assert "old  no figures" in out and "new      500 µs (500-500)      -x" in out
