"""bots.*: commands, info and menu button of a bot (called by the bot itself, or by its
owner naming it where the method takes a ``bot``), creating bots and their tokens."""

from __future__ import annotations

from accounts_app import tl_convert as accounts_tl
from accounts_app.access import check_input_user
from accounts_app.rpc.context import viewer_id
from bots_app import actions, tl_convert
from bots_app.access import acting_bot, calling_bot, scope_key
from edge_app import registry
from edge_app.orm_threads import in_thread
from edge_app.registry import rpc
from tl import functions, types
from tl.errors import UserIdInvalidError

MENU_DEFAULT = None


def _commands(req_commands) -> list[dict]:
    return [
        {"command": c.command, "description": c.description} for c in req_commands[: actions.COMMANDS_MAX + 1]
    ]


@rpc(functions.bots.SetBotCommands)
async def set_bot_commands(ctx, req: functions.bots.SetBotCommands):
    me = viewer_id(ctx)
    await calling_bot(me)
    await in_thread(actions.do_set_commands)(
        None, me, scope_key(me, req.scope), req.lang_code, _commands(req.commands)
    )
    return True


@rpc(functions.bots.ResetBotCommands)
async def reset_bot_commands(ctx, req: functions.bots.ResetBotCommands):
    me = viewer_id(ctx)
    await calling_bot(me)
    await in_thread(actions.do_set_commands)(None, me, scope_key(me, req.scope), req.lang_code, [])
    return True


@rpc(functions.bots.GetBotCommands)
async def get_bot_commands(ctx, req: functions.bots.GetBotCommands):
    me = viewer_id(ctx)
    await calling_bot(me)
    commands = await in_thread(actions.get_commands)(me, scope_key(me, req.scope), req.lang_code)
    return tl_convert.commands_to_tl(commands)


@rpc(functions.bots.SetBotInfo)
async def set_bot_info(ctx, req: functions.bots.SetBotInfo):
    owner, bot_id = await acting_bot(viewer_id(ctx), req.bot)
    await in_thread(actions.do_set_bot_info)(
        owner, bot_id, lang_code=req.lang_code, name=req.name, about=req.about, description=req.description
    )
    return True


@rpc(functions.bots.GetBotInfo)
async def get_bot_info(ctx, req: functions.bots.GetBotInfo):
    owner, bot_id = await acting_bot(viewer_id(ctx), req.bot)
    bot = await in_thread(actions.owned_bot)(owner, bot_id)
    return tl_convert.bots_bot_info_to_tl(bot, req.lang_code)


def _menu_button(button) -> dict | None:
    if isinstance(button, types.BotMenuButtonCommands):
        return {"commands": True}
    if isinstance(button, types.BotMenuButton):
        return {"text": button.text, "url": button.url}
    return MENU_DEFAULT


@rpc(functions.bots.SetBotMenuButton)
async def set_bot_menu_button(ctx, req: functions.bots.SetBotMenuButton):
    # Per-user menu buttons are not kept: the bot's default button is set whoever is named.
    me = viewer_id(ctx)
    await calling_bot(me)
    await in_thread(actions.do_set_menu_button)(None, me, _menu_button(req.button))
    return True


@rpc(functions.bots.GetBotMenuButton)
async def get_bot_menu_button(ctx, req: functions.bots.GetBotMenuButton):
    me = viewer_id(ctx)
    bot = await calling_bot(me)
    return tl_convert.menu_button_to_tl(bot.menu_button)


@rpc(functions.bots.CreateBot)
async def create_bot(ctx, req: functions.bots.CreateBot):
    me = viewer_id(ctx)
    owner = check_input_user(me, req.manager_id)
    if owner != me:
        # Bots are created for oneself only (managed bots are not supported).
        raise UserIdInvalidError()
    created = await in_thread(actions.do_create_bot)(me, req.name, req.username)
    (user,) = await accounts_tl.users_to_tl([created.user.id], me)
    return user


@rpc(functions.bots.ExportBotToken)
async def export_bot_token(ctx, req: functions.bots.ExportBotToken):
    """The owner's way to a token: always a fresh one (the old one is only stored
    hashed), so ``revoke`` or not, the previous token stops working."""
    me = viewer_id(ctx)
    bot_id = check_input_user(me, req.bot)
    revoked = await in_thread(actions.do_revoke_token)(me, bot_id)
    for key_id in revoked.logged_out:
        registry.forget_authorization(key_id)
    return tl_convert.exported_token_to_tl(revoked.token)


@rpc(functions.bots.GetAdminedBots)
async def get_admined_bots(ctx, req: functions.bots.GetAdminedBots):
    me = viewer_id(ctx)
    bots = await in_thread(actions.bots_of)(me)
    return await accounts_tl.users_to_tl([b.user_id for b in bots], me)


@rpc(functions.bots.CheckUsername)
async def check_username(ctx, req: functions.bots.CheckUsername):
    return await in_thread(actions.is_bot_username_free)(req.username)
