"""Encode and decode messages for both subprotocols.

``cardroom.msgpack`` uses binary frames, ``cardroom.json`` text frames; the schema is
the same. Decoding failures become :class:`~server.protocol.ProtocolError` with the
stable codes ``bad_frame`` and ``frame_too_large``; shape checks are in
:func:`server.protocol.validate_message`.
"""

from __future__ import annotations

import json
from typing import Any

import msgpack

from .protocol import SUBPROTOCOL_JSON, SUBPROTOCOL_MSGPACK, ProtocolError


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not allowed")


class Codec:
    """The encoding negotiated for one connection."""

    def __init__(self, subprotocol: str, max_frame: int) -> None:
        if subprotocol not in (SUBPROTOCOL_MSGPACK, SUBPROTOCOL_JSON):
            raise ValueError(f"unknown subprotocol {subprotocol!r}")
        self.subprotocol = subprotocol
        self.binary = subprotocol == SUBPROTOCOL_MSGPACK
        self.max_frame = max_frame

    def encode(self, msg: dict[str, Any]) -> bytes | str:
        if self.binary:
            return msgpack.packb(msg, use_bin_type=True)
        return json.dumps(msg, separators=(",", ":"), ensure_ascii=False)

    def decode(self, frame: bytes | str) -> Any:
        """Decode one frame; raises ProtocolError (``frame_too_large``, ``bad_frame``)."""
        size = len(frame) if isinstance(frame, bytes) else len(frame.encode("utf-8", "surrogatepass"))
        if size > self.max_frame:
            raise ProtocolError("frame_too_large", f"frame of {size} bytes exceeds the limit of {self.max_frame}")
        if self.binary:
            if not isinstance(frame, bytes):
                raise ProtocolError("bad_frame", "cardroom.msgpack expects binary frames")
            try:
                return msgpack.unpackb(frame, raw=False, strict_map_key=True, use_list=True)
            except Exception as exc:  # msgpack raises many types for garbage
                raise ProtocolError("bad_frame", f"not valid msgpack ({type(exc).__name__})") from None
        if not isinstance(frame, str):
            raise ProtocolError("bad_frame", "cardroom.json expects text frames")
        try:
            return json.loads(frame, parse_constant=_reject_constant)
        except (ValueError, RecursionError) as exc:
            raise ProtocolError("bad_frame", f"not valid JSON ({type(exc).__name__})") from None
