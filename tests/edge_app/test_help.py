"""help.getConfig / help.getNearestDc: clients must be told to keep talking to us."""

from __future__ import annotations

import time

import pytest
from django.test import override_settings

from edge_app.rpc import help as help_rpc
from tl import layers, types
from tl.runtime import Reader

# The config names the suggested language's pack version (langpacks_app reads it).
pytestmark = pytest.mark.django_db


@override_settings(MTPROTO_PUBLIC_HOST="203.0.113.7", MTPROTO_PUBLIC_PORT=8443, MTPROTO_DC_ID=2)
async def test_config_points_at_the_public_address():
    config = await help_rpc.get_config(None, None)
    assert isinstance(config, types.Config)
    assert config.this_dc == 2
    assert {(o.ip_address, o.port) for o in config.dc_options} == {("203.0.113.7", 8443)}
    assert {o.id for o in config.dc_options if not o.media_only} == {1, 2, 3, 4, 5}
    assert [o.id for o in config.dc_options if o.media_only] == [2]
    assert not any(o.ipv6 or o.cdn for o in config.dc_options)
    assert abs(config.date - time.time()) < 5 and config.expires > config.date
    assert config.message_length_max == 4096 and config.megagroup_size_max > config.chat_size_max


async def test_config_encodes_for_every_shipped_layer():
    config = await help_rpc.get_config(None, None)
    for layer in layers.SUPPORTED:
        data = layers.encode(config, layer)
        back = layers.decode(data, layer)
        assert back.this_dc == config.this_dc and len(back.dc_options) == len(config.dc_options)
    assert Reader(config.to_bytes()).read_object() == config


async def test_nearest_dc_is_this_dc():
    nearest = await help_rpc.get_nearest_dc(None, None)
    assert (nearest.this_dc, nearest.nearest_dc) == (2, 2)


@override_settings(DEFAULT_COUNTRY="de")
async def test_nearest_dc_names_the_operators_country_for_an_unknown_client():
    # Web K's phone field throws on "", Telegram Desktop says "Invalid Country Code".
    assert (await help_rpc.get_nearest_dc(None, None)).country == "DE"


async def test_config_suggests_english():
    # Without a suggestion Web K asked langpack.getStrings for lang "".
    config = await help_rpc.get_config(None, None)
    assert config.suggested_lang_code == "en"
    assert config.lang_pack_version == config.base_lang_pack_version == 0


@override_settings(MTPROTO_PUBLIC_HOST="localhost", MTPROTO_PUBLIC_PORT=443)
async def test_a_host_name_is_advertised_as_an_address():
    config = await help_rpc.get_config(None, None)
    assert {o.ip_address for o in config.dc_options} <= {"127.0.0.1", "::1"}


@override_settings(MTPROTO_PUBLIC_HOST="2001:db8::5", MTPROTO_PUBLIC_PORT=443)
async def test_an_ipv6_address_is_flagged():
    config = await help_rpc.get_config(None, None)
    assert all(o.ipv6 and o.ip_address == "2001:db8::5" for o in config.dc_options)
