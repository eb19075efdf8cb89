"""Moved to :mod:`client_demo.sdk.entrant`: this name is kept for scripts and league
entrant commands written before (``python -m client_demo.entrant ...`` still runs it; see
:mod:`client_demo._moved`)."""

import sys

from ._moved import moved
from .sdk import entrant as new

if __name__ == "__main__":
    sys.exit(moved("client_demo.entrant", new).main())
sys.modules[__name__] = moved(__name__, new)
