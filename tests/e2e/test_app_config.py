"""help.getAppConfig with strings, arrays and objects, and Telegram's "nothing here"
answers for the features the web apps ask about at start-up, through Telethon."""

from __future__ import annotations

import json

import pytest

from tests.e2e.test_channels import input_user, logged_in

pytestmark = pytest.mark.django_db(transaction=True)


async def test_app_config_and_empty_feature_answers(edge_server, edge_db, clients):
    from telethon import functions, types

    alice, a, _phone, _code = await logged_in(edge_server, "Alice", clients)
    bob, _b, _p, _c = await logged_in(edge_server, "Bob", clients)

    config = await a(functions.help.GetAppConfigRequest(hash=0))
    values = {item.key: item.value for item in config.config.value}
    assert (
        isinstance(values["fragment_prefixes"], types.JsonArray) and values["fragment_prefixes"].value == []
    )
    assert isinstance(values["premium_bot_username"], types.JsonString)
    assert isinstance(values["round_video_encoding"], types.JsonObject)
    assert isinstance(values["premium_purchase_blocked"], types.JsonBool)
    again = await a(functions.help.GetAppConfigRequest(hash=config.hash))
    assert isinstance(again, types.help.AppConfigNotModified)

    options = await a(functions.auth.InitPasskeyLoginRequest(api_id=a.api_id, api_hash=a.api_hash))
    public_key = json.loads(options.options.data)["publicKey"]
    assert public_key["allowCredentials"] == [] and public_key["challenge"]

    stories = await a(functions.stories.GetPeerStoriesRequest(peer=input_user(alice, bob)))
    assert stories.stories.stories == [] and stories.stories.peer.user_id == bob.id
    assert [u.id for u in stories.users] == [bob.id]

    status = await a(functions.payments.GetStarsStatusRequest(peer=types.InputPeerSelf()))
    assert status.balance.amount == 0
    assert await a(functions.payments.GetPremiumGiftCodeOptionsRequest()) == []
