"""TURN REST credentials as coturn checks them, the relays a call lists, and the
protocol agreement of the two sides."""

from __future__ import annotations

import base64
import hashlib
import hmac

import pytest

from calls_app import protocol, turn
from tl.errors import CallProtocolCompatLayerInvalidError, CallProtocolFlagsInvalidError

NTGCALLS = {"udp_p2p": True, "udp_reflector": True, "min_layer": 65, "max_layer": 92,
            "library_versions": ["8.0.0", "9.0.0", "12.0.0", "13.0.0"]}  # fmt: skip


def test_credentials_follow_turn_rest():
    username, password = turn.credentials(42, 1_000, secret="s3cret", ttl=600)
    assert username == "1600:42"
    expected = base64.b64encode(hmac.new(b"s3cret", b"1600:42", hashlib.sha1).digest()).decode()
    assert password == expected
    assert turn.credentials(42, 1_000, secret="other", ttl=600)[1] != password


def test_relays_turn_then_stun(settings):
    settings.CALL_TURN_SERVERS = ["127.0.0.1:20710", "turn2.example:3479"]
    settings.CALL_TURN_SECRET = "k"
    settings.CALL_STUN_SERVERS = ["127.0.0.1:20711"]
    relays = turn.relays_for(7, 100)
    assert [(r.host, r.port, r.turn, r.stun) for r in relays] == [
        ("127.0.0.1", 20710, True, False), ("turn2.example", 3479, True, False),
        ("127.0.0.1", 20710, False, True), ("turn2.example", 3479, False, True), ("127.0.0.1", 20711, False, True),
    ]  # fmt: skip
    assert relays[0].username.endswith(":7") and relays[0].password and not relays[2].password
    assert len({r.id for r in relays}) == len(relays)
    # Without a secret, no TURN at all: STUN-only peer to peer.
    settings.CALL_TURN_SECRET = ""
    assert [(r.turn, r.stun) for r in turn.relays_for(7, 100)] == [(False, True)]


def test_protocol_agrees_on_one_library_version():
    agreed = protocol.agree(protocol.clean(NTGCALLS), protocol.clean({**NTGCALLS, "min_layer": 70}))
    assert agreed["library_versions"] == ["13.0.0"] and (agreed["min_layer"], agreed["max_layer"]) == (70, 92)
    older = protocol.clean({**NTGCALLS, "library_versions": ["9.0.0", "8.0.0"]})
    assert protocol.agree(protocol.clean(NTGCALLS), older)["library_versions"] == ["9.0.0"]
    with pytest.raises(CallProtocolCompatLayerInvalidError):
        protocol.agree(protocol.clean(NTGCALLS), protocol.clean({**NTGCALLS, "library_versions": ["2.4.4"]}))
    with pytest.raises(CallProtocolCompatLayerInvalidError):
        protocol.clean({**NTGCALLS, "min_layer": 93})
    with pytest.raises(CallProtocolFlagsInvalidError):
        protocol.clean({**NTGCALLS, "udp_p2p": False, "udp_reflector": False})
