"""The fuzz soak (``bench/fuzz_soak.py``) in CI, run as an operator runs it: a subprocess
that starts its own server (embedded Redis, loopback), sends hostile frames over both
subprotocols while honest players play, and fails on any crash, ``internal_error``,
traceback, close or reply the protocol document does not promise, or chip imbalance.
The full run is ``.venv/bin/python bench/fuzz_soak.py --frames 100000``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.soak.report import SoakResult, failures  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow


def test_hostile_frames_break_nothing(tmp_path):
    out = tmp_path / "soak.json"
    run = subprocess.run(
        [sys.executable, "bench/fuzz_soak.py", "--frames", "4000", "--connections", "12", "--seed", "5",
         "--json", str(out), "--progress", "10"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-3000:]
    figures = json.loads(out.read_text())
    assert figures["failures"] == []
    assert figures["frames"] >= 4000 and figures["internal_errors"] == 0
    # the run really was hostile and really was played
    replies = figures["replies"]
    assert replies.get("bad_message", 0) > 100 and replies.get("bad_frame", 0) > 100
    assert figures["expected_closes"], "no close was provoked"
    assert figures["honest_acks"] > 50 and all(h["chips"] == h["expected"] for h in figures["honest"])
    assert "RESULT: PASS" in run.stdout


@pytest.mark.parametrize("finding", [
    {"internal_errors": 1}, {"unexpected_closes": {"1011": 1}}, {"mismatches": {"deep:17:maps -> pong": 1}},
    {"tracebacks": {"RecursionError": 1}}, {"crashed": True},
    {"audit_after": {"grants": 10, "wallets": 5, "tables": 4, "pending": 0}},
])
def test_any_finding_fails_the_run(finding):
    assert failures(SoakResult(seed=1, connections=1, frames=1)) == []
    assert failures(SoakResult(seed=1, connections=1, frames=1, **finding)) != []
