"""No game is named outside its own package (ARCHITECTURE.md, "Where a game's code lives"):
the engine outside the games' packages (``engine/``: the contract, the registry, fair
decks, the bots' API and arena), the server (``server/``), the SDK, bots and load test (``client_demo/``, Python) and the
browser page (``client_demo/web/``, all but each game's own table module in ``games/``)
decide nothing by a game's name. Everything they know of a game comes through its ``Game``
(and, in the page, the lobby's descriptors and the game's table module).

Read from the syntax tree, so prose may still use a game as its example (a docstring, a help
text, a comment: "Hold'em's big blind"): what counts is a string that *is* a game's name
(``"holdem"``, as a key, a default or in a comparison) or an import of a game's package
(``engine.holdem``). The games checked are the ones the suite's environment has installed
(the three built-in games), their packages those their entry points name.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from importlib.metadata import entry_points
from pathlib import Path

from engine.registry import GROUP

ROOT = Path(__file__).resolve().parents[1]
#: Python folders that must name no game (but in the games' own packages inside them)
FOLDERS = (ROOT / "engine", ROOT / "server", ROOT / "client_demo")
WEB = ROOT / "client_demo" / "web"
GAMES = {ep.name: ep.value.partition(":")[0] for ep in entry_points(group=GROUP)}
#: the folders of the games' own packages in this repository (``engine/holdem``, ...)
OWN = [ROOT.joinpath(*package.split(".")) for package in GAMES.values()]


def _modules() -> Iterator[Path]:
    """The Python modules of :data:`FOLDERS` outside the games' own packages."""
    for folder in FOLDERS:
        for path in sorted(folder.rglob("*.py")):
            if not any(path.is_relative_to(own) for own in OWN):
                yield path


def _named(path: Path) -> Iterator[tuple[int, str]]:
    """``(line, what)`` for each game named in the Python module at ``path``."""
    tree = ast.parse(path.read_text(), str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in GAMES:
            yield node.lineno, repr(node.value)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                yield from _package(node.lineno, alias.name)
        elif isinstance(node, ast.ImportFrom) and not node.level:
            named = list(_package(node.lineno, node.module or ""))
            for alias in node.names if not named else ():
                named += _package(node.lineno, f"{node.module}.{alias.name}")
            yield from named


def _package(line: int, module: str) -> Iterator[tuple[int, str]]:
    for package in GAMES.values():
        if module == package or module.startswith(package + "."):
            yield line, f"import of {module}"
            return


#: a game's name in quotes in the page's JavaScript ("holdem", 'doudizhu', `zhajinhua`)
QUOTED = re.compile("[\"'`]({})[\"'`]".format("|".join(map(re.escape, GAMES))))


#: a game's name as a class in the page's stylesheet (``.game-holdem``, ``.game-tile.doudizhu``)
STYLED = re.compile(r"\.(?:game-)?({})\b".format("|".join(map(re.escape, GAMES))))


def _styled(path: Path) -> Iterator[tuple[int, str]]:
    text = path.read_text()
    for m in STYLED.finditer(text):
        yield text.count("\n", 0, m.start()) + 1, m.group(0)


def _quoted(path: Path) -> Iterator[tuple[int, str]]:
    text = path.read_text()
    for m in QUOTED.finditer(text):
        yield text.count("\n", 0, m.start()) + 1, m.group(0)


def test_the_suite_knows_the_games_it_checks_for():
    assert {"holdem", "zhajinhua", "doudizhu"} <= set(GAMES), GAMES
    assert GAMES["holdem"] == "engine.holdem"


def test_no_python_module_of_the_engine_the_server_or_the_clients_names_a_game():
    modules = list(_modules())
    assert ROOT / "engine" / "bots" / "arena.py" in modules and ROOT / "engine" / "holdem" / "bots.py" not in modules
    found = [f"{path.relative_to(ROOT)}:{line}: {what}" for path in modules for line, what in _named(path)]
    assert not found, "a game named outside its package:\n" + "\n".join(found)


def test_the_browser_page_names_a_game_only_in_that_games_table_module():
    found = [f"{path.relative_to(ROOT)}:{line}: {what}" for path in sorted(WEB.glob("*.js"))
             for line, what in _quoted(path)]
    assert not found, "the page names a game outside games/<name>.js:\n" + "\n".join(found)


def test_the_page_styles_a_game_only_in_that_games_stylesheet():
    """Each game's tile and table styles are its own (``games/<name>.css``, linked with its
    table module), not the page's stylesheet's."""
    sheets = sorted(WEB.glob("*.css"))
    assert WEB / "style.css" in sheets
    found = [f"{path.relative_to(ROOT)}:{line}: {what}" for path in sheets for line, what in _styled(path)]
    assert not found, "the page's stylesheet styles a game by name:\n" + "\n".join(found)


def test_the_check_finds_a_game_named_in_code(tmp_path):
    """The checks can fail: a decision by name, an import of a game, a quoted name in a page."""
    module = tmp_path / "m.py"
    module.write_text('"""Hold\'em\'s big blind (prose)."""\nfrom engine.holdem import GAME\n'
                      'import engine.doudizhu.plays\nfrom engine import zhajinhua\n'
                      'def f(game):\n    return game == "holdem"\n')
    assert [line for line, _ in _named(module)] == [2, 3, 4, 6]
    page = tmp_path / "p.js"
    page.write_text('// a holdem table\nconst ICON = { holdem: "x" };\nif (game === "doudizhu") go();\n')
    assert list(_quoted(page)) == [(3, '"doudizhu"')]
    sheet = tmp_path / "s.css"
    sheet.write_text(".game-tile { color: red; }\n.game-tile.zhajinhua { color: red; }\n.game-holdem .seat { }\n")
    assert list(_styled(sheet)) == [(2, ".zhajinhua"), (3, ".game-holdem")]
