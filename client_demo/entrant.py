"""A league entrant program: a built-in strategy playing the seat ``cardroom league run``
gave it (see docs/league.md).

``cardroom league run`` starts one per seat of a match with ``CARDROOM_URL``,
``CARDROOM_TOKEN`` and ``CARDROOM_ROOM`` set; a bot author's own program does the same
with :func:`client_demo.bot.play_seat`::

    python -m client_demo.entrant --game holdem --strategy smart
"""

from __future__ import annotations

import argparse
import asyncio
import sys

from .bot import StrategyBot, play_seat


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m client_demo.entrant", description=__doc__.split("\n\n")[0])
    p.add_argument("--game", required=True, choices=("holdem", "zhajinhua", "doudizhu"))
    p.add_argument("--strategy", default="smart", help="an engine.bots strategy of the game (default smart)")
    p.add_argument("--seed", type=int, default=None, help="seed of the strategy's random choices")
    p.add_argument("--quiet", action="store_true", help="print nothing")
    args = p.parse_args(argv)
    bot = StrategyBot(args.game, args.strategy, args.seed)
    log = None if args.quiet else (lambda line: print(line, file=sys.stderr, flush=True))
    try:
        asyncio.run(play_seat(bot, log=log))
    except KeyError as exc:
        print(f"entrant: {exc.args[0]} is not set (cardroom league run sets it)", file=sys.stderr)
        return 2
    except TimeoutError as exc:
        print(f"entrant: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
