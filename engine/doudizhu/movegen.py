"""Legal move generation for Dou Dizhu.

:func:`legal_plays` lists every play a hand can make (leading), or every play that
beats a previous play, each distinct rank multiset exactly once. The plays of the
classification table of :mod:`engine.doudizhu.plays` (the same table
:func:`~engine.doudizhu.plays.classify` reads, whatever the house rules) are indexed
once per rules value: single-rank plays and chains by rank, kicker plays by their main
part (trio, four or airplane) and then by their kicker ranks. For a hand, chains come
from the runs of ranks it holds (memoised by a 12-bit mask of those ranks, at most
4,096 entries per chain kind), and kickers from the combinations of the cards (or
pairs) left beside each main part the hand holds, each looked up in that index; so a
generated play is always in the table, and each one is generated from its own main
part once. Only the kinds that can beat a previous play are generated for a response.

:func:`cards_for` turns a play back into concrete card ids from a hand.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache
from itertools import chain, combinations, compress
from operator import ge

from .plays import (
    AIRPLANE,
    AIRPLANE_PAIR,
    AIRPLANE_SOLO,
    BOMB,
    CHAIN_LENGTHS,
    DEFAULT_RULES,
    FOUR_TWO_PAIR,
    FOUR_TWO_SOLO,
    MAIN_COUNT,
    PAIR,
    PAIR_CHAIN,
    ROCKET,
    SOLO,
    SOLO_CHAIN,
    TRIO,
    TRIO_PAIR,
    TRIO_SOLO,
    Play,
    Rules,
    play_table,
)
from .ranks import (
    ACE,
    BLACK_JOKER_RANK,
    MAX_COUNT,
    NUM_RANKS,
    RED_JOKER_RANK,
    Counts,
    cards_by_rank,
    rank_count_bytes,
    to_counts,
)

_CHAIN_UNIT = {SOLO_CHAIN: 1, PAIR_CHAIN: 2, AIRPLANE: 3}
_SINGLE_RANK = {SOLO: 1, PAIR: 2, TRIO: 3, BOMB: 4}
# Kinds with kickers: kicker cards per main rank, and whether kickers come in pairs.
_SOLO_KICKERS = {TRIO_SOLO: 1, AIRPLANE_SOLO: 1, FOUR_TWO_SOLO: 2}
_PAIR_KICKERS = {TRIO_PAIR: 1, AIRPLANE_PAIR: 1, FOUR_TWO_PAIR: 2}
_JOKER_PAIR = BLACK_JOKER_RANK  # a pair kicker of both jokers is written as this rank
_AT_LEAST = {n: (n,) * NUM_RANKS for n in range(1, 5)}
_RANKS = tuple(range(NUM_RANKS))
RankCounts = bytes | Counts  # 15 counts: bytes inside legal_plays, tuples elsewhere
_CHAIN_BIT = tuple(1 << r if r <= ACE else 0 for r in range(NUM_RANKS))


class _Index:
    """The plays of one rules table, arranged for generation from a hand.

    ``single[kind][r]``: the solo/pair/trio/bomb of rank r (or None).
    ``chains[kind][s]``: the pure chains starting at rank s, shortest first.
    ``kickers[kind][(rank, length)]``: for a main part (trio, four or airplane), a dict
    from its kicker ranks (a sorted tuple, one entry per kicker card, or per pair for
    pair-kicker kinds) to the play.
    """

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.table = table = play_table(rules)
        self.by_bytes = {bytes(counts): play for counts, play in table.items()}
        self.single: dict[str, list[Play | None]] = {k: [None] * NUM_RANKS for k in _SINGLE_RANK}
        self.chains: dict[str, list[list[Play]]] = {
            k: [[] for _ in range(ACE + 1)] for k in (SOLO_CHAIN, PAIR_CHAIN, AIRPLANE)}
        self.kickers: dict[str, dict[tuple[int, int], dict[tuple[int, ...], Play]]] = {
            k: {} for k in (*_SOLO_KICKERS, *_PAIR_KICKERS)}
        self.rocket: Play | None = None
        for play in table.values():
            kind = play.kind
            if kind in _SINGLE_RANK:
                self.single[kind][play.rank] = play
            elif kind == ROCKET:
                self.rocket = play
            elif kind in self.chains:
                self.chains[kind][play.rank].append(play)
            else:
                kick = list(play.counts)
                main = MAIN_COUNT[kind]
                for r in range(play.rank, play.rank + play.length):
                    kick[r] -= main
                if kind in _PAIR_KICKERS:
                    ranks = [r for r in range(BLACK_JOKER_RANK) if kick[r] for _ in range(kick[r] // 2)]
                    if kick[BLACK_JOKER_RANK]:
                        ranks.append(_JOKER_PAIR)
                else:
                    ranks = [r for r in range(NUM_RANKS) if kick[r] for _ in range(kick[r])]
                self.kickers[kind].setdefault((play.rank, play.length), {})[tuple(ranks)] = play
        for by_start in self.chains.values():
            for plays in by_start:
                plays.sort(key=lambda p: p.length)
        for kind, need in _SINGLE_RANK.items():
            if any(self.single[kind][r] is None for r in range(NUM_RANKS) if MAX_COUNT[r] >= need):
                raise AssertionError(f"the play table lacks a {kind}")
        # chains and airplane main parts held by a hand, memoised by its rank mask
        self.chain_memo: dict[str, dict[int, list[Play]]] = {k: {} for k in self.chains}
        self.airplane_memo: dict[int, list[tuple[int, int]]] = {}
        # trio + one kicker: trio rank -> list by kicker rank (pair of jokers at 13)
        self.trio_rows: dict[str, list[list[Play | None]]] = {}
        for kind in (TRIO_SOLO, TRIO_PAIR):
            rows = [[None] * NUM_RANKS for _ in range(NUM_RANKS)]
            for (t, _), found in self.kickers[kind].items():
                for (k,), play in found.items():
                    rows[t][k] = play
            self.trio_rows[kind] = rows


@lru_cache(maxsize=32)
def _index(rules: Rules) -> _Index:
    """The generation index of ``rules`` (built once per rules value)."""
    return _Index(rules)


def _runs_of_mask(mask: int) -> list[tuple[int, int]]:
    """Maximal runs ``(start, length)`` of set bits in a 12-bit mask of ranks 3..A."""
    runs: list[tuple[int, int]] = []
    start = -1
    for r in range(ACE + 2):
        if r <= ACE and mask >> r & 1:
            if start < 0:
                start = r
        elif start >= 0:
            runs.append((start, r - start))
            start = -1
    return runs


class _Hand:
    """A hand's rank counts with the rank lists generation keeps asking for."""

    __slots__ = ("counts", "present", "ge2", "ge3", "ge4", "jokers", "_pools", "_masks")

    def __init__(self, counts: RankCounts) -> None:
        self.counts = counts
        self.present = present = list(compress(_RANKS, counts))
        self.ge2 = ge2 = [r for r in present if counts[r] >= 2]
        self.ge3 = ge3 = [r for r in ge2 if counts[r] >= 3]
        self.ge4 = [r for r in ge3 if counts[r] == 4]
        self.jokers = counts[BLACK_JOKER_RANK] + counts[RED_JOKER_RANK] == 2
        self._pools: dict[int, list[int]] = {}
        self._masks = [-1, -1, -1, -1]

    def mask(self, unit: int) -> int:
        """Bit r set when rank r (within 3..A) holds at least ``unit`` cards."""
        found = self._masks[unit]
        if found < 0:
            ranks = self.present if unit == 1 else self.ge2 if unit == 2 else self.ge3
            found = self._masks[unit] = sum(map(_CHAIN_BIT.__getitem__, ranks))
        return found

    def solo_pool(self, size: int) -> list[int]:
        """Every card as its rank (at most ``size`` of a rank), in rank order."""
        pool = self._pools.get(size)
        if pool is None:
            counts = self.counts
            pool = []
            for r in self.present:
                n = counts[r]
                if n == 1 or size == 1:
                    pool.append(r)
                else:
                    pool.extend((r,) * min(n, size))
            self._pools[size] = pool
        return pool

    def pair_pool(self, size: int) -> list[int]:
        """Every pair as its rank (at most ``size`` of a rank), in rank order; both
        jokers count as one pair of rank ``_JOKER_PAIR``."""
        pool = self._pools.get(-size)
        if pool is None:
            counts = self.counts
            pool = []
            for r in self.ge2:
                if counts[r] < 4 or size == 1:
                    pool.append(r)
                else:
                    pool.extend((r, r))
            if self.jokers:
                pool.append(_JOKER_PAIR)
            self._pools[-size] = pool
        return pool


def _kicker_plays(found: dict[tuple[int, ...], Play], pool: list[int], size: int,
                  out: list[Play]) -> None:
    """Append the plays of ``found`` whose kickers are ``size`` entries of ``pool``."""
    if len(pool) < size:
        return
    combos = combinations(pool, size)
    if len(set(pool)) != len(pool):
        combos = set(combos)  # a repeated rank makes repeated combinations
    out.extend(filter(None, map(found.get, combos)))


def _solo_kicker_combos(hand: _Hand, lo: int, hi: int, size: int) -> Iterable[tuple[int, ...]]:
    """Every multiset of ``size`` cards of the hand outside ranks ``lo..hi-1``, as a
    sorted tuple of ranks, each once."""
    distinct = [r for r in hand.present if r < lo or r >= hi]
    if size == 1:
        return zip(distinct)
    doubles = [r for r in hand.ge2 if r < lo or r >= hi]
    if size == 2:
        return chain(combinations(distinct, 2), zip(doubles, doubles, strict=True))
    if size == 3:
        triples = [r for r in hand.ge3 if r < lo or r >= hi]
        mixed = [(a, a, b) if a < b else (b, a, a) for a in doubles for b in distinct if b != a]
        return chain(combinations(distinct, 3), mixed, zip(triples, triples, triples, strict=True))
    pool = [r for r in hand.solo_pool(size) if r < lo or r >= hi]
    if len(pool) == len(distinct):
        return combinations(pool, size)
    return set(combinations(pool, size))  # a repeated rank makes repeated combinations


def _chains(idx: _Index, hand: _Hand, kind: str, min_rank: int, length: int,
            out: list[Play]) -> None:
    memo = idx.chain_memo[kind]
    mask = hand.mask(_CHAIN_UNIT[kind])
    plays = memo.get(mask)
    if plays is None:
        low = CHAIN_LENGTHS[kind][0]
        by_start = idx.chains[kind]
        plays = memo[mask] = [
            play for first, run in _runs_of_mask(mask)
            for s in range(first, first + run - low + 1)
            for play in by_start[s][: first + run - s - low + 1]]
    if min_rank or length:
        out.extend([p for p in plays if p.rank >= min_rank and (not length or p.length == length)])
    else:
        out.extend(plays)


def _trio_kickers(idx: _Index, hand: _Hand, kind: str, min_rank: int, out: list[Play]) -> None:
    rows = idx.trio_rows[kind]
    kickers = hand.present if kind == TRIO_SOLO else hand.ge2 + [_JOKER_PAIR] * hand.jokers
    for t in hand.ge3:
        if t >= min_rank:
            out.extend(filter(None, map(rows[t].__getitem__, kickers)))


def _four_kickers(idx: _Index, hand: _Hand, kind: str, min_rank: int, out: list[Play]) -> None:
    by_main = idx.kickers[kind]
    for f in hand.ge4:
        if f < min_rank:
            continue
        found = by_main.get((f, 1))
        if found is None:
            continue
        if kind == FOUR_TWO_SOLO:
            out.extend(filter(None, map(found.get, _solo_kicker_combos(hand, f, f + 1, 2))))
        else:
            _kicker_plays(found, [r for r in hand.pair_pool(2) if r != f], 2, out)


def _airplane_kickers(idx: _Index, hand: _Hand, kind: str, min_rank: int, length: int,
                      out: list[Play]) -> None:
    by_main = idx.kickers[kind]
    if not by_main:
        return
    low, high = CHAIN_LENGTHS[kind]
    if length:
        low = high = length
    matches_main = idx.rules.kicker_matches_main
    counts = hand.counts
    mask = hand.mask(3)
    mains = idx.airplane_memo.get(mask)
    if mains is None:
        mains = idx.airplane_memo[mask] = [
            (s, n) for first, run in _runs_of_mask(mask)
            for s in range(first, first + run - 1) for n in range(2, first + run - s + 1)]
    for s, n in mains:
        if s < min_rank or not low <= n <= high:
            continue
        found = by_main.get((s, n))
        if found is None:
            continue
        stop = s + n
        if kind == AIRPLANE_SOLO:
            if not matches_main:
                out.extend(filter(None, map(found.get, _solo_kicker_combos(hand, s, stop, n))))
                continue
            pool = [r for r in hand.solo_pool(n) if r < s or r >= stop]
            pool = sorted(pool + [r for r in range(s, stop) if counts[r] == 4])
        else:
            pool = [r for r in hand.pair_pool(n) if r < s or r >= stop]
        _kicker_plays(found, pool, n, out)


def _lead(idx: _Index, hand: _Hand, out: list[Play]) -> None:
    """Append every play the hand holds, grouped by kind (solos, pairs, trios, trio
    kinds, chains, airplanes, fours with kickers, bombs, rocket), each kind by rank."""
    single = idx.single  # complete rows: every rank a hand can hold enough of has a play
    solo = single[SOLO]
    out += [solo[r] for r in hand.present]
    pair = single[PAIR]
    out += [pair[r] for r in hand.ge2]
    if hand.ge3:
        trio = single[TRIO]
        out += [trio[r] for r in hand.ge3]
        _trio_kickers(idx, hand, TRIO_SOLO, 0, out)
        _trio_kickers(idx, hand, TRIO_PAIR, 0, out)
    if len(hand.present) >= 5:
        _chains(idx, hand, SOLO_CHAIN, 0, 0, out)
    if len(hand.ge2) >= 3:
        _chains(idx, hand, PAIR_CHAIN, 0, 0, out)
    if len(hand.ge3) >= 2:
        _chains(idx, hand, AIRPLANE, 0, 0, out)
        _airplane_kickers(idx, hand, AIRPLANE_SOLO, 0, 0, out)
        _airplane_kickers(idx, hand, AIRPLANE_PAIR, 0, 0, out)
    if hand.ge4:
        _four_kickers(idx, hand, FOUR_TWO_SOLO, 0, out)
        _four_kickers(idx, hand, FOUR_TWO_PAIR, 0, out)
        bomb = single[BOMB]
        out += [bomb[r] for r in hand.ge4]
    if hand.jokers and idx.rocket is not None:
        out.append(idx.rocket)


def legal_plays(
    hand: str | Sequence[int] | Counts,
    prev: Play | str | Sequence[int] | Counts | None = None,
    rules: Rules = DEFAULT_RULES,
) -> list[Play]:
    """Every legal play from ``hand`` when leading (``prev`` is None), or every play
    that beats ``prev``; each distinct rank multiset exactly once.

    ``hand`` and ``prev`` may be card ids, a rank string or rank counts (``prev`` also a
    :class:`Play`). Plays are grouped by kind (solos, pairs, ..., bombs, rocket), each
    kind by rank. Raises ``ValueError`` on malformed cards or if ``prev`` is not a
    legal play.
    """
    counts = rank_count_bytes(hand) if type(hand) is list else bytes(to_counts(hand))
    idx = (_DEFAULT_INDEX or _default_index()) if rules is DEFAULT_RULES else _index(rules)
    out: list[Play] = []
    if prev is None:
        _lead(idx, _Hand(counts), out)
        return out
    if type(prev) is Play:
        prev_play = prev
    else:
        found = idx.by_bytes.get(
            rank_count_bytes(prev) if type(prev) is list else bytes(to_counts(prev)))
        if found is None:
            raise ValueError(f"not a legal play: {prev!r}")
        prev_play = found
    _respond(idx, counts, prev_play, out)
    return out


def _respond(idx: _Index, counts: RankCounts, prev: Play, out: list[Play]) -> None:
    """Append the plays from ``counts`` that beat ``prev``: same kind and length with a
    higher rank, then bombs, then the rocket."""
    kind = prev.kind
    if kind == ROCKET:
        return
    lowest = prev.rank + 1
    if kind == SOLO:
        out.extend(compress(idx.single[SOLO][lowest:], counts[lowest:]))
    elif kind in _SINGLE_RANK:
        # row[r] is None only where no hand holds enough cards (a pair of jokers ...)
        needs = _AT_LEAST[_SINGLE_RANK[kind]]
        out.extend(compress(idx.single[kind][lowest:], map(ge, counts[lowest:], needs)))
    elif kind in idx.chains:
        unit = _CHAIN_UNIT[kind]
        length = prev.length
        column = length - CHAIN_LENGTHS[kind][0]
        by_start = idx.chains[kind]
        streak = 0
        for r in range(lowest, ACE + 1):
            if counts[r] >= unit:
                streak += 1
                if streak >= length:
                    out.append(by_start[r - length + 1][column])
            else:
                streak = 0
    elif kind in idx.trio_rows:
        trios = [t for t in range(lowest, BLACK_JOKER_RANK) if counts[t] >= 3]
        if trios:
            rows = idx.trio_rows[kind]
            if kind == TRIO_SOLO:
                kickers = [k for k in range(NUM_RANKS) if counts[k]]
            else:
                kickers = [k for k in range(BLACK_JOKER_RANK) if counts[k] >= 2]
                if counts[BLACK_JOKER_RANK] and counts[RED_JOKER_RANK]:
                    kickers.append(_JOKER_PAIR)
            for t in trios:
                out.extend(filter(None, map(rows[t].__getitem__, kickers)))
    elif kind in (FOUR_TWO_SOLO, FOUR_TWO_PAIR):
        _four_kickers(idx, _Hand(counts), kind, lowest, out)
    else:
        _airplane_kickers(idx, _Hand(counts), kind, lowest, prev.length, out)
    if kind != BOMB and 4 in counts:
        out.extend(compress(idx.single[BOMB], map(ge, counts, _AT_LEAST[4])))
    if counts[BLACK_JOKER_RANK] and counts[RED_JOKER_RANK] and idx.rocket is not None:
        out.append(idx.rocket)


def cards_for(play: Play | str | Sequence[int] | Counts, hand_cards: Sequence[int]) -> list[int]:
    """Concrete card ids from ``hand_cards`` making up ``play``: for each rank, the
    lowest ids of that rank in the hand, returned in ascending id order.

    ``play`` may be a :class:`Play` or anything :func:`~engine.doudizhu.ranks.to_counts`
    accepts. Raises ``ValueError`` if the hand lacks the cards.
    """
    need = play.counts if isinstance(play, Play) else to_counts(play)
    groups = cards_by_rank(hand_cards)
    chosen: list[int] = []
    for r, n in enumerate(need):
        if n > len(groups[r]):
            raise ValueError("the hand does not hold the cards of this play")
        chosen.extend(groups[r][:n])
    return sorted(chosen)


# the default rules' index, built on the first generation (not at import: see plays.py)
_DEFAULT_INDEX: _Index | None = None


def _default_index() -> _Index:
    global _DEFAULT_INDEX
    _DEFAULT_INDEX = _index(DEFAULT_RULES)
    return _DEFAULT_INDEX
