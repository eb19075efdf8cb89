"""A server of our own for the soak, as ``cardroom loadtest`` starts one, its log, and the
chip audit read from its Redis.

:class:`LocalServer` runs ``python -m server --port 0 --data-dir TMP`` (embedded Redis)
with the default rate limits, frame limits and grant, logging at INFO to a file in the
temporary directory. :func:`scan_log` picks the lines at ERROR (or CRITICAL) and the
tracebacks out of a log; :func:`chip_audit` runs the server's own ``Store.chip_audit``.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import Any

from redis.asyncio import Redis

from client_demo.tools.loadtest.launcher import SERVING, Child, LaunchError, stop_all
from server.redis_embedded import EmbeddedRedis
from server.room.log import load_room
from server.store import Store

LOG_LINE = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+ (?P<level>[A-Z]+) ")
AUDIT_SETTLE_SECONDS = 15.0


class LocalServer:
    """One ``python -m server`` with its embedded Redis, in a temporary directory."""

    def __init__(self, extra: list[str] | None = None) -> None:
        self.tmp = tempfile.mkdtemp(prefix="cardroom-soak-")
        self.data_dir = os.path.join(self.tmp, "data")
        self.log_path = os.path.join(self.tmp, "server.log")
        cmd = [sys.executable, "-m", "server", "--port", "0", "--data-dir", self.data_dir,
               "--log-level", "INFO", *(extra or [])]
        self.child = Child("server", cmd, self.log_path)
        self.port = 0
        self.exit_code: int | None = None

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    @property
    def redis_url(self) -> str:
        """The embedded Redis's socket, where the server put it for this data dir."""
        return EmbeddedRedis(self.data_dir).url

    def start(self) -> None:
        self.child.start()
        self.port = int(self.child.wait_for(SERVING).group(1))

    def crashed(self) -> int | None:
        """The exit status if the process has exited (None while it runs)."""
        proc = self.child.proc
        return None if proc is None else proc.poll()

    def stop(self) -> int | None:
        """SIGTERM (a graceful shutdown), SIGKILL after 15 s; returns the exit status."""
        stop_all([self.child])
        self.exit_code = self.child.proc.returncode if self.child.proc else None
        return self.exit_code

    def log(self) -> str:
        return self.child.log()

    def cleanup(self) -> None:
        shutil.rmtree(self.tmp, ignore_errors=True)


@dataclass
class LogFindings:
    """What a server log holds that should not be there."""

    error_lines: list[str] = field(default_factory=list)  # at ERROR or CRITICAL
    tracebacks: list[str] = field(default_factory=list)  # each: the line before it ... its last line
    warnings: int = 0

    def first_of_each(self) -> list[str]:
        """The first traceback of each distinct final line."""
        seen: dict[str, str] = {}
        for tb in self.tracebacks:
            seen.setdefault(tb.strip().splitlines()[-1], tb)
        return list(seen.values())

    def distinct_tracebacks(self) -> dict[str, int]:
        """Tracebacks by their final line (the exception), with counts."""
        out: dict[str, int] = {}
        for tb in self.tracebacks:
            last = tb.strip().splitlines()[-1]
            out[last] = out.get(last, 0) + 1
        return out


def scan_log(text: str) -> LogFindings:
    """The ERROR/CRITICAL lines and tracebacks of a server log (format of ``server.cli``)."""
    found = LogFindings()
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        level = LOG_LINE.match(line)
        if level and level.group("level") in ("ERROR", "CRITICAL"):
            found.error_lines.append(line)
        elif level and level.group("level") == "WARNING":
            found.warnings += 1
        if line.startswith("Traceback"):
            start = i
            i += 1
            while i < len(lines) and not LOG_LINE.match(lines[i]) and not lines[i].startswith("Traceback"):
                i += 1
            header = lines[start - 1] if start > 0 else ""
            found.tracebacks.append("\n".join([header, *lines[start:i]]))
            continue
        i += 1
    return found


def balanced(audit: dict[str, int] | None) -> bool:
    return audit is not None and audit["grants"] == audit["wallets"] + audit["tables"] + audit["pending"]


async def chip_audit(redis_url: str, prefix: str = "cardroom:") -> dict[str, int]:
    """The server's own ``Store.chip_audit`` on its Redis."""
    redis = Redis.from_url(redis_url)
    try:
        return await Store(redis, prefix).chip_audit()
    finally:
        await redis.aclose()


async def settled_audit(redis_url: str, prefix: str = "cardroom:",
                        timeout: float = AUDIT_SETTLE_SECONDS) -> dict[str, int]:
    """The chip audit once it balances (transfers in flight settle within a moment), or
    the last reading after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        audit = await chip_audit(redis_url, prefix)
        if balanced(audit) or time.monotonic() > deadline:
            return audit
        await asyncio.sleep(0.5)


async def room_chips(redis_url: str, room: str, players: list[str], prefix: str = "cardroom:") -> dict[str, Any]:
    """The chips of ``players`` (wallets) and of the room's seats (stacks), and who sits."""
    redis = Redis.from_url(redis_url)
    try:
        store = Store(redis, prefix)
        snap = await load_room(store, room) or {}
        seats = [s for s in snap.get("seats", ()) if s is not None]
        wallets = {p: await store.wallet(p) for p in players}
        return {"wallets": sum(wallets.values()), "stacks": sum(s["stack"] for s in seats),
                "seated": [s["player"] for s in seats], "xout": len(snap.get("xout", ())),
                "xin": len(snap.get("xin", ())), "hand_no": snap.get("hand_no", 0)}
    finally:
        await redis.aclose()


__all__ = ["LaunchError", "LocalServer", "LogFindings", "balanced", "chip_audit", "room_chips", "scan_log",
           "settled_audit"]
