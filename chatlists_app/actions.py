"""Shared folders (chat folder links): the rules of chatlists.*.

A user shares one of their folders by exporting links to it (at most
``INVITES_PER_FOLDER_MAX`` per folder), each offering some of the folder's groups and
channels: public ones anyone may join, private ones only where the exporter may invite
(an admin with ``invite_users``), and each private chat gets a chat invite link of its
own that the folder link joins through. The exported folder becomes a shared folder
(``dialogFilterChatlist`` with ``has_my_invites``) on the owner's side.

Whoever opens a link picks the chats to join; they get a shared folder of their own
holding the link's chats they are in, announced to their other sessions. Later chats the
owner adds to the link come as "updates" the joiner takes or dismisses. A user keeps at
most ``CHATLISTS_JOINED_MAX`` shared folders (own and joined), as Telegram counts them.

Domain code: plain results and typed errors, no TL.
"""

from __future__ import annotations

import logging
import re
import secrets
from dataclasses import dataclass, field

from asgiref.sync import sync_to_async
from django.db import IntegrityError, transaction

from channels_app import actions as channel_actions
from channels_app.actions import invites as chat_invites
from channels_app.actions.common import CHANNEL_COLUMNS, MEMBER_COLUMNS, is_active
from channels_app.domain import ChannelChange
from channels_app.rights import has_admin_right
from message_core import db, limits
from message_core.clock import now
from messages_app import dialog_filters
from tl.errors import (
    ChannelPrivateError,
    ChannelsTooMuchError,
    ChatAdminRequiredError,
    DialogFiltersTooMuchError,
    FilterIdInvalidError,
    FilterIncludeEmptyError,
    PeerIdInvalidError,
    RpcError,
    UserAlreadyParticipantError,
    UserNotParticipantError,
)

from .errors import (
    ChatlistExcludeInvalidError,
    ChatlistsTooMuchError,
    FilterNotSupportedError,
    InvitePeersTooMuchError,
    InviteSlugEmptyError,
    InviteSlugExpiredError,
    InvitesTooMuchError,
    PeersListEmptyError,
)
from .links import link_slug, slug_of
from .models import ChatlistInvite, JoinedChatlist

log = logging.getLogger("telesrv.chatlists")

# Telegram's numbers (help.getAppConfig); there is no premium here, so one value each.
INVITES_PER_FOLDER_MAX = 3  # chatlist_invites_limit_default
CHATLISTS_JOINED_MAX = 2  # chatlists_joined_limit_default
UPDATE_PERIOD = 300  # chatlist_update_period: how often clients may ask for updates
PEERS_MAX = dialog_filters.CHATS_MAX  # a link offers at most a folder's worth of chats
TITLE_MAX = 64
SLUG_RE = re.compile(r"[A-Za-z0-9_-]{1,32}")


@dataclass(slots=True)
class LinkView:
    """checkChatlistInvite: a new folder (``filter_id`` None) or one the viewer has."""

    invite: dict
    folder: dict  # the owner's folder (title, emoticon...)
    peers: list[int]  # the link's live chats, in order
    filter_id: int | None = None
    missing: list[int] = field(default_factory=list)
    already: list[int] = field(default_factory=list)


@dataclass(slots=True)
class JoinResult:
    """What a join, an update join or a leave did: the viewer's folder after it (None:
    deleted) and the channel changes (joins, leaves) in order."""

    filter_id: int
    folder: dict | None
    changes: list[ChannelChange] = field(default_factory=list)


def _invite_dict(row: ChatlistInvite) -> dict:
    return {
        "slug": row.slug,
        "owner_id": row.owner_id,
        "filter_id": row.filter_id,
        "title": row.title,
        "peers": [int(p) for p in row.peers],
        "chat_invites": dict(row.chat_invites),
        "date": row.date,
        "revoked": row.revoked,
    }


def folder_channel_ids(folder: dict | None) -> list[int]:
    if not folder:
        return []
    return list(
        dict.fromkeys(int(i) for key in ("pinned", "include") for k, i in folder.get(key, ()) if k == "c")
    )


async def channels_with_member(channel_ids: list[int], user_id: int) -> dict[int, tuple[dict, dict | None]]:
    """channel id -> (channel, the user's member row) for the live ones, in the given
    order; two statements whatever the count (a link holds at most PEERS_MAX)."""
    ids = list(dict.fromkeys(channel_ids))[:PEERS_MAX]
    if not ids:
        return {}
    async with db.connection() as conn:
        cur = await conn.execute(f"SELECT {CHANNEL_COLUMNS} FROM channels WHERE id = ANY(%s)", (ids,))
        rows = {r["id"]: r for r in await cur.fetchall()}
        cur = await conn.execute(
            f"SELECT {MEMBER_COLUMNS} FROM channel_members WHERE channel_id = ANY(%s) AND user_id = %s",
            (ids, user_id),
        )
        members = {r["channel_id"]: r for r in await cur.fetchall()}
    return {c: (rows[c], members.get(c)) for c in ids if c in rows and not rows[c]["deleted"]}


def _banned(member: dict | None) -> bool:
    return member is not None and member["status"] in ("kicked", "banned")


# ---- storage -------------------------------------------------------------------------


def _live_links(owner_id: int, filter_id: int) -> list[ChatlistInvite]:
    return list(
        ChatlistInvite.objects.filter(owner_id=owner_id, filter_id=filter_id, revoked=False).order_by(
            "date", "id"
        )
    )


def _joined(user_id: int, filter_id: int) -> JoinedChatlist | None:
    return JoinedChatlist.objects.filter(user_id=user_id, filter_id=filter_id).first()


def _link(slug: str) -> ChatlistInvite | None:
    if not SLUG_RE.fullmatch(slug):
        return None
    return ChatlistInvite.objects.filter(slug=slug).first()


async def _shared_count(user_id: int) -> int:
    return sum(1 for _, f in await dialog_filters.get_filters(user_id) if f and f.get("chatlist"))


async def _own_folder(user_id: int, filter_id: int) -> dict:
    folder = await dialog_filters.get_filter(user_id, filter_id)
    if folder is None:
        raise FilterIdInvalidError()
    return folder


async def _set_folder(user_id: int, filter_id: int, folder: dict, *, exclude=None) -> dict:
    return await dialog_filters.do_update_filter(user_id, filter_id, folder, exclude=exclude)


def _with_channels(folder: dict, channel_ids: list[int]) -> dict:
    have = {(k, int(i)) for key in ("pinned", "include") for k, i in folder.get(key, ())}
    extra = [["c", c] for c in channel_ids if ("c", c) not in have]
    return {**folder, "include": [*folder.get("include", []), *extra]}


# ---- the owner's side ----------------------------------------------------------------


async def _check_shareable(owner_id: int, channel_ids: list[int]) -> dict[int, tuple[dict, dict | None]]:
    """Every chat a link offers must be one the owner may bring people into: a public
    one they are in, or a private one where they may invite (their chat invite link)."""
    if not channel_ids:
        raise PeersListEmptyError()
    if len(channel_ids) > PEERS_MAX:
        raise InvitePeersTooMuchError()
    found = await channels_with_member(channel_ids, owner_id)
    for cid in channel_ids:
        if cid not in found:
            raise ChannelPrivateError()
        channel, member = found[cid]
        if not is_active(member):
            raise ChannelPrivateError()
        if not channel["username"] and not has_admin_right(member, "invite_users"):
            raise ChatAdminRequiredError()
    return found


async def _chat_invites_for(
    owner_id: int, title: str, found: dict[int, tuple[dict, dict | None]], have: dict[str, str]
) -> dict[str, str]:
    """A chat invite link for each private chat of the link (kept where it has one)."""
    out = {}
    for cid, (channel, _member) in found.items():
        if channel["username"]:
            continue
        if str(cid) in have:
            out[str(cid)] = have[str(cid)]
            continue
        inv = await chat_invites.do_export_invite(owner_id, cid, title=title or "folder link")
        out[str(cid)] = inv["hash"]
    return out


async def _revoke_chat_invites(chat_invite_hashes: dict[str, str]) -> None:
    """The chat invite links a folder link made stop working with it (as the operator:
    the exporter may have lost the right meanwhile)."""
    for cid, h in chat_invite_hashes.items():
        try:
            await chat_invites.do_edit_invite(None, int(cid), h, revoked=True)
        except RpcError as exc:  # already revoked or deleted by the chat's admins
            log.debug("chat invite %s of %s not revoked: %s", h, cid, exc.message)


def _require_shareable_folder(folder: dict) -> None:
    if folder.get("chatlist"):
        return
    flags = folder.get("flags") or {}
    if any(flags.get(k) for k in dialog_filters.SWITCHES):
        raise FilterNotSupportedError()  # a folder of chat kinds cannot be shared
    if folder.get("exclude"):
        raise ChatlistExcludeInvalidError()


async def do_export_invite(
    owner_id: int, filter_id: int, title: str, channel_ids: list[int], *, exclude=None
) -> tuple[dict, dict]:
    """chatlists.exportChatlistInvite: (the owner's folder after it, the new link)."""
    folder = await _own_folder(owner_id, filter_id)
    if await sync_to_async(_joined)(owner_id, filter_id) is not None:
        raise FilterNotSupportedError()  # someone else's folder is shared by its owner
    _require_shareable_folder(folder)
    channel_ids = list(dict.fromkeys(channel_ids))
    found = await _check_shareable(owner_id, channel_ids)
    if len(await sync_to_async(_live_links)(owner_id, filter_id)) >= INVITES_PER_FOLDER_MAX:
        raise InvitesTooMuchError()
    if not folder.get("chatlist") and await _shared_count(owner_id) >= CHATLISTS_JOINED_MAX:
        raise ChatlistsTooMuchError()
    title = (title or "").strip()[:TITLE_MAX]
    made = await _chat_invites_for(owner_id, title, found, {})

    def create() -> ChatlistInvite:
        for _ in range(5):
            try:
                with transaction.atomic():
                    return ChatlistInvite.objects.create(
                        slug=secrets.token_urlsafe(12), owner_id=owner_id, filter_id=filter_id, title=title,
                        peers=channel_ids, chat_invites=made, date=now(),
                    )  # fmt: skip
            except IntegrityError:  # pragma: no cover - 96 random bits colliding
                continue
        raise RuntimeError("could not allocate a folder link slug")

    row = await sync_to_async(create)()
    shared = {**_with_channels(folder, channel_ids), "chatlist": True, "has_my_invites": True}
    shared = await _set_folder(owner_id, filter_id, shared, exclude=exclude)
    return shared, _invite_dict(row)


async def _owned_link(owner_id: int, filter_id: int, slug: str) -> ChatlistInvite:
    await _own_folder(owner_id, filter_id)
    row = await sync_to_async(_link)(slug_of(slug))
    if row is None or row.owner_id != owner_id or row.filter_id != filter_id or row.revoked:
        raise InviteSlugExpiredError()
    return row


async def list_invites(owner_id: int, filter_id: int) -> list[dict]:
    """chatlists.getExportedInvites: the folder's live links, oldest first."""
    await _own_folder(owner_id, filter_id)
    return [_invite_dict(r) for r in await sync_to_async(_live_links)(owner_id, filter_id)]


async def do_edit_invite(
    owner_id: int,
    filter_id: int,
    slug: str,
    *,
    title: str | None = None,
    channel_ids: list[int] | None = None,
    exclude=None,
) -> dict:
    """chatlists.editExportedInvite: a new title and/or chat list. Chats added to the
    link are added to the owner's folder too; joiners get them as updates."""
    row = await _owned_link(owner_id, filter_id, slug)
    if title is not None:
        row.title = title.strip()[:TITLE_MAX]
    removed: dict[str, str] = {}
    if channel_ids is not None:
        channel_ids = list(dict.fromkeys(channel_ids))
        found = await _check_shareable(owner_id, channel_ids)
        kept = await _chat_invites_for(owner_id, row.title, found, dict(row.chat_invites))
        removed = {c: h for c, h in row.chat_invites.items() if c not in kept}
        row.peers, row.chat_invites = channel_ids, kept
    await sync_to_async(row.save)()
    await _revoke_chat_invites(removed)
    if channel_ids is not None:
        folder = await _own_folder(owner_id, filter_id)
        if any(("c", c) not in {(k, int(i)) for k, i in folder.get("include", [])} for c in channel_ids):
            await _set_folder(owner_id, filter_id, _with_channels(folder, channel_ids), exclude=exclude)
    return _invite_dict(row)


async def _after_links_changed(owner_id: int, filter_id: int) -> None:
    """The owner's folder shows whether it still has links (has_my_invites)."""
    folder = await dialog_filters.get_filter(owner_id, filter_id)
    if folder is None or not folder.get("chatlist"):
        return
    has = bool(await sync_to_async(_live_links)(owner_id, filter_id))
    if bool(folder.get("has_my_invites")) != has:
        await _set_folder(owner_id, filter_id, {**folder, "has_my_invites": has})


async def do_delete_invite(owner_id: int, filter_id: int, slug: str) -> None:
    """chatlists.deleteExportedInvite: the link stops working (its chat invite links too)."""
    row = await _owned_link(owner_id, filter_id, slug)
    hashes = dict(row.chat_invites)
    await sync_to_async(row.delete)()
    await _revoke_chat_invites(hashes)
    await _after_links_changed(owner_id, filter_id)


async def do_revoke_link(slug: str) -> bool:
    """A moderator's revoke (the console): the link and its chat invite links stop
    working; False when it was revoked already."""
    row = await sync_to_async(_link)(slug_of(slug))
    if row is None:
        raise InviteSlugExpiredError()
    if row.revoked:
        return False
    row.revoked = True
    await sync_to_async(row.save)(update_fields=["revoked"])
    await _revoke_chat_invites(dict(row.chat_invites))
    await _after_links_changed(row.owner_id, row.filter_id)
    return True


# ---- the joiner's side ---------------------------------------------------------------


async def _live_link(slug: str) -> tuple[ChatlistInvite, dict]:
    slug = slug_of(slug)
    if not slug:
        raise InviteSlugEmptyError()
    row = await sync_to_async(_link)(slug)
    if row is None or row.revoked:
        raise InviteSlugExpiredError()
    folder = await dialog_filters.get_filter(row.owner_id, row.filter_id)
    if folder is None:
        raise InviteSlugExpiredError()
    return row, folder


def _joined_from(user_id: int, owner_id: int, owner_filter_id: int) -> JoinedChatlist | None:
    return JoinedChatlist.objects.filter(
        user_id=user_id, owner_id=owner_id, owner_filter_id=owner_filter_id
    ).first()


async def _viewer_filter_id(user_id: int, row: ChatlistInvite) -> int | None:
    """The viewer's folder this link's folder already is: their own, or joined."""
    if row.owner_id == user_id:
        return row.filter_id
    joined = await sync_to_async(_joined_from)(user_id, row.owner_id, row.filter_id)
    if joined is None:
        return None
    if await dialog_filters.get_filter(user_id, joined.filter_id) is None:
        return None
    return joined.filter_id


async def check_invite(viewer_id: int, slug: str) -> LinkView:
    """chatlists.checkChatlistInvite."""
    row, owner_folder = await _live_link(slug)
    found = await channels_with_member([int(p) for p in row.peers], viewer_id)
    peers = [c for c in found if not _banned(found[c][1])]
    view = LinkView(_invite_dict(row), owner_folder, peers)
    view.filter_id = await _viewer_filter_id(viewer_id, row)
    if view.filter_id is not None:
        mine = await dialog_filters.get_filter(viewer_id, view.filter_id)
        in_folder = set(folder_channel_ids(mine))
        view.already = [c for c in peers if c in in_folder]
        view.missing = [c for c in peers if c not in in_folder]
    return view


async def _join_chats(
    user_id: int, channel_ids: list[int], found: dict[int, tuple[dict, dict | None]], chat_invite_hashes: dict
) -> tuple[list[int], list[ChannelChange]]:
    """Join the chosen chats (public: as channels.joinChannel; private: through the chat
    invite link the folder link made). Chats the user cannot enter (banned, a join
    request needed, a revoked chat link) are left out; (chats in, changes)."""
    to_join = [c for c in channel_ids if not is_active(found[c][1])]
    async with db.connection() as conn:
        cur = await conn.execute(
            "SELECT count(*) AS n FROM user_channel_member_index WHERE user_id = %s AND status = 'active'",
            (user_id,),
        )
        if (await cur.fetchone())["n"] + len(to_join) > limits.CHANNELS_PER_USER_MAX:
            raise ChannelsTooMuchError()
    inside = [c for c in channel_ids if is_active(found[c][1])]
    changes = []
    for cid in to_join:
        channel, _member = found[cid]
        try:
            if channel["username"]:
                change = await channel_actions.do_join_channel(user_id, cid)
            elif str(cid) in chat_invite_hashes:
                change = await chat_invites.do_import_invite(user_id, chat_invite_hashes[str(cid)])
            else:
                continue
        except UserAlreadyParticipantError:
            inside.append(cid)
            continue
        except RpcError as exc:
            log.info("user %s skipped chat %s of a folder link: %s", user_id, cid, exc.message)
            continue
        inside.append(cid)
        changes.append(change)
    order = {c: i for i, c in enumerate(channel_ids)}
    return sorted(inside, key=order.__getitem__), changes


async def _free_filter_id(user_id: int) -> int:
    folders = await dialog_filters.get_filters(user_id)
    if sum(1 for fid, _ in folders if fid != dialog_filters.DEFAULT_ID) >= dialog_filters.FILTERS_MAX:
        raise DialogFiltersTooMuchError()
    used = {fid for fid, _ in folders}
    return next(
        i for i in range(dialog_filters.FILTER_ID_MIN, dialog_filters.FILTER_ID_MAX + 1) if i not in used
    )


def _chosen(channel_ids: list[int], offered: list[int]) -> list[int]:
    wanted = set(channel_ids)
    if wanted - set(offered):
        raise PeerIdInvalidError()  # only the link's own chats can be joined through it
    return [c for c in offered if c in wanted]


async def do_join_invite(user_id: int, slug: str, channel_ids: list[int], *, exclude=None) -> JoinResult:
    """chatlists.joinChatlistInvite: join the chosen chats of the link and add the
    folder (or, for a folder the user has, its new chats)."""
    view = await check_invite(user_id, slug)
    if view.filter_id is not None:
        if view.filter_id == view.invite["filter_id"] and view.invite["owner_id"] == user_id:
            raise FilterNotSupportedError()  # the owner's own folder
        return await _join_more(user_id, view.filter_id, channel_ids, view.missing, exclude=exclude)
    chosen = _chosen(channel_ids, view.peers)
    if not chosen:
        raise FilterIncludeEmptyError()
    if await _shared_count(user_id) >= CHATLISTS_JOINED_MAX:
        raise ChatlistsTooMuchError()
    filter_id = await _free_filter_id(user_id)
    found = await channels_with_member(chosen, user_id)
    inside, changes = await _join_chats(user_id, chosen, found, view.invite["chat_invites"])
    if not inside:
        raise FilterIncludeEmptyError()
    owner = view.folder
    folder = {
        "chatlist": True, "title": owner["title"], "title_entities": owner.get("title_entities") or [],
        "title_noanimate": owner.get("title_noanimate"), "emoticon": owner.get("emoticon"),
        "color": owner.get("color"), "pinned": [], "include": [["c", c] for c in inside],
    }  # fmt: skip
    folder = await _set_folder(user_id, filter_id, folder, exclude=exclude)

    def remember() -> None:
        JoinedChatlist.objects.update_or_create(
            user_id=user_id, filter_id=filter_id,
            defaults={
                "slug": view.invite["slug"], "owner_id": view.invite["owner_id"],
                "owner_filter_id": view.invite["filter_id"], "hidden": [], "date": now(),
            },
        )  # fmt: skip

    await sync_to_async(remember)()
    return JoinResult(filter_id, folder, changes)


async def _join_more(
    user_id: int, filter_id: int, channel_ids: list[int], missing: list[int], *, exclude=None
) -> JoinResult:
    chosen = _chosen(channel_ids, missing)
    if not chosen:
        raise FilterIncludeEmptyError()
    row = await sync_to_async(_joined)(user_id, filter_id)
    found = await channels_with_member(chosen, user_id)
    inside, changes = await _join_chats(user_id, chosen, found, await _chat_invites_of(row))
    folder = await _own_folder(user_id, filter_id)
    if inside:
        folder = await _set_folder(user_id, filter_id, _with_channels(folder, inside), exclude=exclude)
    if row is not None and row.hidden:
        row.hidden = [c for c in row.hidden if c not in set(inside)]
        await sync_to_async(row.save)(update_fields=["hidden"])
    return JoinResult(filter_id, folder, changes)


async def _chat_invites_of(joined: JoinedChatlist | None) -> dict:
    if joined is None:
        return {}
    row = await sync_to_async(_link)(joined.slug)
    return dict(row.chat_invites) if row is not None and not row.revoked else {}


async def _joined_folder(user_id: int, filter_id: int) -> tuple[dict, JoinedChatlist | None]:
    folder = await _own_folder(user_id, filter_id)
    if not folder.get("chatlist"):
        raise FilterNotSupportedError()
    return folder, await sync_to_async(_joined)(user_id, filter_id)


async def get_updates(user_id: int, filter_id: int) -> list[int]:
    """chatlists.getChatlistUpdates: chats the owner added to the link since the user
    joined, less those the user is shown already or dismissed."""
    folder, joined = await _joined_folder(user_id, filter_id)
    if joined is None:
        return []  # the owner's own folder
    row = await sync_to_async(_link)(joined.slug)
    if row is None or row.revoked:
        return []
    in_folder = set(folder_channel_ids(folder))
    hidden = {int(c) for c in joined.hidden}
    wanted = [int(c) for c in row.peers if int(c) not in in_folder and int(c) not in hidden]
    found = await channels_with_member(wanted, user_id)
    return [c for c in wanted if c in found and not _banned(found[c][1])]


async def do_join_updates(
    user_id: int, filter_id: int, channel_ids: list[int], *, exclude=None
) -> JoinResult:
    """chatlists.joinChatlistUpdates: join the chosen new chats and add them to the folder."""
    missing = await get_updates(user_id, filter_id)
    return await _join_more(user_id, filter_id, channel_ids, missing, exclude=exclude)


async def do_hide_updates(user_id: int, filter_id: int) -> None:
    """chatlists.hideChatlistUpdates: the chats offered now are not offered again."""
    missing = await get_updates(user_id, filter_id)
    row = await sync_to_async(_joined)(user_id, filter_id)
    if row is None or not missing:
        return
    row.hidden = sorted({*map(int, row.hidden), *missing})
    await sync_to_async(row.save)(update_fields=["hidden"])


async def leave_suggestions(user_id: int, filter_id: int) -> list[int]:
    """chatlists.getLeaveChatlistSuggestions: the folder's chats to offer leaving with
    it: ones the user is a plain member of and keeps in no other folder."""
    folder, _joined_row = await _joined_folder(user_id, filter_id)
    elsewhere = {
        c
        for fid, f in await dialog_filters.get_filters(user_id)
        if f and fid != filter_id
        for c in folder_channel_ids(f)
    }
    ids = [c for c in folder_channel_ids(folder) if c not in elsewhere]
    found = await channels_with_member(ids, user_id)
    return [c for c in ids if c in found and is_active(found[c][1]) and found[c][1]["role"] == "member"]


async def do_leave(user_id: int, filter_id: int, channel_ids: list[int], *, exclude=None) -> JoinResult:
    """chatlists.leaveChatlist: delete the shared folder (the owner's: with its links)
    and leave the listed chats of it."""
    folder, _joined_row = await _joined_folder(user_id, filter_id)
    in_folder = folder_channel_ids(folder)
    leaving = [c for c in dict.fromkeys(channel_ids) if c in set(in_folder)]
    if set(channel_ids) - set(in_folder):
        raise PeerIdInvalidError()
    await dialog_filters.do_update_filter(user_id, filter_id, None, exclude=exclude)
    changes = []
    for cid in leaving:
        try:
            changes.append(await channel_actions.do_leave_channel(user_id, cid))
        except (UserNotParticipantError, ChannelPrivateError):
            continue
    return JoinResult(filter_id, None, changes)


async def forget_folder(user_id: int, filter_id: int) -> None:
    """A deleted folder (however it went): a joined one forgets its link; an owned one's
    links are deleted, with their chat invite links."""

    def drop() -> list[dict]:
        JoinedChatlist.objects.filter(user_id=user_id, filter_id=filter_id).delete()
        rows = list(ChatlistInvite.objects.filter(owner_id=user_id, filter_id=filter_id, revoked=False))
        ChatlistInvite.objects.filter(id__in=[r.id for r in rows]).delete()
        return [dict(r.chat_invites) for r in rows]

    for hashes in await sync_to_async(drop)():
        await _revoke_chat_invites(hashes)


async def link_page(url: str) -> dict | None:
    """The link preview of one of this server's folder links (webpages_app asks before
    fetching anything): the folder's title and how many chats it offers; {} (no
    preview) for a link that does not open; None for any other URL."""
    slug = link_slug(url)
    if slug is None:
        return None
    try:
        row, folder = await _live_link(slug)
    except RpcError:
        return {}
    n = len(row.peers)
    return {
        "type": "telegram_chatlist", "site_name": "Telegram", "title": folder["title"],
        "description": row.title or f"A shared folder of {n} chat{'s' if n != 1 else ''}",
    }  # fmt: skip
