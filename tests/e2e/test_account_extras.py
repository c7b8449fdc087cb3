"""The account calls Telegram Desktop's settings screens make beyond the basic ones,
driven through Telethon: two-step password reset with its waiting period (declined
from the other session), the "was it you?" link of a pending deletion
(sendConfirmPhoneCode / confirmPhone), the one-username toggle/reorder rules, saved
ringtones synced to the user's second session, and the Stars / gift / revenue calls'
empty answers."""

from __future__ import annotations

import asyncio
import contextlib
import re
from datetime import timedelta

import pytest
from django.utils import timezone

from accounts_app.models import AccountSettings, TwoStepPassword
from tests.e2e.test_channels import collect, logged_in, second_session, wait_for

pytestmark = pytest.mark.django_db(transaction=True)


@contextlib.contextmanager
def rpc_error(name: str):
    """Telegram's error by its name (Telethon words the ones it knows differently)."""
    from telethon import errors

    with pytest.raises(errors.RPCError) as info:
        yield
    # Unknown errors keep Telegram's text; known ones become a class named after it.
    camel = "".join(part.capitalize() for part in name.split("_"))
    assert info.value.message.startswith(name) or type(info.value).__name__.startswith(camel), repr(
        info.value
    )


async def test_password_reset_waits_and_can_be_declined(edge_server, edge_db, clients):
    from telethon import functions, types

    alice, a, phone, code = await logged_in(edge_server, "Alice", clients)
    with rpc_error("PASSWORD_MISSING"):
        await a(functions.account.ResetPasswordRequest())
    assert await a.edit_2fa(new_password="forgotten")
    a2 = await _second_session_with_password(edge_server, phone, code, clients)

    # The reset is requested: it waits Telegram's week, the password still works.
    first = await a(functions.account.ResetPasswordRequest())
    assert isinstance(first, types.account.ResetPasswordRequestedWait)
    assert first.until_date.timestamp() > timezone.now().timestamp() + 6 * 86400
    again = await a(functions.account.ResetPasswordRequest())
    assert again.until_date == first.until_date
    state = await a2(functions.account.GetPasswordRequest())
    assert state.has_password and state.pending_reset_date == first.until_date

    # The other session declines it: no reset pends, a new request must wait.
    assert await a2(functions.account.DeclinePasswordResetRequest())
    with rpc_error("RESET_REQUEST_MISSING"):
        await a2(functions.account.DeclinePasswordResetRequest())
    assert (await a(functions.account.GetPasswordRequest())).pending_reset_date is None
    refused = await a(functions.account.ResetPasswordRequest())
    assert isinstance(refused, types.account.ResetPasswordFailedWait)

    # Once the wait has passed, the same call removes the password.
    past = timezone.now() - timedelta(seconds=1)
    await TwoStepPassword.objects.filter(user_id=alice.id).aupdate(reset_at=past, reset_retry_at=None)
    done = await a(functions.account.ResetPasswordRequest())
    assert isinstance(done, types.account.ResetPasswordOk)
    assert (await a2(functions.account.GetPasswordRequest())).has_password is False


async def _second_session_with_password(server, phone, code, clients):
    from tests.e2e.test_two_step import _second_device_sign_in

    b = await _second_device_sign_in(server, phone, code, clients)
    await b.sign_in(password="forgotten")
    return b


async def test_confirm_phone_stops_a_pending_deletion(edge_server, edge_db, clients):
    from telethon import errors, functions

    alice, a, phone, code = await logged_in(edge_server, "Alice", clients)
    assert await a.edit_2fa(new_password="pw")
    with rpc_error("HASH_INVALID"):
        await a(functions.account.SendConfirmPhoneCodeRequest(hash="nothing-pending", settings=_settings()))
    with pytest.raises(errors.TwoFaConfirmWaitError):
        await a(functions.account.DeleteAccountRequest(reason="bye"))
    assert (await AccountSettings.objects.aget(user_id=alice.id)).delete_at is not None

    # The service account sent the link; its hash asks for a code to the number.
    link_hash = None

    async def find_link():
        nonlocal link_hash
        try:
            messages = await a.get_messages(777000, limit=5)
        except ValueError:  # the service chat is not in Telethon's cache yet
            await a.get_dialogs()
            return None
        for m in messages:
            found = re.search(r"confirmphone\?phone=(\d+)&hash=(\w+)", m.message or "")
            if found:
                assert found.group(1) == phone
                link_hash = found.group(2)
        return link_hash

    for _ in range(100):
        if await find_link():
            break
        await asyncio.sleep(0.1)
    assert link_hash, "no confirmphone link from the service account"
    with rpc_error("HASH_INVALID"):
        await a(
            functions.account.SendConfirmPhoneCodeRequest(hash=link_hash[:-1] + "x", settings=_settings())
        )
    sent = await a(functions.account.SendConfirmPhoneCodeRequest(hash=link_hash, settings=_settings()))
    with pytest.raises(errors.PhoneCodeInvalidError):
        await a(
            functions.account.ConfirmPhoneRequest(phone_code_hash=sent.phone_code_hash, phone_code="00000")
        )
    assert (await AccountSettings.objects.aget(user_id=alice.id)).delete_at is not None
    assert await a(
        functions.account.ConfirmPhoneRequest(phone_code_hash=sent.phone_code_hash, phone_code=code)
    )
    assert (await AccountSettings.objects.aget(user_id=alice.id)).delete_at is None
    # The link names that deletion only: it is dead now.
    with rpc_error("HASH_INVALID"):
        await a(functions.account.SendConfirmPhoneCodeRequest(hash=link_hash, settings=_settings()))


def _settings():
    from telethon import types

    return types.CodeSettings()


async def test_one_username_toggle_and_reorder(edge_server, edge_db, clients):
    from telethon import errors, functions

    alice, a, _p, _c = await logged_in(edge_server, "Alice", clients)
    assert await a(functions.account.ReorderUsernamesRequest(order=[]))
    with rpc_error("ORDER_INVALID"):
        await a(functions.account.ReorderUsernamesRequest(order=["someone_else"]))
    await a(functions.account.UpdateUsernameRequest(username=f"alice_{alice.id}"))
    assert await a(functions.account.ReorderUsernamesRequest(order=[f"Alice_{alice.id}"]))
    with pytest.raises(errors.UsernameNotModifiedError):
        await a(functions.account.ToggleUsernameRequest(username=f"alice_{alice.id}", active=False))
    with pytest.raises(errors.UsernameInvalidError):
        await a(functions.account.ToggleUsernameRequest(username="collectible_name", active=True))
    me = await a.get_me()
    assert me.username == f"alice_{alice.id}"


async def test_saved_ringtones_reach_the_second_session(edge_server, edge_db, clients):
    from telethon import events, functions, types

    _alice, a, phone, code = await logged_in(edge_server, "Alice", clients)
    a2 = await second_session(edge_server, phone, code, clients)
    changed = []
    a2.add_event_handler(collect(changed), events.Raw(types.UpdateSavedRingtones))
    await a2.get_dialogs()
    empty = await a2(functions.account.GetSavedRingtonesRequest(hash=0))
    assert empty.ringtones == []

    sound = b"ID3" + bytes(range(256)) * 40
    uploaded = await a.upload_file(sound, file_name="ding.mp3")
    with rpc_error("RINGTONE_MIME_INVALID"):
        await a(
            functions.account.UploadRingtoneRequest(
                file=uploaded, file_name="ding.mp3", mime_type="image/png"
            )
        )
    uploaded = await a.upload_file(sound, file_name="ding.mp3")
    doc = await a(
        functions.account.UploadRingtoneRequest(file=uploaded, file_name="ding.mp3", mime_type="audio/mpeg")
    )
    assert doc.mime_type == "audio/mpeg" and doc.size == len(sound)
    await wait_for(lambda: changed)

    listed = await a2(functions.account.GetSavedRingtonesRequest(hash=0))
    assert [d.id for d in listed.ringtones] == [doc.id]
    assert isinstance(
        await a2(functions.account.GetSavedRingtonesRequest(hash=listed.hash)),
        types.account.SavedRingtonesNotModified,
    )
    # The downloaded ringtone is the uploaded sound.
    assert await a2.download_media(listed.ringtones[0], file=bytes) == sound

    ref = types.InputDocument(id=doc.id, access_hash=doc.access_hash, file_reference=doc.file_reference)
    changed.clear()
    assert await a(functions.account.SaveRingtoneRequest(id=ref, unsave=True))
    await wait_for(lambda: changed)
    assert (await a2(functions.account.GetSavedRingtonesRequest(hash=0))).ringtones == []
    assert await a(functions.account.SaveRingtoneRequest(id=ref, unsave=False))
    assert len((await a2(functions.account.GetSavedRingtonesRequest(hash=0))).ringtones) == 1
    bad = types.InputDocument(id=doc.id, access_hash=doc.access_hash + 1, file_reference=doc.file_reference)
    with rpc_error("RINGTONE_INVALID"):
        await a(functions.account.SaveRingtoneRequest(id=bad, unsave=False))


async def test_stars_gift_and_revenue_screens_get_empty_answers(edge_server, edge_db, clients):
    from telethon import functions, types

    _alice, a, _p, _c = await logged_in(edge_server, "Alice", clients)
    me = types.InputPeerSelf()
    stats = await a(functions.payments.GetStarsRevenueStatsRequest(peer=me))
    assert stats.status.current_balance.amount == 0 and isinstance(stats.revenue_graph, types.StatsGraphError)
    gifts = await a(functions.payments.GetSavedStarGiftsRequest(peer=me, offset="", limit=10))
    assert gifts.count == 0 and gifts.gifts == []
    assert (
        await a(functions.account.GetPaidMessagesRevenueRequest(user_id=types.InputUserSelf()))
    ).stars_amount == 0
    assert (await a(functions.account.GetBusinessChatLinksRequest())).links == []
    archive = await a(functions.stories.GetStoriesArchiveRequest(peer=me, offset_id=0, limit=10))
    assert archive.count == 0
    with rpc_error("GIFT_SLUG_INVALID"):
        await a(functions.payments.CheckGiftCodeRequest(slug="abc"))
    with rpc_error("BALANCE_TOO_LOW"):
        await a(functions.payments.GetStarsRevenueWithdrawalUrlRequest(
            peer=me, password=types.InputCheckPasswordEmpty(), amount=1
        ))  # fmt: skip


async def test_business_settings_and_emoji_status_are_premium_only(edge_server, edge_db, clients):
    from telethon import functions, types

    _alice, a, _p, _c = await logged_in(edge_server, "Alice", clients)
    with rpc_error("PREMIUM_ACCOUNT_REQUIRED"):
        await a(functions.account.UpdateBusinessLocationRequest(address="Main street 1"))
    assert await a(functions.account.UpdateBusinessLocationRequest())  # clearing: nothing set
    with rpc_error("PREMIUM_ACCOUNT_REQUIRED"):
        await a(functions.account.UpdateEmojiStatusRequest(emoji_status=types.EmojiStatus(document_id=5)))
    assert await a(functions.account.UpdateEmojiStatusRequest(emoji_status=types.EmojiStatusEmpty()))
    assert (await a(functions.account.GetSavedMusicIdsRequest(hash=0))).ids == []
