"""Backpressure: a saturated process stops reading its clients' frames until it catches up.

The event loop's lag (how late a timer runs) says how far behind a process is: every
frame read, Redis reply and timer waits that long. Past :data:`PAUSE_LAG` the process
stops taking new requests from its connections (:meth:`Admission.wait` before each frame
is handled): the frames stay in the socket buffers, so the clients' sends slow down by
TCP flow control, and the work already accepted drains. Reading resumes once the lag is
back under :data:`RESUME_LAG`. The loop's own work goes on meanwhile: commits, timers,
lease renewals (a renewal answered late makes a process drop its rooms, and its
requests get ``unavailable``), pub/sub and commands forwarded from other processes.
"""

from __future__ import annotations

import asyncio
import logging
import time

from ..metrics import Metrics

log = logging.getLogger(__name__)

PAUSE_LAG = 0.1  # seconds of loop lag that pause reading
RESUME_LAG = 0.02  # ... and that resume it
PROBE_SECONDS = 0.25  # how often the lag is sampled while reading
PAUSED_PROBE_SECONDS = 0.05  # ... and while paused


class Admission:
    """Whether connections may hand the process new frames now."""

    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics
        self._open = asyncio.Event()
        self._open.set()
        self._paused_at = 0.0

    @property
    def paused(self) -> bool:
        return not self._open.is_set()

    async def wait(self) -> None:
        """Return once frames may be handled (at once unless paused)."""
        if not self._open.is_set():
            await self._open.wait()

    def observe(self, lag: float) -> float:
        """Take a lag sample; return the seconds until the next one."""
        self.metrics.loop_lag.observe(lag)
        if not self.paused and lag >= PAUSE_LAG:
            self._open.clear()
            self._paused_at = time.monotonic()
            self.metrics.read_pauses.inc()
            log.debug("event loop %.0f ms late: reading paused", lag * 1000)
        elif self.paused and lag <= RESUME_LAG:
            self._open.set()
            self.metrics.read_paused_seconds.inc(time.monotonic() - self._paused_at)
        return PAUSED_PROBE_SECONDS if self.paused else PROBE_SECONDS

    def release(self) -> None:
        """Let every waiting connection go on (shutdown)."""
        self._open.set()

    async def probe(self) -> None:
        """Sample the lag for good (a task of the server)."""
        loop = asyncio.get_running_loop()
        interval = PROBE_SECONDS
        while True:
            due = loop.time() + interval
            await asyncio.sleep(interval)
            interval = self.observe(max(0.0, loop.time() - due))
