"""Server settings from command-line flags and ``CARDROOM_*`` environment variables.

Precedence: flag, then environment variable, then default. ``REDIS_URL`` is also
honoured. Values are validated; :class:`SettingsError` names the bad one by its flag
(and by the environment variable, when it came from one).
"""

from __future__ import annotations

import argparse
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from .sentinel import SentinelURLError, is_sentinel_url, parse_sentinel_url


class SettingsError(ValueError):
    """A setting with a bad value. The message names the setting by its command-line flag
    (``--lease-ms must be 300..600000, got 5``); :attr:`settings` holds the
    :class:`Settings` fields it is about, so that :func:`settings_from` can add which
    environment variable a bad value came from."""

    def __init__(self, message: str, *settings: str) -> None:
        super().__init__(message)
        self.settings = settings


def flag_of(name: str) -> str:
    """The command-line flag of the setting ``name`` (``lease_ms`` -> ``--lease-ms``)."""
    return _FLAGS[name][0]


def _shown(value: object) -> str:
    return repr(value) if isinstance(value, str) else str(value)


def _check(ok: bool, name: str, expected: str, value: object) -> None:
    """Raise ``--flag must be <expected>, got <value>`` unless ``ok``."""
    if not ok:
        raise SettingsError(f"{flag_of(name)} must be {expected}, got {_shown(value)}", name)


_ORIGIN = re.compile(r"([a-z][a-z0-9+.-]*)://([a-z0-9_.-]+|\[[0-9a-f:.]+\])(?::([0-9]+))?/?")
_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}


def origin_problem(origin: str) -> str | None:
    """What is wrong with one ``--allowed-origins`` entry, or None when it is ``*`` or an
    origin as a browser sends it in its ``Origin`` header: ``scheme://host`` or
    ``scheme://host:port`` (a trailing ``/`` is tolerated), lowercase, no path, query,
    user name or default port."""
    if origin == "*":
        return None
    if "*" in origin:
        return "is a pattern: only * on its own is a wildcard (any origin)"
    match = _ORIGIN.fullmatch(origin.lower())
    if match is None:
        if re.match(r"[A-Za-z][A-Za-z0-9+.-]*://[^/?#]+[/?#].", origin):
            return "has a path or query: an origin is scheme://host[:port] only, e.g. https://play.example.com"
        return "is not an origin: write scheme://host or scheme://host:port, e.g. https://play.example.com"
    scheme, _, port = match.groups()
    if port is not None and not 1 <= int(port) <= 65535:
        return "has a port outside 1..65535"
    if port is not None and _DEFAULT_PORTS.get(scheme) == int(port):
        bare = origin.lower().rstrip("/").removesuffix(f":{port}")
        return f"names the default port, which browsers leave out: write {bare!r}"
    if origin != origin.lower():
        return f"must be lowercase, as browsers send it: write {origin.lower()!r}"
    return None


EVENT_LOOPS = ("auto", "uvloop", "asyncio")


@dataclass(frozen=True)
class Settings:
    host: str = "127.0.0.1"
    port: int = 8765
    redis_url: str | None = None
    data_dir: Path = Path("data")
    log_level: str = "INFO"
    key_prefix: str = "cardroom:"
    max_frame: int = 64 * 1024
    hard_max_frame: int = 1024 * 1024
    rate: float = 20.0
    burst: int = 40
    abuse_limit: int = 20
    send_queue: int = 256
    grant: int = 10_000
    web_dir: Path = Path(__file__).resolve().parent.parent / "client_demo" / "web"
    lease_ms: int = 3000
    room_idle_seconds: float = 60.0
    forward_timeout: float = 2.0
    redis_pool: int = 64
    redis_wait_replicas: int = 0
    redis_wait_ms: int = 1000
    node_id: str | None = None
    token_days: float = 30.0
    allowed_origins: str = ""
    max_connections_per_ip: int = 64
    new_players_per_minute: int = 30
    new_rooms_per_minute: int = 30
    limit_loopback: bool = False
    forwarded_for: bool = False
    hello_timeout: float = 15.0
    idle_timeout: float = 3600.0
    admin_token: str | None = None
    empty_room_minutes: float = 30.0
    sit_out_minutes: float = 10.0
    disconnect_auto_play_seconds: float = 15.0
    history_entries: int = 10_000
    keep_closed_days: float = 30.0
    max_league_runs: int = 4
    event_loop: str = "auto"
    auth_jwt_secret: str | None = None
    auth_jwks_url: str | None = None
    auth_issuer: str | None = None
    auth_audience: str | None = None
    auth_name_claim: str = "name"
    auth_required: bool = False
    auth_login_url: str | None = None

    def validate(self) -> Settings:
        """Return self, or raise :class:`SettingsError` naming the first bad setting by its flag."""
        _check(0 <= self.port <= 65535, "port", "0..65535", self.port)
        _check(self.log_level.upper() in ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"), "log_level",
               "DEBUG, INFO, WARNING, ERROR or CRITICAL", self.log_level)
        _check(self.max_frame >= 256, "max_frame", "at least 256 (bytes)", self.max_frame)
        if self.hard_max_frame < self.max_frame:
            raise SettingsError(f"--hard-max-frame must be at least --max-frame ({self.max_frame}), "
                                f"got {self.hard_max_frame}", "hard_max_frame", "max_frame")
        _check(0 < self.rate <= 1e9, "rate", "above 0 and at most 1000000000", self.rate)
        _check(self.burst >= 1, "burst", "at least 1", self.burst)
        _check(self.abuse_limit >= 1, "abuse_limit", "at least 1", self.abuse_limit)
        _check(self.send_queue >= 8, "send_queue", "at least 8", self.send_queue)
        _check(self.grant >= 0, "grant", "0 or more", self.grant)
        if self.redis_url is not None:
            _check(self.redis_url.startswith(("redis://", "rediss://", "unix://", "redis+sentinel://")), "redis_url",
                   "a redis://, rediss://, unix:// or redis+sentinel:// URL", self.redis_url)
            if is_sentinel_url(self.redis_url):
                try:
                    parse_sentinel_url(self.redis_url)
                except SentinelURLError as exc:
                    raise SettingsError(f"--redis-url: {exc}", "redis_url") from None
        if "{" in self.key_prefix or "}" in self.key_prefix:
            raise SettingsError("--key-prefix must not contain { or } (Redis Cluster hash tags), "
                                f"got {self.key_prefix!r}", "key_prefix")
        _check(300 <= self.lease_ms <= 600_000, "lease_ms", "300..600000", self.lease_ms)
        _check(1 <= self.room_idle_seconds <= 86_400, "room_idle_seconds", "1..86400", self.room_idle_seconds)
        _check(0.1 <= self.forward_timeout <= 60, "forward_timeout", "0.1..60", self.forward_timeout)
        _check(4 <= self.redis_pool <= 10_000, "redis_pool", "4..10000", self.redis_pool)
        _check(0 <= self.redis_wait_replicas <= 16, "redis_wait_replicas", "0..16", self.redis_wait_replicas)
        _check(10 <= self.redis_wait_ms <= 4000, "redis_wait_ms", "10..4000", self.redis_wait_ms)
        if self.redis_wait_replicas and (self.redis_url is None or self.redis_url.startswith("rediss://")):
            raise SettingsError("--redis-wait-replicas needs --redis-url: a redis://, unix:// or redis+sentinel:// "
                                "Redis with replicas (not TLS; the embedded Redis has none)", "redis_wait_replicas")
        _check(self.event_loop in EVENT_LOOPS, "event_loop", "auto, uvloop or asyncio", self.event_loop)
        for name in ("max_connections_per_ip", "new_players_per_minute", "new_rooms_per_minute"):
            _check(0 <= getattr(self, name) <= 1_000_000, name, "0 (no limit) to 1000000", getattr(self, name))
        _check(1 <= self.hello_timeout <= 3600, "hello_timeout", "1..3600 seconds", self.hello_timeout)
        _check(self.idle_timeout == 0 or 1 <= self.idle_timeout <= 7 * 86_400, "idle_timeout",
               "0 (never) or 1..604800 seconds", self.idle_timeout)
        _check(0 <= self.empty_room_minutes <= 525_600, "empty_room_minutes", "0 (never) to 525600",
               self.empty_room_minutes)
        _check(0 <= self.sit_out_minutes <= 525_600, "sit_out_minutes", "0 (never) to 525600",
               self.sit_out_minutes)
        _check(0 <= self.disconnect_auto_play_seconds <= 3600, "disconnect_auto_play_seconds",
               "0 (never) to 3600", self.disconnect_auto_play_seconds)
        _check(100 <= self.history_entries <= 10_000_000, "history_entries", "100..10000000",
               self.history_entries)
        _check(0 <= self.keep_closed_days <= 36_500, "keep_closed_days", "0 (forever) to 36500",
               self.keep_closed_days)
        _check(0 <= self.max_league_runs <= 1000, "max_league_runs", "0 (none here) to 1000",
               self.max_league_runs)
        if self.admin_token is not None and len(self.admin_token) < 16:  # never echo a secret
            raise SettingsError("--admin-token must be at least 16 characters", "admin_token")
        self._validate_auth()
        _check(0.01 <= self.token_days <= 3650, "token_days", "0.01..3650", self.token_days)
        if self.node_id is not None:
            _check(re.fullmatch(r"n-[A-Za-z0-9_.-]{1,64}", self.node_id) is not None, "node_id",
                   "n- then 1-64 letters, digits, _ . -", self.node_id)
        for origin in (o.strip() for o in self.allowed_origins.split(",")):
            problem = origin_problem(origin) if origin else None
            if problem is not None:
                raise SettingsError(f"--allowed-origins: {origin!r} {problem}", "allowed_origins")
        return self

    def _validate_auth(self) -> None:
        if self.auth_jwt_secret is not None and len(self.auth_jwt_secret) < 32:  # never echo a secret
            raise SettingsError("--auth-jwt-secret must be at least 32 characters (an HS256 key of 256 bits)",
                                "auth_jwt_secret")
        for name in ("auth_jwks_url", "auth_login_url"):
            url = getattr(self, name)
            if url is not None:
                _check(url.startswith(("https://", "http://")), name, "an https:// (or http://) URL", url)
        _check(re.fullmatch(r"[A-Za-z0-9_.:-]{1,64}", self.auth_name_claim) is not None, "auth_name_claim",
               "a claim name (1-64 letters, digits, _ . : -)", self.auth_name_claim)
        if self.auth_jwt_secret is None and self.auth_jwks_url is None:
            for name in ("auth_issuer", "auth_audience", "auth_login_url", "auth_required"):
                if getattr(self, name):
                    raise SettingsError(f"{flag_of(name)} needs --auth-jwt-secret or --auth-jwks-url "
                                        "(the keys that sign identity tokens)", name)


# setting name -> (flag, type ("bool": yes/no), help)
_FLAGS: dict[str, tuple[str, Any, str]] = {
    "host": ("--host", str, "interface to bind (default 127.0.0.1)"),
    "port": ("--port", int, "TCP port (default 8765; 0 picks a free one)"),
    "redis_url": ("--redis-url", str, "Redis URL (redis://, unix://, redis+sentinel://sentinel:26379,.../service); default: start a private redis-server under --data-dir"),
    "data_dir": ("--data-dir", Path, "directory for the embedded Redis (default ./data)"),
    "log_level": ("--log-level", str, "DEBUG, INFO, WARNING or ERROR (default INFO)"),
    "key_prefix": ("--key-prefix", str, "prefix of every Redis key (default cardroom:)"),
    "max_frame": ("--max-frame", int, "protocol frame limit in bytes; larger frames get frame_too_large (default 65536)"),
    "hard_max_frame": ("--hard-max-frame", int, "frames above this close the connection with 1009 (default 1048576)"),
    "rate": ("--rate", float, "messages per second allowed per connection (default 20)"),
    "burst": ("--burst", int, "token bucket size per connection (default 40)"),
    "abuse_limit": ("--abuse-limit", int, "rate-limited messages in a row before closing with 1008 (default 20)"),
    "send_queue": ("--send-queue", int, "messages queued for a slow client before it is disconnected (default 256)"),
    "grant": ("--grant", int, "play chips granted to a new player (default 10000)"),
    "web_dir": ("--web-dir", Path, "static files served at / (default client_demo/web)"),
    "lease_ms": ("--lease-ms", int, "room ownership lease in ms; a dead process's rooms move after about this long (default 3000)"),
    "room_idle_seconds": ("--room-idle-seconds", float, "let go of a room with nothing to do after this long (default 60)"),
    "forward_timeout": ("--forward-timeout", float, "seconds to wait for another process's answer before routing a request again (default 2)"),
    "redis_pool": ("--redis-pool", int, "Redis connections (and concurrent commands) per process (default 64)"),
    "redis_wait_replicas": ("--redis-wait-replicas", int, "acknowledge a change only once this many replicas "
                            "hold it (Redis WAIT; default 0: asynchronous replication)"),
    "redis_wait_ms": ("--redis-wait-ms", int, "how long a change waits for the replicas before it is answered "
                      "unavailable (default 1000)"),
    "node_id": ("--node-id", str, "this process's id in the cluster, n-... (default: random)"),
    "token_days": ("--token-days", float, "a session token expires after this many days unused (default 30)"),
    "allowed_origins": ("--allowed-origins", str, "comma-separated origins (scheme://host[:port], e.g. https://play.example.com) whose pages may connect besides this server's own ('*': any)"),
    "max_connections_per_ip": ("--max-connections-per-ip", int, "open connections per address (default 64; 0: no limit)"),
    "new_players_per_minute": ("--new-players-per-minute", int, "new players per address per minute (default 30; 0: no limit)"),
    "new_rooms_per_minute": ("--new-rooms-per-minute", int, "new rooms per address per minute (default 30; 0: no limit)"),
    "limit_loopback": ("--limit-loopback", "bool", "apply the per-address limits to loopback too"),
    "forwarded_for": ("--forwarded-for", "bool", "take the client address from X-Forwarded-For (set by a trusted proxy)"),
    "hello_timeout": ("--hello-timeout", float, "close a connection that has not said hello after this many seconds (default 15)"),
    "idle_timeout": ("--idle-timeout", float, "close a connection silent for this many seconds (default 3600; 0: never)"),
    "admin_token": ("--admin-token", str, "bearer token for /metrics and /admin (default none: /admin off, /metrics loopback only)"),
    "empty_room_minutes": ("--empty-room-minutes", float, "close a room nobody has sat in for this long (default 30; 0: never)"),
    "sit_out_minutes": ("--sit-out-minutes", float, "free the seat of a player who has sat out this long, their chips back to their wallet (default 10; 0: never)"),
    "disconnect_auto_play_seconds": ("--disconnect-auto-play-seconds", float, "hand a seat to auto-play once its player has had no connection for this many seconds (default 15; 0: never)"),
    "history_entries": ("--history-entries", int, "changes kept in each room's event stream, the hand history (default 10000, about 1,000 Hold'em hands)"),
    "max_league_runs": ("--max-league-runs", int, "leagues (made with league_create) this process plays at once (default 4; 0: leave them to other processes)"),
    "event_loop": ("--event-loop", str, "auto (uvloop where it is installed, else asyncio's own), uvloop or asyncio (default auto)"),
    "auth_jwt_secret": ("--auth-jwt-secret", str, "sign-in with identity tokens: the HS256 secret shared with your site's login, 32+ characters (prefer the variable to the flag)"),
    "auth_jwks_url": ("--auth-jwks-url", str, "sign-in with identity tokens: the JWKS URL of your site's RS256/ES256 public keys (cached, fetched again every 5 min and on an unknown key id)"),
    "auth_issuer": ("--auth-issuer", str, "identity tokens must carry this iss (default: not checked)"),
    "auth_audience": ("--auth-audience", str, "identity tokens must carry this aud (default: not checked)"),
    "auth_name_claim": ("--auth-name-claim", str, "the claim that holds a signed-in player's display name (default name; then preferred_username, then sub)"),
    "auth_required": ("--auth-required", "bool", "players must sign in with an identity token: no anonymous names"),
    "auth_login_url": ("--auth-login-url", str, "your site's sign-in page: the browser page links to it when sign-in is required"),
    "keep_closed_days": ("--keep-closed-days", float, "delete a closed room's snapshot and history this many days after it closed (default 30; 0: keep forever)"),
}


YES_NO_SPELLINGS = "yes or no (also true/false, on/off, 1/0, any case)"


def yes_no(text: str) -> bool:
    """A yes/no setting: yes, no, true, false, on, off, 1, 0 (any case)."""
    value = text.strip().lower()
    if value in ("yes", "true", "on", "1"):
        return True
    if value in ("no", "false", "off", "0"):
        return False
    raise ValueError(f"expected {YES_NO_SPELLINGS}, got {text!r}")


# what a flag or variable of each type must look like, for the error when it does not
_EXPECTED = {int: "a whole number", float: "a number", "bool": YES_NO_SPELLINGS}


def _convert(name: str, given: object) -> object:
    """The value of setting ``name`` from a flag's or variable's text (a value that is not
    text, e.g. a ``Path`` another command passes, is taken as it is); raises
    :class:`SettingsError` naming the flag when the text is not of the setting's type."""
    typ = _FLAGS[name][1]
    if not isinstance(given, str):
        return given
    try:
        return yes_no(given) if typ == "bool" else typ(given)
    except ValueError:
        raise SettingsError(f"{flag_of(name)} must be {_EXPECTED.get(typ, 'valid')}, got {given!r}", name) from None


def _default_word(name: str) -> str:
    default = next(f.default for f in fields(Settings) if f.name == name)
    return "yes" if default else "no"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """One option per setting, its help ending with its ``CARDROOM_*`` variable. Options
    are read as text: :func:`settings_from` converts and checks them, so that every bad
    value is one ``--flag must be ...`` line rather than argparse's usage message."""
    for name, (flag, typ, help_) in _FLAGS.items():
        env = "CARDROOM_" + name.upper()
        extra = " [env REDIS_URL or CARDROOM_REDIS_URL]" if name == "redis_url" else f" [env {env}]"
        metavar = None
        if typ == "bool":
            metavar = "{yes,no}"
            help_ = f"{help_}: {YES_NO_SPELLINGS}; default {_default_word(name)}"
        parser.add_argument(flag, dest=name, default=None, metavar=metavar, help=help_ + extra)


def _from_environment(name: str, env: Mapping[str, str]) -> tuple[str, str] | None:
    """``(variable, text)`` setting ``name`` in ``env`` (empty counts as unset), or None."""
    variables = ["CARDROOM_" + name.upper()] + (["REDIS_URL"] if name == "redis_url" else [])
    for variable in variables:
        raw = env.get(variable)
        if raw is not None and raw != "":
            return variable, raw
    return None


def settings_from(args: argparse.Namespace | None = None, environ: Mapping[str, str] | None = None) -> Settings:
    """Build validated settings: flags first, then ``CARDROOM_*`` variables, then defaults.

    A bad value raises :class:`SettingsError` naming its flag, followed by
    ``(from CARDROOM_...)`` when the value came from an environment variable."""
    env = os.environ if environ is None else environ
    values: dict[str, object] = {}
    variables: dict[str, str] = {}  # setting -> the environment variable it was read from
    try:
        for name in _FLAGS:
            given = getattr(args, name, None) if args is not None else None
            if given is None:
                found = _from_environment(name, env)
                if found is None:
                    continue
                variables[name], given = found
            values[name] = _convert(name, given)
        return Settings(**values).validate()  # type: ignore[arg-type]
    except SettingsError as exc:
        named = [variables[n] for n in exc.settings if n in variables]
        if not named:
            raise
        raise SettingsError(f"{exc} (from {', '.join(named)})", *exc.settings) from None
