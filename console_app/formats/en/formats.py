"""One date format across the console: Django's own date fields (sessions, logins,
codes) read like the channel tables' Unix times (``2026-12-05 08:13:03``, UTC)."""

DATE_FORMAT = "Y-m-d"
DATETIME_FORMAT = "Y-m-d H:i:s"
TIME_FORMAT = "H:i:s"
SHORT_DATE_FORMAT = "Y-m-d"
SHORT_DATETIME_FORMAT = "Y-m-d H:i:s"
