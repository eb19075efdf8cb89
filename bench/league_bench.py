"""Does smart beat random in a long league run, and how much do duplicate deals buy?

    .venv/bin/python bench/league_bench.py --quick                # smart vs random only, ~2 min
    .venv/bin/python bench/league_bench.py --games holdem         # full Hold'em run, ~2 min
    .venv/bin/python bench/league_bench.py --markdown             # full run, all three games, ~13 min

Starts its own redis-server (a free loopback port, a temporary directory) and one
``cardroom serve`` on 127.0.0.1 (a free port), and for each game runs two leagues with the
same entrants through the real ``cardroom league create|enter|run`` commands, the entrants
being the built-in programs (``python -m client_demo.sdk.entrant``) playing over WebSocket:

* a **duplicate** league, ``--hands D``: each match plays D deals in one room per seating
  (heads-up: 2 rooms, Dou Dizhu: 3), so D x rooms hands;
* a **non-duplicate** league, ``--no-duplicate --hands D --rounds R`` (R the rooms of a
  duplicate match): each pair (or table) plays R matches of D hands in one room, the same
  number of hands as its duplicate match, every room as long as a duplicate room.

Entrants: Hold'em and Zha Jin Hua heads-up, every pair of ``smart``, ``random`` and
``station`` (the built-in ``calling_station``); Dou Dizhu, one match of ``smart`` and two
random players (``random``, ``random2``) at one table. ``--quick`` plays only the match
smart vs random(s), with few deals.

For each match it prints the first entrant's result (smart, where it plays) in the game's
unit (Hold'em bb/100, Zha Jin Hua antes per hand, Dou Dizhu points per game) with its 95%
Student's t interval, three ways (``server.league.stats``):

* (a) ``dup by deal``: the duplicate league, one sample per deal averaged over its mirrored
  rooms (``deal_samples``, what the standings show);
* (b) ``dup as indep``: the same duplicate hands, each taken as an independent sample
  (``hand_samples``);
* (c) ``no-dup``: the non-duplicate league's hands (``hand_samples``): the honest baseline,
  the same number of hands without mirrored deals;

then the ratios of the interval widths a/c and a/b (below 1: duplicate is narrower), and
whether a and c exclude zero. Below the table: each league's wall time, and the bots'
turns played by the timeout action (``timed_out`` events; they should be 0 or nearly).

Sizes (deals per match, the same in both leagues): full run Hold'em 300, Zha Jin Hua 300,
Dou Dizhu 150; ``--quick`` 40, 40 and 20; ``--deals N`` sets all. A full run of
all three games took 13.5 minutes on the 2-core dev machine (Hold'em 2.2, Zha Jin Hua 2.6,
Dou Dizhu 8.6: a game of Dou Dizhu is some 40 round trips); ``--quick``, 2 minutes. The
two leagues of a game run at the same time.

There is no ``--seed``: a league match draws its secret seed itself (``secrets``) and
reveals it only in the match record, so no two runs deal the same cards; the figures
move from run to run within their intervals. ``--workdir DIR`` keeps the leagues (match
records with their seeds, entrant logs), the Redis data and the server log.

Progress (the league runs' own lines, thinned) goes to stderr, the table to stdout. Exits
1 if a league command fails, or a match does not finish (status ``incomplete``) or lacks
some of its hands; 130 on Ctrl-C or SIGTERM (everything it started is stopped).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from client_demo.tools.bots_cli import format_table  # noqa: E402
from server.league import stats  # noqa: E402
from server.redis_embedded import redis_server_binary  # noqa: E402

#: per game: players per match, the entrants (name, built-in strategy), full and quick deals
GAMES: dict[str, dict[str, Any]] = {
    "holdem": {"seats": 2, "rooms": 2, "full": 300, "quick": 40,
               "entrants": [("smart", "smart"), ("random", "random"), ("station", "calling_station")]},
    "zhajinhua": {"seats": 2, "rooms": 2, "full": 300, "quick": 40,
                  "entrants": [("smart", "smart"), ("random", "random"), ("station", "calling_station")]},
    "doudizhu": {"seats": 3, "rooms": 3, "full": 150, "quick": 20,
                 "entrants": [("smart", "smart"), ("random", "random"), ("random2", "random")]},
}
PRETTY = {"holdem": "Hold'em", "zhajinhua": "Zha Jin Hua", "doudizhu": "Dou Dizhu"}
SERVING = re.compile(r"open http://127\.0\.0\.1:(\d+)/")
PROGRESS = re.compile(r"match (m-\w+): r-\w+ hand ")
PROGRESS_EVERY = 30.0  # seconds between passed-on progress lines of one match


class BenchError(Exception):
    """A service or a league failed: the bench stops and exits 1."""


def log(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port: int, proc: subprocess.Popen[bytes], timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise BenchError(f"redis-server exited with status {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise BenchError(f"redis-server did not listen on port {port} within {timeout:.0f} s")


def stop_process(proc: subprocess.Popen[bytes] | None, group: bool = False, grace: float = 15.0) -> None:
    """SIGTERM ``proc`` (its whole process group when ``group``), SIGKILL after ``grace`` s."""
    if proc is None or proc.poll() is not None:
        return
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 5.0)):
        with contextlib.suppress(ProcessLookupError):
            if group:
                os.killpg(proc.pid, sig)
            else:
                proc.send_signal(sig)
        try:
            proc.wait(wait)
            return
        except subprocess.TimeoutExpired:
            continue


class Services:
    """A redis-server and a ``cardroom serve`` on loopback, in ``workdir``."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.redis: subprocess.Popen[bytes] | None = None
        self.server: subprocess.Popen[bytes] | None = None
        self.redis_port = 0
        self.port = 0
        self.server_log = workdir / "server.log"

    @property
    def redis_url(self) -> str:
        return f"redis://127.0.0.1:{self.redis_port}/0"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def start(self) -> None:
        data = self.workdir / "redis"
        data.mkdir(parents=True, exist_ok=True)
        self.redis_port = free_port()
        self.redis = subprocess.Popen(
            [redis_server_binary(), "--port", str(self.redis_port), "--bind", "127.0.0.1", "--dir", str(data),
             "--appendonly", "yes", "--appendfsync", "everysec", "--save", "", "--logfile", "redis.log"],
            cwd=data, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        wait_port(self.redis_port, self.redis)
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        env.pop("REDIS_URL", None)
        with open(self.server_log, "ab") as out:
            self.server = subprocess.Popen(
                [sys.executable, "-m", "server", "--host", "127.0.0.1", "--port", "0",
                 "--redis-url", self.redis_url, "--log-level", "WARNING"],
                cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 30
        while True:
            m = SERVING.search(self.server_log.read_text(errors="replace"))
            if m:
                self.port = int(m.group(1))
                break
            if self.server.poll() is not None or time.monotonic() > deadline:
                raise BenchError("cardroom serve did not start:\n" + self.server_log_tail())
            time.sleep(0.05)
        log(f"redis-server on port {self.redis_port}, cardroom serve at {self.ws_url} (work dir {self.workdir})")

    def server_log_tail(self, chars: int = 3000) -> str:
        return self.server_log.read_text(errors="replace")[-chars:] if self.server_log.exists() else ""

    def stop(self) -> None:
        stop_process(self.server, group=True)
        self.server = None
        stop_strays(self.ws_url)
        stop_process(self.redis, group=True)
        self.redis = None


def stop_strays(ws_url: str) -> None:
    """End entrant programs of our leagues still running (a league run interrupted before
    it could end them): the processes of this user whose ``CARDROOM_URL`` is our server's,
    one by one by pid (the league run starts each in a session of its own)."""
    mark = f"CARDROOM_URL={ws_url}".encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if entry.stat().st_uid != os.getuid() or mark not in (entry / "environ").read_bytes().split(b"\0"):
                continue
            os.kill(int(entry.name), signal.SIGKILL)
        except (OSError, ValueError):
            continue


@dataclass
class LeagueRun:
    """One league of the bench: its settings, then what its run gave."""

    game: str
    name: str
    duplicate: bool
    hands: int  # the league's --hands: deals per match
    rounds: int = 1  # its run's --rounds
    records: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0
    timeouts: int = 0
    error: str | None = None

    @property
    def label(self) -> str:
        return f"{self.game} {'dup' if self.duplicate else 'no-dup'}"


def league_cli(services: Services, leagues: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """``cardroom league ARGS`` (with --dir and, where it needs Redis, --redis-url)."""
    sub = args[0]
    cmd = [sys.executable, "-m", "server.cli", "league", *args, "--dir", str(leagues),
           *([] if sub in ("create", "standings") else ["--redis-url", services.redis_url])]
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120)
    if check and out.returncode != 0:
        raise BenchError(f"cardroom league {' '.join(args)}: status {out.returncode}\n{out.stderr}{out.stdout}")
    return out


def prepare(services: Services, leagues: Path, run: LeagueRun, entrants: list[tuple[str, str]],
            seats: int, action_seconds: float) -> None:
    league_cli(services, leagues, "create", run.name, "--game", run.game, "--hands", str(run.hands),
               "--seats", str(seats), "--action-seconds", str(action_seconds),
               *([] if run.duplicate else ["--no-duplicate"]))
    for name, strategy in entrants:
        league_cli(services, leagues, "enter", run.name, "--entrant", name, "--strategy", strategy)


class Running:
    """A ``cardroom league run`` in the background, its output thinned to stderr."""

    def __init__(self, services: Services, leagues: Path, run: LeagueRun) -> None:
        self.run = run
        self.started = time.monotonic()
        self.output: list[str] = []
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "server.cli", "league", "run", run.name, "--dir", str(leagues),
             "--redis-url", services.redis_url, "--url", services.ws_url, "--rounds", str(run.rounds)],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1,
            env=dict(os.environ, PYTHONUNBUFFERED="1"), start_new_session=True)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        said: dict[str, float] = {}
        for line in self.proc.stdout:
            line = line.rstrip("\n")
            self.output.append(line)
            m = PROGRESS.search(line)
            if m:  # a match's progress every 5 s: pass one on every PROGRESS_EVERY s
                now = time.monotonic()
                if now - said.get(m.group(1), 0.0) < PROGRESS_EVERY:
                    continue
                said[m.group(1)] = now
            log(f"  [{self.run.label}] {line}")

    def wait(self) -> None:
        self.proc.wait()
        self.reader.join(5)
        self.run.seconds = time.monotonic() - self.started
        if self.proc.returncode != 0:
            self.run.error = (f"cardroom league run {self.run.name}: status {self.proc.returncode}\n"
                              + "\n".join(self.output[-20:]))

    def stop(self) -> None:
        stop_process(self.proc, group=True, grace=5.0)


def read_records(leagues: Path, run: LeagueRun) -> None:
    path = leagues / run.name / "matches.jsonl"
    run.records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()] if path.exists() else []
    bad = [r["match"] for r in run.records if r.get("status") != "done"]
    if not run.records:
        run.error = run.error or f"league {run.name}: no match record"
    elif bad:
        run.error = run.error or f"league {run.name}: match(es) not finished: {', '.join(bad)}"
    elif run.duplicate and not all(r.get("same_decks") for r in run.records):
        run.error = f"league {run.name}: a match's rooms were not dealt the same decks"
    for r in run.records:
        want = {(room["room"], deal) for room in r["rooms"] for deal in range(1, r["deals"] + 1)}
        got = {(h["room"], h["deal"]) for h in r["hands"]}
        if got != want and not run.error:
            run.error = (f"league {run.name}: match {r['match']} ({r['status']}) recorded {len(got & want)} of "
                         f"its {len(want)} hands (the rest missing from its rooms' event streams)")


def count_timeouts(services: Services, run: LeagueRun) -> None:
    """The ``timed_out`` events in the league's rooms (turns the bots did not answer in time)."""
    import redis

    from server.store import Keys, unpack

    keys = Keys("cardroom:")
    client = redis.Redis.from_url(services.redis_url)
    try:
        run.timeouts = sum(
            1 for record in run.records for room in record["rooms"]
            for _, fields in client.xrange(keys.events(room["room"]))
            for e in unpack(fields[b"e"]) if e.get("type") == "timed_out")
    finally:
        client.close()


# --- the figures ------------------------------------------------------------------------------


@dataclass
class Row:
    game: str
    match: str
    who: str
    hands: tuple[int, int]  # hands per match: duplicate league, non-duplicate league
    by_deal: stats.Interval
    dup_hands: stats.Interval
    nodup: stats.Interval
    unit: str


def compare(dup: LeagueRun, nodup: LeagueRun) -> list[Row]:
    """One row per match of the duplicate league, with the same entrants' non-duplicate
    matches (their hands pooled)."""
    unit, factor = stats.unit_of(dup.game)
    others: dict[tuple[str, ...], list[dict[str, Any]]] = {}
    for r in nodup.records:
        others.setdefault(tuple(r["entrants"]), []).append(r)
    rows = []
    for m in dup.records:
        entrants = tuple(m["entrants"])
        who = entrants[0]
        baseline = [x for r in others.get(entrants, []) for x in stats.hand_samples(r)[who]]
        rest = list(entrants[1:])
        if len(rest) == 2 and all(e.startswith("random") for e in rest):
            label = f"{who} vs 2 random"
        else:
            label = f"{who} vs {' vs '.join(rest)}"
        rows.append(Row(
            game=dup.game, match=label, who=who, hands=(len(m["hands"]), len(baseline)),
            by_deal=stats.interval(stats.deal_samples(m)[who], factor),
            dup_hands=stats.interval(stats.hand_samples(m)[who], factor),
            nodup=stats.interval(baseline, factor),
            unit=unit))
    return rows


def fmt(iv: stats.Interval, md: bool) -> str:
    if iv.n < 2:
        return "n/a"
    digits = 0 if iv.half_width >= 100 else 1 if iv.half_width >= 10 else 2
    minus = "\u2212" if md else "-"
    mean = f"{iv.mean:+,.{digits}f}".replace("-", minus)
    return f"{mean} ± {iv.half_width:,.{digits}f}"


def ratio(a: stats.Interval, b: stats.Interval) -> str:
    if a.n < 2 or b.n < 2 or b.half_width == 0:
        return "n/a"
    return f"{a.half_width / b.half_width:.2f}"


def yes(iv: stats.Interval) -> str:
    return "yes" if iv.excludes_zero else "no"


HEADERS = ["game", "match (result of the first)", "hands", "unit", "(a) dup by deal", "(b) dup as indep",
           "(c) no-dup", "width a/c", "width a/b", "excl. 0 a/c"]


def table_rows(rows: list[Row], md: bool) -> list[list[str]]:
    return [[PRETTY[r.game], r.match, f"{r.hands[0]:,}" + ("" if r.hands[0] == r.hands[1] else f"/{r.hands[1]:,}"),
             r.unit, fmt(r.by_deal, md), fmt(r.dup_hands, md), fmt(r.nodup, md),
             ratio(r.by_deal, r.nodup), ratio(r.by_deal, r.dup_hands), f"{yes(r.by_deal)}/{yes(r.nodup)}"]
            for r in rows]


# --- main -------------------------------------------------------------------------------------


def play_game(services: Services, leagues: Path, game: str, deals: int, quick: bool,
              action_seconds: float) -> tuple[LeagueRun, LeagueRun]:
    spec = GAMES[game]
    entrants = spec["entrants"][: spec["seats"]] if quick else spec["entrants"]
    dup = LeagueRun(game, f"bench-{game}-dup", True, deals)
    nodup = LeagueRun(game, f"bench-{game}-nodup", False, deals, rounds=spec["rooms"])
    for run in (dup, nodup):
        prepare(services, leagues, run, entrants, spec["seats"], action_seconds)
    log(f"{PRETTY[game]}: {', '.join(n for n, _ in entrants)}; duplicate league {deals} deals x "
        f"{spec['rooms']} rooms per match, non-duplicate league {nodup.rounds} rounds of {deals} hands in "
        f"one room per match (both at once)")
    running = [Running(services, leagues, run) for run in (dup, nodup)]
    try:
        for r in running:
            r.wait()
    finally:
        for r in running:
            r.stop()
    for run in (dup, nodup):
        read_records(leagues, run)
        if run.records:
            count_timeouts(services, run)
        log(f"{PRETTY[game]} {'duplicate' if run.duplicate else 'non-duplicate'} league: "
            f"{len(run.records)} match(es) in {run.seconds:.0f} s, {run.timeouts} turn(s) timed out")
    for run in (dup, nodup):
        if run.error:
            raise BenchError(run.error)
    return dup, nodup


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", default="holdem,zhajinhua,doudizhu",
                        help="comma-separated games to run (default all three)")
    parser.add_argument("--quick", action="store_true", help="smart vs random(s) only, few deals (~2 min)")
    parser.add_argument("--deals", type=int, default=None,
                        help="deals per match of the duplicate leagues (default: per game, see above)")
    parser.add_argument("--action-seconds", type=float, default=2.0,
                        help="the bots' turn clock (default 2; they answer in milliseconds)")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    parser.add_argument("--workdir", default=None, help="keep the leagues, Redis data and server log here")
    args = parser.parse_args(argv)
    games = [g.strip() for g in args.games.split(",") if g.strip()]
    unknown = [g for g in games if g not in GAMES]
    if unknown or not games:
        parser.error(f"--games: unknown {', '.join(unknown) or '(none)'}; known: {', '.join(GAMES)}")
    if args.deals is not None and args.deals < 2:
        parser.error("--deals must be at least 2")

    def terminate(_signo: int, _frame: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, terminate)
    workdir = Path(args.workdir).resolve() if args.workdir else Path(tempfile.mkdtemp(prefix="league-bench-"))
    workdir.mkdir(parents=True, exist_ok=True)
    leagues = workdir / "leagues"
    services = Services(workdir)
    rows: list[Row] = []
    notes: list[str] = []
    started = time.monotonic()
    status = 0
    try:
        services.start()
        for game in games:
            deals = args.deals or GAMES[game]["quick" if args.quick else "full"]
            t0 = time.monotonic()
            dup, nodup = play_game(services, leagues, game, deals, args.quick, args.action_seconds)
            rows += compare(dup, nodup)
            notes.append(f"{PRETTY[game]}: {deals} deals x {GAMES[game]['rooms']} rooms per duplicate match, "
                         f"{nodup.rounds} non-duplicate matches of {deals} hands; leagues {dup.seconds:.0f} s and "
                         f"{nodup.seconds:.0f} s (run at once, {time.monotonic() - t0:.0f} s with setup); "
                         f"turns timed out: {dup.timeouts} and {nodup.timeouts}")
    except BenchError as exc:
        log(f"league bench: {exc}")
        if services.server is not None and services.server.poll() is not None:
            log("cardroom serve exited:\n" + services.server_log_tail())
        status = 1
    except KeyboardInterrupt:
        log("league bench: interrupted")
        status = 130
    finally:
        services.stop()
        if args.workdir is None:
            shutil.rmtree(workdir, ignore_errors=True)
    if rows:
        cells = table_rows(rows, args.markdown)
        if args.markdown:
            print("| " + " | ".join(HEADERS) + " |")
            print("|" + "|".join("---" if i < 4 else "--:" for i in range(len(HEADERS))) + "|")
            for r in cells:
                print("| " + " | ".join(r) + " |")
        else:
            print(format_table(HEADERS, cells))
        print("(result of the match's first entrant, mean ± 95% half-width; a: duplicate league by deal, "
              "b: its hands as independent samples, c: non-duplicate league, same hands per match; "
              "width ratio < 1: duplicate narrower)")
        for note in notes:
            print(note)
        print(f"total {time.monotonic() - started:.0f} s{', quick' if args.quick else ''}; "
              f"action clock {args.action_seconds:g} s; no seed: each match draws its own secret one")
    return status


if __name__ == "__main__":
    sys.exit(main())
