"""The import rules of ARCHITECTURE.md ("Layers"), read from the source: every ``import``
and ``from ... import`` of every module of ``engine``, ``server``, ``client_demo`` and the
example game ``leduc``, relative ones resolved, inside functions too (a deferred import is
still a dependency)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: the packages read, by import name: where each one's folder is
PACKAGES = {"engine": ROOT / "engine", "server": ROOT / "server", "client_demo": ROOT / "client_demo",
            "leduc": ROOT / "examples" / "leduc" / "leduc"}


def _module(package: str, path: Path) -> str:
    parts = [package, *path.relative_to(PACKAGES[package]).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports() -> Iterator[tuple[str, str]]:
    """``(module, what it imports)`` for every import in :data:`PACKAGES`; a ``from X
    import name`` yields ``X.name`` too (``name`` may be a module)."""
    for package, folder in PACKAGES.items():
        for path in sorted(folder.rglob("*.py")):
            module = _module(package, path)
            here = module if path.name == "__init__.py" else module.rpartition(".")[0]
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if isinstance(node, ast.Import):
                    for alias in node.names:
                        yield module, alias.name
                elif isinstance(node, ast.ImportFrom):
                    base = node.module or ""
                    if node.level:
                        parent = here.split(".")[: len(here.split(".")) - node.level + 1]
                        base = ".".join(parent + ([node.module] if node.module else []))
                    yield module, base
                    for alias in node.names:
                        yield module, f"{base}.{alias.name}"


def _within(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


# (what the rule says, the importing modules, what they may not import, modules exempt)
RULES = [
    ("the engine is pure: no server, client, asyncio, Redis or network",
     ("engine",), ("server", "client_demo", "bench", "asyncio", "redis", "websockets", "socket"), ()),
    ("the server never imports the client package (its commands are entry points)",
     ("server",), ("client_demo", "bench", "tests"), ()),
    ("the client package (SDK, bots, web page, load test) speaks the protocol only",
     ("client_demo",), ("server", "bench", "tests"), ()),
    ("the SDK and bots stand alone: the commands built on them (client_demo/tools) are above them",
     ("client_demo.sdk",), ("client_demo.tools",), ()),
    ("the store knows Redis keys and scripts, not rooms, routing, requests or connections",
     ("server.store",), ("server.room", "server.cluster", "server.requests", "server.records", "server.league",
                         "server.ops", "server.app", "server.cli", "server.edge"), ()),
    ("the edge (transport, codec, messages, sessions) knows no room, route, request or store",
     ("server.edge",), ("server.room", "server.cluster", "server.requests", "server.records", "server.league",
                        "server.ops", "server.store", "server.app", "server.cli"), ()),
    ("a room knows neither routing nor requests nor connections: it renders to viewers (room/viewers.py)",
     ("server.room",), ("server.cluster", "server.requests", "server.league", "server.ops", "server.app",
                        "server.cli", "server.edge.transport", "server.edge.session", "server.edge.gate",
                        "server.edge.codec"), ()),
    ("records read what was played: they answer no request and route nothing",
     ("server.records",), ("server.requests", "server.cluster", "server.ops", "server.app", "server.cli",
                           "server.edge.session", "server.edge.transport"), ()),
    ("a game shipped as a package of its own (examples/leduc) needs the engine only",
     ("leduc",), ("server", "client_demo", "bench", "asyncio", "redis", "websockets", "socket"), ()),
    ("operator commands sit on top: only the command line, the start-up and the league's commands use them",
     ("engine", "server", "client_demo"), ("server.ops",),
     ("server.ops", "server.cli", "server.app", "server.league.cli")),
]


@pytest.mark.parametrize("rule,importers,forbidden,exempt", RULES, ids=[r[0] for r in RULES])
def test_imports_point_one_way(rule, importers, forbidden, exempt):
    broken = sorted({f"{module} imports {name}" for module, name in imports()
                     if _within(module, importers) and not _within(module, exempt)
                     and _within(name, forbidden)})
    assert broken == [], rule


def test_the_rules_see_relative_and_deferred_imports():
    """The reader resolves ``from ..room import table`` and finds imports inside functions
    (a rule that saw neither would pass for nothing)."""
    found = set(imports())
    assert ("server.ops.migrate", "server.room.table") in found  # from ..room import table as tbl
    assert ("server.cli", "server.app") in found  # inside _serve
    assert ("server.ops.history_cli", "redis") in found
    assert ("leduc", "engine.game") in found
    assert ("client_demo.tools.loadtest.conn", "client_demo.sdk.updates") in found  # from ...sdk.updates


def _answer_exits() -> set[tuple[str, str]]:
    """``(module, how)`` for every place in ``server`` that answers a waiting request:
    claims it from the connections (``.claim(...)``) or sends an answer to another
    process's inbox (a ``{"k": "ans", ...}`` message)."""
    found = set()
    for path in sorted(PACKAGES["server"].rglob("*.py")):
        module = _module("server", path)
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "claim"):
                found.add((module, "claim"))
            elif isinstance(node, ast.Dict) and any(
                    isinstance(k, ast.Constant) and k.value == "k" and isinstance(v, ast.Constant) and v.value == "ans"
                    for k, v in zip(node.keys, node.values, strict=True)):
                found.add((module, "ans"))
    return found


def test_answers_leave_one_way():
    """A request is answered through ``server.room.delivery`` only (ARCHITECTURE.md, "The
    life of an act"): no other module claims a waiting request or sends an answer to
    another process. The reader finds both where they are (it can fail)."""
    found = _answer_exits()
    assert {("server.room.delivery", "claim"), ("server.room.delivery", "ans")} <= found
    assert {module for module, _ in found} == {"server.room.delivery"}
