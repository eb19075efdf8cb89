"""The SDK's modules moved into ``client_demo.sdk``; their old names still work, with a
warning, for bots, scripts and league entrant commands written before the move."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

import client_demo.sdk.bot
import client_demo.sdk.client
import client_demo.sdk.entrant
import client_demo.sdk.updates

MOVED = {"client_demo.bot": client_demo.sdk.bot, "client_demo.client": client_demo.sdk.client,
         "client_demo.entrant": client_demo.sdk.entrant, "client_demo.updates": client_demo.sdk.updates}


@pytest.mark.parametrize("old", sorted(MOVED))
def test_an_old_name_is_the_new_module_and_says_where_it_went(old):
    sys.modules.pop(old, None)
    with pytest.warns(DeprecationWarning, match=f"{old} moved to {MOVED[old].__name__}"):
        module = importlib.import_module(old)
    assert module is MOVED[old]


def test_from_an_old_name_imports_what_a_bot_script_used():
    sys.modules.pop("client_demo.bot", None)
    with pytest.warns(DeprecationWarning):
        from client_demo.bot import Bot, play_seat
    assert Bot is client_demo.sdk.bot.Bot and play_seat is client_demo.sdk.bot.play_seat


def test_the_old_entrant_command_still_runs():
    done = subprocess.run([sys.executable, "-m", "client_demo.entrant", "--help"], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert "--strategy" in done.stdout and "--league" in done.stdout
