"""Telegram's "nothing here" answers for the Stars, gift, revenue, story-archive and
business-link calls Telegram Desktop's settings screens make (docs/startup-calls.md,
"Features that do not exist here"). Nobody on this server has stars, gifts, revenue,
stories or business links, so the reads answer empty lists and zero balances, and the
actions that would need one of those objects answer Telegram's error for a missing one.

tl_name -> fn(request) -> answer, registered by accounts_app.rpc.startup.
"""

from __future__ import annotations

from tl import types
from tl.errors import (
    BalanceTooLowError,
    ChatlinkSlugExpiredError,
    GiftSlugInvalidError,
    MsgIdInvalidError,
    PaymentUnsupportedError,
    PremiumAccountRequiredError,
    StargiftInvalidError,
    StoryIdInvalidError,
    SubscriptionIdInvalidError,
)


def _refuse(error):
    def answer(req):
        raise error()

    return answer


def _zero():
    return types.StarsAmount(amount=0, nanos=0)


def _no_stories(req):
    return types.stories.Stories(count=0, stories=[], chats=[], users=[])


def _revenue_stats(req):
    status = types.StarsRevenueStatus(
        current_balance=_zero(), available_balance=_zero(), overall_revenue=_zero()
    )
    return types.payments.StarsRevenueStats(
        revenue_graph=types.StatsGraphError(error="No revenue on this server"), status=status, usd_rate=0.0
    )


def _premium_unless_cleared(field: str):
    """Business profile settings are premium-only: setting one is
    PREMIUM_ACCOUNT_REQUIRED, clearing it (the field left out) has nothing to clear."""

    def answer(req):
        if getattr(req, field, None) is not None:
            raise PremiumAccountRequiredError()
        return True

    return answer


def _emoji_status(req):
    if isinstance(getattr(req, "emoji_status", None), (types.EmojiStatusEmpty, type(None))):
        return True  # no status is set here, so clearing one is done
    raise PremiumAccountRequiredError()


ABSENT_ANSWERS = {
    # Stars revenue and paid messages (Settings > Stars / Monetization)
    "payments.getStarsRevenueStats": _revenue_stats,
    "payments.getStarsRevenueWithdrawalUrl": _refuse(BalanceTooLowError),
    "payments.getStarsRevenueAdsAccountUrl": _refuse(PaymentUnsupportedError),
    "account.getPaidMessagesRevenue": lambda req: types.account.PaidMessagesRevenue(stars_amount=0),
    "payments.sendStarsForm": _refuse(BalanceTooLowError),
    "payments.changeStarsSubscription": _refuse(SubscriptionIdInvalidError),
    "payments.clearSavedInfo": lambda req: True,  # no payment credentials are ever kept
    "payments.getConnectedStarRefBots": lambda req: types.payments.ConnectedStarRefBots(
        count=0, connected_bots=[], users=[]
    ),
    "payments.getSuggestedStarRefBots": lambda req: types.payments.SuggestedStarRefBots(
        count=0, suggested_bots=[], users=[]
    ),
    # Gifts and gift codes (profile gifts tab, t.me/giftcode links, giveaways)
    "payments.getSavedStarGifts": lambda req: types.payments.SavedStarGifts(
        count=0, gifts=[], chats=[], users=[]
    ),
    "payments.getStarGiftCollections": lambda req: types.payments.StarGiftCollections(collections=[]),
    "payments.saveStarGift": _refuse(StargiftInvalidError),
    "payments.convertStarGift": _refuse(StargiftInvalidError),
    "payments.toggleStarGiftsPinnedToTop": _refuse(StargiftInvalidError),
    "payments.checkGiftCode": _refuse(GiftSlugInvalidError),
    "payments.applyGiftCode": _refuse(GiftSlugInvalidError),
    "payments.getGiveawayInfo": _refuse(MsgIdInvalidError),  # no giveaway messages exist
    "payments.launchPrepaidGiveaway": _refuse(PaymentUnsupportedError),
    # Stories archive and story statistics (profile > stories)
    "stories.getStoriesArchive": _no_stories,
    "stories.getStoriesByID": _no_stories,
    "stories.report": _refuse(StoryIdInvalidError),
    "stats.getStoryStats": _refuse(StoryIdInvalidError),
    "stats.getStoryPublicForwards": _refuse(StoryIdInvalidError),
    # Business chat links (Settings > Business) and sponsored search results
    "account.getBusinessChatLinks": lambda req: types.account.BusinessChatLinks(links=[], chats=[], users=[]),
    "account.createBusinessChatLink": _refuse(PremiumAccountRequiredError),
    "account.editBusinessChatLink": _refuse(ChatlinkSlugExpiredError),
    "account.deleteBusinessChatLink": _refuse(ChatlinkSlugExpiredError),
    "contacts.getSponsoredPeers": lambda req: types.contacts.SponsoredPeersEmpty(),
    # Business profile (Settings > Business) and emoji status: premium-only
    "account.updateBusinessWorkHours": _premium_unless_cleared("business_work_hours"),
    "account.updateBusinessLocation": _premium_unless_cleared("address"),
    "account.updateBusinessGreetingMessage": _premium_unless_cleared("message"),
    "account.updateBusinessAwayMessage": _premium_unless_cleared("message"),
    "account.updateBusinessIntro": _premium_unless_cleared("intro"),
    "account.updateConnectedBot": _refuse(PremiumAccountRequiredError),
    "account.updateEmojiStatus": _emoji_status,
    # Profile music (no saved music here) and promoted chats (none are promoted)
    "account.getSavedMusicIds": lambda req: types.account.SavedMusicIds(ids=[]),
    "users.getSavedMusic": lambda req: types.users.SavedMusic(count=0, documents=[]),
    "users.getSavedMusicByID": lambda req: types.users.SavedMusic(count=0, documents=[]),
    "help.hidePromoData": lambda req: True,
    # Voice-message transcription is a premium feature with no engine here
    "messages.transcribeAudio": _refuse(PremiumAccountRequiredError),
}
