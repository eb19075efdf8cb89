"""Moved to :mod:`client_demo.sdk.updates`: this name is kept for scripts written before (see
:mod:`client_demo._moved`)."""

import sys

from ._moved import moved
from .sdk import updates as new

sys.modules[__name__] = moved(__name__, new)
