"""A student logs in through a real browser and sees the course home."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from tests.browser.conftest import log_in, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_demo_student_logs_in_and_sees_the_course_home(page):
    call_command("setup_demo", verbosity=0)
    page.goto("/")
    assert page.get_by_role("link", name="Log in").first.is_visible()
    log_in(page, "student1", "learn-hardware")
    assert "The Hardware Reality" in page.locator("h1").inner_text()
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
