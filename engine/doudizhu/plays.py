"""Dou Dizhu plays: kinds, house-rule options, O(1) classification and comparison.

A play is described by its rank counts (see :mod:`engine.doudizhu.ranks`): suits and
card order never matter. Every legal play under a :class:`Rules` value is generated
once (the default rules' table at import, about 0.1 s; others at first use) into a
dict keyed by the 15-tuple of rank counts, so
:func:`classify` is a single dict lookup after the counts are taken. Under the
default rules the table holds 27,471 plays.

Kinds (``Play.kind``); ``rank`` is the rank compared, ``length`` the chain length:

=================  ===========================================  =======================
kind               shape                                        rank / length
=================  ===========================================  =======================
``solo``           one card                                     its rank / 1
``pair``           two of a rank (never the two jokers)         its rank / 1
``trio``           three of a rank                              its rank / 1
``trio_solo``      trio + one card of another rank              trio rank / 1
``trio_pair``      trio + a pair of another rank                trio rank / 1
``solo_chain``     >= 5 consecutive ranks within 3..A           lowest rank / #ranks
``pair_chain``     >= 3 consecutive pairs within 3..A           lowest rank / #pairs
``airplane``       >= 2 consecutive trios within 3..A           lowest rank / #trios
``airplane_solo``  airplane + one card per trio ("wings")       lowest rank / #trios
``airplane_pair``  airplane + one pair per trio                 lowest rank / #trios
``four_two_solo``  four of a rank + two cards                   four's rank / 1
``four_two_pair``  four of a rank + two pairs                   four's rank / 1
``bomb``           four of a rank                               its rank / 1
``rocket``         both jokers                                  14 / 1
=================  ===========================================  =======================

No play exceeds 20 cards. Kickers never count in comparisons.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, fields
from functools import lru_cache
from itertools import combinations_with_replacement

from .ranks import (
    ACE,
    BLACK_JOKER_RANK,
    MAX_COUNT,
    NUM_RANKS,
    RANK_NAMES,
    RED_JOKER_RANK,
    Counts,
    to_counts,
)

MAX_PLAY_CARDS = 20

SOLO = "solo"
PAIR = "pair"
TRIO = "trio"
TRIO_SOLO = "trio_solo"
TRIO_PAIR = "trio_pair"
SOLO_CHAIN = "solo_chain"
PAIR_CHAIN = "pair_chain"
AIRPLANE = "airplane"
AIRPLANE_SOLO = "airplane_solo"
AIRPLANE_PAIR = "airplane_pair"
FOUR_TWO_SOLO = "four_two_solo"
FOUR_TWO_PAIR = "four_two_pair"
BOMB = "bomb"
ROCKET = "rocket"

# When a house rule makes one multiset readable as two plays, the kind earlier in
# this tuple wins, then the higher rank. Under the default rules no multiset has two
# readings.
KINDS: tuple[str, ...] = (
    ROCKET, BOMB, SOLO_CHAIN, PAIR_CHAIN, AIRPLANE, AIRPLANE_PAIR, AIRPLANE_SOLO,
    FOUR_TWO_PAIR, FOUR_TWO_SOLO, TRIO_PAIR, TRIO_SOLO, TRIO, PAIR, SOLO,
)
_PRIORITY = {kind: i for i, kind in enumerate(KINDS)}

# Shortest and longest chain of each chain kind (longest: 12 ranks 3..A or 20 cards).
CHAIN_LENGTHS: dict[str, tuple[int, int]] = {
    SOLO_CHAIN: (5, 12),
    PAIR_CHAIN: (3, 10),
    AIRPLANE: (2, 6),
    AIRPLANE_SOLO: (2, 5),
    AIRPLANE_PAIR: (2, 4),
}
# Cards of the main rank(s) in each kind, per main rank.
MAIN_COUNT: dict[str, int] = {
    SOLO: 1, PAIR: 2, TRIO: 3, TRIO_SOLO: 3, TRIO_PAIR: 3, SOLO_CHAIN: 1, PAIR_CHAIN: 2,
    AIRPLANE: 3, AIRPLANE_SOLO: 3, AIRPLANE_PAIR: 3, FOUR_TWO_SOLO: 4, FOUR_TWO_PAIR: 4,
    BOMB: 4, ROCKET: 1,
}


@dataclass(frozen=True)
class Rules:
    """House-rule options for which plays are legal.

    Every option but ``four_with_two`` is ``False`` by default, and the defaults are
    the rule set most widely used engines agree on (27,471 distinct plays):

    ``four_with_two`` (True)
        Four of a rank may carry two cards (``four_two_solo``) or two pairs
        (``four_two_pair``). False forbids both kinds.
    ``jokers_as_kickers`` (False)
        Both jokers may be kickers of the same play (``3333BR``, ``333444BR``).
        By default at most one joker is a kicker.
    ``joker_pair_as_kicker`` (False)
        The two jokers may serve as one *pair* kicker (``333BR``, ``33334455BR``).
        By default the jokers are never a pair.
    ``kicker_matches_main`` (False)
        A kicker may have the rank of a trio of the same play (``33334445`` as an
        airplane of 34 with wings 3 and 5). Only airplane wings can do this.
    ``airplane_solo_wings_distinct`` (False)
        Solo wings must all differ in rank. By default two or three wings may share
        a rank (``33344455``; ``333444555888``).
    ``airplane_solo_wings_allow_four`` (False)
        Four wings may share a rank (``3334445556669999``: chain 3..6, wings ``9999``).
        Three or four wings of the rank next to the chain still need
        ``airplane_solo_wings_allow_adjacent_trio``.
    ``airplane_solo_wings_allow_adjacent_trio`` (False)
        Three wings may share a rank next to the chain (``3334445556667778`` as chain
        4..7 with wings 333 and 8). A pure airplane still wins: ``333444555666`` is
        always an airplane of 4.
    ``bomb_as_two_pairs`` (False)
        Four of a rank may count as two pair kickers (``33335555`` as four-with-two-pairs,
        ``3334445555`` as an airplane with pairs). Pair kickers otherwise differ in rank.
    ``four_two_solo_distinct_kickers`` (False)
        The two kickers of ``four_two_solo`` must differ in rank. By default they may
        be a pair (``333355``).
    """

    four_with_two: bool = True
    jokers_as_kickers: bool = False
    joker_pair_as_kicker: bool = False
    kicker_matches_main: bool = False
    airplane_solo_wings_distinct: bool = False
    airplane_solo_wings_allow_four: bool = False
    airplane_solo_wings_allow_adjacent_trio: bool = False
    bomb_as_two_pairs: bool = False
    four_two_solo_distinct_kickers: bool = False

    @classmethod
    def from_dict(cls, options: dict[str, bool]) -> Rules:
        """Rules from a mapping of option names to bools; raises ``ValueError`` otherwise."""
        names = {f.name for f in fields(cls)}
        for key, value in options.items():
            if key not in names:
                raise ValueError(f"unknown Dou Dizhu rule option {key!r}")
            if type(value) is not bool:
                raise ValueError(f"rule option {key!r} must be a bool, got {value!r}")
        return cls(**options)

    def to_dict(self) -> dict[str, bool]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


DEFAULT_RULES = Rules()


@dataclass(frozen=True, slots=True)
class Play:
    """One legal play, independent of suits and card order.

    ``kind`` is one of :data:`KINDS`; ``rank`` the main rank compared (lowest rank of a
    chain); ``length`` the number of distinct main ranks of a chain kind (1 otherwise);
    ``counts`` the 15 rank counts (the canonical key). ``str(play)`` is the rank string
    with the main ranks first, then the kickers: ``"33344455"``, ``"AAA33"``.
    """

    kind: str
    rank: int
    length: int
    counts: Counts

    @property
    def size(self) -> int:
        """Number of cards."""
        return sum(self.counts)

    @property
    def main_counts(self) -> Counts:
        """The rank counts of the main part (the chain, trio, four, ...) without kickers."""
        main = [0] * NUM_RANKS
        if self.kind == ROCKET:
            main[BLACK_JOKER_RANK] = main[RED_JOKER_RANK] = 1
        else:
            for r in range(self.rank, self.rank + self.length):
                main[r] = MAIN_COUNT[self.kind]
        return tuple(main)

    @property
    def kicker_counts(self) -> Counts:
        """The rank counts of the kickers (all zero for kinds without kickers)."""
        return tuple(n - m for n, m in zip(self.counts, self.main_counts, strict=True))

    @property
    def cards(self) -> str:
        """The rank string, main ranks first: same as ``str(play)``."""
        return _rank_string(self)

    def __str__(self) -> str:
        return self.cards


@lru_cache(maxsize=8192)
def _rank_string(play: Play) -> str:
    """:attr:`Play.cards` of the plays met lately: the legal plays of the seat to act are
    written out on every change, mostly the same ones again."""
    return _format_parts(play.main_counts, play.kicker_counts)


def _format_parts(main: Counts, kickers: Counts) -> str:
    return "".join(RANK_NAMES[r] * n for r, n in enumerate(main)) + "".join(
        RANK_NAMES[r] * n for r, n in enumerate(kickers)
    )


# --------------------------------------------------------------------------- table


def _kicker_sets(
    ranks: Sequence[int], size: int, limit: Sequence[int]
) -> Iterator[dict[int, int]]:
    """Multisets of ``size`` kicker ranks from ``ranks``, at most ``limit[r]`` of rank r."""
    for combo in combinations_with_replacement(ranks, size):
        kickers: dict[int, int] = {}
        for r in combo:
            kickers[r] = kickers.get(r, 0) + 1
        if all(n <= limit[r] for r, n in kickers.items()):
            yield kickers


def _joker_kickers_ok(kickers: dict[int, int], rules: Rules) -> bool:
    return rules.jokers_as_kickers or not (
        BLACK_JOKER_RANK in kickers and RED_JOKER_RANK in kickers
    )


def _pair_kicker_sets(
    ranks: Sequence[int], pairs: int, rules: Rules
) -> Iterator[tuple[dict[int, int], bool]]:
    """Pair kickers: ``pairs`` pairs from the non-joker ``ranks``; with
    ``joker_pair_as_kicker`` one of them may be the two jokers. Yields (counts by
    rank without the jokers, uses_joker_pair)."""
    plain = [r for r in ranks if r < BLACK_JOKER_RANK]
    per_rank = 2 if rules.bomb_as_two_pairs else 1
    limit = [per_rank] * NUM_RANKS
    for kickers in _kicker_sets(plain, pairs, limit):
        yield {r: 2 * n for r, n in kickers.items()}, False
    if rules.joker_pair_as_kicker and pairs >= 1 and BLACK_JOKER_RANK in ranks:
        for kickers in _kicker_sets(plain, pairs - 1, limit):
            yield {r: 2 * n for r, n in kickers.items()}, True


def _counts(parts: Iterable[tuple[int, int]]) -> Counts:
    counts = [0] * NUM_RANKS
    for r, n in parts:
        counts[r] += n
    return tuple(counts)


def generate_readings(rules: Rules = DEFAULT_RULES) -> Iterator[Play]:
    """Every (multiset, kind, rank) reading allowed by ``rules``, possibly several per
    multiset when house rules make one readable two ways (see :data:`KINDS`)."""
    all_ranks = range(NUM_RANKS)
    plain = range(BLACK_JOKER_RANK)  # 3..2
    yield Play(ROCKET, RED_JOKER_RANK, 1, _counts([(BLACK_JOKER_RANK, 1), (RED_JOKER_RANK, 1)]))
    for r in all_ranks:
        yield Play(SOLO, r, 1, _counts([(r, 1)]))
    for r in plain:
        yield Play(PAIR, r, 1, _counts([(r, 2)]))
        yield Play(TRIO, r, 1, _counts([(r, 3)]))
        yield Play(BOMB, r, 1, _counts([(r, 4)]))
        others = [k for k in all_ranks if k != r]
        for k in others:
            yield Play(TRIO_SOLO, r, 1, _counts([(r, 3), (k, 1)]))
        for kickers, jokers in _pair_kicker_sets(others, 1, rules):
            yield _with_kickers(TRIO_PAIR, r, 1, 3, kickers, jokers)
        if rules.four_with_two:
            solo_limit = [1 if rules.four_two_solo_distinct_kickers else 2] * 13 + [1, 1]
            for kickers in _kicker_sets(others, 2, solo_limit):
                if _joker_kickers_ok(kickers, rules):
                    yield _with_kickers(FOUR_TWO_SOLO, r, 1, 4, kickers, False)
            for kickers, jokers in _pair_kicker_sets(others, 2, rules):
                yield _with_kickers(FOUR_TWO_PAIR, r, 1, 4, kickers, jokers)
    for kind, per_rank in ((SOLO_CHAIN, 1), (PAIR_CHAIN, 2), (AIRPLANE, 3)):
        low, high = CHAIN_LENGTHS[kind]
        for length in range(low, high + 1):
            for start in range(ACE - length + 2):
                yield _with_kickers(kind, start, length, per_rank, {}, False)
    yield from _airplanes_with_wings(rules)


def _with_kickers(
    kind: str, rank: int, length: int, per_rank: int, kickers: dict[int, int], jokers: bool
) -> Play:
    counts = [0] * NUM_RANKS
    for r in range(rank, rank + length):
        counts[r] = per_rank
    for r, n in kickers.items():
        counts[r] += n
    if jokers:
        counts[BLACK_JOKER_RANK] += 1
        counts[RED_JOKER_RANK] += 1
    return Play(kind, rank, length, tuple(counts))


def _airplanes_with_wings(rules: Rules) -> Iterator[Play]:
    for length in range(CHAIN_LENGTHS[AIRPLANE_SOLO][0], CHAIN_LENGTHS[AIRPLANE_SOLO][1] + 1):
        for start in range(ACE - length + 2):
            chain = range(start, start + length)
            adjacent = {r for r in (start - 1, start + length) if 0 <= r <= ACE}
            if rules.kicker_matches_main:
                candidates = list(range(NUM_RANKS))
                limit = [MAX_COUNT[r] - (3 if r in chain else 0) for r in range(NUM_RANKS)]
            else:
                candidates = [r for r in range(NUM_RANKS) if r not in chain]
                limit = list(MAX_COUNT)
            if rules.airplane_solo_wings_distinct:
                limit = [min(n, 1) for n in limit]
            elif not rules.airplane_solo_wings_allow_four:
                limit = [min(n, 3) for n in limit]
            for kickers in _kicker_sets(candidates, length, limit):
                if not _joker_kickers_ok(kickers, rules):
                    continue
                if not rules.airplane_solo_wings_allow_adjacent_trio and any(
                    kickers.get(r, 0) >= 3 for r in adjacent
                ):
                    continue
                yield _with_kickers(AIRPLANE_SOLO, start, length, 3, kickers, False)
    for length in range(CHAIN_LENGTHS[AIRPLANE_PAIR][0], CHAIN_LENGTHS[AIRPLANE_PAIR][1] + 1):
        for start in range(ACE - length + 2):
            others = [r for r in range(NUM_RANKS) if not start <= r < start + length]
            for kickers, jokers in _pair_kicker_sets(others, length, rules):
                yield _with_kickers(AIRPLANE_PAIR, start, length, 3, kickers, jokers)


def _better(a: Play, b: Play) -> bool:
    """Whether reading ``a`` of a multiset takes precedence over reading ``b``."""
    return (-_PRIORITY[a.kind], a.rank) > (-_PRIORITY[b.kind], b.rank)


def play_table(rules: Rules = DEFAULT_RULES) -> dict[Counts, Play]:
    """Every legal play under ``rules``, keyed by its rank counts (built once per rules
    value, in about 0.1 s; do not modify the returned dict)."""
    return _build_table(rules)


@lru_cache(maxsize=32)
def _build_table(rules: Rules) -> dict[Counts, Play]:
    table: dict[Counts, Play] = {}
    for play in generate_readings(rules):
        if sum(play.counts) > MAX_PLAY_CARDS:
            continue
        held = table.get(play.counts)
        if held is None or _better(play, held):
            table[play.counts] = play
    return table


# --------------------------------------------------------------------------- API


def classify(cards: str | Sequence[int] | Counts, rules: Rules = DEFAULT_RULES) -> Play | None:
    """The play formed by ``cards`` (card ids, a rank string or rank counts), or ``None``
    when they are not a legal play under ``rules``. Order never matters.

    Raises ``ValueError`` for malformed input (unknown rank, repeated card id, more
    cards of a rank than the deck holds).
    """
    table = (_DEFAULT_TABLE or _default_table()) if rules is DEFAULT_RULES else _build_table(rules)
    return table.get(to_counts(cards))


def as_play(play: Play | str | Sequence[int] | Counts, rules: Rules = DEFAULT_RULES) -> Play:
    """``play`` itself if it is a :class:`Play`, else its classification; raises
    ``ValueError`` when the cards are not a legal play."""
    if isinstance(play, Play):
        return play
    found = classify(play, rules)
    if found is None:
        raise ValueError(f"not a legal play: {play!r}")
    return found


def beats(
    play: Play | str | Sequence[int] | Counts, prev: Play | str | Sequence[int] | Counts
) -> bool:
    """Whether ``play`` may be played over ``prev``.

    The rocket beats everything; a bomb beats any non-bomb and any lower bomb;
    otherwise the kind and length must match and the main rank must be strictly
    higher (kickers never count, equal never beats). Either argument may also be
    given as cards (classified under the default rules).
    """
    play = as_play(play)
    prev = as_play(prev)
    if play.kind == ROCKET:
        return prev.kind != ROCKET
    if prev.kind == ROCKET:
        return False
    if play.kind == BOMB:
        return prev.kind != BOMB or play.rank > prev.rank
    if prev.kind == BOMB:
        return False
    return play.kind == prev.kind and play.length == prev.length and play.rank > prev.rank


# the default rules' table, built on the first classification (about 0.3 s), not at
# import: a process that never classifies a play (a server hosting no Dou Dizhu room
# yet, a bot of another game) does not pay for it
_DEFAULT_TABLE: dict[Counts, Play] = {}


def _default_table() -> dict[Counts, Play]:
    global _DEFAULT_TABLE
    _DEFAULT_TABLE = _build_table(DEFAULT_RULES)
    return _DEFAULT_TABLE
