"""Run from cardroom's suite (``make test``) the package need not be installed: its folder
goes on the path (the entry point, which an install declares, is tested by cardroom's
tests/server/test_leduc_plugin.py)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
