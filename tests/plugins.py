"""Installing a game package for a test the way pip would, without pip: its modules (or
its source folder) and a ``*.dist-info`` with its entry points, on a ``PYTHONPATH`` the
test's child processes get. (The suite's own environment stays as ``make test`` made it:
the three built-in games only.)"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from engine.registry import GROUP

ROOT = Path(__file__).resolve().parents[1]


def install(where: Path, entries: str, modules: dict[str, str] | None = None, name: str = "cardroom-plugin") -> Path:
    """A distribution ``name`` with ``entries`` (its entry_points.txt) and ``modules`` (file
    name without ``.py`` -> source) in ``where``."""
    where.mkdir(parents=True, exist_ok=True)
    for module, text in (modules or {}).items():
        (where / f"{module}.py").write_text(text)
    info = where / f"{name.replace('-', '_')}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(entries)
    return where


def cardroom(pythonpath: str | Path | None, *argv: str) -> subprocess.CompletedProcess[str]:
    """``cardroom argv...`` in a child process that finds the packages on ``pythonpath``
    (None: as the suite's environment has it)."""
    env = dict(os.environ)
    if pythonpath is not None:
        env["PYTHONPATH"] = str(pythonpath)
    return subprocess.run([sys.executable, "-c", "import sys; from server.cli import main; sys.exit(main())", *argv],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)


def install_leduc(where: Path) -> str:
    """examples/leduc as ``pip install -e examples/leduc`` would leave it: its entry point
    (read from its pyproject.toml) and its source folder; the PYTHONPATH to use."""
    import tomllib

    project = tomllib.loads((ROOT / "examples" / "leduc" / "pyproject.toml").read_text())["project"]
    games = project["entry-points"][GROUP]
    entries = f"[{GROUP}]\n" + "".join(f"{k} = {v}\n" for k, v in games.items())
    install(where, entries, name=project["name"])
    return os.pathsep.join([str(where), str(ROOT / "examples" / "leduc")])
