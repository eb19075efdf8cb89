"""What a new user sees of the ``cardroom`` command itself: readable help for every
subcommand and option, and one clear line (not a traceback) for a bad demo argument."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pytest

from server.cli import build_parser
from server.ops.demo import demo_command

ROOT = Path(__file__).resolve().parents[2]


def subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def test_the_top_level_help_shows_no_rst_markup(capsys):
    with pytest.raises(SystemExit):
        build_parser().parse_args(["--help"])
    out = capsys.readouterr().out
    assert "``" not in out and "The cardroom command" in out


@pytest.mark.parametrize("command", ["demo", "bots", "simulate"])
def test_every_option_of_the_bot_and_demo_commands_has_a_help_text(command, capsys):
    sub = subparsers(build_parser())[command]
    missing = [a.option_strings or a.dest for a in sub._actions if a.help is None]
    assert missing == []
    assert "``" not in sub.format_help()


@pytest.mark.parametrize("argv,message", [
    (["--players", "1"], "cardroom demo: --players must be between 2 and 10 for holdem, got 1"),
    (["--hands", "0"], "cardroom demo: --hands must be at least 1, got 0"),
])
def test_demo_rejects_a_bad_argument_with_one_clear_line(argv, message, capsys):
    args = build_parser().parse_args(["demo", *argv])
    assert demo_command(args) == 2
    out, err = capsys.readouterr()
    assert err.startswith(message) and "Traceback" not in err and out == ""


def test_bot_strength_help_is_plain_text():
    proc = subprocess.run([sys.executable, "bench/bot_strength.py", "--help"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "calling station" in proc.stdout and "``" not in proc.stdout


@pytest.mark.parametrize("command,description", [
    ("simulate", "Plays built-in bot strategies against each other through the game engines only"),
    ("bots", "Connects COUNT bot clients to a running cardroom server"),
])
def test_cardroom_simulate_and_bots_help_describe_the_command(command, description, capsys):
    with pytest.raises(SystemExit):
        build_parser().parse_args([command, "--help"])
    out = capsys.readouterr().out
    assert out.startswith(f"usage: cardroom {command} ")
    assert description in " ".join(out.split())  # the paragraph under the usage, wrapped


@pytest.mark.parametrize("argv,built", [
    (["healthcheck", "--url", "http://127.0.0.1:9/healthz", "--timeout", "0.5"], {"healthcheck"}),
    (["league", "--help"], {"league"}),
    (["bogus"], {"serve", "healthcheck", "bots", "simulate", "loadtest", "history", "verify", "league"}),
])
def test_a_command_builds_and_imports_only_what_it_runs(argv, built):
    """``cardroom healthcheck`` (run by the container every few seconds) imports neither the
    engine nor redis-py; a command defined in another module is the only one imported; a
    typo's error lists every command."""
    code = ("import sys, server.cli as c\n"
            "made = []\n"
            "build = c.build_parser\n"
            "def spy(command=None):\n"
            "    p = build(command)\n"
            "    made.extend(a for a in p._actions if a.dest == 'command')\n"
            "    return p\n"
            "c.build_parser = spy\n"
            "try:\n"
            "    c.main(sys.argv[1:])\n"
            "except SystemExit:\n"
            "    pass\n"
            "print(' '.join(sorted(made[0].choices)))\n"
            "print(' '.join(m for m in ('engine.holdem', 'redis', 'client_demo.tools.bots_cli') if m in sys.modules))\n")
    proc = subprocess.run([sys.executable, "-c", code, *argv], cwd=ROOT, capture_output=True, text=True, timeout=60)
    choices, imported = proc.stdout.splitlines()[-2:]
    assert built <= set(choices.split())
    if argv[0] == "healthcheck":
        assert set(choices.split()) == {"demo", "serve", "redis", "healthcheck"} and imported == ""
    if argv[0] == "league":
        assert "client_demo.tools.bots_cli" not in imported and "loadtest" not in choices
