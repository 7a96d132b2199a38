"""The exam page's Submit and timer in Chromium, under what a real class meets: a slow server
(a save held back behind another), a save that never gets through, a laptop clock that is
wrong, and an extension granted while the exam is open."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from playwright.sync_api import expect

from quizzes.models import Attempt, AttemptStatus, Response, SavedAnswer, Variant
from quizzes.services.questions import correct_answers
from tests.browser.conftest import log_in
from tests.factories import OFFERING, PASSWORD, CourseFactory, EnrollmentFactory, make_quiz

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _start(page, username):
    course = CourseFactory()
    quiz = make_quiz(
        course, examples=["decode-step-memory-floor"], mode="exam", time_limit_minutes=45
    )
    student = EnrollmentFactory(course=course, user__username=username).user
    log_in(page, student.username, PASSWORD)
    page.goto(f"/o/{OFFERING}/quizzes/{quiz.slug}/")
    page.get_by_role("button", name="Start attempt").click()
    page.wait_for_url("**/attempts/*/")
    variant = Variant.objects.get(attempt__student=student)
    answer = f"{correct_answers(variant)['t'] * 1000:.4g} ms"
    return variant, answer, page.locator(f"#part-{variant.pk}-t").get_by_label("Your answer")


def _slow_saves(monkeypatch, seconds=1.5):
    from quizzes.views import student as views

    real = views.service.autosave

    def slow(**kwargs):
        time.sleep(seconds)
        return real(**kwargs)

    monkeypatch.setattr(views.service, "autosave", slow)


def test_submit_waits_for_the_save_its_click_sent(page, monkeypatch):
    """The Submit click's own change event sends the field's last save; a slow server answers
    it after the click. Without the wait the server would refuse it and grade the older text."""
    variant, answer, box = _start(page, "ada")
    box.fill("1000 s")
    page.locator(f"#part-{variant.pk}-t .save-status.saved").wait_for()
    _slow_saves(monkeypatch)
    box.fill(answer)  # no input-delay save yet: the click's change event sends it
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Submit attempt").click()
    page.wait_for_url("**/results/")
    graded = Response.objects.get(variant=variant, part_id="t")
    assert graded.raw == answer == SavedAnswer.objects.get(variant=variant).raw
    assert answer in page.locator("main").inner_text()


def test_a_save_held_back_behind_a_slow_one_is_sent_and_graded_before_the_submission(
    page, monkeypatch
):
    variant, answer, box = _start(page, "grace")
    box.fill("1000 s")
    page.locator(f"#part-{variant.pk}-t .save-status.saved").wait_for()
    _slow_saves(monkeypatch)
    box.fill("2000 s")
    page.wait_for_timeout(1000)  # the student pauses: the input-delay save goes out, slowly
    box.fill(answer)  # corrects it while that save is on its way (htmx holds this one back)
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Submit attempt").click()
    page.wait_for_url("**/results/", timeout=20_000)
    graded = Response.objects.get(variant=variant, part_id="t")
    assert graded.raw == answer == SavedAnswer.objects.get(variant=variant).raw


def test_a_save_that_never_gets_through_is_named_and_the_student_chooses(page):
    variant, answer, box = _start(page, "hopper")
    page.route("**/autosave/**", lambda route: route.abort())  # the network drops every save
    box.fill(answer)
    dialogs = []

    def answer_dialog(dialog):
        dialogs.append(dialog.message)
        # The first asks to submit; the second says what did not get through: stay.
        dialog.accept() if len(dialogs) == 1 else dialog.dismiss()

    page.on("dialog", answer_dialog)
    page.get_by_role("button", name="Submit attempt").click()
    expect(page.locator("form[data-confirm] button")).to_be_enabled()
    assert len(dialogs) == 2 and "not reached the server" in dialogs[1], dialogs
    assert "Question 1" in dialogs[1]
    assert "/results/" not in page.url
    assert Attempt.objects.get(pk=variant.attempt_id).status == AttemptStatus.IN_PROGRESS


def test_the_timer_runs_on_the_server_clock_and_follows_an_extension(page):
    # A laptop clock 44 min 57 s fast: on its own clock the 45-minute exam is nearly over.
    page.context.add_init_script(
        "(() => { const real = Date.now; Date.now = () => real() + (44 * 60 + 57) * 1000; })()"
    )
    variant, answer, box = _start(page, "lovelace")
    loads = []
    page.on("load", lambda _: loads.append(1))
    page.wait_for_timeout(5000)  # past the fast clock's "deadline"
    assert not loads, "the page reloaded on its own clock"
    left = page.locator("[data-countdown]").inner_text()
    assert left.startswith("· 44:") or left.startswith("· 45:"), left
    # An extension granted while the exam is open: the next save's reply moves the timer.
    attempt = Attempt.objects.get(pk=variant.attempt_id)
    Attempt.objects.filter(pk=attempt.pk).update(deadline=attempt.deadline + timedelta(minutes=30))
    box.fill(answer)
    page.locator(f"#part-{variant.pk}-t .save-status.saved").wait_for()
    expect(page.locator("[data-countdown]")).to_contain_text("1:1")  # 1:14:5x left
    expect(page.locator("[data-timer-announce]")).to_contain_text("moved")
    assert not loads
