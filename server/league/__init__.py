"""Bot leagues: duplicate matches between registered entrants, results and ratings
(``cardroom league``; see docs/league.md)."""
