"""The translation between Telegram's group-call JSON and Janus' SDP (calls_app.sfu.sdp),
on an offer as Janus 1.1.2's AudioBridge makes it (generate_offer)."""

from __future__ import annotations

import pytest

from calls_app.sfu import nodes, sdp

JANUS_OFFER = "\r\n".join([
    "v=0", "o=- 4311458203367476 1 IN IP4 192.0.2.2", "s=AudioBridge 1234", "t=0 0",
    "a=group:BUNDLE 0", "a=ice-options:trickle", "a=fingerprint:sha-256 7E:56:12:7C",
    "a=extmap-allow-mixed", "a=msid-semantic: WMS *",
    "m=audio 9 UDP/TLS/RTP/SAVPF 100", "c=IN IP4 192.0.2.2", "a=sendrecv", "a=mid:0",
    "a=rtcp-mux", "a=ice-ufrag:q/s/", "a=ice-pwd:YpYAZrbYVojFTLtdrClUhx", "a=ice-options:trickle",
    "a=setup:actpass", "a=rtpmap:100 opus/48000/2",
    "a=fmtp:100 maxplaybackrate=48000; stereo=0; sprop-stereo=0; useinbandfec=1",
    "a=extmap:1 urn:ietf:params:rtp-hdrext:sdes:mid",
    "a=extmap:2 urn:ietf:params:rtp-hdrext:ssrc-audio-level",
    "a=msid:janus janus0", "a=ssrc:3372347216 cname:janus",
    "a=candidate:1 1 udp 2015363327 192.0.2.2 22284 typ host",
    "a=candidate:2 1 tcp 1015023871 192.0.2.2 9 typ host tcptype active",
    "a=end-of-candidates", "",
])  # fmt: skip

CLIENT = {
    "ufrag": "SNT0", "pwd": "3AfLcK8zHHCO2jLvR2VdiRxm",
    "fingerprints": [{"hash": "sha-256", "setup": "passive", "fingerprint": "2B:4D:EB:72"}],
    "ssrc": -5, "ssrc-groups": [{"semantics": "SIM", "sources": [7, 9, 11]}, {"semantics": "FID", "sources": [7, 8]}],
}  # fmt: skip


def test_telegram_json_is_what_ntgcalls_parses():
    out = sdp.telegram_json(sdp.ServerSdp.parse(JANUS_OFFER))
    t = out["transport"]
    assert (t["ufrag"], t["pwd"]) == ("q/s/", "YpYAZrbYVojFTLtdrClUhx")
    # The client is DTLS server ("passive"): Janus opens the handshake.
    assert t["fingerprints"] == [{"hash": "sha-256", "setup": "active", "fingerprint": "7E:56:12:7C"}]
    # ntgcalls reads every candidate field as a string (std::stoi on port, priority...).
    (cand,) = [c for c in t["candidates"] if c["protocol"] == "udp"]
    assert {k: cand[k] for k in ("ip", "port", "priority", "type", "component", "generation", "network")} == {
        "ip": "192.0.2.2", "port": "22284", "priority": "2015363327", "type": "host", "component": "1",
        "generation": "0", "network": "1",
    }  # fmt: skip
    assert all(isinstance(v, str) for c in t["candidates"] for v in c.values())
    # Opus at 111 whatever Janus offered (ntgcalls only plays unknown SSRCs of PT 111).
    assert [p["id"] for p in out["audio"]["payload-types"]] == [111]
    assert out["audio"]["rtp-hdrexts"] == [{"id": 2, "uri": sdp.AUDIO_LEVEL}]
    # A video section always: ntgcalls builds its outgoing video channel from it.
    assert out["video"]["payload-types"][0]["name"] == "VP8"
    video_ids = {e["id"] for e in out["video"]["rtp-hdrexts"]}
    assert not video_ids & {1, 2}  # one id space per bundle


def test_answer_is_the_clients():
    answer = sdp.answer_for(sdp.JoinParams.parse(CLIENT), sdp.ServerSdp.parse(JANUS_OFFER))
    lines = answer.split("\r\n")
    for line in (
        "a=ice-ufrag:SNT0", "a=ice-pwd:3AfLcK8zHHCO2jLvR2VdiRxm", "a=fingerprint:sha-256 2B:4D:EB:72",
        "a=setup:passive", "a=mid:0", "m=audio 9 UDP/TLS/RTP/SAVPF 111", "a=rtpmap:111 opus/48000/2",
        "a=extmap:2 urn:ietf:params:rtp-hdrext:ssrc-audio-level", "a=group:BUNDLE 0",
    ):  # fmt: skip
        assert line in lines, line
    # Telegram's JSON carries SSRCs signed: -5 is 4294967291 on the wire.
    assert any(line.startswith("a=ssrc:4294967291 cname:") for line in lines)
    assert not any(line.startswith("m=video") for line in lines)  # Janus offered none


def test_bad_join_json_is_refused():
    for broken in ({}, {**CLIENT, "fingerprints": []}, {**CLIENT, "ssrc": "x"}):
        with pytest.raises(sdp.BadJoinParams):
            sdp.JoinParams.parse(broken)


def test_nodes_from_settings(settings):
    settings.SFU_NODES = ["a=http://10.0.0.1:8088/janus/", "http://10.0.0.2:8088/janus"]
    assert nodes.configured() == {
        "a": "http://10.0.0.1:8088/janus",
        "http://10.0.0.2:8088/janus": "http://10.0.0.2:8088/janus",
    }
    with pytest.raises(nodes.UnknownNode):
        nodes.url_of("b")
