"""The platform a session runs on, as the sessions list names it ("Android", "Linux"),
from what initConnection says: system_version ("Windows 11", "Linux 6.18.44",
"SDK 34"), device_model ("Pixel 7", "MacBook Pro") and the app name. Libraries often
send only a kernel version ("6.18.44"): that says nothing, so it is "unknown"."""

from __future__ import annotations

# Checked in order, first match wins: (platform, words that give it away).
_HINTS = (
    ("Android", ("android", "sdk ")),
    ("iOS", ("ios", "iphone", "ipad")),
    ("macOS", ("macos", "mac os", "darwin", "macbook", "imac", "mac mini")),
    ("Windows", ("windows", "win32", "win64")),
    ("Linux", ("linux", "ubuntu", "debian", "fedora", "arch")),
    ("Web", ("web", "chrome", "firefox", "safari", "browser")),
)


def platform_of(system_version: str, device_model: str = "", app_name: str = "") -> str:
    text = f" {system_version} {device_model} {app_name} ".lower()
    for name, words in _HINTS:
        if any(w in text for w in words):
            return name
    return "unknown"
