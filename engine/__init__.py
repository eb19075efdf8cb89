"""Pure rules for cardroom's games.

Nothing here does I/O, touches a clock or draws randomness: decks are passed in,
state is plain data, and every decision is a function of its arguments.
"""
