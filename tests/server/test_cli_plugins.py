"""``cardroom`` subcommands found through the ``cardroom.commands`` entry point group
(server/cli.py, ``COMMANDS``): the project's own client commands come that way (the
server package never imports the client package), and so does a command of any other
installed package (that a command imports only its own module is in
tests/bots/test_cli_help.py)."""

from __future__ import annotations

import textwrap

from tests.plugins import cardroom, install


def test_an_installed_package_adds_a_command(tmp_path):
    """A distribution with an entry in the group (here one on PYTHONPATH, as an installed
    one is) gives ``cardroom`` its command: listed in the help and run by name."""
    install(tmp_path, "[cardroom.commands]\nhello = hello_cmd:add_command\n", {"hello_cmd": textwrap.dedent('''
        def add_command(sub):
            p = sub.add_parser("hello", help="say hello")
            p.add_argument("--to", default="world")
            p.set_defaults(func=lambda args: print(f"hello, {args.to}") or 3)
    ''')}, name="hello-cmd")

    ran = cardroom(tmp_path, "hello", "--to", "cardroom")
    assert (ran.returncode, ran.stdout, ran.stderr) == (3, "hello, cardroom\n", "")
    listed = cardroom(tmp_path, "--help")
    assert listed.returncode == 0 and "hello" in listed.stdout and "loadtest" in listed.stdout
    assert "hello" not in cardroom(None, "--help").stdout  # without the package, no such command

