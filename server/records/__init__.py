"""Records of what was played: hand histories from a room's event stream, the verification
of fair deals, a player's record."""
