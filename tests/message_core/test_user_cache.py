"""The short-lived cache of users as each viewer sees them (message_core.context): a
change of how a user renders (contacts, blocks, privacy, profile) is seen at once, not
when the entry expires; and its misses, read in one statement on the loop's pool
(accounts_app.user_views), render every user as the ORM reading does."""

from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async
from django.utils import timezone

from accounts_app import actions, blocking, privacy, user_views
from accounts_app.deactivation import do_deactivate_user
from accounts_app.models import User
from accounts_app.tl_convert import users_to_tl_on, users_to_tl_sync
from message_core import db
from message_core.context import users_for
from tl import types

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
async def _close_pool():
    yield
    await db.close_pools()


async def test_contact_block_privacy_and_name_changes_reach_the_next_rendering():
    a = await sync_to_async(actions.do_create_user)("99966300001", "Ann")
    b = await sync_to_async(actions.do_create_user)("99966300002", "Ben")
    (ben,) = await users_for(a.id, [b.id])
    assert not ben.contact and ben.status is not None

    await sync_to_async(actions.do_add_contact)(a.id, b.id, "Benjamin", "")
    (ben,) = await users_for(a.id, [b.id])
    assert ben.contact
    (ann,) = await users_for(b.id, [a.id])
    await sync_to_async(actions.do_add_contact)(b.id, a.id, "Ann", "")
    (ann,) = await users_for(b.id, [a.id])
    assert ann.contact and ann.mutual_contact and ann.phone  # phone: contacts by default

    await sync_to_async(blocking.do_block)(b.id, a.id)  # Ben's last-seen hides from Ann
    (ben,) = await users_for(a.id, [b.id])
    assert ben.status is None

    await sync_to_async(privacy.do_set_rules)(a.id, privacy.PHONE_NUMBER, [{"t": "disallow_all"}])
    (ann,) = await users_for(b.id, [a.id])
    assert not ann.phone

    await sync_to_async(actions.do_update_profile)(b.id, first_name="Benedict")
    (ben,) = await users_for(a.id, [b.id])
    assert ben.first_name == "Benedict"


def _people():
    """A viewer and users covering every flag a rendering reads."""
    me = actions.do_create_user("99966300101", "Vic")
    friend = actions.do_create_user("99966300102", "Fay", username="fay_friend")  # mutual contact
    actions.do_add_contact(me.id, friend.id, "Fay", "")
    actions.do_add_contact(friend.id, me.id, "Vic", "")
    fan = actions.do_create_user("99966300103", "Fan")  # has me, I do not have them
    actions.do_add_contact(fan.id, me.id, "Vic", "")
    blocker = actions.do_create_user("99966300104", "Bo")  # blocked me
    blocking.do_block(blocker.id, me.id)
    hidden = actions.do_create_user("99966300105", "Hal")  # hides last-seen, shows me the phone
    privacy.do_set_rules(hidden.id, privacy.STATUS, [{"t": "disallow_all"}])
    privacy.do_set_rules(hidden.id, privacy.PHONE_NUMBER, [{"t": "allow_users", "ids": [me.id]}])
    User.objects.filter(id=hidden.id).update(online_until=timezone.now() + timedelta(minutes=5))
    online = actions.do_create_user("99966300106", "Ola")
    User.objects.filter(id=online.id).update(online_until=timezone.now() + timedelta(minutes=5))
    gone = actions.do_create_user("99966300107", "Gus")
    do_deactivate_user(gone.id)
    by_chat = actions.do_create_user("99966300108", "Cy")  # a rule naming chats
    privacy.do_set_rules(by_chat.id, privacy.STATUS, [{"t": "allow_chats", "ids": [777]}])
    ids = [me.id, friend.id, fan.id, blocker.id, hidden.id, online.id, gone.id, by_chat.id]
    return me.id, ids, by_chat.id


async def test_one_statement_renders_every_user_as_the_orm_does(monkeypatch):
    me, ids, by_chat = await sync_to_async(_people)()
    want = await sync_to_async(users_to_tl_sync)([*ids, 987654321], me)
    assert [u.id for u in want] == ids  # unknown ids dropped, order kept
    async with db.connection() as conn:
        got = await users_to_tl_on(conn, [*ids, 987654321], me)
    assert [u.to_bytes() for u in got] == [u.to_bytes() for u in want]
    seen = {u.id: u for u in got}
    assert seen[ids[1]].mutual_contact and seen[ids[1]].phone  # the sample covers the flags
    assert seen[ids[3]].status is None  # blocked me: no last-seen at all
    assert isinstance(seen[ids[4]].status, types.UserStatusRecently) and seen[ids[4]].phone
    assert isinstance(seen[ids[5]].status, types.UserStatusOnline) and seen[ids[6]].deleted

    # Only users whose rules name chats leave the loop for the ORM's thread.
    threaded = []
    real = user_views.in_thread

    def spy(fn):
        async def run(user_ids, viewer_id):
            threaded.append(list(user_ids))
            return await real(fn)(user_ids, viewer_id)

        return run

    monkeypatch.setattr(user_views, "in_thread", spy)
    async with db.connection() as conn:
        await users_to_tl_on(conn, ids, me)
    assert threaded == [[by_chat]]
