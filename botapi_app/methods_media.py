"""The Bot API's media methods: sendVideo / sendAudio / sendVoice / sendAnimation /
sendSticker, sendMediaGroup, editMessageCaption / editMessageMedia, and forwardMessages /
copyMessages. Files come as multipart uploads (also ``attach://<field>`` inside an
InputMedia) or as a ``file_id`` the bot may use; URLs are refused, as sendPhoto does:
the server fetches nothing for bots.

Registered in ``methods.METHODS`` through its ``@method`` decorator."""

from __future__ import annotations

import itertools

from aiohttp import web

from private_app import actions as private

from . import files, parse_mode, shapes
from .errors import BadRequest
from .methods import (
    BotRef,
    _channel_member_chat,
    _channel_of,
    _markup,
    _private_peer,
    _random_id,
    _render,
    _render_channel,
    _reply_to,
    _text_and_entities,
    method,
    send_with_media,
)
from .params import Params

ALBUM_MIN, ALBUM_MAX = 2, 10
COPY_MAX = 100
# The mime type a file of each kind gets when the upload names none useful.
_DEFAULT_MIME = {
    "video": "video/mp4",
    "video_note": "video/mp4",
    "animation": "video/mp4",
    "audio": "audio/mpeg",
    "voice": "audio/ogg",
}
_GENERIC_MIME = ("", "application/octet-stream")
_STICKER_MAGIC = (
    (b"RIFF", "image/webp"),
    (b"\x1f\x8b", "application/x-tgsticker"),
    (b"\x1a\x45\xdf\xa3", "video/webm"),
)


def _int(spec: dict, name: str) -> int:
    v = spec.get(name)
    if v is None or v == "":
        return 0
    try:
        return max(0, int(v))
    except (TypeError, ValueError):
        raise BadRequest(f'field "{name}" must be of type Integer') from None


def _attributes(want: str, spec: dict) -> list[dict]:
    """A new file's document attributes from the send's fields (duration, width ...)."""
    if want in ("video", "animation"):
        video = {
            "_": "video",
            "duration": float(_int(spec, "duration")),
            "w": _int(spec, "width"),
            "h": _int(spec, "height"),
            "supports_streaming": bool(spec.get("supports_streaming") in (True, "true", "1", "True")),
            "round_message": False,
            "nosound": False,
        }
        return [video, {"_": "animated"}] if want == "animation" else [video]
    if want == "video_note":
        side = _int(spec, "length")
        return [{"_": "video", "duration": float(_int(spec, "duration")), "w": side, "h": side,
                 "supports_streaming": False, "round_message": True, "nosound": False}]  # fmt: skip
    if want in ("audio", "voice"):
        audio = {"_": "audio", "voice": want == "voice", "duration": _int(spec, "duration"), "waveform": None,
                 "title": None, "performer": None}  # fmt: skip
        if want == "audio":
            audio["title"] = str(spec.get("title") or "") or None
            audio["performer"] = str(spec.get("performer") or "") or None
        return [audio]
    if want == "sticker":
        return [{"_": "sticker", "alt": str(spec.get("emoji") or "")}]
    return []


def _sticker_mime(field: web.FileField) -> str:
    head = field.file.read(12)
    field.file.seek(0)
    for magic, mime in _STICKER_MAGIC:
        if head.startswith(magic):
            return mime
    raise BadRequest("wrong file type of the sticker: .WEBP, .TGS or .WEBM expected")


def _field(values: dict, ref) -> web.FileField | None:
    """An uploaded file given directly, or named by ``attach://<field>``."""
    found = files.attached(values, ref)
    return found if isinstance(found, web.FileField) else None


async def file_media(bot_id: int, values: dict, ref, want: str, spec: dict) -> dict:
    """A message's media of kind ``want`` from an upload or a reusable ``file_id``."""
    field = _field(values, ref)
    if field is None and isinstance(ref, str) and ref.startswith("attach://"):
        raise BadRequest(f"there is no {want} in the request")
    if field is not None:
        if want in ("photo", "document"):
            got = await files.upload(bot_id, field, want)
        else:
            mime = _sticker_mime(field) if want == "sticker" else (field.content_type or "").lower()
            if mime in _GENERIC_MIME:
                mime = _DEFAULT_MIME.get(want, "")
            attributes = _attributes(want, spec)
            if mime in ("application/x-tgsticker", "video/webm"):
                attributes.append({"_": "image_size", "w": 512, "h": 512})
            thumb = _field(values, spec.get("thumbnail"))
            got = await files.upload(bot_id, field, want, attributes=attributes, mime_type=mime, thumb=thumb)
    else:
        got = await files.input_media(bot_id, ref, "photo" if want == "photo" else "document")
    if spec.get("has_spoiler") in (True, "true", "1", "True") and want in ("photo", "video", "animation"):
        got["spoiler"] = True
    return got


async def _send_kind(bot: BotRef, p: Params, want: str):
    p.chat_id()  # "chat_id is empty" comes before a missing file, as Telegram's
    if not p.has(want):
        raise BadRequest(f"there is no {want} in the request")
    # Bad text or keyboard is refused before the file is stored.
    _text_and_entities(p, "caption", "caption_entities")
    _markup(p)
    media = await file_media(bot.id, p.values, p.values.get(want), want, p.values)
    return await send_with_media(bot, p, media)


@method("sendVideo")
async def send_video(bot: BotRef, p: Params):
    return await _send_kind(bot, p, "video")


@method("sendAnimation")
async def send_animation(bot: BotRef, p: Params):
    return await _send_kind(bot, p, "animation")


@method("sendAudio")
async def send_audio(bot: BotRef, p: Params):
    return await _send_kind(bot, p, "audio")


@method("sendVoice")
async def send_voice(bot: BotRef, p: Params):
    return await _send_kind(bot, p, "voice")


@method("sendVideoNote")
async def send_video_note(bot: BotRef, p: Params):
    return await _send_kind(bot, p, "video_note")


@method("sendSticker")
async def send_sticker(bot: BotRef, p: Params):
    if p.has("caption"):
        p.values.pop("caption")  # stickers carry no caption
    return await _send_kind(bot, p, "sticker")


# --- albums ------------------------------------------------------------------------------------

_ALBUM_TYPES = ("photo", "video", "audio", "document")


def _caption_of(spec: dict) -> tuple[str, list[dict]]:
    caption = str(spec.get("caption") or "")
    parsed = parse_mode.parse(caption, spec.get("parse_mode"))
    if parsed is not None:
        return parsed
    raw = spec.get("caption_entities") or []
    if not isinstance(raw, list):
        raise BadRequest("can't parse caption entities JSON object")
    return caption, shapes.entities_in(raw)


def input_media_list(p: Params) -> list[dict]:
    raw = p.json("media")
    if raw is None:
        raise BadRequest('parameter "media" is required')
    if not isinstance(raw, list) or not all(isinstance(m, dict) for m in raw):
        raise BadRequest("can't parse media JSON object")
    if not ALBUM_MIN <= len(raw) <= ALBUM_MAX:
        raise BadRequest("media group must include 2-10 items")
    kinds = [m.get("type") for m in raw]
    for kind in kinds:
        if kind not in _ALBUM_TYPES:
            raise BadRequest(f'unsupported media type "{kind}" in a media group')
    # Telegram: documents and audios group only with their own kind.
    for lone in ("document", "audio"):
        if lone in kinds and any(k != lone for k in kinds):
            raise BadRequest(f"{lone} can't be mixed with other media types")
    return raw


@method("sendMediaGroup")
async def send_media_group(bot: BotRef, p: Params):
    channel_id = _channel_of(p.chat_id())
    chat = await _channel_member_chat(bot.id, channel_id) if channel_id is not None else None
    peer = None if channel_id is not None else await _private_peer(bot, p)
    specs = input_media_list(p)
    captions = []
    for spec in specs:  # every item checked before any file is stored
        if not spec.get("media"):
            raise BadRequest(f"there is no {spec['type']} in the request")
        captions.append(_caption_of(spec))
    items = []
    for spec, (caption, entities) in zip(specs, captions, strict=True):
        media = await file_media(bot.id, p.values, spec["media"], spec["type"], spec)
        items.append({"message": caption, "entities": entities, "media": media, "random_id": _random_id()})
    silent = p.bool("disable_notification")
    if channel_id is not None:
        from channels_app.actions.album import do_send_album

        reply, protect = _reply_to(p), p.bool("protect_content")
        for it in items:
            it["reply_to_msg_id"] = reply
            it["noforwards"] = protect
        change = await do_send_album(bot.id, channel_id, items, silent=silent)
        return [await _render_channel(e.message, chat) for e in change.events]
    change = await private.do_send_private_album(bot.id, peer.id, items, silent=silent)
    return [await _render(m) for m in change.messages]


# --- edits -------------------------------------------------------------------------------------


async def _edit_media_message(bot: BotRef, p: Params, caption: str, entities: list[dict], media: dict | None):
    if p.has("inline_message_id"):
        raise BadRequest("inline message editing is not supported")
    channel_id = _channel_of(p.chat_id())
    msg_id = p.int("message_id", required=True)
    if channel_id is not None:
        from channels_app.actions.messages import do_edit_message

        chat = await _channel_member_chat(bot.id, channel_id)
        change = await do_edit_message(
            bot.id, channel_id, msg_id, caption, entities, media=media, reply_markup=_markup(p)
        )
        return await _render_channel(change.events[0].message, chat)
    peer = await _private_peer(bot, p)
    change = await private.do_edit_private_message(
        bot.id, peer.id, msg_id, caption, entities, media=media, reply_markup=_markup(p)
    )
    return await _render(change.messages[0])


async def message_media(bot: BotRef, p: Params, missing: str) -> tuple[int | None, int, dict | None]:
    """(channel id or None, message id, its media) of chat_id / message_id."""
    channel_id = _channel_of(p.chat_id())
    msg_id = p.int("message_id", required=True)
    if channel_id is not None:
        from channels_app.actions.messages import get_messages

        await _channel_member_chat(bot.id, channel_id)
        shown = (await get_messages(bot.id, channel_id, [msg_id])).messages if msg_id > 0 else []
        m = shown[0] if shown and shown[0] and not shown[0].get("empty") else None
    else:
        peer = await _private_peer(bot, p)
        found = (await private.get_messages(bot.id, [msg_id]))[0] if msg_id > 0 else {"empty": True}
        m = None if found.get("empty") or found.get("peer_id") != peer.id else found
    if m is None:
        raise BadRequest(missing)
    return channel_id, msg_id, m.get("media")


@method("editMessageCaption")
async def edit_message_caption(bot: BotRef, p: Params):
    caption, entities = _text_and_entities(p, "caption", "caption_entities")
    if not p.has("inline_message_id"):
        _, _, media = await message_media(bot, p, "message to edit not found")
        if not media or not (media.get("photo") or media.get("document")):  # only files take captions
            raise BadRequest("there is no caption in the message to edit")
    return await _edit_media_message(bot, p, caption, entities, None)


@method("editMessageMedia")
async def edit_message_media(bot: BotRef, p: Params):
    spec = p.json("media")
    if not isinstance(spec, dict):
        raise BadRequest("can't parse InputMedia JSON object")
    kind = spec.get("type")
    if kind not in ("photo", "video", "animation", "audio", "document"):
        raise BadRequest("can't parse InputMedia JSON object")
    if not spec.get("media"):
        raise BadRequest(f"there is no {kind} in the request")
    caption, entities = _caption_of(spec)
    media = await file_media(bot.id, p.values, spec["media"], kind, spec)
    return await _edit_media_message(bot, p, caption, entities, media)


# --- forwards and copies of several --------------------------------------------------------------


def _message_ids(p: Params) -> list[int]:
    raw = p.json("message_ids")
    if not isinstance(raw, list) or not raw or not all(isinstance(i, int) and i > 0 for i in raw):
        raise BadRequest("message identifiers are not specified")
    if len(raw) > COPY_MAX:
        raise BadRequest("too many messages")
    if any(b <= a for a, b in itertools.pairwise(raw)):
        raise BadRequest("message identifiers must be in a strictly increasing order")
    return raw


async def _sources(
    bot: BotRef, p: Params, ids: list[int], missing: str = "messages to forward not found"
) -> tuple[list[dict], tuple[str, int]]:
    """The messages to forward or copy (missing ones skipped, as Telegram)."""
    from tl.errors import RpcError

    channel_id = _channel_of(p.chat_id("from_chat_id"))
    try:
        if channel_id is not None:
            from channels_app.actions.messages import get_forwardable

            await _channel_member_chat(bot.id, channel_id)
            _, items = await get_forwardable(bot.id, channel_id, ids)
            return items, ("c", channel_id)
        source = await _private_peer(bot, p, "from_chat_id")
        return await private.get_forwardable(bot.id, source.id, ids), ("u", source.id)
    except RpcError as exc:
        if exc.message == "MESSAGE_ID_INVALID":
            raise BadRequest(missing) from None
        if exc.message == "CHAT_FORWARDS_RESTRICTED":
            raise BadRequest("message can't be forwarded") from None
        raise


async def _forward_many(bot: BotRef, p: Params, *, copy: bool) -> list[dict]:
    ids = _message_ids(p)
    items, source = await _sources(bot, p, ids)
    if copy and p.bool("remove_caption"):
        items = [{**it, "message": "", "entities": []} if it.get("media") else it for it in items]
    rids = [_random_id() for _ in items]
    silent = p.bool("disable_notification")
    channel_id = _channel_of(p.chat_id())
    if channel_id is not None:
        from channels_app.actions.messages import do_forward_to_channel

        await _channel_member_chat(bot.id, channel_id)
        change = await do_forward_to_channel(bot.id, channel_id, items, rids, drop_author=copy, silent=silent)
        return [{"message_id": e.message["id"]} for e in change.events]
    peer = await _private_peer(bot, p)
    change = await private.do_forward_to_user(
        bot.id, peer.id, items, rids, drop_author=copy, silent=silent, source=source
    )
    return [{"message_id": m["id"]} for m in change.messages]


@method("forwardMessage")
async def forward_message(bot: BotRef, p: Params):
    items, source = await _sources(
        bot, p, [p.int("message_id", required=True)], "message to forward not found"
    )
    silent = p.bool("disable_notification")
    channel_id = _channel_of(p.chat_id())
    if channel_id is not None:
        from channels_app.actions.messages import do_forward_to_channel

        chat = await _channel_member_chat(bot.id, channel_id)
        change = await do_forward_to_channel(bot.id, channel_id, items, [_random_id()], silent=silent)
        return await _render_channel(change.events[0].message, chat)
    peer = await _private_peer(bot, p)
    change = await private.do_forward_to_user(
        bot.id, peer.id, items, [_random_id()], silent=silent, source=source
    )
    return await _render(change.messages[0])


@method("copyMessage")
async def copy_message(bot: BotRef, p: Params):
    """A new message with the source's text and media (no forward header); a caption
    given replaces a media message's own."""
    items, _ = await _sources(bot, p, [p.int("message_id", required=True)], "message to copy not found")
    item = items[0]
    media = item.get("media")
    if media and media.get("kind") == "poll":
        raise BadRequest("message can't be copied")  # a copy would share the poll's votes
    if media and (p.has("caption") or p.bool("remove_caption")):
        text, entities = _text_and_entities(p, "caption", "caption_entities")
    else:
        text, entities = item["message"], item.get("entities") or []
    kwargs = {
        "entities": entities,
        "media": media,
        "reply_to_msg_id": _reply_to(p),
        "silent": p.bool("disable_notification"),
        "reply_markup": _markup(p),
    }
    channel_id = _channel_of(p.chat_id())
    if channel_id is not None:
        from channels_app.actions.messages import do_send_message

        await _channel_member_chat(bot.id, channel_id)
        change = await do_send_message(
            bot.id, channel_id, text, _random_id(), noforwards=p.bool("protect_content"), **kwargs
        )
        return {"message_id": change.events[0].message["id"]}
    peer = await _private_peer(bot, p)
    change = await private.do_send_private_message(bot.id, peer.id, text, _random_id(), **kwargs)
    return {"message_id": change.messages[0]["id"]}


@method("forwardMessages")
async def forward_messages(bot: BotRef, p: Params):
    return await _forward_many(bot, p, copy=False)


@method("copyMessages")
async def copy_messages(bot: BotRef, p: Params):
    return await _forward_many(bot, p, copy=True)
