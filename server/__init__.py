"""cardroom's game server: WebSocket protocol, lobby, room actors, timers, Redis persistence.

Start it with ``cardroom serve`` (or ``python -m server``); embed it with
:class:`server.app.App`. See ``docs/server.md`` and ``docs/protocol.md``.
"""
