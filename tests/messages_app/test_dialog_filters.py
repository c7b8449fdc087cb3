"""Chat folders as a user notices them: saved with checked peers, listed in order with
"All chats", replayed to the owner's other devices, refused with Telegram's errors."""

import pytest
from asgiref.sync import sync_to_async

from accounts_app import updates
from accounts_app.actions import do_create_user
from tests.channels_app.test_rpc import call, iu
from tl import functions, types
from tl.errors import (
    ChannelPrivateError,
    DialogFiltersTooMuchError,
    FilterIdInvalidError,
    FilterIncludeEmptyError,
    FilterTitleEmptyError,
    LimitInvalidError,
    MessageTooLongError,
)


@pytest.fixture
async def people(chan):
    mk = sync_to_async(do_create_user)
    return (await mk("99966190001", "Ann")).id, (await mk("99966190002", "Ben")).id


def _folder(fid, title="Work", **kw):
    kw.setdefault("pinned_peers", [])
    kw.setdefault("include_peers", [])
    kw.setdefault("exclude_peers", [])
    return types.DialogFilter(id=fid, title=types.TextWithEntities(text=title, entities=[]), **kw)


async def test_folders_are_saved_listed_ordered_and_replayed(people):
    ann, ben = people
    res = await call(ann, functions.channels.CreateChannel(title="team", about="", megagroup=True))
    ch = next(c for c in res.chats if isinstance(c, types.Channel))
    chan_peer = types.InputPeerChannel(channel_id=ch.id, access_hash=ch.access_hash)
    ben_peer = types.InputPeerUser(user_id=ben, access_hash=iu(ann, ben).access_hash)
    pts0 = (await sync_to_async(updates.get_state)(ann)).pts
    await call(ann, functions.messages.UpdateDialogFilter(id=2, filter=_folder(
        2, pinned_peers=[chan_peer], include_peers=[ben_peer], emoticon="💼", exclude_read=True)))  # fmt: skip
    await call(ann, functions.messages.UpdateDialogFilter(id=3, filter=_folder(3, "Chans", broadcasts=True)))
    got = await call(ann, functions.messages.GetDialogFilters())
    assert [type(f).__name__ for f in got.filters] == ["DialogFilterDefault", "DialogFilter", "DialogFilter"]
    work = got.filters[1]
    assert work.title.text == "Work" and work.emoticon == "💼" and work.exclude_read
    assert work.pinned_peers == [chan_peer] and work.include_peers == [ben_peer]
    assert got.filters[2].broadcasts and not got.filters[2].groups

    await call(ann, functions.messages.UpdateDialogFiltersOrder(order=[3, 0, 2]))
    got = await call(ann, functions.messages.GetDialogFilters())
    assert [getattr(f, "id", 0) for f in got.filters] == [3, 0, 2]

    await call(ann, functions.messages.UpdateDialogFilter(id=3))  # deleted
    got = await call(ann, functions.messages.GetDialogFilters())
    assert [getattr(f, "id", 0) for f in got.filters] == [0, 2]

    # The other devices replay every change, peers included so they can show them.
    diff = await call(ann, functions.updates.GetDifference(pts=pts0, date=0, qts=0))
    kinds = [type(u).__name__ for u in diff.other_updates]
    assert kinds.count("UpdateDialogFilter") == 3 and "UpdateDialogFilterOrder" in kinds
    first = next(u for u in diff.other_updates if isinstance(u, types.UpdateDialogFilter))
    assert first.id == 2 and first.filter.pinned_peers == [chan_peer]
    assert ch.id in {c.id for c in diff.chats} and ben in {u.id for u in diff.users}
    deleted = [u for u in diff.other_updates if isinstance(u, types.UpdateDialogFilter) and u.id == 3][-1]
    assert deleted.filter is None


async def test_folder_errors(people):
    ann, ben = people
    with pytest.raises(FilterIdInvalidError):
        await call(ann, functions.messages.UpdateDialogFilter(id=1, filter=_folder(1, contacts=True)))
    with pytest.raises(FilterTitleEmptyError):
        await call(ann, functions.messages.UpdateDialogFilter(id=2, filter=_folder(2, " ", contacts=True)))
    with pytest.raises(FilterIncludeEmptyError):
        await call(ann, functions.messages.UpdateDialogFilter(id=2, filter=_folder(2, exclude_muted=True)))
    with pytest.raises(MessageTooLongError):
        await call(
            ann, functions.messages.UpdateDialogFilter(id=2, filter=_folder(2, "x" * 13, contacts=True))
        )
    # 12 UTF-16 units is the most a title holds, as clients cut it.
    await call(ann, functions.messages.UpdateDialogFilter(id=2, filter=_folder(2, "x" * 12, contacts=True)))
    await call(ann, functions.messages.UpdateDialogFilter(id=2))
    ben_peer = types.InputPeerUser(user_id=ben, access_hash=iu(ann, ben).access_hash)
    with pytest.raises(LimitInvalidError):  # more than 100 chats in one list
        await call(
            ann,
            functions.messages.UpdateDialogFilter(id=2, filter=_folder(2, include_peers=[ben_peer] * 101)),
        )
    wrong = types.InputPeerUser(user_id=ben, access_hash=iu(ann, ben).access_hash + 1)
    with pytest.raises(Exception) as e:
        await call(ann, functions.messages.UpdateDialogFilter(id=2, filter=_folder(2, include_peers=[wrong])))
    assert "PEER_ID_INVALID" in str(e.value)
    res = await call(ben, functions.channels.CreateChannel(title="secret", about="", broadcast=True))
    ch = next(c for c in res.chats if isinstance(c, types.Channel))
    bad_channel = types.InputPeerChannel(channel_id=ch.id, access_hash=ch.access_hash ^ 1)
    with pytest.raises(ChannelPrivateError):
        await call(
            ann, functions.messages.UpdateDialogFilter(id=2, filter=_folder(2, include_peers=[bad_channel]))
        )
    # The right hash of a private channel Ann is not in still names a chat she cannot see.
    unseen = types.InputPeerChannel(channel_id=ch.id, access_hash=ch.access_hash)
    with pytest.raises(ChannelPrivateError):
        await call(ann, functions.messages.UpdateDialogFilter(id=2, filter=_folder(2, exclude_peers=[unseen],
                                                                                  contacts=True)))  # fmt: skip
    assert [
        getattr(f, "id", 0) for f in (await call(ann, functions.messages.GetDialogFilters())).filters
    ] == [0]
    for fid in range(2, 12):
        await call(ann, functions.messages.UpdateDialogFilter(id=fid, filter=_folder(fid, contacts=True)))
    with pytest.raises(DialogFiltersTooMuchError):
        await call(ann, functions.messages.UpdateDialogFilter(id=12, filter=_folder(12, contacts=True)))
    suggested = await call(ann, functions.messages.GetSuggestedDialogFilters())
    assert [s.filter.title.text for s in suggested] == ["Unread", "Personal", "Groups", "Channels"]


async def test_suggestions_leave_out_the_folders_one_has(people):
    ann, _ = people
    suggested = await call(ann, functions.messages.GetSuggestedDialogFilters())
    groups = next(s.filter for s in suggested if s.filter.title.text == "Groups")
    assert groups.groups and not (groups.broadcasts or groups.contacts or groups.include_peers)
    unread = next(s.filter for s in suggested if s.filter.title.text == "Unread")
    assert unread.exclude_read and unread.contacts and unread.groups and unread.broadcasts
    # Taking a suggestion as it is offered (what clients do) removes it from the offer.
    groups.id = 2
    await call(ann, functions.messages.UpdateDialogFilter(id=2, filter=groups))
    suggested = await call(ann, functions.messages.GetSuggestedDialogFilters())
    assert [s.filter.title.text for s in suggested] == ["Unread", "Personal", "Channels"]
