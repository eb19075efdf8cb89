"""deploy/ run for real on this machine (no Docker engine here): the image's entry command,
environment and health check run as the Dockerfile writes them, and the shipped nginx
config balances two live servers, through which clients play and survive a server's death.

nginx comes from Debian (``.ci/run`` installs it); without it these tests are skipped
with a message, except in CI (``CI`` set), where that is an error."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from websockets.asyncio.client import connect as websockets_connect
from websockets.exceptions import InvalidStatus

from tests.fault.harness import (
    Player,
    RedisProcess,
    ServerProcess,
    check_nothing_lost_or_doubled,
    free_port,
    lease_holder,
    wait_for,
    wait_port,
)

from .files import DEPLOY, compose, install_as_the_image_does, read_dockerfile

pytestmark = pytest.mark.slow


def nginx_binary() -> str:
    found = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("nginx is missing in CI (.ci/run installs Debian's nginx)")
        pytest.skip("nginx is not installed (apt-get install nginx)")
    return found


@pytest.fixture
def redis(tmp_path):
    r = RedisProcess(tmp_path / "redis")
    r.start()
    yield r
    r.stop()


def image_environment(redis_url: str, port: int, data: Path, site: Path | None = None) -> dict[str, str]:
    """The Dockerfile's ENV as a container would see it, on this machine: the venv stands
    for /opt/cardroom (with ``site``, the project as the image installs it, ahead of the
    checkout), and the test binds 127.0.0.1 on a free port (tests never listen on every
    interface) with REDIS_URL set as every deployment sets it."""
    d = read_dockerfile()
    env = dict(os.environ)
    for key, value in d.env.items():
        env[key] = value.replace("/opt/cardroom/bin", str(Path(sys.executable).parent)).replace(
            "$PATH", os.environ["PATH"])
    env.update(CARDROOM_HOST="127.0.0.1", CARDROOM_PORT=str(port), CARDROOM_DATA_DIR=str(data),
               REDIS_URL=redis_url)
    if site is not None:
        env["PYTHONPATH"] = str(site)
    return env


def test_the_images_entry_command_environment_and_healthcheck_run_as_written(tmp_path, redis):
    """The project as the image installs it (built from the Dockerfile's copies alone), run
    from the image's working directory with its entry command, environment and health check."""
    d = read_dockerfile()
    port = free_port()
    site = install_as_the_image_does(tmp_path / "image")
    env = image_environment(redis.url, port, tmp_path / "data", site)
    home = tmp_path / "home"  # WORKDIR /home/cardroom: no source tree in sight
    home.mkdir()
    where = subprocess.run([sys.executable, "-c", "import server.cli; print(server.cli.__file__)"],
                           env=env, cwd=home, capture_output=True, text=True, check=True).stdout
    assert Path(where.strip()).is_relative_to(site), where  # the installed copy, not the checkout
    server = subprocess.Popen(d.entrypoint, env=env, cwd=home, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        try:
            wait_port(port, timeout=30)
        except TimeoutError:
            server.kill()
            raise AssertionError("the image's command did not start:\n" + server.communicate()[0].decode()) from None

        def healthcheck() -> int:
            return subprocess.run(d.healthcheck, env=env, cwd=home, capture_output=True,
                                  timeout=float(d.healthcheck_options["timeout"].rstrip("s"))).returncode

        assert healthcheck() == 0
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as r:  # the browser demo
            assert b"<html" in r.read()
        redis.stop()
        assert healthcheck() == 1  # unhealthy while Redis is gone
        redis.start()
        deadline = time.monotonic() + 15
        while healthcheck() != 0:
            assert time.monotonic() < deadline, "never healthy again"
            time.sleep(0.2)
        server.send_signal(getattr(signal, d.stopsignal))
        grace = int(compose()["x-cardroom"]["stop_grace_period"].rstrip("s"))
        assert server.wait(grace) == 0
        output = server.stdout.read().decode()
        assert "shutting down" in output
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()


def write_nginx_conf(directory: Path, listen: int, servers: list[int]) -> Path:
    """The shipped nginx.conf, byte for byte, with this test's two included files."""
    conf = directory / "conf"
    (conf / "cardroom").mkdir(parents=True)
    shutil.copy(DEPLOY / "nginx" / "nginx.conf", conf / "nginx.conf")
    (conf / "cardroom" / "upstream.conf").write_text(
        "upstream cardroom {\n" + "".join(f"    server 127.0.0.1:{p} max_fails=1 fail_timeout=5s;\n"
                                            for p in servers) + "}\n")
    (conf / "cardroom" / "listen.conf").write_text(f"listen 127.0.0.1:{listen};\n")
    return conf / "nginx.conf"


def test_nginx_accepts_the_shipped_config(tmp_path):
    nginx = nginx_binary()
    conf = write_nginx_conf(tmp_path, free_port(), [free_port(), free_port()])
    out = subprocess.run([nginx, "-t", "-p", str(tmp_path), "-c", str(conf)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr


async def test_clients_play_through_nginx_and_resume_on_the_other_server(tmp_path, redis):
    nginx = nginx_binary()
    servers = [ServerProcess(redis.url, tmp_path / f"server{i}.log") for i in range(2)]
    for s in servers:
        s.start()
    listen = free_port()
    conf = write_nginx_conf(tmp_path, listen, [s.port for s in servers])
    log = open(tmp_path / "nginx.log", "wb")  # noqa: SIM115 - nginx writes it
    proxy = subprocess.Popen([nginx, "-p", str(tmp_path), "-c", str(conf), "-g", "daemon off;"],
                             stdout=log, stderr=subprocess.STDOUT)
    log.close()
    try:
        wait_port(listen)
        with urllib.request.urlopen(f"http://127.0.0.1:{listen}/healthz", timeout=5) as r:
            assert r.status == 200
        url = f"ws://127.0.0.1:{listen}/ws"
        # a page served through nginx may connect (nginx passes Host with its port); another site's may not
        page = await websockets_connect(url, subprotocols=["cardroom.json"], origin=f"http://127.0.0.1:{listen}")
        await page.close()
        with pytest.raises(InvalidStatus):
            await websockets_connect(url, subprotocols=["cardroom.json"], origin="https://evil.example")
        players = [Player(f"p{i}", "holdem", [url], home=0, strategy="passive") for i in range(2)]
        for p in players:
            await p.connect()
        room = (await players[0].request({"t": "create_room", "game": "holdem", "options": {
            "seats": 2, "between_hands_seconds": 0.2}, "config": {"small_blind": 1, "big_blind": 2}}))["room"]
        for i, p in enumerate(players):
            p.room, p.seat = room, i
            assert (await p.request({"t": "join", "room": room, "seat": i, "buy_in": 1000}))["t"] == "room"
        tasks = [asyncio.create_task(p.play(lambda _p: False)) for p in players]
        await wait_for(lambda: all(p.hands_seen for p in players), 60, "a hand through nginx")
        holder = await lease_holder(redis.url, room)
        owner = next(s for s in servers if s.node == holder)
        killed_at = time.monotonic()
        owner.kill9()
        hands = max(players[0].hands_seen)
        await wait_for(lambda: all(max(p.hands_seen) >= hands + 2 for p in players), 60,
                       "two hands after a server died")
        resumed = time.monotonic() - killed_at
        for p in players:
            p.stop.set()
        await asyncio.gather(*tasks)
        survivor = next(s for s in servers if s is not owner)
        assert await lease_holder(redis.url, room) == survivor.node
        assert sum(p.reconnects for p in players) >= 1  # someone was on the dead server

        await check_nothing_lost_or_doubled(redis.url, room, players)
        print(f"\nthrough nginx: the owner was SIGKILLed; two more hands done {resumed:.1f} s later")
    finally:
        proxy.send_signal(signal.SIGQUIT)  # graceful nginx stop
        try:
            proxy.wait(10)
        except subprocess.TimeoutExpired:
            proxy.kill()
        for s in servers:
            s.stop()
