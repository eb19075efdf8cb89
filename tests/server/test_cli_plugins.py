"""``cardroom`` subcommands found through the ``cardroom.commands`` entry point group
(server/cli.py, ``COMMANDS``): the project's own client commands come that way (the
server package never imports the client package), and so does a command of any other
installed package (that a command imports only its own module is in
tests/bots/test_cli_help.py)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _run(argv: list[str], path: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    if path is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(path), env.get("PYTHONPATH", "")])
    return subprocess.run([sys.executable, "-c", "import sys; from server.cli import main; sys.exit(main())",
                           *argv], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)


def test_an_installed_package_adds_a_command(tmp_path):
    """A distribution with an entry in the group (here one on PYTHONPATH, as an installed
    one is) gives ``cardroom`` its command: listed in the help and run by name."""
    (tmp_path / "hello_cmd.py").write_text(textwrap.dedent('''
        def add_command(sub):
            p = sub.add_parser("hello", help="say hello")
            p.add_argument("--to", default="world")
            p.set_defaults(func=lambda args: print(f"hello, {args.to}") or 3)
    '''))
    info = tmp_path / "hello_cmd-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: hello-cmd\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[cardroom.commands]\nhello = hello_cmd:add_command\n")

    ran = _run(["hello", "--to", "cardroom"], tmp_path)
    assert (ran.returncode, ran.stdout, ran.stderr) == (3, "hello, cardroom\n", "")
    listed = _run(["--help"], tmp_path)
    assert listed.returncode == 0 and "hello" in listed.stdout and "loadtest" in listed.stdout
    assert "hello" not in _run(["--help"]).stdout  # without the package, no such command

