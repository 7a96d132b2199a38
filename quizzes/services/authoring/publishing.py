"""Validating a draft, publishing it as an immutable version, retiring, and quiz items.

Variants point at versions, so a new version never changes what a student already holds; a
retired template is offered for no new quiz item, and nothing about it is deleted.
"""

from __future__ import annotations

import math
from decimal import Decimal

from django.db import transaction
from django.db.models import Count, F, Max
from django.utils import timezone

from quizzes.engine.validate import ValidationCancelled
from quizzes.models import (
    QuestionTemplate,
    QuizItem,
    TemplateStatus,
    TemplateVersion,
    Variant,
    VersionOrigin,
)
from quizzes.services.authoring.budgets import validation_budget
from quizzes.services.authoring.drafts import AuthoringError, read_draft
from quizzes.services.bank import (
    check_for_publication,
    content_hash,
    publication_seeds,
    publish_version,
)
from quizzes.services.bank.gate import PUBLICATION_SEEDS

# The validate form's default: the publication gate's count (QUIZ_PUBLICATION_SEEDS).
DEFAULT_SEEDS = PUBLICATION_SEEDS
MAX_SEEDS = 5_000
# A quiz item's points: more than 0, at most this, two decimals (the column's bounds).
MAX_POINTS = Decimal(1000)


def validation_summary(text: str, seeds: int, *, parsed=None, progress=None) -> dict:
    """Validate ``text`` over ``seeds`` seeds; a JSON-ready summary (never raises, except
    `ValidationCancelled` when ``progress`` says the run was cancelled).

    ``parsed`` is the text's TemplateFile when the caller has read it already.
    """
    summary = {
        "ok": False,
        "seeds": seeds,
        "content_hash": content_hash(text),
        "variants": 0,
        "distinct_variants": 0,
        "failures": [],
        "parts": {},
        "outcomes": {},
        "summary": "",
    }
    issues = []
    if parsed is None:
        parsed, issues = read_draft(text)
    if parsed is None:
        summary["failures"] = [
            {"check": "parse", "message": str(i), "seed": None, "part": None, "count": 1}
            for i in issues
        ]
        summary["summary"] = f"{len(issues)} parse error(s)"
        return summary
    try:
        # The editor's text was parsed once by the bank's reader; its template travels here.
        report, refusing = check_for_publication(
            parsed.template, seeds=seeds, budget_s=validation_budget(), progress=progress
        )
    except ValidationCancelled:
        raise
    except Exception as exc:  # noqa: BLE001 - a validator crash is a failure, not a 500
        summary["failures"] = [
            {"check": "crash", "message": str(exc), "seed": None, "part": None, "count": 1}
        ]
        summary["summary"] = "the validator could not finish"
        return summary
    summary.update(
        ok=report.ok,
        publishable=not refusing,
        variants=report.variants,
        distinct_variants=report.distinct_variants,
        summary=report.summary(),
        outcomes={k: _finite(v) for k, v in report.outcomes.items()},
        failures=[
            {
                "check": f.check,
                "message": f.message,
                "seed": f.seed,
                "part": f.part,
                "count": f.count,
            }
            for f in report.failures
        ],
        parts={
            part_id: {
                "unit": stats.unit,
                "minimum": _finite(stats.minimum),
                "maximum": _finite(stats.maximum),
                "histogram": [[_finite(lo), _finite(hi), n] for lo, hi, n in stats.histogram],
                "common_error_ratios": {
                    code: _finite(ratio) for code, ratio in stats.common_error_ratios.items()
                },
            }
            for part_id, stats in report.parts.items()
        },
    )
    return summary


def _finite(value) -> float | None:
    try:
        value = float(value)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


def validate_draft(*, template: QuestionTemplate, seeds: int = DEFAULT_SEEDS, parsed=None) -> dict:
    """Validate the draft and store the summary as the template's last validation."""
    summary = validation_summary(template.draft_source, seeds, parsed=parsed)
    summary["revision"] = template.draft_revision
    QuestionTemplate.objects.filter(pk=template.pk).update(
        last_validation=summary, last_validated_at=timezone.now()
    )
    template.last_validation = summary
    return summary


def mark_validation_pending(*, template: QuestionTemplate, seeds: int) -> None:
    """Note that a validation over `seeds` seeds is queued; the last report stays shown."""
    pending = {"seeds": seeds, "revision": template.draft_revision}
    summary = {**(template.last_validation or {}), "pending": pending}
    QuestionTemplate.objects.filter(pk=template.pk).update(last_validation=summary)
    template.last_validation = summary


def publish_draft(
    *, template: QuestionTemplate, revision: int, user, note: str = ""
) -> TemplateVersion:
    """Publish the draft as the next version, if it passes the publication gate.

    ``revision`` is the draft the author saw: a draft saved since is not published unseen.
    """
    if template.draft_revision != revision:
        raise AuthoringError("The draft changed since you opened this page; review it first.")
    text = template.draft_source
    current = template.current_version
    if current is not None and current.content_hash == content_hash(text):
        raise AuthoringError(f"The draft is the same as version {current.number}; nothing to do.")
    parsed, issues = read_draft(text, slug=template.slug)
    if parsed is None:
        raise AuthoringError(
            "The draft has errors; fix them first: " + "; ".join(str(i) for i in issues)
        )
    seeds = publication_seeds()
    summary = validate_draft(template=template, seeds=seeds, parsed=parsed)
    if not summary["publishable"]:
        raise AuthoringError(
            f"The draft fails validation over {seeds} seeds "
            f"({len(summary['failures'])} problem(s)); see the validation report."
        )
    with transaction.atomic():
        locked = QuestionTemplate.objects.select_for_update().get(pk=template.pk)
        if locked.draft_revision != revision:
            raise AuthoringError("The draft changed while it was being validated; try again.")
        version = publish_version(
            template=locked,
            text=text,
            title=parsed.title,
            user=user,
            note=note[:300],
            origin=VersionOrigin.STUDIO,
        )
        locked.title, locked.chapter_slug, locked.kind = parsed.title, parsed.chapter, parsed.kind
        locked.save(update_fields=["title", "chapter_slug", "kind"])
    template.refresh_from_db()
    return version


def retire_template(*, template: QuestionTemplate) -> None:
    """Offer the template for no new quiz item; its versions, items and answers all stay."""
    if template.status != TemplateStatus.PUBLISHED:
        raise AuthoringError("Only a published template can be retired.")
    QuestionTemplate.objects.filter(pk=template.pk).update(status=TemplateStatus.RETIRED)
    template.status = TemplateStatus.RETIRED


@transaction.atomic
def add_quiz_item(*, quiz, template: QuestionTemplate, points: Decimal, position: int | None):
    """Add a published template to ``quiz`` at ``position`` (1-based; None: at the end).

    Items at and after the position move one place down. ``points`` arrive typed and checked
    (`quizzes.forms.QuizItemForm`); the bound is kept here too, as the column's rule.
    """
    if not Decimal(0) < Decimal(points) <= MAX_POINTS:
        raise AuthoringError(f"Points must be more than 0 and at most {MAX_POINTS}.")
    if template.status != TemplateStatus.PUBLISHED or template.current_version_id is None:
        raise AuthoringError(f"'{template.slug}' is not published, so it cannot join a quiz.")
    items = list(QuizItem.objects.select_for_update().filter(quiz=quiz).order_by("position"))
    if any(item.template_id == template.pk for item in items):
        raise AuthoringError(f"'{template.slug}' is already in this quiz.")
    last = items[-1].position if items else 0
    if position is None or position > last:
        position = last + 1
    if position < 1:
        raise AuthoringError("Positions start at 1.")
    # Positions are unique per quiz: move the last item first so no two ever collide.
    for item in reversed(items):
        if item.position >= position:
            QuizItem.objects.filter(pk=item.pk).update(position=F("position") + 1)
    return QuizItem.objects.create(quiz=quiz, template=template, points=points, position=position)


@transaction.atomic
def remove_quiz_item(*, item: QuizItem) -> None:
    """Remove an item that no student has been given; later items move up one place."""
    if Variant.objects.filter(item=item).exists():
        raise AuthoringError(
            "Students have already been given this question, so it stays in the quiz."
        )
    quiz, position = item.quiz_id, item.position
    item.delete()
    later = QuizItem.objects.select_for_update().filter(quiz=quiz, position__gt=position)
    for pk in later.order_by("position").values_list("pk", flat=True):
        QuizItem.objects.filter(pk=pk).update(position=F("position") - 1)


def version_usage(template: QuestionTemplate) -> list[dict]:
    """Per version, newest first: the quiz items that draw it and how many variants exist."""
    versions = list(template.versions.order_by("-number").select_related("published_by"))
    held = dict(
        Variant.objects.filter(version__template=template)
        .values_list("version")
        .annotate(n=Count("pk"))
        .values_list("version", "n")
    )
    items = list(template.quiz_items.select_related("quiz__offering").order_by("quiz__title"))
    rows = []
    for version in versions:
        uses = [
            item
            for item in items
            if item.pinned_version_id == version.pk
            or (item.pinned_version_id is None and template.current_version_id == version.pk)
        ]
        rows.append({"version": version, "items": uses, "variants": held.get(version.pk, 0)})
    return rows


def next_version_number(template: QuestionTemplate) -> int:
    return (template.versions.aggregate(n=Max("number"))["n"] or 0) + 1
