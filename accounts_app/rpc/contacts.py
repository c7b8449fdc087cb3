"""contacts.*: contact list, import, username resolution, search."""

from __future__ import annotations

from asgiref.sync import sync_to_async

from accounts_app import (
    actions,
    blocking,
    contact_links,
    peer_search,
    tl_convert,
    tl_convert_settings,
    usernames,
)
from accounts_app.access import check_input_peer_user, check_input_user
from accounts_app.rpc.context import own_session, viewer_id
from accounts_app.updates import push_user_updates
from edge_app.registry import rpc
from tl import functions, types
from tl.errors import (
    ContactIdInvalidError,
    PeerIdInvalidError,
    SearchQueryEmptyError,
    UserIdInvalidError,
    UsernameNotOccupiedError,
)


@rpc(functions.contacts.GetContacts)
async def get_contacts(ctx, req: functions.contacts.GetContacts):
    me = viewer_id(ctx)
    rows = await sync_to_async(actions.list_contacts)(me)
    if req.hash and req.hash == actions.vector_hash(sorted(uid for uid, _ in rows)):
        return tl_convert.contacts_not_modified_to_tl()
    users = await tl_convert.users_to_tl([uid for uid, _ in rows], me)
    return tl_convert.contacts_to_tl(rows, users)


@rpc(functions.contacts.ImportContacts)
async def import_contacts(ctx, req: functions.contacts.ImportContacts):
    me = viewer_id(ctx)
    wanted = [
        actions.PhoneContact(c.client_id, c.phone, c.first_name or "", c.last_name or "")
        for c in req.contacts[: actions.IMPORT_CAP]
        if isinstance(c, types.InputPhoneContact)
    ]
    imported = await sync_to_async(actions.do_import_contacts)(me, wanted)
    users = await tl_convert.users_to_tl([uid for uid, _ in imported], me)
    return tl_convert.imported_contacts_to_tl(imported, [], users)


@rpc(functions.contacts.DeleteContacts)
async def delete_contacts(ctx, req: functions.contacts.DeleteContacts):
    me = viewer_id(ctx)
    ids = []
    for input_user in req.id[: actions.IMPORT_CAP]:
        try:
            ids.append(check_input_user(me, input_user))
        except UserIdInvalidError:
            continue
    await sync_to_async(actions.do_delete_contacts)(me, ids)
    users = await tl_convert.users_to_tl(ids, me)
    return tl_convert.updates_to_tl([], users)


@rpc(functions.contacts.GetStatuses)
async def get_statuses(ctx, req: functions.contacts.GetStatuses):
    me = viewer_id(ctx)
    rows = await sync_to_async(actions.list_contacts)(me)
    users = await sync_to_async(actions.users_by_id)([uid for uid, _ in rows])
    return [tl_convert.contact_status_to_tl(u) for u in users]


@rpc(functions.contacts.ResolveUsername)
async def resolve_username(ctx, req: functions.contacts.ResolveUsername):
    me = viewer_id(ctx)
    user_id = await sync_to_async(actions.find_user_by_username)(req.username)
    if user_id is not None:
        return tl_convert.resolved_user_to_tl(user_id, await tl_convert.users_to_tl([user_id], me))
    key = usernames.normalize(usernames.strip_at(req.username))
    for resolver in peer_search.username_resolvers():
        hit = await resolver(me, key)
        if hit is not None and hit.results:
            users = await tl_convert.users_to_tl(sorted(hit.user_ids), me)
            return tl_convert.resolved_peer_to_tl(hit.results[0], hit.chats, users)
    raise UsernameNotOccupiedError()


@rpc(functions.contacts.Search)
async def search(ctx, req: functions.contacts.Search):
    me = viewer_id(ctx)
    query = (req.q or "").strip()
    if not query:
        raise SearchQueryEmptyError()
    limit = max(1, min(req.limit or actions.SEARCH_CAP, actions.SEARCH_CAP))
    mine, public = await sync_to_async(actions.search_users)(me, query, limit)
    my_results = [tl_convert.peer_user(uid) for uid in mine]
    results = [tl_convert.peer_user(uid) for uid in public]
    chats: list = []
    user_ids = set(mine) | set(public)
    for provider in peer_search.search_providers():
        hits = await provider(me, query, limit)
        if hits is None:
            continue
        my_results += hits.my_results
        results += hits.results
        chats += hits.chats
        user_ids |= hits.user_ids
    users = await tl_convert.users_to_tl(sorted(user_ids), me)
    return tl_convert.found_to_tl(my_results[:limit], results[:limit], chats, users)


@rpc(functions.contacts.AddContact)
async def add_contact(ctx, req: functions.contacts.AddContact):
    me = viewer_id(ctx)
    user_id = check_input_user(me, req.id)
    await sync_to_async(actions.do_add_contact)(me, user_id, req.first_name, req.last_name)
    users = await tl_convert.users_to_tl([user_id], me)
    return tl_convert.updates_to_tl([tl_convert.peer_settings_update_to_tl(user_id)], users)


def _blocked_target(me: int, input_peer) -> int:
    try:
        return check_input_peer_user(me, input_peer)
    except PeerIdInvalidError:
        raise ContactIdInvalidError() from None


@rpc(functions.contacts.Block)
async def block(ctx, req: functions.contacts.Block):
    me = viewer_id(ctx)
    target = _blocked_target(me, req.id)
    event = await sync_to_async(blocking.do_block)(me, target)
    if event is not None:
        await push_user_updates([event], exclude=own_session(ctx))
        await blocking.changed(me, target, event)
    return True


@rpc(functions.contacts.Unblock)
async def unblock(ctx, req: functions.contacts.Unblock):
    me = viewer_id(ctx)
    target = _blocked_target(me, req.id)
    event = await sync_to_async(blocking.do_unblock)(me, target)
    if event is not None:
        await push_user_updates([event], exclude=own_session(ctx))
        await blocking.changed(me, target, event)
    return True


@rpc(functions.contacts.GetBlocked)
async def get_blocked(ctx, req: functions.contacts.GetBlocked):
    me = viewer_id(ctx)
    page = await sync_to_async(blocking.list_blocked)(me, req.offset, req.limit)
    users = await tl_convert.users_to_tl([uid for uid, _ in page.rows], me)
    return tl_convert_settings.blocked_to_tl(page.rows, page.count, req.offset, users)


@rpc(functions.contacts.ResolvePhone)
async def resolve_phone(ctx, req: functions.contacts.ResolvePhone):
    me = viewer_id(ctx)
    user_id = await sync_to_async(contact_links.resolve_phone)(me, req.phone)
    return tl_convert.resolved_user_to_tl(user_id, await tl_convert.users_to_tl([user_id], me))


@rpc(functions.contacts.ExportContactToken)
async def export_contact_token(ctx, req):
    token, expires = contact_links.export_contact_token(viewer_id(ctx))
    return tl_convert.exported_contact_token_to_tl(token, expires)


@rpc(functions.contacts.ImportContactToken)
async def import_contact_token(ctx, req: functions.contacts.ImportContactToken):
    me = viewer_id(ctx)
    user_id = await sync_to_async(contact_links.import_contact_token)(req.token)
    (user,) = await tl_convert.users_to_tl([user_id], me)
    return user


@rpc(functions.contacts.GetSaved)
async def get_saved(ctx, req):
    rows = await sync_to_async(actions.saved_contacts)(viewer_id(ctx))
    return tl_convert.saved_contacts_to_tl(rows)


@rpc(functions.contacts.GetBirthdays)
async def get_birthdays(ctx, req):
    from accounts_app import account_settings

    me = viewer_id(ctx)
    rows = await sync_to_async(account_settings.contact_birthdays)(me)
    users = await tl_convert.users_to_tl([uid for uid, _ in rows], me)
    return tl_convert.contact_birthdays_to_tl(rows, users)
