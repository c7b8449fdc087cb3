"""Headless Chromium for the browser tests (the console's and the web client's), from
Debian's chromium and chromium-driver (``make browser``)."""

from __future__ import annotations

import shutil

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
FLAGS = (
    "--no-sandbox",
    "--headless",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-dev-shm-usage",
)


def available() -> bool:
    return bool(shutil.which(CHROMIUM) and shutil.which(CHROMEDRIVER))


def start(*extra_flags: str, page_load_timeout: float = 30, console_log: bool = False):
    """A new headless driver; ``console_log`` keeps the page's console for
    ``driver.get_log("browser")``."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (*FLAGS, *extra_flags):
        options.add_argument(flag)
    if console_log:
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(page_load_timeout)
    return driver
