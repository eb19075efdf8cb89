"""The contract every game module fulfils, and the one value the server plugs in.

Each game package (``engine.holdem``, ``engine.zhajinhua``, ``engine.doudizhu``)
exposes module-level functions with the same names and meaning, and bundles them in
a :class:`Game` value named ``GAME``. The server only ever talks to a ``Game``; it
never asks which game it is hosting.

State objects have at least these attributes:

``to_act``   the seat whose clock is running, or ``None``
``is_over``  true once the hand is finished and settled
``stacks``   chips by seat (``None`` for an empty seat); final stacks once over

Events are plain dicts with a ``"type"``. An event may be private in part: when it
has ``"only": [seats]`` the keys listed in ``"secret"`` are delivered only to those
seats; :func:`event_for` makes the copy a given viewer may see.

``format_event(event, name)`` turns one event (possibly a viewer's filtered copy)
into one line of a hand history in words, ``name(seat)`` giving a seat's display
name; ``None`` skips the event. :func:`describe_event` is the generic default.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from .actions import ActionType
from .config import Option, describe_options, parse_options

Seat = int | None
SeatList = Sequence[tuple[str, int] | None]
Event = dict[str, Any]
SeatName = Callable[[int], str]
# What a game's ``view`` keeps of the views it rendered, for the next calls (see Game)
ViewMemo = dict[Any, Any]


class View(Protocol):
    """A game's ``view(state, seat, memo=None)`` (see :class:`Game`)."""

    def __call__(self, state: Any, seat: Seat, memo: ViewMemo | None = None) -> dict[str, Any]: ...


def memo_view(state: Any, seat: Seat, memo: ViewMemo | None,
              public: Callable[[Any, ViewMemo | None], dict[str, Any]],
              render: Callable[[Any, Seat, dict[str, Any], ViewMemo | None], dict[str, Any]]) -> dict[str, Any]:
    """A game's ``view`` with a ``memo`` (see :class:`Game`), from its two parts:
    ``public(state, memo)``, what every seat sees alike, rendered once per state, and
    ``render(state, seat, public, memo)``, the view of ``seat`` made from it, rendered once
    per state and seat (the last one kept per seat). Without a memo, both are rendered."""
    if memo is None:
        return render(state, seat, public(state, None), None)
    kept = memo.get(seat)
    if kept is not None and kept[0] is state and kept[1] is seat:  # (True and 1 are one key)
        return kept[2]
    part = memo.get("public")
    if part is None or part[0] is not state:
        part = memo["public"] = (state, public(state, memo))
    out = render(state, seat, part[1], memo)
    memo[seat] = (state, seat, out)
    return out


def describe_event(event: Event, name: SeatName) -> str | None:
    """A generic history line: the event type, then its fields (``seat``/``target``
    as names; the ``only``/``secret`` bookkeeping left out), e.g.
    ``bet: seat=Alice, amount=20``. Games override it with :attr:`Game.format_event`."""
    parts: list[str] = []
    for key, value in event.items():
        if key in ("type", "only", "secret"):
            continue
        if key in ("seat", "target") and isinstance(value, int) and not isinstance(value, bool):
            text = name(value)
        elif isinstance(value, str):
            text = value
        else:
            text = json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str)
        parts.append(f"{key}={text}")
    kind = str(event.get("type", "?"))
    return f"{kind}: {', '.join(parts)}" if parts else kind


@dataclass(frozen=True)
class Stakes:
    """What sets a game's stakes, for the lobby's quick match and for leagues.

    ``field``: the hand option a quick match's ``stake`` sets and a league counts its
    results in (Hold'em's ``big_blind``). ``config(stake)``: a table's options for that
    stake (default ``{field: stake}``; Hold'em's also sets the small blind to half).
    ``quick_seats`` and ``quick_stake``: the table a quick match opens when no open table
    fits and the request names no size or stake (``None``: the game's own default).
    ``league_stack``: a league match's stack, in units of ``field``. ``unit`` and ``per``:
    how standings count results (``"bb/100"``, the mean per hand times 100); ``series_unit``
    labels a league chart's running total (``"bb"``)."""

    field: str
    config: Callable[[int], dict[str, Any]] | None = None
    quick_seats: int | None = None
    quick_stake: int | None = None
    league_stack: int = 100
    unit: str = "units/hand"
    per: float = 1.0
    series_unit: str = "units"

    def table_config(self, stake: int) -> dict[str, Any]:
        """The hand options of a table played at ``stake``."""
        return self.config(stake) if self.config is not None else {self.field: stake}


@dataclass(frozen=True)
class Practice:
    """A small table for machines: the hand options (``config``), the chips each seat starts
    a hand with (``stack``) and the players (``seats``) of ``cardroom simulate`` (bots
    against bots through the engine alone) and of ``cardroom loadtest``'s rooms."""

    config: Mapping[str, Any] = field(default_factory=dict)
    stack: int = 1000
    seats: int | None = None  # None: the game's fewest players


@dataclass(frozen=True)
class Export:
    """A hand-history format of a game's own (``cardroom history --format <name>``, a
    league's export): ``write(hand, table, max_seats)`` gives the lines of one finished
    hand, ``hand`` as plain data (the ``hand`` objects of ``--format jsonl``, its events as
    the viewer saw them), ``table`` the table's name, ``max_seats`` its size (None: unknown);
    raises ``ValueError`` for a hand it cannot write. ``file`` names the file a league
    export writes; ``doc`` says what the format is for."""

    write: Callable[[Mapping[str, Any], str | None, int | None], list[str]]
    file: str
    doc: str = ""


@dataclass(frozen=True)
class Game:
    """One game's rules behind a uniform interface.

    ``options`` declares the hand options (blinds, rule variants, ...) with defaults.
    ``new_hand(config, seats, deck)`` takes ``config`` as returned by
    :meth:`parse_config` plus ``"button"`` (the dealer seat, which the table moves).
    ``start_events(state)`` gives the events that open a freshly dealt hand (antes,
    blinds, private deals), since ``new_hand`` returns only the state.
    ``legal_actions`` may return any object; ``legal_to_wire`` turns it into plain
    data for a client (``None`` when the seat may do nothing).
    ``view(state, seat, memo=None)`` is what ``seat`` (``None``: a spectator) may see of
    the hand, as plain data. A caller that renders views again and again (every change,
    every seat) may keep a ``memo``, an empty dict at first, and pass it to every call:
    a view may keep there what it rendered, to hand it back while its inputs are the
    same (the last view of each seat while the state is the same; the part every seat
    sees alike, once per state), which also lets working out what changed since pass over
    it at once (``is``). A view is equal to the one rendered without a memo, whatever the
    memo holds (a game may ignore it); nothing a view returns may be changed in place,
    and a state must not be changed once viewed (``apply`` returns a new one).
    ``format_event(event, name)`` writes one event as a line of a hand history
    (``name(seat)`` is the seat's display name; ``None`` skips the event); it must
    accept an event filtered by :func:`event_for` (secret keys missing).
    ``show(state, seat)``, for games that may hide a hand at the end (a muck, a fold),
    lets ``seat`` show its cards of its own accord once the hand is over: it returns the
    new state (its view now shows the cards to everyone) and a public ``show`` event, or
    raises :class:`~engine.errors.IllegalAction` (``hand_not_over``, ``nothing_to_show``).
    ``None``: every hand is open at the end, there is nothing to show.
    ``dealt(state)`` and ``layout(deck, deal_order)`` are the game's dealing rule, which
    provably fair deals publish and check (``engine/fairness.py``): ``dealt`` gives each
    seat's cards in a freshly dealt state (empty or ``None`` for a seat not dealt in);
    ``layout`` says where the rule puts the cards of ``deck`` when ``deal_order`` is the
    dealt seats in the order they receive cards: ``hands`` (seat -> its cards in the order
    dealt) and any other named piles (a board, a bottom). ``None``: the deck is still
    derived and committed to, but no verifier can place its cards.
    ``stakes``: see :class:`Stakes` (``None``: no quick match by stake, no league).
    ``time_bank``: rooms may give each seat a time bank (``time_bank_seconds``).
    ``auto_play_checks``: a seat handed to auto-play checks when it may, else folds (the
    betting games); otherwise the game's first bot strategy plays it (or, without one, its
    ``timeout_action``).
    ``bots``: the game's bot strategies by name (see :mod:`engine.bots`: a strategy is
    ``decide(view, legal, rng) -> action``); ``smart`` and ``random`` are the names bot
    seats offer first. Empty: no bot seats.

    ``exports``: hand-history formats of the game's own, by name (see :class:`Export`).
    ``practice``: the table bots play on in simulations and load tests (see
    :class:`Practice`; the default: the game's default options, 1,000 chips, its fewest
    players).
    ``actions``: the actions a seat may send, as plain declarations (see
    :mod:`engine.actions`): the server refuses one of the wrong shape before ``apply``
    sees it. Empty: every action reaches ``apply`` as sent.

    What the browser page shows of the game (sent in the lobby's ``games``, see
    :meth:`describe`): ``icon`` (one character for its tiles), ``strings`` (by language
    code, ``"en"`` and ``"zh"``: ``title``, the short name players call it, ``blurb``, one
    line for its tile, and ``opt.<option>`` / ``optdoc.<option>`` /
    ``choice.<option>.<value>``, an option's label, help text and a choice's words; a
    missing word falls back to English, then to the server's own), ``main_options`` (the
    hand options the create form shows up front; the rest fold under "more rules"; empty:
    all up front) and ``web`` (the folder holding the game's table module ``<name>.js``,
    which the server serves at ``/games/<name>.js`` and any file beside it at
    ``/games/<name>/<file>``; ``None``: the page's own ``games/<name>.js``).
    """

    name: str
    title: str
    min_players: int
    max_players: int
    deck_size: int
    options: Sequence[Option]
    new_hand: Callable[[Mapping[str, Any], SeatList, Sequence[int]], Any]
    start_events: Callable[[Any], list[Event]]
    legal_actions: Callable[[Any, int], Any]
    legal_to_wire: Callable[[Any], Any]
    apply: Callable[[Any, int, Mapping[str, Any]], tuple[Any, list[Event]]]
    view: View
    timeout_action: Callable[[Any, int], dict[str, Any]]
    to_dict: Callable[[Any], dict[str, Any]]
    from_dict: Callable[[Mapping[str, Any]], Any]
    check_config: Callable[[dict[str, Any]], None] = lambda config: None
    format_event: Callable[[Event, SeatName], str | None] = describe_event
    show: Callable[[Any, int], tuple[Any, list[Event]]] | None = None
    dealt: Callable[[Any], Sequence[Sequence[int] | None]] | None = None
    layout: Callable[[Sequence[int], Sequence[int]], dict[str, Any]] | None = None
    stakes: Stakes | None = None
    time_bank: bool = False
    auto_play_checks: bool = False
    bots: Mapping[str, Callable[[dict[str, Any], dict[str, Any], Any], dict[str, Any]]] = field(
        default_factory=dict, compare=False)
    actions: Sequence[ActionType] = ()
    exports: Mapping[str, Export] = field(default_factory=dict, compare=False)
    practice: Practice = field(default_factory=Practice, compare=False)
    icon: str = "\u2663"
    strings: Mapping[str, Mapping[str, str]] = field(default_factory=dict, compare=False)
    main_options: Sequence[str] = ()
    web: Path | None = None

    def parse_config(self, given: Mapping[str, Any] | None) -> dict[str, Any]:
        """Validate hand options, one by one and then together (``check_config``, for
        rules such as "the big blind is at least the small blind"); raises
        :class:`~engine.errors.ConfigError` naming the field, so a room is never created
        with options its game would refuse to deal."""
        config = parse_options(self.options, given)
        self.check_config(config)
        return config

    @property
    def practice_seats(self) -> int:
        """The players of :attr:`practice`'s table."""
        return min(max(self.practice.seats or self.min_players, self.min_players), self.max_players)

    def describe(self) -> dict[str, Any]:
        """What a client learns of the game (the lobby's ``games``): its name, title, player
        counts, hand options, the option its stakes are (``stake_field``, None without
        stakes) and how auto-play plays a seat (``auto_play``: ``"check_or_fold"`` or
        ``"bot"``); for the browser page its ``icon``, ``strings``, ``main_options`` and the
        table a quick match opens (``quick``: ``seats`` and hand options ``config``)."""
        quick_seats = self.stakes.quick_seats if self.stakes is not None else None
        quick_stake = self.stakes.quick_stake if self.stakes is not None else None
        return {
            "game": self.name,
            "title": self.title,
            "min_players": self.min_players,
            "max_players": self.max_players,
            "options": describe_options(self.options),
            "stake_field": self.stakes.field if self.stakes is not None else None,
            "auto_play": "check_or_fold" if self.auto_play_checks else "bot",
            "icon": self.icon,
            "strings": {lang: dict(words) for lang, words in self.strings.items()},
            "main_options": list(self.main_options),
            "quick": {
                "seats": min(max(quick_seats or self.max_players, self.min_players), self.max_players),
                "config": self.stakes.table_config(quick_stake)
                if self.stakes is not None and quick_stake is not None else {},
            },
        }


def is_private(event: Event) -> bool:
    """Do some viewers see less of ``event`` than others (see :func:`event_for`)?"""
    return event.get("only") is not None


def event_for(event: Event, seat: Seat) -> Event:
    """The copy of ``event`` that ``seat`` (``None``: a spectator) may see: ``event``
    itself unless it :func:`is_private`."""
    only = event.get("only")
    if only is None:
        return event
    if seat is not None and seat in only:
        return {k: v for k, v in event.items() if k not in ("only", "secret")}
    hidden = set(event.get("secret", ())) | {"only", "secret"}
    return {k: v for k, v in event.items() if k not in hidden}
