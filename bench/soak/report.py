"""The fuzz soak's result: the figures, the verdict and the printed summary.

:func:`failures` is the verdict: the targets are no server crash (process exit), no
``internal_error`` reply, no traceback in the server log, and chips balanced (the chip
audit before and after, and every honest room's players holding exactly what they were
granted). Anything else found (ERROR lines without a traceback, unexpected closes,
replies the protocol document rules out, resent action ids answered differently) is
printed as a finding but does not fail the run.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

from .local import balanced


@dataclass
class HonestResult:
    """One honest room at the end: ``chips`` = its players' wallets + the seats' stacks."""

    game: str
    room: str
    players: int
    hands: int
    chips: int
    expected: int
    strangers: list[str] = field(default_factory=list)  # others who sat down (chips then move)

    @property
    def ok(self) -> bool:
        return self.strangers != [] or self.chips == self.expected


@dataclass
class SoakResult:
    """Everything the soak measured (``bench/fuzz_soak.py --json`` writes it)."""

    seed: int
    connections: int
    seconds: float = 0.0
    frames: int = 0
    bytes_sent: int = 0
    families: dict[str, int] = field(default_factory=dict)
    replies: dict[str, int] = field(default_factory=dict)
    internal_errors: int = 0
    internal_error_examples: list[dict[str, Any]] = field(default_factory=list)
    expected_closes: dict[str, int] = field(default_factory=dict)
    unexpected_closes: dict[str, int] = field(default_factory=dict)
    close_examples: list[dict[str, Any]] = field(default_factory=list)
    missing_closes: dict[str, int] = field(default_factory=dict)
    mismatches: dict[str, int] = field(default_factory=dict)
    mismatch_examples: list[dict[str, Any]] = field(default_factory=list)
    replay_mismatches: list[dict[str, Any]] = field(default_factory=list)
    undecodable: int = 0
    sessions: int = 0
    handshakes_refused: int = 0
    connect_failures: dict[str, int] = field(default_factory=dict)
    crashed: bool = False
    exit_code: int | None = None
    server_alive_at_end: bool = True
    error_lines: list[str] = field(default_factory=list)
    tracebacks: dict[str, int] = field(default_factory=dict)  # final line -> count
    traceback_examples: list[str] = field(default_factory=list)
    warnings: int = 0
    audit_before: dict[str, int] | None = None
    audit_after: dict[str, int] | None = None
    honest: list[HonestResult] = field(default_factory=list)
    honest_errors: dict[str, int] = field(default_factory=dict)
    honest_acks: int = 0
    log_checked: bool = True

    @property
    def traceback_count(self) -> int:
        return sum(self.tracebacks.values())

    def to_json(self) -> str:
        data = asdict(self)
        data["failures"] = failures(self)
        return json.dumps(data, indent=2, default=str)


def failures(r: SoakResult) -> list[str]:
    """Why the run fails its targets (empty: it passes)."""
    out = []
    if r.crashed or not r.server_alive_at_end:
        out.append(f"server crashed (exit status {r.exit_code})" if r.crashed else "server not answering at the end")
    if r.internal_errors:
        out.append(f"{r.internal_errors} internal_error replies")
    if r.traceback_count:
        out.append(f"{r.traceback_count} tracebacks in the server log")
    for name, audit in (("before", r.audit_before), ("after", r.audit_after)):
        if audit is not None and not balanced(audit):
            out.append(f"chip audit {name} does not balance: {audit}")
    for h in r.honest:
        if not h.ok:
            out.append(f"honest room {h.room} ({h.game}) holds {h.chips} chips, expected {h.expected}")
    if r.unexpected_closes:
        out.append(f"unexpected closes {_counts(r.unexpected_closes)}")
    if r.missing_closes:
        out.append(f"provoked closes that never came: {_counts(r.missing_closes)}")
    if r.mismatches:
        out.append(f"{sum(r.mismatches.values())} replies not as docs/protocol.md says")
    if r.replay_mismatches:
        out.append(f"{len(r.replay_mismatches)} resent action ids answered anew")
    if r.undecodable:
        out.append(f"{r.undecodable} undecodable replies")
    if r.frames == 0:
        out.append("no frame was sent")
    return out


def _counts(counts: dict[str, int], limit: int = 40) -> str:
    if not counts:
        return "none"
    items = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    shown = ", ".join(f"{k} {v:,}" for k, v in items[:limit])
    return shown + (f", ... ({len(items) - limit} more)" if len(items) > limit else "")


def format_report(r: SoakResult) -> str:
    """The summary printed at the end of a run."""
    rows = [
        ("seed, connections", f"{r.seed}, {r.connections} fuzzing connection slots, {r.sessions:,} connections opened"),
        ("seconds", f"{r.seconds:.1f}"),
        ("frames sent", f"{r.frames:,} ({r.bytes_sent / 1e6:.1f} MB, {r.frames / max(r.seconds, 1e-9):,.0f}/s)"),
        ("frames by family", _counts(r.families)),
        ("replies by code", _counts(r.replies)),
        ("internal_error", f"{r.internal_errors}"),
        ("expected closes", _counts(r.expected_closes)),
        ("unexpected closes", _counts(r.unexpected_closes)),
        ("provoked closes missing", _counts(r.missing_closes)),
        ("handshakes refused", f"{r.handshakes_refused} (no known subprotocol offered: HTTP 400, as documented)"),
        ("connect failures", _counts(r.connect_failures)),
        ("undecodable replies", f"{r.undecodable}"),
        ("replies against the doc", _counts(r.mismatches, 12)),
        ("resent ids answered anew", f"{len(r.replay_mismatches)}"),
        ("server crash", "yes" if r.crashed else "no" + ("" if r.server_alive_at_end else " (but not answering)")),
        ("server exit status", f"{r.exit_code}"),
        ("log ERROR lines", f"{len(r.error_lines)}" if r.log_checked else "not checked (--url without --server-log)"),
        ("log tracebacks", f"{r.traceback_count}" if r.log_checked else "not checked"),
        ("log warnings", f"{r.warnings}"),
        ("chip audit before", _audit(r.audit_before)),
        ("chip audit after", _audit(r.audit_after)),
        ("honest players", f"{r.honest_acks:,} actions acked, errors: {_counts(r.honest_errors)}"),
    ]
    for h in r.honest:
        state = "ok" if h.chips == h.expected else ("others sat down" if h.strangers else "WRONG")
        rows.append((f"  {h.game} {h.room}", f"{h.hands} hands, {h.players} players hold {h.chips:,} "
                                            f"of {h.expected:,} chips: {state}"))
    width = max(len(k) for k, _ in rows)
    lines = ["== fuzz soak =="] + [f"{k.ljust(width)}  {v}" for k, v in rows]
    lines += _details(r)
    verdict = failures(r)
    lines.append("RESULT: " + ("PASS" if not verdict else "FAIL: " + "; ".join(verdict)))
    return "\n".join(lines)


def _audit(audit: dict[str, int] | None) -> str:
    if audit is None:
        return "not checked (no Redis URL)"
    state = "balanced" if balanced(audit) else "NOT BALANCED"
    return (f"grants {audit['grants']:,} = wallets {audit['wallets']:,} + tables {audit['tables']:,}"
            f" + pending {audit['pending']:,}: {state}")


def _details(r: SoakResult) -> list[str]:
    """Examples of every finding, for reproductions."""
    out: list[str] = []
    sections = (
        ("internal_error examples", r.internal_error_examples),
        ("unexpected close examples", r.close_examples),
        ("replies against the doc, examples", r.mismatch_examples),
        ("resent action ids answered with another version", r.replay_mismatches),
    )
    for title, items in sections:
        if items:
            out.append(f"-- {title}:")
            out += [f"   {json.dumps(item, default=str, ensure_ascii=True)[:1200]}" for item in items]
    if r.error_lines:
        out.append("-- server log lines at ERROR (first 20):")
        out += [f"   {line[:300]}" for line in r.error_lines[:20]]
    if r.tracebacks:
        out.append("-- tracebacks by exception:")
        out += [f"   {n} x {last[:300]}" for last, n in sorted(r.tracebacks.items(), key=lambda kv: -kv[1])]
        for tb in r.traceback_examples:
            out.append("-- traceback:")
            out += [f"   {line}" for line in tb.splitlines()[-30:]]
    return out
