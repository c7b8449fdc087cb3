"""help.* methods the handshake needs before any login."""

from __future__ import annotations

import time

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


@rpc(functions.help.GetNearestDc, auth=False)
async def get_nearest_dc(ctx, req):
    # No GeoIP here: the country is unknown, and this DC is the nearest one there is.
    return tl_convert.nearest_dc_to_tl("", dc.this_dc())
