"""help.getCountriesList and the country help.getNearestDc names for a logged-in user."""

from __future__ import annotations

from asgiref.sync import sync_to_async

from accounts_app import countries, tl_convert
from accounts_app.models import User
from edge_app import registry
from edge_app.registry import rpc
from edge_app.rpc.help import add_country_hook
from tl import functions, types


@rpc(functions.help.GetCountriesList, auth=False)
async def get_countries_list(ctx, req: functions.help.GetCountriesList):
    found, digest = countries.countries(req.lang_code)
    if req.hash == digest:
        return types.help.CountriesListNotModified()
    return tl_convert.countries_to_tl(found, digest)


@add_country_hook
async def _country_of_own_phone(ctx) -> str:
    if getattr(ctx, "perm_auth_key_id", None) is None:
        return ""
    user_id = await registry.authorize(ctx)
    if user_id is None:
        return ""
    phone = await User.objects.filter(id=user_id).values_list("phone", flat=True).afirst()
    return await sync_to_async(countries.country_of_phone)(phone) if phone else ""
