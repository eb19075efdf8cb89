"""A league entrant program: a built-in strategy playing the seat ``cardroom league run``
gave it (see docs/league.md).

``cardroom league run`` starts one per seat of a match with ``CARDROOM_URL``,
``CARDROOM_TOKEN`` and ``CARDROOM_ROOM`` set; a bot author's own program does the same
with :func:`client_demo.sdk.bot.play_seat`::

    python -m client_demo.sdk.entrant --game holdem --strategy smart

A seat it cannot play ends it with one line on stderr (its log, which ``league run``
quotes) and exit status 1: ``entrant: cannot connect to URL: reason`` when no server
answers there, ``entrant: URL: ...`` for any other failure (the session refused, no seat
showing in the room); status 2 when ``league run``'s variables are missing.

With ``--league NAME`` it is instead a bot that stays connected: it enters a league the
servers run (made with ``league_create``) and plays every seat of its matches
(:func:`client_demo.sdk.bot.play_league`) until stopped::

    python -m client_demo.sdk.entrant --game holdem --strategy smart --league friday --name Ada
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import Callable

from websockets.exceptions import WebSocketException

from engine.bots import games

from .bot import StrategyBot, play_league, play_seat
from .client import ConnectionLost, ServerError


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m client_demo.sdk.entrant", description=__doc__.split("\n\n")[0])
    p.add_argument("--game", required=True, choices=games())
    p.add_argument("--strategy", default="smart", help="an engine.bots strategy of the game (default smart)")
    p.add_argument("--seed", type=int, default=None, help="seed of the strategy's random choices")
    p.add_argument("--quiet", action="store_true", help="print nothing")
    p.add_argument("--league", help="enter this league (one the servers run) and play its matches until stopped")
    p.add_argument("--url", default=None, help="with --league: the server (default $CARDROOM_URL or the make run "
                                               "server's ws://127.0.0.1:8765/ws)")
    p.add_argument("--name", default=None, help="with --league: a new player's name (default the strategy's)")
    p.add_argument("--token", default=None, help="with --league: play as this session's player [env CARDROOM_TOKEN]")
    p.add_argument("--entrant", default=None, help="with --league: the name in the standings (default the player's)")
    args = p.parse_args(argv)
    bot = StrategyBot(args.game, args.strategy, args.seed)
    log = None if args.quiet else (lambda line: print(line, file=sys.stderr, flush=True))
    if args.league:
        url = args.url or os.environ.get("CARDROOM_URL", "ws://127.0.0.1:8765/ws")
        try:
            asyncio.run(play_league(bot, args.league, url, name=args.name or args.strategy,
                                    token=args.token or os.environ.get("CARDROOM_TOKEN"), entrant=args.entrant,
                                    log=log))
        except KeyboardInterrupt:
            return 0
        except (OSError, ServerError) as exc:
            print(f"entrant: {exc}", file=sys.stderr)
            return 1
        return 0
    return _play_seat(bot, log)


def _play_seat(bot: StrategyBot, log: Callable[[str], None] | None) -> int:
    """Play the seat ``cardroom league run`` gave this program (``CARDROOM_*``); the exit
    status, with one line on stderr when the seat could not be played."""
    url = os.environ.get("CARDROOM_URL", "")
    try:
        asyncio.run(play_seat(bot, log=log))
    except KeyError as exc:
        print(f"entrant: {exc.args[0]} is not set (cardroom league run sets it)", file=sys.stderr)
        return 2
    except (ConnectionLost, ServerError, TimeoutError) as exc:  # dropped for good, refused, no seat in time
        print(f"entrant: {url}: {exc}", file=sys.stderr)
        return 1
    except (OSError, WebSocketException) as exc:  # nothing answers there, or not a cardroom server
        print(f"entrant: cannot connect to {url}: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
