"""What Web K (layer 227) reads on its first screens and threw on before: the country of
the phone field and its list, the login-code card, the paid-reaction privacy, the
language, and user ids that collide with none it reserves (issue 43)."""

import pytest
from django.test import override_settings

from accounts_app.models import USER_ID_BASE
from tests.accounts_app.test_rpc import call, login, send_code
from tl import functions, types

pytestmark = pytest.mark.django_db(transaction=True)


async def test_countries_list_has_codes_patterns_and_names(make_ctx):
    ctx = make_ctx()
    found = await call(ctx, functions.help.GetCountriesList(lang_code="de", hash=0))
    by_iso = {c.iso2: c for c in found.countries}
    assert len(by_iso) > 200
    germany = by_iso["DE"]
    assert germany.default_name == "Germany" and germany.name == "Deutschland"
    assert germany.country_codes[0].country_code == "49" and "X" in germany.country_codes[0].patterns[0]
    assert by_iso["US"].country_codes[0].country_code == "1" and not by_iso["US"].country_codes[0].prefixes
    assert by_iso["AG"].country_codes[0].prefixes == ["268"]  # shares +1: told apart by area code
    assert "XT" not in by_iso  # test numbers are off
    again = await call(ctx, functions.help.GetCountriesList(lang_code="de", hash=found.hash))
    assert isinstance(again, types.help.CountriesListNotModified)


@override_settings(TEST_PHONE_NUMBERS=True)
async def test_countries_list_has_the_test_prefix_while_test_numbers_are_on(make_ctx):
    found = await call(make_ctx(), functions.help.GetCountriesList(lang_code="en", hash=0))
    (test,) = [c for c in found.countries if c.iso2 == "XT"]
    assert test.country_codes[0].country_code == "999"  # 99966XYYYY


async def test_nearest_dc_names_a_logged_in_users_country(make_ctx):
    ctx = make_ctx()
    assert (await call(ctx, functions.help.GetNearestDc())).country == "US"  # the default
    await login(ctx, "4915112345678")
    assert (await call(ctx, functions.help.GetNearestDc())).country == "DE"


async def test_new_accounts_get_ids_no_client_reserves(make_ctx):
    me = await login(make_ctx(), "15557770001")
    assert me.id >= USER_ID_BASE


async def test_log_delivery_is_announced_as_a_text_at_every_layer(make_ctx):
    from tl import layers

    sent, _ = await send_code(make_ctx(), "15557770002")
    assert isinstance(sent.type, types.auth.SentCodeTypeSms)
    for layer in layers.SUPPORTED:
        back = layers.decode(layers.encode(sent, layer), layer)
        assert isinstance(back.type, types.auth.SentCodeTypeSms) and back.type.length == sent.type.length


async def test_paid_reaction_privacy_is_answered_with_its_update(make_ctx):
    ctx = make_ctx()
    await login(ctx, "15557770003")
    answer = await call(ctx, functions.messages.GetPaidReactionPrivacy())
    (update,) = answer.updates  # Web K reads updates[0].private
    assert isinstance(update, types.UpdatePaidReactionPrivacy)
    assert isinstance(update.private, types.PaidReactionPrivacyDefault)


async def test_an_empty_lang_code_is_english(make_ctx):
    ctx = make_ctx()
    assert await call(ctx, functions.langpack.GetStrings(lang_pack="webk", lang_code="", keys=["A"])) == []
    pack = await call(ctx, functions.langpack.GetLangPack(lang_pack="webk", lang_code=""))
    assert pack.lang_code == "en"
    assert (await call(ctx, functions.langpack.GetLanguage(lang_pack="webk", lang_code=""))).lang_code == "en"
