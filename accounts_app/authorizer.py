"""The hook edge_app's dispatcher calls to learn which user an auth key is logged in as."""

from __future__ import annotations

from asgiref.sync import sync_to_async

from accounts_app.login import authorized_user_id


async def authorize(ctx) -> int | None:
    # ctx.perm_auth_key_id: a temporary key authorizes as the permanent key it is bound to.
    user_id = await sync_to_async(authorized_user_id)(ctx.perm_auth_key_id)
    session = ctx.session
    if user_id is not None and session is not None and getattr(session, "user_id", None) is None:
        session.user_id = user_id
    return user_id
