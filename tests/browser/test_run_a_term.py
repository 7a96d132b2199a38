"""A term run from the browser (issue 27): an instructor (browser in New York) makes and
schedules an exam in the offering's zone (Berlin), adds a question from the bank and publishes
it, uploads a roster file, gives one student a 1.5x time multiplier and a set-password link;
that student (browser in Tokyo) sets a password, logs in, and sees the longer time limit and
the due date in Tokyo time."""

from __future__ import annotations

import re

import pytest

from courseware.models import Offering
from quizzes.models import Accommodation, Quiz
from tests.browser.conftest import log_in
from tests.factories import (
    OFFERING,
    PASSWORD,
    CourseFactory,
    EnrollmentFactory,
    QuestionTemplateFactory,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ROSTER = "username,name,email\nada,Ada Lovelace,ada@example.edu\nbob,Bob Noyce,bob@example.edu\n"


@pytest.fixture
def term(tmp_path):
    course = CourseFactory()
    teacher = EnrollmentFactory(course=course, role="instructor").user
    Offering.objects.filter(slug=OFFERING).update(time_zone="Europe/Berlin")
    QuestionTemplateFactory(course=course, example="decode-step-memory-floor")
    roster = tmp_path / "roster.csv"
    roster.write_text(ROSTER)
    return teacher, roster


def test_an_instructor_runs_a_term_and_a_student_sees_their_time_in_their_zone(
    browser, live_server, term
):
    teacher, roster = term
    base = f"/o/{OFFERING}/instructor"
    staff = browser.new_context(base_url=live_server.url, timezone_id="America/New_York")
    staff.set_default_timeout(20_000)
    page = staff.new_page()
    log_in(page, teacher.username, PASSWORD)

    # A quiz, made and scheduled: dates typed in the offering's zone (Berlin, UTC+1 in March).
    page.goto(f"{base}/quizzes/")
    page.get_by_role("link", name="New quiz").click()
    page.get_by_label("Slug").fill("midterm")
    page.get_by_label("Title").fill("Midterm")
    page.get_by_label("Mode").select_option("exam")
    page.get_by_label("Time limit (minutes)").fill("40")
    page.get_by_label("Due").fill("2030-03-08T23:59")
    page.get_by_label("Closes").fill("2030-03-09T23:59")
    page.get_by_role("button", name="Make the quiz").click()
    page.wait_for_url(re.compile(r"/quizzes/midterm/$"))
    page.get_by_role("button", name="Add to quiz").click()
    page.wait_for_load_state("networkidle")
    page.get_by_role("button", name="Publish").click()
    page.wait_for_load_state("networkidle")
    quiz = Quiz.objects.get(slug="midterm")
    assert quiz.is_published and quiz.items.count() == 1
    assert quiz.due_at.isoformat() == "2030-03-08T22:59:00+00:00"

    # The roster file: previewed, then applied.
    page.goto(f"{base}/roster/")
    page.get_by_label("Roster file (CSV)").set_input_files(str(roster))
    page.get_by_role("button", name=re.compile("Read the file")).click()
    page.get_by_text("Nothing has changed yet.").wait_for()
    page.get_by_role("button", name="Apply these changes").click()
    page.get_by_text(re.compile("Roster updated: 2 new account")).wait_for()

    # Ada's accommodation: 1.5x on every timed quiz.
    page.goto(f"{base}/extensions/")
    page.locator("#accommodation-student").select_option(label="Ada Lovelace (ada)")
    page.get_by_role("textbox", name="Time multiplier").fill("1.5")
    page.get_by_role("button", name="Save the multiplier").click()
    page.wait_for_load_state("networkidle")
    assert str(Accommodation.objects.get(student__username="ada").time_multiplier) == "1.50"

    # Her set-password link, shown once.
    page.goto(f"{base}/roster/")
    page.locator("tr", has_text="ada").get_by_role("button", name="Set-password link").click()
    link = page.locator("#password-link").input_value()
    staff.close()

    student = browser.new_context(base_url=live_server.url, timezone_id="Asia/Tokyo")
    student.set_default_timeout(20_000)
    mine = student.new_page()
    mine.goto(link)
    mine.get_by_label("New password", exact=True).fill("a-long-passphrase-12")
    mine.get_by_label("The same password again").fill("a-long-passphrase-12")
    mine.get_by_role("button", name="Set my password").click()
    mine.wait_for_url(re.compile(r"/accounts/login/"))
    log_in(mine, "ada", "a-long-passphrase-12")
    mine.goto(f"/o/{OFFERING}/quizzes/midterm/")
    limit = mine.locator("dd.time-limit")
    assert "60 minutes for you" in limit.inner_text()
    assert "× 1.5 (your accommodation)" in limit.inner_text()
    # Her browser reported Tokyo; the due date is drawn in it, the zone named.
    due = mine.locator("dt:has-text('Due') + dd time")
    due.filter(has_text="Tokyo time").wait_for()
    assert due.inner_text() == "9 Mar 2030, 07:59 Tokyo time"
    student.close()
