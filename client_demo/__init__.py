"""cardroom's clients: they speak the protocol (docs/protocol.md) and nothing of the server.

``sdk/``    the Python SDK and bots: :class:`~client_demo.sdk.CardroomClient` (one
            connection, one player), following a room by its updates, the ``Bot``
            interface and its runners, the league entrant program
``web/``    the browser page the server serves at ``/`` (static files, no build step)
``tools/``  the commands built on the SDK: ``cardroom bots`` and ``cardroom simulate``
            (``tools/bots_cli.py``), ``cardroom loadtest`` (``tools/loadtest/``)
"""
