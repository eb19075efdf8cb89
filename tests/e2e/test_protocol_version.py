"""The page says the protocol version it speaks; one the server refuses as another
version's loads itself again once, then says it is older than the server."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from server.edge.protocol import PROTOCOL_VERSION

from .conftest import discard
from .ui import enter, expect

pytestmark = pytest.mark.browser


def test_the_page_says_its_version_and_a_stale_page_reloads_once_then_says_so(new_page) -> None:
    page = new_page()
    discard(page)  # the route stays
    hellos: list[dict[str, Any]] = []
    stale = {"on": False}

    def route(ws: Any) -> None:
        server = ws.connect_to_server()

        def from_page(message: str | bytes) -> None:
            msg = json.loads(message)
            if msg.get("t") == "hello":
                hellos.append(dict(msg))
                if stale["on"]:  # as if the page came from a server of another version
                    msg["protocol"] = PROTOCOL_VERSION + 1
            server.send(json.dumps(msg))

        ws.on_message(from_page)

    page.route_web_socket(re.compile(r"/ws$"), route)
    page.reload()
    enter(page, "ada")
    assert [h["protocol"] for h in hellos] == [PROTOCOL_VERSION]

    loads: list[str] = []
    page.on("load", lambda _: loads.append(page.url))
    stale["on"] = True
    page.reload()
    toast = page.get_by_test_id("toast-error").filter(has_text="This page is older than the server: reload it")
    expect(toast).to_be_visible()
    assert len(loads) == 2  # our reload, and the page's own one
    assert len(hellos) == 3  # refused twice: once before the page's reload and once after
    assert page.evaluate("sessionStorage.getItem('cardroom.reloaded_for_protocol')") == "1"

    stale["on"] = False  # the server's page
    page.reload()
    expect(page.get_by_test_id("lobby")).to_be_visible()
    expect(page.get_by_test_id("me-name")).to_have_text("ada")
    assert page.evaluate("sessionStorage.getItem('cardroom.reloaded_for_protocol')") is None
