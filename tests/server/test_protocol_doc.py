"""docs/protocol.md documents every message type, room event and error code in server/edge/protocol.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from server.edge import auth, messages, protocol
from server.room.options import room_options

from .highcard import GAME

DOC = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text()


@pytest.mark.parametrize("name", sorted(messages.CLIENT_MESSAGES))
def test_every_client_message_is_documented(name):
    assert f"`{name}`" in DOC


@pytest.mark.parametrize("name", sorted(protocol.SERVER_MESSAGES))
def test_every_server_message_is_documented(name):
    assert f"`{name}`" in DOC


@pytest.mark.parametrize("name", sorted(protocol.ERROR_CODES))
def test_every_error_code_is_documented(name):
    assert f"`{name}`" in DOC


@pytest.mark.parametrize("reason", sorted(auth.REASONS))
def test_every_sign_in_reason_is_documented(reason):
    assert f"| `{reason}`" in DOC


@pytest.mark.parametrize("name", sorted(protocol.ROOM_EVENTS))
def test_every_room_event_is_documented(name):
    assert f"`{name}`" in DOC


@pytest.mark.parametrize("name", [o.name for o in room_options(GAME)])
def test_every_room_option_is_documented(name):
    assert f"`{name}`" in DOC


@pytest.mark.parametrize("name", sorted(messages.CLIENT_MESSAGES))
def test_every_client_field_is_documented(name):
    for field in messages.CLIENT_MESSAGES[name]:
        assert f"`{field}`" in DOC or f'"{field}"' in DOC, (name, field)


def test_every_code_the_server_raises_is_declared():
    import re

    src = "".join(p.read_text() for p in (Path(protocol.__file__).parent).rglob("*.py"))
    raised = set(re.findall(r'ProtocolError\(\s*"([a-z_]+)"', src)) | set(re.findall(r'error_message\(\s*"([a-z_]+)"', src))
    raised |= set(re.findall(r'_reply_error\(cmd, "([a-z_]+)"', src))
    assert raised and raised <= set(protocol.ERROR_CODES), raised - set(protocol.ERROR_CODES)
