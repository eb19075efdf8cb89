"""The README's promises stay true: the quick start, and every game option listed."""

import json
import re
from pathlib import Path

import pytest

from server.games import GAMES

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")


def test_quick_start_is_exactly_make_run_and_make_test():
    first_block = re.search(r"```\n(.*?)```", README, re.S).group(1)
    commands = [line.split("#")[0].strip() for line in first_block.splitlines() if line.strip()]
    assert commands == ["make run", "make test"]


@pytest.mark.parametrize("game", GAMES.values(), ids=lambda g: g.name)
def test_every_game_option_is_in_the_readme_with_its_default(game):
    for option in game.describe()["options"]:
        row = f"| `{option['name']}` | `{json.dumps(option['default'])}` |"
        assert row in README, f"README lacks the {game.name} option row starting {row!r}"


def test_the_scaling_out_commands_are_real_commands():
    import shlex

    from server.cli import build_parser

    block = README.split("## Scaling out", 1)[1].split("```")[3]  # the second code block
    lines = [line for line in block.splitlines() if line.startswith(".venv/bin/cardroom")]
    assert [shlex.split(line)[1] for line in lines] == ["redis", "serve", "serve", "serve"]
    for line in lines:
        build_parser().parse_args(shlex.split(line)[1:])  # exits on an unknown flag


def test_the_community_room_command_is_a_valid_server_setup():
    import shlex

    from server.cli import build_parser
    from server.config import settings_from

    block = README.split("## Running a community room", 1)[1].split("```", 2)[1]
    command = block.replace("\\\n", " ").splitlines()[-1].strip()
    argv = shlex.split(command)
    assert argv[:2] == [".venv/bin/cardroom", "serve"]
    settings = settings_from(build_parser().parse_args(argv[1:]), {"CARDROOM_AUTH_JWT_SECRET": "x" * 32})
    assert settings.auth_required and settings.auth_login_url == "https://club.example/login"


def test_the_operator_commands_of_the_readme_are_real_commands():
    import shlex

    from server.cli import build_parser

    block = README.split("## Running a community room", 1)[1].split("```")[3]  # the second code block
    lines = [line for line in block.splitlines() if line.startswith(".venv/bin/cardroom")]
    assert len(lines) == 4
    for line in lines:
        args = build_parser("admin").parse_args(shlex.split(line)[1:])  # exits on an unknown flag
        assert args.command == "admin"
