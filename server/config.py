"""Server settings from command-line flags and ``CARDROOM_*`` environment variables.

Precedence: flag, then environment variable, then default. ``REDIS_URL`` is also
honoured. Values are validated; :class:`SettingsError` names the bad one.
"""

from __future__ import annotations

import argparse
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any


class SettingsError(ValueError):
    """A setting with a bad value."""


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
    history_entries: int = 10_000
    keep_closed_days: float = 30.0
    max_league_runs: int = 4

    def validate(self) -> Settings:
        if not 0 <= self.port <= 65535:
            raise SettingsError(f"port must be 0..65535, got {self.port}")
        if self.log_level.upper() not in ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"):
            raise SettingsError(f"log_level must be DEBUG, INFO, WARNING, ERROR or CRITICAL, got {self.log_level!r}")
        if self.max_frame < 256:
            raise SettingsError(f"max_frame must be at least 256 bytes, got {self.max_frame}")
        if self.hard_max_frame < self.max_frame:
            raise SettingsError("hard_max_frame must be at least max_frame")
        if not 0 < self.rate <= 1e9 or self.burst < 1 or self.abuse_limit < 1:
            raise SettingsError("rate must be > 0 (and finite), burst and abuse_limit at least 1")
        if self.send_queue < 8:
            raise SettingsError(f"send_queue must be at least 8, got {self.send_queue}")
        if self.grant < 0:
            raise SettingsError("grant must not be negative")
        if self.redis_url is not None and not self.redis_url.startswith(("redis://", "rediss://", "unix://")):
            raise SettingsError(f"redis_url must start with redis://, rediss:// or unix://, got {self.redis_url!r}")
        if "{" in self.key_prefix or "}" in self.key_prefix:
            raise SettingsError("key_prefix must not contain { or } (Redis Cluster hash tags)")
        if not 300 <= self.lease_ms <= 600_000:
            raise SettingsError(f"lease_ms must be 300..600000, got {self.lease_ms}")
        if not 1 <= self.room_idle_seconds <= 86_400:
            raise SettingsError(f"room_idle_seconds must be 1..86400, got {self.room_idle_seconds}")
        if not 0.1 <= self.forward_timeout <= 60:
            raise SettingsError(f"forward_timeout must be 0.1..60, got {self.forward_timeout}")
        if not 4 <= self.redis_pool <= 10_000:
            raise SettingsError(f"redis_pool must be 4..10000, got {self.redis_pool}")
        for name in ("max_connections_per_ip", "new_players_per_minute", "new_rooms_per_minute"):
            if not 0 <= getattr(self, name) <= 1_000_000:
                raise SettingsError(f"{name} must be 0 (no limit) to 1000000, got {getattr(self, name)}")
        if not 1 <= self.hello_timeout <= 3600:
            raise SettingsError(f"hello_timeout must be 1..3600 seconds, got {self.hello_timeout}")
        if not (self.idle_timeout == 0 or 1 <= self.idle_timeout <= 7 * 86_400):
            raise SettingsError(f"idle_timeout must be 0 (never) or 1..604800 seconds, got {self.idle_timeout}")
        if not 0 <= self.empty_room_minutes <= 525_600:
            raise SettingsError(f"empty_room_minutes must be 0 (never) to 525600, got {self.empty_room_minutes}")
        if not 100 <= self.history_entries <= 10_000_000:
            raise SettingsError(f"history_entries must be 100..10000000, got {self.history_entries}")
        if not 0 <= self.keep_closed_days <= 36_500:
            raise SettingsError(f"keep_closed_days must be 0 (forever) to 36500, got {self.keep_closed_days}")
        if not 0 <= self.max_league_runs <= 1000:
            raise SettingsError(f"max_league_runs must be 0 (none here) to 1000, got {self.max_league_runs}")
        if self.admin_token is not None and len(self.admin_token) < 16:
            raise SettingsError("admin_token must be at least 16 characters")
        if not 0.01 <= self.token_days <= 3650:
            raise SettingsError(f"token_days must be 0.01..3650, got {self.token_days}")
        if self.node_id is not None and not re.fullmatch(r"n-[A-Za-z0-9_.-]{1,64}", self.node_id):
            raise SettingsError(f"node_id must be n- then 1-64 letters, digits, _ . -, got {self.node_id!r}")
        return self


# setting name -> (flag, type ("bool": yes/no), help)
_FLAGS: dict[str, tuple[str, Any, str]] = {
    "host": ("--host", str, "interface to bind (default 127.0.0.1)"),
    "port": ("--port", int, "TCP port (default 8765; 0 picks a free one)"),
    "redis_url": ("--redis-url", str, "Redis URL (redis://, unix://); default: start a private redis-server under --data-dir"),
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
    "node_id": ("--node-id", str, "this process's id in the cluster, n-... (default: random)"),
    "token_days": ("--token-days", float, "a session token expires after this many days unused (default 30)"),
    "allowed_origins": ("--allowed-origins", str, "comma-separated origins whose pages may connect besides this server's own ('*': any)"),
    "max_connections_per_ip": ("--max-connections-per-ip", int, "open connections per address (default 64; 0: no limit)"),
    "new_players_per_minute": ("--new-players-per-minute", int, "new players per address per minute (default 30; 0: no limit)"),
    "new_rooms_per_minute": ("--new-rooms-per-minute", int, "new rooms per address per minute (default 30; 0: no limit)"),
    "limit_loopback": ("--limit-loopback", "bool", "apply the per-address limits to loopback too (default no)"),
    "forwarded_for": ("--forwarded-for", "bool", "take the client address from X-Forwarded-For (set by a trusted proxy; default no)"),
    "hello_timeout": ("--hello-timeout", float, "close a connection that has not said hello after this many seconds (default 15)"),
    "idle_timeout": ("--idle-timeout", float, "close a connection silent for this many seconds (default 3600; 0: never)"),
    "admin_token": ("--admin-token", str, "bearer token for /metrics and /admin (default none: /admin off, /metrics loopback only)"),
    "empty_room_minutes": ("--empty-room-minutes", float, "close a room nobody has sat in for this long (default 30; 0: never)"),
    "history_entries": ("--history-entries", int, "changes kept in each room's event stream, the hand history (default 10000, about 1,000 Hold'em hands)"),
    "max_league_runs": ("--max-league-runs", int, "leagues (made with league_create) this process plays at once (default 4; 0: leave them to other processes)"),
    "keep_closed_days": ("--keep-closed-days", float, "delete a closed room's snapshot and history this many days after it closed (default 30; 0: keep forever)"),
}


def yes_no(text: str) -> bool:
    """A yes/no setting: yes, no, true, false, on, off, 1, 0 (any case)."""
    value = text.strip().lower()
    if value in ("yes", "true", "on", "1"):
        return True
    if value in ("no", "false", "off", "0"):
        return False
    raise ValueError(f"expected yes or no, got {text!r}")


def _parser(typ: Any) -> Any:
    return yes_no if typ == "bool" else typ


def add_arguments(parser: argparse.ArgumentParser) -> None:
    for name, (flag, typ, help_) in _FLAGS.items():
        env = "CARDROOM_" + name.upper()
        extra = " [env REDIS_URL or CARDROOM_REDIS_URL]" if name == "redis_url" else f" [env {env}]"
        parser.add_argument(flag, dest=name, type=_parser(typ), default=None, help=help_ + extra)


def settings_from(args: argparse.Namespace | None = None, environ: Mapping[str, str] | None = None) -> Settings:
    """Build validated settings: flags first, then ``CARDROOM_*`` variables, then defaults."""
    env = os.environ if environ is None else environ
    values: dict[str, object] = {}
    types = {f.name: _parser(_FLAGS[f.name][1]) for f in fields(Settings) if f.name in _FLAGS}
    for name, typ in types.items():
        given = getattr(args, name, None) if args is not None else None
        if given is None:
            raw = env.get("CARDROOM_" + name.upper())
            if raw is None and name == "redis_url":
                raw = env.get("REDIS_URL")
            if raw is not None and raw != "":
                try:
                    given = typ(raw)
                except ValueError:
                    raise SettingsError(f"CARDROOM_{name.upper()}: cannot read {raw!r}") from None
        if given is not None:
            values[name] = given
    return Settings(**values).validate()  # type: ignore[arg-type]
