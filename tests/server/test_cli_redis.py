"""``cardroom redis``: its data dir is locked for as long as its redis-server runs."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
import redis

from client_demo.tools.loadtest.launcher import free_port

pytestmark = pytest.mark.each_redis  # does the exec'd redis-server keep the lock? run on each binary


def cardroom_redis(port: int, data_dir: Path) -> list[str]:
    return [sys.executable, "-m", "server.cli", "redis", "--port", str(port), "--data-dir", str(data_dir)]


def start(port: int, data_dir: Path) -> subprocess.Popen[str]:
    """A ``cardroom redis`` on ``port``, returned once it answers PING."""
    proc = subprocess.Popen(cardroom_redis(port, data_dir), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, text=True)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        assert proc.poll() is None, f"cardroom redis exited with {proc.returncode}"
        client = redis.Redis(port=port, socket_timeout=1)
        try:
            if client.ping():
                return proc
        except redis.ConnectionError:
            time.sleep(0.05)
        finally:
            client.close()
    stop(proc)
    raise AssertionError("cardroom redis did not answer PING within 30 s")


def stop(proc: subprocess.Popen[str]) -> int:
    if proc.poll() is None:
        proc.terminate()
    try:
        return proc.wait(15)
    except subprocess.TimeoutExpired:
        proc.kill()
        return proc.wait()


def test_a_second_cardroom_redis_on_the_same_data_dir_refuses_and_leaves_the_first_alone(tmp_path):
    data = tmp_path / "data-redis"
    first_port = free_port()
    first = start(first_port, data)
    try:
        second = subprocess.run(cardroom_redis(free_port(), data), capture_output=True, text=True,
                                timeout=30)  # before the fix: a second redis-server, until killed here
        assert second.returncode == 1
        # cardroom redis execs redis-server: the pid holding the lock is the first process's own
        assert second.stderr == f"cardroom redis: data dir {data} is in use by pid {first.pid}\n"
        assert second.stdout == ""
        assert redis.Redis(port=first_port, socket_timeout=5).ping()  # the first one still serves
        assert first.poll() is None
    finally:
        assert stop(first) == 0  # SIGTERM: redis-server shuts down cleanly
    third = start(free_port(), data)  # the lock went with the first redis-server
    assert stop(third) == 0


def test_a_data_dir_that_cannot_be_made_is_one_clear_line(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    run = subprocess.run(cardroom_redis(free_port(), blocker / "data"), capture_output=True, text=True,
                         timeout=60)
    assert run.returncode == 1
    assert run.stderr == f"cardroom redis: cannot use the data dir {blocker / 'data'}: Not a directory\n"
