"""The Bot API methods: each reads its parameters, calls the domain actions the MTProto
handlers call (as the bot) and answers in the Bot API's shapes.

``METHODS`` maps the method name, lower-cased (the Bot API's names are case-insensitive),
to ``async fn(bot, params) -> result``."""

from __future__ import annotations

import dataclasses
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from accounts_app.models import User
from bots_app import actions as bot_actions
from bots_app import callbacks, scopes
from bots_app import markup as markup_rules
from bots_app.models import Bot
from edge_app.orm_threads import in_thread
from private_app import actions as private
from private_app.typing import push_typing
from tl import types

from . import files, long_polls, parse_mode, queue, shapes, webhook
from .errors import BadRequest
from .params import Params

METHODS: dict[str, Callable[[BotRef, Params], Awaitable[object]]] = {}


@dataclass(slots=True)
class BotRef:
    id: int
    # Users this call already read (the bot, the chat's user): its answer's rendering
    # reads only the others.
    users: dict = dataclasses.field(default_factory=dict)


def method(name: str):
    def register(fn):
        METHODS[name.lower()] = fn
        return fn

    return register


def _random_id() -> int:
    return secrets.randbits(63) + 1


@in_thread
def _load_bot(bot_id: int) -> tuple[User, Bot]:
    bot = Bot.objects.select_related("user").get(user_id=bot_id)
    return bot.user, bot


@in_thread
def _user_by_username(username: str) -> User | None:
    return User.objects.filter(username__iexact=username, deleted=False).first()


async def _resolve_user_chat(bot: BotRef, chat) -> User:
    """A private chat's user: by id (on the pooled connections, with the bot itself in
    the same read: the hot methods' path), or by @username."""
    if isinstance(chat, str) and chat.startswith("@"):
        u = await _user_by_username(chat[1:])
    elif isinstance(chat, int) and chat > 0:
        bot.users.update(await queue.users_by_id_async([chat, bot.id]))
        u = bot.users.get(chat)
        u = None if u is None or u.deleted else u
    else:
        u = None  # groups and channels: not served over the Bot API yet
    if u is None:
        raise BadRequest("chat not found")
    return u


async def _private_peer(bot: BotRef, p: Params, name: str = "chat_id") -> User:
    return await _resolve_user_chat(bot, p.chat_id(name))


@in_thread
def _render_with_reply(m: dict) -> dict:
    return queue.private_message_body(m)


async def _render(m: dict, known: dict | None = None) -> dict:
    """A private message the bot sent, in the Bot API's shape: without a reply (the
    usual answer: text, a photo or a file) from the pooled connections; the rest
    (a reply, a forward, a poll) through the ORM."""
    media = m.get("media") or {}
    if (
        m.get("reply_to_msg_id")
        or m.get("fwd_from")
        or (media and not (media.get("photo") or media.get("document")))
    ):
        return await _render_with_reply(m)
    return await queue.private_message_body_async(m, known or {})


GROUP_BASE = 10**12  # the Bot API's id of a supergroup or channel: -(10**12 + channel id)


def _channel_of(chat) -> int | None:
    if isinstance(chat, int) and chat < -GROUP_BASE:
        return -chat - GROUP_BASE
    return None


async def _channel_member_chat(bot_id: int, channel_id: int) -> dict:
    """The group or channel, if the bot is in it ("chat not found" otherwise, as a bot
    cannot see chats it is not in): one statement on the pooled connections."""
    chat = await queue.channel_chat_async(channel_id, bot_id)
    if chat is None:
        raise BadRequest("chat not found")
    return chat


async def _render_channel(m: dict, chat: dict) -> dict:
    return await queue.channel_message_body_async(m, chat)


def _text_and_entities(p: Params, text_name: str, entities_name: str) -> tuple[str, list[dict]]:
    text = p.str(text_name) or ""
    parsed = parse_mode.parse(text, p.str("parse_mode"))
    if parsed is not None:
        return parsed
    return text, shapes.entities_in(p.json(entities_name) or [])


def _reply_to(p: Params) -> int:
    reply = p.json("reply_parameters")
    if isinstance(reply, dict) and reply.get("message_id"):
        return int(reply["message_id"])
    return p.int("reply_to_message_id", default=0) or 0


def _markup(p: Params) -> dict | None:
    return markup_rules.validate(shapes.markup_in(p.json("reply_markup")))


# --- the bot itself -------------------------------------------------------------------


@method("getMe")
async def get_me(bot: BotRef, p: Params):
    user, row = await _load_bot(bot.id)
    return shapes.bot_me(user, row)


@method("getMyName")
async def get_my_name(bot: BotRef, p: Params):
    user, row = await _load_bot(bot.id)
    lang = p.str("language_code") or ""
    name = bot_actions.localized_info(row, lang).get("name") if lang else None
    return {"name": name or user.first_name}


@method("setMyName")
async def set_my_name(bot: BotRef, p: Params):
    name = p.str("name")
    lang = p.str("language_code") or ""
    if not name and not lang:
        raise BadRequest("bot name can't be empty")
    await in_thread(bot_actions.do_set_bot_info)(None, bot.id, lang_code=lang, name=name or "")
    return True


@method("getMyDescription")
async def get_my_description(bot: BotRef, p: Params):
    _, row = await _load_bot(bot.id)
    lang = p.str("language_code") or ""
    texts = bot_actions.localized_info(row, lang) if lang else {}
    return {"description": texts.get("description") or row.description}


@method("setMyDescription")
async def set_my_description(bot: BotRef, p: Params):
    lang = p.str("language_code") or ""
    await in_thread(bot_actions.do_set_bot_info)(
        None, bot.id, lang_code=lang, description=p.str("description") or ""
    )
    return True


@method("getMyShortDescription")
async def get_my_short_description(bot: BotRef, p: Params):
    user, row = await _load_bot(bot.id)
    lang = p.str("language_code") or ""
    texts = bot_actions.localized_info(row, lang) if lang else {}
    return {"short_description": texts.get("about") or user.about}


@method("setMyShortDescription")
async def set_my_short_description(bot: BotRef, p: Params):
    lang = p.str("language_code") or ""
    about = p.str("short_description") or ""
    await in_thread(bot_actions.do_set_bot_info)(None, bot.id, lang_code=lang, about=about)
    return True


def _scope(bot: BotRef, p: Params) -> str:
    raw = p.json("scope") or {"type": "default"}
    kind = raw.get("type") if isinstance(raw, dict) else None
    simple = {
        "default": scopes.DEFAULT,
        "all_private_chats": scopes.USERS,
        "all_group_chats": scopes.CHATS,
        "all_chat_administrators": scopes.CHAT_ADMINS,
    }
    if kind in simple:
        return simple[kind]
    if kind in ("chat", "chat_administrators", "chat_member"):
        try:
            chat_id = int(raw.get("chat_id"))
        except (TypeError, ValueError):
            raise BadRequest("chat not found") from None
        key = scopes.peer_key("u", chat_id) if chat_id > 0 else scopes.peer_key("c", -chat_id - 10**12)
        if kind == "chat":
            return scopes.peer(key)
        if kind == "chat_administrators":
            return scopes.peer_admins(key)
        return scopes.peer_user(key, int(raw.get("user_id") or 0))
    raise BadRequest("can't parse BotCommandScope: unsupported type")


@method("setMyCommands")
async def set_my_commands(bot: BotRef, p: Params):
    commands = p.json("commands")
    if not isinstance(commands, list) or not all(isinstance(c, dict) for c in commands):
        raise BadRequest("can't parse commands JSON object")
    await in_thread(bot_actions.do_set_commands)(
        None, bot.id, _scope(bot, p), p.str("language_code") or "", commands
    )
    return True


@method("getMyCommands")
async def get_my_commands(bot: BotRef, p: Params):
    return await in_thread(bot_actions.get_commands)(bot.id, _scope(bot, p), p.str("language_code") or "")


@method("deleteMyCommands")
async def delete_my_commands(bot: BotRef, p: Params):
    await in_thread(bot_actions.do_set_commands)(
        None, bot.id, _scope(bot, p), p.str("language_code") or "", []
    )
    return True


# --- updates ----------------------------------------------------------------------------


@method("getUpdates")
async def get_updates(bot: BotRef, p: Params):
    allowed = p.json("allowed_updates")
    if allowed is not None and not (isinstance(allowed, list) and all(isinstance(a, str) for a in allowed)):
        raise BadRequest("can't parse allowed_updates JSON array")
    timeout = max(0, min(p.int("timeout", default=0) or 0, 50))
    return await long_polls.until_closed(
        bot.id,
        queue.get_updates(
            bot.id, p.int("offset", default=0) or 0, p.int("limit", default=100), timeout, allowed
        ),
    )


# --- messages ------------------------------------------------------------------------------


@method("sendMessage")
async def send_message(bot: BotRef, p: Params):
    channel_id = _channel_of(p.chat_id())
    if not p.has("text"):
        raise BadRequest("message text is empty")
    text, entities = _text_and_entities(p, "text", "entities")
    if not text.strip():
        raise BadRequest("message text is empty")
    if channel_id is not None:
        from channels_app.actions.messages import do_send_message

        chat = await _channel_member_chat(bot.id, channel_id)
        change = await do_send_message(
            bot.id,
            channel_id,
            text,
            _random_id(),
            entities=entities,
            reply_to_msg_id=_reply_to(p),
            silent=p.bool("disable_notification"),
            reply_markup=_markup(p),
            noforwards=p.bool("protect_content"),
        )
        return await _render_channel(change.events[0].message, chat)
    peer = await _private_peer(bot, p)
    change = await private.do_send_private_message(
        bot.id,
        peer.id,
        text,
        _random_id(),
        entities=entities,
        reply_to_msg_id=_reply_to(p),
        silent=p.bool("disable_notification"),
        reply_markup=_markup(p),
    )
    return await _render(change.messages[0], bot.users)


async def _send_media(bot: BotRef, p: Params, want: str):
    media = await files.input_media(bot.id, files.attached(p.values, p.values.get(want)), want)
    return await send_with_media(bot, p, media)


async def send_with_media(bot: BotRef, p: Params, media: dict):
    """Send ``media`` with the request's caption, reply and keyboard to its chat."""
    channel_id = _channel_of(p.chat_id())
    chat = await _channel_member_chat(bot.id, channel_id) if channel_id is not None else None
    peer = None if channel_id is not None else await _private_peer(bot, p)
    caption, entities = _text_and_entities(p, "caption", "caption_entities")
    kwargs = {
        "entities": entities,
        "media": media,
        "reply_to_msg_id": _reply_to(p),
        "silent": p.bool("disable_notification"),
        "reply_markup": _markup(p),
    }
    if channel_id is not None:
        from channels_app.actions.messages import do_send_message

        change = await do_send_message(
            bot.id, channel_id, caption, _random_id(), noforwards=p.bool("protect_content"), **kwargs
        )
        return await _render_channel(change.events[0].message, chat)
    change = await private.do_send_private_message(bot.id, peer.id, caption, _random_id(), **kwargs)
    return await _render(change.messages[0])


@method("sendPhoto")
async def send_photo(bot: BotRef, p: Params):
    return await _send_media(bot, p, "photo")


@method("sendDocument")
async def send_document(bot: BotRef, p: Params):
    return await _send_media(bot, p, "document")


@method("getFile")
async def get_file(bot: BotRef, p: Params):
    return await files.get_file(bot.id, p.str("file_id", required=True))


# forwardMessage(s) and copyMessage(s): methods_media.


async def _edit(bot: BotRef, p: Params, *, text: bool):
    if p.has("inline_message_id"):
        raise BadRequest("inline message editing is not supported")
    channel_id = _channel_of(p.chat_id())
    kwargs = {"reply_markup": _markup(p)}
    if text:
        if not p.has("text"):
            raise BadRequest("message text is empty")
        body, entities = _text_and_entities(p, "text", "entities")
    else:
        body, entities = None, None
    if channel_id is not None:
        from channels_app.actions.messages import do_edit_message

        chat = await _channel_member_chat(bot.id, channel_id)
        change = await do_edit_message(
            bot.id, channel_id, p.int("message_id", required=True), body, entities, **kwargs
        )
        return await _render_channel(change.events[0].message, chat)
    peer = await _private_peer(bot, p)
    change = await private.do_edit_private_message(
        bot.id, peer.id, p.int("message_id", required=True), body, entities, **kwargs
    )
    return await _render(change.messages[0])


@method("editMessageText")
async def edit_message_text(bot: BotRef, p: Params):
    return await _edit(bot, p, text=True)


@method("editMessageReplyMarkup")
async def edit_message_reply_markup(bot: BotRef, p: Params):
    return await _edit(bot, p, text=False)


@in_thread
def _own_ids_in_chat(bot_id: int, peer_id: int, ids: list[int]) -> list[int]:
    return list(
        private.live_boxes(bot_id).filter(peer_id=peer_id, box_id__in=ids).values_list("box_id", flat=True)
    )


async def _delete_in_group(bot: BotRef, channel_id: int, ids: list[int]) -> None:
    from channels_app.actions.messages import do_delete_messages

    await _channel_member_chat(bot.id, channel_id)
    await do_delete_messages(bot.id, channel_id, ids)


@method("deleteMessage")
async def delete_message(bot: BotRef, p: Params):
    channel_id = _channel_of(p.chat_id())
    if channel_id is not None:
        await _delete_in_group(bot, channel_id, [p.int("message_id", required=True)])
        return True
    peer = await _private_peer(bot, p)
    ids = await _own_ids_in_chat(bot.id, peer.id, [p.int("message_id", required=True)])
    if not ids:
        raise BadRequest("message to delete not found")
    await private.do_delete_private_messages(bot.id, ids, revoke=True)
    return True


@method("deleteMessages")
async def delete_messages(bot: BotRef, p: Params):
    raw = p.json("message_ids")
    if not isinstance(raw, list) or not raw or not all(isinstance(i, int) for i in raw):
        raise BadRequest("message identifiers are not specified")
    if len(raw) > 100:
        raise BadRequest("too many messages to delete")
    channel_id = _channel_of(p.chat_id())
    if channel_id is not None:
        await _delete_in_group(bot, channel_id, raw)
        return True
    peer = await _private_peer(bot, p)
    ids = await _own_ids_in_chat(bot.id, peer.id, raw)
    if ids:
        await private.do_delete_private_messages(bot.id, ids, revoke=True)
    return True


_ACTIONS = {
    "typing": types.SendMessageTypingAction,
    "upload_photo": lambda: types.SendMessageUploadPhotoAction(progress=0),
    "record_video": types.SendMessageRecordVideoAction,
    "upload_video": lambda: types.SendMessageUploadVideoAction(progress=0),
    "record_voice": types.SendMessageRecordAudioAction,
    "upload_voice": lambda: types.SendMessageUploadAudioAction(progress=0),
    "upload_document": lambda: types.SendMessageUploadDocumentAction(progress=0),
    "choose_sticker": types.SendMessageChooseStickerAction,
    "find_location": types.SendMessageGeoLocationAction,
    "record_video_note": types.SendMessageRecordRoundAction,
    "upload_video_note": lambda: types.SendMessageUploadRoundAction(progress=0),
}


@method("sendChatAction")
async def send_chat_action(bot: BotRef, p: Params):
    make = _ACTIONS.get(p.str("action") or "")
    channel_id = _channel_of(p.chat_id())
    if channel_id is not None:
        from channels_app import notify

        await _channel_member_chat(bot.id, channel_id)
        if make is None:
            raise BadRequest("wrong parameter action in request")
        # As messages.setTyping: pushed to a bounded few members, never stored.
        payload = {
            "channel_id": channel_id,
            "user_id": bot.id,
            "action": make().to_bytes().hex(),
            "top_msg_id": 0,
        }
        await notify.publish("channel.typing", payload)
        return True
    peer = await _private_peer(bot, p)
    if make is None:
        raise BadRequest("wrong parameter action in request")
    await push_typing(bot.id, peer.id, make().to_bytes().hex())
    return True


@method("answerCallbackQuery")
async def answer_callback_query(bot: BotRef, p: Params):
    raw = p.str("callback_query_id", required=True)
    try:
        query_id = int(raw)
    except ValueError:
        raise BadRequest("query is too old and response timeout expired or query ID is invalid") from None
    await callbacks.do_answer(
        bot.id,
        query_id,
        message=p.str("text"),
        alert=p.bool("show_alert"),
        url=p.str("url"),
        cache_time=p.int("cache_time", default=0) or 0,
    )
    return True


# --- chats ----------------------------------------------------------------------------------


@method("getChat")
async def get_chat(bot: BotRef, p: Params):
    if _channel_of(p.chat_id()) is not None:
        _, chat = await _group(bot, p)
        return {**chat, "accent_color_id": 0, "max_reaction_count": 11}
    peer = await _private_peer(bot, p)
    d = shapes.private_chat(peer)
    if peer.about:
        d["bio"] = peer.about
    d["accent_color_id"] = peer.id % 7
    d["max_reaction_count"] = 11
    return d


# --- webhooks ------------------------------------------------------------------------------


@method("setWebhook")
async def set_webhook(bot: BotRef, p: Params):
    return await webhook.do_set_webhook(
        bot.id,
        p.str("url") or "",
        secret_token=p.str("secret_token") or "",
        max_connections=p.int("max_connections", default=40),
        allowed_updates=p.json("allowed_updates"),
        drop_pending=p.bool("drop_pending_updates"),
    )


@method("deleteWebhook")
async def delete_webhook(bot: BotRef, p: Params):
    return await webhook.do_set_webhook(bot.id, "", drop_pending=p.bool("drop_pending_updates"))


@method("getWebhookInfo")
async def get_webhook_info(bot: BotRef, p: Params):
    return await webhook.info(bot.id)


# --- groups ------------------------------------------------------------------------------------


async def _group(bot: BotRef, p: Params) -> tuple[int, dict]:
    channel_id = _channel_of(p.chat_id())
    if channel_id is None:
        raise BadRequest("chat not found")
    return channel_id, await _channel_member_chat(bot.id, channel_id)


@in_thread
def _member_status(channel_id: int, user_id: int) -> dict:
    from channels_app.models import ChannelMember
    from channels_app.rights import admin_bit, banned_bit

    user = User.objects.filter(id=user_id).first()
    if user is None:
        raise BadRequest("user not found")
    mb = ChannelMember.objects.filter(channel_id=channel_id, user_id=user_id).first()
    d = {"user": shapes.user(user)}
    if mb is None or mb.status == "left":
        return {**d, "status": "left"}
    if mb.status in ("kicked", "banned") and mb.banned_rights & 1:
        return {**d, "status": "kicked", "until_date": mb.banned_until}
    if mb.rank and mb.role in ("creator", "admin"):
        d["custom_title"] = mb.rank
    if mb.role == "creator":
        return {**d, "status": "creator", "is_anonymous": bool(mb.admin_rights & admin_bit("anonymous"))}
    if mb.role == "admin":
        # Every right named, as the frameworks' ChatMemberAdministrator requires.
        rights = {field: bool(mb.admin_rights & admin_bit(name)) for field, name in _ADMIN_RIGHTS.items()}
        return {**d, "status": "administrator", "can_be_edited": False, **rights, "can_manage_chat": True,
                "can_send_welcome_messages": False}  # fmt: skip
    if mb.banned_rights:
        allowed = {
            field: not any(mb.banned_rights & banned_bit(name) for name in names)
            for field, names in _PERMISSIONS.items()
        }
        return {
            **d,
            "status": "restricted",
            "is_member": mb.status == "active",
            **allowed,
            "can_react_to_messages": True,
            "can_edit_tag": False,
            "until_date": mb.banned_until,
        }
    return {**d, "status": "member"}


@method("getChatMember")
async def get_chat_member(bot: BotRef, p: Params):
    channel_id, _ = await _group(bot, p)
    return await _member_status(channel_id, p.int("user_id", required=True))


@in_thread
def _member_count(channel_id: int) -> int:
    from channels_app.models import ChannelMember

    return ChannelMember.objects.filter(channel_id=channel_id, status="active").count()


@method("getChatMemberCount")
async def get_chat_member_count(bot: BotRef, p: Params):
    channel_id, _ = await _group(bot, p)
    return await _member_count(channel_id)


@in_thread
def _admins(channel_id: int) -> list[int]:
    from channels_app.models import ChannelMember

    rows = ChannelMember.objects.filter(channel_id=channel_id, status="active", role__in=("creator", "admin"))
    return list(rows.order_by("joined_at").values_list("user_id", flat=True)[:50])


@method("getChatAdministrators")
async def get_chat_administrators(bot: BotRef, p: Params):
    channel_id, _ = await _group(bot, p)
    return [await _member_status(channel_id, uid) for uid in await _admins(channel_id)]


@method("banChatMember")
async def ban_chat_member(bot: BotRef, p: Params):
    from channels_app.actions.admin import do_edit_banned
    from channels_app.rights import banned_bit

    channel_id, _ = await _group(bot, p)
    user_id = p.int("user_id", required=True)
    until = p.int("until_date", default=0) or 0
    await do_edit_banned(bot.id, channel_id, user_id, banned_bit("view_messages"), until)
    return True


@method("unbanChatMember")
async def unban_chat_member(bot: BotRef, p: Params):
    from channels_app.actions.admin import do_edit_banned

    channel_id, _ = await _group(bot, p)
    user_id = p.int("user_id", required=True)
    status = await _member_status(channel_id, user_id)
    if p.bool("only_if_banned") and status["status"] != "kicked":
        return True
    if status["status"] in ("member", "administrator", "creator"):
        return True  # unbanning a member does nothing (it would remove them otherwise)
    await do_edit_banned(bot.id, channel_id, user_id, 0, 0)
    return True


@method("leaveChat")
async def leave_chat(bot: BotRef, p: Params):
    from channels_app.actions.channels import do_leave_channel

    channel_id, _ = await _group(bot, p)
    await do_leave_channel(bot.id, channel_id)
    return True


# The Bot API's ChatPermissions fields and the banned rights each one lifts.
_PERMISSIONS = {
    "can_send_messages": ("send_messages", "send_plain"),
    "can_send_audios": ("send_audios",),
    "can_send_documents": ("send_docs",),
    "can_send_photos": ("send_photos",),
    "can_send_videos": ("send_videos",),
    "can_send_video_notes": ("send_roundvideos",),
    "can_send_voice_notes": ("send_voices",),
    "can_send_polls": ("send_polls",),
    "can_send_other_messages": ("send_stickers", "send_gifs", "send_games", "send_inline"),
    "can_add_web_page_previews": ("embed_links",),
    "can_change_info": ("change_info",),
    "can_invite_users": ("invite_users",),
    "can_pin_messages": ("pin_messages",),
    "can_manage_topics": ("manage_topics",),
}
# promoteChatMember's flags and getChatMember's: the shapes' rights plus anonymity.
_ADMIN_RIGHTS = {**shapes.ADMIN_CAN, "is_anonymous": "anonymous"}


def _banned_rights(p: Params) -> int:
    """What a ChatPermissions object forbids (fields left out are forbidden)."""
    from channels_app.rights import banned_bit

    perms = p.json("permissions")
    if not isinstance(perms, dict):
        raise BadRequest("can't parse chat permissions JSON object")
    rights = 0
    for field, names in _PERMISSIONS.items():
        if not perms.get(field):
            for name in names:
                rights |= banned_bit(name)
    return rights


@method("restrictChatMember")
async def restrict_chat_member(bot: BotRef, p: Params):
    from channels_app.actions.admin import do_edit_banned

    channel_id, _ = await _group(bot, p)
    user_id = p.int("user_id", required=True)
    await do_edit_banned(bot.id, channel_id, user_id, _banned_rights(p), p.int("until_date", default=0) or 0)
    return True


@method("setChatPermissions")
async def set_chat_permissions(bot: BotRef, p: Params):
    from channels_app.actions.settings import do_edit_default_banned_rights

    channel_id, _ = await _group(bot, p)
    await do_edit_default_banned_rights(bot.id, channel_id, _banned_rights(p))
    return True


@method("promoteChatMember")
async def promote_chat_member(bot: BotRef, p: Params):
    from channels_app.actions.admin import do_edit_admin
    from channels_app.rights import admin_bit

    channel_id, _ = await _group(bot, p)
    rights = 0
    for field, name in _ADMIN_RIGHTS.items():
        if p.bool(field):
            rights |= admin_bit(name)
    await do_edit_admin(bot.id, channel_id, p.int("user_id", required=True), rights)
    return True


@method("pinChatMessage")
async def pin_chat_message(bot: BotRef, p: Params):
    from channels_app.actions.settings import do_update_pinned_message

    channel_id, _ = await _group(bot, p)
    await do_update_pinned_message(
        bot.id, channel_id, p.int("message_id", required=True), silent=p.bool("disable_notification")
    )
    return True


@method("unpinChatMessage")
async def unpin_chat_message(bot: BotRef, p: Params):
    from channels_app.actions.settings import do_update_pinned_message

    channel_id, _ = await _group(bot, p)
    await do_update_pinned_message(bot.id, channel_id, p.int("message_id", required=True), unpin=True)
    return True


@method("unpinAllChatMessages")
async def unpin_all_chat_messages(bot: BotRef, p: Params):
    from channels_app.actions.settings import do_unpin_all_messages

    channel_id, _ = await _group(bot, p)
    await do_unpin_all_messages(bot.id, channel_id)
    return True


@method("setChatTitle")
async def set_chat_title(bot: BotRef, p: Params):
    from channels_app.actions.settings import do_edit_title

    channel_id, _ = await _group(bot, p)
    title = (p.str("title") or "").strip()
    if not title:
        raise BadRequest("chat title can't be empty")
    await do_edit_title(bot.id, channel_id, title)
    return True


@method("setChatDescription")
async def set_chat_description(bot: BotRef, p: Params):
    from channels_app.actions.settings import do_edit_about

    channel_id, _ = await _group(bot, p)
    await do_edit_about(bot.id, channel_id, p.str("description") or "")
    return True


# --- inline mode ------------------------------------------------------------------------------


async def _inline_result(bot: BotRef, r: dict) -> dict:
    """An InlineQueryResult in the stored form bots_app.inline keeps (article, cached
    photo, cached document)."""
    if not isinstance(r, dict) or not r.get("id"):
        raise BadRequest("RESULT_ID_INVALID")
    kind = r.get("type")
    content = r.get("input_message_content")
    markup = markup_rules.validate(shapes.markup_in(r.get("reply_markup")))
    media = None
    if kind == "photo" and r.get("photo_file_id"):
        media = await files.media_of_file_id(bot.id, str(r["photo_file_id"]), "photo")
    elif kind == "document" and r.get("document_file_id"):
        media = await files.media_of_file_id(bot.id, str(r["document_file_id"]), "document")
    elif kind != "article":
        raise BadRequest("unsupported inline query result type")
    if content is None and media is None:
        raise BadRequest("message text is empty")
    if isinstance(content, dict):
        text = str(content.get("message_text") or "")
        parsed = parse_mode.parse(text, content.get("parse_mode"))
        text, entities = parsed if parsed else (text, shapes.entities_in(content.get("entities") or []))
        if not text.strip():
            raise BadRequest("message text is empty")
        send = {"message": text, "entities": entities, "no_webpage": False, "reply_markup": markup}
    else:
        caption = str(r.get("caption") or "")
        parsed = parse_mode.parse(caption, r.get("parse_mode"))
        caption, entities = (
            parsed if parsed else (caption, shapes.entities_in(r.get("caption_entities") or []))
        )
        send = {"message": caption, "entities": entities, "media_auto": True, "reply_markup": markup}
    out = {
        "id": str(r["id"]),
        "type": kind,
        "title": str(r.get("title") or ""),
        "description": str(r.get("description") or ""),
        "url": str(r.get("url") or ""),
        "send": send,
    }
    if media is not None:
        out["photo" if kind == "photo" else "document"] = media["photo" if kind == "photo" else "document"]
    return out


@method("answerInlineQuery")
async def answer_inline_query(bot: BotRef, p: Params):
    from bots_app import inline

    raw = p.str("inline_query_id", required=True)
    try:
        query_id = int(raw)
    except ValueError:
        raise BadRequest("query is too old and response timeout expired or query ID is invalid") from None
    results = p.json("results")
    if not isinstance(results, list):
        raise BadRequest("can't parse inline query results JSON object")
    inline.check_results(
        [{"id": str(r.get("id") or "")} if isinstance(r, dict) else {"id": ""} for r in results]
    )
    button = p.json("button")
    switch = None
    if isinstance(button, dict) and button.get("start_parameter"):
        switch = {"text": str(button.get("text") or ""), "start_param": str(button["start_parameter"])}
    body = {
        "results": [await _inline_result(bot, r) for r in results],
        "next_offset": p.str("next_offset") or "",
        "cache_time": p.int("cache_time", default=300),
        "gallery": False,
        "private": p.bool("is_personal"),
        "switch_pm": switch,
    }
    await inline.do_answer(bot.id, query_id, body)
    return True
