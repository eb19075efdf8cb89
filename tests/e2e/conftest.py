"""Browser tests: a real server in a subprocess, Debian's Chromium driven by Playwright.

The server runs as ``python -m server --port P --data-dir TMP`` (its own embedded Redis)
for the whole session. Chromium comes from the system (``CARDROOM_CHROMIUM``, else
Debian's ``chromium-headless-shell``, else ``chromium``: see :func:`find_chromium`);
Playwright's own browser download is never used. Without a Chromium the tests are
skipped with a clear reason, except under CI (``CI`` set), where a missing browser is an
error.

Screenshots go to ``test-results/e2e/<test name>/`` at the repository root (gitignored).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed

from client_demo.sdk.updates import RoomFollower
from client_demo.tools.loadtest.launcher import free_port

ROOT = Path(__file__).resolve().parents[2]
OUTPUT = ROOT / "test-results" / "e2e"
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 360, "height": 740}
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]


#: the system browsers the tests can drive, best first. The headless shell (Debian's
#: ``chromium-headless-shell``, the build Playwright itself runs headless) is the same Blink
#: without the browser's own interface: full Chromium's headless mode runs that interface
#: too (WebUI renderers), and a new context with a page and a screenshot costs it about 1.4 s
#: of CPU where the shell takes 0.2 s; the browser tests as a whole take a third less CPU.
CHROMIUM_CANDIDATES = ("chromium-headless-shell", "chromium", "chromium-browser")


def find_chromium() -> str | None:
    """The system Chromium to drive: ``CARDROOM_CHROMIUM``, else the first of
    :data:`CHROMIUM_CANDIDATES` found in /usr/bin or on the PATH."""
    given = os.environ.get("CARDROOM_CHROMIUM")
    if given:
        return given if Path(given).is_file() else None
    for name in CHROMIUM_CANDIDATES:
        found = f"/usr/bin/{name}" if Path(f"/usr/bin/{name}").is_file() else shutil.which(name)
        if found:
            return found
    return None


def _playwright_available() -> bool:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return False
    return True


CHROMIUM = find_chromium()
_MISSING = None
if not _playwright_available():
    _MISSING = "the playwright package is not installed (pip install -e '.[dev]')"
elif CHROMIUM is None:
    _MISSING = ("no Chromium found (apt-get install chromium-headless-shell, or chromium; "
                "or set CARDROOM_CHROMIUM)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip the browser tests, saying why, when no browser can run; never under CI."""
    here = Path(__file__).parent
    skip = pytest.mark.skipif(
        _MISSING is not None and not os.environ.get("CI"),
        reason=f"browser tests skipped: {_MISSING}",
    )
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(skip)


@pytest.fixture(scope="session", autouse=True)
def _require_browser_under_ci() -> None:
    if _MISSING is not None and os.environ.get("CI"):
        pytest.fail(f"CI is set but the browser tests cannot run: {_MISSING}", pytrace=False)


# --- the server --------------------------------------------------------------------------


class Server:
    def __init__(self, proc: subprocess.Popen[bytes], port: int, log: Path, data: Path) -> None:
        self.proc = proc
        self.port = port
        self.log = log
        self.data = data  # its --data-dir: `cardroom league` finds the embedded Redis there
        self.url = f"http://127.0.0.1:{port}/"
        self.ws_url = f"ws://127.0.0.1:{port}/ws"


@contextlib.contextmanager
def running_server(data: Path, *extra: str, env: dict[str, str] | None = None) -> Iterator[Server]:
    """``python -m server`` on a free port with its embedded Redis under ``data`` and the
    flags ``extra`` (and ``env`` added to its environment), once healthy; stopped (SIGTERM)
    on the way out."""
    port = free_port()
    log = data / "server.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "server", "--host", "127.0.0.1", "--port", str(port),
             "--data-dir", str(data), "--log-level", "WARNING", *extra],
            cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, env={**os.environ, **(env or {})},
        )
    srv = Server(proc, port, log, data)
    deadline = time.monotonic() + 30
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited with {proc.returncode}:\n{log.read_text()}")
        try:
            with urllib.request.urlopen(srv.url + "healthz", timeout=1) as r:
                if r.status == 200:
                    break
        except OSError:
            pass
        if time.monotonic() > deadline:
            proc.kill()
            raise RuntimeError(f"the server did not become healthy:\n{log.read_text()}")
        time.sleep(0.1)
    try:
        yield srv
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """The server of the browser tests (a module needing other settings overrides this
    fixture with its own :func:`running_server`)."""
    with running_server(tmp_path_factory.mktemp("server-data")) as srv:
        yield srv


# --- the browser ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One Chromium per test module. Not per session: Playwright's sync API runs an event
    loop in the main thread while it is started, and pytest-asyncio cannot start its own
    for an async test meanwhile; stopped after each module, the browser tests can run in
    any order beside the others on a ``make test`` worker."""
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=15_000)  # generous on a loaded CI machine; waits end as soon as the state is there
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield b
        b.close()


@pytest.fixture
def shots(request: pytest.FixtureRequest) -> Path:
    """This test's screenshot folder: test-results/e2e/<test name>/."""
    folder = OUTPUT / request.node.name
    folder.mkdir(parents=True, exist_ok=True)
    return folder


class PagePool:
    """The pages of a module's tests, kept for the next test instead of closed.

    A new browser context and page cost Chromium about 1.5 s of CPU on the 2-core CI
    machine, reloading a kept page about 0.4 s: with a hundred pages a run, most of the
    browser tests' cost. A kept page is a new player when it is handed out again: its
    origin's ``localStorage`` and ``sessionStorage`` are cleared once the demo has left it,
    it is resized, and it has no listeners of the test before. A page is reused only with
    the same locale, effects and init script (its context's own settings). A test that
    changes a page in a way this cannot undo (a WebSocket route, a CDP session's
    emulation) calls :func:`discard` on it."""

    def __init__(self, browser: Any, server: Server) -> None:
        self.browser = browser
        self.server = server
        self.idle: dict[tuple[str, bool, str | None], list[Any]] = {}

    def take(self, viewport: dict[str, int], locale: str, effects: bool, init_script: str | None) -> Any:
        key = (locale, effects, init_script)
        if self.idle.get(key):
            page = self.idle[key].pop()
            page.set_viewport_size(viewport)
            page._cardroom_key = key
            return page
        ctx = self.browser.new_context(viewport=viewport, device_scale_factor=1, locale=locale)
        ctx.set_default_timeout(15_000)
        if not effects:  # a preset, as a user's earlier choice would be: the switch still works
            ctx.add_init_script("try { if (!localStorage.getItem('cardroom.effects'))"
                                " localStorage.setItem('cardroom.effects', 'off'); } catch (e) {}")
        if init_script:
            ctx.add_init_script(init_script)
        page = ctx.new_page()
        page._cardroom_key = key
        return page

    def give_back(self, page: Any) -> None:
        """Keep ``page`` for another test, or close its context if it cannot be made new."""
        if page.is_closed():
            return
        if getattr(page, "_cardroom_discard", False) or page.context.pages != [page]:
            page.context.close()
            return
        try:
            # leave the demo first (it may save to storage as it goes), then clear its origin
            page.goto(self.server.url + "healthz")
            page.evaluate("() => { localStorage.clear(); sessionStorage.clear(); }")
        except Exception:
            page.context.close()
            return
        self.idle.setdefault(page._cardroom_key, []).append(page)

    def close(self) -> None:
        for pages in self.idle.values():
            for page in pages:
                page.context.close()


def discard(page: Any) -> None:
    """Do not reuse ``page`` after this test (see :class:`PagePool`)."""
    page._cardroom_discard = True


@pytest.fixture(scope="module")
def page_pool(browser: Any, server: Server) -> Iterator[PagePool]:
    pool = PagePool(browser, server)
    yield pool
    pool.close()


@pytest.fixture
def new_page(page_pool: PagePool, server: Server) -> Iterator[Callable[..., Any]]:
    """Open the demo as a new player (own localStorage), in a page of its own."""
    opened: list[tuple[Any, Callable[[Any], None]]] = []

    def open_page(viewport: dict[str, int] = DESKTOP, locale: str = "en-US", effects: bool = False,
                  init_script: str | None = None) -> Any:
        """A page of a new player. ``locale`` sets the browser's languages (the page picks
        its language from them); sound and motion are off unless ``effects``."""
        page = page_pool.take(viewport, locale, effects, init_script)
        on_error = lambda exc: errors.append(str(exc))  # noqa: E731
        page.on("pageerror", on_error)
        opened.append((page, on_error))
        page.goto(server.url)
        return page

    errors: list[str] = []
    yield open_page
    for page, on_error in opened:
        if not page.is_closed():
            page.remove_listener("pageerror", on_error)
        page_pool.give_back(page)
    assert not errors, f"JavaScript errors in the page: {errors}"


# --- scripted players (plain WebSocket clients) -----------------------------------------------


class ScriptedPlayer:
    """A player on its own thread speaking ``cardroom.json`` with the sync websockets client.

    ``policy(view)`` returns the action to take whenever the room says it is this
    player's turn (``None``: do nothing).
    """

    def __init__(self, ws_url: str, name: str, policy: Callable[[dict[str, Any]], dict[str, Any] | None]) -> None:
        from websockets.sync.client import connect

        self._stack = contextlib.ExitStack()
        self.ws = self._stack.enter_context(connect(ws_url, subprotocols=["cardroom.json"]))
        self.name = name
        self.policy = policy
        self.ref = 0
        self.lock = threading.Lock()
        self.snapshots: list[dict[str, Any]] = []
        self.errors: list[dict[str, Any]] = []
        self.acted: set[tuple[int, int]] = set()
        self.room: str | None = None
        self.follower = RoomFollower()  # updates become events + the patched snapshot
        self.crashed: Exception | None = None
        self.act_refs: set[int] = set()
        self._send({"t": "hello", "name": name})
        welcome = json.loads(self.ws.recv(timeout=10))
        assert welcome["t"] == "welcome", welcome
        self.thread = threading.Thread(target=self._loop, name=f"player {name}", daemon=True)
        self.thread.start()

    def _send(self, msg: dict[str, Any]) -> int:
        with self.lock:
            self.ref += 1
            self.ws.send(json.dumps({**msg, "ref": self.ref}))
            return self.ref

    def join(self, room: str) -> None:
        self.room = room
        self._send({"t": "join", "room": room})

    def _loop(self) -> None:
        try:
            for raw in self.ws:
                for msg in self.follower.expand(json.loads(raw)):
                    if msg["t"] == "gap":  # an update for another snapshot: ask for the room again
                        self.errors.append({"t": "error", "code": "update_gap"})
                        self._send({"t": "sync", "room": msg["room"]})
                    elif msg["t"] == "error":
                        self.errors.append(msg)
                        if msg.get("ref") in self.act_refs and self.room is not None:  # refused: decide again on the room as it is
                            self._send({"t": "sync", "room": self.room})
                    elif msg["t"] == "room":
                        self.snapshots.append(msg)
                        self._maybe_act(msg)
        except ConnectionClosed:  # the end of the test
            return
        except Exception as e:  # kept for :meth:`state`: a silent thread would stall the test
            self.crashed = e
            raise

    def _maybe_act(self, snap: dict[str, Any]) -> None:
        view = snap.get("view")
        seat = snap.get("your_seat")
        if not snap.get("playing") or view is None or seat is None or view.get("to_act") != seat:
            return
        if not view.get("legal"):
            return
        key = (snap["hand_no"], snap["version"])
        if key in self.acted:
            return
        self.acted.add(key)
        action = self.policy(view)
        if action is not None:
            self.act_refs.add(self._send({"t": "act", "room": snap["room"], "action": action,
                                          "id": f"{self.name}-{snap['hand_no']}-{snap['version']}"}))

    def state(self) -> str:
        """What this player last saw and was told, for a test's failure message."""
        last = self.snapshots[-1] if self.snapshots else {}
        view = last.get("view") or {}
        return (f"{self.name}: thread {'alive' if self.thread.is_alive() else 'ended'}"
                f"{f' ({self.crashed!r})' if self.crashed else ''}; last snapshot version "
                f"{last.get('version')} hand {last.get('hand_no')} seat {last.get('your_seat')} "
                f"to_act {view.get('to_act')} legal {view.get('legal')}; errors {self.errors[-5:]}")

    def close(self) -> None:
        self._stack.close()
        self.thread.join(5)


@pytest.fixture
def scripted(server: Server) -> Iterator[Callable[..., ScriptedPlayer]]:
    players: list[ScriptedPlayer] = []

    def make(name: str, policy: Callable[[dict[str, Any]], dict[str, Any] | None]) -> ScriptedPlayer:
        p = ScriptedPlayer(server.ws_url, name, policy)
        players.append(p)
        return p

    yield make
    for p in players:
        p.close()
