"""Builders shared by the instructor, analytics and regrade tests: a small class of students
with submitted attempts whose item scores are chosen by the test (no tests live here)."""

from __future__ import annotations

from decimal import Decimal

from django.contrib.auth import get_user_model
from django.utils import timezone

from tests.factories import (
    AttemptFactory,
    EnrollmentFactory,
    QuestionTemplateFactory,
    QuizFactory,
    QuizItemFactory,
    ResponseFactory,
    VariantFactory,
)

EXAMPLES = ("decode-step-memory-floor", "kv-cache-fits", "kernel-time-roofline")


def make_quiz(course, examples=EXAMPLES, points=None, **fields):
    """A quiz in `course`'s default offering (or in `course`, an offering)."""
    quiz = QuizFactory(course=course, **fields)
    items = []
    for position, slug in enumerate(examples, start=1):
        template = QuestionTemplateFactory(course=quiz.offering.course, example=slug)
        items.append(
            QuizItemFactory(
                quiz=quiz,
                template=template,
                position=position,
                points=(points or {}).get(slug, 1),
            )
        )
    return quiz, items


def make_student(course, username: str, **names):
    # No password hashing: these students never log in, and hashing dominates the test time.
    user = get_user_model().objects.create(username=username, password="!", **names)
    EnrollmentFactory(user=user, course=course, role="student")
    return user


def submitted_attempt(quiz, student, scores: dict, *, number: int = 1, late: bool = False):
    """A submitted attempt whose items score `scores[item]` (fractions); returns the attempt."""
    attempt = AttemptFactory(
        quiz=quiz,
        student=student,
        number=number,
        status="submitted",
        submitted_at=timezone.now(),
        is_late=late,
        item_ids=[item.pk for item in scores],
    )
    total = Decimal(0)
    for item, fraction in scores.items():
        variant = VariantFactory(attempt=attempt, item=item)
        variant.score = fraction
        variant.save(update_fields=["score"])
        attempt.variant_for = getattr(attempt, "variant_for", {})
        attempt.variant_for[item.pk] = variant
        total += item.points * Decimal(str(fraction))
    attempt.score = total
    attempt.max_score = sum(item.points for item in scores)
    attempt.save(update_fields=["score", "max_score"])
    return attempt


def respond(variant, part_id: str, raw: str, status: str, try_number=1, diagnosis: str = ""):
    return ResponseFactory(
        variant=variant,
        part_id=part_id,
        raw=raw,
        status=status,
        score=1.0 if status == "correct" else 0.0,
        try_number=try_number,
        diagnosis=diagnosis,
    )


def make_class(course, quiz, items, size: int, *, prefix: str = "s"):
    """`size` students with a spread of scores and one wrong answer each: for query counts."""
    students = []
    for i in range(size):
        student = make_student(course, f"{prefix}{i:03d}", first_name=f"F{i}", last_name=f"L{i}")
        fractions = {item: ((i + k) % 3) / 2 for k, item in enumerate(items)}
        attempt = submitted_attempt(quiz, student, fractions)
        variant = attempt.variant_for[items[0].pk]
        respond(variant, "t", "26.9 GB", "incorrect", diagnosis="bits-for-bytes")
        respond(variant, "t", "1 ms", "correct", try_number=2)
        students.append(student)
    return students
