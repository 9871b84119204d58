"""Headless Debian Chromium for the browser tests, with every host but this site unreachable."""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest


def chromium_paths() -> tuple[str, str]:
    """Chromium and chromedriver from Debian. The test suite installs nothing: .ci/run installs
    them (.ci/install-browser); without them the browser tests skip, naming that command."""
    chromium, driver = shutil.which("chromium"), shutil.which("chromedriver")
    if not (chromium and driver):
        pytest.skip(
            "Chromium and chromedriver are not installed: run .ci/install-browser "
            "(Debian packages, needs root)"
        )
    return chromium, driver


def headless_chromium(profile: Path) -> Iterator[Any]:
    """A WebDriver whose browser logs (console, and network for `requested_urls`) can be read."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    chromium, driver_path = chromium_paths()
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for argument in (
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={profile}",
        # Every host name resolves to nothing, so any request for another host fails.
        "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1 , EXCLUDE localhost",
    ):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
    # An explicit driver path: selenium-manager is never asked to download anything.
    driver = webdriver.Chrome(service=Service(executable_path=driver_path), options=options)
    driver.set_page_load_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()


def wait_for(driver: Any, script: str, timeout: float = 20.0) -> bool:
    """Whether `script` returned something truthy in the page within `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if driver.execute_script(script):
            return True
        time.sleep(0.1)
    return False


def policy_violations(driver: Any) -> list[str]:
    """The Content-Security-Policy violations the browser logged."""
    return [
        entry["message"]
        for entry in driver.get_log("browser")
        if "Content Security Policy" in entry["message"]
    ]
