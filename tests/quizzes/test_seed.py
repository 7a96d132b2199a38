"""seed_demo: a synthetic class with real variants and diagnoses, idempotent per student."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.utils import timezone

from courseware.models import Enrollment, ReadingProgress
from quizzes import engine
from quizzes.models import Attempt, Response, Variant
from quizzes.services.questions import new_variant_fields
from tests.factories import ChapterFactory
from tests.quizzes.test_instructor_helpers import make_quiz

pytestmark = pytest.mark.django_db


@pytest.fixture
def bank(course):
    ChapterFactory(part__course=course)
    return make_quiz(course, due_at=timezone.now() - timedelta(days=1), late_penalty=0.1)


def test_seed_demo_creates_a_class_and_running_it_twice_duplicates_nothing(bank, course):
    call_command("seed_demo", students=20)
    users = get_user_model().objects.filter(username__startswith="demo-student-")
    assert sorted(users.values_list("username", flat=True))[:2] == [
        "demo-student-0001",
        "demo-student-0002",
    ]
    assert users.count() == 20 and not any(u.has_usable_password() for u in users)
    assert Enrollment.objects.filter(user__in=users, role="student").count() == 20
    counts = (Attempt.objects.count(), Variant.objects.count(), Response.objects.count())
    assert all(counts)
    call_command("seed_demo", students=20)
    assert users.count() == 20
    assert (Attempt.objects.count(), Variant.objects.count(), Response.objects.count()) == counts
    call_command("seed_demo", students=25)
    assert users.all().count() == 25 and Attempt.objects.count() > counts[0]


def test_seeded_variants_are_the_ones_the_engine_gives_the_student(bank):
    call_command("seed_demo", students=10)
    variant = Variant.objects.select_related("attempt", "item", "version").first()
    seed = engine.variant_seed(
        settings.SECRET_KEY.encode(),
        variant.attempt.student_id,
        variant.item_id,
        variant.attempt.number,
        variant.index,
    )
    expected = new_variant_fields(variant.version, seed)
    assert variant.seed == seed.hex()
    assert variant.parameters == expected["parameters"]


def test_seeded_class_has_spread_typical_mistakes_invalid_answers_and_reading(bank):
    call_command("seed_demo", students=60)
    statuses = set(Response.objects.values_list("status", flat=True))
    assert statuses == {"correct", "incorrect", "invalid"}
    codes = set(Response.objects.exclude(diagnosis="").values_list("diagnosis", flat=True))
    # The codes the variants the responses answered offer (not a sample of the variants: with a
    # new secret a code can come only from a variant past the first few dozen).
    common = set()
    answered = Variant.objects.filter(responses__diagnosis__gt="").distinct()
    for answers in answered.values_list("answers", flat=True):
        for values in answers.get("common_errors", {}).values():
            common |= set(values)
    choice_codes = {"memory-vs-compute-bound"}  # recorded by a wrong option, not a value
    assert codes and codes <= common | choice_codes
    assert Response.objects.filter(status="invalid", try_number__isnull=False).count() == 0
    scores = [float(a.score) / float(a.max_score) for a in Attempt.objects.all()]
    assert min(scores) < 0.5 < max(scores)
    assert Attempt.objects.filter(is_late=True).exists()
    assert ReadingProgress.objects.exists()
    started = get_user_model().objects.filter(attempts__isnull=False).distinct().count()
    assert started < 60  # some students never start anything
