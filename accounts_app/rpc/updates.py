"""updates.getState / updates.getDifference over the account update log."""

from __future__ import annotations

from datetime import UTC, datetime

from asgiref.sync import sync_to_async

from accounts_app import tl_convert, updates
from accounts_app.rpc.context import viewer_id
from edge_app.registry import rpc
from tl import functions


@rpc(functions.updates.GetState)
async def get_state(ctx, req: functions.updates.GetState):
    state = await sync_to_async(updates.get_state)(viewer_id(ctx))
    return tl_convert.state_to_tl(state.pts, state.date)


@rpc(functions.updates.GetDifference)
async def get_difference(ctx, req: functions.updates.GetDifference):
    me = viewer_id(ctx)
    since = datetime.fromtimestamp(max(0, req.date or 0), tz=UTC)
    diff = await updates.do_get_difference(
        me, req.pts, since, pts_limit=req.pts_limit, pts_total_limit=req.pts_total_limit
    )
    rendered = await updates.render_events(diff.events, me)
    rendered.extend(diff.extra)
    return await tl_convert.difference_to_tl(diff, rendered, me)
