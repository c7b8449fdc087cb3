"""The Bot API's chat management beyond methods.py: invite links (ChatInviteLink),
join requests, the chat photo, and logOut / close.

Every action is channels_app's, done as the bot (its admin rights decide)."""

from __future__ import annotations

from aiohttp import web

from accounts_app.models import User
from edge_app.orm_threads import in_thread
from media_app import actions as media
from tl.errors import RpcError

from . import files, long_polls, shapes
from .errors import BadRequest, rights_text
from .methods import BotRef, _group, method
from .params import Params

NAME_MAX = 32
MEMBER_LIMIT_MAX = 99999
_INVITE_RIGHTS = "manage chat invite links"


@in_thread
def _users(ids: set[int]) -> dict[int, User]:
    return {u.id: u for u in User.objects.filter(id__in=ids)}


async def invite_link_shape(inv: dict) -> dict:
    """A ChatInviteLink from channels_app's invite row."""
    from channels_app.tl_convert import invite_link

    creator = (await _users({inv["admin_user_id"]})).get(inv["admin_user_id"])
    d = {
        "invite_link": invite_link(inv["hash"]),
        "creator": shapes.user(creator) if creator else {"id": inv["admin_user_id"], "is_bot": False,
                                                          "first_name": ""},
        "creates_join_request": bool(inv["request_needed"]),
        "is_primary": bool(inv["permanent"]),
        "is_revoked": bool(inv["revoked"]),
    }  # fmt: skip
    if inv.get("title"):
        d["name"] = inv["title"]
    if inv.get("expire_date"):
        d["expire_date"] = int(inv["expire_date"])
    if inv.get("usage_limit"):
        d["member_limit"] = int(inv["usage_limit"])
    if inv.get("request_needed"):
        d["pending_join_request_count"] = int(inv.get("requested_count") or 0)
    return d


def _link_fields(p: Params) -> dict:
    name = p.str("name") or ""
    if len(name) > NAME_MAX:
        raise BadRequest("invite link name is too long")
    limit = p.int("member_limit", default=0) or 0
    if limit and not 1 <= limit <= MEMBER_LIMIT_MAX:
        raise BadRequest("member limit must be between 1 and 99999")
    request = p.bool("creates_join_request")
    if request and limit:
        raise BadRequest("member limit can't be specified for links requiring administrator approval")
    expire = p.int("expire_date", default=0) or 0
    if expire < 0:
        raise BadRequest("wrong expire date specified")
    return {"title": name, "usage_limit": limit, "request_needed": request, "expire_date": expire}


def _link(p: Params) -> str:
    link = p.str("invite_link") or ""
    if not link:
        raise BadRequest('parameter "invite_link" is required')
    return link


@method("createChatInviteLink")
async def create_chat_invite_link(bot: BotRef, p: Params):
    from channels_app.actions.invites import do_export_invite

    channel_id, _ = await _group(bot, p)
    fields = _link_fields(p)
    with rights_text(_INVITE_RIGHTS):
        inv = await do_export_invite(bot.id, channel_id, **fields)
    return await invite_link_shape(inv)


@method("editChatInviteLink")
async def edit_chat_invite_link(bot: BotRef, p: Params):
    from channels_app.actions.invites import do_edit_invite

    channel_id, _ = await _group(bot, p)
    fields = _link_fields(p)
    # As Telegram: the link gets exactly the parameters given (left out: none).
    with rights_text(_INVITE_RIGHTS):
        inv, _ = await do_edit_invite(bot.id, channel_id, _link(p), **fields)
    return await invite_link_shape(inv)


@method("revokeChatInviteLink")
async def revoke_chat_invite_link(bot: BotRef, p: Params):
    from channels_app.actions.invites import do_edit_invite

    channel_id, _ = await _group(bot, p)
    with rights_text(_INVITE_RIGHTS):
        inv, _ = await do_edit_invite(bot.id, channel_id, _link(p), revoked=True)
    return await invite_link_shape(inv)


@method("exportChatInviteLink")
async def export_chat_invite_link(bot: BotRef, p: Params):
    """A new primary link for the bot; the one it had stops working."""
    from channels_app.actions.invites import do_export_invite
    from channels_app.tl_convert import invite_link

    channel_id, _ = await _group(bot, p)
    with rights_text(_INVITE_RIGHTS):
        inv = await do_export_invite(bot.id, channel_id, legacy_revoke_permanent=True)
    return invite_link(inv["hash"])


async def _join_request(bot: BotRef, p: Params, *, approved: bool) -> bool:
    from channels_app.actions.invites import do_hide_join_request

    channel_id, _ = await _group(bot, p)
    with rights_text("manage join requests"):
        await do_hide_join_request(bot.id, channel_id, p.int("user_id", required=True), approved=approved)
    return True


@method("approveChatJoinRequest")
async def approve_chat_join_request(bot: BotRef, p: Params):
    return await _join_request(bot, p, approved=True)


@method("declineChatJoinRequest")
async def decline_chat_join_request(bot: BotRef, p: Params):
    return await _join_request(bot, p, approved=False)


# --- the chat photo ---------------------------------------------------------------------------


@method("setChatPhoto")
async def set_chat_photo(bot: BotRef, p: Params):
    from channels_app.actions.settings import do_edit_photo

    channel_id, _ = await _group(bot, p)
    field = files.attached(p.values, p.values.get("photo"))
    if not isinstance(field, web.FileField):
        # Telegram takes a new chat photo only as an upload.
        raise BadRequest("there is no photo in the request")
    ref = await files.staged(bot.id, field, files.PHOTO_MAX)
    try:
        photo = await media.do_upload_photo(bot.id, ref, chat_photo=True)
    except RpcError as exc:
        if exc.message == "PHOTO_INVALID":
            raise BadRequest("PHOTO_INVALID") from None
        raise
    with rights_text("change chat photo"):
        await do_edit_photo(bot.id, channel_id, photo)
    return True


@method("deleteChatPhoto")
async def delete_chat_photo(bot: BotRef, p: Params):
    from channels_app.actions.settings import do_edit_photo

    channel_id, _ = await _group(bot, p)
    with rights_text("change chat photo"):
        change = await do_edit_photo(bot.id, channel_id, None)
    if not change.events:
        raise BadRequest("CHAT_NOT_MODIFIED")
    return True


# --- the bot's session ---------------------------------------------------------------------------


@method("logOut")
async def log_out(bot: BotRef, p: Params):
    """Telegram's cloud server lets the bot go to a local one. Here both are the same
    server: the bot's queue and webhook stay and it may go on calling; waiting long
    polls end now."""
    long_polls.end_polls(bot.id)
    return True


@method("close")
async def close(bot: BotRef, p: Params):
    """Before the bot moves to another server: waiting getUpdates calls return at once
    (nothing is confirmed or lost: the queue keeps what it holds)."""
    long_polls.end_polls(bot.id)
    return True
