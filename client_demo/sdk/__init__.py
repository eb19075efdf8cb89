"""The Python SDK: a client for the cardroom protocol, and bots that play over it::

    from client_demo.sdk import Bot, CardroomClient, ServerError, play

``client``   :class:`CardroomClient`: one connection and one player, requests that wait
             for their reply, reconnection and resume (docs/bots.md, "The SDK")
``updates``  following a room by its ``update`` messages (:class:`RoomFollower`)
``bot``      the :class:`Bot` interface and its runners: :func:`play` (a room),
             :func:`play_seat` (the seat a league match gives), :func:`play_league`
``entrant``  a league entrant program: ``python -m client_demo.sdk.entrant``
"""

from .bot import Bot, BotStats, StrategyBot, play, play_league, play_seat
from .client import CardroomClient, ConnectionLost, ServerError
from .updates import RoomFollower, apply_patch

__all__ = ["Bot", "BotStats", "CardroomClient", "ConnectionLost", "RoomFollower", "ServerError", "StrategyBot",
           "apply_patch", "play", "play_league", "play_seat"]
