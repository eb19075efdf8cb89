"""Identity tokens for tests, as an operator's site would issue them: an HS256 secret,
RSA and EC key pairs, and a JWKS document served over HTTP on a loopback port."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import jwt
from cryptography.hazmat.primitives.asymmetric import ec, rsa

SECRET = "s3cret-shared-with-the-site-0123456789abcdef"
ISSUER = "https://club.example"
AUDIENCE = "cardroom"


def claims(sub: str = "user-1", **extra: Any) -> dict[str, Any]:
    now = int(time.time())
    return {"sub": sub, "iss": ISSUER, "aud": AUDIENCE, "iat": now, "exp": now + 600, **extra}


def hs256(payload: dict[str, Any], secret: str = SECRET) -> str:
    return jwt.encode(payload, secret, algorithm="HS256")


class KeyPair:
    """A signing key of the site with its kid, and its public half as a JWK."""

    def __init__(self, kid: str, alg: str) -> None:
        self.kid, self.alg = kid, alg
        self.private = (rsa.generate_private_key(public_exponent=65537, key_size=2048) if alg == "RS256"
                        else ec.generate_private_key(ec.SECP256R1()))
        algorithm = jwt.algorithms.RSAAlgorithm if alg == "RS256" else jwt.algorithms.ECAlgorithm
        self.jwk = dict(json.loads(algorithm.to_jwk(self.private.public_key())), kid=kid, alg=alg, use="sig")

    def sign(self, payload: dict[str, Any], kid: str | None = "") -> str:
        headers = {} if kid is None else {"kid": kid or self.kid}
        return jwt.encode(payload, self.private, algorithm=self.alg, headers=headers)


class JwksServer:
    """Serves ``{"keys": [...]}`` of the given key pairs at ``url``; ``keys`` may be changed
    (a rotation) and ``down`` set (the site unreachable: 503); ``hits`` counts fetches."""

    def __init__(self, *keys: KeyPair) -> None:
        self.keys = list(keys)
        self.down = False
        self.hits = 0
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (the name http.server calls)
                outer.hits += 1
                if outer.down:
                    self.send_error(503)
                    return
                body = json.dumps({"keys": [k.jwk for k in outer.keys]}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/.well-known/jwks.json"
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> JwksServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
