"""Playwright fixtures driving the system's headless Chromium against the live test server.

Without Chromium the browser tests skip and say why; in CI (CI=true) that skip is a failure.
The session's one Chromium (`browser`) is in tests/kind_fixtures.py, which the answer kinds'
own browser tests use too.
"""

from __future__ import annotations

from pathlib import Path

import pytest

SCREENSHOTS = Path(__file__).resolve().parents[2] / "screenshots"


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
