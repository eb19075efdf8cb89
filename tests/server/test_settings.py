"""`cardroom serve` settings: flags beat CARDROOM_* variables beat defaults; bad values are refused."""

from __future__ import annotations

import argparse

import pytest

from server.cli import build_parser
from server.config import Settings, SettingsError, settings_from


def parse(*argv: str) -> argparse.Namespace:
    return build_parser().parse_args(["serve", *argv])


def test_defaults():
    s = settings_from(parse(), {})
    assert (s.host, s.port, s.redis_url, str(s.data_dir), s.max_frame) == ("127.0.0.1", 8765, None, "data", 65536)


def test_environment_then_flags():
    env = {"CARDROOM_PORT": "9000", "REDIS_URL": "redis://h:6379/0", "CARDROOM_RATE": "5.5"}
    s = settings_from(parse(), env)
    assert s.port == 9000 and s.redis_url == "redis://h:6379/0" and s.rate == 5.5
    s = settings_from(parse("--port", "9100", "--max-frame", "1024"), env)
    assert s.port == 9100 and s.max_frame == 1024


@pytest.mark.parametrize("env", [
    {"CARDROOM_PORT": "eighty"},
    {"CARDROOM_PORT": "70000"},
    {"CARDROOM_LOG_LEVEL": "LOUD"},
    {"REDIS_URL": "http://nope"},
    {"CARDROOM_MAX_FRAME": "2000000"},
    {"CARDROOM_RATE": "nan"},
    {"CARDROOM_FORWARD_TIMEOUT": "inf"},
    {"CARDROOM_TOKEN_DAYS": "0"},
    {"CARDROOM_KEY_PREFIX": "{x}:"},
])
def test_bad_values_are_refused_with_the_setting_named(env):
    with pytest.raises(SettingsError):
        settings_from(parse(), env)


def test_settings_validate_directly():
    with pytest.raises(SettingsError, match="send_queue"):
        Settings(send_queue=1).validate()
