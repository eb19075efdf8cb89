"""A room's provably fair deals (docs/fairness.md, :mod:`engine.fairness`): each hand's deck
derived from a seed committed to the hand before and the players' own seeds, its proof
kept in ``table.fair``; a league match's rooms derive theirs from the match's seed, the same
deal in every room of the match. What players may see of a proof, and when."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from engine import fairness
from engine.game import Game

if TYPE_CHECKING:
    from .table import Table


def fair_deal(table: Table, game: Game, ready: Sequence[int], new_seed: Callable[[], str]
              ) -> tuple[list[int], dict[str, Any]]:
    """The next hand's deck and its proof: the committed seed (``table.next_seed``, or a
    fresh one for a table that has none yet) and the client seeds of the ``ready`` seats,
    by seat number. A fresh ``new_seed()`` is committed to for the hand after."""
    if table.league is not None:
        return _league_deal(table, game)
    seed = table.next_seed or new_seed()
    table.next_seed = new_seed()
    seeds = [{"seat": i, "seed": table.seats[i].seed or ""} for i in ready]  # type: ignore[union-attr]
    deck = fairness.derive_deck(seed, table.room, table.hand_no + 1, [s["seed"] for s in seeds], game.deck_size)
    proof = {"scheme": fairness.SCHEME, "commitment": fairness.commitment(seed), "seeds": seeds,
             "deck_size": game.deck_size, "server_seed": seed}
    return deck, proof


def _league_deal(table: Table, game: Game) -> tuple[list[int], dict[str, Any]]:
    """A league room's deck: deal n of its match (:func:`engine.fairness.match_hand_seed`),
    derived with the match id as ``context`` and no client seeds, the same in every room
    of the match."""
    league = table.league
    assert league is not None
    deal = table.hand_no + 1
    seed = fairness.match_hand_seed(league.seed, league.match, deal)
    table.next_seed = fairness.match_hand_seed(league.seed, league.match, deal + 1)
    deck = fairness.derive_deck(seed, league.match, deal, [], game.deck_size)
    proof = {"scheme": fairness.SCHEME, "commitment": fairness.commitment(seed), "seeds": [],
             "deck_size": game.deck_size, "server_seed": seed, "context": league.match}
    return deck, proof


def public_proof(fair: dict[str, Any], reveal: bool) -> dict[str, Any]:
    """What players may see of a hand's proof: all of it once the hand is over, the
    seed excepted before."""
    return dict(fair) if reveal else {k: v for k, v in fair.items() if k != "server_seed"}


def next_commitment(table: Table) -> str | None:
    """The commitment to the seed of the table's next hand."""
    return fairness.commitment(table.next_seed) if table.next_seed else None
