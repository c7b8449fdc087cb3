"""Caps of the design's Safety / Performance section (every list, id vector and page)."""

TITLE_MAX = 128
ABOUT_MAX = 255
MESSAGE_MAX = 4096  # code points
CAPTION_MAX = 1024  # a media caption, code points
ALBUM_MAX = 10  # messages.sendMultiMedia
ENTITIES_MAX = 256
QUOTE_TEXT_MAX = 1024
POST_AUTHOR_MAX = 128

CREATE_CHAT_USERS_MAX = 200
INVITE_USERS_MAX = 200
CHANNELS_PER_USER_MAX = 1000  # dialogs are ordered in SQL over at most this many rows

HISTORY_LIMIT = 100
ADD_OFFSET_MAX = 100
GET_IDS_MAX = 100
GET_CHANNELS_MAX = 100
DELETE_IDS_MAX = 1000
DELETE_HISTORY_PAGE = 1000
FORWARD_IDS_MAX = 100
DIFFERENCE_LIMIT = 100
DIFFERENCE_TIMEOUT = 30
DIALOGS_LIMIT = 100
PINNED_DIALOGS_MAX = 10

PARTICIPANTS_LIMIT = 200
PARTICIPANTS_OFFSET_MAX = 10000
PARTICIPANTS_Q_MAX = 128

READ_OUTBOX_SCAN_MESSAGES = 1000
READ_OUTBOX_FANOUT = 128
# Live fan-out on one edge reads the members among its online users in queries of at
# most this many ids: every online member gets the event, no query reads more rows.
REALTIME_FANOUT_MAX = 500
TYPING_FANOUT_MAX = 100  # members one typing notice reaches per edge
# A pts gap older than this is a lost allocation, not a transaction still committing.
PTS_GAP_GRACE_SECONDS = 5
MAX_MESSAGE_ID = 2**31 - 1
USERNAMES_MAX = 10  # a reorderUsernames vector
SEARCH_QUERY_MAX = 256  # messages.search / searchGlobal / channels.searchPosts / checkSearchPostsFlood
SEARCH_GLOBAL_LIMIT = 50  # messages.searchGlobal and channels.searchPosts pages

# messages.search media filters: the media kinds each one finds ("url": a link entity).
MEDIA_FILTER_KINDS = {
    "photos": ("photo",),
    "video": ("video",),
    "photo_video": ("photo", "video"),
    "document": ("document",),
    "music": ("music",),
    "voice": ("voice",),
    "round_voice": ("voice", "round"),
    "round_video": ("round",),
    "gif": ("gif",),
    "url": ("url",),
    "geo": ("geo", "venue", "geo_live"),
    "contacts": ("contact",),
    "poll": ("poll",),
}
FORUM_TOPICS_LIMIT = 100  # a getForumTopics page / a getForumTopicsByID vector
FORUM_TOPIC_TITLE_MAX = 128
FORUM_PINNED_TOPICS_MAX = 5
