"""``cardroom ARGV...`` run by its own entry point in the test's process.

A ``python -m server.cli ...`` subprocess costs about a second of CPU before the command
starts (the interpreter, then the engine's tables that building the parser imports); the
tests that only use a command to set something up (``league create``, ``league enter``,
``league standings``) run it here instead, through the same :func:`server.cli.main`, and
get what a subprocess would give them: the exit status, stdout and stderr. Tests about a
command's process itself (signals, the programs it starts, ``python -m`` as a user types
it) still start one.
"""

from __future__ import annotations

import contextlib
import io
import subprocess
from concurrent.futures import ThreadPoolExecutor


def run_cardroom(*argv: str, timeout: float = 240) -> subprocess.CompletedProcess[str]:
    """Run ``cardroom ARGV...`` (``server.cli.main``) and return its exit status, stdout and
    stderr as :func:`subprocess.run` would. It runs in a thread of its own: the commands
    call ``asyncio.run``, which cannot run where an event loop already runs (an async
    test's). A usage error (argparse's ``SystemExit``) is its exit status; any other
    exception is raised here, as a traceback would fail the command."""
    from server.cli import main

    out, err = io.StringIO(), io.StringIO()

    def call() -> int:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                return main(list(argv))
            except SystemExit as exc:  # as the interpreter turns it into an exit status
                return 0 if exc.code is None else exc.code if isinstance(exc.code, int) else 1

    pool = ThreadPoolExecutor(1, thread_name_prefix="cardroom-cli")
    try:
        status = pool.submit(call).result(timeout)
    finally:
        pool.shutdown(wait=False)  # past the timeout: fail now, not when the command ends
    return subprocess.CompletedProcess(["cardroom", *argv], status, out.getvalue(), err.getvalue())
