"""The console's bots page: bots with their owners, token revocation and switching a
bot off through the domain actions (its sessions are logged out)."""

from __future__ import annotations

import pytest

from accounts_app.login import DeviceInfo
from accounts_app.models import Authorization, User
from bots_app import actions
from tl.errors import AccessTokenExpiredError, AccessTokenInvalidError

pytestmark = pytest.mark.django_db


@pytest.fixture
def bot():
    owner = User.objects.create(phone="15550003333", first_name="Owner", username="the_owner")
    created = actions.do_create_bot(owner.id, "Helper", "console_helper_bot")
    actions.do_import_bot_authorization(4242, created.token, DeviceInfo())
    return created


def test_bots_are_listed_with_their_owner_and_no_token(admin_client, bot):
    page = admin_client.get("/admin/bots_app/bot/")
    assert page.status_code == 200
    assert b"@console_helper_bot" in page.content and b"Owner" in page.content
    detail = admin_client.get(f"/admin/bots_app/bot/{bot.user.id}/change/")
    assert detail.status_code == 200
    assert bot.bot.token_hash.encode() not in detail.content
    assert bot.token.split(":")[1].encode() not in detail.content


def test_operator_revokes_the_token_and_switches_the_bot_off(admin_client, bot):
    url = "/admin/bots_app/bot/"
    answer = admin_client.post(url, {"action": "revoke_token", "_selected_action": [bot.user.id]})
    assert answer.status_code == 302
    assert not Authorization.objects.filter(user_id=bot.user.id).exists()
    with pytest.raises(AccessTokenExpiredError):
        actions.check_token(bot.token)

    admin_client.post(url, {"action": "deactivate", "_selected_action": [bot.user.id]})
    revoked = actions.do_revoke_token(None, bot.user.id)
    with pytest.raises(AccessTokenInvalidError):
        actions.check_token(revoked.token)
    admin_client.post(url, {"action": "reactivate", "_selected_action": [bot.user.id]})
    assert actions.check_token(revoked.token) == bot.user.id
