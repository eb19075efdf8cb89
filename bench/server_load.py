"""Server load test: now ``cardroom loadtest``; this runs it with the old defaults
(heads-up Hold'em, 20 rooms, 30 s). Further arguments are passed on, e.g. ``--baseline-echo``."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from server.cli import main  # noqa: E402

sys.exit(main(["loadtest", "--game", "holdem", "--rooms", "20", "--seats", "2", "--seconds", "30", *sys.argv[1:]]))
