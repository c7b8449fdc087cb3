"""messages.getDialogs of a chat folder (folder_id >= 2) as a user notices it: exactly
the folder's chats of both kinds, the folder's pins first, the category switches and
the exclude_* switches applied before the page is cut, the seek cursor paging through
without repeats or gaps, and FOLDER_ID_INVALID for a folder the user has not saved."""

import pytest
from asgiref.sync import sync_to_async

from accounts_app.actions import do_create_user
from channels_app.actions import dialogs as channel_dialogs
from message_core.folder_rule import FolderRule
from tests.channels_app.test_rpc import call, iu
from tl import functions, types
from tl.errors import FolderIdInvalidError, LimitInvalidError


@pytest.fixture
async def world(chan):
    """Ann's chats: groups g1..g3 and a channel (she owns), private chats with Ben, Cat
    (a contact) and Dan, each with a message from the other side (so all unread)."""
    mk = sync_to_async(do_create_user)
    ann, ben, cat, dan = [
        (await mk(f"9996630000{i}", n)).id for i, n in enumerate(["Ann", "Ben", "Cat", "Dan"])
    ]
    peers = {}
    for name, kind in (("g1", "megagroup"), ("g2", "megagroup"), ("g3", "megagroup"), ("news", "broadcast")):
        res = await call(ann, functions.channels.CreateChannel(title=name, about="", **{kind: True}))
        ch = next(c for c in res.chats if isinstance(c, types.Channel))
        ic = types.InputChannel(channel_id=ch.id, access_hash=ch.access_hash)
        if kind == "megagroup":
            await call(ann, functions.channels.InviteToChannel(channel=ic, users=[iu(ann, ben)]))
            await _send(
                ben, types.InputPeerChannel(channel_id=ch.id, access_hash=ch.access_hash), f"hi {name}"
            )
        peers[name] = types.InputPeerChannel(channel_id=ch.id, access_hash=ch.access_hash)
    for name, uid in (("ben", ben), ("cat", cat), ("dan", dan)):
        await _send(
            uid, types.InputPeerUser(user_id=ann, access_hash=iu(uid, ann).access_hash), f"hi from {name}"
        )
        peers[name] = types.InputPeerUser(user_id=uid, access_hash=iu(ann, uid).access_hash)
    await call(ann, functions.contacts.AddContact(id=iu(ann, cat), first_name="Cat", last_name="", phone=""))
    return ann, peers


_seq = iter(range(1, 10**6))


async def _send(user, peer, text):
    await call(user, functions.messages.SendMessage(peer=peer, message=text, random_id=next(_seq)))


def _key(peer) -> tuple[str, int]:
    if isinstance(peer, types.PeerChannel | types.InputPeerChannel):
        return ("c", peer.channel_id)
    return ("p", peer.user_id)


async def _save(ann, fid, **kw):
    kw.setdefault("pinned_peers", [])
    kw.setdefault("include_peers", [])
    kw.setdefault("exclude_peers", [])
    folder = types.DialogFilter(id=fid, title=types.TextWithEntities(text=f"f{fid}", entities=[]), **kw)
    await call(ann, functions.messages.UpdateDialogFilter(id=fid, filter=folder))


async def _dialogs(ann, folder_id, limit=100, **kw):
    return await call(ann, functions.messages.GetDialogs(
        offset_date=kw.pop("offset_date", 0), offset_id=kw.pop("offset_id", 0),
        offset_peer=kw.pop("offset_peer", types.InputPeerEmpty()), limit=limit, hash=0, folder_id=folder_id, **kw,
    ))  # fmt: skip


async def _keys(ann, folder_id, **kw) -> list[tuple[str, int]]:
    res = await _dialogs(ann, folder_id, **kw)
    return [_key(d.peer) for d in res.dialogs]


def _names(peers, keys):
    by_key = {_key(p): n for n, p in peers.items()}
    return [by_key[k] for k in keys]


async def test_folder_lists_its_pins_first_then_its_chats_in_the_main_order(world):
    ann, peers = world
    main = _names(peers, await _keys(ann, 0))
    await _save(ann, 2, pinned_peers=[peers["g3"], peers["dan"]], include_peers=[peers["g1"], peers["ben"]])
    got = _names(peers, await _keys(ann, 2))
    rest = [n for n in main if n in ("g1", "ben")]
    assert got == ["g3", "dan", *rest]
    res = await _dialogs(ann, 2)
    assert isinstance(res, types.messages.Dialogs)  # the whole folder in one page
    named = {_key(types.PeerChannel(channel_id=c.id)) for c in res.chats} | {("p", u.id) for u in res.users}
    assert {_key(d.peer) for d in res.dialogs} <= named
    # The main list is unchanged by the folder.
    assert _names(peers, await _keys(ann, 0)) == main


async def test_folder_pages_with_the_seek_cursor_without_repeats_or_gaps(world):
    ann, peers = world
    await _save(ann, 2, pinned_peers=[peers["cat"], peers["g2"]], groups=True, non_contacts=True)
    whole = await _keys(ann, 2)
    assert set(_names(peers, whole)) == {"cat", "g2", "g1", "g3", "ben", "dan"}
    assert _names(peers, whole)[:2] == ["cat", "g2"]
    seen, kw = [], {}
    for _ in range(10):
        res = await _dialogs(ann, 2, limit=2, **kw)
        if not res.dialogs:
            break
        assert isinstance(res, types.messages.DialogsSlice) and res.count == 6
        seen += [_key(d.peer) for d in res.dialogs]
        last = res.dialogs[-1]
        top = next(m for m in res.messages if _key(m.peer_id) == _key(last.peer) and m.id == last.top_message)
        kw = {"offset_date": top.date, "offset_id": top.id, "offset_peer": _input(peers, last.peer)}
    assert seen == whole


def _input(peers, peer):
    return next(p for p in peers.values() if _key(p) == _key(peer))


async def test_category_switches_and_excluded_peers(world):
    ann, peers = world
    await _save(ann, 2, groups=True, exclude_peers=[peers["g3"]])
    assert set(_names(peers, await _keys(ann, 2))) == {"g1", "g2"}
    await _save(ann, 3, broadcasts=True)
    assert _names(peers, await _keys(ann, 3)) == ["news"]
    await _save(ann, 4, contacts=True)
    assert _names(peers, await _keys(ann, 4)) == ["cat"]
    await _save(ann, 5, non_contacts=True, exclude_peers=[peers["dan"]])
    assert _names(peers, await _keys(ann, 5)) == ["ben"]
    # An included peer is listed even where a switch would drop it.
    await _save(ann, 6, contacts=True, include_peers=[peers["news"]], exclude_read=True)
    await call(ann, functions.messages.ReadHistory(peer=peers["cat"], max_id=10**6))
    assert _names(peers, await _keys(ann, 6)) == ["news"]


async def test_exclude_read_muted_and_archived(world):
    ann, peers = world
    await _save(ann, 2, groups=True, non_contacts=True, contacts=True, exclude_read=True)
    everything = {"g1", "g2", "g3", "ben", "cat", "dan"}
    assert set(_names(peers, await _keys(ann, 2))) == everything
    await call(ann, functions.channels.ReadHistory(
        channel=types.InputChannel(channel_id=peers["g1"].channel_id, access_hash=peers["g1"].access_hash),
        max_id=10**6))  # fmt: skip
    await call(ann, functions.messages.ReadHistory(peer=peers["ben"], max_id=10**6))
    assert set(_names(peers, await _keys(ann, 2))) == everything - {"g1", "ben"}
    # A manual unread mark counts as unread.
    await call(
        ann, functions.messages.MarkDialogUnread(peer=types.InputDialogPeer(peer=peers["g1"]), unread=True)
    )
    assert set(_names(peers, await _keys(ann, 2))) == everything - {"ben"}

    await _save(ann, 3, groups=True, non_contacts=True, contacts=True, exclude_muted=True)
    mute = types.InputPeerNotifySettings(mute_until=2**31 - 1)
    for name in ("g2", "dan"):
        await call(ann, functions.account.UpdateNotifySettings(
            peer=types.InputNotifyPeer(peer=peers[name]), settings=mute))  # fmt: skip
    assert set(_names(peers, await _keys(ann, 3))) == everything - {"g2", "dan"}
    # Muting all private chats by default hides the ones without their own setting.
    await call(ann, functions.account.UpdateNotifySettings(peer=types.InputNotifyUsers(), settings=mute))
    assert set(_names(peers, await _keys(ann, 3))) == {"g1", "g3"}

    await _save(ann, 4, groups=True, contacts=True, exclude_archived=True)
    await call(ann, functions.folders.EditPeerFolders(folder_peers=[
        types.InputFolderPeer(peer=peers["g3"], folder_id=1), types.InputFolderPeer(peer=peers["cat"], folder_id=1)]))  # fmt: skip
    assert set(_names(peers, await _keys(ann, 4))) == {"g1", "g2"}
    # Without exclude_archived a folder takes archived chats too.
    await _save(ann, 5, groups=True, contacts=True)
    assert set(_names(peers, await _keys(ann, 5))) == {"g1", "g2", "g3", "cat"}


async def test_unknown_folder_and_bad_limits(world):
    ann, _ = world
    with pytest.raises(FolderIdInvalidError):
        await _dialogs(ann, 7)
    await _save(ann, 7, groups=True)
    assert len(await _keys(ann, 7)) == 3
    await call(ann, functions.messages.UpdateDialogFilter(id=7))
    with pytest.raises(FolderIdInvalidError):
        await _dialogs(ann, 7)
    with pytest.raises(LimitInvalidError):
        await _dialogs(ann, 0, limit=-1)


async def test_folder_clause_is_applied_before_the_limit(world):
    """The rule is part of the page statement: the LIMITed CTE reads only folder rows."""
    ann, peers = world
    rule = FolderRule(include=frozenset({("c", peers["g2"].channel_id)}), flags={"broadcasts": True})
    page = await channel_dialogs.get_dialogs(ann, limit=1, folder_id=2, rule=rule)
    assert page.count == 2 and len(page.entries) == 1
    sql = channel_dialogs.page_sql(channel_dialogs.FOLDER_WHERE)
    assert sql.index("f_never") < sql.index("LIMIT %(lim)s")
