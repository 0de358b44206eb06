"""Headless Chromium for tests that open a page the way a person would.

The browser is Debian's ``chromium`` with its ``chromedriver`` (``apt-get install
chromium chromium-driver``; ``.ci/run`` installs both), driven by Selenium. Playwright's and
Selenium Manager's browser downloads cannot be reached from these machines, so the browser is
looked up on PATH and never fetched: where it or its driver is missing, the test skips and
says which; anything else (Chromium failing to start, Selenium missing) fails. Console messages are kept so a test can assert that a page logged no errors.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any, Iterator

import pytest

BROWSERS = ("chromium", "chromium-browser", "google-chrome")
DRIVER = "chromedriver"


def _binary() -> str | None:
    for name in BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    return None


def missing() -> str | None:
    """Why no headless Chromium is installed here, or None when one is.

    Selenium is not asked about: it comes with the test extra, like pytest, and a test run
    without it fails on its import rather than skipping.
    """
    if _binary() is None:
        return f"no Chromium on PATH ({', '.join(BROWSERS)}; apt-get install chromium chromium-driver)"
    if shutil.which(DRIVER) is None:
        return "no chromedriver on PATH (apt-get install chromium-driver)"
    return None


def start(width: int = 1280, height: int = 900) -> Any:
    """A headless Chromium WebDriver with the browser's console log enabled.

    ``--autoplay-policy`` lets a ``<video>`` load its data without a click;
    ``--allow-file-access-from-files`` lets a ``file://`` page read the videos beside it.
    """
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = _binary() or ""
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--allow-file-access-from-files", "--autoplay-policy=no-user-gesture-required",
                "--mute-audio", f"--window-size={width},{height}"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(options=options, service=Service(executable_path=shutil.which(DRIVER)))


def severe(driver: Any) -> list[str]:
    """The console messages of level SEVERE (errors, failed loads) since the last call."""
    return [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


def open_file(driver: Any, path: Path) -> None:
    """Load a local page and wait until its scripts ran (``readyState == "complete"``)."""
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get(Path(path).resolve().as_uri())
    WebDriverWait(driver, 30).until(lambda d: d.execute_script("return document.readyState") == "complete")


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    """One headless Chromium for a test module; skips only where none is installed."""
    reason = missing()
    if reason is not None:
        pytest.skip(reason)
    driver = start()
    try:
        yield driver
    finally:
        driver.quit()
