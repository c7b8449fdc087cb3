"""Invite links: export/check/import, usage limit under concurrency, expiry, revoke,
join requests and the management queries."""

import asyncio
import time

import pytest

from channels_app import actions
from channels_app.actions import admin, admin_log, invites, settings, usernames
from channels_app.errors import UserAlreadyParticipantError, UsersTooMuchError
from channels_app.rights import admin_bit, banned_bit
from tl.errors import (
    ChatAdminRequiredError,
    ExpireDateInvalidError,
    InviteHashExpiredError,
    InviteHashInvalidError,
    InviteRequestSentError,
    UsageLimitInvalidError,
)

A, B, C = 31, 32, 33


async def _group(*members):
    cid = (await actions.do_create_channel(A, "g", megagroup=True)).channel["id"]
    if members:
        await actions.do_invite_to_channel(A, cid, list(members))
    return cid


async def test_usage_limit_holds_under_concurrent_imports(chan):
    cid = await _group()
    inv = await invites.do_export_invite(A, cid, usage_limit=3)
    users = list(range(1000, 1010))
    results = await asyncio.gather(
        *(invites.do_import_invite(u, "https://t.me/+" + inv["hash"]) for u in users), return_exceptions=True
    )
    joined = [u for u, r in zip(users, results, strict=True) if not isinstance(r, BaseException)]
    refused = [r for r in results if isinstance(r, BaseException)]
    assert len(joined) == 3
    assert all(isinstance(r, UsersTooMuchError) for r in refused), refused
    ch, _ = await actions.get_channel_for_viewer(A, cid, None)
    assert ch["participants_count"] == 4
    (fresh,) = [i for i in (await invites.list_invites(A, cid, A))[1] if i["id"] == inv["id"]]
    assert fresh["usage_count"] == 3
    count, importers = await invites.list_importers(A, cid, link=inv["hash"])
    assert count == 3 and sorted(i["user_id"] for i in importers) == sorted(joined)


async def test_check_and_import_errors(chan):
    cid = await _group(B)
    with pytest.raises(ChatAdminRequiredError):
        await invites.do_export_invite(B, cid)
    with pytest.raises(ExpireDateInvalidError):
        await invites.do_export_invite(A, cid, expire_date=int(time.time()) - 5)
    with pytest.raises(UsageLimitInvalidError):
        await invites.do_export_invite(A, cid, usage_limit=5, request_needed=True)
    inv = await invites.do_export_invite(A, cid, title="friends")
    with pytest.raises(InviteHashInvalidError):
        await invites.check_invite(C, "nosuchhash")
    check = await invites.check_invite(C, inv["hash"])
    assert check.kind == "invite" and check.channel["id"] == cid and B in check.participant_ids
    assert (await invites.check_invite(B, inv["hash"])).kind == "already"
    with pytest.raises(UserAlreadyParticipantError):
        await invites.do_import_invite(B, inv["hash"])
    # A banned user is told the link is invalid (the ban is not revealed) ...
    await admin.do_edit_banned(A, cid, C, banned_bit("view_messages"))
    with pytest.raises(InviteHashInvalidError):
        await invites.check_invite(C, inv["hash"])
    with pytest.raises(InviteHashInvalidError):
        await invites.do_import_invite(C, inv["hash"])
    # ... and joins again once unbanned.
    await admin.do_edit_banned(A, cid, C, 0)
    change = await invites.do_import_invite(C, inv["hash"])
    assert change.channel["participants_count"] == 3
    # Revoked: expired for everyone.
    revoked, replacement = await invites.do_edit_invite(A, cid, inv["hash"], revoked=True)
    assert revoked["revoked"] and replacement is None
    with pytest.raises(InviteHashExpiredError):
        await invites.do_import_invite(77, inv["hash"])


async def test_expired_link(chan):
    cid = await _group()
    inv = await invites.do_export_invite(A, cid, expire_date=int(time.time()) + 1)
    await asyncio.sleep(1.1)
    with pytest.raises(InviteHashExpiredError):
        await invites.check_invite(B, inv["hash"])
    with pytest.raises(InviteHashExpiredError):
        await invites.do_import_invite(B, inv["hash"])


async def test_request_needed_link_makes_a_pending_request_the_admin_approves(chan):
    cid = await _group()
    inv = await invites.do_export_invite(A, cid, request_needed=True)
    with pytest.raises(InviteRequestSentError):
        await invites.do_import_invite(B, inv["hash"])
    with pytest.raises(InviteRequestSentError):
        await invites.do_import_invite(C, inv["hash"])
    pending_pushes = [p for k, p in chan if k == "channel_admin.pending"]
    # Each names the new request (the Bot API's chat_join_request is made from it).
    assert [(p["user_ids"], p["request"]["user_id"], p["request"]["invite_id"]) for p in pending_pushes] == [
        ([A], B, inv["id"]),
        ([A], C, inv["id"]),
    ]
    pending, recent = await invites.pending_requests(cid)
    assert pending == 2 and set(recent) == {B, C}
    extras = await invites.full_channel_extras(A, *(await actions.get_channel_for_viewer(A, cid, None)))
    assert extras["requests_pending"] == 2 and extras["exported_invite"]["permanent"]
    # Not joined yet.
    assert (await actions.get_dialogs(B)).entries == []
    count, reqs = await invites.list_importers(A, cid, requested=True)
    assert count == 2 and {r["user_id"] for r in reqs} == {B, C}
    change = await invites.do_hide_join_request(A, cid, B, approved=True)
    assert change.channel["participants_count"] == 2
    assert [e.channel["id"] for e in (await actions.get_dialogs(B)).entries] == [cid]
    await invites.do_hide_join_request(A, cid, C, approved=False)
    assert await invites.pending_requests(cid) == (0, [])
    assert (await actions.get_dialogs(C)).entries == []
    log = await admin_log.get_admin_log(A, cid, filters={"join"})
    assert [(e["event_type"], e["data"]["approved_by"]) for e in log.events] == [
        ("participant_join_by_request", A)
    ]
    (fresh,) = [i for i in (await invites.list_invites(A, cid, A))[1] if i["id"] == inv["id"]]
    assert (fresh["usage_count"], fresh["requested_count"]) == (1, 0)


async def test_public_join_with_join_requests_on(chan):
    cid = await _group()
    await usernames.do_update_username(A, cid, "askfirst")
    await settings.do_toggle_join_request(A, cid, True)
    with pytest.raises(InviteRequestSentError):
        await actions.do_join_channel(B, cid)
    count, reqs = await invites.list_importers(A, cid, requested=True)
    assert count == 1 and reqs[0]["invite_id"] == 0
    _, member = await actions.get_channel_for_viewer(B, cid, None, preview=True)
    assert member is None or member["status"] != "active"  # a request, not a join
    full = await actions.get_full_channel(A, cid, None)
    assert (full["requests_pending"], full["recent_requesters"]) == (1, [B])


async def test_management_listing_revoke_replace_delete(chan):
    cid = await _group(B)
    await admin.do_edit_admin(A, cid, B, admin_bit("invite_users"))
    permanent = await invites.get_permanent_invite(cid, A)
    links = [await invites.do_export_invite(A, cid, title=f"l{i}") for i in range(3)]
    await invites.do_export_invite(B, cid)
    count, page = await invites.list_invites(A, cid, A, limit=2)
    assert count == 4 and len(page) == 2
    _, rest = await invites.list_invites(
        A, cid, A, offset_date=page[-1]["date"], offset_link=page[-1]["hash"]
    )
    assert {i["hash"] for i in page + rest} == {permanent["hash"], *(link["hash"] for link in links)}
    # B sees only their own links.
    with pytest.raises(ChatAdminRequiredError):
        await invites.list_invites(B, cid, A)
    with pytest.raises(InviteHashInvalidError):
        await invites.get_invite(B, cid, links[0]["hash"])
    admins = {r["admin_user_id"]: r for r in await invites.admins_with_invites(A, cid)}
    assert admins[A]["invites_count"] == 4 and admins[B]["invites_count"] == 1
    # Revoking the permanent link replaces it.
    old, new = await invites.do_edit_invite(A, cid, "https://t.me/+" + permanent["hash"], revoked=True)
    assert old["revoked"] and new["permanent"] and new["hash"] != permanent["hash"]
    edited, _ = await invites.do_edit_invite(A, cid, links[0]["hash"], usage_limit=7, title="seven")
    assert (edited["usage_limit"], edited["title"]) == (7, "seven")
    await invites.do_edit_invite(A, cid, links[1]["hash"], revoked=True)
    await invites.do_delete_invite(A, cid, links[0]["hash"])
    with pytest.raises(InviteHashInvalidError):
        await invites.get_invite(A, cid, links[0]["hash"])
    assert await invites.do_delete_revoked_invites(A, cid, A) == 2
    _, revoked_left = await invites.list_invites(A, cid, A, revoked=True)
    assert revoked_left == []
    kinds = [e["event_type"] for e in (await admin_log.get_admin_log(A, cid, filters={"invites"})).events]
    assert kinds.count("invite_delete") == 3 and "invite_edit" in kinds and "invite_revoke" in kinds
