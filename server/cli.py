"""The ``cardroom`` command: one entry point, one subcommand per job."""

from __future__ import annotations

import argparse
import sys


def _demo(args: argparse.Namespace) -> int:
    from .demo import run_demo

    run_demo(hands=args.hands, players=args.players, seed=args.seed)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cardroom", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    demo = sub.add_parser("demo", help="play a short Hold'em session between engine players in the terminal")
    demo.add_argument("--hands", type=int, default=5)
    demo.add_argument("--players", type=int, default=4)
    demo.add_argument("--seed", type=int, default=None, help="shuffle seed (default: random)")
    demo.set_defaults(func=_demo)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
