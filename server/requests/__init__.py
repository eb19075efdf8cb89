"""Requests that are not a room's own: the lobby (each request to its handler, a room's to its
owner), who a hello speaks for (identity), the shared room list and its watchers, quick
matching."""
