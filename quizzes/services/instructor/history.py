"""One student's history for the instructor: every attempt, variant and response, with the
score overrides and extensions recorded for them, their groups, their groups' extensions and
their accommodations (a fixed number of queries)."""

from __future__ import annotations

from collections import defaultdict

from django.db.models import Q

from courseware.models import StudentGroup
from quizzes.models import (
    Accommodation,
    Attempt,
    Extension,
    GroupExtension,
    Quiz,
    Response,
    ScoreOverride,
    Variant,
)


def student_history(offering, student) -> dict:
    """Every attempt, variant and response of one student, with overrides and extensions."""
    attempts = list(
        Attempt.objects.filter(student=student, quiz__offering=offering)
        .select_related("quiz")
        .order_by("quiz__position", "quiz__slug", "number")
    )
    variants = defaultdict(list)
    for variant in (
        Variant.objects.filter(attempt__in=attempts)
        .select_related("item__template", "version")
        .order_by("attempt_id", "item__position", "index")
    ):
        variant.response_list = []
        variants[variant.attempt_id].append(variant)
    by_variant = {v.pk: v for vs in variants.values() for v in vs}
    for response in Response.objects.filter(variant_id__in=list(by_variant)).order_by(
        "part_id", "created_at", "pk"
    ):
        by_variant[response.variant_id].response_list.append(response)
    overrides = defaultdict(list)
    for override in (
        ScoreOverride.objects.filter(attempt__in=attempts)
        .select_related("created_by", "item__template")
        .order_by("-created_at", "-pk")
    ):
        overrides[override.attempt_id].append(override)
    for attempt in attempts:
        attempt.variant_list = variants[attempt.pk]
        attempt.override_list = overrides[attempt.pk]
        items = {}
        for variant in attempt.variant_list:
            items.setdefault(variant.item_id, variant.item)
        attempt.item_list = list(items.values())
    extensions = list(
        Extension.objects.filter(student=student, quiz__offering=offering).select_related(
            "quiz", "granted_by"
        )
    )
    groups = list(StudentGroup.objects.filter(offering=offering, memberships__user=student))
    group_extensions = list(
        GroupExtension.objects.filter(group__in=groups).select_related("quiz", "group")
    )
    accommodations = list(
        Accommodation.objects.filter(offering=offering)
        .filter(Q(student=student) | Q(group__in=groups))
        .select_related("group", "granted_by")
    )
    return {
        "attempts": attempts,
        "extensions": extensions,
        "groups": groups,
        "group_extensions": group_extensions,
        "own_accommodation": next((a for a in accommodations if a.student_id), None),
        "group_accommodations": [a for a in accommodations if a.group_id],
        "quizzes": list(Quiz.objects.for_offering(offering)),
    }
