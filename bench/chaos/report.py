"""The chaos soak's closing report: the faults injected and how long the rooms took to
move again after each, the players' figures, and the checks."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from .faults import KINDS, Fault
from .players import SoakPlayer


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def seconds(values: list[float]) -> str:
    if not values:
        return "-"
    return f"{pct(values, 0.5):.1f} / {pct(values, 0.99):.1f} / {max(values):.1f}"


@dataclass
class Check:
    name: str
    ok: bool
    detail: str


@dataclass
class Report:
    minutes: float
    setup: str
    faults: list[Fault]
    players: list[SoakPlayer]
    checks: list[Check] = field(default_factory=list)

    def check(self, name: str, ok: bool, detail: str) -> None:
        self.checks.append(Check(name, ok, detail))

    @property
    def failed(self) -> list[Check]:
        return [c for c in self.checks if not c.ok]

    def render(self) -> str:
        lines = [f"## Chaos soak: {self.minutes:g} minutes, {self.setup}", "",
                 "| fault | injected | lasted p50 / max (s) | every room moving again after it, p50 / p99 / max (s) |",
                 "|---|---:|---:|---:|"]
        for kind in KINDS:
            done = [f for f in self.faults if f.kind == kind]
            if not done:
                continue
            lasted = [f.ended - f.started for f in done if f.ended is not None]
            resumed = [f.resumed - f.ended for f in done if f.resumed is not None and f.ended is not None]
            lines.append(f"| {KINDS[kind][0]} (`{kind}`) | {len(done)} | {pct(lasted, 0.5):.1f} / {max(lasted):.1f} | {seconds(resumed)} |")
        everything = [f.resumed - f.ended for f in self.faults if f.resumed is not None and f.ended is not None]
        lines.append(f"| **all** | **{len(self.faults)}** | | **{seconds(everything)}** |")
        lines += ["", "(Faults overlap: a fault's figure includes whatever else was under way when it was undone. "
                  "A table moves when one of its players acts, after 0.5-2.5 s of thought.)"]
        acks = sum(len(p.acks) for p in self.players)
        waits = [w for p in self.players for w in p.waits]
        reconnect_waits = [w for p in self.players for w in p.reconnect_waits]
        errors = Counter(e.get("code") for p in self.players for e in p.errors)
        lines += [
            "",
            f"Players: {len(self.players)}; {acks:,} actions acknowledged; time from an action's first send "
            f"to its answer p50 {pct(waits, 0.5) * 1000:.0f} ms, p99 {pct(waits, 0.99):.2f} s, max {max(waits, default=0):.1f} s; "
            f"{len(reconnect_waits):,} reconnections"
            + (f" (each took p50 {pct(reconnect_waits, 0.5):.1f} s, p99 {pct(reconnect_waits, 0.99):.1f} s)" if reconnect_waits else "")
            + "; "
            f"{sum(p.resends for p in self.players):,} requests sent again with the same id; "
            f"{sum(p.took_back for p in self.players)} seats taken back (from sitting out or auto-play); {sum(p.syncs for p in self.players)} quiet syncs; "
            f"{sum(p.went_back_to for p in self.players)} snapshots older than one seen before; errors answered: "
            + (", ".join(f"{c} {n:,}" for c, n in errors.most_common()) or "none"),
            "",
            "| check | result | |",
            "|---|---|---|",
        ]
        for c in self.checks:
            lines.append(f"| {c.name} | {'ok' if c.ok else '**FAILED**'} | {c.detail} |")
        lines.append("")
        lines.append("RESULT: " + ("every check passed" if not self.failed else
                                   f"{len(self.failed)} check(s) failed: " + "; ".join(c.name for c in self.failed)))
        return "\n".join(lines)
