"""Hooks that let other peer kinds (channels) answer contacts.search / resolveUsername.

accounts answers for users; the channel module registers its providers here in its
``ready()``. Providers build their TL (peers, chats) in their own ``tl_convert``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True)
class PeerHits:
    """TL ``Peer`` objects found, the TL chats they refer to, and the users to include."""

    my_results: list[Any] = field(default_factory=list)  # the viewer's own chats
    results: list[Any] = field(default_factory=list)  # public ones
    chats: list[Any] = field(default_factory=list)
    user_ids: set[int] = field(default_factory=set)


# async fn(viewer_id, query, limit) -> PeerHits | None
SearchProvider = Callable[[int, str, int], Awaitable[PeerHits | None]]
# async fn(viewer_id, lowercased username) -> PeerHits with one result, or None
UsernameResolver = Callable[[int, str], Awaitable[PeerHits | None]]

_search_providers: list[SearchProvider] = []
_username_resolvers: list[UsernameResolver] = []


def register_search_provider(fn: SearchProvider) -> SearchProvider:
    if fn not in _search_providers:
        _search_providers.append(fn)
    return fn


def register_username_resolver(fn: UsernameResolver) -> UsernameResolver:
    if fn not in _username_resolvers:
        _username_resolvers.append(fn)
    return fn


def search_providers() -> list[SearchProvider]:
    return list(_search_providers)


def username_resolvers() -> list[UsernameResolver]:
    return list(_username_resolvers)
