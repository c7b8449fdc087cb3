"""help.getAppConfig: the JSON object clients read their limits and feature switches from.

Telegram Desktop falls back to built-in defaults for a missing key, but the web apps
(Web K, Web A) read many keys unchecked (Web K fails to open a private chat with a user
who has a phone number when ``fragment_prefixes`` is missing), so the config carries
every key those three clients read (tests/accounts_app/test_app_config.py lists them).

Values say what this server does: limits it enforces, and "off" for features it does not
have (premium purchase, stars, gifts, stories posting, paid messages). Apps above this
one contribute the limits they own (``contribute``) when Django starts, so the numbers
clients see are the ones their handlers apply. Values are JSON: numbers, booleans,
strings, arrays and objects.
"""

from __future__ import annotations

import json
import zlib
from typing import Any

from django.conf import settings

DAY = 86400

# Keys that are account-level, or features this server has not got ("off" values).
_BASE: dict[str, Any] = {
    "test": 0,
    # limits: *_default for every account (there is no premium; *_premium is the same)
    "about_length_limit_default": 70,
    "about_length_limit_premium": 70,
    "caption_length_limit_default": 1024,
    "caption_length_limit_premium": 1024,
    "channels_limit_default": 1000,
    "channels_limit_premium": 1000,
    "channels_public_limit_default": 10,
    "channels_public_limit_premium": 10,
    "chatlist_invites_limit_default": 0,
    "chatlist_invites_limit_premium": 0,
    "chatlists_joined_limit_default": 0,
    "chatlists_joined_limit_premium": 0,
    "chatlist_joined_limit_default": 0,
    "chatlist_joined_limit_premium": 0,
    "chatlist_update_period": 3600,
    "dialog_filters_enabled": True,
    "dialog_filters_tooltip": False,
    "dialog_filters_limit_default": 10,
    "dialog_filters_limit_premium": 10,
    "dialog_filters_chats_limit_default": 100,
    "dialog_filters_chats_limit_premium": 100,
    "dialogs_pinned_limit_default": 10,
    "dialogs_pinned_limit_premium": 10,
    "dialogs_folder_pinned_limit_default": 10,
    "dialogs_folder_pinned_limit_premium": 10,
    "saved_dialogs_pinned_limit_default": 5,
    "saved_dialogs_pinned_limit_premium": 5,
    "recommended_channels_limit_default": 0,
    "recommended_channels_limit_premium": 0,
    "saved_gifs_limit_default": 200,
    "saved_gifs_limit_premium": 200,
    "stickers_faved_limit_default": 5,
    "stickers_faved_limit_premium": 5,
    "upload_max_fileparts_default": 4000,
    "upload_max_fileparts_premium": 4000,
    "topics_pinned_limit": 5,
    "quote_length_max": 1024,
    "poll_answers_max": 12,
    "todo_items_max": 30,
    "todo_title_length_max": 32,
    "todo_item_length_max": 64,
    "message_animated_emoji_max": 100,
    "hidden_members_group_size_min": 100,
    "forum_upgrade_participants_min": 0,
    "telegram_antispam_group_size_min": 100,
    "telegram_antispam_user_id": "",
    "business_chat_links_limit": 0,
    "contact_note_length_limit": 128,
    "bot_verification_description_length_limit": 70,
    "factcheck_length_limit": 1024,
    "can_edit_factcheck": False,
    # sessions and account
    "authorization_autoconfirm_period": 7 * DAY,
    "autoarchive_setting_available": True,
    "new_noncontact_peers_require_premium_without_ownpremium": False,
    "call_requests_disabled": False,  # private calls work (calls_app)
    "qr_login_camera": False,
    "qr_login_code": "disabled",
    "pending_suggestions": [],
    "freeze_since_date": 0,
    "freeze_until_date": 0,
    "freeze_appeal_url": "",
    "need_age_video_verification": False,
    "verify_age_bot_username": "",
    "verify_age_country": "",
    "verify_age_min": 0,
    # links and domains
    "autologin_domains": [],
    "autologin_token": "",
    "url_auth_domains": [],
    "whitelisted_domains": [],
    "web_app_allowed_protocols": ["http", "https"],
    # No collectible (Fragment) numbers here, but the web apps read the list unchecked.
    "fragment_prefixes": [],
    "ignore_restriction_reasons": [],
    "restriction_add_platforms": [],
    "youtube_pip": "disabled",
    "gif_search_branding": "",
    "gif_search_emojies": [],
    # stickers and emoji: no sticker store yet (stickers_app may override these)
    "emojies_animated_zoom": 0.625,
    "emojies_send_dice": [],
    "emojies_send_dice_success": {},
    "emojies_sounds": {},
    "stickers_emoji_suggest_only_api": False,
    "stickers_emoji_cache_time": 86400,
    "stickers_premium_by_emoji_num": 0,
    "stickers_normal_by_emoji_per_premium_num": 2,
    "default_emoji_statuses_stickerset_id": "0",
    # group calls: video participants per call (calls_app.group_actions.UNMUTED_VIDEO_LIMIT);
    # conference calls: none
    "groupcall_video_participants_max": 30,
    "conference_call_size_limit": 0,
    "confcall_use_vp8": False,
    "round_video_encoding": {
        "diameter": 384,
        "video_bitrate": 1000,
        "audio_bitrate": 64,
        "max_size": 12582912,
    },
    "ringtone_duration_max": 5,
    "ringtone_size_max": 307200,
    "ringtone_saved_count_max": 100,
    "transcribe_audio_trial_weekly_number": 0,
    "transcribe_audio_trial_duration_max": 0,
    "transcribe_audio_trial_cooldown_until": 0,
    # premium, stars, gifts, giveaways, boosts: not on this server
    "premium_purchase_blocked": True,
    "premium_bot_username": "",
    "premium_invoice_slug": "",
    "premium_promo_order": [],
    "premium_playmarket_direct_currency_list": [],
    "premium_gift_attach_menu_icon": False,
    "premium_gift_text_field_icon": False,
    "upload_premium_speedup_notify_period": 0,
    "upload_premium_speedup_download": 0,
    "upload_premium_speedup_upload": 0,
    "stars_purchase_blocked": True,
    "stars_gifts_enabled": False,
    "stargifts_blocked": True,
    "stars_paid_messages_available": False,
    "stars_paid_message_amount_max": 0,
    "stars_paid_message_commission_permille": 0,
    "stars_paid_messages_channel_amount_default": 0,
    "stars_paid_post_amount_max": 0,
    "stars_paid_reaction_amount_max": 0,
    "stars_revenue_withdrawal_min": 0,
    "stars_revenue_withdrawal_max": 0,
    "stars_subscription_amount_max": 0,
    "stars_usd_sell_rate_x1000": 0,
    "stars_usd_withdraw_rate_x1000": 0,
    "stars_stargift_resale_amount_min": 0,
    "stars_stargift_resale_amount_max": 0,
    "stars_stargift_resale_commission_permille": 0,
    "stars_suggested_post_amount_min": 0,
    "stars_suggested_post_amount_max": 0,
    "stars_suggested_post_commission_permille": 0,
    "stars_suggested_post_age_min": 0,
    "stars_suggested_post_future_min": 0,
    "stars_suggested_post_future_max": 0,
    "stargifts_message_length_max": 0,
    "stargifts_convert_period_max": 0,
    "stargifts_pinned_to_top_limit": 0,
    "stargifts_collections_limit": 0,
    "stargifts_collection_gifts_limit": 0,
    "starref_program_allowed": False,
    "starref_connect_allowed": False,
    "starref_min_commission_permille": 0,
    "starref_max_commission_permille": 0,
    "starref_start_param_prefixes": [],
    "ton_blockchain_explorer_url": "",
    "ton_topup_url": "",
    "ton_usd_rate": 0,
    "ton_stargift_resale_amount_min": 0,
    "ton_stargift_resale_amount_max": 0,
    "ton_stargift_resale_commission_permille": 0,
    "ton_suggested_post_amount_min": 0,
    "ton_suggested_post_amount_max": 0,
    "ton_suggested_post_commission_permille": 0,
    "channel_revenue_withdrawal_enabled": False,
    "giveaway_gifts_purchase_available": False,
    "giveaway_add_peers_max": 0,
    "giveaway_boosts_per_premium": 0,
    "giveaway_countries_max": 0,
    "giveaway_period_max": 0,
    "boosts_per_sent_gift": 0,
    "boosts_channel_level_max": 0,
    # Boost levels that unlock channel/group looks; none can be reached without boosts.
    **{
        f"{kind}_{what}_level_min": 1000
        for kind, whats in {
            "channel": (
                "color",
                "bg_icon",
                "profile_bg_icon",
                "emoji_status",
                "wallpaper",
                "custom_wallpaper",
                "restrict_sponsored",
                "autotranslation",
            ),
            "group": (
                "transcribe",
                "emoji_stickers",
                "profile_bg_icon",
                "emoji_status",
                "wallpaper",
                "custom_wallpaper",
            ),
        }.items()
        for what in whats
    },
    # stories: none
    "stories_all_hidden": True,
    "stories_posting": "disabled",
    "stories_export_nopublic_link": False,
    "stories_changelog_user_id": 0,
    "stories_pinned_to_top_count_max": 0,
    "stories_albums_limit": 0,
    "stories_album_stories_limit": 0,
    "story_viewers_expire_period": DAY,
    # translations: none
    "translations_auto_enabled": "disabled",
    "translations_manual_enabled": "disabled",
    # client behaviour
    "getfile_experimental_params": False,
    "ios_disable_parallel_channel_reset": 0,
    "lite_battery_min_pct": 15,
    "lite_device_class": 0,
    "lite_app_options": {
        "chat_open_animation_enabled": [True, True, True],
        "video_autoplay_enabled": [True, True, True],
    },
    "upload_markup_video": False,
    "tdesktop_config_map": {},
    # Web K reads these with "!" (issue 43; tests/accounts_app/test_app_config.py WEB_K_UNCHECKED):
    # a missing one is NaN in its date arithmetic. How long a request to turn on content
    # protection in a private chat stays answerable (chat/bubbles.ts), the stories stealth
    # mode's windows (no stories here, Telegram's values), passkeys an account may hold
    # (none can be registered here).
    "no_forwards_request_expire_period": DAY,
    "stories_stealth_past_period": 300,
    "stories_stealth_future_period": 1500,
    "stories_stealth_cooldown_period": 3 * 3600,
    "passkeys_account_passkeys_max": 0,
}

_contributed: dict[str, Any] = {}
_cache: tuple[dict[str, Any], int] | None = None


def contribute(values: dict[str, Any]) -> None:
    """An app's own limits (called from its AppConfig.ready()); they override the base."""
    global _cache
    _contributed.update(values)
    _cache = None


def current() -> tuple[dict[str, Any], int]:
    """The config and its hash (a CRC of its JSON, so a changed config reaches clients
    that hold the old one)."""
    global _cache
    if _cache is None:
        # The server's release (telesrv_project.version), for operators and support tools;
        # help.getAppUpdate stays noAppUpdate: it offers clients a new build of their own
        # app, which this server does not distribute. Part of the hash: an upgraded server
        # hands clients the new config.
        config = {**_BASE, **_contributed, "telesrv_version": settings.TELESRV_VERSION}
        digest = zlib.crc32(json.dumps(config, sort_keys=True).encode()) & 0x7FFFFFFF
        _cache = (config, digest or 1)
    return _cache
