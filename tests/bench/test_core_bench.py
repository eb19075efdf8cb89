"""bench/core_bench.py runs and prints its figures (never a timing assertion)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(ROOT / "bench" / "core_bench.py"), *args],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)


def test_it_plays_the_actions_asked_and_splits_their_cost():
    done = run("--actions", "300")
    assert done.returncode == 0, done.stderr
    assert "300 actions" in done.stdout
    parts = re.search(r"CPU per action: (\d+) µs = core (\d+) \+ store packing (\d+) \+ views (\d+)", done.stdout)
    assert parts is not None, done.stdout
    total, *split = (int(x) for x in parts.groups())
    assert all(x > 0 for x in split) and abs(total - sum(split)) <= 2


def test_profile_prints_the_top_functions():
    done = run("--actions", "100", "--profile")
    assert done.returncode == 0, done.stderr
    assert "tottime" in done.stdout, done.stdout
    # the top functions are the project's own (which ones varies from run to run)
    assert re.search(r"(server|engine)/[\w/]+\.py:\d+\(", done.stdout), done.stdout
