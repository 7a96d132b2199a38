"""The results page of a released attempt says what changed its score after it was recorded
(an instructor's override, an applied regrade), with the reason, as My progress does; changes
to the student's other attempts, or to other students, stay off it. It reads them in as few
queries as it can: none of its own for an attempt no regrade touched (its override notices are
kept with the page's memo), one for an attempt a regrade did."""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils import timezone

from quizzes.models import RegradeRun, RegradeStatus, Response
from quizzes.services import attempts as service
from quizzes.services.instructor import override_score
from tests.factories import OFFERING, check_answer, make_quiz

pytestmark = pytest.mark.django_db


def _submitted(quiz, student):
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    check_answer(attempt.variants.get(), student, "1 s")
    service.submit_attempt(attempt=attempt, student=student, now=timezone.now())
    attempt.refresh_from_db()
    return attempt


def _regrade(item, attempt, student, old, new):
    """An applied run listing a change to `attempt`'s part t, whose responses it regraded (as
    `services.regrade` does: every response of a variant it covers)."""
    Response.objects.filter(variant__attempt=attempt).update(regraded_at=timezone.now())
    change = {"attempt": attempt.pk, "student": student, "part": "t"}
    RegradeRun.objects.create(
        offering=item.quiz.offering,
        template=item.template,
        target_version=item.template.current_version,
        status=RegradeStatus.APPLIED,
        applied_at=timezone.now(),
        preview=[change | {"old_status": old, "new_status": new}],
    )


def test_the_results_page_lists_the_override_and_the_regrade_of_this_attempt_only(
    client, course, student, instructor
):
    quiz = make_quiz(course, examples=["decode-step-memory-floor"], title="Floor quiz")
    first, second = _submitted(quiz, student), _submitted(quiz, student)
    results = reverse("quizzes:attempt_results", args=[OFFERING, first.pk])
    client.force_login(student)
    assert "Changes to this score" not in client.get(results).content.decode()

    override_score(attempt=first, score="0.5", reason="Unit typo forgiven", by=instructor)
    item = quiz.items.get()
    _regrade(item, first, student.username, "incorrect", "correct")
    _regrade(item, second, student.username, "correct", "unreadable")
    _regrade(item, first, "someone-else", "correct", "incorrect")

    html = client.get(results).content.decode()
    notices = html[html.index("Changes to this score") :].split("</section>")[0]
    assert "Your instructor set the score</strong>\n      of the whole attempt" in notices
    assert "Reason: Unit typo forgiven" in notices
    assert "A regrade changed the grade" in notices and "incorrect → correct" in notices
    assert "Reason: The question was regraded against its version" in notices
    assert "unreadable" not in notices  # the other attempt's change
    assert "correct → incorrect" not in notices  # another student's change


def _results(client, student, attempt):
    client.force_login(student)
    url = reverse("quizzes:attempt_results", args=[OFFERING, attempt.pk])
    client.get(url)  # drawn once: the memo holds the sections and the override notices
    return url


def test_an_untouched_attempts_results_read_no_notice_query(
    client, course, student, instructor, django_assert_max_num_queries
):
    """Session, user, enrolments, the attempt and the student's dates: the override notices
    come from the memo and no regrade touched it, so no override or regrade row is read (the
    page read three more before: the attempt again, its overrides and every applied run)."""
    quiz = make_quiz(course)
    attempt = _submitted(quiz, student)
    override_score(attempt=attempt, score="0.5", reason="Unit typo forgiven", by=instructor)
    attempt.refresh_from_db()
    url = _results(client, student, attempt)
    with django_assert_max_num_queries(4) as captured:
        html = client.get(url).content.decode()
    assert "Reason: Unit typo forgiven" in html  # from the memo
    tables = " ".join(query["sql"] for query in captured.captured_queries)
    assert "quizzes_regraderun" not in tables and "quizzes_scoreoverride" not in tables


def test_a_regraded_attempts_results_read_the_applied_runs_once(
    client, course, student, django_assert_max_num_queries
):
    quiz = make_quiz(course)
    attempt = _submitted(quiz, student)
    _regrade(quiz.items.get(), attempt, student.username, "incorrect", "correct")
    attempt.refresh_from_db()
    url = _results(client, student, attempt)
    with django_assert_max_num_queries(5) as captured:
        html = client.get(url).content.decode()
    assert "A regrade changed the grade" in html and "incorrect → correct" in html
    runs = [q["sql"] for q in captured.captured_queries if "quizzes_regraderun" in q["sql"]]
    assert len(runs) == 1 and "answer_changes" not in runs[0]  # its large columns left unread


def test_a_run_applied_after_the_page_was_drawn_shows_on_the_next_read(client, course, student):
    """A regrade marks its run applied after its last batch: the attempt's responses were
    regraded (the memo knows) but the run was still running when the page was drawn."""
    quiz = make_quiz(course)
    attempt = _submitted(quiz, student)
    _regrade(quiz.items.get(), attempt, student.username, "incorrect", "correct")
    RegradeRun.objects.update(status=RegradeStatus.RUNNING)
    attempt.refresh_from_db()
    url = _results(client, student, attempt)
    assert "A regrade changed the grade" not in client.get(url).content.decode()
    RegradeRun.objects.update(status=RegradeStatus.APPLIED)
    assert "A regrade changed the grade" in client.get(url).content.decode()
