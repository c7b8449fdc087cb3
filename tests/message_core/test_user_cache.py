"""The short-lived cache of users as each viewer sees them (message_core.context): a
change of how a user renders (contacts, blocks, privacy, profile) is seen at once, not
when the entry expires."""

import pytest
from asgiref.sync import sync_to_async

from accounts_app import actions, blocking, privacy
from message_core.context import users_for

pytestmark = pytest.mark.django_db(transaction=True)


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
