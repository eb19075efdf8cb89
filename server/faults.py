"""Crash points for the recovery tests: ``CARDROOM_FAULT=<point>`` makes the process kill
itself (SIGKILL, as a power cut would) when it reaches that point, so a test can prove
that whatever was half done is completed by another process. Unset, it costs one dict
lookup. Points: ``after_debit`` (a buy-in left the wallet, the seat is not stored yet),
``after_join_commit`` (the seat is stored, the buy-in's journal entry is still open),
``after_leave_commit`` (the departure is stored, the wallet is not paid yet)."""

from __future__ import annotations

import os
import signal

POINTS = ("after_debit", "after_join_commit", "after_leave_commit")
_ARMED = os.environ.get("CARDROOM_FAULT")


def crash_point(name: str) -> None:
    if _ARMED == name:
        os.kill(os.getpid(), signal.SIGKILL)
