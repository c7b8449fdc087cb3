"""Peel the API wrappers (``invokeWithLayer``, ``initConnection``, ``invokeAfterMsg(s)``,
``invokeWithoutUpdates``, ``invokeWithTakeout``) off a request body.

They wrap ``query:!X``: any request of the client's layer. The wrappers' own layout has
not changed in years, so they are read here by hand and only the innermost query is
handed to ``tl.layers.decode`` with the layer the wrapper announced.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mtproto.dispatch import ClientInfo
from mtproto.session import wire
from mtproto.session.wire import Cursor, WireError

# Clients nest at most a handful of wrappers; deeper nesting is an attack.
MAX_DEPTH = 8
MAX_JSON_DEPTH = 16


@dataclass(slots=True)
class Unwrapped:
    query: bytes
    layer: int | None = None
    client: ClientInfo | None = None
    after_msg_ids: list[int] = field(default_factory=list)
    no_updates: bool = False
    takeout_id: int | None = None  # invokeWithTakeout: the export session it belongs to


def _skip_json(cur: Cursor, depth: int = 0) -> None:
    if depth > MAX_JSON_DEPTH:
        raise WireError("JSONValue too deep")
    cid = cur.uint()
    if cid == wire.JSON_NULL:
        return
    if cid == wire.JSON_BOOL:
        cur.take(4)
    elif cid == wire.JSON_NUMBER:
        cur.take(8)
    elif cid == wire.JSON_STRING:
        cur.bytes()
    elif cid in (wire.JSON_ARRAY, wire.JSON_OBJECT):
        if cur.uint() != wire.VECTOR:
            raise WireError("vector expected")
        n = cur.int()
        if n < 0 or n > 4096:
            raise WireError("bad JSON vector length")
        for _ in range(n):
            if cid == wire.JSON_OBJECT:
                if cur.uint() != wire.JSON_OBJECT_VALUE:
                    raise WireError("jsonObjectValue expected")
                cur.bytes()
            _skip_json(cur, depth + 1)
    else:
        raise WireError(f"unknown JSONValue {cid:#x}")


def unwrap(body: bytes) -> Unwrapped:
    out = Unwrapped(query=body)
    cur = Cursor(body)
    for _ in range(MAX_DEPTH):
        start = cur.pos
        cid = cur.uint()
        if cid == wire.INVOKE_WITH_LAYER:
            out.layer = cur.int()
        elif cid == wire.INIT_CONNECTION:
            flags = cur.int()
            out.client = ClientInfo(
                api_id=cur.int(),
                device_model=cur.string(),
                system_version=cur.string(),
                app_version=cur.string(),
                system_lang_code=cur.string(),
                lang_pack=cur.string(),
                lang_code=cur.string(),
            )
            if flags & 1:
                if cur.uint() != wire.INPUT_CLIENT_PROXY:
                    raise WireError("inputClientProxy expected")
                cur.bytes()
                cur.take(4)
            if flags & 2:
                _skip_json(cur)
        elif cid == wire.INVOKE_AFTER_MSG:
            out.after_msg_ids = [cur.long()]
        elif cid == wire.INVOKE_AFTER_MSGS:
            out.after_msg_ids = cur.vector_long()
        elif cid == wire.INVOKE_WITHOUT_UPDATES:
            out.no_updates = True
        elif cid == wire.INVOKE_WITH_TAKEOUT:
            out.takeout_id = cur.long()
        else:
            out.query = body[start:]
            return out
    raise WireError("too many nested wrappers")
