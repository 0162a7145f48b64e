"""Shared by the service's browser tests: headless Chromium (Debian's chromium and chromium-driver) driven by selenium."""

from __future__ import annotations

import shutil

import pytest

_CHROMIUM_FLAGS = (
    # headless on a machine with a closed network: without the background-networking flags
    # Chromium's own connections are refused and slow everything down
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run", "--window-size=1200,1600",
)


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    """Headless Chromium driven by selenium, with a fresh profile; skips, saying why, when something is missing."""
    pytest.importorskip("selenium", reason="selenium is not installed; pip install 'matchdb[test]' installs it.")
    chromium = next(filter(None, map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))), None)
    if chromium is None:
        pytest.skip("Chromium is not installed; apt-get install chromium chromium-driver (CI does, as root).")
    driver_path = shutil.which("chromedriver")
    if driver_path is None:
        pytest.skip("chromedriver is not installed; apt-get install chromium-driver (CI does, as root).")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in _CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    driver.set_page_load_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()
