"""Methods bots may not use (installed as an edge gate): they answer BOT_METHOD_INVALID,
as on Telegram, where bots have no dialog list, history search or contacts, and cannot
join chats by themselves (they are added by an admin)."""

from __future__ import annotations

from tl.errors import BotMethodInvalidError

from . import send_rules

USER_ONLY = frozenset({
    "messages.getDialogs", "messages.getPeerDialogs", "messages.getPinnedDialogs", "messages.search",
    "messages.searchGlobal", "messages.getHistory", "messages.importChatInvite", "messages.checkChatInvite",
    "channels.joinChannel", "contacts.getContacts", "contacts.importContacts", "contacts.addContact",
    "contacts.search", "messages.getInlineBotResults", "messages.getBotCallbackAnswer", "messages.startBot",
    "messages.saveDraft", "messages.getAllDrafts", "account.getAuthorizations", "messages.createChat",
    "channels.createChannel", "bots.createBot",
})  # fmt: skip


async def gate(tl_name: str, user_id: int) -> None:
    if tl_name in USER_ONLY and (await send_rules.are_bots(user_id))[user_id]:
        raise BotMethodInvalidError()
