"""The console's moderation actions: calls into the same domain actions the RPC handlers
use, with the operator as actor (``actor_user_id=None``, recorded in the channel's admin
log as actor 0), so clients are told through the normal push path.

The console never changes channel state itself: a domain action that does not exist (yet)
raises :class:`NotAvailable`, which the admin shows as such.

The admin's views are synchronous and the channel domain is async on per-event-loop
pools; each call runs on a loop of its own and closes that loop's pool and Redis
clients before returning.
"""

from __future__ import annotations

import asyncio
import importlib
from collections.abc import Awaitable, Callable
from typing import Any

from channels_app.rights import BANNED_FLAGS

# A ban as Telegram clients make it: every banned right, view_messages included (which
# removes the user and keeps them out), with no end date.
BAN_ALL_RIGHTS = sum(1 << bit for bit in BANNED_FLAGS.values())


class NotAvailable(Exception):
    """The domain action this moderation step needs is not in the code base."""

    def __init__(self, dotted: str):
        super().__init__(f"{dotted} is not available yet")
        self.dotted = dotted


def domain_function(dotted: str) -> Callable[..., Any]:
    module_name, _, name = dotted.rpartition(".")
    try:
        module = importlib.import_module(module_name)
    except ImportError:
        raise NotAvailable(dotted) from None
    fn = getattr(module, name, None)
    if fn is None:
        raise NotAvailable(dotted)
    return fn


def run_domain(fn: Callable[..., Awaitable[Any]], *args, **kwargs) -> Any:
    async def call():
        from channels_app import counters
        from message_core import db

        try:
            return await fn(*args, **kwargs)
        finally:
            await db.close_pools()
            await counters.close_clients()

    return asyncio.run(call())


# --- channels and members ----------------------------------------------------------


def ban_member(channel_id: int, user_id: int) -> Any:
    fn = domain_function("channels_app.actions.admin.do_edit_banned")
    return run_domain(fn, None, channel_id, user_id, BAN_ALL_RIGHTS, 0)


def unban_member(channel_id: int, user_id: int) -> Any:
    fn = domain_function("channels_app.actions.admin.do_edit_banned")
    return run_domain(fn, None, channel_id, user_id, 0, 0)


def delete_channel(channel_id: int) -> Any:
    fn = domain_function("channels_app.actions.admin.do_delete_channel")
    return run_domain(fn, None, channel_id)


def delete_messages(channel_id: int, ids: list[int]) -> Any:
    """channels.deleteMessages by the operator: every right, admin-log actor 0."""
    fn = domain_function("channels_app.actions.messages.do_delete_messages")
    return run_domain(fn, None, channel_id, ids)


# --- invites and join requests -------------------------------------------------------


def revoke_invite(channel_id: int, link: str) -> Any:
    # messages.editExportedChatInvite(revoked=True); a revoked permanent link is replaced.
    fn = domain_function("channels_app.actions.invites.do_edit_invite")
    return run_domain(fn, None, channel_id, link, revoked=True)


def approve_join_request(channel_id: int, user_id: int) -> Any:
    fn = domain_function("channels_app.actions.invites.do_hide_join_request")
    return run_domain(fn, None, channel_id, user_id, approved=True)


def dismiss_join_request(channel_id: int, user_id: int) -> Any:
    fn = domain_function("channels_app.actions.invites.do_hide_join_request")
    return run_domain(fn, None, channel_id, user_id, approved=False)


# --- accounts ---------------------------------------------------------------------------


def terminate_authorization(authorization) -> int | None:
    """Log one device out, as account.resetAuthorization does for the user: the
    authorization goes and every edge drops the key's cached login."""
    reset = domain_function("accounts_app.actions.do_reset_authorization")
    # current_key_id 0: no key of the user is exempt (the operator has none).
    key_id = reset(authorization.user_id, authorization.hash, 0)
    if key_id is not None:
        forget = domain_function("edge_app.registry.forget_authorization")
        forget(key_id)
    return key_id


def _forget_keys(key_ids) -> None:
    forget = domain_function("edge_app.registry.forget_authorization")
    for key_id in key_ids:
        forget(key_id)


def _tell_contacts(user_id: int, payload: dict) -> None:
    from asgiref.sync import async_to_sync

    push_name = domain_function("accounts_app.push.push_name_to_watchers")
    async_to_sync(push_name)(user_id, payload)


def terminate_sessions(user_id: int) -> int:
    """Log every device of the user out (auth.resetAuthorizations with no exempt key)."""
    reset = domain_function("accounts_app.actions.do_reset_other_authorizations")
    key_ids = reset(user_id, 0)
    _forget_keys(key_ids)
    return len(key_ids)


def revoke_username(user_id: int) -> None:
    """account.updateUsername("") on the user's behalf: their devices get the account
    update, their contacts the new name."""
    from asgiref.sync import async_to_sync

    update = domain_function("accounts_app.actions.do_update_username")
    push = domain_function("accounts_app.updates.push_user_updates")
    change = update(user_id, "")
    async_to_sync(push)(change.events)
    for event in change.events:
        _tell_contacts(user_id, event.payload)


def deactivate_user(user_id: int) -> bool:
    """Close the account: logged out everywhere, username freed, no more sign-ins; its
    contacts are told it is gone. False when it was closed already."""
    deactivate = domain_function("accounts_app.deactivation.do_deactivate_user")
    result = deactivate(user_id)
    _forget_keys(result.key_ids)
    for event in result.events:
        _tell_contacts(user_id, event.payload)
    return not result.already


# --- group calls ------------------------------------------------------------------------


def end_group_call(call_id: int) -> Any:
    """phone.discardGroupCall by the operator: the chat's members see it end."""
    fn = domain_function("calls_app.operator.end_group_call")
    return run_domain(fn, call_id)
