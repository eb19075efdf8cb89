"""Requests that are not a room's own: the lobby (identity, the room list, creating rooms,
spectating, routing a room's requests to its owner) and quick matching."""
