"""The release this checkout is: one place for the version that /metrics
(``telesrv_build_info``), help.getAppConfig (``telesrv_version``) and the CHANGELOG's
newest release heading agree on (tests/project/test_release.py checks them). The
tagging and upgrade policy is in docs/operations.md ("Releases")."""

VERSION = "0.9.0"
