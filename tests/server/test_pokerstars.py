"""``cardroom history --format pokerstars``: stored Hold'em hands in the PokerStars
hand-history layout, read back by an independent parser (PokerKit's ``PokerStarsParser``,
a dev dependency) whose replay of the hand must end with the stacks our engine stored.

Hands are stored as the server stores them (room created, then one stream entry per
change, committed through :class:`server.store.Store` into the test Redis), from scripted
actions on a table dealt from a deck derived by :mod:`engine.fairness`; one hand is played
over real sockets by ``test_history.play_one_hand``.
"""

from __future__ import annotations

import hashlib
import json
import re
import warnings
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime
from re import compile as regex
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from pokerkit.notation import HandHistory, PokerStarsParser
from redis.asyncio import Redis

from engine import fairness
from engine.cards import format_cards
from engine.holdem.pokerstars import describe_value, hand_number
from server.cli import main
from server.games import GAMES
from server.room import table as tbl
from server.store import Store, lease_token, pack

HOLDEM = GAMES["holdem"]
NAMES = ("Alice", "Bob", "Carol", "Dave", "Eve", "Frank")
SERVER_SEED = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"  # docs/fairness.md
NEXT_SEED = "ff" * 32


@dataclass
class Stored:
    room: str
    events: list[dict[str, Any]]  # every event stored, in order

    @property
    def final_stacks(self) -> list[int | None]:
        return next(e for e in self.events if e["type"] == "hand_ended")["stacks"]

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [e for e in self.events if e["type"] == kind]


async def store_scripted_hand(url: str, prefix: str, room: str, stacks: list[int | None], script: list[str],
                              *, ante: int = 0, proof: bool = True, seeds: dict[int, str] | None = None,
                              finish: bool = True) -> Stored:
    """Seat ``NAMES[i]`` with ``stacks[i]`` (None: an empty seat), deal one Hold'em hand
    (blinds 50/100) from the deck of :data:`SERVER_SEED` and play ``script`` (``"call"``,
    ``"raise:300"``, ``"all_in"`` ...: each the action of the seat to act), committing each
    change like the server. ``proof``: put the hand's fairness objects into its
    ``hand_started`` and ``hand_ended`` events, as the server publishes them."""
    seeds = seeds or {}
    t = tbl.Table(room=room, game="holdem", config=HOLDEM.parse_config({"ante": ante}), seats=[None] * len(stacks),
                  options={"name": "Friday 'home' game", "action_seconds": 30, "between_hands_seconds": 0,
                           "buy_in_min": 1, "buy_in_max": 10**6})
    joins: list[dict[str, Any]] = []
    for seat, stack in enumerate(stacks):
        if stack is not None:
            joins += tbl.sit(t, f"p-{seat}", NAMES[seat], seat, stack)[1]
    r = Redis.from_url(url)
    store = Store(r, prefix=prefix)
    await store.create_room(room, "holdem", tbl.to_dict(t, HOLDEM), joins, 0, "n-test", 60_000)
    version, stored = 1, list(joins)

    async def commit(events: list[dict[str, Any]]) -> None:
        nonlocal version
        version = await store.commit(room, lease_token("n-test", 1), version, pack(tbl.to_dict(t, HOLDEM)), events)
        stored.extend(events)

    ready = tbl.ready_seats(t)
    client_seeds = [seeds.get(s, "") for s in ready]
    deck = fairness.derive_deck(SERVER_SEED, room, 1, client_seeds, 52)
    events = tbl.start_hand(t, HOLDEM, deck, 0)
    public = {"scheme": fairness.SCHEME, "commitment": fairness.commitment(SERVER_SEED),
              "seeds": [{"seat": s, "seed": seeds.get(s, "")} for s in ready], "deck_size": 52,
              "deal_order": fairness.deal_order(GAMES["holdem"], t.hand, deck)}

    def add_proof(events: list[dict[str, Any]]) -> None:
        for e in events:
            if proof and e["type"] == "hand_started":
                e["fairness"] = dict(public)
            if proof and e["type"] == "hand_ended":
                e["fairness"] = dict(public, server_seed=SERVER_SEED, next_commitment=fairness.commitment(NEXT_SEED))

    add_proof(events)
    await commit(events)
    for step in script:
        kind, _, amount = step.partition(":")
        action = {"type": kind, **({"to": int(amount)} if amount else {})}
        events = tbl.act(t, HOLDEM, t.hand.to_act, action, 0)
        add_proof(events)
        await commit(events)
    assert tbl.playing(t) != finish, "the script does not fit the hand"
    await r.aclose()
    return Stored(room, stored)


# The four hands of the issue: a showdown (with a muck), everyone folding to a raise (the
# uncalled part returned), all-ins making two side pots, and antes.
SCENARIOS: dict[str, dict[str, Any]] = {
    "showdown": {"stacks": [2000, 2000, 2000],
                 "script": ["raise:300", "call", "call", "bet:200", "fold", "call", "check", "check", "check",
                            "check"]},
    "folds": {"stacks": [2000, 1500, None, 2500], "script": ["raise:250", "raise:700", "fold", "fold"]},
    "side_pots": {"stacks": [1500, 3000, 4000, 500], "script": ["all_in", "all_in", "all_in", "call"]},
    "ante": {"stacks": [2000, 2000, 2000], "ante": 25,
             "script": ["call", "call", "check", "bet:100", "call", "raise:400", "call", "call", "check",
                        "check", "check", "check", "check", "check"]},
}


@pytest.fixture
def history(redis_url, prefix, capsys):
    def run(*argv: str) -> tuple[int, str, str]:
        status = main(["history", "--redis-url", redis_url, "--prefix", prefix, *argv])
        captured = capsys.readouterr()
        return status, captured.out, captured.err
    return run


@pytest.fixture
def store_hand(redis_url, prefix):
    async def store(name: str, room: str | None = None, **overrides: Any) -> Stored:
        spec = dict(SCENARIOS[name], **overrides)
        return await store_scripted_hand(redis_url, prefix, room or f"r-{name.replace('_', '')}", spec.pop("stacks"),
                                         spec.pop("script"), **spec)
    return store


@dataclass
class AntePokerStarsParser(PokerStarsParser):
    """PokerKit 0.7.7's PokerStars parser reads no antes (its ``ANTE_POSTING`` matches
    nothing); this is the pattern of PokerStars' ante line, ``Bob: posts the ante 25``."""

    ANTE_POSTING = regex(r"(?P<player>.+): posts the ante \D?(?P<ante>[0-9.]+)")


def parse(text: str) -> list[HandHistory]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # PokerKit warns about its own time zone field
        return list(AntePokerStarsParser()(text, error_status=True))


def pk_cards(cards: list[int]) -> str:
    return format_cards(cards).replace(" ", "")


def expected_actions(stored: Stored, index: dict[int, str]) -> list[str]:
    """The actions, in PokerKit's notation (PHH), that the hand's events amount to: hole
    cards dealt (``d dh``), board cards (``d db``), folds ``f``, checks and calls ``cc``,
    bets and raises ``cbr <to>``, hands shown ``sm <cards>``."""
    deals = sorted(stored.of("deal"), key=lambda e: index[e["seat"]])
    out = [f"d dh {index[e['seat']]} {pk_cards(e['cards'])}" for e in deals]
    for e in stored.events:
        if e["type"] == "action":
            p = index[e["seat"]]
            out.append(f"{p} f" if e["action"] == "fold" else f"{p} cbr {e['to']}" if "to" in e and e["action"] != "call"
                       else f"{p} cc")
        elif e["type"] == "board":
            out.append(f"d db {pk_cards(e['cards'])}")
        elif e["type"] == "showdown":
            out += [f"{index[h['seat']]} sm {pk_cards(h['cards'])}" for h in e["hands"]]
    return out


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
async def test_pokerkit_parses_the_export_and_replays_it_to_the_stored_stacks(store_hand, history, scenario):
    stored = await store_hand(scenario)
    status, out, err = history("--room", stored.room, "--format", "pokerstars")
    assert status == 0, err
    (hh,) = parse(out)
    joined = {e["seat"]: e for e in stored.of("joined")}
    dealt = next(e for e in stored.events if e["type"] == "hand_started")["seats"]
    # players, their seats (1-based) and stacks
    assert sorted(hh.players) == sorted(joined[s]["name"] for s in dealt)
    assert {p: seat for p, seat in zip(hh.players, hh.seats, strict=True)} == {joined[s]["name"]: s + 1 for s in dealt}
    assert {p: chips for p, chips in zip(hh.players, hh.starting_stacks, strict=True)} == \
        {joined[s]["name"]: joined[s]["stack"] for s in dealt}
    # blinds, antes, the hand's identity
    antes = {p: a for p, a in zip(hh.players, hh.antes, strict=True) if a}
    assert antes == {joined[e["seat"]]["name"]: e["amount"] for e in stored.of("ante")}
    assert sorted(b for b in hh.blinds_or_straddles if b) == [50, 100]
    assert hh.hand == hand_number(stored.room, 1) and hh.table == "Friday ’home’ game" and hh.seat_count == len(SCENARIOS[scenario]["stacks"])
    # board and actions
    boards = stored.of("board")
    assert "".join(a.removeprefix("d db ") for a in hh.actions if a.startswith("d db ")) == \
        pk_cards(boards[-1]["board"] if boards else [])
    index = {s: f"p{hh.players.index(joined[s]['name']) + 1}" for s in dealt}
    # PokerKit writes a hand nobody showed (a muck, or each live hand before each street of
    # an all-in run-out) as "sm ????"
    assert [a for a in hh.actions if not a.endswith(" sm ????")] == expected_actions(stored, index)
    mucked = stored.of("showdown")[0]["mucked"] if stored.of("showdown") else []
    assert {a.split()[0] for a in hh.actions if a.endswith(" sm ????")} >= {index[s] for s in mucked}
    # PokerKit plays the hand through its own engine: it must end where ours did
    final = list(hh)[-1]
    assert not final.status  # the hand is over
    by_name = {p: i for i, p in enumerate(hh.players)}
    assert {joined[s]["name"]: final.stacks[by_name[joined[s]["name"]]] for s in dealt} == \
        {joined[s]["name"]: stored.final_stacks[s] for s in dealt}
    # winnings: PokerKit's own payoffs (its parsed ``winnings`` field reads only summary lines
    # of seats without a position marker, so it is not compared)
    assert {p: final.payoffs[i] for i, p in enumerate(hh.players)} == \
        {joined[s]["name"]: stored.final_stacks[s] - joined[s]["stack"] for s in dealt}


# The lines of a PokerStars No-Limit Hold'em hand history, as PokerStars writes them for a
# play-money cash game (the layout of the hand histories saved by the PokerStars client,
# e.g. "PokerStars Hand #27853256817: Hold'em No Limit (10/20) - 2009/05/05 1:02:37 ET";
# the same lines PokerKit's PokerStarsParser and the trackers' importers read).
NAME = r"[^\s:()\[\]][^:()\[\]]*?"
CARDS = r"\[(?:[2-9TJQKA][cdhs] ?)+\]"
POSITION = r"(?: \((?:button|small blind|big blind)\))*"
LAYOUT = [re.compile(p) for p in (
    r"PokerStars Hand #\d{1,19}: Hold'em No Limit \(\d+/\d+\) - \d{4}/\d\d/\d\d \d\d:\d\d:\d\d ET",
    r"Table '[^']+' \d+-max Seat #\d+ is the button",
    rf"Seat \d+: {NAME} \(\d+ in chips\)",
    rf"{NAME}: posts (?:the ante|small blind|big blind) \d+(?: and is all-in)?",
    r"\*\*\* HOLE CARDS \*\*\*",
    rf"Dealt to {NAME} {CARDS}",
    rf"{NAME}: (?:folds|checks)",
    rf"{NAME}: (?:calls|bets) \d+(?: and is all-in)?",
    rf"{NAME}: raises \d+ to \d+(?: and is all-in)?",
    rf"{NAME} has timed out",
    rf"Uncalled bet \(\d+\) returned to {NAME}",
    rf"\*\*\* FLOP \*\*\* {CARDS}",
    rf"\*\*\* (?:TURN|RIVER) \*\*\* {CARDS} {CARDS}",
    r"\*\*\* SHOW DOWN \*\*\*",
    rf"{NAME}: shows {CARDS} \(.+\)",
    rf"{NAME}: (?:mucks hand|doesn't show hand)",
    rf"{NAME} collected \d+ from (?:pot|main pot|side pot|side pot-\d+)",
    r"\*\*\* SUMMARY \*\*\*",
    r"Total pot \d+(?: Main pot \d+\.(?: Side pot(?:-\d+)? \d+\.)+)? \| Rake 0",
    rf"Board {CARDS}",
    rf"Seat \d+: {NAME}{POSITION} (?:folded before Flop(?: \(didn't bet\))?|folded on the (?:Flop|Turn|River)"
    rf"|showed {CARDS} and (?:won \(\d+\) with|lost with) .+|mucked(?: {CARDS})?|collected \(\d+\))",
)]


def chips_moved(text: str) -> dict[str, Any]:
    """Read our own export back: per player the chips put in (antes, blinds, calls, bets
    and raises) and returned, and what each pot paid out."""
    put: Counter[str] = Counter()
    back: Counter[str] = Counter()
    collected: Counter[str] = Counter()
    street: dict[str, int] = {}  # chips in front of each player on this street
    for line in text.splitlines():
        if re.match(r"\*\*\* (FLOP|TURN|RIVER) ", line):
            street = {}
        if m := re.fullmatch(r"(.+): posts (the ante|small blind|big blind) (\d+)(?: and is all-in)?", line):
            put[m[1]] += int(m[3])
            if m[2] != "the ante":
                street[m[1]] = street.get(m[1], 0) + int(m[3])
        elif m := re.fullmatch(r"(.+): (calls|bets) (\d+)(?: and is all-in)?", line):
            added = int(m[3])
            put[m[1]] += added
            street[m[1]] = street.get(m[1], 0) + added
        elif m := re.fullmatch(r"(.+): raises (\d+) to (\d+)(?: and is all-in)?", line):
            assert int(m[3]) - int(m[2]) == max(street.values(), default=0)  # "raises <increment> to <total>"
            put[m[1]] += int(m[3]) - street.get(m[1], 0)
            street[m[1]] = int(m[3])
        elif m := re.fullmatch(r"Uncalled bet \((\d+)\) returned to (.+)", line):
            back[m[2]] += int(m[1])
        elif m := re.fullmatch(r"(.+) collected (\d+) from .*pot.*", line):
            collected[m[1]] += int(m[2])
    total = re.search(r"^Total pot (\d+)", text, re.M)
    seats = {m[2]: (int(m[1]), int(m[3])) for m in re.finditer(r"^Seat (\d+): (.+) \((\d+) in chips\)$", text, re.M)}
    return {"put": put, "back": back, "collected": collected, "total": int(total[1]) if total else None, "seats": seats}


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
async def test_every_line_is_a_pokerstars_line_and_every_chip_is_accounted_for(store_hand, history, scenario):
    stored = await store_hand(scenario)
    out = history("--room", stored.room, "--format", "pokerstars")[1]
    lines = out.splitlines()
    for line in lines:
        assert any(p.fullmatch(line) for p in LAYOUT), line
    # the order of the sections
    marks = [line for line in lines if line.startswith("*** ")]
    assert marks[0] == "*** HOLE CARDS ***" and marks[-1] == "*** SUMMARY ***"
    assert lines.index("*** HOLE CARDS ***") > max(i for i, line in enumerate(lines) if " posts " in line)
    moved = chips_moved(out)
    # the pot: what went in less what came back, paid out in full
    assert moved["total"] == sum(moved["put"].values()) - sum(moved["back"].values()) == sum(moved["collected"].values())
    summary = lines[lines.index("*** SUMMARY ***"):]
    assert sum(int(x) for x in re.findall(r"(?:won|collected) \((\d+)\)", "\n".join(summary))) == moved["total"]
    # every seat line: the seat (1-based), the name and the stack the hand started with
    joined = {e["seat"]: e for e in stored.of("joined")}
    assert moved["seats"] == {e["name"]: (s + 1, e["stack"]) for s, e in joined.items()}
    assert [line.split(":")[0] for line in summary if line.startswith("Seat ")] == \
        [f"Seat {s + 1}" for s in sorted(joined)]
    # each stack after the hand: before, less what went in, plus what came back and was won
    for s, e in joined.items():
        name = e["name"]
        assert e["stack"] - moved["put"][name] + moved["back"][name] + moved["collected"][name] == stored.final_stacks[s]


async def test_the_four_hands_read_as_pokerstars_writes_them(store_hand, history):
    showdown = (await store_hand("showdown")).room
    out = history("--room", showdown, "--format", "pokerstars")[1]
    lines = out.splitlines()
    assert lines[1] == "Table 'Friday ’home’ game' 3-max Seat #1 is the button"
    assert lines[2:5] == ["Seat 1: Alice (2000 in chips)", "Seat 2: Bob (2000 in chips)", "Seat 3: Carol (2000 in chips)"]
    assert lines[5:8] == ["Bob: posts small blind 50", "Carol: posts big blind 100", "*** HOLE CARDS ***"]
    assert "Alice: raises 200 to 300" in lines and "Bob: calls 250" in lines and "Carol: calls 200" in lines
    assert "Bob: bets 200" in lines and "Carol: folds" in lines
    assert [line for line in lines if line.startswith("*** ")] == [
        "*** HOLE CARDS ***", *(line for line in lines if re.match(r"\*\*\* (FLOP|TURN|RIVER)", line)),
        "*** SHOW DOWN ***", "*** SUMMARY ***"]
    assert re.search(r"^\*\*\* TURN \*\*\* \[\w\w \w\w \w\w\] \[\w\w\]$", out, re.M)
    assert "Seat 3: Carol (big blind) folded on the Flop" in lines
    assert any(line.endswith("mucks hand") for line in lines) and "Total pot 1300 | Rake 0" in lines

    folds = (await store_hand("folds")).room
    lines = history("--room", folds, "--format", "pokerstars")[1].splitlines()
    assert lines[1] == "Table 'Friday ’home’ game' 4-max Seat #1 is the button"
    assert [line for line in lines if line.startswith("Seat ") and "in chips" in line] == [
        "Seat 1: Alice (2000 in chips)", "Seat 2: Bob (1500 in chips)", "Seat 4: Dave (2500 in chips)"]
    assert lines[lines.index("*** HOLE CARDS ***") + 4:] == [
        "Alice: raises 150 to 250", "Bob: raises 450 to 700", "Dave: folds", "Alice: folds",
        "Uncalled bet (450) returned to Bob", "Bob collected 600 from pot", "Bob: doesn't show hand",
        "*** SUMMARY ***", "Total pot 600 | Rake 0",
        "Seat 1: Alice (button) folded before Flop", "Seat 2: Bob (small blind) collected (600)",
        "Seat 4: Dave (big blind) folded before Flop"]

    side = (await store_hand("side_pots")).room
    out = history("--room", side, "--format", "pokerstars")[1]
    assert "Dave: raises 400 to 500 and is all-in" in out and "Carol: calls 2900\n" in out
    assert "Total pot 8000 Main pot 2000. Side pot-1 3000. Side pot-2 3000. | Rake 0" in out
    assert re.search(r"collected 2000 from main pot$", out, re.M) and re.search(r"collected 3000 from side pot-2$", out, re.M)
    assert "*** SHOW DOWN ***" in out and out.count(": shows [") == 4  # all-in: every hand face up

    ante = (await store_hand("ante")).room
    out = history("--room", ante, "--format", "pokerstars")[1]
    lines = out.splitlines()
    assert lines[5:10] == ["Bob: posts the ante 25", "Carol: posts the ante 25", "Alice: posts the ante 25",
                           "Bob: posts small blind 50", "Carol: posts big blind 100"]
    assert "Alice: raises 300 to 400" in lines and "Total pot 1575 | Rake 0" in lines


async def test_a_seat_sees_its_own_cards_and_the_shown_ones_a_spectator_only_the_shown(store_hand, history):
    stored = await store_hand("showdown")
    deals = {e["seat"]: e["cards"] for e in stored.of("deal")}
    shown = {h["seat"] for h in stored.of("showdown")[0]["hands"]}
    mucked = set(stored.of("showdown")[0]["mucked"])
    full = history("--room", stored.room, "--format", "pokerstars")[1]
    assert all(f"Dealt to {NAMES[s]} [{format_cards(c)}]" in full for s, c in deals.items())
    assert all(f"Seat {s + 1}: {NAMES[s]} (button) mucked [{format_cards(deals[s])}]" in full for s in mucked)
    for seat in range(3):
        out = history("--room", stored.room, "--format", "pokerstars", "--as-seat", str(seat))[1]
        assert [line for line in out.splitlines() if line.startswith("Dealt to")] == \
            [f"Dealt to {NAMES[seat]} [{format_cards(deals[seat])}]"]
        for other, cards in deals.items():
            assert (format_cards(cards) in out) == (other == seat or other in shown)
        (hh,) = parse(out)
        assert sorted(hh.players) == sorted(NAMES[:3])
    watcher = history("--room", stored.room, "--format", "pokerstars", "--spectator")[1]
    assert "Dealt to" not in watcher
    assert all((format_cards(c) in watcher) == (s in shown) for s, c in deals.items())
    (hh,) = parse(watcher)
    final = list(hh)[-1]
    assert sorted(final.stacks) == sorted(stored.final_stacks)  # the shown hand decides; the muck is not needed


async def test_a_hand_played_over_the_wire_exports_and_replays(make_app, history):
    from .test_history import play_one_hand, stream_events

    played = await play_one_hand(make_app, "holdem")
    status, out, err = history("--room", played["room"], "--format", "pokerstars", "--last", "1")
    assert status == 0, err
    (hh,) = parse(out)
    events = await stream_events(played["app"], played["room"])
    final = next(e for e in events if e["type"] == "hand_ended")["stacks"]
    assert sorted(hh.players) == ["player0", "player1"] and hh.starting_stacks == [2000, 2000]
    replayed = list(hh)[-1]
    assert {p: replayed.stacks[i] for i, p in enumerate(hh.players)} == {"player0": final[0], "player1": final[1]}
    started = next(e for e in events if e["type"] == "hand_started")
    assert hh.hand == hand_number(played["room"], started["hand_no"])
    # the time: the hand's first stream entry (as --format jsonl gives it) in US Eastern time
    time_ms = json.loads(history("--room", played["room"], "--format", "jsonl")[1])["time_ms"]
    eastern = datetime.fromtimestamp(time_ms / 1000, ZoneInfo("America/New_York"))
    assert (hh.year, hh.month, hh.day, hh.time) == (eastern.year, eastern.month, eastern.day,
                                                     eastern.time().replace(microsecond=0))
    assert out.splitlines()[0].endswith(eastern.strftime(" - %Y/%m/%d %H:%M:%S ET"))


def test_hand_numbers_are_a_documented_hash_of_room_and_hand():
    digest = hashlib.sha256(b"cardroom|r-1a2b3c4d|7").digest()
    assert hand_number("r-1a2b3c4d", 7) == int.from_bytes(digest[:8], "big") % 10**18
    numbers = {hand_number(f"r-{room:08x}", n) for room in range(50) for n in range(1, 201)}
    assert len(numbers) == 50 * 200  # unique across rooms and hands
    assert hand_number("r-1a2b3c4d", 7) == hand_number("r-1a2b3c4d", 7)


def test_times_are_us_eastern():
    from engine.holdem.pokerstars import stars_time

    ms = int(datetime(2026, 1, 15, 17, 30, 5, tzinfo=UTC).timestamp() * 1000)
    assert stars_time(ms) == "2026/01/15 12:30:05 ET"  # EST, UTC-5
    summer = int(datetime(2026, 7, 15, 17, 30, 5, tzinfo=UTC).timestamp() * 1000)
    assert stars_time(summer) == datetime.fromtimestamp(summer / 1000, ZoneInfo("America/New_York")) \
        .strftime("%Y/%m/%d %H:%M:%S ET") == "2026/07/15 13:30:05 ET"  # EDT, UTC-4


def test_showdown_descriptions_are_pokerstars_words():
    from engine.cards import parse_cards
    from engine.holdem import evaluate

    def words(text: str) -> str:
        return describe_value(evaluate(parse_cards(text)))

    assert words("As Ks Qs Js Ts") == "a Royal Flush"
    assert words("9h 8h 7h 6h 5h") == "a straight flush, Five to Nine"
    assert words("Ac Ad Ah As 2c") == "four of a kind, Aces"
    assert words("Kc Kd Kh 4s 4c") == "a full house, Kings full of Fours"
    assert words("Ac 9c 7c 4c 2c") == "a flush, Ace high"
    assert words("Ac 2d 3h 4s 5c") == "a straight, Ace to Five"
    assert words("Tc Jd Qh Ks Ac") == "a straight, Ten to Ace"
    assert words("7c 7d 7h Ks 2c") == "three of a kind, Sevens"
    assert words("Ac Ad 4h 4s 9c") == "two pair, Aces and Fours"
    assert words("6c 6d Ah 9s 2c") == "a pair of Sixes"
    assert words("Ac Jd 8h 4s 2c") == "high card Ace"


async def test_unusual_names_stay_parseable_and_distinct(redis_url, prefix, history, monkeypatch):
    monkeypatch.setattr(f"{__name__}.NAMES", ("Bob: folds", "Bob: folds", "[x] (y)"))
    stored = await store_scripted_hand(redis_url, prefix, "r-names", [2000, 2000, 2000], SCENARIOS["showdown"]["script"])
    out = history("--room", stored.room, "--format", "pokerstars")[1]
    assert "Seat 1: Bob_ folds (2000 in chips)" in out and "Seat 2: Bob_ folds_2 (2000 in chips)" in out
    assert "Seat 3: _x_ _y_ (2000 in chips)" in out
    (hh,) = parse(out)
    assert sorted(hh.players) == ["Bob_ folds", "Bob_ folds_2", "_x_ _y_"]


async def test_pokerstars_needs_a_holdem_room_and_a_finished_hand(make_app, history, store_hand):
    from .test_history import play_one_hand

    zjh = (await play_one_hand(make_app, "zhajinhua"))["room"]
    status, out, err = history("--room", zjh, "--format", "pokerstars")
    assert status == 2 and out == "" and "for No-limit Texas Hold'em rooms; room " in err and "plays zhajinhua" in err
    status, _, err = history("--format", "pokerstars")
    assert status == 2 and "--format pokerstars needs --room" in err
    status, _, err = history("--room", zjh, "--format", "jsonl", "--json")
    assert status == 2 and "do not go together" in err
    playing = await store_hand("showdown", room="r-playing", script=["raise:300"], finish=False)
    status, out, err = history("--room", playing.room, "--format", "pokerstars")
    assert status == 0 and out == ""  # the hand being played is left out
    status, out, err = history("--room", playing.room, "--format", "pokerstars", "--hand", "1")
    assert status == 2 and "hand 1 of room r-playing is not finished" in err
