"""The call protocol both sides must agree on (``phoneCallProtocol``).

Each side announces the layers it speaks (``min_layer``..``max_layer``) and the
libraries it can run (``library_versions``: ntgcalls announces layer 92 with 8.0.0,
9.0.0, 12.0.0 and 13.0.0). The agreed protocol, shown to both sides from acceptance on,
is the common layer range and exactly one library version: the newest both run, which
is the first one each side's library looks at.
"""

from __future__ import annotations

from tl.errors import CallProtocolCompatLayerInvalidError, CallProtocolFlagsInvalidError

MIN_LAYER = 65  # the oldest layer Telegram's clients still call with
VERSIONS_MAX = 16
VERSION_LENGTH_MAX = 32


def clean(p: dict) -> dict:
    """A side's announced protocol, checked: CALL_PROTOCOL_FLAGS_INVALID without any
    way to carry media; CALL_PROTOCOL_COMPAT_LAYER_INVALID for an empty or too old range."""
    if not (p.get("udp_p2p") or p.get("udp_reflector")):
        raise CallProtocolFlagsInvalidError()
    lo, hi = int(p.get("min_layer", 0)), int(p.get("max_layer", 0))
    if lo > hi or hi < MIN_LAYER:
        raise CallProtocolCompatLayerInvalidError()
    versions = [str(v)[:VERSION_LENGTH_MAX] for v in p.get("library_versions") or []][:VERSIONS_MAX]
    if not versions:
        raise CallProtocolCompatLayerInvalidError()
    return {
        "udp_p2p": bool(p.get("udp_p2p")), "udp_reflector": bool(p.get("udp_reflector")),
        "min_layer": lo, "max_layer": hi, "library_versions": list(dict.fromkeys(versions)),
    }  # fmt: skip


def _version_key(v: str) -> tuple:
    return tuple(int(x) if x.isdigit() else -1 for x in v.split("."))


def agree(caller: dict, callee: dict) -> dict:
    """The protocol of the call: CALL_PROTOCOL_COMPAT_LAYER_INVALID when the two sides
    share no layer or no library version."""
    lo = max(caller["min_layer"], callee["min_layer"])
    hi = min(caller["max_layer"], callee["max_layer"])
    common = set(caller["library_versions"]) & set(callee["library_versions"])
    if lo > hi or not common:
        raise CallProtocolCompatLayerInvalidError()
    return {
        "udp_p2p": caller["udp_p2p"] and callee["udp_p2p"],
        "udp_reflector": caller["udp_reflector"] and callee["udp_reflector"],
        "min_layer": lo, "max_layer": hi, "library_versions": [max(common, key=_version_key)],
    }  # fmt: skip
