"""Encode and decode messages for both subprotocols, with ``msgspec``.

``cardroom.msgpack`` uses binary frames, ``cardroom.json`` text frames; the schema is
the same. Decoding failures become :class:`~server.edge.protocol.ProtocolError` with the
stable codes ``bad_frame`` and ``frame_too_large``. :meth:`Codec.decode_message` decodes
a frame straight into its typed message (:mod:`server.edge.messages`), and only for a frame
that is not one takes the slower path that names the fault.
"""

from __future__ import annotations

from typing import Any

import msgspec

from . import messages
from .messages import Message
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

    def payload(self, msg: dict[str, Any]) -> bytes:
        """``msg``'s frame payload as bytes for either frame kind (JSON as UTF-8, which a
        text frame carries as is): what the server sends, without making a ``str``."""
        return _msgpack_encode(msg) if self.binary else _json_encode(msg)

    def encode(self, msg: dict[str, Any]) -> bytes | str:
        """``msg`` as a client library takes a frame: ``bytes`` (binary) or ``str`` (text)."""
        data = self.payload(msg)
        return data if self.binary else data.decode()

    def decode_message(self, frame: bytes | str) -> Message:
        """The typed message a frame holds, decoded and validated in one step; raises
        :class:`ProtocolError` (``bad_frame``, ``frame_too_large``, ``bad_message`` with
        the field, ``unknown_type``) for anything else."""
        data = self._checked(frame)
        msg = messages.decode(data, self.binary)
        if msg is not None:
            return msg
        return messages.parse(self._decode(data))  # not a valid message: say precisely why

    def decode(self, frame: bytes | str) -> Any:
        """Decode one frame to plain data; raises ProtocolError (``frame_too_large``, ``bad_frame``)."""
        return self._decode(self._checked(frame))

    def _checked(self, frame: bytes | str) -> bytes:
        """The frame's bytes, once its kind (text or binary) and size are right."""
        if isinstance(frame, str):
            try:
                data = frame.encode()
            except UnicodeEncodeError:
                raise ProtocolError("bad_frame", "not valid JSON (not UTF-8)") from None
        else:
            data = frame
        if len(data) > self.max_frame:
            raise ProtocolError("frame_too_large", f"frame of {len(data)} bytes exceeds the limit of {self.max_frame}")
        if self.binary and not isinstance(frame, bytes):
            raise ProtocolError("bad_frame", "cardroom.msgpack expects binary frames")
        if not self.binary and not isinstance(frame, str):
            raise ProtocolError("bad_frame", "cardroom.json expects text frames")
        return data

    def _decode(self, data: bytes) -> Any:
        if self.binary:
            try:
                return _msgpack_decode(data)
            except (msgspec.DecodeError, ValueError, RecursionError) as exc:
                raise ProtocolError("bad_frame", f"not valid msgpack ({exc})") from None
        try:
            return _json_decode(data)
        except (msgspec.DecodeError, ValueError, RecursionError) as exc:
            raise ProtocolError("bad_frame", f"not valid JSON ({exc})") from None
