"""Where an operator command (``cardroom history``, ``verify``, ``league``) finds the
server's Redis: ``--redis-url`` (or ``REDIS_URL``), else the embedded Redis of
``--data-dir`` (default ``./data``), started for the command when no server runs on it.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

from ..config import SettingsError, settings_from
from ..redis_embedded import EmbeddedRedis


class OperatorError(Exception):
    """A one-line error for the command's user, and the exit status to leave with."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class Located:
    url: str
    where: str  # how to name it in an error
    key_prefix: str
    embedded: EmbeddedRedis | None  # started for this command: stop it when done

    def stop(self) -> None:
        if self.embedded is not None:
            self.embedded.stop()
            self.embedded = None


def locate_redis(redis_url: str | None, data_dir: str | None, prefix: str | None) -> Located:
    """The Redis to use per the flags and environment; raises :class:`OperatorError`."""
    ns = argparse.Namespace(redis_url=redis_url, key_prefix=prefix,
                            data_dir=None if data_dir is None else Path(data_dir))
    try:
        settings = settings_from(ns)
    except SettingsError as exc:
        raise OperatorError(str(exc), 2) from None
    if settings.redis_url is not None:
        return Located(settings.redis_url, settings.redis_url, settings.key_prefix, None)
    candidate = EmbeddedRedis(settings.data_dir)
    if not candidate.redis_dir.is_dir():
        raise OperatorError(f"no cardroom data in {candidate.data_dir} (give --data-dir or --redis-url)", 1)
    embedded = None
    if candidate.running_pid() is None:  # no server running: our own redis-server, for this command
        embedded = candidate
        try:
            embedded.start()
        except (OSError, RuntimeError) as exc:
            raise OperatorError(f"could not start the embedded Redis of {candidate.data_dir}: {exc}", 1) from None
    return Located(candidate.url, f"the embedded Redis of {candidate.data_dir}", settings.key_prefix, embedded)
