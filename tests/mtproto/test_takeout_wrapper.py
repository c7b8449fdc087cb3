"""invokeWithTakeout is peeled like the other wrappers and its id reaches the app."""

from __future__ import annotations

import struct

from mtproto.session import wire
from mtproto.session.wrappers import unwrap


def test_takeout_wrapper_inside_layer_and_without_updates():
    inner = b"\x11\x22\x33\x44rest"
    body = (
        struct.pack("<Ii", wire.INVOKE_WITH_LAYER, 229)
        + struct.pack("<Iq", wire.INVOKE_WITH_TAKEOUT, -12345678901)
        + struct.pack("<I", wire.INVOKE_WITHOUT_UPDATES)
        + inner
    )
    call = unwrap(body)
    assert call.query == inner and call.layer == 229 and call.no_updates
    assert call.takeout_id == -12345678901
    assert unwrap(inner).takeout_id is None
