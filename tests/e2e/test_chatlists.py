"""Shared folders with unmodified Telethon clients: an owner shares a folder of a public
group, a public channel and a private group by a t.me/addlist link; another user checks
and joins it (their other session is told of the folder live and lists it), takes a chat
the owner adds later, dismisses the next, and leaves the folder with some of its chats.
Telegram's limits refuse with Telegram's errors."""

from __future__ import annotations

import re

import pytest

from tests.e2e.test_channels import collect, logged_in, second_session, wait_for

pytestmark = pytest.mark.django_db(transaction=True)


def _peer(chat):
    from telethon import types

    return types.InputPeerChannel(chat.id, chat.access_hash)


async def _group(client, title: str, *, username: str | None = None, broadcast: bool = False):
    from telethon import functions

    chat = (
        await client(
            functions.channels.CreateChannelRequest(
                title=title, about="", megagroup=not broadcast, broadcast=broadcast
            )
        )
    ).chats[0]
    if username:
        assert await client(functions.channels.UpdateUsernameRequest(_peer(chat), username))
    return chat


async def _folder(client, filter_id: int, title: str, chats):
    from telethon import functions, types

    folder = types.DialogFilter(
        id=filter_id,
        title=types.TextWithEntities(text=title, entities=[]),
        pinned_peers=[],
        include_peers=[_peer(c) for c in chats],
        exclude_peers=[],
        emoticon="🎮",
    )
    assert await client(functions.messages.UpdateDialogFilterRequest(id=filter_id, filter=folder))


def _chatlist(filter_id: int):
    from telethon import types

    return types.InputChatlistDialogFilter(filter_id=filter_id)


def _slug(url: str) -> str:
    assert url.startswith("https://t.me/addlist/"), url
    return url.rsplit("/", 1)[1]


async def _error(call) -> str:
    from telethon import errors

    with pytest.raises(errors.RPCError) as exc:
        await call
    # Telethon names the errors it knows by class (FilterIncludeEmptyError), others by message.
    name = type(exc.value).__name__
    if name in ("BadRequestError", "RPCError"):
        return exc.value.message
    return "_".join(re.findall("[A-Z][a-z]*", name.removesuffix("Error"))).upper()


async def _member_ids(client, chats) -> set[int]:
    """Which of ``chats`` the client is in (has a dialog of)."""
    wanted = {c.id for c in chats}
    return {d.entity.id for d in await client.get_dialogs() if d.entity.id in wanted}


async def test_share_join_update_and_leave_a_folder(edge_server, edge_db, clients):
    from telethon import events, functions, types

    _o, owner, _op, _oc = await logged_in(edge_server, "Olga", clients)
    _j, jon, jon_phone, jon_code = await logged_in(edge_server, "Jon", clients)

    pub = await _group(owner, "Gamers", username="gamers_pub")
    news = await _group(owner, "Game News", username="game_news", broadcast=True)
    priv = await _group(owner, "Inner circle")
    three = [pub, news, priv]
    await _folder(owner, 2, "Games", three)

    # Export: the folder becomes a shared one on the owner's side, the link a t.me/addlist one.
    exported = await owner(
        functions.chatlists.ExportChatlistInviteRequest(_chatlist(2), "Club", [_peer(c) for c in three])
    )
    assert isinstance(exported.filter, types.DialogFilterChatlist) and exported.filter.has_my_invites
    assert [p.channel_id for p in exported.invite.peers] == [c.id for c in three]
    slug = _slug(exported.invite.url)
    listed = await owner(functions.chatlists.GetExportedInvitesRequest(_chatlist(2)))
    assert [i.url for i in listed.invites] == [exported.invite.url]
    assert {c.id for c in listed.chats} == {c.id for c in three}

    # The link's preview in a chat is the folder's, as Telegram shows t.me/addlist links.
    shown = await jon(functions.messages.GetWebPagePreviewRequest(message=f"join us: {exported.invite.url}"))
    page = getattr(shown, "media", shown).webpage
    assert page.type == "telegram_chatlist" and page.title == "Games" and page.description == "Club"

    # Jon's second session hears of the folder when it is added.
    jon2 = await second_session(edge_server, jon_phone, jon_code, clients)
    heard = []
    jon2.add_event_handler(collect(heard), events.Raw(types.UpdateDialogFilter))
    await jon2.get_dialogs()

    # Check: a preview of a folder Jon has not got, with all three chats, the private one too.
    preview = await jon(functions.chatlists.CheckChatlistInviteRequest(slug=slug))
    assert isinstance(preview, types.chatlists.ChatlistInvite)
    assert preview.title.text == "Games" and preview.emoticon == "🎮"
    assert [p.channel_id for p in preview.peers] == [c.id for c in three]
    by_id = {c.id: c for c in preview.chats}
    assert by_id[priv.id].title == "Inner circle" and by_id[priv.id].access_hash == priv.access_hash
    assert await _error(jon(functions.chatlists.JoinChatlistInviteRequest(slug=slug, peers=[]))) == (
        "FILTER_INCLUDE_EMPTY"
    )

    # Join: Jon is in all three chats (the private one through the link's chat invite).
    joined = await jon(
        functions.chatlists.JoinChatlistInviteRequest(slug=slug, peers=[_peer(by_id[c.id]) for c in three])
    )
    folder_ups = [u for u in joined.updates if isinstance(u, types.UpdateDialogFilter)]
    assert len(folder_ups) == 1 and isinstance(folder_ups[0].filter, types.DialogFilterChatlist)
    jon_filter = folder_ups[0].id
    assert not folder_ups[0].filter.has_my_invites
    assert await _member_ids(jon, three) == {c.id for c in three}
    await wait_for(lambda: any(u.id == jon_filter and u.filter is not None for u in heard), timeout=20)
    filters = (await jon2(functions.messages.GetDialogFiltersRequest())).filters
    mine = next(f for f in filters if getattr(f, "id", None) == jon_filter)
    assert isinstance(mine, types.DialogFilterChatlist) and mine.title.text == "Games"
    assert {p.channel_id for p in mine.include_peers} == {c.id for c in three}

    again = await jon(functions.chatlists.CheckChatlistInviteRequest(slug=slug))
    assert isinstance(again, types.chatlists.ChatlistInviteAlready) and again.filter_id == jon_filter
    assert {p.channel_id for p in again.already_peers} == {c.id for c in three} and not again.missing_peers

    # The owner adds a private chat to the link: Jon is offered it and takes it.
    extra = await _group(owner, "Late addition")
    edited = await owner(
        functions.chatlists.EditExportedInviteRequest(
            _chatlist(2), slug, peers=[_peer(c) for c in [*three, extra]]
        )
    )
    assert [p.channel_id for p in edited.peers][-1] == extra.id
    offered = await jon(functions.chatlists.GetChatlistUpdatesRequest(_chatlist(jon_filter)))
    assert [p.channel_id for p in offered.missing_peers] == [extra.id]
    offered_chat = next(c for c in offered.chats if c.id == extra.id)
    heard.clear()
    took = await jon(
        functions.chatlists.JoinChatlistUpdatesRequest(_chatlist(jon_filter), [_peer(offered_chat)])
    )
    assert any(isinstance(u, types.UpdateDialogFilter) for u in took.updates)
    assert extra.id in await _member_ids(jon, [extra])
    assert not (await jon(functions.chatlists.GetChatlistUpdatesRequest(_chatlist(jon_filter)))).missing_peers
    await wait_for(lambda: any(u.id == jon_filter for u in heard), timeout=20)

    # A further chat Jon dismisses is not offered again.
    later = await _group(owner, "Not for Jon")
    await owner(
        functions.chatlists.EditExportedInviteRequest(
            _chatlist(2), slug, peers=[_peer(c) for c in [*three, extra, later]]
        )
    )
    assert [
        p.channel_id
        for p in (
            await jon(functions.chatlists.GetChatlistUpdatesRequest(_chatlist(jon_filter)))
        ).missing_peers
    ] == [later.id]
    assert await jon(functions.chatlists.HideChatlistUpdatesRequest(_chatlist(jon_filter)))
    assert not (await jon(functions.chatlists.GetChatlistUpdatesRequest(_chatlist(jon_filter)))).missing_peers

    # Leaving: the suggestions are the folder's chats; Jon leaves two of them with the folder.
    suggested = await jon(functions.chatlists.GetLeaveChatlistSuggestionsRequest(_chatlist(jon_filter)))
    assert {p.channel_id for p in suggested} == {c.id for c in [*three, extra]}
    left = await jon(
        functions.chatlists.LeaveChatlistRequest(
            _chatlist(jon_filter), [_peer(by_id[pub.id]), _peer(by_id[priv.id])]
        )
    )
    assert any(isinstance(u, types.UpdateDialogFilter) and u.filter is None for u in left.updates)
    assert await _member_ids(jon, three) == {news.id}
    filters = (await jon(functions.messages.GetDialogFiltersRequest())).filters
    assert all(getattr(f, "id", None) != jon_filter for f in filters)

    # Deleting the link: it no longer opens.
    assert await owner(functions.chatlists.DeleteExportedInviteRequest(_chatlist(2), slug))
    assert (
        await _error(jon(functions.chatlists.CheckChatlistInviteRequest(slug=slug))) == "INVITE_SLUG_EXPIRED"
    )
    assert not (await owner(functions.chatlists.GetExportedInvitesRequest(_chatlist(2)))).invites


async def test_folder_link_limits_refuse_with_telegrams_errors(edge_server, edge_db, clients):
    from telethon import functions

    _o, owner, _op, _oc = await logged_in(edge_server, "Olga", clients)
    _m, max_, _mp, _mc = await logged_in(edge_server, "Max", clients)
    _j, jon, _jp, _jc = await logged_in(edge_server, "Jon", clients)

    # help.getAppConfig announces what the server enforces.
    config = await jon(functions.help.GetAppConfigRequest(hash=0))
    values = {item.key: getattr(item.value, "value", None) for item in config.config.value}
    assert values["chatlist_invites_limit_default"] == 3 and values["chatlists_joined_limit_default"] == 2

    groups = [await _group(owner, f"g{i}", username=f"limits_g{i}") for i in range(3)]
    private = await _group(owner, "owner's private")
    for i, g in enumerate(groups):
        await _folder(owner, 2 + i, f"F{i}", [g])

    # A private group may be shared only by who may invite to it.
    await max_(functions.channels.JoinChannelRequest(_peer(groups[0])))
    await _folder(max_, 2, "Mine", [groups[0]])
    slug_private = _slug(
        (
            await owner(
                functions.chatlists.ExportChatlistInviteRequest(
                    _chatlist(2), "", [_peer(private), _peer(groups[0])]
                )
            )
        ).invite.url
    )
    preview = await max_(functions.chatlists.CheckChatlistInviteRequest(slug=slug_private))
    hidden = next(c for c in preview.chats if c.id == private.id)
    await max_(functions.chatlists.JoinChatlistInviteRequest(slug=slug_private, peers=[_peer(hidden)]))
    assert (
        await _error(max_(functions.chatlists.ExportChatlistInviteRequest(_chatlist(2), "", [_peer(hidden)])))
        == "CHAT_ADMIN_REQUIRED"
    )

    # Three links per folder (chatlist_invites_limit_default): the fourth is refused.
    for _ in range(2):
        await owner(functions.chatlists.ExportChatlistInviteRequest(_chatlist(2), "", [_peer(groups[0])]))
    assert (
        await _error(
            owner(functions.chatlists.ExportChatlistInviteRequest(_chatlist(2), "", [_peer(groups[0])]))
        )
        == "INVITES_TOO_MUCH"
    )

    # Two shared folders per user (chatlists_joined_limit_default), own ones counted too.
    slug_b = _slug(
        (
            await owner(functions.chatlists.ExportChatlistInviteRequest(_chatlist(3), "", [_peer(groups[1])]))
        ).invite.url
    )
    assert (
        await _error(
            owner(functions.chatlists.ExportChatlistInviteRequest(_chatlist(4), "", [_peer(groups[2])]))
        )
        == "CHATLISTS_TOO_MUCH"
    )
    await jon(functions.chatlists.JoinChatlistInviteRequest(slug=slug_private, peers=[_peer(groups[0])]))
    await jon(functions.chatlists.JoinChatlistInviteRequest(slug=slug_b, peers=[_peer(groups[1])]))
    await max_(functions.channels.JoinChannelRequest(_peer(groups[2])))
    await _folder(max_, 4, "Max's", [groups[2]])  # 3 is the folder Max joined
    slug_c = _slug(
        (
            await max_(functions.chatlists.ExportChatlistInviteRequest(_chatlist(4), "", [_peer(groups[2])]))
        ).invite.url
    )
    assert (
        await _error(
            jon(functions.chatlists.JoinChatlistInviteRequest(slug=slug_c, peers=[_peer(groups[2])]))
        )
        == "CHATLISTS_TOO_MUCH"
    )

    # A folder of chat kinds is not shareable; an unknown slug does not open.
    from telethon import types

    kinds = types.DialogFilter(
        id=5, title=types.TextWithEntities(text="Groups", entities=[]), groups=True,
        pinned_peers=[], include_peers=[], exclude_peers=[],
    )  # fmt: skip
    assert await owner(functions.messages.UpdateDialogFilterRequest(id=5, filter=kinds))
    assert (
        await _error(
            owner(functions.chatlists.ExportChatlistInviteRequest(_chatlist(5), "", [_peer(groups[0])]))
        )
        == "FILTER_NOT_SUPPORTED"
    )
    assert await _error(jon(functions.chatlists.CheckChatlistInviteRequest(slug="nosuchslug"))) == (
        "INVITE_SLUG_EXPIRED"
    )
    assert await _error(jon(functions.chatlists.CheckChatlistInviteRequest(slug=""))) == "INVITE_SLUG_EMPTY"


OLD_SCRIPT = r"""
import asyncio, json, sys
from telethon import TelegramClient, functions, types
from telethon.crypto import rsa
from telethon.sessions import MemorySession
from telethon.tl.alltlobjects import LAYER

host, port, pem, phone, code, slug = sys.argv[1], int(sys.argv[2]), open(sys.argv[3]).read(), *sys.argv[4:7]
rsa.add_key(pem, old=False)

async def main():
    session = MemorySession()
    session.set_dc(2, host, port)
    client = TelegramClient(session, 611335, "d524b414d21f4d37f08684c1df41ac9c", connection_retries=1,
                            auto_reconnect=False, receive_updates=False)
    await client.start(phone=phone, code_callback=lambda: code)
    preview = await client(functions.chatlists.CheckChatlistInviteRequest(slug=slug))
    peers = [types.InputPeerChannel(c.id, c.access_hash) for c in preview.chats]
    joined = await client(functions.chatlists.JoinChatlistInviteRequest(slug=slug, peers=peers))
    filters = await client(functions.messages.GetDialogFiltersRequest())
    filters = getattr(filters, "filters", filters)
    folder = next(f for f in filters if isinstance(f, types.DialogFilterChatlist))
    print(json.dumps({
        "layer": LAYER,
        "preview": [type(preview).__name__, preview.title, preview.emoticon, [p.channel_id for p in preview.peers]],
        "joined": [type(u).__name__ for u in joined.updates],
        "folder": [folder.id, folder.title, [p.channel_id for p in folder.include_peers]],
    }), flush=True)
    await client.disconnect()

asyncio.run(main())
"""


async def test_a_layer_181_client_joins_a_folder_link(edge_server, edge_db, clients, tmp_path):
    from telethon import functions

    from accounts_app.models import User
    from tests.e2e import harness
    from tests.e2e.test_old_layers import TELETHON_181, _run
    from tests.support.client_venvs import client_python

    _o, owner, _op, _oc = await logged_in(edge_server, "Olga", clients)
    group = await _group(owner, "Retro", username="retro_club")
    await _folder(owner, 2, "Retro", [group])
    url = (
        await owner(functions.chatlists.ExportChatlistInviteRequest(_chatlist(2), "", [_peer(group)]))
    ).invite.url

    phone, code = harness.fresh_phone()
    await User.objects.acreate(phone=phone, first_name="Old")
    pem = tmp_path / "server.pub"
    pem.write_bytes(edge_server.public_pem)
    args = [edge_server.host, str(edge_server.port), str(pem), phone, code, _slug(url)]
    seen = await _run(client_python(TELETHON_181), OLD_SCRIPT, args, tmp_path)

    assert seen["layer"] == 181
    assert seen["preview"] == ["ChatlistInvite", "Retro", "🎮", [group.id]]  # the title as a plain string
    assert "UpdateDialogFilter" in seen["joined"] and "UpdateChannel" in seen["joined"]
    assert seen["folder"][1:] == ["Retro", [group.id]]
