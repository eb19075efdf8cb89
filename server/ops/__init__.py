"""Operator commands: ``cardroom history``, ``verify``, ``admin`` and ``demo``, the Redis an
operator's command finds, and the migrations a server runs at start. They sit on top of
the rest of the server (tests/test_layers.py): only the command line, the start-up and the
league's commands import them."""
