"""The wire protocol in one place: subprotocols, close codes, server message types, room
events and error codes (the client messages are typed structs in :mod:`server.edge.messages`).

Every frame carries one message: a map with a type field ``t``. Requests may carry a
``ref`` (a string or an integer) that the server echoes in its reply or error.
``docs/protocol.md`` documents each name defined here; a test fails when one is missing.
"""

from __future__ import annotations

from typing import Any

#: The version of the protocol docs/protocol.md describes, said in every ``welcome``. It
#: grows when a change would break a client written for the version before (a message or a
#: member removed, or one that means something else); what such a client may ignore (a new
#: message, a new member, a new error code) leaves it as it is. A ``hello`` may say the
#: version its client was written for: another one gets ``unsupported_protocol``.
PROTOCOL_VERSION = 1

SUBPROTOCOL_MSGPACK = "cardroom.msgpack"
SUBPROTOCOL_JSON = "cardroom.json"
SUBPROTOCOLS = (SUBPROTOCOL_MSGPACK, SUBPROTOCOL_JSON)

#: WebSocket close codes the server uses (besides 1000 and websockets' own 1009/1011).
CLOSE_NORMAL = 1000  # an idle connection closed after --idle-timeout
CLOSE_GOING_AWAY = 1001  # server shutting down
CLOSE_POLICY = 1008  # persistent flooding, or a client too slow to read its messages


# Server -> client message types.
SERVER_MESSAGES: dict[str, str] = {
    "welcome": "reply to hello: your player id, name, session token, wallet, the seats you hold and the "
               "protocol version",
    "rooms": "the room list (reply to list_rooms, and pushed on lobby changes when watching)",
    "room": "a full room snapshot for this viewer (reply to create_room/join/spectate/sync, and on resume)",
    "update": "one change of a room for this viewer: its events and a merge patch of the viewer's snapshot",
    "event": "one thing that happened in a room, filtered for this viewer (inside updates; alone after create_room)",
    "ack": "an act was accepted (or had already been accepted): room, action id, version",
    "left": "you left a seat (or stopped watching); pending while your hand is still being played",
    "pong": "reply to ping, with the server clock (and sign_in, where players sign in with the operator's "
            "identity tokens)",
    "room_found": "reply to find_room: the private room a join code names (room, game, name)",
    "history": "reply to history: your recent hands of a room, as you saw them (a league room's: as a spectator)",
    "record": "reply to my_record: your hands played and net chips per game, and your last results",
    "leagues": "reply to list_leagues: the bot leagues run on this server, one summary each",
    "league": "reply to league (and to league_create, league_enter, league_run): a league's settings, "
              "standings, results over the deals, its matches' rooms and the state of its run",
    "league_export": "reply to league_export: a league's standings and every match record (seeds, each hand's "
                     "result per entrant)",
    "league_seat": "pushed to an entrant of a league the servers run: a match gave you this seat of this room",
    "banned": "pushed before an operator's ban closes the connection: reason",
    "wallet": "pushed when an operator credited or debited your wallet: wallet, change, reason",
    "said": "answer to say: the line is in the room's chat (room, version)",
    "chat": "the room chat's last lines (up to 30 chat events), sent after each room snapshot when anyone talked",
    "error": "a request failed: stable code, message, the request's ref",
}

# Room events the server itself adds to a room's event stream (engine events pass through).
ROOM_EVENTS: dict[str, str] = {
    "joined": "a player sat down: seat, player, name, stack (and bot: true for a bot seat)",
    "left": "a player stood up: seat, player, stack (returned to the wallet), reason (left, busted, "
            "sat_out: freed after sitting out --sit-out-minutes, removed: by the room's creator or an operator, "
            "closed: the room was closed by an operator)",
    "sat_out": "a seat is sitting out (not dealt in): seat, reason",
    "sat_in": "a seat is back in: seat",
    "auto_play": "a seat was handed to auto-play or taken back: seat, on, reason (asked, timeouts, disconnected)",
    "time_bank": "a seat's turn clock ran out and goes on from its time bank: seat, bank_ms",
    "leaving": "a seated player asked to leave during a hand: seat",
    "hand_started": "a new hand: hand number, button seat, seats and players dealt in, fairness proof",
    "timed_out": "a seat's clock ran out and the server acted for it: seat, action",
    "hand_ended": "the hand is over: hand number, final stacks by seat",
    "rebuy": "a busted (or too short) bot seat bought in again with newly granted chips: seat, player, amount, stack",
    "stack_reset": "a league room's seat set back to the match's stack after a hand: seat, player, amount, stack",
    "eliminated": "a sit-and-go league seat ran out of chips and is out: seat, player, place",
    "placed": "a sit-and-go league match is over: the seats still in placed by stack (1 = winner): seat, player, place",
    "closing": "an operator closes the room once the hand being played is over: reason",
    "locked": "the room's creator locked the room (nobody new sits down) or opened it again: locked",
    "chat": "a line in the room's chat: seat (None: a spectator), player, name, text, time_ms",
    "room_closed": "the room is closed: nobody sat in it for --empty-room-minutes (reason empty), its "
                   "league match is over (reason match_over), or an operator closed it (reason operator); "
                   "its history stays",
}

# Server error codes. Engine IllegalAction codes (not_your_turn, bad_amount, ...) are
# passed through unchanged in addition to these.
ERROR_CODES: dict[str, str] = {
    "bad_frame": "the frame could not be decoded (bad JSON or msgpack, or the wrong frame kind)",
    "frame_too_large": "the frame is larger than the configured limit (default 64 KiB)",
    "bad_message": "the message is not a map with a string t, or a field is missing or has the wrong type",
    "unknown_type": "no client message has this t",
    "not_authenticated": "send hello first",
    "already_authenticated": "this connection already said hello",
    "unsupported_protocol": "hello: the client was written for another version of the protocol than this "
                            "server's (protocol says which it speaks); nothing changed",
    "bad_token": "no player has this session token (token), or the identity token (id_token) signs nobody "
                 "in: reason says why (not_accepted, malformed, alg_not_allowed, unknown_key, bad_signature, expired, "
                 "not_yet_valid, wrong_issuer, wrong_audience, missing_claim, bad_claim)",
    "auth_required": "this server takes players signed in by the operator's site only: hello with an "
                     "id_token (login_url, when given, is where to get one)",
    "auth_unavailable": "the identity token could not be checked now (the operator's keys could not be "
                        "fetched); nothing changed: retry",
    "no_such_game": "the server hosts no game with this name",
    "bad_config": "a room option or game option is invalid; field names it",
    "no_such_room": "no room has this id",
    "no_such_league": "no league of this name was run on this server",
    "bad_league": "league_create or league_enter: a setting is invalid (the message says which)",
    "league_exists": "league_create: a league of this name exists already",
    "not_league_owner": "only the player who made the league may enter built-ins and run it (and a league run "
                        "by the operator's cardroom league command takes no protocol changes)",
    "already_entered": "league_enter: you are an entrant of this league already",
    "entrant_taken": "league_enter: the league has an entrant of this name already",
    "league_full": "league_enter: the league has the most entrants it takes (32)",
    "too_few_entrants": "league_run: fewer entrants than a match's seats",
    "league_limit": "league_create / league_run: past what one player may ask (10 leagues each, 500 matches "
                    "a league)",
    "league_running": "league_run: the league is being run; wait for the end of its run",
    "bad_code": "the room is private and the join code is missing or wrong (find_room: no open private table has the code)",
    "bad_seat": "the seat number is outside the table",
    "room_full": "every seat is taken",
    "muted": "say: an operator muted you in chat (until_ms: until when)",
    "banned": "hello / join: an operator banned this player",
    "seat_empty": "remove_seat: nobody sits in that seat",
    "not_room_creator": "remove_seat / lock: only the player who made the room may",
    "room_locked": "the player who made the room locked it: nobody new sits down (watching is open)",
    "seat_taken": "someone already sits in that seat",
    "already_seated": "you already hold a seat in this room",
    "not_seated": "you hold no seat in this room (and are not watching it)",
    "no_hand": "no hand is being played in this room",
    "hand_not_over": "show: cards can be shown only once the hand is over (before the next deal)",
    "nothing_to_show": "show: you were not dealt into the last hand, your cards are already face up, or the "
                       "game shows every hand at the end (Dou Dizhu)",
    "league_seat": "a league match's seat is held until the match is over (no leave, no sit_out), and its "
                   "entrants alone play it (no add_bot)",
    "bad_buy_in": "the buy-in is outside the room's buy_in_min..buy_in_max",
    "insufficient_funds": "your wallet holds less than the buy-in",
    "rate_limited": "too many messages; slow down (persistent flooding closes the connection with 1008)",
    "unavailable": "the server is shutting down, or Redis or the room's process is briefly unreachable; retry",
    "internal_error": "the server failed unexpectedly; nothing changed",
}


class ProtocolError(Exception):
    """A request the server rejects with a stable error ``code`` (and optional ``field``);
    ``extra`` fields go into the error message too (``reason`` of a ``bad_token``)."""

    def __init__(self, code: str, message: str, field: str | None = None, **extra: Any) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.field = field
        self.extra = extra


def error_message(code: str, message: str, ref: Any = None, field: str | None = None, **extra: Any) -> dict[str, Any]:
    """Build an ``error`` message."""
    msg: dict[str, Any] = {"t": "error", "code": code, "message": message}
    if ref is not None:
        msg["ref"] = ref
    if field is not None:
        msg["field"] = field
    msg.update(extra)
    return msg
