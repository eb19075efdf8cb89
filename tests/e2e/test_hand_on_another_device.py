"""Coming to a table mid-hand on another device (issue #28, item 7): the hand history tells
the hand so far line by line, as on the first device, not one summary line; the seats'
notes of the betting round are there; and the hand goes on from there on both devices."""

from __future__ import annotations

import json
from typing import Any

import pytest

from .conftest import discard
from .test_stranded_reload import (
    CASES,
    LOCALES,
    _open_history,
    hand_lines,
    heads_up_against_a_bot,
    play_to_my_turn_after,
)
from .ui import SIZES, expect, screenshot, table

pytestmark = pytest.mark.browser


def _same_moment(a: Any, b: Any) -> str:
    """Wait until both pages show the same room version (each takes a change in its own time)."""
    for _ in range(100):
        va, vb = table(a).get_attribute("data-version"), table(b).get_attribute("data-version")
        if va == vb and va:
            return va
        a.wait_for_timeout(100)
    raise AssertionError(f"the pages stay at versions {va} and {vb}")


@pytest.mark.parametrize("size, lang", CASES)
def test_a_second_device_mid_hand_shows_the_hand_so_far_line_by_line(new_page, shots, size, lang):
    first = heads_up_against_a_bot(new_page, size, lang, "devi")
    bot = 1
    play_to_my_turn_after(first, bot)
    _open_history(first)
    before = hand_lines(first)
    note = first.get_by_test_id(f"seat-note-{bot}").inner_text()
    version = table(first).get_attribute("data-version")
    assert len(before) >= 5, before  # the separator, the blinds, my cards, actions

    token = first.evaluate("localStorage.getItem('cardroom.token')")
    second = new_page(SIZES[size], locale=LOCALES[lang], init_script=(
        "try { if (!localStorage.getItem('cardroom.token')) "
        f"localStorage.setItem('cardroom.token', {json.dumps(token)}); }} catch (e) {{}}"))
    discard(second)
    expect(second.get_by_test_id("my-turn")).to_be_visible()
    expect(table(second)).to_have_attribute("data-hand", table(first).get_attribute("data-hand"))
    version = _same_moment(first, second)
    before = hand_lines(first)
    _open_history(second)
    expect(second.locator("[data-testid=history] .history-list li").last).to_have_text(before[-1])
    assert hand_lines(second) == before  # line by line, not "Hand N (in progress)"
    expect(second.get_by_test_id(f"seat-note-{bot}")).to_have_text(note)
    screenshot(second, shots, f"{size}-{lang}-second-device")

    # the hand goes on from the second device; its lines follow on both
    for tid in ("act-check", "act-call"):
        if second.get_by_test_id(tid).count():
            second.get_by_test_id(tid).click()
            break
    expect(table(second)).not_to_have_attribute("data-version", version)
    expect(table(first)).not_to_have_attribute("data-version", version)
    after = hand_lines(second)
    assert after[:len(before)] == before and len(after) > len(before)

    # and a reload of the second device keeps the hand whole (this tab's record of it)
    second.wait_for_function("() => { const t = document.querySelector('[data-testid=table]');"
                             " return t.dataset.toAct === '0' || t.dataset.over === '1'; }")
    now = table(second).get_attribute("data-version")
    lines = hand_lines(second)
    second.reload()
    expect(table(second)).to_have_attribute("data-version", now)
    _open_history(second)
    expect(second.locator("[data-testid=history] .history-list li").last).to_have_text(lines[-1])
    assert hand_lines(second) == lines
