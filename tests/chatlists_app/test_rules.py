"""Shared folders' domain rules (chatlists_app.actions) and the console's folder links
page with a moderator's revoke."""

import pytest

from channels_app import actions as channel_actions
from channels_app.actions import invites as chat_invites
from channels_app.actions.usernames import do_update_username
from chatlists_app import actions, links
from chatlists_app.models import ChatlistInvite, JoinedChatlist
from messages_app import dialog_filters
from tests.console_app.conftest import run
from tests.console_app.test_moderation import act
from tl.errors import RpcError


def _folder(channel_ids, **extra) -> dict:
    return {"title": "Club", "emoticon": "🎮", "include": [["c", c] for c in channel_ids], **extra}


@pytest.fixture
def chats(people):
    """A public group and a private group of the owner, and the owner's folder 2 of both."""
    owner = people[0]
    public = run(channel_actions.do_create_channel, owner, "Open", megagroup=True).channel["id"]
    run(do_update_username, owner, public, "open_club")
    private = run(channel_actions.do_create_channel, owner, "Closed", megagroup=True).channel["id"]
    run(dialog_filters.do_update_filter, owner, 2, _folder([public, private]))
    return public, private


def _error(coro_fn, *args, **kwargs) -> str:
    with pytest.raises(RpcError) as exc:
        run(coro_fn, *args, **kwargs)
    return exc.value.message


def test_slugs_and_urls():
    assert links.slug_of("https://t.me/addlist/AbC-1_") == "AbC-1_"
    assert links.slug_of("t.me/addlist/xyz/") == "xyz"
    assert links.slug_of("tg://addlist?slug=q1w2") == "q1w2"
    assert links.slug_of(" plain ") == "plain"
    assert links.link_url("q1w2") == "https://t.me/addlist/q1w2"
    assert links.link_slug("https://t.me/addlist/q1w2?x=1") == "q1w2"
    assert links.link_slug("http://T.me/addlist/q1w2") == "q1w2"
    assert links.link_slug("https://t.me/+q1w2") is None
    assert links.link_slug("https://example.com/addlist/q1w2") is None


def test_export_makes_a_shared_folder_and_chat_invites_for_private_chats(people, chats):
    owner, _joiner, stranger = people
    public, private = chats
    folder, inv = run(actions.do_export_invite, owner, 2, " Friends ", [public, private])
    assert folder["chatlist"] and folder["has_my_invites"]
    assert inv["title"] == "Friends" and inv["peers"] == [public, private]
    assert list(inv["chat_invites"]) == [str(private)]  # public chats are joined by name
    assert run(actions.link_page, links.link_url(inv["slug"])) == {
        "type": "telegram_chatlist", "site_name": "Telegram", "title": "Club", "description": "Friends",
    }  # fmt: skip
    assert run(actions.link_page, "https://example.com/") is None
    # the private chat's invite link works on its own, and is the owner's
    check = run(chat_invites.check_invite, stranger, inv["chat_invites"][str(private)])
    assert check.invite["admin_user_id"] == owner

    # a client's later edit of the folder keeps the server's mark
    run(dialog_filters.do_update_filter, owner, 2, {**_folder([public, private]), "chatlist": True})
    assert run(dialog_filters.get_filter, owner, 2)["has_my_invites"]


def test_what_cannot_be_shared(people, chats):
    owner, joiner, stranger = people
    public, private = chats
    assert _error(actions.do_export_invite, owner, 7, "", [public]) == "FILTER_ID_INVALID"
    assert _error(actions.do_export_invite, owner, 2, "", []) == "PEERS_LIST_EMPTY"
    run(dialog_filters.do_update_filter, owner, 3, {"title": "Kinds", "flags": {"groups": True}})
    assert _error(actions.do_export_invite, owner, 3, "", [public]) == "FILTER_NOT_SUPPORTED"
    run(dialog_filters.do_update_filter, owner, 4, _folder([public], exclude=[["c", private]]))
    assert _error(actions.do_export_invite, owner, 4, "", [public]) == "CHATLIST_EXCLUDE_INVALID"
    # a member who may not invite shares only public chats
    run(channel_actions.do_invite_to_channel, owner, private, [joiner])
    run(dialog_filters.do_update_filter, joiner, 2, _folder([private]))
    assert _error(actions.do_export_invite, joiner, 2, "", [private]) == "CHAT_ADMIN_REQUIRED"
    run(channel_actions.do_join_channel, joiner, public)
    run(actions.do_export_invite, joiner, 2, "", [public])
    # a chat one is not in cannot be offered
    run(dialog_filters.do_update_filter, stranger, 2, _folder([public]))
    assert _error(actions.do_export_invite, stranger, 2, "", [private]) == "CHANNEL_PRIVATE"


def test_join_only_the_links_chats_and_leave_suggestions(people, chats):
    owner, joiner, _stranger = people
    public, private = chats
    _f, inv = run(actions.do_export_invite, owner, 2, "", [public, private])
    other = run(channel_actions.do_create_channel, owner, "Elsewhere", megagroup=True).channel["id"]
    assert _error(actions.do_join_invite, joiner, inv["slug"], [other]) == "PEER_ID_INVALID"
    assert _error(actions.do_join_invite, joiner, inv["slug"], []) == "FILTER_INCLUDE_EMPTY"
    result = run(actions.do_join_invite, joiner, inv["slug"], [private])
    assert result.folder["chatlist"] and not result.folder["has_my_invites"]
    assert actions.folder_channel_ids(result.folder) == [private]
    view = run(actions.check_invite, joiner, inv["slug"])
    assert view.filter_id == result.filter_id and view.already == [private] and view.missing == [public]
    assert run(actions.leave_suggestions, joiner, result.filter_id) == [private]
    # the same chat in another folder of the user is not suggested for leaving
    run(dialog_filters.do_update_filter, joiner, 9, _folder([private]))
    assert run(actions.leave_suggestions, joiner, result.filter_id) == []


def test_deleting_the_owners_folder_deletes_its_links(people, chats):
    owner, joiner, stranger = people
    public, private = chats
    _f, inv = run(actions.do_export_invite, owner, 2, "", [public, private])
    run(actions.do_join_invite, joiner, inv["slug"], [public])
    run(dialog_filters.do_update_filter, owner, 2, None)
    assert not ChatlistInvite.objects.filter(slug=inv["slug"]).exists()
    assert _error(actions.check_invite, stranger, inv["slug"]) == "INVITE_SLUG_EXPIRED"
    assert _error(chat_invites.do_import_invite, stranger, inv["chat_invites"][str(private)]) == (
        "INVITE_HASH_EXPIRED"
    )
    # the joiner keeps the folder; a joiner deleting theirs forgets where it came from
    joined = JoinedChatlist.objects.get(user_id=joiner)
    run(dialog_filters.do_update_filter, joiner, joined.filter_id, None)
    assert not JoinedChatlist.objects.filter(user_id=joiner).exists()


def test_console_lists_folder_links_and_a_moderator_revokes_one(moderator_client, people, chats):
    owner, _joiner, stranger = people
    public, private = chats
    _f, inv = run(actions.do_export_invite, owner, 2, "Weekend", [public, private])
    url = "/admin/chatlists_app/chatlistinvite/"
    page = moderator_client.get(url).content.decode()
    assert f"t.me/addlist/{inv['slug']}" in page and "Weekend" in page
    row = ChatlistInvite.objects.get(slug=inv["slug"])
    response = act(moderator_client, url, "revoke_links", [str(row.pk)])
    assert "Revoked 1 folder link(s)." in response.content.decode()
    assert ChatlistInvite.objects.get(slug=inv["slug"]).revoked
    assert _error(actions.check_invite, stranger, inv["slug"]) == "INVITE_SLUG_EXPIRED"
    assert _error(chat_invites.do_import_invite, stranger, inv["chat_invites"][str(private)]) == (
        "INVITE_HASH_EXPIRED"
    )
    assert not run(dialog_filters.get_filter, owner, 2)["has_my_invites"]
    assert run(actions.link_page, links.link_url(inv["slug"])) == {}  # a revoked link shows no preview
    assert run(actions.list_invites, owner, 2) == []
    assert "revoked" in moderator_client.get(url, {"revoked": "1"}).content.decode()
