"""The item index and the misconception map read kept figures (issue 34): the same queries
whatever the class size, every writer of grades (a Check, a submission, a regrade, a staff
grade, a deleted attempt or response) makes the page show the new figures, and one offering's
answers never reach another offering's figures."""

from __future__ import annotations

import hashlib
import re
from unittest import mock

import pytest
from django.contrib import admin
from django.test import RequestFactory
from django.urls import reverse
from django.utils import timezone

from quizzes.models import Attempt, OfferingStatistics, Response
from quizzes.services import analytics, regrade
from quizzes.services import attempts as service
from quizzes.services.instructor import offering_statistics
from quizzes.services.questions import correct_answers
from tests.factories import (
    EnrollmentFactory,
    OfferingFactory,
    TemplateVersionFactory,
    check_answer,
    example_source,
    offering_of,
)
from tests.factories import make_quiz as make_offering_quiz
from tests.quizzes.test_instructor_helpers import make_class, make_quiz, make_student
from tests.quizzes.test_regrade import _run_to_the_end

pytestmark = pytest.mark.django_db

SLUG = "decode-step-memory-floor"


def _index(client, offering) -> str:
    return client.get(reverse("instructor:item_index", args=[offering.slug])).content.decode()


def _map(client, offering) -> str:
    return client.get(reverse("instructor:misconceptions", args=[offering.slug])).content.decode()


def _row(html: str, slug: str) -> list[str]:
    """The item index's cells after the title for the template `slug`: chapter, answered,
    mean score, first try, difficulty, discrimination, upper-lower."""
    match = re.search(
        rf'<div class="muted small">{re.escape(slug)}</div></td>(.*?)</tr>', html, re.S
    )
    assert match, f"no row for {slug}"
    return [
        re.sub(r"<[^>]+>", "", cell).strip()
        for cell in re.findall(r"<td[^>]*>(.*?)</td>", match.group(1), re.S)
    ]


def _mistake(html: str, code: str) -> tuple[str, str] | None:
    """(students, responses) of the misconception map's row for `code`, None if absent."""
    match = re.search(
        rf"<code>{re.escape(code)}</code>.*?<td class=\"num\"><a [^>]*>(\d+)</a></td>\s*"
        r"<td class=\"num\">(\d+)</td>",
        html,
        re.S,
    )
    return (match.group(1), match.group(2)) if match else None


def _version(template, source: str):
    """A new current version of `template` (numbered after its highest)."""
    last = template.versions.order_by("-number").first()
    version = TemplateVersionFactory(
        template=template,
        number=(last.number if last else 0) + 1,
        source=source,
        content_hash=hashlib.sha256(source.encode()).hexdigest(),
    )
    template.current_version = version
    template.save(update_fields=["current_version"])
    return version


def _no_recomputation():
    """Any computation of a kept page fails the test."""
    boom = mock.Mock(side_effect=AssertionError("recomputed in the request"))
    return mock.patch.dict(
        offering_statistics.FIGURES, dict.fromkeys(offering_statistics.FIGURES, boom)
    )


def _checked(quiz, name, wrong_first: bool, *, submit: bool = True):
    """A student's homework attempt: a wrong answer the grader diagnoses (eight times the
    answer: bits for bytes), then the right one, or only the right one; submitted."""
    student = make_student(quiz.offering.course, name)
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    variant = attempt.variants.get()
    right = correct_answers(variant)["t"]
    if wrong_first:
        check_answer(variant, student, f"{right * 8!r} s")
    check_answer(variant, student, f"{right!r} s")
    if submit:
        service.submit_attempt(attempt=attempt, student=student, now=timezone.now())
    return attempt


@pytest.fixture
def homework(course):
    return make_offering_quiz(course, slug="hw", tries_per_variant=3)


def test_a_check_and_a_submission_show_on_both_pages(client, instructor, homework):
    client.force_login(instructor)
    offering = homework.offering
    _checked(homework, "ana", wrong_first=False)
    assert _row(_index(client, offering), SLUG)[1:4] == ["1", "100%", "100%"]
    assert _mistake(_map(client, offering), "bits-for-bytes") is None
    # A Check the grader diagnoses shows on the map before the attempt is submitted ...
    open_attempt = _checked(homework, "ben", wrong_first=True, submit=False)
    assert _mistake(_map(client, offering), "bits-for-bytes") == ("1", "1")
    assert _row(_index(client, offering), SLUG)[1:4] == ["1", "100%", "50%"]
    # ... and its submission adds an answered attempt to the index.
    service.submit_attempt(attempt=open_attempt, student=open_attempt.student, now=timezone.now())
    assert _row(_index(client, offering), SLUG)[1] == "2"


def test_a_regrade_shows_on_the_item_index(client, instructor, course):
    """The regrade test's class: one answer 3% off (wrong at 2%), one right; a version at 5%
    turns the first right."""
    from tests.quizzes.test_instructor_helpers import respond, submitted_attempt

    quiz, (item,) = make_quiz(course, examples=(SLUG,), slug="q")
    for name, factor in (("near", 1.03), ("exact", 1.0)):
        attempt = submitted_attempt(quiz, make_student(course, name), {item: float(factor == 1)})
        variant = attempt.variant_for[item.pk]
        value = variant.answers["answers"]["t"] * factor
        respond(variant, "t", f"{value!r} s", "correct" if factor == 1.0 else "incorrect")
    offering = offering_of(course)
    client.force_login(instructor)
    assert _row(_index(client, offering), SLUG)[2:4] == ["50%", "50%"]
    wider = _version(item.template, example_source(SLUG).replace("rtol: 0.02", "rtol: 0.05"))
    run = regrade.preview_regrade(
        offering=offering,
        template=item.template,
        target_version=wider,
        recompute_answers=False,
        by=instructor,
    )
    _run_to_the_end(run)
    assert _row(_index(client, offering), SLUG)[2:4] == ["100%", "100%"]


def test_a_staff_grade_shows_on_the_item_index(client, instructor, offering):
    quiz = make_offering_quiz(
        offering,
        examples=("explain-why-decode-is-memory-bound",),
        mode="exam",
        time_limit_minutes=60,
    )
    student = EnrollmentFactory(offering=offering, role="student").user
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    variant = attempt.variants.get()
    service.autosave(
        variant=variant, part_id="why", raw="Bandwidth.", student=student, now=timezone.now()
    )
    from quizzes.services.submission import submit_attempt

    submit_attempt(attempt=attempt, student=student, now=timezone.now())
    client.force_login(instructor)
    slug = quiz.items.get().template.slug
    assert _row(_index(client, offering), slug)[2] == "0%"
    response = Response.objects.get(variant__attempt=attempt, part_id="why")
    url = reverse(
        "instructor:grade_answer", args=[offering.slug, quiz.items.get().pk, "why", response.pk]
    )
    done = client.post(url, {"met": ["bytes", "intensity", "bound"], "comment": "", "version": 0})
    assert done.status_code == 302
    assert _row(_index(client, offering), slug)[2] == "100%"


def test_deleting_an_attempt_takes_it_out_of_both_pages(client, instructor, homework):
    client.force_login(instructor)
    _checked(homework, "ana", wrong_first=False)
    doomed = _checked(homework, "ben", wrong_first=True)
    assert _row(_index(client, homework.offering), SLUG)[1] == "2"
    assert _mistake(_map(client, homework.offering), "bits-for-bytes") == ("1", "1")
    Attempt.objects.get(pk=doomed.pk).delete()
    assert _row(_index(client, homework.offering), SLUG)[1] == "1"
    assert _mistake(_map(client, homework.offering), "bits-for-bytes") is None


def test_an_admin_deleting_a_response_changes_the_map(client, instructor, admin_user, homework):
    client.force_login(instructor)
    attempt = _checked(homework, "ben", wrong_first=True)
    assert _mistake(_map(client, homework.offering), "bits-for-bytes") == ("1", "1")
    model_admin = admin.site._registry[Response]
    request = RequestFactory().post("/")
    request.user = admin_user
    wrong = Response.objects.filter(variant__attempt=attempt, diagnosis="bits-for-bytes")
    model_admin.delete_queryset(request, wrong)
    assert _mistake(_map(client, homework.offering), "bits-for-bytes") is None


def test_another_offerings_answers_never_reach_this_offerings_figures(
    client, instructor, course, homework
):
    other = OfferingFactory(course=course, slug="spring")
    theirs = make_offering_quiz(other, slug="hw")
    _checked(homework, "ana", wrong_first=False)
    client.force_login(instructor)
    before_index, before_map = _index(client, homework.offering), _map(client, homework.offering)
    for n in range(3):
        _checked(theirs, f"other{n}", wrong_first=True)
    # Their grades moved their counters, not ours: our kept rows stay current and unchanged.
    kinds = offering_statistics.Kind
    assert not offering_statistics.kept(homework.offering, kinds.ITEM_INDEX).stale
    assert _row(_index(client, homework.offering), SLUG) == _row(before_index, SLUG)
    assert _mistake(_map(client, homework.offering), "bits-for-bytes") is None
    assert _mistake(before_map, "bits-for-bytes") is None
    # Recomputed from scratch, ours still count only our own answers; theirs count theirs.
    assert offering_statistics.refresh(homework.offering, kinds.ITEM_INDEX).data == (
        analytics.index_figures(homework.offering)
    )
    assert next(iter(analytics.index_figures(homework.offering).values()))["observations"] == 1
    assert next(iter(analytics.index_figures(other).values()))["observations"] == 3
    staff = EnrollmentFactory(offering=other, role="instructor").user
    client.force_login(staff)
    assert _mistake(_map(client, other), "bits-for-bytes") == ("3", "3")


# The session, the user, the staff role; the filter's quiz choices with their counters (one
# query: they are what `seen` is compared with), the kept row, the filter's groups; the index
# adds the bank's templates and the book's chapters, the map the book's titles.
PAGE_QUERIES = {"instructor:item_index": 8, "instructor:misconceptions": 7}


@pytest.mark.parametrize("page", sorted(PAGE_QUERIES))
def test_each_page_runs_the_same_queries_for_a_small_and_a_larger_class(
    client, instructor, course, page, django_assert_num_queries
):
    quiz, items = make_quiz(course)
    client.force_login(instructor)
    url = reverse(page, args=[offering_of(course).slug])
    counts = []
    for size, prefix in ((3, "a"), (30, "b")):
        make_class(course, quiz, items, size, prefix=prefix)
        client.get(url)  # grades changed: the kept figures are computed again
        with _no_recomputation(), django_assert_num_queries(PAGE_QUERIES[page]) as captured:
            assert client.get(url).status_code == 200
        counts.append(len(captured.captured_queries))
    assert counts[0] == counts[1]


def test_a_stale_page_shows_its_figures_and_queues_one_refresh(
    client, instructor, homework, database_tasks
):
    from django_tasks_db.models import DBTaskResult

    client.force_login(instructor)
    _checked(homework, "ana", wrong_first=False)
    _index(client, homework.offering)  # the first view computes the kept row in the request
    _checked(homework, "ben", wrong_first=True)
    with _no_recomputation():
        html = _index(client, homework.offering)
        _index(client, homework.offering)
    assert "Newer answers are being counted" in html and _row(html, SLUG)[1] == "1"
    queued = DBTaskResult.objects.filter(task_path__endswith="refresh_offering_statistics")
    assert queued.count() == 1
    # The worker's refresh makes the page current.
    offering_statistics.refresh_by_ids(homework.offering.pk, queued.get().args_kwargs["args"][1])
    html = _index(client, homework.offering)
    assert "Newer answers" not in html and _row(html, SLUG)[1] == "2"


def test_a_filtered_page_is_computed_now_and_keeps_nothing(client, instructor, homework):
    client.force_login(instructor)
    _checked(homework, "ana", wrong_first=True)
    url = reverse("instructor:misconceptions", args=[homework.offering.slug])
    html = client.get(url, {"quiz": homework.slug}).content.decode()
    assert _mistake(html, "bits-for-bytes") == ("1", "1") and "Computed now" in html
    assert not OfferingStatistics.objects.exists()
