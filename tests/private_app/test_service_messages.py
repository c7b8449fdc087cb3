"""Private service messages (a Mini App's keyboard data sent to a bot): each side sees
its own action, in history too; they are neither edited nor forwarded."""

import pytest
from asgiref.sync import sync_to_async

from accounts_app.actions import do_create_user
from private_app import actions
from private_app import tl_convert as private_tl
from tl import types
from tl.errors import MessageIdInvalidError

pytestmark = pytest.mark.django_db(transaction=True)

ACTION = {"type": "web_view_data", "text": "Order", "data": '{"tea": 2}'}


@pytest.fixture
async def users(chan):
    mk = sync_to_async(do_create_user)
    a = await mk("99966200011", "Alice")
    b = await mk("99966200012", "Bob")
    return a.id, b.id


async def test_each_side_sees_its_own_action_and_it_cannot_be_edited_or_forwarded(users):
    a, b = users
    change = await actions.do_send_private_service(a, b, ACTION, 101)
    (mine,) = change.messages
    shown = private_tl.message_to_tl(mine)
    assert isinstance(shown, types.MessageService) and shown.out
    assert shown.action == types.MessageActionWebViewDataSent(text="Order")

    (theirs,) = (await sync_to_async(actions.load_boxes)(b, [1])).values()
    got = private_tl.message_to_tl(theirs)
    assert not got.out
    assert got.action == types.MessageActionWebViewDataSentMe(text="Order", data='{"tea": 2}')

    with pytest.raises(MessageIdInvalidError):
        await actions.do_edit_private_message(a, b, mine["id"], "changed", None)
    with pytest.raises(MessageIdInvalidError):
        await actions.get_forwardable(a, b, [mine["id"]])
