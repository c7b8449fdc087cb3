import builtins
import csv
import re

import pytest

from tl import errors
from tl.errors import ChannelPrivateError, FloodWaitError, RpcError

DESIGN_ERRORS = [
    "CHANNEL_PRIVATE",
    "CHANNEL_INVALID",
    "CHAT_ADMIN_REQUIRED",
    "USER_ALREADY_PARTICIPANT",
    "INVITE_HASH_INVALID",
    "INVITE_REQUEST_SENT",
    "USERS_TOO_MUCH",
    "MESSAGE_ID_INVALID",
    "MSG_ID_INVALID",
    "REPLY_MESSAGE_ID_INVALID",
    "SLOWMODE_WAIT_X",
    "FLOOD_WAIT_X",
    "PERSISTENT_TIMESTAMP_INVALID",
    "USERNAME_OCCUPIED",
    "USERNAME_INVALID",
    "USERNAME_NOT_MODIFIED",
    "CHAT_NOT_MODIFIED",
    "PHOTO_INVALID",
    "STICKERSET_INVALID",
    "AUTH_KEY_UNREGISTERED",
    "PHONE_CODE_INVALID",
    "SESSION_PASSWORD_NEEDED",
    "INTERNAL",
    "METHOD_INVALID",
    "USER_KICKED",
]


def test_contract_examples():
    e = ChannelPrivateError()
    assert (e.code, e.message) == (400, "CHANNEL_PRIVATE")
    f = FloodWaitError(seconds=30)
    assert (f.code, f.message, f.seconds) == (420, "FLOOD_WAIT_30", 30)
    assert isinstance(f, RpcError) and isinstance(f, errors.FloodError)
    adhoc = RpcError(400, "SOMETHING_ELSE")
    assert (adhoc.code, adhoc.message) == (400, "SOMETHING_ELSE")
    assert errors.AuthKeyUnregisteredError().code == 401
    assert errors.InternalError().code == 500
    assert errors.NotImplementedRpcError().message == "NOT_IMPLEMENTED"
    assert not hasattr(errors, "NotImplementedError")


def test_param_errors_need_their_number():
    with pytest.raises(TypeError):
        FloodWaitError()
    assert errors.SlowmodeWaitError(seconds=5).message == "SLOWMODE_WAIT_5"
    assert errors.PhoneMigrateError(value=2).message == "PHONE_MIGRATE_2"


@pytest.mark.parametrize("message", DESIGN_ERRORS)
def test_design_errors_are_named(message):
    cls = errors.BY_MESSAGE[message]
    assert cls.message == message


def test_csv_class_names_follow_the_rule():
    with errors.CSV_PATH.open() as f:
        for row in csv.DictReader(f):
            base = re.sub(r"_X$", "", row["message"])  # a middle X stays: FILE_PART_X_MISSING
            name = "".join(p.capitalize() for p in base.split("_")) + "Error"
            name = re.sub(r"^2", "Two", name)  # an identifier: 2FA_CONFIRM_WAIT_X -> TwofaConfirmWaitError
            if hasattr(builtins, name):  # NOT_IMPLEMENTED must not shadow the builtin
                name = name[: -len("Error")] + "RpcError"
            assert row["class"] == name
            assert int(row["code"]) in (303, 400, 401, 403, 406, 420, 500)


def test_to_tl_and_from_rpc():
    tl_err = ChannelPrivateError().to_tl()
    assert (tl_err.error_code, tl_err.error_message) == (400, "CHANNEL_PRIVATE")
    assert isinstance(errors.from_rpc(420, "FLOOD_WAIT_7"), FloodWaitError)
    assert errors.from_rpc(420, "FLOOD_WAIT_7").seconds == 7
    assert errors.FilePartXMissingError(3).message == "FILE_PART_3_MISSING"
    assert errors.from_rpc(400, "FILE_PART_12_MISSING").value == 12
    assert type(errors.from_rpc(400, "NO_SUCH_THING")) is RpcError


def test_detail_goes_to_the_log_not_the_client():
    e = errors.ChannelInvalidError("channel 5 has no such access hash")
    assert (e.code, e.message) == (400, "CHANNEL_INVALID")
    assert "channel 5" in str(e) and e.to_tl().error_message == "CHANNEL_INVALID"
