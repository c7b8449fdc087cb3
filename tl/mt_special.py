"""The MTProto constructors that mtproto.tl leaves out because every implementation
parses them by hand: ``message`` (bare, inside a container), ``msg_container``,
``msg_copy``, ``gzip_packed`` and ``rpc_result``.

Message bodies stay raw bytes on read: only the session knows the client's layer, so
it decodes them with ``tl.layers.decode``. On write a body (or an RPC result) may be a
``TLObject`` (written for the primary layer) or bytes already encoded for the client.
"""

from __future__ import annotations

import struct
import zlib

from tl.runtime import (
    GZIP_PACKED_ID,
    MSG_CONTAINER_ID,
    MSG_COPY_ID,
    REGISTRY,
    RPC_RESULT_ID,
    DecodeError,
    Reader,
    TLObject,
    inflate,
    pack_i,
    w_bytes,
    w_object,
)

_S_msg = struct.Struct("<qii")
_S_cid_q = struct.Struct("<Iq")
_new = object.__new__


def _raw(body) -> bytes:
    return bytes(body) if isinstance(body, bytes | bytearray | memoryview) else body.to_bytes()


class Message(TLObject):
    """``message msg_id:long seqno:int bytes:int body:Object`` (bare; no id on the wire)."""

    __slots__ = ("body", "msg_id", "seqno")
    CONSTRUCTOR_ID = 0
    TL_NAME = "message"
    _FIELDS = ("msg_id", "seqno", "body")

    def __init__(self, *, msg_id: int, seqno: int, body: bytes | TLObject) -> None:
        self.msg_id = msg_id
        self.seqno = seqno
        self.body = body

    def _write(self, b: bytearray) -> None:
        body = _raw(self.body)
        b += _S_msg.pack(self.msg_id, self.seqno, len(body))
        b += body

    _write_bare = _write

    @classmethod
    def read(cls, r: Reader) -> Message:
        o = _new(cls)
        o.msg_id, o.seqno, n = r.read_fixed(_S_msg)
        if n < 0 or n & 3:
            raise DecodeError(f"message body length {n} is not a positive multiple of 4")
        o.body = r.read_raw(n)
        return o


class MsgContainer(TLObject):
    """``msg_container#73f1f8dc messages:vector<%Message>``."""

    __slots__ = ("messages",)
    CONSTRUCTOR_ID = MSG_CONTAINER_ID
    TL_NAME = "msg_container"
    _FIELDS = ("messages",)

    def __init__(self, *, messages: list[Message]) -> None:
        self.messages = messages

    def _write(self, b: bytearray) -> None:
        b += _S_cid_q.pack(MSG_CONTAINER_ID, 0)[:4]
        b += pack_i(len(self.messages))
        for m in self.messages:
            m._write(b)

    @classmethod
    def read(cls, r: Reader) -> MsgContainer:
        o = _new(cls)
        n = r._count(16)
        o.messages = [Message.read(r) for _ in range(n)]
        return o


class MsgCopy(TLObject):
    """``msg_copy#e06046b2 orig_message:Message`` (deprecated by the protocol, still valid)."""

    __slots__ = ("orig_message",)
    CONSTRUCTOR_ID = MSG_COPY_ID
    TL_NAME = "msg_copy"
    _FIELDS = ("orig_message",)

    def __init__(self, *, orig_message: Message) -> None:
        self.orig_message = orig_message

    def _write(self, b: bytearray) -> None:
        b += struct.pack("<I", MSG_COPY_ID)
        self.orig_message._write(b)

    @classmethod
    def read(cls, r: Reader) -> MsgCopy:
        o = _new(cls)
        o.orig_message = Message.read(r)
        return o


class GzipPacked(TLObject):
    """``gzip_packed#3072cfa1 packed_data:bytes``.

    ``Reader.read_object`` inflates it transparently; this class is for writing
    (``GzipPacked.pack(obj)``) and for reading it explicitly."""

    __slots__ = ("packed_data",)
    CONSTRUCTOR_ID = GZIP_PACKED_ID
    TL_NAME = "gzip_packed"
    _FIELDS = ("packed_data",)

    def __init__(self, *, packed_data: bytes) -> None:
        self.packed_data = packed_data

    @classmethod
    def pack(cls, obj: bytes | TLObject, level: int = 6) -> GzipPacked:
        c = zlib.compressobj(level, wbits=31)
        return cls(packed_data=c.compress(_raw(obj)) + c.flush())

    def unpack(self, limit: int | None = None) -> bytes:
        return inflate(self.packed_data, limit)

    def _write(self, b: bytearray) -> None:
        b += struct.pack("<I", GZIP_PACKED_ID)
        w_bytes(b, self.packed_data)

    @classmethod
    def read(cls, r: Reader) -> GzipPacked:
        o = _new(cls)
        o.packed_data = r.read_bytes()
        return o


class RpcResult(TLObject):
    """``rpc_result#f35c6d01 req_msg_id:long result:Object``; ``result`` is a TLObject
    or the bytes of one already encoded for the client's layer."""

    __slots__ = ("req_msg_id", "result")
    CONSTRUCTOR_ID = RPC_RESULT_ID
    TL_NAME = "rpc_result"
    _FIELDS = ("req_msg_id", "result")

    def __init__(self, *, req_msg_id: int, result: bytes | TLObject) -> None:
        self.req_msg_id = req_msg_id
        self.result = result

    def _write(self, b: bytearray) -> None:
        b += _S_cid_q.pack(RPC_RESULT_ID, self.req_msg_id)
        w_object(b, self.result)

    @classmethod
    def read(cls, r: Reader) -> RpcResult:
        o = _new(cls)
        o.req_msg_id = r.read_long()
        o.result = r.read_object()
        return o


for _c in (MsgContainer, MsgCopy, RpcResult):
    REGISTRY[_c.CONSTRUCTOR_ID] = _c.read
