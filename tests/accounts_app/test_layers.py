"""Every start-up answer encodes for every layer whose clients can ask for it."""

import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from accounts_app import tl_convert, tl_convert_absent, tl_convert_settings, two_step
from tl import layers, types
from tl.errors import RpcError
from tl.translate import primary_classes

SCHEMA_DIR = Path(__file__).resolve().parents[2] / "tl" / "schema"


def functions_of(layer: int) -> set[str]:
    text = (SCHEMA_DIR / f"api-{layer}.tl").read_text()
    functions = text.split("---functions---", 1)[1]
    return set(re.findall(r"^([a-zA-Z][\w.]*)#[0-9a-f]+", functions, re.M))


REQUEST = SimpleNamespace(
    hash=0,
    lang_code="en",
    from_version=0,
    key=types.InputPrivacyKeyPhoneNumber(),
    id=[types.InputUserSelf()],
)
ANSWERS = {
    **tl_convert.STARTUP_ANSWERS_NO_AUTH,
    **tl_convert.STARTUP_ANSWERS,
    **tl_convert_absent.ABSENT_ANSWERS,
}


@pytest.mark.parametrize("layer", layers.SUPPORTED)
def test_startup_answers_encode_for_each_layer(layer):
    known = functions_of(layer)
    asked = [name for name in ANSWERS if name in known]
    assert len(asked) > 20  # the schema parse found the functions (layer 150 knows 29)
    for name in asked:
        try:
            built = ANSWERS[name](REQUEST)
        except RpcError:
            continue  # an error answer ("nothing here" for an action): nothing to encode
        # As the dispatcher does: the answer in the form this layer's function returns.
        answer = layers.result_for_layer(built, primary_classes()[name], layer)
        if isinstance(answer, list):
            continue  # Vector results: encoded item by item by the dispatcher
        assert layers.encode(answer, layer), name


@pytest.mark.parametrize("layer", layers.SUPPORTED)
def test_login_and_user_objects_encode_for_each_layer(layer):
    user = types.User(
        id=5, self=True, access_hash=7, first_name="A", phone="1", status=types.UserStatusRecently()
    )
    for obj in (
        types.auth.Authorization(user=user),
        tl_convert.sign_up_required_to_tl(),
        tl_convert_settings.password_to_tl(two_step.PasswordState(has_password=False), 3, b"\1" * 256),
        tl_convert_settings.password_to_tl(
            two_step.PasswordState(has_password=True, salt1=b"s", salt2=b"t", srp_id=1, srp_b=b"b", hint="h"),
            3,
            b"\1" * 256,
        ),
        types.users.UserFull(
            full_user=types.UserFull(
                id=5,
                settings=types.PeerSettings(),
                notify_settings=types.PeerNotifySettings(),
                common_chats_count=0,
            ),
            chats=[],
            users=[user],
        ),
        types.updates.DifferenceTooLong(pts=3),
    ):
        assert layers.encode(obj, layer)
