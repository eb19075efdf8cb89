"""A league on disk: ``<dir>/<name>/league.json`` (its settings and entrants, with their
session tokens: mode 0600, in a directory of mode 0700) and ``matches.jsonl`` (one record
per match played, appended).

Plain files keep a league inspectable and portable: the operator owns them, the server's
Redis holds only the rooms and hands the matches played.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
PRIVATE_DIR = 0o700  # a league's directory: its files hold session tokens
PRIVATE_FILE = 0o600  # league.json, and the entrants' program logs (a program may print its token)


def keep_private(path: Path, mode: int) -> None:
    """Take from ``path`` every permission bit that ``mode`` does not have (a league.json
    of mode 0644 becomes 0600, a directory of 0755 becomes 0700); nothing is added, and a
    path that is missing or not ours to change is left as it is."""
    try:
        current = path.stat().st_mode & 0o777
        if current & ~mode:
            path.chmod(current & mode)
    except OSError:
        pass


class LeagueError(Exception):
    """A one-line error for ``cardroom league`` (exit status 1, or 2 for bad usage)."""

    def __init__(self, message: str, status: int = 1) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class Entrant:
    """One entrant, played in one of three ways: a program the runner starts for each seat
    (``command``, or a built-in ``strategy`` run by ``python -m client_demo.sdk.entrant``); the
    room's own server-side bot (``bot``: a built-in ``strategy`` entered into a league the
    server runs); or, with none of these, a client that entered over the protocol, stays
    connected and is told of each seat (``league_seat`` messages)."""

    name: str
    player: str  # the server's player id the entrant plays as
    token: str  # its session token (what its program says hello with; "" when none is kept)
    strategy: str | None = None  # a built-in engine.bots strategy, or
    command: str | None = None  # a program to start for each seat (CARDROOM_URL/TOKEN/ROOM set)
    bot: bool = False  # the room plays ``strategy`` itself, as a bot seat

    @property
    def client(self) -> bool:
        """An entrant that plays its seats over its own connections (told of each seat)."""
        return not (self.bot or self.command or self.strategy)


@dataclass
class League:
    name: str
    game: str
    seats: int  # players per match (and per room)
    hands: int  # deals per match
    stack: int  # every seat's stack at the start of each hand
    unit: int  # chips of one result unit: the big blind, the ante, the stake
    action_seconds: float
    duplicate: bool = True
    config: dict[str, Any] = field(default_factory=dict)
    entrants: list[Entrant] = field(default_factory=list)
    # "deals": stacks reset every hand, results in chips; "sng": a Hold'em sit-and-go,
    # stacks kept, blinds by ``levels`` ([small, big], ``level_hands`` hands each), results
    # in finishing places; ``hands`` is then a safety cap
    format: str = "deals"
    levels: list[list[int]] = field(default_factory=list)
    level_hands: int = 10
    # a league created over the protocol is kept in Redis and run by the servers: the
    # player id of its creator, who alone may enter built-ins and run it (None: a league on
    # files, run by ``cardroom league run``)
    owner: str | None = None

    def entrant(self, name: str) -> Entrant:
        for e in self.entrants:
            if e.name == name:
                return e
        raise LeagueError(f"league {self.name} has no entrant {name!r}")


class LeagueDir:
    """The leagues under one directory."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    def path(self, name: str) -> Path:
        if not NAME.match(name):
            raise LeagueError(f"a league name is 1-64 letters, digits, '_', '.' or '-' (got {name!r})", 2)
        return self.root / name

    def exists(self, name: str) -> bool:
        return (self.path(name) / "league.json").is_file()

    def load(self, name: str) -> League:
        """The league ``name``; its directory and league.json are made private first if
        they are not (:func:`keep_private`: left so by an older version or a copy)."""
        file = self.path(name) / "league.json"
        if not file.is_file():
            raise LeagueError(f"no league {name!r} in {self.root} (create it with cardroom league create)")
        keep_private(file.parent, PRIVATE_DIR)
        keep_private(file, PRIVATE_FILE)
        data = json.loads(file.read_text())
        data["entrants"] = [Entrant(**e) for e in data.get("entrants", ())]
        return League(**data)

    def save(self, league: League) -> None:
        """Write league.json (mode 0600, in its directory of mode 0700) whole, by a rename."""
        folder = self.path(league.name)
        folder.mkdir(parents=True, exist_ok=True, mode=PRIVATE_DIR)
        keep_private(folder, PRIVATE_DIR)  # (mkdir leaves an existing directory's mode alone)
        file = folder / "league.json"
        tmp = file.with_suffix(".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, PRIVATE_FILE)  # it holds session tokens
        os.fchmod(fd, PRIVATE_FILE)  # (a .tmp left by an earlier crash keeps its mode otherwise)
        with os.fdopen(fd, "w") as out:
            json.dump(asdict(league), out, indent=1)
        tmp.replace(file)

    def matches(self, name: str) -> list[dict[str, Any]]:
        file = self.path(name) / "matches.jsonl"
        if not file.is_file():
            return []
        return [json.loads(line) for line in file.read_text().splitlines() if line.strip()]

    def add_match(self, name: str, record: dict[str, Any]) -> None:
        with open(self.path(name) / "matches.jsonl", "a") as out:
            out.write(json.dumps(record, separators=(",", ":")) + "\n")
