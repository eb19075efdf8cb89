"""The SDK's modules before they moved into :mod:`client_demo.sdk` (``client_demo.bot``,
``client_demo.client``, ``client_demo.entrant``, ``client_demo.updates``): each old name is
the new module itself, with a :class:`DeprecationWarning` naming where it went, so that bots
and scripts written before the move keep working. The old names go in a later release."""

from __future__ import annotations

import warnings
from types import ModuleType


def moved(old: str, new: ModuleType) -> ModuleType:
    """The module ``new``, imported as ``old``: warns once per import of ``old``."""
    warnings.warn(f"{old} moved to {new.__name__} (or import from client_demo.sdk); the old name goes in a later "
                  "release", DeprecationWarning, stacklevel=3)
    return new
