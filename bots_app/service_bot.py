"""The built-in service bot (``@BotFather`` by default): users create and manage their
bots by talking to it in a private chat.

It is a bot account inside the server: private_app hands it every message a user sends
it (``private_app.send_hooks``), it keeps where each conversation stands in
:class:`ServiceChat` and answers with ordinary messages from its account. Every change
goes through ``bots_app.actions``, so its rules (and Telegram's validation) are the
same as the console's and ``bots.*``'s.
"""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass, field

from django.conf import settings
from django.db import IntegrityError, transaction

from accounts_app.models import User
from edge_app import registry
from edge_app.orm_threads import in_thread
from private_app import actions as private_actions
from tl.errors import (
    BotAppShortnameInvalidError,
    BotCommandDescriptionInvalidError,
    BotCommandInvalidError,
    BotsTooMuchError,
    ButtonTextInvalidError,
    FirstnameInvalidError,
    RpcError,
    UrlInvalidError,
    UsernameInvalidError,
    UsernameOccupiedError,
)

from . import actions, markup, scopes, webapps
from .models import Bot, BotCommandSet, ServiceChat

log = logging.getLogger("telesrv.bots")

DELETE_CONFIRMATION = "Yes, I am totally sure."
EMPTY = "/empty"
ENABLE, DISABLE = "Enable", "Disable"

COMMANDS = [
    ("newbot", "create a new bot"),
    ("mybots", "list your bots"),
    ("token", "get a new token for a bot"),
    ("revoke", "revoke a bot's token"),
    ("setname", "change a bot's name"),
    ("setdescription", "change a bot's description"),
    ("setabouttext", "change a bot's about info"),
    ("setuserpic", "change a bot's profile photo"),
    ("setcommands", "change a bot's list of commands"),
    ("setjoingroups", "can your bot be added to groups?"),
    ("setprivacy", "toggle privacy mode in groups"),
    ("setinline", "toggle inline mode"),
    ("setinlinefeedback", "toggle inline feedback"),
    ("newapp", "create a new Mini App"),
    ("setmenubutton", "change a bot's menu button (a Mini App)"),
    ("deletebot", "delete a bot"),
    ("cancel", "cancel the current operation"),
]
# Commands that first ask which bot they are about.
NEEDS_BOT = {
    "token", "revoke", "setname", "setdescription", "setabouttext", "setuserpic", "setcommands",
    "setjoingroups", "setprivacy", "setinline", "setinlinefeedback", "deletebot", "newapp", "setmenubutton",
}  # fmt: skip


def service_bot_id() -> int:
    return int(getattr(settings, "SERVICE_BOT_ID", 93372553))


def service_bot_username() -> str:
    return str(getattr(settings, "SERVICE_BOT_USERNAME", "BotFather"))


def ensure_service_bot() -> User:
    """The service bot's account (made on first use, idempotent across processes). It
    owns itself and has no token: nobody can log in as it."""
    bot_id = service_bot_id()
    user = User.objects.filter(id=bot_id).first()
    if user is not None:
        return user
    try:
        with transaction.atomic():
            user = User.objects.create(
                id=bot_id,
                phone="botfather",
                first_name=service_bot_username(),
                username=service_bot_username(),
                about="The bot that makes bots.",
                bot={"v": 1, "nochats": True, "history": False, "placeholder": None},
            )
            bot = Bot.objects.create(
                user=user,
                owner=user,
                token_hash="",
                join_groups=False,
                description="I can help you create and manage your bots. Send /newbot to start.",
            )
            BotCommandSet.objects.create(
                bot=bot,
                scope=scopes.DEFAULT,
                commands=[{"command": c, "description": d} for c, d in COMMANDS],
            )
    except IntegrityError:
        user = User.objects.get(id=bot_id)
    return user


@dataclass(slots=True)
class Reply:
    text: str
    # A one-time reply keyboard (rows of button texts), or None.
    keyboard: list[list[str]] | None = None
    # Permanent auth key ids to log out after the commit (token revoked, bot deleted).
    forget: list[int] = field(default_factory=list)


def _help() -> str:
    lines = ["I can help you create and manage bots on this server.", ""]
    lines += [f"/{c} - {d}" for c, d in COMMANDS]
    return "\n".join(lines)


def _bot_choice(owner_id: int) -> Reply:
    bots = actions.bots_of(owner_id)
    if not bots:
        return Reply("You have no bots yet. Use /newbot to create one.")
    return Reply("Choose a bot:", keyboard=[[f"@{b.user.username}"] for b in bots])


def _set_state(chat: ServiceChat, step: str, bot_id: int | None = None, **data) -> None:
    chat.step, chat.bot_id, chat.data = step, bot_id, data
    chat.save()


def _clear(chat: ServiceChat) -> None:
    _set_state(chat, "")


def _parse_commands(text: str) -> list[dict]:
    commands = []
    for line in text.strip().splitlines():
        name, sep, description = line.partition(" - ")
        if not sep:
            raise BotCommandInvalidError()
        commands.append({"command": name.strip(), "description": description.strip()})
    return actions.clean_commands(commands)


def _on_off(text: str) -> bool | None:
    word = text.strip().lower()
    return True if word == ENABLE.lower() else False if word == DISABLE.lower() else None


def _start_command(chat: ServiceChat, owner_id: int, command: str) -> Reply:
    if command in ("start", "help"):
        _clear(chat)
        return Reply(_help())
    if command == "cancel":
        was = chat.step
        _clear(chat)
        if not was:
            return Reply("No active command to cancel. I wasn't doing anything anyway.")
        return Reply(f"The command /{was.split(':')[0]} has been cancelled. Anything else I can do for you?")
    if command == "newbot":
        _set_state(chat, "newbot")
        return Reply("Alright, a new bot. What will it be called? Send me its name.")
    if command == "mybots":
        _clear(chat)
        bots = actions.bots_of(owner_id)
        if not bots:
            return Reply("You have no bots yet. Use /newbot to create one.")
        return Reply("Your bots:\n" + "\n".join(f"@{b.user.username} - {b.user.first_name}" for b in bots))
    if command in NEEDS_BOT:
        _set_state(chat, command)
        return _bot_choice(owner_id)
    return Reply("Unrecognized command. Say what? /help lists what I can do.")


_ASK = {
    "setname": "OK. Send me the new name for the bot.",
    "setdescription": "OK. Send me the new description for the bot (up to 512 characters), or /empty to clear it.",
    "setabouttext": "OK. Send me the new 'About' text (up to 120 characters), or /empty to clear it.",
    "setuserpic": "OK. Send me the new profile photo for the bot.",
    "setcommands": (
        "OK. Send me a list of commands for your bot, one per line, like this:\n\n"
        "command1 - Description\ncommand2 - Another description\n\nSend /empty to clear the list."
    ),
    "setinline": (
        "Send me the placeholder text users see in the input field when they type your bot's name "
        "(this turns inline mode on), or /empty to turn inline mode off."
    ),
    "newapp": "OK. Send me the title of the Mini App (1-64 characters).",
    "setmenubutton": (
        "Send me the URL of the Mini App the menu button opens (http:// or https://), or /empty to "
        "bring back the list of commands."
    ),
}


def _picked(chat: ServiceChat, owner_id: int, text: str) -> Reply:
    command = chat.step
    bot = actions.find_owned_by_username(owner_id, text)
    if bot is None:
        return Reply("Invalid bot selected. Choose one of your bots, or /cancel.")
    name = f"@{bot.user.username}"
    if command in ("token", "revoke"):
        revoked = actions.do_revoke_token(owner_id, bot.user_id)
        _clear(chat)
        return Reply(
            f"The token of {name} was replaced with a new one; the old token no longer works. "
            f"Keep the new token secure:\n\n{revoked.token}",
            forget=revoked.logged_out,
        )
    if command == "deletebot":
        _set_state(chat, "deletebot:confirm", bot.user_id)
        return Reply(
            f"You are about to delete {name}. Is that right?\n\n"
            f"Send '{DELETE_CONFIRMATION}' to confirm that you really want to delete this bot."
        )
    if command in ("setjoingroups", "setprivacy", "setinlinefeedback"):
        current = {
            "setjoingroups": bot.join_groups,
            "setprivacy": bot.privacy,
            "setinlinefeedback": bot.inline_feedback,
        }[command]
        _set_state(chat, f"{command}:value", bot.user_id)
        return Reply(
            f"{name} - current status: {'ENABLED' if current else 'DISABLED'}. Enable or disable?",
            keyboard=[[ENABLE, DISABLE]],
        )
    _set_state(chat, f"{command}:value", bot.user_id)
    return Reply(_ASK[command])


def _value(chat: ServiceChat, owner_id: int, text: str, media: dict | None) -> Reply:
    command = chat.step.split(":")[0]
    bot_id = chat.bot_id
    empty = text.strip() == EMPTY
    if command == "newapp":
        return _newapp(chat, owner_id, text)
    if command == "setmenubutton":
        return _set_menu_button(chat, owner_id, text)
    if command == "deletebot":
        _clear(chat)
        if text.strip() != DELETE_CONFIRMATION:
            return Reply("Please type the exact confirmation phrase. Deletion cancelled. /help")
        forget = actions.do_delete_bot(owner_id, bot_id)
        return Reply("Done! The bot is gone. /help", forget=forget)
    if command in ("setjoingroups", "setprivacy", "setinlinefeedback"):
        value = _on_off(text)
        if value is None:
            return Reply("Please choose Enable or Disable.", keyboard=[[ENABLE, DISABLE]])
        action = {
            "setjoingroups": actions.do_set_join_groups,
            "setprivacy": actions.do_set_privacy,
            "setinlinefeedback": actions.do_set_inline_feedback,
        }[command]
        action(owner_id, bot_id, value)
        _clear(chat)
        return Reply(f"Success! The new status is: {'ENABLED' if value else 'DISABLED'}. /help")
    if command == "setname":
        actions.do_set_bot_info(owner_id, bot_id, name=text)
        _clear(chat)
        return Reply("Success! Name updated. /help")
    if command == "setdescription":
        actions.do_set_bot_info(owner_id, bot_id, description="" if empty else text)
        _clear(chat)
        return Reply("Success! Description updated. /help")
    if command == "setabouttext":
        actions.do_set_bot_info(owner_id, bot_id, about="" if empty else text)
        _clear(chat)
        return Reply("Success! About section updated. /help")
    if command == "setcommands":
        commands = [] if empty else _parse_commands(text)
        actions.do_set_commands(owner_id, bot_id, scopes.DEFAULT, "", commands)
        _clear(chat)
        return Reply("Success! Command list updated. /help")
    if command == "setinline":
        actions.do_set_inline(owner_id, bot_id, None if empty else text)
        _clear(chat)
        return Reply(
            "Success! Inline settings updated. /help" if not empty else "Inline mode disabled. /help"
        )
    if command == "setuserpic":
        photo = (media or {}).get("photo")
        if not photo:
            return Reply("Please send me a photo, or /cancel.")
        actions.do_set_bot_photo(owner_id, bot_id, photo["id"])
        _clear(chat)
        return Reply("Success! Profile photo updated. /help")
    _clear(chat)
    return Reply(_help())


def _newapp(chat: ServiceChat, owner_id: int, text: str) -> Reply:
    """/newapp after the bot is picked: title, description, URL, short name."""
    stage, data, bot_id = chat.step.split(":")[1], dict(chat.data), chat.bot_id
    value = text.strip()
    if stage == "value":
        if not value or len(value) > webapps.TITLE_MAX:
            return Reply("Sorry, the title must be 1 to 64 characters long. Try again.")
        _set_state(chat, "newapp:description", bot_id, title=value)
        return Reply("Good. Now send me a short description of the Mini App, or /empty.")
    if stage == "description":
        _set_state(chat, "newapp:url", bot_id, **data, description="" if value == EMPTY else value)
        return Reply("Now send me the URL of the Mini App (http:// or https://).")
    if stage == "url":
        try:
            data["url"] = webapps.check_url(value)
        except UrlInvalidError:
            return Reply("Sorry, that is not an http:// or https:// URL. Try again.")
        _set_state(chat, "newapp:short_name", bot_id, **data)
        return Reply(
            "Now choose a short name for the Mini App: 3-30 letters, digits and underscores, starting "
            "with a letter. It will be used in its link, t.me/<bot>/<short name>."
        )
    try:
        app = webapps.do_create_app(owner_id, bot_id, value, data["title"], data["description"], data["url"])
    except BotAppShortnameInvalidError:
        return Reply("Sorry, this short name is invalid or already taken by another Mini App of the bot.")
    _clear(chat)
    username = User.objects.filter(id=bot_id).values_list("username", flat=True).first()
    return Reply(f"Done! Your Mini App is ready: t.me/{username}/{app['short_name']} /help")


def _set_menu_button(chat: ServiceChat, owner_id: int, text: str) -> Reply:
    """/setmenubutton after the bot is picked: the URL (or /empty), then the button's text."""
    stage, bot_id, value = chat.step.split(":")[1], chat.bot_id, text.strip()
    if stage == "value":
        if value == EMPTY:
            actions.do_set_menu_button(owner_id, bot_id, {"commands": True})
            _clear(chat)
            return Reply("Success! The menu button shows the bot's commands again. /help")
        try:
            url = webapps.check_url(value)
        except UrlInvalidError:
            return Reply("Sorry, that is not an http:// or https:// URL. Try again, or /cancel.")
        _set_state(chat, "setmenubutton:text", bot_id, url=url)
        return Reply("Good. Now send me the text of the button (for example: Open).")
    try:
        actions.do_set_menu_button(owner_id, bot_id, {"text": value, "url": chat.data["url"]})
    except ButtonTextInvalidError:
        return Reply("Sorry, the text must be 1 to 64 characters long. Try again.")
    _clear(chat)
    return Reply("Success! The menu button opens the Mini App now. /help")


def _newbot(chat: ServiceChat, owner_id: int, text: str) -> Reply:
    if chat.step == "newbot":
        name = text.strip()
        if not name or len(name) > 64:
            return Reply("Sorry, the name must be 1 to 64 characters long. Try again.")
        _set_state(chat, "newbot:username", name=name)
        return Reply(
            "Good. Now choose a username for your bot. It must end in `bot`, like TetrisBot or tetris_bot."
        )
    name = chat.data.get("name", "")
    try:
        created = actions.do_create_bot(owner_id, name, text)
    except UsernameOccupiedError:
        return Reply("Sorry, this username is already taken. Please try something different.")
    except UsernameInvalidError:
        return Reply(
            "Sorry, this username is invalid: 5-32 letters, digits and underscores, ending in 'bot'. "
            "Try again."
        )
    except FirstnameInvalidError:
        _clear(chat)
        return Reply("Sorry, that name is invalid. Start again with /newbot.")
    except BotsTooMuchError:
        _clear(chat)
        return Reply(f"That I cannot do: you may have at most {actions.bots_per_owner()} bots.")
    _clear(chat)
    return Reply(
        f"Done! Congratulations on your new bot. You will find it at @{created.user.username}. "
        f"Use this token to log your bot in (auth.importBotAuthorization); keep it secret:\n\n"
        f"{created.token}\n\nUse /setdescription, /setabouttext and /setcommands to describe it."
    )


def converse(owner_id: int, text: str, media: dict | None = None) -> Reply:
    """The service bot's answer to one message of ``owner_id`` (one transaction)."""
    text = text or ""
    with transaction.atomic():
        chat, _ = ServiceChat.objects.select_for_update().get_or_create(user_id=owner_id)
        if User.objects.filter(id=owner_id, bot__isnull=False).exists():
            return Reply("Bots cannot create bots.")
        stripped = text.strip()
        if stripped.startswith("/") and stripped != EMPTY:
            command = stripped[1:].split()[0].split("@")[0].lower() if len(stripped) > 1 else ""
            return _start_command(chat, owner_id, command)
        if chat.step.startswith("newbot"):
            return _newbot(chat, owner_id, text)
        if chat.step in NEEDS_BOT:
            return _picked(chat, owner_id, stripped)
        if chat.step:
            try:
                with transaction.atomic():
                    return _value(chat, owner_id, text, media)
            except (BotCommandInvalidError, BotCommandDescriptionInvalidError):
                return Reply(
                    "Invalid command list: use 'command - Description' per line; commands are 1-32 "
                    "lowercase letters, digits or underscores, descriptions 1-256 characters."
                )
            except RpcError as exc:
                return Reply(f"Sorry, that did not work ({exc.message}). Try again, or /cancel.")
        return Reply("I understand commands only. /help lists them.")


# --- the listener private chats call ------------------------------------------------------


async def send_reply(bot_id: int, user_id: int, reply: Reply) -> None:
    keyboard = markup.one_time_keyboard(reply.keyboard) if reply.keyboard else markup.REMOVE
    await private_actions.do_send_private_message(
        bot_id, user_id, reply.text, random_id(), reply_markup=keyboard
    )


async def on_private_message(
    sender_id: int, kind: str, peer_id: int, messages: list[dict], chat: dict | None = None
) -> None:
    if kind != "user" or peer_id != service_bot_id():
        return
    for m in messages:
        reply = await in_thread(converse)(sender_id, m.get("message") or "", m.get("media"))
        for key_id in reply.forget:
            registry.forget_authorization(key_id)
        await send_reply(peer_id, sender_id, reply)


async def ensure_job() -> None:
    """Background job: the service bot exists once the listener runs (so users can find
    it by username before anyone wrote to it)."""
    try:
        await in_thread(ensure_service_bot)()
    except Exception:
        log.exception("could not create the service bot")


def random_id() -> int:
    return secrets.randbits(62) + 1
