"""Rendering of pushed account updates in each edge process (see edge_app.push)."""

from __future__ import annotations

import logging

from accounts_app import tl_convert
from accounts_app.updates import PUSH_KIND, Rendered, UserUpdate, render_event
from edge_app.push import deliver, publish, push_to_users, renderer, subscriber


@renderer(PUSH_KIND)
async def render_user_update(payload: dict, viewer_user_id: int):
    event = UserUpdate.from_json(payload)
    if viewer_user_id != event.user_id:
        return None  # account updates are for their owner's sessions only
    # An event with nothing to show still moves the session's pts over it.
    rendered = await render_event(event, viewer_user_id) or Rendered()
    return await tl_convert.push_updates_to_tl(event, rendered, viewer_user_id)


NAME_KIND = "accounts.user_name"
WATCHERS_CAP = 5000  # contacts told live about a name change; the rest see it on next fetch


@renderer(NAME_KIND)
async def render_user_name(payload: dict, viewer_user_id: int):
    # Not part of the viewer's account log (Telegram sends updateUserName without pts):
    # it only refreshes the name the viewer's client shows.
    users = await tl_convert.users_to_tl([int(payload["user_id"])], viewer_user_id)
    return tl_convert.updates_to_tl([tl_convert.user_name_update_to_tl(payload)], users)


STATUS_KIND = "accounts.user_status"


@renderer(STATUS_KIND)
async def render_user_status(payload: dict, viewer_user_id: int):
    # updateShort, as Telegram sends a status: it names a user without carrying it
    return tl_convert.update_short_to_tl(tl_convert.user_status_payload_to_tl(payload))


async def _push_to_watchers(user_id: int, kind: str, payload: dict, *, only_allowed: bool = False) -> None:
    from asgiref.sync import sync_to_async

    from accounts_app.actions import contact_owners_of
    from accounts_app.privacy import status_watchers

    try:
        watchers = await sync_to_async(contact_owners_of)(user_id, WATCHERS_CAP)
        if only_allowed:
            watchers = await sync_to_async(status_watchers)(user_id, watchers)
        if watchers:
            await push_to_users(watchers, kind, payload)
    except Exception:
        # Best effort: the change is saved; contacts see it on their next fetch.
        logging.getLogger("telesrv.accounts").exception("%s push for user %d failed", kind, user_id)


async def push_name_to_watchers(user_id: int, payload: dict) -> None:
    """Tell the users who have ``user_id`` in their contacts about its new name."""
    await _push_to_watchers(user_id, NAME_KIND, payload)


async def push_status_to_watchers(user_id: int, payload: dict) -> None:
    """Tell the users who have ``user_id`` in their contacts that it went on/offline
    (those its last-seen rules allow and it did not block)."""
    await _push_to_watchers(user_id, STATUS_KIND, payload, only_allowed=True)


PHOTO_KIND = "accounts.user_photo"


@renderer(PHOTO_KIND)
async def render_user_photo(payload: dict, viewer_user_id: int):
    # updateUser: the client refetches the user, whose photo changed.
    user_id = int(payload["user_id"])
    users = await tl_convert.users_to_tl([user_id], viewer_user_id)
    return tl_convert.updates_to_tl([tl_convert.user_refresh_update_to_tl(user_id)], users)


async def push_photo_to_watchers(user_id: int) -> None:
    """Tell the user's own sessions and its contacts' owners that its profile photo changed."""
    await push_to_users([user_id], PHOTO_KIND, {"user_id": user_id})
    await _push_to_watchers(user_id, PHOTO_KIND, {"user_id": user_id})


LOGIN_TOKEN_KIND = "accounts.login_token_accepted"


async def push_login_token_accepted(perm_auth_key_id: int) -> None:
    """Tell the key waiting on its QR code (on whichever edge holds it) to export again."""
    await publish(LOGIN_TOKEN_KIND, {"perm_auth_key_id": perm_auth_key_id})


@subscriber(LOGIN_TOKEN_KIND)
async def _login_token_accepted(payload: dict, edge) -> None:
    sessions = edge.sessions_of_perm_key(int(payload["perm_auth_key_id"]))
    if sessions:
        update = tl_convert.login_token_update_to_tl()
        for session in sessions:
            await deliver(session, update)


CONFIG_CHANGED = "accounts.config_changed"


async def push_config_changed(user_id: int, exclude=None) -> None:
    """The user's other sessions re-read help.getConfig (a new default reaction)."""
    await push_to_users([user_id], CONFIG_CHANGED, {}, exclude=exclude)


@renderer(CONFIG_CHANGED)
async def _render_config_changed(payload: dict, viewer_user_id: int):
    from accounts_app.tl_convert_account import config_changed_to_tl

    return config_changed_to_tl()
