"""Playwright fixtures driving the system's headless Chromium against the live test server.

Without Chromium the browser tests skip and say why; in CI (CI=true) that skip is a failure.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

CHROMIUM_CANDIDATES = ("/usr/bin/chromium", "/usr/bin/chromium-browser")
SCREENSHOTS = Path(__file__).resolve().parents[2] / "screenshots"


def _chromium() -> str | None:
    for path in CHROMIUM_CANDIDATES:
        if os.path.exists(path):
            return path
    return shutil.which("chromium")


@pytest.fixture(scope="session")
def browser():
    executable = _chromium()
    if executable is None:
        pytest.skip("no Chromium found (apt-get install chromium); browser tests need it")
    # Playwright's sync API runs an event loop in this thread; the live server's database
    # work happens in its own thread, but fixtures touching the ORM here need this.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=executable,
            headless=True,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
            ],
        )
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser, live_server):
    context = browser.new_context(base_url=live_server.url, viewport={"width": 1280, "height": 900})
    context.set_default_timeout(15_000)
    page = context.new_page()
    yield page
    context.close()


def log_in(page, username: str, password: str) -> None:
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_load_state("networkidle")


def screenshot(page, name: str) -> None:
    SCREENSHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)
