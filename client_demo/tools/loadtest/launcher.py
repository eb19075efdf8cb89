"""The processes a load test starts on this machine: servers, their Redis, the echo server.

Every child gets its own session (a Ctrl-C reaches the load test only, which stops them
itself) and asks the kernel for SIGTERM should the load test die (``PR_SET_PDEATHSIG``;
processes must therefore be started from the main thread). Its output goes to a log file
in the launcher's temporary directory, which :meth:`stop` removes after SIGTERM (SIGKILL
after 15 s).
"""

from __future__ import annotations

import collections
import contextlib
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

from .figures import children_of, cpu_seconds_of, http_get, rss_of

#: server flags of a self-started server: the load clients are never throttled and a
#: busted player can always buy in again
SERVER_FLAGS = [
    "--rate", "1000000", "--burst", "1000000", "--abuse-limit", "1000000",
    "--send-queue", "4096", "--grant", "1000000000", "--log-level", "WARNING",
]
STOP_GRACE_SECONDS = 15.0
START_TIMEOUT = 30.0
SERVING = re.compile(r"cardroom is serving: open http://127\.0\.0\.1:(\d+)/")
ECHO_SERVING = re.compile(r"echo is serving: ws://127\.0\.0\.1:(\d+)/")


class LaunchError(RuntimeError):
    """A process the load test needs did not start (its log tail is in the message)."""


#: the lowest port :func:`free_port` picks
LOWEST_PORT = 10_000
#: how many of the ports :func:`free_port` handed out it remembers, never to hand out again
HANDED_OUT_KEPT = 4096
_handed_out: collections.OrderedDict[int, None] = collections.OrderedDict()


def _ephemeral_start() -> int:
    """The first port of the kernel's range for the local ends of outgoing connections."""
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 32_768  # Linux's default; other systems differ, and are only less lucky


def _bindable(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def free_port(also: int = 0) -> int:
    """A TCP port of 127.0.0.1 that nothing listens on right now, for a child to bind.

    It is picked at random below the kernel's ephemeral range. A port the kernel hands
    out (``bind`` to port 0) comes from that range, and between this call and the child's
    ``bind`` any outgoing connection on the machine may take it as its local end: a load
    test opens thousands, and a child that finds its port taken fails to start. Picking
    at random among some twenty thousand also keeps processes that pick at the same
    moment (parallel test workers) apart. A port this process was given before is not
    given again (of the last :data:`HANDED_OUT_KEPT`): a caller that picks the ports of
    several children before starting any (a primary and its replicas, each told of the
    others) would otherwise, once in some thousands, get one port twice. With ``also``, the
    port ``also`` above the one returned is free too (a Redis Cluster node's bus port:
    +10000)."""
    top = _ephemeral_start() - also
    for _ in range(200):
        if top - LOWEST_PORT < 1000:
            break  # no room below the ephemeral range here: ask the kernel
        port = random.randrange(LOWEST_PORT, top)
        if _usable(port, also):
            return _hand_out(port, also)
    while True:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if port + also <= 65_535 and _usable(port, also):
            return _hand_out(port, also)


def _usable(port: int, also: int) -> bool:
    if port in _handed_out or (also and port + also in _handed_out):
        return False
    return _bindable(port) and (not also or _bindable(port + also))


def _hand_out(port: int, also: int) -> int:
    """Remember ``port`` (and ``port + also``) as given, and return it."""
    for taken in (port, port + also) if also else (port,):
        _handed_out[taken] = None
    while len(_handed_out) > HANDED_OUT_KEPT:
        _handed_out.popitem(last=False)
    return port


def _die_with_parent() -> None:
    """In the child, before exec: get SIGTERM when the load test dies (Linux only)."""
    with contextlib.suppress(Exception):
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


class Child:
    """One child process whose stdout and stderr go to ``log_path``, run in ``cwd`` (by
    default this process's working directory)."""

    def __init__(self, name: str, cmd: list[str], log_path: str, cwd: str | None = None) -> None:
        self.name = name
        self.cmd = cmd
        self.log_path = log_path
        self.cwd = cwd
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def pid(self) -> int:
        assert self.proc is not None, f"{self.name} was not started"
        return self.proc.pid

    def start(self) -> None:
        with open(self.log_path, "wb") as log:
            self.proc = subprocess.Popen(
                self.cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                start_new_session=True, preexec_fn=_die_with_parent, cwd=self.cwd,
            )

    def wait_for(self, pattern: re.Pattern[str], timeout: float = START_TIMEOUT) -> re.Match[str]:
        """Poll the log until ``pattern`` matches a line; LaunchError if the child exits first."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = pattern.search(self.log())
            if found:
                return found
            if self.proc is None or self.proc.poll() is not None:
                code = None if self.proc is None else self.proc.returncode
                raise LaunchError(f"{self.name} exited with {code}:\n{self.log_tail()}")
            time.sleep(0.05)
        raise LaunchError(f"{self.name} not ready after {timeout:.0f} s:\n{self.log_tail()}")

    def log(self) -> str:
        with contextlib.suppress(OSError), open(self.log_path, encoding="utf-8", errors="replace") as f:
            return f.read()
        return ""

    def log_tail(self, lines: int = 20) -> str:
        return "".join(self.log().splitlines(keepends=True)[-lines:])

    def terminate(self) -> None:
        """Send SIGTERM if it still runs (see :meth:`reap`)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()

    def reap(self, deadline: float) -> None:
        """Wait for it to exit until ``deadline`` (monotonic), then SIGKILL it."""
        if self.proc is None:
            return
        try:
            self.proc.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)


def stop_all(children: list[Child]) -> None:
    """SIGTERM to every child at once, then SIGKILL whichever still runs after 15 s."""
    for child in children:
        child.terminate()
    deadline = time.monotonic() + STOP_GRACE_SECONDS
    for child in children:
        child.reap(deadline)


def _wait_healthy(port: int, timeout: float = START_TIMEOUT) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError):
            if http_get(f"http://127.0.0.1:{port}/healthz", timeout=1.0)[0] == 200:
                return True
        time.sleep(0.1)
    return False


def _wait_redis(port: int, child: Child, timeout: float = START_TIMEOUT) -> None:
    """Wait until the Redis on ``port`` answers PING."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if child.proc is not None and child.proc.poll() is not None:
            raise LaunchError(f"redis exited with {child.proc.returncode}:\n{child.log_tail()}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1.0) as s:
            s.sendall(b"PING\r\n")
            if s.recv(64).startswith(b"+PONG"):
                return
        time.sleep(0.05)
    raise LaunchError(f"redis not answering after {timeout:.0f} s:\n{child.log_tail()}")


class LocalServers:
    """``count`` server processes on free 127.0.0.1 ports, started in a temporary directory.

    One server gets its embedded Redis (its child process, a Unix socket in the data dir);
    several share one standalone ``cardroom redis`` on a free port. All run with
    :data:`SERVER_FLAGS`, and with ``source`` the code of that source tree (another
    build's, for ``bench/ab.py``: ``python -m server`` run there finds its packages first).
    """

    def __init__(self, count: int = 1, source: str | None = None) -> None:
        self.count = count
        self.source = source
        self.tmp = tempfile.mkdtemp(prefix="cardroom-load-")
        self.servers: list[Child] = []
        self.redis: Child | None = None
        self.redis_pid: int | None = None
        self.ports: list[int] = []

    @property
    def urls(self) -> list[str]:
        return [f"ws://127.0.0.1:{port}/ws" for port in self.ports]

    def _server_cmd(self, redis_url: str | None) -> list[str]:
        where = ["--redis-url", redis_url] if redis_url else ["--data-dir", os.path.join(self.tmp, "data")]
        return [sys.executable, "-m", "server", "--port", "0", *where, *SERVER_FLAGS]

    def start(self) -> None:
        """Start Redis (when shared) and the servers; LaunchError if any does not come up."""
        redis_url = None
        if self.count > 1:
            redis_url = self._start_redis()
        for i in range(self.count):
            child = Child(f"server {i + 1}", self._server_cmd(redis_url),
                          os.path.join(self.tmp, f"server{i + 1}.log"), cwd=self.source)
            self.servers.append(child)
            child.start()
        for child in self.servers:
            port = int(child.wait_for(SERVING).group(1))
            if not _wait_healthy(port):
                raise LaunchError(f"{child.name} never answered /healthz 200:\n{child.log_tail()}")
            self.ports.append(port)
        if self.redis is None:  # the embedded one: the first server's redis-server child
            self.redis_pid = next(iter(children_of(self.servers[0].pid)), None)

    def _start_redis(self) -> str:
        port = free_port()
        self.redis = Child("redis", [sys.executable, "-m", "server.cli", "redis", "--port", str(port),
                                     "--data-dir", os.path.join(self.tmp, "redis")],
                           os.path.join(self.tmp, "redis.log"), cwd=self.source)
        self.redis.start()
        _wait_redis(port, self.redis)
        self.redis_pid = self.redis.pid  # `cardroom redis` execs redis-server: same pid
        return f"redis://127.0.0.1:{port}/0"

    def cpu_seconds(self) -> dict[str, float]:
        """CPU seconds used so far: ``server`` (all servers summed) and ``redis``."""
        found = {"server": sum(cpu_seconds_of(c.pid) or 0.0 for c in self.servers if c.proc)}
        if self.redis_pid is not None:
            found["redis"] = cpu_seconds_of(self.redis_pid) or 0.0
        return found

    def rss(self) -> dict[str, int]:
        """Resident bytes now: ``server`` (all servers summed) and ``redis``."""
        found = {"server": sum(rss_of(c.pid) or 0 for c in self.servers if c.proc)}
        if self.redis_pid is not None:
            found["redis"] = rss_of(self.redis_pid) or 0
        return found

    def stop(self) -> None:
        """Stop the servers (graceful SIGTERM), then Redis, and remove the temporary directory."""
        try:
            stop_all(self.servers)
            stop_all([self.redis] if self.redis else [])
        finally:
            shutil.rmtree(self.tmp, ignore_errors=True)


class EchoServer:
    """``python -m client_demo.tools.loadtest.echo`` on a free 127.0.0.1 port (the baseline)."""

    def __init__(self) -> None:
        self.tmp = tempfile.mkdtemp(prefix="cardroom-echo-")
        self.child = Child("echo server", [sys.executable, "-m", "client_demo.tools.loadtest.echo", "--port", "0"],
                           os.path.join(self.tmp, "echo.log"))
        self.url = ""

    def start(self) -> None:
        self.child.start()
        port = int(self.child.wait_for(ECHO_SERVING).group(1))
        self.url = f"ws://127.0.0.1:{port}/ws"

    def cpu_seconds(self) -> float:
        return cpu_seconds_of(self.child.pid) or 0.0

    def stop(self) -> None:
        try:
            stop_all([self.child])
        finally:
            shutil.rmtree(self.tmp, ignore_errors=True)
