"""Every method docs/startup-calls.md lists is called through Telethon (its request
built with "empty" arguments) and must not answer METHOD_INVALID: the document and the
registered handlers cannot drift apart. Any other answer, errors included, is fine here:
the per-feature tests check the answers themselves."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest

from tests.e2e.test_channels import logged_in

pytestmark = pytest.mark.django_db(transaction=True)

DOC = Path(__file__).resolve().parents[2] / "docs" / "startup-calls.md"
# Called last, in this order: they end the session or the account.
LAST = ("auth.resetAuthorizations", "auth.logOut", "account.deleteAccount")


def documented_methods() -> list[str]:
    text = DOC.read_text(encoding="utf-8").split("## Known gaps", 1)[0]
    names: list[str] = []
    for line in text.splitlines():
        if not line.startswith("| `"):
            continue
        cell = line.split("|")[1]
        namespace = None
        for token in re.findall(r"`([^`]+)`", cell):
            if re.fullmatch(r"[a-z]+\.[a-zA-Z]+", token):
                namespace = token.split(".")[0]
                names.append(token)
            elif namespace and re.fullmatch(r"[a-z][a-zA-Z]+", token):
                names.append(f"{namespace}.{token}")
    return list(dict.fromkeys(names))


def _value(annotation: str, types):
    a = annotation.replace("typing.", "")
    if a.startswith("Optional["):
        return None
    if a.startswith("List["):
        return []
    simple = {"int": 0, "str": "", "bytes": b"", "bool": False, "float": 0.0, "datetime": None}
    if a in simple:
        return simple[a]
    known = {
        "TypeInputPeer": types.InputPeerSelf(),
        "TypeInputUser": types.InputUserSelf(),
        "TypeInputChannel": types.InputChannelEmpty(),
        "TypeInputDialogPeer": types.InputDialogPeer(types.InputPeerSelf()),
        "TypeReaction": types.ReactionEmoji("\N{THUMBS UP SIGN}"),
        "TypeInputStickerSet": types.InputStickerSetEmpty(),
        "TypeInputPrivacyKey": types.InputPrivacyKeyPhoneNumber(),
        "TypeCodeSettings": types.CodeSettings(),
        "TypeAutoDownloadSettings": types.AutoDownloadSettings(0, 0, 0, 0, 0, 0),
        "TypeGlobalPrivacySettings": types.GlobalPrivacySettings(),
        "TypeAccountDaysTTL": types.AccountDaysTTL(365),
        "TypeInputCheckPasswordSRP": types.InputCheckPasswordEmpty(),
        "TypeDataJSON": types.DataJSON("{}"),
        "TypeInputWallPaper": types.InputWallPaperNoFile(0),
        "TypeInputFile": types.InputFile(0, 1, "f.jpg", ""),
        "TypeInputChatPhoto": types.InputChatPhotoEmpty(),
        "TypeInputPhoto": types.InputPhotoEmpty(),
        "TypeInputMedia": types.InputMediaEmpty(),
        "TypeInputNotifyPeer": types.InputNotifyUsers(),
        "TypeInputPeerNotifySettings": types.InputPeerNotifySettings(),
        "TypeEmailVerification": types.EmailVerificationCode(""),
        "TypeInputMessage": types.InputMessageID(1),
        "TypeInputDocument": types.InputDocumentEmpty(),
        "TypeWallPaperSettings": types.WallPaperSettings(),
        "TypeEmojiStatus": types.EmojiStatusEmpty(),
        "TypeInputBusinessBotRecipients": types.InputBusinessBotRecipients(),
        "TypeInputSavedStarGift": types.InputSavedStarGiftUser(msg_id=1),
        "TypeInputInvoice": types.InputInvoiceSlug(slug=""),
        "TypeInputStorePaymentPurpose": types.InputStorePaymentPremiumSubscription(),
        "TypeInputBusinessChatLink": types.InputBusinessChatLink(message=""),
    }
    if a in known:
        return known[a]
    raise LookupError(a)


def build_request(name: str):
    from telethon.tl import functions, types

    namespace, _, method = name.rpartition(".")
    cls = getattr(getattr(functions, namespace), method[0].upper() + method[1:] + "Request", None)
    if cls is None:
        raise LookupError(f"Telethon has no {name}")
    args = {}
    for p in list(inspect.signature(cls.__init__).parameters.values())[1:]:
        if p.default is not inspect.Parameter.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        annotation = p.annotation
        if isinstance(annotation, type):
            annotation = annotation.__name__
        elif not isinstance(annotation, str):
            annotation = str(annotation)
        args[p.name] = _value(annotation, types)
    return cls(**args)


def test_the_document_lists_the_methods():
    names = documented_methods()
    assert len(names) > 100
    assert {"auth.exportLoginToken", "messages.getSavedHistory", "langpack.getDifference"} <= set(names)
    # TDesktop's settings screens beyond the basics (password reset, confirm-phone links,
    # usernames, ringtones, Stars/gifts/revenue) are walked too.
    assert {
        "account.resetPassword",
        "account.declinePasswordReset",
        "account.sendConfirmPhoneCode",
        "account.confirmPhone",
        "account.toggleUsername",
        "account.reorderUsernames",
        "account.uploadRingtone",
        "account.saveRingtone",
        "payments.getStarsRevenueStats",
        "payments.getSavedStarGifts",
        "stories.getStoriesArchive",
    } <= set(names)


async def test_no_documented_method_answers_method_invalid(edge_server, edge_db, clients):
    from telethon import errors

    _alice, a, _phone, _code = await logged_in(edge_server, "Alice", clients)
    names = documented_methods()
    ordered = [n for n in names if n not in LAST] + [n for n in LAST if n in names]
    invalid, unbuilt, answered = [], [], 0
    for name in ordered:
        try:
            request = build_request(name)
        except LookupError as exc:
            unbuilt.append(f"{name}: {exc}")
            continue
        try:
            await a(request)
            answered += 1
        except (errors.MethodInvalidError, errors.InputMethodInvalidError):
            invalid.append(name)
        except errors.RPCError:
            answered += 1
        except (TypeError, ValueError) as exc:  # Telethon refused to send the empty request
            unbuilt.append(f"{name}: {exc}")
    assert not invalid, f"documented but METHOD_INVALID: {invalid}"
    # Most methods are really called; the rest could not be built by this generic filler.
    assert answered > 0.85 * len(names), unbuilt
