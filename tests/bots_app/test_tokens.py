"""Bot accounts: creation rules, token checks and revocation, deletion."""

from __future__ import annotations

import pytest

from accounts_app.login import DeviceInfo
from accounts_app.models import Authorization, User
from bots_app import actions
from tl.errors import (
    AccessTokenExpiredError,
    AccessTokenInvalidError,
    BotInvalidError,
    BotsTooMuchError,
    UserBotError,
    UsernameInvalidError,
    UsernameOccupiedError,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def owner():
    return User.objects.create(phone="15550001111", first_name="Owner")


def test_created_bot_renders_as_a_bot_and_its_token_logs_in(owner):
    created = actions.do_create_bot(owner.id, "Helper", "helper_bot")
    assert created.token.startswith(f"{created.user.id}:")
    user = User.objects.get(id=created.user.id)
    assert user.bot == {"v": 1, "nochats": False, "history": False, "placeholder": None, "main_app": False}
    assert actions.check_token(created.token) == user.id
    # Only the hash is kept.
    secret = created.token.split(":", 1)[1]
    assert secret not in created.bot.token_hash


@pytest.mark.parametrize("username", ["helper", "abot", "has space_bot", "_xbot", "Helper_"])
def test_bot_usernames_follow_telegrams_rule(owner, username):
    with pytest.raises(UsernameInvalidError):
        actions.do_create_bot(owner.id, "Helper", username)
    assert not User.objects.filter(bot__isnull=False).exists()


def test_taken_names_are_refused_case_insensitively(owner):
    actions.do_create_bot(owner.id, "One", "TwinBot")
    with pytest.raises(UsernameOccupiedError):
        actions.do_create_bot(owner.id, "Two", "twinbot")


def test_bots_cannot_own_bots_and_owners_are_capped(owner, settings):
    created = actions.do_create_bot(owner.id, "Helper", "helper_bot")
    with pytest.raises(UserBotError):
        actions.do_create_bot(created.user.id, "Child", "child_bot")
    settings.BOTS_PER_OWNER = 2
    actions.do_create_bot(owner.id, "Second", "second_bot")
    with pytest.raises(BotsTooMuchError):
        actions.do_create_bot(owner.id, "Third", "third_bot")


def test_revoked_token_is_expired_and_logs_sessions_out(owner):
    created = actions.do_create_bot(owner.id, "Helper", "helper_bot")
    actions.do_import_bot_authorization(1234, created.token, DeviceInfo())
    assert Authorization.objects.filter(perm_auth_key_id=1234, user_id=created.user.id).exists()

    revoked = actions.do_revoke_token(owner.id, created.user.id)
    assert revoked.logged_out == [1234]
    assert not Authorization.objects.filter(user_id=created.user.id).exists()
    with pytest.raises(AccessTokenExpiredError):
        actions.check_token(created.token)
    assert actions.check_token(revoked.token) == created.user.id


@pytest.mark.parametrize("token", ["", "abc", "123", "123:", ":secret", "x:y"])
def test_malformed_tokens_are_invalid(token):
    with pytest.raises(AccessTokenInvalidError):
        actions.check_token(token)


def test_wrong_secret_and_other_owners_are_refused(owner):
    created = actions.do_create_bot(owner.id, "Helper", "helper_bot")
    with pytest.raises(AccessTokenInvalidError):
        actions.check_token(f"{created.user.id}:AAnot-the-secret")
    stranger = User.objects.create(phone="15550002222", first_name="Stranger")
    with pytest.raises(BotInvalidError):
        actions.do_revoke_token(stranger.id, created.user.id)


def test_deactivated_and_deleted_bots_cannot_log_in(owner):
    created = actions.do_create_bot(owner.id, "Helper", "helper_bot")
    actions.do_import_bot_authorization(77, created.token, DeviceInfo())
    assert actions.do_set_bot_deactivated(created.user.id, True) == [77]
    with pytest.raises(AccessTokenInvalidError):
        actions.check_token(created.token)
    actions.do_set_bot_deactivated(created.user.id, False)
    assert actions.check_token(created.token) == created.user.id

    actions.do_delete_bot(owner.id, created.user.id)
    with pytest.raises(AccessTokenInvalidError):
        actions.check_token(created.token)
    user = User.objects.get(id=created.user.id)
    assert user.deleted and user.username is None
    # The name is free again.
    actions.do_create_bot(owner.id, "Again", "helper_bot")


def test_settings_bump_the_info_version_and_the_snapshot(owner):
    created = actions.do_create_bot(owner.id, "Helper", "helper_bot")
    actions.do_set_privacy(owner.id, created.user.id, False)
    actions.do_set_join_groups(owner.id, created.user.id, False)
    actions.do_set_inline(owner.id, created.user.id, "Search...")
    snap = User.objects.get(id=created.user.id).bot
    assert snap == {"v": 4, "nochats": True, "history": True, "placeholder": "Search...", "main_app": False}
