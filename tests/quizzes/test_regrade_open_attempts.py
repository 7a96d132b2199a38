"""A regrade applied while attempts are open: their later Checks and an exam's Submit grade with
the corrected version, and the variant keeps its numbers."""

from __future__ import annotations

import uuid

import pytest
from django.utils import timezone

from quizzes.models import QuizMode, RegradeStatus, Response, Variant
from quizzes.services import attempts as service
from quizzes.services import regrade
from tests.factories import example_source, make_quiz, offering_of
from tests.quizzes.test_regrade import SLUG, _version

pytestmark = pytest.mark.django_db


def _widen_and_apply(template, instructor):
    """A tolerance-only fix (2% to 5%), previewed and applied without recomputing answers."""
    wider = _version(template, example_source(SLUG).replace("rtol: 0.02", "rtol: 0.05"))
    run = regrade.preview_regrade(
        offering=offering_of(template.course),
        template=template,
        target_version=wider,
        recompute_answers=False,
        by=instructor,
    )
    regrade.start_regrade(run=run)
    assert regrade.apply_regrade(run_id=run.pk).status == RegradeStatus.APPLIED
    return wider


def _loaded(variant):
    return Variant.objects.select_related("attempt__quiz", "item", "version").get(pk=variant.pk)


@pytest.mark.parametrize("mode", [QuizMode.EXAM, QuizMode.HOMEWORK])
def test_an_open_attempt_is_graded_with_the_regraded_version(course, student, instructor, mode):
    quiz = make_quiz(course, examples=[SLUG], mode=mode)
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    variant = attempt.variants.select_related("item__template").get()
    before = (variant.seed, variant.parameters, variant.answers)
    near = f"{variant.answers['answers']['t'] * 1.03!r} s"  # wrong at 2%, right at 5%
    if mode == QuizMode.EXAM:
        service.autosave(
            variant=_loaded(variant),
            part_id="t",
            raw=near,
            student=student,
            now=timezone.now(),
            sequence=1,
        )
    wider = _widen_and_apply(variant.item.template, instructor)

    variant.refresh_from_db()
    assert variant.version == wider  # the variant is graded by the version the run applied
    assert (variant.seed, variant.parameters, variant.answers) == before  # same numbers
    if mode == QuizMode.EXAM:
        service.submit_attempt(attempt=attempt, student=student, now=timezone.now())
    else:
        service.check_answer(
            variant=_loaded(variant),
            part_id="t",
            raw=near,
            student=student,
            idempotency_key=uuid.uuid4().hex,
            now=timezone.now(),
        )
    response = Response.objects.get(variant=variant, part_id="t")
    assert (response.status, response.score) == ("correct", 1.0)


def test_a_version_with_a_part_the_kept_answers_lack_leaves_the_variant_on_its_own(
    course, student, instructor
):
    quiz = make_quiz(course, examples=[SLUG], mode=QuizMode.HOMEWORK)
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    variant = attempt.variants.select_related("item__template").get()
    own = variant.version
    renamed = _version(
        variant.item.template,
        example_source(SLUG).replace("  - id: t\n", "  - id: t2\n").replace("part_t", "part_t2"),
    )
    run = regrade.preview_regrade(
        offering=quiz.offering,
        template=variant.item.template,
        target_version=renamed,
        recompute_answers=False,
        by=instructor,
    )
    regrade.start_regrade(run=run)
    assert regrade.apply_regrade(run_id=run.pk).status == RegradeStatus.APPLIED
    variant.refresh_from_db()
    assert variant.version == own  # its kept answers have no "t2" to grade against
