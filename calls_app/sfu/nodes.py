"""The configured SFU nodes, and which one a call is pinned to.

Rendezvous (highest-random-weight) hashing: every listener computes the same node for a
call id from the configuration alone, and adding or removing a node moves only the calls
that node wins or held. Signalling stores the node's name on the call at creation, so a
call keeps its node even if the configuration changes while it runs.
"""

from __future__ import annotations

import hashlib

from django.conf import settings


class UnknownNode(KeyError):
    pass


def configured() -> dict[str, str]:
    """{name: Janus HTTP API base URL} from TELESRV_SFU_NODES."""
    nodes = {}
    for entry in settings.SFU_NODES:
        name, sep, url = entry.partition("=")
        if not sep:  # a bare URL names itself
            name, url = entry, entry
        nodes[name.strip()] = url.strip().rstrip("/")
    return nodes


def url_of(node: str) -> str:
    try:
        return configured()[node]
    except KeyError:
        raise UnknownNode(node) from None


def pick(call_id: int) -> str | None:
    names = sorted(configured())
    if not names:
        return None

    def weight(name: str) -> int:
        return int.from_bytes(hashlib.blake2b(f"{name}:{call_id}".encode(), digest_size=8).digest())

    return max(names, key=weight)
