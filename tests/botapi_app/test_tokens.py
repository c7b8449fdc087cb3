"""The Bot API's token cache: a good token is answered from memory, and a revoked
token, a switched-off or deleted bot stops working at once (bots_app announces it)."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async

from accounts_app.models import User
from botapi_app import tokens
from botapi_app.errors import Unauthorized
from bots_app import actions
from edge_app import push
from message_core import db

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
async def announced(monkeypatch):
    """The announcements bots_app makes, handed to the Bot API's subscriber as the
    broadcast channel would; the pooled connections are closed after the test (the
    test database goes away after the module)."""
    heard: list[tuple[str, dict]] = []
    monkeypatch.setattr(push, "publish_soon", lambda kind, payload: heard.append((kind, payload)))
    tokens._bots.clear()
    yield heard
    tokens._bots.clear()
    await db.close_pools()


async def _deliver(heard):
    for kind, payload in heard:
        for fn in push._subscribers.get(kind, ()):
            await fn(payload, None)
    heard.clear()


def _bot(username: str):
    owner = User.objects.create(phone=f"1555{abs(hash(username)) % 10**7:07d}", first_name="Owner")
    return actions.do_create_bot(owner.id, "Helper", username)


@pytest.mark.parametrize("change", ["revoke", "switch_off", "delete"])
async def test_a_cached_token_stops_working_when_the_bot_changes(announced, change):
    created = await sync_to_async(_bot)(f"cache_{change}_bot")
    bot_id = created.user.id
    assert await tokens.bot_of(created.token) == bot_id
    assert created.token in tokens._bots  # answered from memory from now on

    if change == "revoke":
        new = (await sync_to_async(actions.do_revoke_token)(None, bot_id)).token
    elif change == "switch_off":
        await sync_to_async(actions.do_set_bot_deactivated)(bot_id, True)
    else:
        await sync_to_async(actions.do_delete_bot)(None, bot_id)
    assert announced == [(actions.TOKEN_CHANGED, {"bot_id": bot_id})]
    await _deliver(announced)

    with pytest.raises(Unauthorized):
        await tokens.bot_of(created.token)
    if change == "revoke":
        assert await tokens.bot_of(new) == bot_id


async def test_malformed_and_unknown_tokens_are_refused_and_not_kept(announced):
    for token in ("", "nocolon", "12:", "abc:def", "999999999:AAsecret"):
        with pytest.raises(Unauthorized):
            await tokens.bot_of(token)
    assert tokens._bots == {}
