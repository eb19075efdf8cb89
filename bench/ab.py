"""Two or more builds of the server under the same load, in one run, alternating.

A figure of this project's performance work is a ratio: a build's server CPU per action
against another's (the commit a piece of work started from), measured on the same machine
in the same run, because absolute figures move with a shared machine's load. This does
that measurement from a single command::

    .venv/bin/python bench/ab.py --rev e6584f7 --rev HEAD -- --game holdem --rooms 20 --seconds 10
    .venv/bin/python bench/ab.py --rev HEAD --tree . --rounds 4 -- --rooms 250 --seats 4 --think-ms 2000
    .venv/bin/python bench/ab.py --rev HEAD --rev HEAD --servers 1,2 -- --rooms 20 --seconds 12

Each ``--rev`` (a git revision of this repository, exported with ``git archive``) or
``--tree`` (a source tree as it is, uncommitted changes too) gets its own servers,
started from its own code with ``cardroom loadtest``'s lifted limits and its own Redis
(``--servers N``: N processes sharing one; ``--servers 1,2``: one count per build, so that
one build on one process and on two compare). All are started first; then each round runs
``cardroom loadtest --url ...`` once against each build, the builds' order turning every
round. The arguments after ``--`` go to every load test unchanged. The load clients are
this tree's (``--client own``: each build's own, for builds that speak another version
of the protocol). Prints a line per load test, then per build the median server CPU per
action, its range and its ratio to the first build's median; ``--json FILE`` writes
every figure.

Every build runs on this environment's Python and packages: a build that needs others
does not start (its log tail says why). Exit status: 0, 1 if any load test failed or
reported errors, 2 for a bad command line or a build that could not be started.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from client_demo.tools.loadtest.launcher import LaunchError, LocalServers  # noqa: E402

#: how a load test is started in a source tree (works for every build that has ``cardroom loadtest``)
LOADTEST = [sys.executable, "-c", "import sys; from server.cli import main; sys.exit(main())", "loadtest"]


class Usage(Exception):
    """A command line or a build this cannot run: exit status 2."""


@dataclass
class Build:
    """One server build: its label, its source tree, and its servers once started."""

    label: str
    source: Path
    processes: int = 1
    servers: LocalServers | None = None
    runs: list[dict[str, Any]] = field(default_factory=list)

    @property
    def cpu(self) -> list[float]:
        return [r["server_cpu_us_per_action"] for r in self.runs if r.get("server_cpu_us_per_action")]


def export(rev: str, into: Path) -> Build:
    """The tree of git revision ``rev`` of this repository, written under ``into``."""
    found = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--verify", "--short", f"{rev}^{{commit}}"],
                           capture_output=True, text=True)
    if found.returncode != 0:
        raise Usage(f"no such revision in {ROOT}: {rev}")
    short = found.stdout.strip()
    tree = into / short
    label = rev if rev == short else f"{rev} ({short})"
    if tree.is_dir():  # given twice (one revision on one process and on two): exported once
        return Build(label, tree)
    tree.mkdir(parents=True)
    archive = subprocess.Popen(["git", "-C", str(ROOT), "archive", "--format=tar", short], stdout=subprocess.PIPE)
    unpacked = subprocess.run(["tar", "-x", "-C", str(tree)], stdin=archive.stdout)
    assert archive.stdout is not None
    archive.stdout.close()
    if archive.wait() != 0 or unpacked.returncode != 0:
        raise Usage(f"could not export revision {rev}")
    return Build(label, tree)


def tree(path: str) -> Build:
    """A source tree given by its path."""
    source = Path(path).resolve()
    if not (source / "server" / "__main__.py").is_file():
        raise Usage(f"not a cardroom source tree (no server/__main__.py): {path}")
    return Build(path, source)


def one_run(build: Build, client: Path, loadtest: list[str], out: Path) -> dict[str, Any]:
    """One ``cardroom loadtest`` against ``build``'s servers: its ``--json`` figures, or
    ``{"failed": reason}`` when it printed none."""
    assert build.servers is not None
    urls = [arg for url in build.servers.urls for arg in ("--url", url)]
    out.unlink(missing_ok=True)
    done = subprocess.run([*LOADTEST, *urls, *loadtest, "--json", str(out)], cwd=client,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if not out.is_file():
        tail = "\n".join(done.stderr.strip().splitlines()[-5:])
        return {"failed": f"exit status {done.returncode}: {tail or 'no output'}"}
    return json.loads(out.read_text())


def describe(figures: dict[str, Any]) -> str:
    if "failed" in figures:
        return f"FAILED ({figures['failed']})"
    cpu = figures.get("server_cpu_us_per_action")
    p99 = figures.get("ack_p99_ms")
    return (f"{cpu:7,.0f} µs/action  " if cpu else "      - µs/action  ") + \
        f"{figures.get('actions_per_s') or 0:7,.0f} actions/s  " + \
        (f"ack p99 {p99:6.1f} ms  " if p99 is not None else "ack p99      -     ") + \
        f"errors {figures.get('errors') or 'none'}"


def summary(builds: list[Build]) -> list[dict[str, Any]]:
    """Per build: the median server CPU per action, its range, its ratio to the first
    build's median, and the medians of the rate and the ack p99."""
    rows = []
    base = statistics.median(builds[0].cpu) if builds[0].cpu else None
    for build in builds:
        good = [r for r in build.runs if "failed" not in r]
        median = statistics.median(build.cpu) if build.cpu else None
        rows.append({
            "build": build.label,
            "runs": len(build.runs),
            "us_per_action_median": median,
            "us_per_action_min": min(build.cpu, default=None),
            "us_per_action_max": max(build.cpu, default=None),
            "ratio_to_first": median / base if median and base else None,
            "actions_per_s_median": statistics.median(r["actions_per_s"] for r in good) if good else None,
            "ack_p99_ms_median": statistics.median(r["ack_p99_ms"] for r in good if r.get("ack_p99_ms") is not None)
            if any(r.get("ack_p99_ms") is not None for r in good) else None,
            "failed_or_errors": sum(1 for r in build.runs if "failed" in r or r.get("errors")),
        })
    return rows


def print_summary(rows: list[dict[str, Any]], width: int) -> None:
    print("\nserver CPU per action, median (range), ratio of medians to the first build:")
    for row in rows:
        if row["us_per_action_median"] is None:
            print(f"  {row['build']:<{width}}  no figures")
            continue
        ratio = row["ratio_to_first"]
        p99 = row["ack_p99_ms_median"]
        print(f"  {row['build']:<{width}}  {row['us_per_action_median']:7,.0f} µs "
              f"({row['us_per_action_min']:,.0f}-{row['us_per_action_max']:,.0f})  "
              + (f"{ratio:5.2f}x" if ratio is not None else "    -x")
              + f"  {row['actions_per_s_median']:7,.0f} actions/s"
              + (f"  ack p99 {p99:.1f} ms" if p99 is not None else "")
              + (f"  ({row['failed_or_errors']} run(s) failed or had errors)" if row["failed_or_errors"] else ""))


def _counts(text: str) -> list[int]:
    """``--servers``: ``N`` or ``N,N,...``, each a whole number from 1."""
    try:
        counts = [int(part) for part in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a count or a comma-separated list of counts: {text!r}") from None
    if any(n < 1 for n in counts):
        raise argparse.ArgumentTypeError(f"server counts must be at least 1: {text!r}")
    return counts


def parse(argv: list[str]) -> tuple[argparse.Namespace, list[str]]:
    own, loadtest = (argv[:argv.index("--")], argv[argv.index("--") + 1:]) if "--" in argv else (argv, [])
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], usage="%(prog)s (--rev REV | --tree PATH)... [options] [-- LOADTEST ARGS]",
        epilog="Everything after -- is passed to every `cardroom loadtest` (e.g. -- --game doudizhu --rooms 20 "
               "--seconds 10); --url and --json are the tool's own.")
    parser.add_argument("--rev", dest="builds", action="append", default=[], type=lambda v: ("rev", v),
                        help="a git revision of this repository to measure (repeatable)")
    parser.add_argument("--tree", dest="builds", action="append", type=lambda v: ("tree", v),
                        help="a source tree to measure as it is (repeatable)")
    parser.add_argument("--rounds", type=int, default=3, help="load tests per build (default 3)")
    parser.add_argument("--servers", default="1", type=_counts, metavar="N[,N...]",
                        help="server processes per build, sharing one Redis: one count for every build, "
                             "or one per build in their order (default 1)")
    parser.add_argument("--client", choices=("this", "own"), default="this",
                        help="whose load test drives each build: this tree's (default) or the build's own")
    parser.add_argument("--json", metavar="FILE", help="write every figure to FILE")
    args = parser.parse_args(own)
    if len(args.builds) < 2:
        parser.error("give at least two builds (--rev REV, --tree PATH)")
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    if len(args.servers) not in (1, len(args.builds)):
        parser.error(f"--servers gives {len(args.servers)} counts for {len(args.builds)} builds: give one, or one per build")
    if any(a == "--url" or a.startswith("--url=") or a == "--json" or a.startswith("--json=") for a in loadtest):
        parser.error("--url and --json are the tool's own; give the rest of the load test's options after --")
    if any(a == "--idle-connections" or a.startswith("--idle-connections=") for a in loadtest):
        parser.error("--idle-connections measures memory, not CPU per action: run `cardroom loadtest --url ... "
                     "--idle-connections N` against each build instead")
    return args, loadtest


def main(argv: list[str] | None = None) -> int:
    try:
        args, loadtest = parse(sys.argv[1:] if argv is None else argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    tmp = Path(tempfile.mkdtemp(prefix="cardroom-ab-"))
    builds: list[Build] = []
    try:
        counts = args.servers * len(args.builds) if len(args.servers) == 1 else args.servers
        for (kind, where), processes in zip(args.builds, counts, strict=True):  # in the command line's order
            build = export(where, tmp) if kind == "rev" else tree(where)
            build.processes = processes
            if len(set(counts)) > 1:  # the same build on several counts: say which is which
                build.label += f" x{processes}"
            builds.append(build)
        width = max(len(b.label) for b in builds)
        for build in builds:
            build.servers = LocalServers(build.processes, source=str(build.source))
            print(f"starting {build.label}: {build.processes} server(s) from {build.source}", flush=True)
            build.servers.start()
        print(f"load test: cardroom loadtest --url ... {' '.join(loadtest)}", flush=True)
        for r in range(args.rounds):
            turn = r % len(builds)
            for build in builds[turn:] + builds[:turn]:
                client = build.source if args.client == "own" else ROOT
                figures = one_run(build, client, loadtest, tmp / "figures.json")
                build.runs.append(figures)
                print(f"round {r + 1}/{args.rounds}  {build.label:<{width}}  {describe(figures)}", flush=True)
    except Usage as exc:
        print(f"bench/ab.py: {exc}", file=sys.stderr)
        return 2
    except LaunchError as exc:
        print(f"bench/ab.py: a build did not start: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\ninterrupted: the figures so far", file=sys.stderr)
    finally:
        for build in builds:
            if build.servers is not None:
                build.servers.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    rows = summary(builds)
    print_summary(rows, max((len(b.label) for b in builds), default=0))
    if args.json:
        Path(args.json).write_text(json.dumps({
            "loadtest": loadtest, "rounds": args.rounds, "client": args.client,
            "builds": [{"build": b.label, "source": str(b.source), "servers": b.processes, "runs": b.runs}
                       for b in builds],
            "summary": rows,
        }, indent=1))
    return 1 if any(row["failed_or_errors"] or row["us_per_action_median"] is None for row in rows) else 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    raise SystemExit(main())
