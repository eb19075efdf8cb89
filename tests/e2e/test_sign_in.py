"""Sign-in from the operator's site, in the browser (issue #26, part 1).

A server that takes signed-in members only (``--auth-required``): a visitor without a
token is sent to the club's sign-in page instead of being offered a name; the link the
club's site gives a member (``/#token=<JWT>``, issued here as in docs/server.md) signs the
member in under the club's name for them, and the token leaves the address bar; the same
member on a second device (its own storage) is the same player, in the same seat, with
the same wallet; a link with an expired token says so and signs nobody in."""

from __future__ import annotations

import time
from collections.abc import Iterator

import jwt
import pytest

from .conftest import Server, discard, running_server
from .ui import SIZES, create_table, expect, screenshot, table

pytestmark = pytest.mark.browser

SECRET = "e2e-club-secret-0123456789abcdef0123456789"
ISSUER = "https://club.example"
LOGIN = "https://club.example/login"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with running_server(tmp_path_factory.mktemp("sign-in-server"), "--auth-jwt-secret", SECRET,
                        "--auth-issuer", ISSUER, "--auth-audience", "cardroom", "--auth-required", "yes",
                        "--auth-login-url", LOGIN) as srv:
        yield srv


def link(server: Server, sub: str, name: str, lifetime: int = 300) -> str:
    """What the club's site sends a member to (docs/server.md, "Sign-in from your own site")."""
    now = int(time.time())
    claims = {"iss": ISSUER, "aud": "cardroom", "sub": sub, "name": name, "iat": now, "exp": now + lifetime}
    return f"{server.url}#token={jwt.encode(claims, SECRET, algorithm='HS256')}"


def open_link(page, url: str) -> None:
    page.goto("about:blank")  # a new document: the link is followed as from the club's site
    page.goto(url)


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_a_member_signs_in_through_the_clubs_link_on_two_devices(new_page, server, shots, size):
    viewport = SIZES[size]
    visitor = new_page(viewport)
    discard(visitor)
    expect(visitor.get_by_test_id("sign-in-needed")).to_be_visible()
    expect(visitor.get_by_test_id("sign-in-link")).to_have_attribute("href", LOGIN)
    expect(visitor.get_by_test_id("name-form")).to_have_count(0)
    screenshot(visitor, shots, f"{size}-sign-in-needed")

    member = f"member-{size}"
    open_link(visitor, link(server, member, "Ada Lovelace"))
    expect(visitor.get_by_test_id("lobby")).to_be_visible()
    expect(visitor.get_by_test_id("me-name")).to_have_text("Ada Lovelace")
    assert visitor.evaluate("location.hash") == ""  # the token is out of the address bar
    room = create_table(visitor, "holdem", seats=2, bots=1, bot_delay_seconds=0.3, action_seconds=120,
                        between_hands_seconds=1)
    expect(table(visitor)).to_have_attribute("data-playing", "1")
    wallet = visitor.get_by_test_id("wallet").inner_text()

    # the same member on another device: a page with storage of its own
    laptop = new_page(viewport)
    discard(laptop)
    expect(laptop.get_by_test_id("sign-in-needed")).to_be_visible()
    open_link(laptop, link(server, member, "Ada Lovelace"))
    expect(table(laptop)).to_be_visible()
    expect(laptop.get_by_test_id("me-name")).to_have_text("Ada Lovelace")
    assert laptop.evaluate("location.hash").startswith(f"#/room/{room}")
    expect(laptop.get_by_test_id("wallet")).to_have_text(wallet)
    screenshot(laptop, shots, f"{size}-second-device")

    # a reload resumes with the session token, no identity token needed
    laptop.reload()
    expect(table(laptop)).to_be_visible()
    expect(laptop.get_by_test_id("me-name")).to_have_text("Ada Lovelace")


def test_an_expired_link_says_so_and_signs_nobody_in(new_page, server):
    page = new_page()
    discard(page)
    open_link(page, link(server, "member-late", "Late", lifetime=-120))
    expect(page.get_by_test_id("toast-error")).to_contain_text("expired")
    expect(page.get_by_test_id("sign-in-needed")).to_be_visible()
    assert page.evaluate("localStorage.getItem('cardroom.token')") is None
