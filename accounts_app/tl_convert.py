"""Accounts domain -> TL objects. The only module of accounts_app that builds them."""

from __future__ import annotations

import base64
import json
import secrets
from collections.abc import Iterable
from datetime import datetime

from django.conf import settings
from django.utils import timezone

from accounts_app import app_config, blocking, privacy, user_views
from accounts_app.access import user_access_hash
from accounts_app.countries import Country
from accounts_app.models import Authorization, LoginCode, User
from accounts_app.notify_settings import USER, get_settings
from accounts_app.tl_convert_settings import peer_notify_settings_to_tl
from accounts_app.updates import Difference, Rendered, UserUpdate
from accounts_app.user_views import UserView
from edge_app.orm_threads import in_thread
from tl import types

# Seconds a userStatusOnline stays valid after account.updateStatus(offline=false);
# clients refresh it well before (Telegram uses a few minutes as well).
ONLINE_FOR = 300
USERS_CAP = 1000  # users_to_tl is internal; still bounded


def _ts(moment: datetime | None) -> int:
    return int(moment.timestamp()) if moment else 0


def status_to_tl(user: User, now: datetime | None = None):
    now = now or timezone.now()
    if user.online_until and user.online_until > now:
        return types.UserStatusOnline(expires=_ts(user.online_until))
    if user.last_seen:
        return types.UserStatusOffline(was_online=_ts(user.last_seen))
    return types.UserStatusRecently()


# The full Photo of UserFull.profile_photo is rendered by the app that stores photos
# (media_app installs it at start-up): accounts_app sits below it and keeps only the
# snapshot on the user row.
_photo_renderer = None


def set_photo_renderer(renderer) -> None:
    global _photo_renderer
    _photo_renderer = renderer


# A bot's UserFull.bot_info (description, commands, menu button) is rendered by bots_app,
# which stores them (installed at start-up, like the photo renderer):
# fn(bot_user_id, viewer_id) -> BotInfo | None; called in a thread.
_bot_info_renderer = None


def set_bot_info_renderer(renderer) -> None:
    global _bot_info_renderer
    _bot_info_renderer = renderer


def profile_photo_to_tl(photo: dict | None):
    if not photo:
        return types.UserProfilePhotoEmpty()
    stripped = base64.b64decode(photo["stripped"]) if photo.get("stripped") else None
    return types.UserProfilePhoto(photo_id=photo["id"], stripped_thumb=stripped, dc_id=settings.MTPROTO_DC_ID)


def user_to_tl(
    user: User,
    viewer_id: int,
    *,
    contact: bool,
    mutual: bool,
    now: datetime | None = None,
    show_phone: bool | None = None,
    show_status: bool = True,
    blocked_viewer: bool = False,
    color: dict | None = None,
    profile_color: dict | None = None,
):
    """One ``user`` as ``viewer_id`` sees it.

    ``contact``: the viewer has this user in its contacts; ``mutual``: this user also
    has the viewer. ``show_phone`` / ``show_status``: what the user's privacy rules let
    the viewer see (default: the phone to the user itself and to people it added);
    a hidden last-seen reads "recently", and a user who blocked the viewer shows none.
    """
    is_self = user.id == viewer_id
    if user.deleted:
        return types.User(id=user.id, deleted=True, access_hash=user_access_hash(viewer_id, user.id))
    if show_phone is None:
        show_phone = is_self or mutual
    if blocked_viewer and not is_self:
        status = None
    elif show_status or is_self:
        status = status_to_tl(user, now)
    else:
        status = types.UserStatusRecently()
    bot = user.bot
    if bot is not None:
        # Bots have no phone and no last-seen (clients show "bot" instead).
        show_phone, status = False, None
    return types.User(
        id=user.id,
        self=is_self,
        contact=contact and not is_self,
        mutual_contact=mutual and contact and not is_self,
        access_hash=user_access_hash(viewer_id, user.id),
        first_name=user.first_name,
        last_name=user.last_name or None,
        username=user.username or None,
        phone=user.phone if show_phone else None,
        photo=profile_photo_to_tl(user.photo),
        status=status,
        lang_code=(user.lang_code or None) if is_self else None,
        bot=bot is not None,
        bot_info_version=int(bot.get("v", 1)) if bot is not None else None,
        bot_nochats=bool(bot.get("nochats")) if bot is not None else None,
        bot_chat_history=bool(bot.get("history")) if bot is not None else None,
        bot_inline_placeholder=(bot.get("placeholder") or None) if bot is not None else None,
        bot_has_main_app=(bool(bot.get("main_app")) or None) if bot is not None else None,
        color=peer_color_to_tl(color),
        profile_color=peer_color_to_tl(profile_color),
    )


def peer_color_to_tl(c: dict | None):
    if not c:
        return None
    return types.PeerColor(color=c.get("color"), background_emoji_id=c.get("background_emoji_id") or None)


def _views_to_tl(views: list[UserView], viewer_id: int) -> list:
    now = timezone.now()
    return [
        user_to_tl(
            v.user,
            viewer_id,
            contact=v.contact,
            mutual=v.mutual,
            now=now,
            show_phone=v.show_phone,
            show_status=v.show_status,
            blocked_viewer=v.blocked_viewer,
            color=v.color,
            profile_color=v.profile_color,
        )
        for v in views
    ]


def _capped(user_ids: Iterable[int]) -> list[int]:
    return list(dict.fromkeys(int(i) for i in user_ids))[:USERS_CAP]


def users_to_tl_sync(user_ids: Iterable[int], viewer_id: int) -> list:
    ids = _capped(user_ids)
    return _views_to_tl(user_views.views_sync(ids, viewer_id), viewer_id) if ids else []


async def users_to_tl_on(conn, user_ids: Iterable[int], viewer_id: int) -> list:
    """``users_to_tl`` read on ``conn``, an async connection of the caller's (no thread)."""
    ids = _capped(user_ids)
    return _views_to_tl(await user_views.read_views(conn, ids, viewer_id), viewer_id) if ids else []


async def users_to_tl(user_ids: Iterable[int], viewer_id: int) -> list:
    """``types.User`` for each known id (input order, duplicates and unknown ids dropped)."""
    return await in_thread(users_to_tl_sync)(list(user_ids), viewer_id)


def with_unknown_users(user_ids: Iterable[int], users: list) -> list:
    """``users`` plus ``userEmpty`` for each of ``user_ids`` it lacks (a row that is
    gone): an update must carry every user it names (edge_app.peer_check), and a
    deleted account is what Telegram sends for one."""
    have = {u.id for u in users}
    return users + [types.UserEmpty(id=u) for u in dict.fromkeys(user_ids) if u and u not in have]


def user_full_to_tl_sync(
    user_id: int,
    viewer_id: int,
    *,
    common_chats_count: int = 0,
    chats=(),
    settings=None,
    personal_channel=None,
):
    """``settings``: the user's AccountSettings (birthday); ``personal_channel``: its
    (channel id, top message id) when the viewer may see it (the channel in ``chats``)."""
    user = User.objects.filter(id=user_id).first()
    if user is None:
        return None
    users = users_to_tl_sync([user_id], viewer_id)
    blocked = blocking.is_blocked(viewer_id, user_id)
    seen = privacy.visibility(viewer_id, [user_id], (privacy.ABOUT, privacy.VOICE_MESSAGES, privacy.BIRTHDAY))
    birthday = settings.birthday if settings is not None and user_id in seen[privacy.BIRTHDAY] else None
    from accounts_app.full_user import chat_wallpaper

    wallpaper = chat_wallpaper(viewer_id, user_id) if user_id != viewer_id else None
    full = types.UserFull(
        id=user.id,
        blocked=blocked,
        about=(user.about or None) if user_id in seen[privacy.ABOUT] else None,
        voice_messages_forbidden=user_id not in seen[privacy.VOICE_MESSAGES],
        settings=types.PeerSettings(),
        notify_settings=peer_notify_settings_to_tl(get_settings(viewer_id, USER, user_id)),
        profile_photo=_photo_renderer(user.photo) if user.photo and _photo_renderer else None,
        common_chats_count=common_chats_count,
        bot_info=_bot_info_renderer(user_id, viewer_id)
        if user.bot is not None and _bot_info_renderer
        else None,
        birthday=types.Birthday(day=birthday["day"], month=birthday["month"], year=birthday.get("year"))
        if birthday
        else None,
        personal_channel_id=personal_channel[0] if personal_channel else None,
        personal_channel_message=personal_channel[1] if personal_channel else None,
        read_dates_private=bool(settings and (settings.global_privacy or {}).get("hide_read_marks")) or None,
        wallpaper=wallpaper[0] if wallpaper else None,
        wallpaper_overridden=(wallpaper[1] or None) if wallpaper else None,
    )
    return types.users.UserFull(full_user=full, chats=list(chats), users=users)


async def user_full_to_tl(
    user_id: int,
    viewer_id: int,
    *,
    common_chats_count: int = 0,
    chats=(),
    settings=None,
    personal_channel=None,
):
    """``users.userFull`` of ``user_id`` for ``viewer_id`` (None for an unknown id)."""
    return await in_thread(user_full_to_tl_sync)(
        user_id, viewer_id, common_chats_count=common_chats_count, chats=chats, settings=settings,
        personal_channel=personal_channel,
    )  # fmt: skip


# --- login ---------------------------------------------------------------------------

TERMS_ID = "telesrv-tos-1"
TERMS_TEXT = (
    "This is a self-hosted Telegram-compatible server. By signing up you agree that its "
    "operators can read the login codes sent to your number and store what you send."
)


def terms_of_service_to_tl():
    return types.help.TermsOfService(
        id=types.DataJSON(data=json.dumps({"id": TERMS_ID})), text=TERMS_TEXT, entities=[], popup=False
    )


def sent_code_to_tl(code: LoginCode, via: str = "log", email_pattern: str = ""):
    """How the code went out (accounts_app.code_delivery): in-app, e-mail, or as a text -
    the webhook (an SMS gateway) and the "log" delivery, where the operator hands the code
    over outside Telegram (the console's login codes page; /login-code says whom to ask).
    The log delivery is announced as sentCodeTypeSms, not sentCodeTypeFragmentSms: Web K's
    code card throws formatting its Fragment string (the code field never gets focus, so
    no auth.signIn is ever sent) and older apps lack that kind, while every client renders
    the SMS card and accepts the code typed into it."""
    length = len(code.code)
    if via == "app":
        return types.auth.SentCode(
            type=types.auth.SentCodeTypeApp(length=length),
            phone_code_hash=code.phone_code_hash,
            next_type=_resend_type(),
        )
    if via == "email":
        kind = types.auth.SentCodeTypeEmailCode(email_pattern=email_pattern, length=length)
    else:
        kind = types.auth.SentCodeTypeSms(length=length)
    return types.auth.SentCode(type=kind, phone_code_hash=code.phone_code_hash)


def _resend_type():
    """What a resend of an in-app code goes through: the configured backend (the log and
    the webhook both announce a text, see sent_code_to_tl)."""
    backend = getattr(settings, "LOGIN_CODE_DELIVERY", "log")
    if backend == "email":
        return None
    return types.auth.CodeTypeSms()


def sent_email_code_to_tl(pattern: str, length: int):
    return types.account.SentEmailCode(email_pattern=pattern, length=length)


def email_verified_to_tl(email: str):
    return types.account.EmailVerified(email=email)


def email_verification_code(verification) -> str:
    """The code of an ``emailVerificationCode`` (other verifications carry none here)."""
    return verification.code if isinstance(verification, types.EmailVerificationCode) else ""


def authorization_to_tl(self_user):
    return types.auth.Authorization(user=self_user)


def sign_up_required_to_tl():
    return types.auth.AuthorizationSignUpRequired(terms_of_service=terms_of_service_to_tl())


def logged_out_to_tl():
    return types.auth.LoggedOut()


def login_token_to_tl(token: bytes, expires: int):
    return types.auth.LoginToken(expires=expires, token=token)


def authorization_row_to_tl(a: Authorization, current_key_id: int):
    current = a.perm_auth_key_id == current_key_id
    return types.Authorization(
        current=current,
        official_app=False,
        password_pending=a.password_pending,
        hash=0 if current else a.hash,
        device_model=a.device_model or "Unknown",
        platform=a.platform or "",
        system_version=a.system_version or "",
        api_id=a.api_id,
        app_name=a.app_name or "Unknown",
        app_version=a.app_version or "",
        date_created=_ts(a.created),
        date_active=_ts(a.active),
        ip=a.ip or "",
        country="",
        region="",
    )


def authorizations_to_tl(rows: list[Authorization], current_key_id: int, ttl_days: int):
    return types.account.Authorizations(
        authorization_ttl_days=ttl_days,
        authorizations=[authorization_row_to_tl(a, current_key_id) for a in rows],
    )


def login_token_success_to_tl(self_user):
    return types.auth.LoginTokenSuccess(authorization=authorization_to_tl(self_user))


def login_token_update_to_tl():
    """What a key waiting on its QR code hears when a device accepted the token."""
    return update_short_to_tl(types.UpdateLoginToken())


# --- contacts ------------------------------------------------------------------------


def contact_birthdays_to_tl(rows: list[tuple[int, dict]], users: list):
    return types.contacts.ContactBirthdays(
        contacts=[
            types.ContactBirthday(
                contact_id=uid, birthday=types.Birthday(day=b["day"], month=b["month"], year=b.get("year"))
            )
            for uid, b in rows
        ],
        users=users,
    )


def saved_contacts_to_tl(rows: list[tuple[str, str, str, int]]):
    return [types.SavedPhoneContact(phone=p, first_name=f, last_name=last, date=d) for p, f, last, d in rows]


def exported_contact_token_to_tl(token: str, expires: int):
    return types.ExportedContactToken(url=f"tg://contact?token={token}", expires=expires)


def contacts_to_tl(contact_rows: list[tuple[int, bool]], users: list, saved_count: int = 0):
    return types.contacts.Contacts(
        contacts=[types.Contact(user_id=uid, mutual=mutual) for uid, mutual in contact_rows],
        saved_count=saved_count,
        users=users,
    )


def contacts_not_modified_to_tl():
    return types.contacts.ContactsNotModified()


def imported_contacts_to_tl(imported: list[tuple[int, int]], retry: list[int], users: list):
    return types.contacts.ImportedContacts(
        imported=[types.ImportedContact(user_id=uid, client_id=cid) for uid, cid in imported],
        popular_invites=[],
        retry_contacts=retry,
        users=users,
    )


def peer_user(user_id: int):
    return types.PeerUser(user_id=user_id)


def resolved_user_to_tl(user_id: int, users: list):
    return types.contacts.ResolvedPeer(peer=peer_user(user_id), chats=[], users=users)


def found_to_tl(my_results: list, results: list, chats: list, users: list):
    return types.contacts.Found(my_results=my_results, results=results, chats=chats, users=users)


# --- account updates -----------------------------------------------------------------


def usernames_to_tl(username: str | None) -> list:
    return [types.Username(editable=True, active=True, username=username)] if username else []


def user_name_update_to_tl(payload: dict):
    return types.UpdateUserName(
        user_id=int(payload["user_id"]),
        first_name=payload.get("first_name", ""),
        last_name=payload.get("last_name", ""),
        usernames=usernames_to_tl(payload.get("username")),
    )


def user_refresh_update_to_tl(user_id: int):
    """``updateUser``: the client reloads the user's full profile."""
    return types.UpdateUser(user_id=user_id)


def status_payload(user: User) -> dict:
    """A user's status as JSON for a push (rendered by :func:`user_status_payload_to_tl`)."""
    return {"user_id": user.id, "online_until": _ts(user.online_until), "last_seen": _ts(user.last_seen)}


def user_status_payload_to_tl(payload: dict):
    now = int(timezone.now().timestamp())
    if payload["online_until"] > now:
        status = types.UserStatusOnline(expires=payload["online_until"])
    else:
        status = types.UserStatusOffline(was_online=payload["last_seen"] or now)
    return types.UpdateUserStatus(user_id=int(payload["user_id"]), status=status)


def update_short_to_tl(update):
    return types.UpdateShort(update=update, date=int(timezone.now().timestamp()))


def state_to_tl(pts: int, date: datetime, seq: int = 0):
    return types.updates.State(pts=pts, qts=0, date=_ts(date), seq=seq, unread_count=0)


def pts_filler_to_tl(event: UserUpdate):
    """An update that does nothing but move the client's pts over ``event``."""
    return types.UpdateDeleteMessages(messages=[], pts=event.pts, pts_count=event.pts_count)


async def difference_to_tl(diff: Difference, rendered: list[Rendered], viewer_id: int):
    if diff.kind == "empty":
        return types.updates.DifferenceEmpty(date=_ts(diff.state.date), seq=0)
    if diff.kind == "too_long":
        return types.updates.DifferenceTooLong(pts=diff.state.pts)
    messages: list = []
    other: list = []
    chats: dict[int, object] = {}
    user_ids: set[int] = set()
    for part in rendered:
        messages.extend(part.messages)
        other.extend(part.updates)
        user_ids |= part.user_ids
        for chat in part.chats:
            chats.setdefault(chat.id, chat)
    users = with_unknown_users(sorted(user_ids), await users_to_tl(sorted(user_ids), viewer_id))
    cls = types.updates.DifferenceSlice if diff.kind == "slice" else types.updates.Difference
    state = state_to_tl(diff.state.pts, diff.state.date)
    fields = {"intermediate_state": state} if diff.kind == "slice" else {"state": state}
    return cls(
        new_messages=messages,
        new_encrypted_messages=[],
        other_updates=other,
        chats=list(chats.values()),
        users=users,
        **fields,
    )


async def push_updates_to_tl(event: UserUpdate, rendered: Rendered, viewer_id: int):
    """The ``Updates`` a live session gets for one logged event. Its new messages (in a
    difference implied by ``new_messages``) are wrapped in updateNewMessage here, one pts
    each, ending at the event's pts."""
    first = event.pts - len(rendered.messages) + 1
    updates = [
        types.UpdateNewMessage(message=m, pts=first + i, pts_count=1) for i, m in enumerate(rendered.messages)
    ]
    updates += rendered.updates
    if not rendered.carries_pts:
        updates.append(pts_filler_to_tl(event))
    users = rendered.users
    if users is None:
        ids = sorted(rendered.user_ids)
        users = with_unknown_users(ids, await users_to_tl(ids, viewer_id))
    return types.Updates(
        updates=updates, users=users, chats=list(rendered.chats), date=_ts(event.date), seq=0
    )


def updates_to_tl(updates: list, users: list, chats: list = (), date: datetime | None = None):
    return types.Updates(
        updates=updates, users=users, chats=list(chats), date=_ts(date or timezone.now()), seq=0
    )


# --- start-up calls ----------------------------------------------------------------
# What clients ask right after connecting and on their first screen, answered with the
# "nothing here" form of each type. docs/startup-calls.md lists them and says why.

# The limits the server applies, so clients offer what it accepts (reactions: the
# per-user and per-message caps of message_core.reactions; read receipts: the windows
# of channels_app.actions.read_receipts and private_app's read dates).
APP_CONFIG = {
    "reactions_uniq_max": 11,
    "reactions_user_max_default": 1,
    "reactions_user_max_premium": 3,
    "chat_read_mark_size_threshold": 50,
    "chat_read_mark_expire_period": 7 * 86400,
    "pm_read_date_expire_period": 7 * 86400,
}
PROMO_EXPIRES = 3600
TOS_UPDATE_EXPIRES = 86400


def _later(seconds: int) -> int:
    return int(timezone.now().timestamp()) + seconds


def json_to_tl(value):
    """A JSON value (what json.loads gives) as TL's JSONValue."""
    if value is None:
        return types.JsonNull()
    if isinstance(value, bool):
        return types.JsonBool(value=value)
    if isinstance(value, int | float):
        return types.JsonNumber(value=float(value))
    if isinstance(value, str):
        return types.JsonString(value=value)
    if isinstance(value, list | tuple):
        return types.JsonArray(value=[json_to_tl(v) for v in value])
    if isinstance(value, dict):
        return types.JsonObject(
            value=[types.JsonObjectValue(key=str(k), value=json_to_tl(v)) for k, v in value.items()]
        )
    raise TypeError(f"not a JSON value: {value!r}")


def app_config_to_tl(client_hash: int):
    config, config_hash = app_config.current()
    if client_hash == config_hash:
        return types.help.AppConfigNotModified()
    return types.help.AppConfig(hash=config_hash, config=json_to_tl(config))


def countries_to_tl(found: list[Country], digest: int):
    return types.help.CountriesList(
        countries=[
            types.help.Country(
                iso2=c.iso2,
                default_name=c.default_name,
                name=c.name or None,
                country_codes=[
                    types.help.CountryCode(
                        country_code=code.code,
                        prefixes=list(code.prefixes) or None,
                        patterns=list(code.patterns) or None,
                    )
                    for code in c.codes
                ],
            )
            for c in found
        ],
        hash=digest,
    )


def empty_emoji_statuses():
    return types.account.EmojiStatuses(hash=0, statuses=[])


def empty_emoji_list():
    return types.EmojiList(hash=0, document_id=[])


def empty_reactions():
    return types.messages.Reactions(hash=0, reactions=[])


def passkey_login_options_to_tl():
    """No account can register a passkey here, so the WebAuthn request lists none: the
    web apps' passkey autofill on the login screen simply finds nothing to offer."""
    options = {
        "publicKey": {
            "challenge": base64.urlsafe_b64encode(secrets.token_bytes(32)).rstrip(b"=").decode(),
            "timeout": 60000,
            "userVerification": "preferred",
            "allowCredentials": [],
        }
    }
    return types.auth.PasskeyLoginOptions(options=types.DataJSON(data=json.dumps(options)))


# tl_name -> fn(request) -> answer. Registered by accounts_app.rpc.startup; each name
# is in docs/startup-calls.md.
STARTUP_ANSWERS_NO_AUTH = {
    "help.getAppConfig": lambda req: app_config_to_tl(req.hash),
    "help.getTermsOfServiceUpdate": lambda req: types.help.TermsOfServiceUpdateEmpty(
        expires=_later(TOS_UPDATE_EXPIRES)
    ),
    "help.getAppUpdate": lambda req: types.help.NoAppUpdate(),
    "help.saveAppLog": lambda req: True,
    "auth.initPasskeyLogin": lambda req: passkey_login_options_to_tl(),
}

STARTUP_ANSWERS = {
    "help.getSupportName": lambda req: types.help.SupportName(name="Support"),
    "account.toggleSponsoredMessages": lambda req: True,  # there are no sponsored messages
    "account.resetWebAuthorizations": lambda req: True,  # there are no web logins
    "help.getPremiumPromo": lambda req: types.help.PremiumPromo(
        status_text="", status_entities=[], video_sections=[], videos=[], period_options=[], users=[]
    ),
    "payments.getStarsTopupOptions": lambda req: [],
    "payments.getStarsGiftOptions": lambda req: [],
    "payments.getStarsGiveawayOptions": lambda req: [],
    "payments.getStarGifts": lambda req: types.payments.StarGifts(hash=0, gifts=[], chats=[], users=[]),
    "payments.getStarsTransactions": lambda req: types.payments.StarsStatus(
        balance=types.StarsAmount(amount=0, nanos=0), chats=[], users=[]
    ),
    "payments.getStarsSubscriptions": lambda req: types.payments.StarsStatus(
        balance=types.StarsAmount(amount=0, nanos=0), chats=[], users=[]
    ),
    "payments.getStarsStatus": lambda req: types.payments.StarsStatus(
        balance=types.StarsAmount(amount=0, nanos=0), chats=[], users=[]
    ),
    "payments.getPremiumGiftCodeOptions": lambda req: [],
    "help.acceptTermsOfService": lambda req: True,
    "help.getPromoData": lambda req: types.help.PromoDataEmpty(expires=_later(PROMO_EXPIRES)),
    "help.getInviteText": lambda req: types.help.InviteText(message="Join me on this Telegram server."),
    "help.getPeerColors": lambda req: types.help.PeerColors(hash=0, colors=[]),
    "help.getPeerProfileColors": lambda req: types.help.PeerColors(hash=0, colors=[]),
    "help.getTimezonesList": lambda req: types.help.TimezonesList(timezones=[], hash=0),
    "help.dismissSuggestion": lambda req: True,
    "help.getDeepLinkInfo": lambda req: types.help.DeepLinkInfoEmpty(),
    "help.getRecentMeUrls": lambda req: types.help.RecentMeUrls(urls=[], chats=[], users=[]),
    "account.getThemes": lambda req: types.account.Themes(hash=0, themes=[]),
    "account.getChatThemes": lambda req: types.account.Themes(hash=0, themes=[]),
    "account.getRecentEmojiStatuses": lambda req: empty_emoji_statuses(),
    "account.getCollectibleEmojiStatuses": lambda req: empty_emoji_statuses(),
    "account.getDefaultProfilePhotoEmojis": lambda req: empty_emoji_list(),
    "account.getDefaultGroupPhotoEmojis": lambda req: empty_emoji_list(),
    "account.getDefaultBackgroundEmojis": lambda req: empty_emoji_list(),
    "account.getChannelRestrictedStatusEmojis": lambda req: empty_emoji_list(),
    "account.getWebAuthorizations": lambda req: types.account.WebAuthorizations(authorizations=[], users=[]),
    "account.getConnectedBots": lambda req: types.account.ConnectedBots(connected_bots=[], users=[]),
    "account.getReactionsNotifySettings": lambda req: types.ReactionsNotifySettings(
        sound=types.NotificationSoundDefault(), show_previews=True
    ),
    "account.registerDevice": lambda req: True,
    "account.unregisterDevice": lambda req: True,
    "messages.getAvailableEffects": lambda req: types.messages.AvailableEffects(
        hash=0, effects=[], documents=[]
    ),
    "messages.getAttachMenuBots": lambda req: types.AttachMenuBots(hash=0, bots=[], users=[]),
    "messages.getQuickReplies": lambda req: types.messages.QuickReplies(
        quick_replies=[], messages=[], chats=[], users=[]
    ),
    "contacts.getTopPeers": lambda req: types.contacts.TopPeers(categories=[], chats=[], users=[]),
    "users.getRequirementsToContact": lambda req: [types.RequirementToContactEmpty() for _ in req.id[:200]],
    "messages.getDefaultHistoryTTL": lambda req: types.DefaultHistoryTTL(period=0),
    # No paid reactions here, so everyone has the default; Web K reads updates[0].private.
    "messages.getPaidReactionPrivacy": lambda req: updates_to_tl(
        [types.UpdatePaidReactionPrivacy(private=types.PaidReactionPrivacyDefault())], []
    ),
    # Web K's profile of a user or chat lists its pinned stories; there are none here.
    "stories.getPinnedStories": lambda req: types.stories.Stories(count=0, stories=[], chats=[], users=[]),
    # ...and My Profile its story albums.
    "stories.getAlbums": lambda req: types.stories.Albums(hash=0, albums=[]),
    "stories.getAllStories": lambda req: types.stories.AllStories(
        count=0, state="", peer_stories=[], chats=[], users=[], stealth_mode=types.StoriesStealthMode()
    ),
}


def contact_status_to_tl(user: User):
    return types.ContactStatus(user_id=user.id, status=status_to_tl(user))


def resolved_peer_to_tl(peer, chats: list, users: list):
    return types.contacts.ResolvedPeer(peer=peer, chats=list(chats), users=users)


def peer_settings_update_to_tl(user_id: int):
    # After adding a contact the chat's "add contact" bar goes away.
    return types.UpdatePeerSettings(peer=peer_user(user_id), settings=types.PeerSettings())
