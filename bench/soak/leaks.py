"""What each viewer may see of a hand, by the rules, and a scanner that checks every
message a viewer receives against it.

The oracle (:class:`Knowledge`, fed by :func:`reveal`) is written from the game documents
(``docs/holdem.md``, ``docs/zhajinhua.md``, ``docs/doudizhu.md``), never from the view
code under test. It reads the hand's true cards from the engine state and the unfiltered
events the engine emitted, and keeps, per player, the card ids that player may know:

* Hold'em: your own hole cards from the deal; board cards once a ``board`` event deals
  them; the hole cards of every seat a ``showdown`` event shows (mucked and folded hands
  never). Burned and undealt cards never.
* Zha Jin Hua: your own three cards only once you ``look`` (a blind seat does not see
  its own cards); at a ``compare``, the winner learns the loser's hand and the loser
  both hands (the all-in compares alike); a ``showdown`` shows its hands to everyone.
* Dou Dizhu: your own hand from the deal; the bottom cards once the ``landlord`` event
  (public from then on; never after a ``redeal``); every card played; every remaining
  hand once ``hand_over``.

Knowledge belongs to the *player* dealt into a seat, not to the seat: whoever sits down
in that seat later learns nothing of the earlier hand.

:class:`Scanner` walks a message and reports a :class:`Violation` when it finds a card
the receiving player may not know under a card-bearing key (``cards``, ``hole``,
``hand``, ``hands``, ``board``, ``bottom``, ``burned``), a ``deck`` key at all, six or
more cards in a row of the deck's order in any list of numbers, a description of a
seat's hand (``description``, ``category``, ``value``, or a ``hand`` text) while its
cards are hidden from the viewer, or a Dou Dizhu rank string (``ranks``,
``hand_ranks``, ...) naming more cards of a rank than the viewer may know of.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from engine.doudizhu.ranks import RANK_NAMES, ddz_rank

CARD_KEYS = frozenset({"cards", "hole", "hand", "hands", "board", "bottom", "burned"})
#: what describes a seat's hand, by game (docs: Hold'em showdown hands and view seats,
#: Zha Jin Hua view seats and showdown hands); a Hold'em view seat's ``hand`` is its text
DESCRIPTION_KEYS = {"holdem": ("description", "value"), "zhajinhua": ("description", "category"), "doudizhu": ()}
DECK_RUN = 6  # this many cards in deck order in one list is the deck showing
EXAMPLE_CHARS = 600


@dataclass
class HandSecrets:
    """The truth about one hand: the deck as dealt, who was dealt into which seat, and
    each seat's private cards (everything it was dealt; Dou Dizhu: its 17, the bottom
    separately)."""

    game: str
    hand_no: int
    deck: list[int]
    owner: dict[int, str]  # seat -> player id dealt in
    cards: dict[int, frozenset[int]]
    bottom: frozenset[int] = frozenset()
    seed: str | None = None  # the server seed the deck came from: secret until the hand ends

    @property
    def position(self) -> dict[int, int]:
        """Each card's place in the deck (computed once)."""
        cached = self.__dict__.get("_position")
        if cached is None:
            cached = self.__dict__["_position"] = {c: i for i, c in enumerate(self.deck)}
        return cached


def secrets_of(game: str, hand_no: int, state: Any, deck: list[int], seed: str | None = None) -> HandSecrets:
    """Read a fresh hand's private cards from its engine state (``hole``, ``hands``,
    ``bottom``) and who holds each seat (``players``); ``seed``: the deck's server seed."""
    players = list(state.players)
    owner = {s: p for s, p in enumerate(players) if p is not None}
    if game == "holdem":
        cards = {s: frozenset(state.hole[s]) for s in owner if state.in_hand[s]}
        return HandSecrets(game, hand_no, deck, owner, cards, seed=seed)
    if game == "zhajinhua":
        cards = {s: frozenset(h) for s, h in enumerate(state.hands) if h is not None}
        return HandSecrets(game, hand_no, deck, owner, cards, seed=seed)
    if game == "doudizhu":
        cards = {s: frozenset(state.hands[s]) for s in owner}
        return HandSecrets(game, hand_no, deck, owner, cards, frozenset(state.bottom), seed)
    raise ValueError(f"no rules known for game {game!r}")


@dataclass
class Knowledge:
    """What each player may know of the current hand, by the rules (see the module doc)."""

    hand: HandSecrets | None = None
    public: set[int] = field(default_factory=set)
    private: dict[str, set[int]] = field(default_factory=dict)
    seed_revealed: bool = False  # the hand is over: its server seed is public
    next_seed: str | None = None  # the seed of the next hand (only its commitment is public)

    def start(self, hand: HandSecrets) -> None:
        self.hand = hand
        self.public = set()
        self.private = {}
        self.seed_revealed = False
        if hand.game in ("holdem", "doudizhu"):  # your own cards from the deal
            for seat, player in hand.owner.items():
                self.learn(player, hand.cards.get(seat, ()))

    def learn(self, player: str | None, cards: Iterable[int]) -> None:
        if player is not None:
            self.private.setdefault(player, set()).update(cards)

    def allowed(self, player: str | None) -> set[int]:
        """The card ids ``player`` (None: a spectator) may have seen by now."""
        if player is None:
            return self.public
        return self.public | self.private.get(player, set())

    def copy(self) -> Knowledge:
        return Knowledge(self.hand, set(self.public), {p: set(c) for p, c in self.private.items()})


def reveal(know: Knowledge, event: dict[str, Any]) -> None:
    """Apply what one unfiltered engine (or room) event reveals, by the game's rules."""
    hand = know.hand
    if hand is None:
        return
    kind = event.get("type")
    if kind == "hand_ended":
        know.seed_revealed = True
    if hand.game == "holdem":
        _reveal_holdem(know, hand, kind, event)
    elif hand.game == "zhajinhua":
        _reveal_zhajinhua(know, hand, kind, event)
    elif hand.game == "doudizhu":
        _reveal_doudizhu(know, hand, kind, event)


def _reveal_holdem(know: Knowledge, hand: HandSecrets, kind: Any, event: dict[str, Any]) -> None:
    if kind == "board":
        know.public.update(event.get("cards") or ())
    elif kind == "showdown":
        for shown in event.get("hands") or ():
            know.public.update(hand.cards.get(shown["seat"], ()))


def _reveal_zhajinhua(know: Knowledge, hand: HandSecrets, kind: Any, event: dict[str, Any]) -> None:
    if kind == "look":
        seat = event["seat"]
        know.learn(hand.owner.get(seat), hand.cards.get(seat, ()))
    elif kind == "compare":
        winner, loser = event["winner"], event["loser"]
        know.learn(hand.owner.get(winner), hand.cards.get(loser, ()))
        know.learn(hand.owner.get(loser), hand.cards.get(loser, ()))
        know.learn(hand.owner.get(loser), hand.cards.get(winner, ()))
    elif kind == "showdown":
        for shown in event.get("hands") or ():
            know.public.update(hand.cards.get(shown["seat"], ()))


def _reveal_doudizhu(know: Knowledge, hand: HandSecrets, kind: Any, event: dict[str, Any]) -> None:
    if kind == "landlord":
        know.public.update(hand.bottom)
    elif kind == "play":
        know.public.update(event.get("cards") or ())
    elif kind == "hand_over":
        for cards in hand.cards.values():
            know.public.update(cards)
        know.public.update(hand.bottom)


@dataclass
class Violation:
    """One thing a viewer was shown that the rules keep from it."""

    game: str
    kind: str  # hidden_card, deck_key, deck_order, hidden_description, rank_string, seed_before_reveal
    viewer: str
    path: str
    detail: str
    message: str

    def __str__(self) -> str:
        return f"[{self.game}] {self.kind} to {self.viewer} at {self.path}: {self.detail}\n    in {self.message}"


class Scanner:
    """Checks every message of one game against :class:`Knowledge`."""

    def __init__(self, game: str) -> None:
        self.game = game
        self.messages = 0
        self.violations: list[Violation] = []
        self.counts: Counter[str] = Counter()

    def check(self, player: str | None, where: str, msg: Any, know: Knowledge,
              allowed: set[int] | None = None) -> list[Violation]:
        """Scan one message sent to ``player`` (who sits at ``where``: a seat or
        ``spectator``, for the report; ``allowed``: ``know.allowed(player)`` if the
        caller has it); the violations are also kept."""
        self.messages += 1
        walk = _Walk(self.game, f"{player}@{where}", know, know.allowed(player) if allowed is None else allowed)
        if walk.clean(msg):
            return []
        found = walk.run(msg)
        for v in found:
            v.message = _excerpt(msg)
            self.counts[v.kind] += 1
        self.violations.extend(found)
        return found


class _Walk:
    """One message's scan: :meth:`clean` is the fast pass (no paths); :meth:`run` finds
    and describes each violation (only for messages that are not clean)."""

    def __init__(self, game: str, viewer: str, know: Knowledge, allowed: set[int]) -> None:
        self.game = game
        self.viewer = viewer
        self.hand = know.hand
        self.allowed = allowed
        self.position = know.hand.position if know.hand is not None else None
        current = know.hand.seed if know.hand is not None and not know.seed_revealed else None
        self.seeds = {s for s in (current, know.next_seed) if s is not None}
        self._known_ranks: Counter[str] | None = None
        self._rank_verdicts: dict[str, bool] = {}
        self.found: list[Violation] = []

    def clean(self, msg: Any) -> bool:
        """True when nothing in ``msg`` needs a closer look."""
        hand = self.hand
        stack = [msg]
        while stack:
            node = stack.pop()
            if type(node) is dict:
                if hand is not None and "seat" in node and self._described(node):
                    return False
                for key, value in node.items():
                    kind = type(value)
                    if key == "deck" or (kind is str and value in self.seeds):
                        return False
                    if hand is not None:
                        if key in CARD_KEYS and not _hand_number(key, value) and not self._cards_ok(value):
                            return False
                        if kind is str and type(key) is str and key.endswith("ranks") and self._too_many(value):
                            return False
                    if kind is dict or kind is list:
                        stack.append(value)
            elif type(node) is list:
                if self.position is not None and len(node) >= DECK_RUN and self._deck_run(node) >= DECK_RUN:
                    return False
                stack.extend(v for v in node if type(v) is dict or type(v) is list)
        return True

    def flag(self, kind: str, path: tuple[Any, ...], detail: str) -> None:
        where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path).lstrip(".")
        self.found.append(Violation(self.game, kind, self.viewer, where, detail, ""))

    def run(self, msg: Any) -> list[Violation]:
        """Every violation in ``msg``, with its path."""
        stack: list[tuple[Any, tuple[Any, ...]]] = [(msg, ())]
        while stack:
            node, path = stack.pop()
            if isinstance(node, dict):
                self._map(node, path, stack)
            elif isinstance(node, list):
                if self.position is not None and len(node) >= DECK_RUN and self._deck_run(node) >= DECK_RUN:
                    self.flag("deck_order", path, f"{self._deck_run(node)} cards in the deck's order")
                stack.extend((v, (*path, i)) for i, v in enumerate(node) if isinstance(v, dict | list))
        return self.found

    def _map(self, node: dict[Any, Any], path: tuple[Any, ...], stack: list[tuple[Any, tuple[Any, ...]]]) -> None:
        if self.hand is not None and "seat" in node:
            described = self._described(node)
            if described:
                self.flag("hidden_description", path,
                          f"{described} of seat {node['seat']}, whose cards are hidden from this viewer")
        for key, value in node.items():
            if key == "deck":
                self.flag("deck_key", (*path, key), "a deck is sent")
            if isinstance(value, str) and value in self.seeds:
                self.flag("seed_before_reveal", (*path, key), "the hand's server seed before the hand is over")
            if self.hand is not None:
                if key in CARD_KEYS and not _hand_number(key, value) and not self._cards_ok(value):
                    hidden = sorted(c for c in _ints(value) if c not in self.allowed and _is_card(self.game, c))
                    self.flag("hidden_card", (*path, key), f"cards {hidden} are hidden from this viewer")
                elif isinstance(value, str) and isinstance(key, str) and key.endswith("ranks") \
                        and self._too_many(value):
                    self.flag("rank_string", (*path, key),
                              f"{value!r} names more cards of a rank than this viewer may know of")
            if isinstance(value, dict | list):
                stack.append((value, (*path, key)))

    def _cards_ok(self, value: Any) -> bool:
        """No card id under a card-bearing key that the viewer may not know."""
        if type(value) is list and all(type(c) is int for c in value):
            unknown = set(value) - self.allowed
        else:
            unknown = set(_ints(value)) - self.allowed
        return not any(_is_card(self.game, c) for c in unknown)

    def _described(self, node: dict[Any, Any]) -> list[str]:
        """The keys describing the hand of ``node['seat']`` while its cards are hidden."""
        seat = node["seat"]
        if type(seat) is not int:
            return []
        cards = self.hand.cards.get(seat) if self.hand is not None else None
        if not cards or cards <= self.allowed:
            return []
        described = [k for k in DESCRIPTION_KEYS[self.game] if node.get(k) is not None]
        if self.game == "holdem" and isinstance(node.get("hand"), str):
            described.append("hand")
        return described

    def _too_many(self, text: str) -> bool:
        """A Dou Dizhu rank string naming more cards of a rank than the viewer may know of."""
        if self.game != "doudizhu":
            return False
        if self._known_ranks is None:
            self._known_ranks = Counter(RANK_NAMES[ddz_rank(c)] for c in self.allowed if 0 <= c <= 53)
        verdict = self._rank_verdicts.get(text)
        if verdict is None:
            known = self._known_ranks
            upper = text.upper()
            verdict = self._rank_verdicts[text] = any(
                upper.count(r) > known[r] for r in set(upper) if r in known_ranks_alphabet)
        return verdict

    def _deck_run(self, items: list[Any]) -> int:
        """The longest stretch of ``items`` that follows the deck's order."""
        position = self.position
        assert position is not None
        run = best = 1
        previous = None
        for item in items:
            at = position.get(item) if type(item) is int else None
            if at is not None and previous is not None and at == previous + 1:
                run += 1
                best = max(best, run)
            else:
                run = 1
            previous = at
        return best


known_ranks_alphabet = frozenset(RANK_NAMES)


def _hand_number(key: Any, value: Any) -> bool:
    """``hand`` holding one number: a hand's number (a ``history`` hand), not its cards
    (which every view holds as a list)."""
    return key == "hand" and type(value) is int


def _plain_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_card(game: str, value: int) -> bool:
    return 0 <= value < (54 if game == "doudizhu" else 52)


def _ints(value: Any) -> Iterator[int]:
    """The card ids in a card-bearing value: ints, in lists at any depth (maps are
    walked separately, under their own keys)."""
    if _plain_int(value):
        yield value
    elif isinstance(value, list | tuple):
        for v in value:
            yield from _ints(v)


def _excerpt(msg: Any) -> str:
    text = repr(msg)
    return text if len(text) <= EXAMPLE_CHARS else text[:EXAMPLE_CHARS] + "..."
