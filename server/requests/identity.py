"""Who a connection's ``hello`` speaks for: a new anonymous player (``name``), a returning
one (``token``, the session token it was given), or one signed in by the operator's
identity provider (``id_token``, checked by :mod:`server.edge.auth`); refused with a stable
code when the token is unknown, anonymous players are not taken here (``auth_required``),
too many new players come from one address, or an operator banned the player. The lobby
welcomes whoever this module names; it decides nothing about seats."""

from __future__ import annotations

import logging
import time
from typing import Any

from ..config import Settings
from ..edge import auth
from ..edge import messages as m
from ..edge.gate import Gate
from ..edge.protocol import ProtocolError
from ..edge.session import Session
from ..store import Store

log = logging.getLogger(__name__)


class Identity:
    """Names the player a ``hello`` speaks for (see the module doc)."""

    def __init__(self, store: Store, settings: Settings, gate: Gate) -> None:
        self.store = store
        self.settings = settings
        self.gate = gate
        self.verifier = auth.IdentityVerifier.from_settings(settings)  # None: no sign-in

    async def who(self, session: Session, msg: m.Hello) -> tuple[str, str, str, int]:
        """The player, name, session token and wallet ``msg`` names, once it is allowed in;
        raises :class:`ProtocolError` otherwise (nothing is created for a refused hello)."""
        if msg.id_token is not None:
            player, name, token, wallet = await self._sign_in(msg.id_token)
        elif msg.token is not None:
            found = await self.store.player_by_token(msg.token)
            if found is None:
                raise ProtocolError("bad_token", "no player has this session token", "token")
            player, name = found
            if self.settings.auth_required and not await self.store.signed_in(player):
                raise self._auth_required("this session token is an anonymous player's")
            token = msg.token
            wallet = await self.store.wallet(player)
        elif msg.name is not None:
            if self.settings.auth_required:
                raise self._auth_required("anonymous players are not taken here")
            name = " ".join(msg.name.split())
            if not name or not name.isprintable():
                raise ProtocolError("bad_message", "hello: name must contain printable characters", "name")
            if not self.gate.new_player(session.address, time.monotonic()):
                raise ProtocolError("rate_limited", "too many new players from your address; try again in a minute")
            player, token, wallet = await self.store.create_player(name)
        else:
            raise ProtocolError("bad_message", "hello needs a name (new player) or a token (resume)", "name")
        banned = await self.store.banned(player)
        if banned is not None:
            raise ProtocolError("banned", f"an operator banned this player: {banned}")
        return player, name, token, wallet

    def sign_in_info(self) -> dict[str, Any] | None:
        """How players sign in where the operator set it up (``pong``'s ``sign_in``), or None."""
        if self.verifier is None:
            return None
        s = self.settings
        return {"required": s.auth_required, **({"login_url": s.auth_login_url} if s.auth_login_url else {})}

    async def _sign_in(self, id_token: str) -> tuple[str, str, str, int]:
        """The player, name, session token and wallet an identity token signs in."""
        if self.verifier is None:
            raise ProtocolError("bad_token", auth.REASONS["not_accepted"], "id_token", reason="not_accepted")
        try:
            who = await self.verifier.verify(id_token)
        except auth.TokenRejected as exc:
            raise ProtocolError("bad_token", f"identity token: {exc.message}", "id_token", reason=exc.reason) from None
        except auth.KeysUnavailable as exc:
            log.warning("sign-in: %s", exc)
            raise ProtocolError("auth_unavailable", "the identity token could not be checked now; retry") from None
        player, token, wallet = await self.store.sign_in(auth.identity_key(who), who.issuer, who.subject, who.name)
        return player, who.name, token, wallet

    def _auth_required(self, why: str) -> ProtocolError:
        login = self.settings.auth_login_url
        extra = {"login_url": login} if login else {}
        return ProtocolError("auth_required", f"{why}: sign in on the operator's site (hello with id_token)", **extra)
