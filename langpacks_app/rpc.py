"""langpack.*: answered before login too (the language screen comes first)."""

from __future__ import annotations

from asgiref.sync import sync_to_async

from edge_app.registry import rpc
from edge_app.rpc.help import add_config_hook
from langpacks_app import packs, tl_convert
from tl import functions


@rpc(functions.langpack.GetLanguages, auth=False)
async def get_languages(ctx, req: functions.langpack.GetLanguages):
    found = await sync_to_async(packs.languages)(req.lang_pack)
    return [tl_convert.language_to_tl(lang) for lang in found]


@rpc(functions.langpack.GetLanguage, auth=False)
async def get_language(ctx, req: functions.langpack.GetLanguage):
    return tl_convert.language_to_tl(await sync_to_async(packs.language)(req.lang_pack, req.lang_code))


@rpc(functions.langpack.GetLangPack, auth=False)
async def get_lang_pack(ctx, req: functions.langpack.GetLangPack):
    return tl_convert.difference_to_tl(await sync_to_async(packs.difference)(req.lang_pack, req.lang_code, 0))


@rpc(functions.langpack.GetDifference, auth=False)
async def get_difference(ctx, req: functions.langpack.GetDifference):
    d = await sync_to_async(packs.difference)(req.lang_pack, req.lang_code, req.from_version)
    return tl_convert.difference_to_tl(d)


@rpc(functions.langpack.GetStrings, auth=False)
async def get_strings(ctx, req: functions.langpack.GetStrings):
    found = await sync_to_async(packs.strings)(req.lang_pack, req.lang_code, list(req.keys))
    return [tl_convert.string_to_tl(s) for s in found]


@add_config_hook
async def _suggested_language(ctx, config) -> None:
    """Web K compares suggested_lang_code with its own and, with none, asks for lang ""."""
    client = getattr(ctx, "client", None)
    lang_pack = client.lang_pack if client is not None else ""
    code, version = await sync_to_async(packs.suggested_language)(lang_pack[:64])
    config.suggested_lang_code = code
    config.lang_pack_version = version
    config.base_lang_pack_version = version
