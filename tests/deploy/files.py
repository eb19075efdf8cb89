"""Reading the files in deploy/ the way Docker, Compose and Kubernetes read them."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"


@dataclass
class Dockerfile:
    """The instructions of the final stage that matter for running the image."""

    env: dict[str, str] = field(default_factory=dict)
    entrypoint: list[str] = field(default_factory=list)
    healthcheck: list[str] = field(default_factory=list)
    healthcheck_options: dict[str, str] = field(default_factory=dict)
    expose: list[int] = field(default_factory=list)
    user: str | None = None
    stopsignal: str | None = None
    copies: list[str] = field(default_factory=list)  # COPY sources from the build context


def instructions(text: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) with continuation lines joined and comments dropped."""
    lines, current = [], ""
    for raw in text.splitlines():
        if raw.strip().startswith("#") and not current:
            continue
        if raw.rstrip().endswith("\\"):
            current += raw.rstrip()[:-1] + " "
            continue
        current += raw
        if current.strip():
            word, _, rest = current.strip().partition(" ")
            lines.append((word.upper(), rest.strip()))
        current = ""
    return lines


def read_dockerfile(path: Path = DEPLOY / "Dockerfile") -> Dockerfile:
    d = Dockerfile()
    for word, args in instructions(path.read_text()):
        if word == "FROM":
            d = Dockerfile(copies=d.copies)  # only the last stage is the image
        elif word == "ENV":
            for part in shlex.split(args):
                key, _, value = part.partition("=")
                d.env[key] = value
        elif word == "ENTRYPOINT":
            d.entrypoint = json.loads(args)
        elif word == "HEALTHCHECK":
            options, _, cmd = args.partition("CMD")
            d.healthcheck = json.loads(cmd)
            d.healthcheck_options = dict(o.lstrip("-").split("=") for o in options.split())
        elif word == "EXPOSE":
            d.expose = [int(p) for p in args.split()]
        elif word == "USER":
            d.user = args
        elif word == "STOPSIGNAL":
            d.stopsignal = args
        elif word == "COPY" and not args.startswith("--from"):
            d.copies += shlex.split(args)[:-1]
    return d


def dockerignore() -> list[str]:
    return [line.strip() for line in (ROOT / ".dockerignore").read_text().splitlines()
            if line.strip() and not line.startswith("#")]


def yaml_documents(path: Path) -> list[Any]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d is not None]


def compose() -> dict[str, Any]:
    return yaml_documents(DEPLOY / "docker-compose.yml")[0]


def kubernetes_files() -> list[Path]:
    k = yaml_documents(DEPLOY / "kubernetes" / "kustomization.yaml")[0]
    return [DEPLOY / "kubernetes" / r for r in k["resources"]]


def upstream_servers(path: Path) -> list[str]:
    return re.findall(r"^\s*server\s+(\S+?)(?:\s|;)", path.read_text(), re.M)


def install_as_the_image_does(directory: Path) -> Path:
    """The image's build stage short of Docker: the project installed from the files the
    Dockerfile copies and nothing else of the checkout (into ``directory/site``, which
    stands for /opt/cardroom's site-packages; the dependencies are the test venv's).
    Returns the site directory; raises AssertionError with pip's output if the build fails."""
    context, site = directory / "context", directory / "site"
    context.mkdir(parents=True)
    for src in read_dockerfile().copies:
        if (ROOT / src).is_dir():
            shutil.copytree(ROOT / src, context / src, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(ROOT / src, context / src)
    out = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-compile",
                          "--target", str(site), str(context)], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    return site
