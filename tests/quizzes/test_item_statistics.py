"""Kept item statistics: the item page reads a fixed number of small rows whatever the class
size, every grade writer marks them out of date in its own transaction (checks, submissions,
regrades, overrides), and once refreshed they equal a recomputation from every stored grade."""

from __future__ import annotations

import threading
from decimal import Decimal
from unittest import mock

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from quizzes.models import Attempt, ItemStatistics, QuizActivity, RegradeRun
from quizzes.services import analytics, regrade
from quizzes.services import attempts as service
from quizzes.services.instructor import override_score, statistics
from quizzes.services.questions import correct_answers
from tests.factories import OFFERING, PASSWORD, check_answer, make_quiz, offering_of
from tests.quizzes.test_instructor_helpers import make_student

pytestmark = pytest.mark.django_db


def _class(course, quiz, names, *, submit_every=True):
    """Students who answer right, wrong then right, wrong twice, or garbled (no try)."""
    attempts = []
    for n, name in enumerate(names):
        student = make_student(course, name)
        attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
        for variant in attempt.variants.all():
            right = f"{correct_answers(variant)['t']} s"
            for raw in ([right], ["1 s", right], ["1 s", "2 s"], ["banana", right])[n % 4]:
                check_answer(variant, student, raw)
        if submit_every or n % 3:
            service.submit_attempt(attempt=attempt, student=student, now=timezone.now())
        attempts.append(attempt)
    return attempts


def _template(quiz):
    return quiz.items.get().template


def _recomputed(template, quiz=None):
    return statistics.stats_to_json(
        analytics.item_analysis(template, offering=offering_of(template.course), quiz=quiz)
    )


def _kept_json(template, quiz=None):
    kept = statistics.kept(template, offering_of(template.course), quiz=quiz)
    if kept.stale:
        statistics.refresh(template, offering_of(template.course), quiz=quiz)
        kept = statistics.kept(template, offering_of(template.course), quiz=quiz)
    assert not kept.stale
    return statistics.stats_to_json(kept.stats)


def test_kept_statistics_equal_a_recomputation_through_checks_submissions_regrades_and_overrides(
    course, instructor
):
    quiz = make_quiz(course, slug="hw", tries_per_variant=3)
    template = _template(quiz)
    attempts = _class(course, quiz, [f"s{n}" for n in range(6)], submit_every=False)
    assert _kept_json(template) == _recomputed(template)
    assert _kept_json(template, quiz) == _recomputed(template, quiz)

    # More answers and a late submission: the kept row knows it is out of date.
    before = _kept_json(template)
    _class(course, quiz, ["t0", "t1", "t2"])
    assert statistics.kept(template, offering_of(template.course)).stale
    assert _kept_json(template) == _recomputed(template) != before

    # An override on a submitted attempt goes through the same counter.
    submitted = Attempt.objects.get(pk=attempts[1].pk)  # s0 and s3 left theirs open
    override_score(
        attempt=submitted, item=None, score=Decimal("0.5"), reason="Partial credit", by=instructor
    )
    assert statistics.kept(template, offering_of(template.course)).stale
    assert _kept_json(template) == _recomputed(template)

    # A regrade that widens the tolerance turns the "1 s" tries right for nobody, but rewrites
    # every response: the counter moves and the kept figures follow the new grades.
    run = RegradeRun.objects.create(
        offering=offering_of(template.course),
        template=template,
        target_version=template.current_version,
        recompute_answers=True,
        created_by=instructor,
    )
    regrade.compute_preview(run_id=run.pk)
    regrade.start_regrade(run=RegradeRun.objects.get(pk=run.pk))
    regrade.apply_regrade(run_id=run.pk)
    assert statistics.kept(template, offering_of(template.course)).stale
    assert _kept_json(template) == _recomputed(template)
    assert _kept_json(template, quiz) == _recomputed(template, quiz)


def test_an_unreadable_answer_changes_no_statistic_and_leaves_them_current(course):
    quiz = make_quiz(course, slug="hw")
    template = _template(quiz)
    (attempt,) = _class(course, quiz, ["ana"])
    statistics.kept(template, offering_of(template.course))
    before = QuizActivity.objects.get(quiz=quiz).changes
    service.start_attempt(quiz=quiz, student=attempt.student, now=timezone.now())
    variant = attempt.variants.first()
    with pytest.raises(service.QuizRuleError):  # the attempt is submitted: nothing stored
        check_answer(variant, attempt.student, "banana")
    assert QuizActivity.objects.get(quiz=quiz).changes == before
    assert not statistics.kept(template, offering_of(template.course)).stale


def test_the_item_page_reads_the_same_rows_for_a_small_and_a_larger_class(
    client, course, instructor
):
    quiz = make_quiz(course, slug="hw", tries_per_variant=3)
    template = _template(quiz)
    url = reverse("instructor:item_analysis", args=[OFFERING, template.slug])
    client.login(username=instructor.username, password=PASSWORD)

    def page_work():
        client.get(url)  # computes the kept row if grades changed
        with (
            mock.patch.object(analytics, "item_analysis", side_effect=AssertionError("recomputed")),
            mock.patch.object(
                statistics, "stats_from_json", wraps=statistics.stats_from_json
            ) as decode,
            CaptureQueriesContext(connection) as queries,
        ):
            response = client.get(url)
        assert response.status_code == 200
        return len(queries), decode.call_count, response.content.decode()

    _class(course, quiz, ["a0", "a1"])
    small = page_work()
    _class(course, quiz, [f"b{n}" for n in range(10)])
    large = page_work()
    # Same queries, one kept row decoded, whatever the number of students and responses.
    assert small[:2] == large[:2] and small[1] == 1
    assert "12</span> answered" in large[2].replace(" ", "").replace(
        "<spanclass", "<span class"
    ) or (">12</span> answered" in large[2])


def test_a_stale_page_shows_the_kept_figures_and_queues_one_refresh(
    client, course, instructor, database_tasks
):
    quiz = make_quiz(course, slug="hw")
    template = _template(quiz)
    _class(course, quiz, ["a0"])
    url = reverse("instructor:item_analysis", args=[OFFERING, template.slug])
    client.login(username=instructor.username, password=PASSWORD)
    client.get(url)  # the first view computes the row in the request
    _class(course, quiz, ["a1"])
    with mock.patch.object(analytics, "item_analysis", side_effect=AssertionError("inline")):
        html = client.get(url).content.decode()
        client.get(url)
    assert "Newer answers are being counted" in html and 'class="stat">1</span> answered' in html
    from django_tasks_db.models import DBTaskResult

    assert DBTaskResult.objects.filter(task_path__endswith="refresh_item_statistics").count() == 1


def test_rebuild_command_recomputes_every_kept_row(course):
    quiz = make_quiz(course, slug="hw")
    template = _template(quiz)
    _class(course, quiz, ["a0", "a1"])
    ItemStatistics.objects.all().delete()
    call_command("rebuild_item_statistics", stdout=open("/dev/null", "w"))
    rows = ItemStatistics.objects.filter(template=template)
    assert rows.count() == 2  # over every quiz, and in this quiz
    assert rows.get(quiz_key=0).data == _recomputed(template)


@pytest.mark.django_db(transaction=True)
def test_students_answering_the_same_part_at_once_each_count(course):
    quiz = make_quiz(course, slug="hw")
    template = _template(quiz)
    pupils = []
    for n in range(4):
        student = make_student(course, f"c{n}")
        attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
        pupils.append((student, attempt.variants.get()))
    barrier = threading.Barrier(len(pupils))
    errors = []

    def answer(student, variant):
        try:
            barrier.wait(timeout=10)
            check_answer(variant, student, "1 s")
        except Exception as error:  # noqa: BLE001 - reported below
            errors.append(error)
        finally:
            connection.close()

    workers = [threading.Thread(target=answer, args=pair) for pair in pupils]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=30)
    assert not errors, errors
    # The quiz's first grades, all at once: its counter was created once and counted each.
    assert QuizActivity.objects.get(quiz=quiz).changes == len(pupils)
    assert _kept_json(template) == _recomputed(template)
