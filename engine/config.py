"""Declared, validated options for games and rooms.

A game lists its options as :class:`Option` values; :func:`parse_options` turns a
mapping from a client (or a test) into a complete dict with defaults filled in, or
raises :class:`~engine.errors.ConfigError` naming the first bad field. The same
declarations document the options (``describe_options``) so docs and code agree.
:func:`config_from_arguments` reads options given on a command line (``--config``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .errors import ConfigError

#: Whole-number options without a narrower declared bound stay within +-WHOLE_LIMIT
#: (chips, blinds, stakes: far beyond any table, and safe for every store and encoding).
WHOLE_LIMIT = 10**12


@dataclass(frozen=True)
class Option:
    """One option: its name, type, default, allowed range or choices, and a sentence of doc."""

    name: str
    type: type
    default: Any
    doc: str
    min: int | float | None = None
    max: int | float | None = None
    choices: Sequence[Any] | None = None

    def parse(self, value: Any) -> Any:
        if self.type is bool:
            if not isinstance(value, bool):
                raise ConfigError(self.name, f"must be true or false, got {value!r}")
            return value
        if self.type is int:
            if isinstance(value, bool) or not isinstance(value, int):
                raise ConfigError(self.name, f"must be a whole number, got {value!r}")
            if not -WHOLE_LIMIT <= value <= WHOLE_LIMIT:
                raise ConfigError(self.name, f"must be between {-WHOLE_LIMIT} and {WHOLE_LIMIT}")
        elif self.type is float:
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ConfigError(self.name, f"must be a number, got {value!r}")
            try:
                value = float(value)
            except OverflowError:
                raise ConfigError(self.name, "is far too large") from None
            if not math.isfinite(value):
                raise ConfigError(self.name, f"must be a finite number, got {value!r}")
        elif not isinstance(value, self.type):
            raise ConfigError(self.name, f"must be a {self.type.__name__}, got {value!r}")
        if self.choices is not None and value not in self.choices:
            allowed = ", ".join(repr(c) for c in self.choices)
            raise ConfigError(self.name, f"must be one of {allowed}, got {value!r}")
        if self.min is not None and value < self.min:
            raise ConfigError(self.name, f"must be at least {self.min}, got {value!r}")
        if self.max is not None and value > self.max:
            raise ConfigError(self.name, f"must be at most {self.max}, got {value!r}")
        return value


def parse_options(options: Sequence[Option], given: Mapping[str, Any] | None) -> dict[str, Any]:
    """Validate ``given`` against ``options``; return every option with defaults filled in.

    Unknown keys are rejected so a typo never silently falls back to a default.
    """
    if given is not None and not isinstance(given, Mapping):
        raise ConfigError("config", "must be a map of option names to values")
    given = dict(given or {})
    known = {o.name for o in options}
    for key in given:
        if key not in known:
            raise ConfigError(str(key), f"unknown option (known: {', '.join(sorted(known))})")
    return {o.name: o.parse(given[o.name]) if o.name in given else o.default for o in options}


def describe_options(options: Sequence[Option]) -> list[dict[str, Any]]:
    """Plain-data description of ``options`` (for docs, the lobby UI and the protocol)."""
    out = []
    for o in options:
        d: dict[str, Any] = {"name": o.name, "type": o.type.__name__, "default": o.default, "doc": o.doc}
        if o.min is not None:
            d["min"] = o.min
        if o.max is not None:
            d["max"] = o.max
        if o.choices is not None:
            d["choices"] = list(o.choices)
        out.append(d)
    return out


def config_from_arguments(values: Sequence[str]) -> dict[str, Any]:
    """Options given on a command line (``--config``, repeatable) as one dict.

    Each value is either a JSON object (``'{"big_blind": 20, "ante": 5}'``) or one
    ``KEY=VALUE`` pair whose value is read as JSON when it parses (``20``, ``true``,
    ``[1, 2]``, ``"x"``) and kept as the plain string otherwise (``a23=lowest``). The
    values are merged in order, so a later one overrides an earlier one's key. No values
    give ``{}``. Raises :class:`~engine.errors.ConfigError` (field ``config``, a
    ``ValueError``) naming the value that is neither form. It does not check the option
    names or values themselves: the game's :func:`parse_options` does.
    """
    out: dict[str, Any] = {}
    for value in values:
        out.update(_config_argument(value))
    return out


def _config_argument(value: str) -> dict[str, Any]:
    """One ``--config`` value (a JSON object or ``KEY=VALUE``) as a dict."""
    if value.lstrip().startswith("{"):
        try:
            parsed = json.loads(value)
        except ValueError as exc:
            raise ConfigError("config", f"not a valid JSON object ({exc}): {value!r}") from None
        if not isinstance(parsed, dict):
            raise ConfigError("config", f"expected a JSON object, got {value!r}")
        return parsed
    key, sep, raw = value.partition("=")
    key = key.strip()
    if not sep or not key:
        raise ConfigError("config", f"expected KEY=VALUE or a JSON object, got {value!r}")
    try:
        return {key: json.loads(raw)}
    except ValueError:
        return {key: raw}
