"""help.* methods the handshake needs before any login."""

from __future__ import annotations

import time

from django.conf import settings

from edge_app import dc, tl_convert
from edge_app.registry import rpc
from tl import functions

# Apps above the edge adjust the config for a logged-in user (accounts_app: the user's
# default reaction): ``async fn(ctx, config)`` changes ``config`` in place.
_config_hooks: list = []


def add_config_hook(fn):
    _config_hooks.append(fn)
    return fn


@rpc(functions.help.GetConfig, auth=False)
async def get_config(ctx, req):
    config = tl_convert.config_to_tl(int(time.time()), dc.this_dc(), dc.endpoints(), dc.LIMITS)
    for hook in _config_hooks:
        await hook(ctx, config)
    return config


# Apps above the edge that know where a client is (accounts_app: a logged-in user's phone
# number): ``async fn(ctx) -> str`` answers an ISO country or "" for "don't know".
_country_hooks: list = []


def add_country_hook(fn):
    _country_hooks.append(fn)
    return fn


def default_country() -> str:
    """The operator's country (TELESRV_DEFAULT_COUNTRY): the phone screen preselects it."""
    return (getattr(settings, "DEFAULT_COUNTRY", "") or "US").upper()[:2]


@rpc(functions.help.GetNearestDc, auth=False)
async def get_nearest_dc(ctx, req):
    """This DC is the nearest one there is. The country must be a real ISO code: Web K's
    phone field throws on "" and Telegram Desktop calls it an invalid country code. No
    GeoIP database here, so a client's address tells nothing; the hooks may."""
    country = ""
    for hook in _country_hooks:
        country = country or await hook(ctx)
    return tl_convert.nearest_dc_to_tl(country or default_country(), dc.this_dc())
