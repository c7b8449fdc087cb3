"""account.getPrivacy / setPrivacy."""

from __future__ import annotations

from asgiref.sync import sync_to_async

from accounts_app import privacy, tl_convert, tl_convert_settings
from accounts_app.access import check_input_user
from accounts_app.rpc.context import own_session, viewer_id
from accounts_app.updates import push_user_updates
from edge_app.registry import rpc
from tl import functions
from tl.errors import PrivacyKeyInvalidError


def _key(input_key) -> str:
    key = tl_convert_settings.privacy_key_from_tl(input_key)
    if key is None:
        raise PrivacyKeyInvalidError()
    return key


async def _answer(me: int, rules: list[dict]):
    user_ids, chat_ids = privacy.referenced_ids(rules)
    users = await tl_convert.users_to_tl(user_ids, me)
    chats = await privacy.chats_to_tl(me, chat_ids) if chat_ids else []
    return tl_convert_settings.privacy_rules_to_tl(rules, chats, users)


@rpc(functions.account.GetPrivacy)
async def get_privacy(ctx, req: functions.account.GetPrivacy):
    me = viewer_id(ctx)
    rules = await sync_to_async(privacy.get_rules)(me, _key(req.key))
    return await _answer(me, rules)


@rpc(functions.account.SetPrivacy)
async def set_privacy(ctx, req: functions.account.SetPrivacy):
    me = viewer_id(ctx)
    key = _key(req.key)
    wanted = tl_convert_settings.privacy_rules_from_tl(
        req.rules[: privacy.RULES_MAX], lambda u: check_input_user(me, u)
    )
    rules, event = await sync_to_async(privacy.do_set_rules)(me, key, wanted)
    await push_user_updates([event], exclude=own_session(ctx))
    return await _answer(me, rules)
