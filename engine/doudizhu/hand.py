"""One Dou Dizhu hand: the deal, the auction, the play and the settlement.

``new_hand`` deals 17 cards to each of the three seats, one at a time starting with
the seat left of the button, and keeps the last 3 cards as the bottom (底牌). The
auction (:mod:`engine.doudizhu.bidding`) starts with the same seat. The landlord takes
the bottom cards, which everyone then sees, and leads. Two room options add choices
between the auction and the play: ``open_hand`` (明牌: the landlord may show the hand,
before taking the bottom cards or after) and ``doubling`` (加倍: each seat in turn,
the peasants first, may double). Each player in turn beats the
play to beat or passes; after two passes in a row the last player to play leads a
new trick and may not pass. The hand ends when a seat has no cards left, and is
settled by :mod:`engine.doudizhu.scoring`. If everyone passes in the auction the hand
ends at once with a ``redeal`` event and no chips moving: the caller starts a new
hand with a fresh deck.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

from ..config import parse_options
from ..errors import ConfigError, IllegalAction
from ..seating import check_deck, parse_seats
from .bidding import apply_bid, bid_multiplier, start_bidding
from .movegen import cards_for
from .options import OPTIONS, rules_of
from .plays import BOMB, ROCKET, Play, Rules, beats, classify
from .ranks import counts_from_cards, format_counts, parse_ranks, sort_cards, spell_ranks
from .scoring import (
    OPEN_AFTER_BOTTOM,
    OPEN_BEFORE_BOTTOM,
    compute_multiplier,
    is_anti_spring,
    is_spring,
    pair_multipliers,
    running_multiplier,
    seat_multipliers,
    settle,
)
from .state import BIDDING, DOUBLING, OPEN, OVER, PLAY, DoudizhuState, clone

DECK_SIZE = 54
HAND_SIZE = 17
BOTTOM_SIZE = 3
# The longest action a client may send: 20 cards as ids, or a rank string with spaces.
MAX_CARDS_IN_ACTION = 20
MAX_RANK_STRING = 64

Event = dict[str, Any]


def new_hand(config: Mapping[str, Any], seats: Sequence[tuple[str, int] | None],
             deck: Sequence[int]) -> DoudizhuState:
    """Deal a hand. ``config``: the options of :data:`OPTIONS` plus ``button``.

    Raises :class:`ConfigError` for bad options, seats that are not exactly three
    ``(player_id, stack)`` entries, or a button that is not an occupied seat;
    ``ValueError`` for a deck that is not the 54 distinct cards.
    """
    if not isinstance(config, Mapping):
        raise ConfigError("config", "must be a map of option names to values")
    options = parse_options(OPTIONS, {k: v for k, v in config.items() if k != "button"})
    players, stacks = parse_seats(seats)
    if sum(p is not None for p in players) != 3:
        raise ConfigError("seats", "Dou Dizhu needs exactly three occupied seats")
    button = config.get("button")
    if isinstance(button, bool) or not isinstance(button, int) or not 0 <= button < len(seats) \
            or seats[button] is None:
        raise ConfigError("button", f"must be an occupied seat index, got {button!r}")
    deck = check_deck(deck, DECK_SIZE)
    occupied = [s for s in range(len(seats)) if seats[s] is not None]
    first = min((s for s in occupied if s > button), default=occupied[0])
    i = occupied.index(first)
    order = occupied[i:] + occupied[:i]
    hands: list[list[int]] = [[] for _ in seats]
    for k in range(HAND_SIZE * 3):
        hands[order[k % 3]].append(deck[k])
    hands = [sort_cards(h) for h in hands]
    return DoudizhuState(
        options=options, button=button, players=players, start_stacks=list(stacks),
        stacks=list(stacks), order=order, hands=hands, bottom=sort_cards(deck[HAND_SIZE * 3:]),
        bottom_taken=False, phase=BIDDING, bidding=start_bidding(options["bidding"], order),
        landlord=None, to_act=order[0], is_over=False, to_beat=None, passes=0, trick=[],
        history=[], plays_made=[0] * len(seats), bombs=0, rockets=0, result=None,
        open_hand=1, doubled=[None] * len(seats),
    )


def start_events(state: DoudizhuState) -> list[dict[str, Any]]:
    """The events that open a hand: who is dealt in, each seat's 17 cards (private to
    that seat) and who bids first. The bottom cards stay hidden until the auction ends."""
    events: list[dict[str, Any]] = [
        {"type": "hand_start", "button": state.button, "seats": list(state.order),
         "bidding": state.options["bidding"], "stacks": list(state.stacks)},
    ]
    for seat in state.order:
        events.append({"type": "deal", "seat": seat, "count": len(state.hands[seat]),
                       "cards": list(state.hands[seat]), "only": [seat], "secret": ["cards"]})
    events.append({"type": "turn", "seat": state.to_act, "phase": state.phase})
    return events


# --------------------------------------------------------------------------- apply


def apply(state: DoudizhuState, seat: int, action: Mapping[str, Any]) -> tuple[DoudizhuState, list[Event]]:
    """Apply ``action`` by ``seat``; return the new state and the events.

    Raises :class:`IllegalAction` (and leaves ``state`` untouched): ``hand_over``,
    ``not_your_turn``, ``bad_action`` (malformed or unknown action), ``bad_bid``,
    ``cards_not_in_hand``, ``not_a_valid_play``, ``does_not_beat``, ``must_play``.
    In the ``open`` and ``doubling`` phases any type but ``open``/``double`` and ``pass``
    is ``bad_action``.
    """
    if state.is_over:
        raise IllegalAction("hand_over", "the hand is over")
    if isinstance(seat, bool) or not isinstance(seat, int) or seat != state.to_act:
        raise IllegalAction("not_your_turn", f"seat {state.to_act} is to act, not seat {seat!r}")
    if not isinstance(action, Mapping) or not isinstance(action.get("type"), str):
        raise IllegalAction("bad_action", "an action is a map with a string \"type\"")
    if state.phase == BIDDING:
        return _bid(state, seat, action)
    kind = action["type"]
    if state.phase == OPEN:
        return _open(state, seat, kind)
    if state.phase == DOUBLING:
        return _double(state, seat, kind)
    if kind == "play":
        return _play(state, seat, action.get("cards"))
    if kind == "pass":
        return _pass(state, seat)
    raise IllegalAction("bad_action", f"unknown action {kind!r}: play or pass")


def _bid(state: DoudizhuState, seat: int, action: Mapping[str, Any]) -> tuple[DoudizhuState, list[Event]]:
    bidding, events = apply_bid(state.bidding, seat, action)
    new = clone(state)
    new.bidding = bidding
    new.to_act = bidding.to_act
    if not bidding.done:
        return new, events
    if bidding.landlord is None:
        redeal: Event = {"type": "redeal", "reason": "every player passed"}
        new.phase = OVER
        new.is_over = True
        new.to_act = None
        new.result = redeal
        return new, events + [dict(redeal)]
    new.landlord = bidding.landlord
    if new.options.get("open_hand"):  # (absent from a state stored before the option)
        new.phase = OPEN  # the landlord may show the hand before taking the bottom cards
        new.to_act = new.landlord
        return new, events
    events.append(_take_bottom(new))
    _after_open(new)
    return new, events


def _take_bottom(new: DoudizhuState) -> Event:
    """The landlord takes the bottom cards (mutates the fresh copy); the ``landlord`` event."""
    landlord = new.landlord
    assert landlord is not None
    new.hands[landlord] = sort_cards(new.hands[landlord] + new.bottom)
    new.bottom_taken = True
    return {
        "type": "landlord", "seat": landlord, "bottom": list(new.bottom),
        "bottom_ranks": format_counts(counts_from_cards(new.bottom)),
        "multiplier": multiplier_so_far(new), "leads": landlord,
    }


def _after_open(new: DoudizhuState) -> None:
    """Start the doubling round (option ``doubling``: the first peasant speaks first) or
    the play (the landlord leads). Mutates the fresh copy."""
    if new.options.get("doubling"):
        new.phase = DOUBLING
        new.to_act = new.peasants()[0]
    else:
        new.phase = PLAY
        new.to_act = new.landlord


def _open(state: DoudizhuState, seat: int, kind: str) -> tuple[DoudizhuState, list[Event]]:
    """明牌: the landlord shows the hand (``open``) or keeps it hidden (``pass``).

    Before the bottom cards are taken, ``open`` sets the open-hand multiplier to
    ``OPEN_BEFORE_BOTTOM``; ``pass`` takes the bottom cards and asks again, now for
    ``OPEN_AFTER_BOTTOM``. After that second answer the hand goes on (doubling or play).
    """
    if kind not in ("open", "pass"):
        raise IllegalAction("bad_action", f"{kind!r}: the landlord may show the hand (open) or not (pass)")
    new = clone(state)
    events: list[Event] = []
    if kind == "open":
        new.open_hand = OPEN_AFTER_BOTTOM if state.bottom_taken else OPEN_BEFORE_BOTTOM
        events.append({"type": "open_hand", "seat": seat, "cards": list(new.hands[seat]),
                       "ranks": format_counts(counts_from_cards(new.hands[seat])),
                       "before_bottom": not state.bottom_taken, "multiplier": multiplier_so_far(new)})
    else:
        events.append({"type": "pass", "seat": seat, "phase": OPEN})
    if not state.bottom_taken:
        events.append(_take_bottom(new))
        if kind == "pass":
            return new, events  # still the landlord's turn: show the hand now, for less
    _after_open(new)
    return new, events


def _double(state: DoudizhuState, seat: int, kind: str) -> tuple[DoudizhuState, list[Event]]:
    """加倍: ``seat`` doubles (``double``) or not (``pass``); the landlord answers last,
    then leads."""
    if kind not in ("double", "pass"):
        raise IllegalAction("bad_action", f"{kind!r}: double or pass (no double)")
    new = clone(state)
    new.doubled[seat] = kind == "double"
    if kind == "double":
        event: Event = {"type": "double", "seat": seat, "multiplier": seat_multipliers_so_far(new)[seat]}
    else:
        event = {"type": "pass", "seat": seat, "phase": DOUBLING}
    if seat == new.landlord:
        new.phase = PLAY
        new.to_act = new.landlord
    else:
        new.to_act = new.next_seat(seat)
    return new, [event]


def _play(state: DoudizhuState, seat: int, given: Any) -> tuple[DoudizhuState, list[Event]]:
    rules = rules_of(state.options)
    hand = state.hands[seat]
    cards, play = _resolve_play(given, hand, rules)
    if state.to_beat is not None:
        prev = classify(state.to_beat["cards"], rules)
        if prev is None or not beats(play, prev):
            raise IllegalAction(
                "does_not_beat",
                f"{spell_ranks(play.cards)} ({play.kind}) does not beat {spell_ranks(state.to_beat['ranks'])}")
    new = clone(state)
    played = set(cards)
    new.hands[seat] = [c for c in hand if c not in played]
    move: Event = {"seat": seat, "type": "play", "cards": sort_cards(cards),
                   "ranks": play.cards, "kind": play.kind}
    if state.to_beat is None:
        new.trick = []
    new.trick.append(move)
    new.history.append(move)
    new.to_beat = move
    new.passes = 0
    new.plays_made[seat] += 1
    if play.kind == BOMB:
        new.bombs += 1
    elif play.kind == ROCKET:
        new.rockets += 1
    event: Event = dict(move, cards=list(move["cards"]), cards_left=len(new.hands[seat]),
                        multiplier=multiplier_so_far(new))
    if not new.hands[seat]:
        return new, [event, _finish(new, seat)]
    new.to_act = new.next_seat(seat)
    return new, [event]


def _resolve_play(given: Any, hand: list[int], rules: Rules) -> tuple[list[int], Play]:
    """Concrete card ids and the play for a ``cards`` field (ids or a rank string)."""
    if isinstance(given, str):
        if len(given) > MAX_RANK_STRING:
            raise IllegalAction("bad_action", "rank string too long")
        try:
            counts = parse_ranks(given)
        except ValueError as e:
            raise IllegalAction("bad_action", f"bad rank string: {e}") from None
        have = counts_from_cards(hand)
        if any(n > h for n, h in zip(counts, have, strict=True)):
            raise IllegalAction("cards_not_in_hand", f"you do not hold {given!r}")
        play = classify(counts, rules)
        if play is None:
            raise IllegalAction("not_a_valid_play", f"{spell_ranks(format_counts(counts))} is not a valid play")
        return list(cards_for(play, hand)), play
    if not isinstance(given, list | tuple):
        raise IllegalAction("bad_action", "\"cards\" must be a list of card ids or a rank string")
    if len(given) > MAX_CARDS_IN_ACTION:
        raise IllegalAction("not_a_valid_play", f"a play has at most {MAX_CARDS_IN_ACTION} cards")
    if any(isinstance(c, bool) or not isinstance(c, int) for c in given):
        raise IllegalAction("bad_action", "card ids must be integers")
    if len(set(given)) != len(given):
        raise IllegalAction("bad_action", "a card id is repeated")
    held = set(hand)
    if any(c not in held for c in given):
        raise IllegalAction("cards_not_in_hand", "you do not hold all of those cards")
    play = classify(list(given), rules)
    if play is None:
        text = spell_ranks(format_counts(counts_from_cards(given)))
        raise IllegalAction("not_a_valid_play", f"{text} is not a valid play")
    return list(given), play


def _pass(state: DoudizhuState, seat: int) -> tuple[DoudizhuState, list[Event]]:
    if state.to_beat is None:
        raise IllegalAction("must_play", "you lead this trick: play something")
    new = clone(state)
    move: Event = {"seat": seat, "type": "pass"}
    new.trick.append(move)
    new.history.append(move)
    new.passes += 1
    events: list[Event] = [dict(move)]
    if new.passes == 2:
        leader = state.to_beat["seat"]
        new.to_beat = None
        new.passes = 0
        new.to_act = leader
        events.append({"type": "trick_won", "seat": leader, "leads": leader})
    else:
        new.to_act = new.next_seat(seat)
    return new, events


def multiplier_so_far(state: DoudizhuState) -> int:
    """The hand's multiplier so far (bidding, bombs, rocket, open hand; no spring yet), capped."""
    return running_multiplier(max(bid_multiplier(state.bidding), 1), state.bombs, state.rockets,
                              state.options["max_multiplier"], state.open_hand)


def seat_multipliers_so_far(state: DoudizhuState) -> list[int | None]:
    """Each seat's own multiplier so far (doubling included, no spring yet); all ``None``
    before the landlord is known."""
    landlord = state.landlord
    if landlord is None:
        return [None] * len(state.players)
    uncapped = running_multiplier(max(bid_multiplier(state.bidding), 1), state.bombs, state.rockets, 0,
                                  state.open_hand)
    peasants = [s for s in state.order if s != landlord]  # (in either order: each settles on its own)
    pairs = pair_multipliers(uncapped, state.doubled, landlord, peasants, state.options["max_multiplier"])
    return seat_multipliers(pairs, landlord, peasants, len(state.players))


def _finish(new: DoudizhuState, winner: int) -> Event:
    """Settle the hand won by ``winner`` going out (mutates the fresh copy)."""
    landlord = new.landlord
    assert landlord is not None
    peasants = new.peasants()
    landlord_won = winner == landlord
    spring = is_spring(landlord_won, sum(new.plays_made[p] for p in peasants))
    anti_spring = is_anti_spring(landlord_won, new.plays_made[landlord])
    cap = new.options["max_multiplier"]
    multiplier = compute_multiplier(bid_multiplier(new.bidding), new.bombs, new.rockets, spring,
                                    anti_spring, cap, new.open_hand)
    pairs = pair_multipliers(multiplier.uncapped, new.doubled, landlord, peasants, cap)
    stake = new.options["stake"]
    settlement = settle(new.stacks, landlord, peasants, landlord_won, multiplier.final, stake, pairs)
    new.stacks = list(settlement.stacks)
    new.phase = OVER
    new.is_over = True
    new.to_act = None
    new.to_beat = None
    result: Event = {
        "type": "hand_over",
        "winner": "landlord" if landlord_won else "peasants",
        "out_seat": winner,
        "landlord": landlord,
        "peasants": list(peasants),
        "bidding": new.bidding.style,
        "bid": new.bidding.high_bid if new.bidding.style == "score" else None,
        "robs": new.bidding.robs if new.bidding.style == "rob" else None,
        "multiplier": multiplier.to_wire(),
        "doubled": list(new.doubled),
        "seat_multipliers": seat_multipliers(pairs, landlord, peasants, len(new.players)),
        "stake": stake,
        "points": list(settlement.points),
        "owed": list(settlement.owed),
        "chips": list(settlement.chips),
        "short": settlement.short,
        "stacks": list(settlement.stacks),
        "hands": [list(h) if new.players[s] is not None else None for s, h in enumerate(new.hands)],
    }
    new.result = result
    return copy.deepcopy(result)  # the caller may change its events; the state keeps its own


# --------------------------------------------------------------------------- timeout


def timeout_action(state: DoudizhuState, seat: int) -> dict[str, Any]:
    """The action taken when ``seat``'s clock runs out.

    Pass whenever passing is allowed (in the auction, the open-hand choice and the
    doubling round it always is: a timeout never shows the hand nor doubles); when
    leading a trick, play the lowest single card (the lowest rank, then the lowest card id).
    """
    if state.phase == PLAY and state.to_beat is None and state.to_act == seat:
        return {"type": "play", "cards": [sort_cards(state.hands[seat])[0]]}
    return {"type": "pass"}
