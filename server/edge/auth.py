"""Sign-in with identity tokens issued by the operator's own site (JSON Web Tokens).

A card room run for a club, a community or a company can leave accounts to the site its
players already use: that site's login issues a short-lived JWT for the player, the page
or bot gives it to ``hello`` as ``id_token``, and :class:`IdentityVerifier` checks it:

- **HS256** with a secret shared with the site (``--auth-jwt-secret``), and/or
- **RS256 / ES256** against the public keys the site publishes as a JWKS document
  (``--auth-jwks-url``): fetched when first needed, fetched again every
  :data:`JWKS_REFRESH_SECONDS`, and on a key id it does not hold (a key rotation), at most
  once every :data:`JWKS_MISS_SECONDS` (a stream of made-up key ids cannot make the server
  hammer the site).

Each key is used only with its own algorithm (a token cannot pass an RSA public key off as
an HMAC secret, and ``alg: none`` is never accepted). ``exp`` and ``sub`` are required;
``iss`` and ``aud`` are required and checked when ``--auth-issuer`` / ``--auth-audience``
are set. A rejected token raises :class:`TokenRejected` with one of :data:`REASONS`; a
JWKS that cannot be fetched raises :class:`KeysUnavailable` (the token may be fine: try
again). PyJWT does the verification; nothing here parses a signature by hand.

The player an identity signs in as is found by :func:`identity_key` (issuer and subject):
the same person on a second device gets the same player, wallet and seats.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jwt

#: Algorithms of the keys a JWKS may publish. HS256 goes with the shared secret only.
JWKS_ALGORITHMS = ("RS256", "ES256")
#: Seconds of clock difference with the issuing site tolerated on ``exp``, ``nbf`` and ``iat``.
LEEWAY_SECONDS = 30
#: The JWKS is fetched again after this many seconds.
JWKS_REFRESH_SECONDS = 300.0
#: A key id the JWKS lacks fetches it again at most this often.
JWKS_MISS_SECONDS = 30.0
#: How long a JWKS fetch may take.
JWKS_TIMEOUT_SECONDS = 5.0
#: Longest subject accepted (an id in the operator's site).
MAX_SUBJECT = 256
#: Player names are cut to this many characters (as ``hello``'s ``name``).
MAX_NAME = 32

#: ``reason`` of a ``bad_token`` error for an identity token -> what it means.
REASONS: dict[str, str] = {
    "not_accepted": "this server takes no identity tokens (neither --auth-jwt-secret nor --auth-jwks-url)",
    "malformed": "not a JWT: three base64url parts, a JSON header and claims",
    "alg_not_allowed": "the header's alg is not accepted here: HS256 needs --auth-jwt-secret, RS256 and "
                       "ES256 need --auth-jwks-url, and none is never accepted",
    "unknown_key": "the header's kid names no key of the JWKS (fetched again to be sure), or the key "
                   "is for another algorithm",
    "bad_signature": "the signature does not match the token",
    "expired": "the token's exp has passed",
    "not_yet_valid": "the token's nbf or iat is in the future",
    "wrong_issuer": "the token's iss is not --auth-issuer",
    "wrong_audience": "the token's aud does not include --auth-audience",
    "missing_claim": "a required claim is missing: exp and sub always, iss and aud when the server checks them",
    "bad_claim": "a claim has the wrong type, or sub is empty or longer than 256 characters",
}


class TokenRejected(Exception):
    """The identity token does not sign anyone in; ``reason`` is one of :data:`REASONS`."""

    def __init__(self, reason: str, message: str) -> None:
        assert reason in REASONS, reason
        super().__init__(f"{reason}: {message}")
        self.reason = reason
        self.message = message


class KeysUnavailable(Exception):
    """The JWKS could not be fetched: the token was not checked (try again)."""


@dataclass(frozen=True)
class Identity:
    """Who a valid token says the player is."""

    issuer: str  # "" when the token names none
    subject: str
    name: str  # from the name claim, else preferred_username, else the subject


def identity_key(identity: Identity) -> str:
    """A fixed-length key for an identity: the same issuer and subject, the same player."""
    return hashlib.sha256(f"{identity.issuer}\n{identity.subject}".encode()).hexdigest()


def clean_name(text: str) -> str:
    """A display name from a claim: whitespace runs made one space, unprintable
    characters dropped, at most :data:`MAX_NAME` characters."""
    name = " ".join("".join(c for c in text if c.isprintable()).split())
    return name[:MAX_NAME].strip()


class IdentityVerifier:
    """Checks identity tokens with the shared secret and/or the JWKS; see the module doc."""

    def __init__(self, *, secret: str | None = None, jwks_url: str | None = None, issuer: str | None = None,
                 audience: str | None = None, name_claim: str = "name",
                 clock: Callable[[], float] = time.time, monotonic: Callable[[], float] = time.monotonic) -> None:
        if secret is None and jwks_url is None:
            raise ValueError("an identity verifier needs a secret or a JWKS URL")
        self.secret = secret
        self.issuer = issuer
        self.audience = audience
        self.name_claim = name_claim
        self._clock = clock
        self._monotonic = monotonic
        self._jwks = (jwt.PyJWKClient(jwks_url, cache_keys=False, cache_jwk_set=False,
                                      timeout=JWKS_TIMEOUT_SECONDS, headers={"User-Agent": "cardroom"})
                      if jwks_url is not None else None)
        self._keys: dict[str | None, jwt.PyJWK] = {}
        self._fetched_at: float | None = None
        self._fetching = asyncio.Lock()
        self.fetches = 0  # JWKS fetches made (for tests and logs)

    @classmethod
    def from_settings(cls, settings: Any) -> IdentityVerifier | None:
        """The verifier the settings ask for, or None (no sign-in configured)."""
        if settings.auth_jwt_secret is None and settings.auth_jwks_url is None:
            return None
        return cls(secret=settings.auth_jwt_secret, jwks_url=settings.auth_jwks_url, issuer=settings.auth_issuer,
                   audience=settings.auth_audience, name_claim=settings.auth_name_claim)

    async def verify(self, token: str) -> Identity:
        """The identity ``token`` proves, or :class:`TokenRejected` /
        :class:`KeysUnavailable`."""
        try:
            header = jwt.get_unverified_header(token)
        except jwt.PyJWTError:
            raise TokenRejected("malformed", "the token is not a JWT") from None
        alg = header.get("alg")
        if alg == "HS256" and self.secret is not None:
            key: Any = self.secret
        elif alg in JWKS_ALGORITHMS and self._jwks is not None:
            key = await self._public_key(header.get("kid"), alg)
        else:
            raise TokenRejected("alg_not_allowed", f"tokens signed with {str(alg)[:16]!r} are not accepted here")
        required = ["exp", "sub"] + (["iss"] if self.issuer else []) + (["aud"] if self.audience else [])
        try:
            claims = jwt.decode(token, key, algorithms=[alg], issuer=self.issuer, audience=self.audience,
                                leeway=LEEWAY_SECONDS,
                                options={"require": required, "verify_aud": self.audience is not None})
        except jwt.PyJWTError as exc:
            raise _rejected(exc) from None
        return self._identity(claims)

    def _identity(self, claims: dict[str, Any]) -> Identity:
        subject = claims["sub"]
        if not isinstance(subject, str) or not 0 < len(subject) <= MAX_SUBJECT:
            raise TokenRejected("bad_claim", f"sub must be text of 1..{MAX_SUBJECT} characters")
        issuer = claims.get("iss", "")
        if not isinstance(issuer, str):
            raise TokenRejected("bad_claim", "iss must be text")
        name = ""
        for claim in (self.name_claim, "preferred_username"):
            if isinstance(claims.get(claim), str):
                name = clean_name(claims[claim])
                if name:
                    break
        return Identity(issuer, subject, name or clean_name(subject) or "player")

    async def _public_key(self, kid: Any, alg: str) -> Any:
        """The JWKS key ``kid`` names (a JWKS of one key serves tokens without a kid)."""
        if kid is not None and not isinstance(kid, str):
            raise TokenRejected("malformed", "kid must be text")
        now = self._monotonic()
        stale = self._fetched_at is None or now - self._fetched_at >= JWKS_REFRESH_SECONDS
        missing = self._find(kid) is None
        if stale or (missing and now - (self._fetched_at or 0.0) >= JWKS_MISS_SECONDS):
            await self._fetch()
        jwk = self._find(kid)
        if jwk is None:
            raise TokenRejected("unknown_key", f"the JWKS has no key {str(kid)[:64]!r}" if kid is not None
                                else "the token names no kid and the JWKS has more than one key")
        if jwk.algorithm_name != alg:
            raise TokenRejected("unknown_key", f"key {str(kid)[:64]!r} is for {jwk.algorithm_name}, not {alg}")
        return jwk.key

    def _find(self, kid: str | None) -> jwt.PyJWK | None:
        if kid is None:
            return next(iter(self._keys.values())) if len(self._keys) == 1 else None
        return self._keys.get(kid)

    async def _fetch(self) -> None:
        """Fetch the JWKS again (one fetch at a time; a caller that waited for another's
        fetch uses its result)."""
        assert self._jwks is not None
        started = self._monotonic()
        async with self._fetching:
            if self._fetched_at is not None and self._fetched_at >= started:
                return  # fetched while we waited
            try:
                keys = await asyncio.to_thread(self._jwks.get_jwk_set, True)
            except jwt.PyJWTError as exc:  # unreachable, not JSON, no usable key
                raise KeysUnavailable(f"the JWKS could not be fetched: {exc}") from None
            finally:
                self.fetches += 1
            self._keys = {k.key_id: k for k in keys.keys if k.public_key_use in (None, "sig")}
            self._fetched_at = self._monotonic()


def _rejected(exc: jwt.PyJWTError) -> TokenRejected:
    """PyJWT's error as a :class:`TokenRejected` (subclasses before their bases)."""
    for kind, reason in ((jwt.ExpiredSignatureError, "expired"), (jwt.ImmatureSignatureError, "not_yet_valid"),
                         (jwt.InvalidIssuerError, "wrong_issuer"), (jwt.InvalidAudienceError, "wrong_audience"),
                         (jwt.MissingRequiredClaimError, "missing_claim"),
                         (jwt.InvalidSignatureError, "bad_signature"),
                         (jwt.InvalidAlgorithmError, "alg_not_allowed"), (jwt.DecodeError, "malformed")):
        if isinstance(exc, kind):
            return TokenRejected(reason, str(exc))
    return TokenRejected("bad_claim", str(exc))
