"""Errors every game raises, each with a stable machine-readable ``code``."""

from __future__ import annotations


class IllegalAction(Exception):
    """An action the rules do not allow now.

    ``code`` is stable and machine readable (``not_your_turn``, ``bad_amount``,
    ``not_a_valid_play``, ...); ``message`` is for people. Raising it never
    changes the state the action was tried on.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class ConfigError(ValueError):
    """A game or room option that is missing, of the wrong type or out of range.

    ``field`` names the option; ``code`` is always ``bad_config``.
    """

    code = "bad_config"

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message
