"""Domain actions on bot accounts: create, tokens, settings, commands, delete.

Synchronous (Django ORM in a transaction), raising ``tl.errors``; what the service bot,
the ``bots.*`` handlers, the console and the ``createbot`` command call. Actions that
log a bot's sessions out return the permanent auth key ids to forget: the caller hands
them to ``edge_app.registry.forget_authorization`` after the commit, which reaches the
bot's live sessions on every edge.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass

from django.conf import settings
from django.db import IntegrityError, transaction

from accounts_app import usernames
from accounts_app.actions import clean_about, clean_first_name
from accounts_app.login import DeviceInfo, authorize_key
from accounts_app.models import Authorization, User
from accounts_app.render_changes import user_render_changed
from accounts_app.updates import UserUpdate, append_user_update
from edge_app import push
from media_app.actions import add_holders, photo_dict
from media_app.models import Photo, ProfilePhoto
from message_core import db
from message_core.clock import now
from tl.errors import (
    AccessTokenExpiredError,
    AccessTokenInvalidError,
    BotCommandDescriptionInvalidError,
    BotCommandInvalidError,
    BotDescriptionInvalidError,
    BotInvalidError,
    BotsTooMuchError,
    ButtonTextInvalidError,
    ButtonUrlInvalidError,
    PhotoIdInvalidError,
    UserBotError,
    UsernameInvalidError,
    UsernameOccupiedError,
)

from . import webapp_init_data
from .models import Bot, BotCommandSet

SECRET_LENGTH = 35  # as Telegram's tokens: "<bot id>:AA" + 33 more url-safe characters
REVOKED_KEPT = 10
DESCRIPTION_MAX = 512
COMMANDS_MAX = 100
COMMAND_MAX = 32
COMMAND_DESCRIPTION_MAX = 256
PLACEHOLDER_MAX = 64
MENU_TEXT_MAX = 64
_COMMAND = re.compile(r"[a-z0-9_]{1,32}")
_SECRET_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"

# The account update that makes the bot's sessions and its chats' members refetch the
# bot (clients reload users.getFullUser on updateUser).
BOT_PROFILE_UPDATE = "user_profile"  # accounts_app's kind: payload user_id


def bots_per_owner() -> int:
    return int(getattr(settings, "BOTS_PER_OWNER", 20))


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def _webapp_secret(token: str) -> str:
    return webapp_init_data.secret_key(token).hex()


def _new_secret() -> str:
    return "AA" + "".join(secrets.choice(_SECRET_CHARS) for _ in range(SECRET_LENGTH - 2))


def _snapshot(bot: Bot) -> dict:
    return {
        "v": bot.info_version,
        "nochats": not bot.join_groups,
        "history": not bot.privacy,
        "placeholder": bot.inline_placeholder or None,
        # A menu button with a URL is the bot's main Mini App (clients show "Open").
        "main_app": bool((bot.menu_button or {}).get("url")),
    }


def _save_snapshot(bot: Bot) -> None:
    User.objects.filter(id=bot.user_id).update(bot=_snapshot(bot))
    user_render_changed(bot.user_id)


def is_bot(user_id: int) -> bool:
    return User.objects.filter(id=user_id, bot__isnull=False).exists()


def check_bot_username(username: str) -> str:
    """Telegram's rule for bots: a valid username ending in "bot" (any case)."""
    username = usernames.strip_at((username or "").strip())
    usernames.check_username_format(username)
    if not username.lower().endswith("bot"):
        raise UsernameInvalidError()
    return username


def is_bot_username_free(username: str) -> bool:
    """bots.checkUsername: USERNAME_INVALID for a malformed or non-bot name."""
    return not usernames.is_username_taken(check_bot_username(username))


@dataclass(frozen=True, slots=True)
class CreatedBot:
    bot: Bot
    user: User
    token: str


def do_create_bot(owner_id: int, name: str, username: str) -> CreatedBot:
    """A new bot of ``owner_id``. Raises FIRSTNAME_INVALID, USERNAME_INVALID,
    USERNAME_OCCUPIED, USER_BOT (a bot cannot own bots), BOTS_TOO_MUCH."""
    name = clean_first_name(name)
    username = check_bot_username(username)
    secret = _new_secret()
    with transaction.atomic():
        owner = User.objects.select_for_update().filter(id=owner_id, deleted=False).first()
        if owner is None:
            raise BotInvalidError()
        if owner.bot is not None:
            raise UserBotError()
        if Bot.objects.filter(owner_id=owner_id, user__deleted=False).count() >= bots_per_owner():
            raise BotsTooMuchError()
        usernames.lock_username(username)
        if usernames.is_username_taken(username):
            raise UsernameOccupiedError()
        try:
            with transaction.atomic():
                # Bots have no phone; the column is unique, so each gets a placeholder
                # that is not a phone number (no login by code can reach it).
                user = User.objects.create(
                    phone=f"bot{secrets.token_hex(8)}",
                    first_name=name,
                    username=username,
                    bot={"v": 1, "nochats": False, "history": False, "placeholder": None},
                )
        except IntegrityError as exc:
            raise UsernameOccupiedError() from exc
        token = f"{user.id}:{secret}"
        bot = Bot.objects.create(
            user=user, owner_id=owner_id, token_hash=_hash(secret), webapp_secret=_webapp_secret(token)
        )
        _save_snapshot(bot)
    return CreatedBot(bot, user, token)


def owned_bot(owner_id: int | None, bot_id: int, *, lock: bool = False) -> Bot:
    """The live bot ``bot_id`` if ``owner_id`` owns it (``None``: an operator, any bot)."""
    rows = Bot.objects.select_related("user").filter(user_id=bot_id, user__deleted=False)
    if owner_id is not None:
        rows = rows.filter(owner_id=owner_id)
    if lock:
        rows = rows.select_for_update(of=("self",))
    bot = rows.first()
    if bot is None:
        raise BotInvalidError()
    return bot


def bots_of(owner_id: int) -> list[Bot]:
    return list(
        Bot.objects.select_related("user")
        .filter(owner_id=owner_id, user__deleted=False)
        .order_by("created")[: bots_per_owner()]
    )


def find_owned_by_username(owner_id: int, username: str) -> Bot | None:
    username = usernames.strip_at((username or "").strip())
    return (
        Bot.objects.select_related("user")
        .filter(owner_id=owner_id, user__deleted=False, user__username__iexact=username)
        .first()
    )


def _logout_all(bot_id: int) -> list[int]:
    keys = list(Authorization.objects.filter(user_id=bot_id).values_list("perm_auth_key_id", flat=True))
    Authorization.objects.filter(user_id=bot_id).delete()
    return keys


@dataclass(frozen=True, slots=True)
class Revoked:
    token: str
    logged_out: list[int]  # permanent auth key ids whose sessions must be forgotten


def do_revoke_token(owner_id: int | None, bot_id: int) -> Revoked:
    """A new token; the old one answers ACCESS_TOKEN_EXPIRED and every session that
    logged in with it is logged out."""
    secret = _new_secret()
    with transaction.atomic():
        bot = owned_bot(owner_id, bot_id, lock=True)
        bot.revoked_hashes = [*bot.revoked_hashes, bot.token_hash][-REVOKED_KEPT:]
        bot.token_hash = _hash(secret)
        bot.webapp_secret = _webapp_secret(f"{bot_id}:{secret}")
        bot.save(update_fields=["revoked_hashes", "token_hash", "webapp_secret"])
        keys = _logout_all(bot_id)
        _token_changed(bot_id)
    return Revoked(f"{bot_id}:{secret}", keys)


def do_set_bot_deactivated(bot_id: int, deactivated: bool) -> list[int]:
    """Operators switch a bot off (its sessions are logged out, it cannot log in) or
    back on; the permanent key ids to forget."""
    with transaction.atomic():
        bot = owned_bot(None, bot_id, lock=True)
        bot.deactivated = deactivated
        bot.save(update_fields=["deactivated"])
        _token_changed(bot_id)
        return _logout_all(bot_id) if deactivated else []


def do_delete_bot(owner_id: int | None, bot_id: int) -> list[int]:
    """The bot account is deleted (renders as a deleted account, its username is free);
    the permanent key ids to forget."""
    with transaction.atomic():
        bot = owned_bot(owner_id, bot_id, lock=True)
        User.objects.filter(id=bot_id).update(deleted=True, username=None)
        bot.token_hash = ""
        bot.save(update_fields=["token_hash"])
        keys = _logout_all(bot_id)
        _token_changed(bot_id)
    user_render_changed(bot_id)
    return keys


def _token_parts(token: str) -> tuple[int, str]:
    bot_part, sep, secret = (token or "").strip().partition(":")
    if not sep or not bot_part.isdigit() or not secret or len(secret) > 128:
        raise AccessTokenInvalidError()
    return int(bot_part), secret


def _token_bot(bot_id: int, secret: str, token_hash: str, revoked: list, off: bool) -> int:
    if off or not token_hash:
        raise AccessTokenInvalidError()
    digest = _hash(secret)
    if hmac.compare_digest(digest, token_hash):
        return bot_id
    if any(hmac.compare_digest(digest, old) for old in revoked or []):
        raise AccessTokenExpiredError()
    raise AccessTokenInvalidError()


def check_token(token: str) -> int:
    """The bot a token logs in as. Raises ACCESS_TOKEN_INVALID (malformed, unknown,
    deleted or switched-off bot) or ACCESS_TOKEN_EXPIRED (a revoked token)."""
    bot_id, secret = _token_parts(token)
    bot = Bot.objects.select_related("user").filter(user_id=bot_id).first()
    if bot is None:
        raise AccessTokenInvalidError()
    off = bot.user.deleted or bot.deactivated
    bot_id = _token_bot(bot.user_id, secret, bot.token_hash, bot.revoked_hashes, off)
    if not bot.webapp_secret:  # a token issued before Mini Apps: learnt on its first use
        Bot.objects.filter(user_id=bot_id).update(webapp_secret=_webapp_secret(token.strip()))
    return bot_id


async def check_token_async(token: str) -> int:
    """:func:`check_token` on the pooled async connections (the HTTP Bot API's path)."""
    bot_id, secret = _token_parts(token)
    row = await db.fetchone(
        "SELECT b.token_hash, b.revoked_hashes, b.webapp_secret, b.deactivated OR u.deleted AS off"
        " FROM bots b JOIN users u ON u.id = b.user_id WHERE b.user_id = %s",
        (bot_id,),
    )
    if row is None:
        raise AccessTokenInvalidError()
    bot_id = _token_bot(bot_id, secret, row["token_hash"], row["revoked_hashes"], row["off"])
    if not row["webapp_secret"]:  # a token issued before Mini Apps: learnt on its first use
        await db.fetchone(
            "UPDATE bots SET webapp_secret = %s WHERE user_id = %s RETURNING user_id",
            (_webapp_secret(token.strip()), bot_id),
        )
    return bot_id


# Announced (broadcast push) whenever a bot's token stops or starts working: the HTTP
# Bot API's token cache (botapi_app.tokens) forgets the bot.
TOKEN_CHANGED = "bots.token_changed"


def _token_changed(bot_id: int) -> None:
    transaction.on_commit(lambda: push.publish_soon(TOKEN_CHANGED, {"bot_id": bot_id}))


def do_import_bot_authorization(perm_auth_key_id: int, token: str, device: DeviceInfo) -> User:
    """auth.importBotAuthorization: this key is the bot from now on."""
    with transaction.atomic():
        bot_id = check_token(token)
        user = User.objects.get(id=bot_id)
        authorize_key(perm_auth_key_id, user, device)
    return user


# --- settings --------------------------------------------------------------------------


def _changed(bot: Bot, fields: list[str]) -> UserUpdate:
    """Save ``fields``, bump the info version, refresh the user snapshot and log an
    account update so the bot's own sessions reload it."""
    bot.info_version += 1
    bot.save(update_fields=[*fields, "info_version"])
    _save_snapshot(bot)
    return append_user_update(bot.user_id, BOT_PROFILE_UPDATE, {"user_id": bot.user_id})


def do_set_privacy(owner_id: int | None, bot_id: int, enabled: bool) -> Bot:
    with transaction.atomic():
        bot = owned_bot(owner_id, bot_id, lock=True)
        bot.privacy = enabled
        _changed(bot, ["privacy"])
    return bot


def do_set_join_groups(owner_id: int | None, bot_id: int, enabled: bool) -> Bot:
    with transaction.atomic():
        bot = owned_bot(owner_id, bot_id, lock=True)
        bot.join_groups = enabled
        _changed(bot, ["join_groups"])
    return bot


def do_set_inline(owner_id: int | None, bot_id: int, placeholder: str | None) -> Bot:
    """Inline mode on with ``placeholder`` (the hint in the input field), or off (None)."""
    placeholder = (placeholder or "").strip()[:PLACEHOLDER_MAX] if placeholder is not None else ""
    with transaction.atomic():
        bot = owned_bot(owner_id, bot_id, lock=True)
        bot.inline_placeholder = placeholder
        _changed(bot, ["inline_placeholder"])
    return bot


def do_set_inline_feedback(owner_id: int | None, bot_id: int, enabled: bool) -> Bot:
    with transaction.atomic():
        bot = owned_bot(owner_id, bot_id, lock=True)
        bot.inline_feedback = enabled
        bot.save(update_fields=["inline_feedback"])
    return bot


def do_set_bot_info(
    owner_id: int | None,
    bot_id: int,
    *,
    lang_code: str = "",
    name: str | None = None,
    about: str | None = None,
    description: str | None = None,
) -> Bot:
    """bots.setBotInfo / the service bot's /setdescription, /setabouttext, /setname.
    The default language ("") writes the bot's own profile; others a translation."""
    lang_code = (lang_code or "").strip()[:16]
    if name is not None:
        name = clean_first_name(name)
    if about is not None:
        about = clean_about_bot(about)
    if description is not None:
        description = (description or "").strip()
        if len(description) > DESCRIPTION_MAX:
            raise BotDescriptionInvalidError()
    with transaction.atomic():
        bot = owned_bot(owner_id, bot_id, lock=True)
        fields = []
        if lang_code:
            texts = dict(bot.localized.get(lang_code) or {})
            for key, value in (("name", name), ("about", about), ("description", description)):
                if value is not None:
                    texts[key] = value
            bot.localized = {**bot.localized, lang_code: texts}
            fields.append("localized")
        else:
            user_fields = {}
            if name is not None:
                user_fields["first_name"] = name
            if about is not None:
                user_fields["about"] = about
            if user_fields:
                User.objects.filter(id=bot_id).update(**user_fields)
            if description is not None:
                bot.description = description
                fields.append("description")
        _changed(bot, fields)
    return bot


ABOUT_MAX = 120  # bots' "about" is longer than people's bios on Telegram


def clean_about_bot(value: str) -> str:
    value = (value or "").strip()
    if len(value) > ABOUT_MAX:
        return clean_about(value)  # raises ABOUT_TOO_LONG
    return value


def localized_info(bot: Bot, lang_code: str) -> dict:
    """``{"name", "about", "description"}`` in ``lang_code`` (falling back to the default)."""
    texts = bot.localized.get(lang_code or "") or {}
    return {
        "name": texts.get("name", bot.user.first_name),
        "about": texts.get("about", bot.user.about),
        "description": texts.get("description", bot.description),
    }


def do_set_menu_button(owner_id: int | None, bot_id: int, button: dict | None) -> Bot:
    """``None``: the client's default; ``{"commands": True}``; ``{"text", "url"}``."""
    if button and not button.get("commands"):
        text = (button.get("text") or "").strip()
        url = (button.get("url") or "").strip()
        if not text or len(text) > MENU_TEXT_MAX:
            raise ButtonTextInvalidError()
        if not url.startswith(("https://", "http://")):
            raise ButtonUrlInvalidError()
        button = {"text": text, "url": url}
    with transaction.atomic():
        bot = owned_bot(owner_id, bot_id, lock=True)
        bot.menu_button = button or None
        _changed(bot, ["menu_button"])
    return bot


def do_set_bot_photo(owner_id: int | None, bot_id: int, photo_id: int) -> None:
    """/setuserpic: a photo the owner sent becomes the bot's profile photo."""
    with transaction.atomic():
        bot = owned_bot(owner_id, bot_id, lock=True)
        photo = Photo.objects.filter(id=photo_id).first()
        if photo is None:
            raise PhotoIdInvalidError()
        ProfilePhoto.objects.update_or_create(user_id=bot_id, photo_id=photo_id, defaults={"date": now()})
        add_holders([("p", photo_id)], "public", [0])
        User.objects.filter(id=bot_id).update(photo=photo_dict(photo))
        _changed(bot, [])
    user_render_changed(bot_id)


# --- commands --------------------------------------------------------------------------


def clean_commands(commands: list[dict]) -> list[dict]:
    """Telegram's rules: at most 100, names of 1-32 ``[a-z0-9_]`` (a leading "/" and
    upper case are accepted and folded), descriptions of 1-256 characters."""
    if len(commands) > COMMANDS_MAX:
        raise BotCommandInvalidError()
    out = []
    seen = set()
    for c in commands:
        name = (c.get("command") or "").strip().lstrip("/").lower()
        description = (c.get("description") or "").strip()
        if not _COMMAND.fullmatch(name) or name in seen:
            raise BotCommandInvalidError()
        if not description or len(description) > COMMAND_DESCRIPTION_MAX:
            raise BotCommandDescriptionInvalidError()
        seen.add(name)
        out.append({"command": name, "description": description})
    return out


def do_set_commands(
    owner_id: int | None, bot_id: int, scope: str, lang_code: str, commands: list[dict]
) -> Bot:
    """bots.setBotCommands / /setcommands; an empty list resets the scope."""
    commands = clean_commands(commands)
    lang_code = (lang_code or "").strip()[:16]
    with transaction.atomic():
        bot = owned_bot(owner_id, bot_id, lock=True)
        if commands:
            BotCommandSet.objects.update_or_create(
                bot=bot, scope=scope, lang_code=lang_code, defaults={"commands": commands}
            )
        else:
            BotCommandSet.objects.filter(bot=bot, scope=scope, lang_code=lang_code).delete()
        _changed(bot, [])
    return bot


def get_commands(bot_id: int, scope: str, lang_code: str) -> list[dict]:
    """The commands set for exactly this scope and language (bots.getBotCommands)."""
    row = BotCommandSet.objects.filter(bot_id=bot_id, scope=scope, lang_code=lang_code or "").first()
    return list(row.commands) if row else []


def commands_for(bot_id: int, scopes: list[str], lang_code: str = "") -> list[dict]:
    """What a client shows: the first of ``scopes`` (most specific first) that has
    commands, in the viewer's language, else in the default language."""
    rows = {
        (r.scope, r.lang_code): r.commands
        for r in BotCommandSet.objects.filter(bot_id=bot_id, scope__in=scopes, lang_code__in={lang_code, ""})
    }
    for scope in scopes:
        for lang in (lang_code, ""):
            if (scope, lang) in rows:
                return list(rows[(scope, lang)])
    return []
