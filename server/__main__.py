"""``python -m server``: the same as ``cardroom serve``."""

import sys

from .cli import main

sys.exit(main(["serve", *sys.argv[1:]]))
