"""TL objects of the edge's own answers (help.getConfig, help.getNearestDc)."""

from __future__ import annotations

from edge_app.dc import CONFIG_TTL, Endpoint, Limits
from tl import types


def dc_option_to_tl(ep: Endpoint) -> types.DcOption:
    return types.DcOption(
        id=ep.dc_id, ip_address=ep.host, port=ep.port, media_only=ep.media_only, ipv6=ep.ipv6
    )


def config_to_tl(now: int, this_dc: int, endpoints: list[Endpoint], limits: Limits) -> types.Config:
    return types.Config(
        date=now,
        expires=now + CONFIG_TTL,
        test_mode=False,
        this_dc=this_dc,
        dc_options=[dc_option_to_tl(ep) for ep in endpoints],
        dc_txt_domain_name="",
        chat_size_max=limits.chat_size_max,
        megagroup_size_max=limits.megagroup_size_max,
        forwarded_count_max=limits.forwarded_count_max,
        online_update_period_ms=limits.online_update_period_ms,
        offline_blur_timeout_ms=limits.offline_blur_timeout_ms,
        offline_idle_timeout_ms=limits.offline_idle_timeout_ms,
        online_cloud_timeout_ms=limits.online_cloud_timeout_ms,
        notify_cloud_delay_ms=limits.notify_cloud_delay_ms,
        notify_default_delay_ms=limits.notify_default_delay_ms,
        push_chat_period_ms=limits.push_chat_period_ms,
        push_chat_limit=limits.push_chat_limit,
        edit_time_limit=limits.edit_time_limit,
        revoke_time_limit=limits.revoke_time_limit,
        revoke_pm_time_limit=limits.revoke_pm_time_limit,
        rating_e_decay=limits.rating_e_decay,
        stickers_recent_limit=limits.stickers_recent_limit,
        channels_read_media_period=limits.channels_read_media_period,
        call_receive_timeout_ms=limits.call_receive_timeout_ms,
        call_ring_timeout_ms=limits.call_ring_timeout_ms,
        call_connect_timeout_ms=limits.call_connect_timeout_ms,
        call_packet_timeout_ms=limits.call_packet_timeout_ms,
        me_url_prefix="https://t.me/",
        caption_length_max=limits.caption_length_max,
        message_length_max=limits.message_length_max,
        webfile_dc_id=this_dc,
        reactions_default=types.ReactionEmoji(emoticon="\N{THUMBS UP SIGN}"),
    )


def nearest_dc_to_tl(country: str, this_dc: int) -> types.NearestDc:
    return types.NearestDc(country=country, this_dc=this_dc, nearest_dc=this_dc)
