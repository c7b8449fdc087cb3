"""account.* settings that follow the account to its other devices, account deletion,
changing the phone number, help.getSupport (accounts_app.account_settings,
account_deletion)."""

from __future__ import annotations

from asgiref.sync import sync_to_async
from django.conf import settings as django_settings

from accounts_app import (
    account_deletion,
    account_settings,
    code_delivery,
    confirm_phone,
    login,
    tl_convert,
    tl_convert_account,
    two_step,
)
from accounts_app.actions import USER_PROFILE_UPDATE
from accounts_app.models import Authorization, User
from accounts_app.phones import normalize_phone
from accounts_app.rpc.context import own_session, viewer_id
from accounts_app.tl_convert_settings import srp_proof_from_tl
from accounts_app.updates import append_user_update, do_append_user_update, push_user_updates
from edge_app import registry
from edge_app.registry import rpc
from edge_app.rpc.help import add_config_hook
from tl import functions, types
from tl.errors import ColorInvalidError, HashInvalidError, PhoneNumberOccupiedError, TwofaConfirmWaitError


async def _profile_changed(ctx, user_id: int) -> None:
    """The user's own other sessions refetch it (updateUser); others on their next fetch."""
    await do_append_user_update(user_id, USER_PROFILE_UPDATE, {"user_id": user_id}, exclude=own_session(ctx))


@rpc(functions.account.GetAutoDownloadSettings)
async def get_auto_download_settings(ctx, req):
    return tl_convert_account.auto_download_to_tl(
        await sync_to_async(account_settings.auto_download)(viewer_id(ctx))
    )


@rpc(functions.account.SaveAutoDownloadSettings)
async def save_auto_download_settings(ctx, req: functions.account.SaveAutoDownloadSettings):
    slot = "low" if req.low else "high" if req.high else "medium"
    values = tl_convert_account.auto_download_from_tl(req.settings)
    await sync_to_async(account_settings.do_save_auto_download)(viewer_id(ctx), slot, values)
    return True


@rpc(functions.account.GetGlobalPrivacySettings)
async def get_global_privacy_settings(ctx, req):
    flags = await sync_to_async(account_settings.global_privacy)(viewer_id(ctx))
    return tl_convert_account.global_privacy_to_tl(flags)


@rpc(functions.account.SetGlobalPrivacySettings)
async def set_global_privacy_settings(ctx, req: functions.account.SetGlobalPrivacySettings):
    flags = tl_convert_account.global_privacy_from_tl(req.settings)
    stored = await sync_to_async(account_settings.do_set_global_privacy)(viewer_id(ctx), flags)
    return tl_convert_account.global_privacy_to_tl(stored)


@rpc(functions.account.GetAccountTTL)
async def get_account_ttl(ctx, req):
    return tl_convert_account.account_ttl_to_tl(
        await sync_to_async(account_settings.ttl_days)(viewer_id(ctx))
    )


@rpc(functions.account.SetAccountTTL)
async def set_account_ttl(ctx, req: functions.account.SetAccountTTL):
    await sync_to_async(account_settings.do_set_account_ttl)(viewer_id(ctx), req.ttl.days)
    return True


@rpc(functions.account.UpdateBirthday)
async def update_birthday(ctx, req: functions.account.UpdateBirthday):
    me = viewer_id(ctx)
    await sync_to_async(account_settings.do_update_birthday)(
        me, tl_convert_account.birthday_from_tl(req.birthday)
    )
    await _profile_changed(ctx, me)
    return True


@rpc(functions.account.UpdateColor)
async def update_color(ctx, req: functions.account.UpdateColor):
    me = viewer_id(ctx)
    if req.color is not None and not isinstance(req.color, types.PeerColor):
        raise ColorInvalidError()  # collectible colours: there are no collectibles here
    color, emoji = tl_convert_account.color_from_tl(req.color)
    await sync_to_async(account_settings.do_update_color)(
        me, for_profile=bool(req.for_profile), color=color, background_emoji_id=emoji
    )
    await _profile_changed(ctx, me)
    return True


@rpc(functions.account.DeleteAccount)
async def delete_account(ctx, req: functions.account.DeleteAccount):
    me = viewer_id(ctx)
    parts = srp_proof_from_tl(req.password) if req.password is not None else None
    proof = two_step.SrpProof(*parts) if parts else None
    try:
        result = await sync_to_async(account_deletion.do_delete_account)(me, proof)
    except TwofaConfirmWaitError:
        # As Telegram does: the owner's chats get a "was it you?" link that stops it.
        link = await sync_to_async(confirm_phone.confirm_phone_link)(me)
        if link:
            await code_delivery.send_service_text(
                me, f"Your account is scheduled for deletion. If this was not you, open {link}"
            )
        raise
    await account_deletion.announce(result)
    return True


@rpc(functions.account.SendConfirmPhoneCode)
async def send_confirm_phone_code(ctx, req: functions.account.SendConfirmPhoneCode):
    code = await sync_to_async(confirm_phone.do_send_confirm_phone_code)(viewer_id(ctx), req.hash)
    via, email_pattern = await code_delivery.deliver(code, "sent to confirm the number", in_app=False)
    return tl_convert.sent_code_to_tl(code, via, email_pattern)


@rpc(functions.account.ConfirmPhone)
async def confirm_phone_number(ctx, req: functions.account.ConfirmPhone):
    await sync_to_async(confirm_phone.do_confirm_phone)(viewer_id(ctx), req.phone_code_hash, req.phone_code)
    return True


@rpc(functions.account.SendChangePhoneCode)
async def send_change_phone_code(ctx, req: functions.account.SendChangePhoneCode):
    phone = normalize_phone(req.phone_number)
    if await User.objects.filter(phone=phone).aexists():
        raise PhoneNumberOccupiedError()
    code = await sync_to_async(login.do_send_code)(phone)
    via, email_pattern = await code_delivery.deliver(code, "sent", in_app=False)
    return tl_convert.sent_code_to_tl(code, via, email_pattern)


@rpc(functions.account.ChangePhone)
async def change_phone(ctx, req: functions.account.ChangePhone):
    me = viewer_id(ctx)
    await sync_to_async(login.do_change_phone)(me, req.phone_number, req.phone_code_hash, req.phone_code)
    event = await sync_to_async(append_user_update)(me, USER_PROFILE_UPDATE, {"user_id": me})
    await push_user_updates([event], exclude=own_session(ctx))
    (user,) = await tl_convert.users_to_tl([me], me)
    return user


@rpc(functions.help.GetSupport)
async def get_support(ctx, req):
    me = viewer_id(ctx)
    support = await sync_to_async(support_user)()
    (user,) = await tl_convert.users_to_tl([support.id], me)
    return tl_convert_account.support_to_tl("+" + support.phone, user)


def support_user() -> User:
    """The account operators answer support questions from (SUPPORT_PHONE), else the
    built-in service account."""
    phone = getattr(django_settings, "SUPPORT_PHONE", "")
    user = User.objects.filter(phone=normalize_phone(phone), deleted=False).first() if phone else None
    return user or code_delivery.ensure_service_user()


@add_config_hook
async def _own_default_reaction(ctx, config) -> None:
    if getattr(ctx, "perm_auth_key_id", None) is None:
        return  # no key: nobody to personalise for
    user_id = await registry.authorize(ctx)
    if user_id is not None:
        reaction = await sync_to_async(account_settings.default_reaction)(user_id)
        config.reactions_default = tl_convert_account.reaction_to_tl(reaction)


@rpc(functions.account.GetContentSettings)
async def get_content_settings(ctx, req):
    row = await sync_to_async(account_settings.get)(viewer_id(ctx))
    return tl_convert_account.content_settings_to_tl(row.sensitive_enabled)


@rpc(functions.account.SetContentSettings)
async def set_content_settings(ctx, req: functions.account.SetContentSettings):
    await sync_to_async(account_settings.do_set_sensitive_enabled)(
        viewer_id(ctx), bool(req.sensitive_enabled)
    )
    return True


@rpc(functions.account.SetAuthorizationTTL)
async def set_authorization_ttl(ctx, req: functions.account.SetAuthorizationTTL):
    await sync_to_async(account_settings.do_set_authorization_ttl)(viewer_id(ctx), req.authorization_ttl_days)
    return True


@rpc(functions.account.ChangeAuthorizationSettings)
async def change_authorization_settings(ctx, req: functions.account.ChangeAuthorizationSettings):
    """The "new login" notice confirmed. The per-device call switch is not stored (every
    device is rung) and secret chats do not exist here. HASH_INVALID for another user's
    session."""
    me = viewer_id(ctx)
    exists = await Authorization.objects.filter(user_id=me, hash=req.hash).aexists()
    if not exists and req.hash != 0:
        raise HashInvalidError()
    return True


@rpc(functions.account.ResetWebAuthorization)
async def reset_web_authorization(ctx, req):
    viewer_id(ctx)
    raise HashInvalidError()  # there are no web logins to end
