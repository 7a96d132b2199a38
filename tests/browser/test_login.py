"""A student logs in through a real browser and sees the course home."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from tests.browser.conftest import log_in, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_demo_student_logs_in_and_sees_their_offering(page):
    call_command("setup_demo", verbosity=0)  # one offering (setup_site adds the second)
    page.goto("/")
    assert page.get_by_role("link", name="Log in").first.is_visible()
    log_in(page, "student1", "learn-hardware")
    # One offering of theirs: the login lands on its front page, which names it.
    assert page.url.endswith("/o/hardware-reality/")
    assert "Quizzes" in page.locator("h1").inner_text()
    assert "section 1" in page.locator(".offering-current").inner_text()
    assert page.get_by_text("student", exact=True).first.is_visible()
    screenshot(page, "home-student")


def test_wrong_password_shows_a_message_in_the_browser(page):
    call_command("setup_demo", verbosity=0)
    log_in(page, "student1", "wrong-password")
    assert page.get_by_role("alert").inner_text().startswith("Your username and password")


def test_instructor_page_refuses_a_student_in_the_browser(page):
    call_command("setup_demo", verbosity=0)
    log_in(page, "student1", "learn-hardware")
    response = page.goto("/admin/")
    assert response.status == 403
    assert page.get_by_role("heading", name="This page is not for you").is_visible()
