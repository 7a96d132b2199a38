"""The rows behind a student's attempt pages, read in a fixed number of queries.

Reads only; the presenters (`quizzes.presenters`) turn these rows into what a page shows.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from quizzes.models import Response, SavedAnswer, ScoreOverride, Variant


@dataclass
class AttemptRows:
    """An attempt's variants (in page order), responses by variant id (in the order they were
    made) and an exam's saved answers by (variant id, part id)."""

    variants: list[Variant]
    responses: dict[int, list[Response]] = field(default_factory=dict)
    saved: dict[tuple[int, str], str] = field(default_factory=dict)
    # Each saved answer's sequence (the page starts its own save sequence above it).
    sequences: dict[tuple[int, str], int] = field(default_factory=dict)

    def keep_saved(self, saved_answers) -> None:
        for s in saved_answers:
            self.saved[(s.variant_id, s.part_id)] = s.raw
            self.sequences[(s.variant_id, s.part_id)] = s.sequence

    def by_item(self) -> dict[int, list[Variant]]:
        grouped: dict[int, list[Variant]] = {}
        for variant in self.variants:
            grouped.setdefault(variant.item_id, []).append(variant)
        return grouped


def attempt_rows(attempt) -> AttemptRows:
    """Every variant, response and saved answer of `attempt`: 3 queries (2 for homework)."""
    variants = list(
        Variant.objects.filter(attempt=attempt)
        .select_related("item", "version")
        .order_by("item__position", "index")
    )
    for variant in variants:
        variant.attempt = attempt
    rows = AttemptRows(variants)
    for response in Response.objects.filter(variant__attempt=attempt).order_by("created_at", "pk"):
        rows.responses.setdefault(response.variant_id, []).append(response)
    if attempt.quiz.is_exam:
        rows.keep_saved(SavedAnswer.objects.filter(variant__attempt=attempt))
    return rows


def item_siblings(variant) -> list[Variant]:
    """Every variant of `variant`'s item in its attempt (the item's best score): 1 query."""
    return list(Variant.objects.filter(attempt=variant.attempt_id, item=variant.item_id))


def variant_rows(variant) -> AttemptRows:
    """One variant's responses and (exam) saved answers: 1 or 2 queries."""
    rows = AttemptRows([variant])
    rows.responses[variant.pk] = list(
        Response.objects.filter(variant=variant).order_by("created_at", "pk")
    )
    if variant.attempt.quiz.is_exam:
        rows.keep_saved(SavedAnswer.objects.filter(variant=variant))
    return rows


def overrides_by_attempt(attempts) -> dict[int, list[ScoreOverride]]:
    """Every score override of `attempts` (with its item), by attempt id: 1 query."""
    rows: dict[int, list[ScoreOverride]] = {}
    overrides = ScoreOverride.objects.filter(attempt__in=[a.pk for a in attempts]).select_related(
        "item"
    )
    for override in overrides:
        rows.setdefault(override.attempt_id, []).append(override)
    return rows
