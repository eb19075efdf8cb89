"""`cardroom serve` settings: flags beat CARDROOM_* variables beat defaults; bad values are refused."""

from __future__ import annotations

import argparse
import sys

import pytest

import server.app
from server.cli import build_parser, main
from server.config import _FLAGS, Settings, SettingsError, flag_of, settings_from


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
    with pytest.raises(SettingsError, match="^--send-queue must be at least 8, got 1$"):
        Settings(send_queue=1).validate()


@pytest.fixture
def clean_env(monkeypatch):
    """No CARDROOM_* setting (nor REDIS_URL) from the environment the tests run in, and no
    server: settings that `cardroom serve` wrongly accepts fail the test at once instead of
    serving on port 8765 until the test times out."""
    for name in _FLAGS:
        monkeypatch.delenv("CARDROOM_" + name.upper(), raising=False)
    monkeypatch.delenv("REDIS_URL", raising=False)

    def serve_forever(app, ready):
        raise AssertionError(f"cardroom serve accepted these settings: {app.settings}")

    monkeypatch.setattr(server.app, "serve_forever", serve_forever)
    return monkeypatch


def serve_error(argv: list[str], capsys) -> str:
    """What `cardroom serve ARGV` prints on stderr; it must exit 2 before starting anything."""
    assert main(["serve", *argv]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "Traceback" not in err
    return err


# one bad value for every setting that is checked: (setting, value)
BAD_VALUES = [
    ("port", -1), ("log_level", "LOUD"), ("max_frame", 10), ("rate", 0), ("burst", 0),
    ("abuse_limit", 0), ("send_queue", 1), ("grant", -1), ("redis_url", "http://nope"),
    ("key_prefix", "{x}:"), ("lease_ms", 5), ("room_idle_seconds", 0), ("forward_timeout", 0),
    ("redis_pool", 1), ("max_connections_per_ip", -1), ("new_players_per_minute", -1),
    ("new_rooms_per_minute", -1), ("hello_timeout", 0), ("idle_timeout", 0.5),
    ("empty_room_minutes", -1), ("history_entries", 1), ("keep_closed_days", -1),
    ("max_league_runs", -1), ("admin_token", "short"), ("token_days", 0), ("node_id", "x"),
    ("allowed_origins", "notaurl"), ("disconnect_auto_play_seconds", -1), ("disconnect_auto_play_seconds", 3601),
    ("event_loop", "trio"), ("auth_jwt_secret", "too-short"), ("auth_jwks_url", "ftp://keys"),
    ("auth_login_url", "club.example/login"), ("auth_name_claim", "a b"), ("auth_required", True),
    ("auth_issuer", "https://club.example"), ("auth_audience", "cardroom"),
    ("redis_wait_replicas", 17), ("redis_wait_replicas", 1), ("redis_wait_ms", 5), ("redis_wait_ms", 4001),
]


@pytest.mark.parametrize("name,value", BAD_VALUES)
def test_every_settings_error_names_the_flag_not_the_field(name, value):
    with pytest.raises(SettingsError) as caught:
        Settings(**{name: value}).validate()
    message = str(caught.value)
    assert message.startswith((flag_of(name) + " ", flag_of(name) + ":")), message
    assert "_" not in name or name not in message  # lease_ms, max_frame: fields nobody types
    assert caught.value.settings[0] == name


@pytest.mark.parametrize("argv,message", [
    (["--lease-ms", "5"], "--lease-ms must be 300..600000, got 5"),
    (["--port", "eighty"], "--port must be a whole number, got 'eighty'"),
    (["--rate", "fast"], "--rate must be a number, got 'fast'"),
    (["--rate", "nan"], "--rate must be above 0 and at most 1000000000, got nan"),
    (["--limit-loopback", "maybe"],
     "--limit-loopback must be yes or no (also true/false, on/off, 1/0, any case), got 'maybe'"),
    (["--max-frame", "2000000"], "--hard-max-frame must be at least --max-frame (2000000), got 1048576"),
    (["--admin-token", "short"], "--admin-token must be at least 16 characters"),  # never echoed
    (["--node-id", "bob"], "--node-id must be n- then 1-64 letters, digits, _ . -, got 'bob'"),
    (["--event-loop", "trio"], "--event-loop must be auto, uvloop or asyncio, got 'trio'"),
    (["--redis-url", "redis+sentinel://s1:26379,s2:26379"],
     "--redis-url: no service named: the path is /<service>[/<db>], the name the sentinels monitor"),
    (["--redis-url", "redis+sentinel://s1:26379/mymaster/zero"], "--redis-url: the database must be a number, got 'zero'"),
    (["--redis-url", "redis+sentinel://s1:263790/mymaster"], "--redis-url: a sentinel's port must be 1..65535, got '263790'"),
    (["--redis-url", "rediss+sentinel://s1/mymaster"],
     "--redis-url must be a redis://, rediss://, unix:// or redis+sentinel:// URL, got 'rediss+sentinel://s1/mymaster'"),
    (["--auth-jwt-secret", "short"], "--auth-jwt-secret must be at least 32 characters (an HS256 key of 256 bits)"),
    (["--auth-required", "yes"],
     "--auth-required needs --auth-jwt-secret or --auth-jwks-url (the keys that sign identity tokens)"),
])
def test_a_bad_flag_is_one_line_naming_the_flag(argv, message, clean_env, capsys):
    assert serve_error(argv, capsys) == f"cardroom serve: {message}\n"


@pytest.mark.parametrize("env,message", [
    ({"CARDROOM_LEASE_MS": "5"}, "--lease-ms must be 300..600000, got 5 (from CARDROOM_LEASE_MS)"),
    ({"CARDROOM_PORT": "eighty"}, "--port must be a whole number, got 'eighty' (from CARDROOM_PORT)"),
    ({"CARDROOM_FORWARDED_FOR": "maybe"}, "--forwarded-for must be yes or no (also true/false, "
                                          "on/off, 1/0, any case), got 'maybe' (from CARDROOM_FORWARDED_FOR)"),
    ({"REDIS_URL": "http://nope"},
     "--redis-url must be a redis://, rediss://, unix:// or redis+sentinel:// URL, got 'http://nope' (from REDIS_URL)"),
    ({"CARDROOM_REDIS_URL": "http://nope"}, "--redis-url must be a redis://, rediss://, unix:// or redis+sentinel:// URL, "
                                            "got 'http://nope' (from CARDROOM_REDIS_URL)"),
    ({"CARDROOM_MAX_FRAME": "2000000"},
     "--hard-max-frame must be at least --max-frame (2000000), got 1048576 (from CARDROOM_MAX_FRAME)"),
    ({"CARDROOM_ALLOWED_ORIGINS": "notaurl"}, "--allowed-origins: 'notaurl' is not an origin: write "
     "scheme://host or scheme://host:port, e.g. https://play.example.com (from CARDROOM_ALLOWED_ORIGINS)"),
])
def test_a_bad_variable_is_one_line_naming_the_flag_and_the_variable(env, message, clean_env, capsys):
    for key, value in env.items():
        clean_env.setenv(key, value)
    assert serve_error([], capsys) == f"cardroom serve: {message}\n"


def test_a_flag_over_a_bad_variable_is_named_as_the_flag(clean_env, capsys):
    clean_env.setenv("CARDROOM_LEASE_MS", "1000")
    assert serve_error(["--lease-ms", "5"], capsys) == "cardroom serve: --lease-ms must be 300..600000, got 5\n"


@pytest.mark.parametrize("text,value", [
    ("yes", True), ("true", True), ("on", True), ("1", True), ("YES", True), ("True", True),
    ("no", False), ("false", False), ("off", False), ("0", False), ("No", False), ("OFF", False),
])
def test_yes_no_settings_take_the_usual_spellings(text, value):
    s = settings_from(parse("--limit-loopback", text), {"CARDROOM_FORWARDED_FOR": text})
    assert s.limit_loopback is value and s.forwarded_for is value


@pytest.mark.parametrize("origins", [
    "https://play.example.com", "http://localhost:3000", "https://a.example/, http://127.0.0.1:8080",
    "http://[::1]:8765", "*", "https://a.example,*", "",
])
def test_allowed_origins_that_are_origins_are_accepted(origins):
    assert settings_from(parse("--allowed-origins", origins), {}).allowed_origins == origins


@pytest.mark.parametrize("origin,problem", [
    ("notaurl", "is not an origin: write scheme://host or scheme://host:port, e.g. https://play.example.com"),
    ("localhost:3000", "is not an origin: write scheme://host or scheme://host:port, e.g. https://play.example.com"),
    ("https://user@a.example", "is not an origin: write scheme://host or scheme://host:port, e.g. https://play.example.com"),
    ("https://a.example/play", "has a path or query: an origin is scheme://host[:port] only, e.g. https://play.example.com"),
    ("https://a.example?x=1", "has a path or query: an origin is scheme://host[:port] only, e.g. https://play.example.com"),
    ("https://Play.Example.com", "must be lowercase, as browsers send it: write 'https://play.example.com'"),
    ("https://a.example:443", "names the default port, which browsers leave out: write 'https://a.example'"),
    ("http://a.example:70000", "has a port outside 1..65535"),
    ("https://*.example.com", "is a pattern: only * on its own is a wildcard (any origin)"),
])
def test_an_allowed_origin_that_is_no_origin_is_one_clear_line(origin, problem, clean_env, capsys):
    err = serve_error(["--allowed-origins", f"https://ok.example, {origin}"], capsys)
    assert err == f"cardroom serve: --allowed-origins: {origin!r} {problem}\n"


def help_of(command: str, capsys) -> str:
    with pytest.raises(SystemExit) as done:
        build_parser().parse_args([command, "--help"])
    assert done.value.code == 0
    return " ".join(capsys.readouterr().out.split())  # argparse wraps lines at the terminal width


def test_serve_help_describes_the_command_and_shows_the_yes_no_values(capsys):
    text = help_of("serve", capsys)
    assert "Runs the game server in the foreground" in text
    for flag in ("--limit-loopback", "--forwarded-for"):
        assert f"[{flag} {{yes,no}}]" in text and f"{flag} {{yes,no}} " in text
    assert ("apply the per-address limits to loopback too: yes or no (also true/false, on/off, 1/0, "
            "any case); default no [env CARDROOM_LIMIT_LOOPBACK]") in text
    assert "origins (scheme://host[:port], e.g. https://play.example.com)" in text


def test_demo_help_describes_the_command(capsys):
    assert "Plays a few hands of a game between its bots at its practice table" in help_of("demo", capsys)


def test_the_event_loop_is_uvloop_where_installed_unless_asked_otherwise(monkeypatch):
    import uvloop

    from server.aio import event_loop_factory

    assert event_loop_factory("auto") is uvloop.new_event_loop
    assert event_loop_factory("uvloop") is uvloop.new_event_loop
    assert event_loop_factory("asyncio") is None
    monkeypatch.setitem(sys.modules, "uvloop", None)  # as where it is not installed (Windows)
    assert event_loop_factory("auto") is None
    with pytest.raises(ImportError, match="--event-loop uvloop: the uvloop package is not installed"):
        event_loop_factory("uvloop")
