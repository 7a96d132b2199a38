"""Issue 27 in the browser, the parts the term test leaves out: a roster CSV of 300 students
uploaded through the page (a preview with the errors by line and nothing changed; the corrected
file applied; the same file again changes nothing), and a quiz built with a pool "draw 1 of 2"
and previewed as a student (an answer checked, nothing stored)."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model

from quizzes.models import Attempt, Quiz, Variant
from tests.browser.conftest import log_in
from tests.factories import (
    OFFERING,
    PASSWORD,
    CourseFactory,
    EnrollmentFactory,
    QuestionTemplateFactory,
    make_quiz,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _roster(bad: bool) -> str:
    lines = ["username,name,email,group"]
    for n in range(1, 301):
        email = f"s{n:03d}@example.edu"
        if bad and n == 57:
            email = "not-an-address"
        username = "s 200!" if bad and n == 200 else f"s{n:03d}"
        lines.append(f"{username},Student {n:03d},{email},Lab {n % 3 + 1}")
    return "\n".join(lines) + "\n"


@pytest.fixture
def teacher():
    course = CourseFactory()
    for slug in ("kv-cache-fits", "bound-by-what"):
        QuestionTemplateFactory(course=course, example=slug)
    make_quiz(course, slug="hw", title="Homework")
    return EnrollmentFactory(course=course, role="instructor").user


def _upload(page, path) -> None:
    page.goto(f"/o/{OFFERING}/instructor/roster/")
    page.get_by_label("Roster file (CSV)").set_input_files(str(path))
    page.get_by_role("button", name=re.compile("Read the file")).click()
    page.get_by_text("Nothing has changed yet.").wait_for()


def test_a_roster_of_300_is_previewed_applied_and_applied_again_to_no_change(
    page, teacher, tmp_path
):
    users = get_user_model().objects
    before = users.count()
    log_in(page, teacher.username, PASSWORD)
    bad, good = tmp_path / "bad.csv", tmp_path / "roster.csv"
    bad.write_text(_roster(bad=True))
    good.write_text(_roster(bad=False))

    _upload(page, bad)
    errors = page.locator(".errors-by-line li")
    assert errors.count() == 2
    # Line numbers of the file: the header is line 1, so student 57 is on line 58.
    assert errors.nth(0).inner_text().startswith("Line 58 (s057)")
    assert errors.nth(1).inner_text().startswith("Line 201 (s 200!)")
    assert page.get_by_role("button", name="Apply these changes").count() == 0
    assert users.count() == before

    _upload(page, good)
    page.get_by_role("button", name="Apply these changes").click()
    page.get_by_text(re.compile("Roster updated: 300 new account")).wait_for()
    assert users.count() == before + 300

    _upload(page, good)
    page.get_by_text("Nothing to change: the roster already matches this file.").wait_for()
    assert page.get_by_role("button", name="Apply these changes").count() == 0
    assert users.count() == before + 300


def test_an_instructor_builds_a_pool_and_previews_the_quiz_as_a_student(page, teacher):
    log_in(page, teacher.username, PASSWORD)
    page.goto(f"/o/{OFFERING}/instructor/quizzes/hw/")
    page.get_by_role("link", name="Make a pool").click()
    page.get_by_label("Name").fill("practice")
    page.get_by_label("Questions drawn per attempt").fill("3")
    page.get_by_label("Points per question drawn").fill("2")
    page.get_by_label(re.compile(r"\(kv-cache-fits\)")).check()
    page.get_by_label(re.compile(r"\(bound-by-what\)")).check()
    page.get_by_role("button", name="Save the pool").click()
    page.get_by_text("Draw from 1 to 2 (the templates chosen) per attempt.").wait_for()
    page.get_by_label("Questions drawn per attempt").fill("1")
    page.get_by_role("button", name="Save the pool").click()
    page.get_by_text("draws 1 of 2 per attempt, 2 pts each").wait_for()
    assert Quiz.objects.get(slug="hw").pools == {"practice": 1}

    page.get_by_role("link", name="Preview as a student").click()
    page.get_by_text("Preview as a student.").wait_for()
    assert page.locator("section.question").count() == 2  # the question, and one of the pool
    first = page.locator("section.question").first
    first.get_by_label(re.compile("Your answer")).fill("1 s")
    first.get_by_role("button", name="Check").click()
    page.locator("section.question").first.locator(".feedback").wait_for()
    assert "Not quite" in page.locator("section.question").first.inner_text()
    assert not Attempt.objects.exists() and not Variant.objects.exists()
