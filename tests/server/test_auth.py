"""Sign-in with the operator's identity tokens (server/edge/auth.py): the verifier on its own,
then ``hello`` with ``id_token`` on real servers sharing one Redis."""

from __future__ import annotations

import asyncio
import time

import jwt
import pytest

from client_demo.sdk.client import CardroomClient
from server.edge.auth import (
    JWKS_MISS_SECONDS,
    REASONS,
    IdentityVerifier,
    KeysUnavailable,
    TokenRejected,
)

from .jwks import AUDIENCE, ISSUER, SECRET, JwksServer, KeyPair, claims, hs256
from .test_play import new_room
from .wsclient import Client


def verifier(**kw) -> IdentityVerifier:
    kw.setdefault("secret", SECRET)
    return IdentityVerifier(issuer=ISSUER, audience=AUDIENCE, **kw)


async def reason(v: IdentityVerifier, token: str) -> str:
    with pytest.raises(TokenRejected) as caught:
        await v.verify(token)
    assert caught.value.reason in REASONS
    return caught.value.reason


# --- the verifier --------------------------------------------------------------------


async def test_an_hs256_token_names_the_player_by_its_claims():
    v = verifier()
    who = await v.verify(hs256(claims("u-7", name="  Ada \n Lovelace ")))
    assert (who.issuer, who.subject, who.name) == (ISSUER, "u-7", "Ada Lovelace")
    assert (await v.verify(hs256(claims("u-8", preferred_username="grace")))).name == "grace"
    assert (await v.verify(hs256(claims("u-9")))).name == "u-9"
    custom = verifier(name_claim="nick")
    assert (await custom.verify(hs256(claims("u-7", nick="ada", name="Ada L")))).name == "ada"


async def test_each_bad_token_gets_its_own_reason():
    v = verifier()
    now = int(time.time())
    other = KeyPair("k1", "RS256")
    cases = {
        "not a token": "malformed",
        hs256(claims(), secret="another-secret-of-the-same-length-0123456"): "bad_signature",
        hs256(claims(exp=now - 3600)): "expired",
        hs256(claims(nbf=now + 3600)): "not_yet_valid",
        hs256(claims(iss="https://elsewhere.example")): "wrong_issuer",
        hs256(claims(aud="another-app")): "wrong_audience",
        hs256({k: v for k, v in claims().items() if k != "exp"}): "missing_claim",
        hs256({k: v for k, v in claims().items() if k != "sub"}): "missing_claim",
        hs256({k: v for k, v in claims().items() if k != "aud"}): "missing_claim",
        hs256(claims(sub="x" * 300)): "bad_claim",
        jwt.encode(claims(), None, algorithm="none"): "alg_not_allowed",
        jwt.encode(claims(), SECRET * 2, algorithm="HS512"): "alg_not_allowed",
        other.sign(claims()): "alg_not_allowed",  # RS256, and this server has no JWKS
    }
    for token, expected in cases.items():
        assert await reason(v, token) == expected, token


async def test_tokens_are_checked_against_the_sites_jwks_and_its_rotation():
    rsa_key, ec_key = KeyPair("rsa-1", "RS256"), KeyPair("ec-1", "ES256")
    with JwksServer(rsa_key, ec_key) as site:
        clock = [1000.0]
        v = IdentityVerifier(jwks_url=site.url, issuer=ISSUER, audience=AUDIENCE, monotonic=lambda: clock[0])
        assert (await v.verify(rsa_key.sign(claims("r")))).subject == "r"
        assert (await v.verify(ec_key.sign(claims("e")))).subject == "e"
        assert site.hits == 1  # one fetch, cached
        # an HS256 token on a JWKS-only server: an RSA public key is no HMAC secret
        assert await reason(v, hs256(claims())) == "alg_not_allowed"
        # a kid the JWKS lacks: fetched again once, then not again for JWKS_MISS_SECONDS
        stranger = KeyPair("rsa-x", "RS256")
        clock[0] += JWKS_MISS_SECONDS
        assert await reason(v, stranger.sign(claims())) == "unknown_key"
        assert site.hits == 2
        for _ in range(5):
            assert await reason(v, stranger.sign(claims())) == "unknown_key"
        assert site.hits == 2
        # the site rotates to a new key: once the miss window is over, its tokens pass
        site.keys = [stranger]
        clock[0] += JWKS_MISS_SECONDS
        assert (await v.verify(stranger.sign(claims("s")))).subject == "s"
        assert site.hits == 3
        # a key used with another algorithm than its own, and a token without kid
        forged = jwt.encode(claims(), ec_key.private, algorithm="ES256", headers={"kid": "rsa-x"})
        assert await reason(v, forged) == "unknown_key"
        assert (await v.verify(stranger.sign(claims("n"), kid=None))).subject == "n"  # the JWKS has one key
        # the site down: not the token's fault
        site.down = True
        clock[0] += 3600
        with pytest.raises(KeysUnavailable):
            await v.verify(stranger.sign(claims()))


async def test_concurrent_sign_ins_share_one_jwks_fetch():
    key = KeyPair("k", "ES256")
    with JwksServer(key) as site:
        v = IdentityVerifier(jwks_url=site.url)
        found = await asyncio.gather(*(v.verify(key.sign(claims(f"u{i}"))) for i in range(10)))
        assert [w.subject for w in found] == [f"u{i}" for i in range(10)] and site.hits == 1


# --- hello with id_token ---------------------------------------------------------------

AUTH = {"auth_jwt_secret": SECRET, "auth_issuer": ISSUER, "auth_audience": AUDIENCE}


async def sign_in(app, token: str) -> tuple[Client, dict]:
    c = await Client.connect(app.ws_url)
    reply = await c.request({"t": "hello", "id_token": token})
    if reply["t"] == "welcome":
        c.player, c.token = reply["player"], reply["token"]
    return c, reply


async def test_a_player_signed_in_on_two_devices_is_one_player(make_app):
    app = await make_app(**AUTH)
    phone, first = await sign_in(app, hs256(claims("member-42", name="Ada")))
    assert first["t"] == "welcome" and first["name"] == "Ada" and first["wallet"] == app.settings.grant
    room = await new_room(phone, seats=2, between_hands_seconds=60)
    assert (await phone.request({"t": "join", "room": room, "buy_in": 300}))["t"] == "room"
    laptop, second = await sign_in(app, hs256(claims("member-42", name="Ada L.")))
    assert second["player"] == first["player"] and second["token"] != first["token"]
    assert second["wallet"] == app.settings.grant - 300  # the same wallet, not a second grant
    assert second["seats"] == [{"room": room, "game": "highcard", "seat": 0}]
    assert second["name"] == "Ada L."  # the site's name wins
    other, third = await sign_in(app, hs256(claims("member-43")))
    assert third["player"] != first["player"]
    # the session token of a sign-in resumes like any other
    again = await Client.connect(app.ws_url)
    assert (await again.hello(token=second["token"]))["player"] == first["player"]
    for c in (phone, laptop, other, again):
        await c.close()
    audit = await app.store.chip_audit()
    assert audit["grants"] == 2 * app.settings.grant == audit["wallets"] + audit["tables"] + audit["pending"]


async def test_a_rejected_token_says_why_and_changes_nothing(make_app, redis, prefix):
    app = await make_app(**AUTH)
    before = await redis.smembers(prefix + "players")
    for token, expected in ((hs256(claims(exp=int(time.time()) - 60)), "expired"),
                            (hs256(claims(aud="elsewhere")), "wrong_audience"),
                            (jwt.encode(claims(), None, algorithm="none"), "alg_not_allowed")):
        c, reply = await sign_in(app, token)
        assert (reply["t"], reply["code"], reply["reason"], reply["field"]) == ("error", "bad_token", expected,
                                                                              "id_token"), reply
        # the connection is still not signed in, and may try again
        assert (await c.request({"t": "list_rooms"}))["code"] == "not_authenticated"
        assert (await c.request({"t": "hello", "id_token": hs256(claims("later"))}))["t"] == "welcome"
        await c.close()
    assert len(await redis.smembers(prefix + "players")) == len(before) + 1  # "later" alone


async def test_a_server_without_sign_in_says_it_takes_no_identity_tokens(connect):
    c = await connect()
    reply = await c.request({"t": "hello", "id_token": hs256(claims())})
    assert (reply["code"], reply["reason"]) == ("bad_token", "not_accepted")


async def test_auth_required_refuses_anonymous_players_and_names_the_login_page(make_app):
    before = await make_app()  # the same Redis before sign-in was required
    anon = await Client.connect(before.ws_url)
    token = (await anon.hello("anon"))["token"]
    await anon.close()
    app = await make_app(**AUTH, auth_required=True, auth_login_url="https://club.example/login")
    c = await Client.connect(app.ws_url)
    for hello in ({"t": "hello", "name": "guest"}, {"t": "hello", "token": token}):
        reply = await c.request(hello)
        assert (reply["code"], reply["login_url"]) == ("auth_required", "https://club.example/login"), reply
    signed, welcome = await sign_in(app, hs256(claims("m-1")))
    assert welcome["t"] == "welcome"
    assert (await c.hello(token=welcome["token"]))["player"] == welcome["player"]  # a signed-in session resumes
    await signed.close()
    await c.close()


async def test_two_processes_sign_the_same_person_in_as_one_player(make_app):
    a, b = await make_app(**AUTH), await make_app(**AUTH)
    token = hs256(claims("first-time", name="Both"))
    (ca, wa), (cb, wb) = await asyncio.gather(sign_in(a, token), sign_in(b, token))
    assert wa["player"] == wb["player"] and wa["wallet"] == wb["wallet"] == a.settings.grant
    audit = await a.store.chip_audit()
    assert audit["grants"] == a.settings.grant == audit["wallets"]
    await ca.close()
    await cb.close()


async def test_pong_tells_a_page_how_players_sign_in(make_app, connect):
    plain = await connect()
    assert "sign_in" not in await plain.request({"t": "ping"})
    app = await make_app(**AUTH, auth_required=True, auth_login_url="https://club.example/login")
    c = await Client.connect(app.ws_url)
    pong = await c.request({"t": "ping"})
    assert pong["sign_in"] == {"required": True, "login_url": "https://club.example/login"}
    await c.close()


async def test_the_python_client_signs_in_once_then_resumes_with_its_session(make_app):
    app = await make_app(**AUTH)
    async with CardroomClient(app.ws_url, id_token=hs256(claims("bot-owner", name="Robo"))) as bot:
        assert (bot.name, bot.id_token) == ("Robo", None) and bot.token
        first = bot.player
        await bot._ws.close()  # a drop: the client resumes with the session token
        for _ in range(100):
            if bot.reconnects:
                break
            await asyncio.sleep(0.05)
        assert bot.reconnects == 1 and bot.player == first


async def test_the_worked_example_of_the_docs_signs_a_member_in(make_app, monkeypatch):
    """docs/server.md's snippet, run as written, makes a link whose token signs in."""
    import re
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs" / "server.md").read_text()
    snippet = next(b for b in re.findall(r"```python\n(.*?)```", doc, re.S) if "def cardroom_link" in b)
    monkeypatch.setenv("CARDROOM_AUTH_JWT_SECRET", SECRET)
    scope: dict = {}
    exec(compile(snippet.replace("print(", "_ = ("), "docs/server.md", "exec"), scope)  # noqa: S102
    link = scope["cardroom_link"]("member-42", "Ada")
    assert link.startswith("http://127.0.0.1:8765/#token=")
    app = await make_app(auth_jwt_secret=SECRET, auth_issuer="https://club.example", auth_audience="cardroom")
    c, welcome = await sign_in(app, link.split("#token=", 1)[1])
    assert (welcome["t"], welcome["name"]) == ("welcome", "Ada"), welcome
    await c.close()
