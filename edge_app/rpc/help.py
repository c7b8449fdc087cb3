"""help.* methods the handshake needs before any login."""

from __future__ import annotations

import time

from edge_app import dc, tl_convert
from edge_app.registry import rpc
from tl import functions


@rpc(functions.help.GetConfig, auth=False)
async def get_config(ctx, req):
    return tl_convert.config_to_tl(int(time.time()), dc.this_dc(), dc.endpoints(), dc.LIMITS)


@rpc(functions.help.GetNearestDc, auth=False)
async def get_nearest_dc(ctx, req):
    # No GeoIP here: the country is unknown, and this DC is the nearest one there is.
    return tl_convert.nearest_dc_to_tl("", dc.this_dc())
