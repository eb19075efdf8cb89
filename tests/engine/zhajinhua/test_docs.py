"""docs/zhajinhua.md names every option with its default and every rejection code."""

from __future__ import annotations

import json
import re
from pathlib import Path

from engine.zhajinhua import OPTIONS

ROOT = Path(__file__).resolve().parents[3]
DOC = (ROOT / "docs" / "zhajinhua.md").read_text(encoding="utf-8")


def test_docs_list_every_option_with_its_default():
    for option in OPTIONS:
        default = json.dumps(option.default)
        row = re.search(rf"^\| `{option.name}` \|[^\n]*`{re.escape(default)}`", DOC, re.M)
        assert row, f"{option.name} (default {default}) missing from the options table"


def test_docs_list_every_rejection_code():
    source = "".join(p.read_text() for p in (ROOT / "engine" / "zhajinhua").glob("*.py"))
    codes = set(re.findall(r'IllegalAction\(\s*"([a-z_]+)"', source))
    assert codes >= {"hand_over", "not_your_turn", "bad_amount", "bad_action"}
    for code in codes:
        assert f"| `{code}` |" in DOC, code
