"""The server tests' fixtures (a session's embedded Redis, a server in this process), for
the tests of bench/ parts that need them."""

from tests.server.conftest import make_app, prefix, redis_url  # noqa: F401 - pytest finds them here
