"""Encode and decode messages for both subprotocols, with ``msgspec``.

``cardroom.msgpack`` uses binary frames, ``cardroom.json`` text frames; the schema is
the same. Decoding failures become :class:`~server.protocol.ProtocolError` with the
stable codes ``bad_frame`` and ``frame_too_large``; the shape of a message is checked by
:func:`server.messages.parse`.
"""

from __future__ import annotations

from typing import Any

import msgspec

from .protocol import SUBPROTOCOL_JSON, SUBPROTOCOL_MSGPACK, ProtocolError

_json_encode = msgspec.json.Encoder().encode
_json_decode = msgspec.json.Decoder().decode
_msgpack_encode = msgspec.msgpack.Encoder().encode
_msgpack_decode = msgspec.msgpack.Decoder().decode


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
            return _msgpack_encode(msg)
        return _json_encode(msg).decode()

    def decode(self, frame: bytes | str) -> Any:
        """Decode one frame; raises ProtocolError (``frame_too_large``, ``bad_frame``)."""
        if isinstance(frame, str):
            try:
                data = frame.encode()
            except UnicodeEncodeError:
                raise ProtocolError("bad_frame", "not valid JSON (not UTF-8)") from None
        else:
            data = frame
        if len(data) > self.max_frame:
            raise ProtocolError("frame_too_large", f"frame of {len(data)} bytes exceeds the limit of {self.max_frame}")
        if self.binary:
            if not isinstance(frame, bytes):
                raise ProtocolError("bad_frame", "cardroom.msgpack expects binary frames")
            try:
                return _msgpack_decode(data)
            except (msgspec.DecodeError, ValueError, RecursionError) as exc:
                raise ProtocolError("bad_frame", f"not valid msgpack ({exc})") from None
        if not isinstance(frame, str):
            raise ProtocolError("bad_frame", "cardroom.json expects text frames")
        try:
            return _json_decode(data)
        except (msgspec.DecodeError, ValueError, RecursionError) as exc:
            raise ProtocolError("bad_frame", f"not valid JSON ({exc})") from None
