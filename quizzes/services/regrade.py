"""Regrading a template's responses after its answer or tolerance was corrected.

A regrade is recorded as a RegradeRun, previewed first (every score change, nothing written),
then applied in batches of variants, each batch in its own transaction, so it survives a worker
restart and applying a batch twice changes nothing more. The preview and the apply run as
background tasks (`quizzes/tasks.py`); the pages only read the run's row. Only counted tries
are regraded: an invalid response cost no try, and turning it into a graded one would rewrite
the try history.

Applying a run moves every variant it covers to the target version, so open attempts' later
Checks and an exam's Submit grade with it; without recomputing, the variant's numbers stay.

A variant keeps the catalog figures it was made with (its snapshot). A regrade that recomputes
answers is the one way to move it to today's catalog: the same seed and drawn choices, catalog
entries and derived parameters read again, answers recomputed, a new snapshot stored; its
preview lists every correct answer that would change (`answer_changes`), beside the score
changes.

Attempts are scored again by `submission.recompute_attempt_score`, the one scoring of an
attempt. Also here: rebuilding the engine's view of a stored variant (`engine_template`,
`engine_variant`), which the student-history page uses to show the prompt exactly as the student
saw it.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from courseware import caching
from quizzes import engine
from quizzes.engine import kinds
from quizzes.models import (
    Attempt,
    QuestionTemplate,
    RegradeRun,
    RegradeStatus,
    Response,
    TemplateVersion,
    Variant,
)
from quizzes.services import questions, scoring
from quizzes.services.grades import GRADE_FIELDS, regrade_response
from quizzes.services.submission import recompute_attempt_score

BATCH = 100
PREVIEW_LIMIT = 5000


# ---------------------------------------------------------------- engine views of stored rows


def engine_template(version: TemplateVersion) -> engine.Template:
    """The parsed template of a stored version (parsed once per process)."""
    return questions.template_for(version)


def engine_variant(row: Variant) -> engine.Variant:
    """The engine's Variant for a stored row (parameters + the rest of `to_json()`)."""
    return questions.engine_variant(row)


def stored_answers(variant: engine.Variant) -> dict:
    """What a Variant row keeps in `answers`: `to_json()` without the parameters."""
    data = variant.to_json()
    data.pop("params")
    return data


def recompute_answers(template: engine.Template, variant: engine.Variant) -> engine.Variant:
    """The variant's answers, common-error values and outcome recomputed with `template` from its
    stored parameters and today's catalog (the seed is not redrawn, so the student keeps the
    choices they were dealt; catalog figures and values derived from them are read again)."""
    return engine.restamp(template, variant)


def answer_changes(old: engine.Variant, new: engine.Variant) -> list[dict]:
    """Each part whose correct answer differs between two versions of a variant."""
    changes = []
    for part_id in sorted(set(old.answers) | set(new.answers)):
        before, after = old.answers.get(part_id), new.answers.get(part_id)
        same = before == after
        if isinstance(before, float) and isinstance(after, float):
            same = abs(before - after) <= 1e-12 * max(abs(before), abs(after))
        if not same:
            changes.append({"part": part_id, "old": _shown(before), "new": _shown(after)})
    return changes


def _shown(value):
    if isinstance(value, (list, tuple)):
        return ", ".join(map(str, value))
    return value


def _fingerprint(variant: engine.Variant) -> str:
    return (variant.catalog or {}).get("fingerprint", "") or "before snapshots"


# ---------------------------------------------------------------- one variant


@dataclasses.dataclass
class VariantRegrade:
    answers: dict | None
    outcome: str
    score: float
    updates: list  # (response, grade)
    changes: list  # dicts for the preview
    parameters: dict | None = None  # the recomputed parameters (derived values may move)
    answer_changes: list = dataclasses.field(default_factory=list)


def _response_input(part: engine.Part, raw: str):
    return kinds.kind_for(part).from_stored(raw)


def regrade_variant(row: Variant, template: engine.Template, *, recompute: bool) -> VariantRegrade:
    """Grade the variant's counted responses again with `template`; write nothing."""
    variant = engine_variant(row)
    moved: list[dict] = []
    if recompute:
        before = variant
        variant = recompute_answers(template, variant)
        for change in answer_changes(before, variant):
            moved.append(
                {
                    "variant": row.pk,
                    "attempt": row.attempt_id,
                    "student": row.attempt.student.username,
                    **change,
                    "catalog_from": _fingerprint(before),
                    "catalog_to": _fingerprint(variant),
                }
            )
    updates, changes = [], []
    earlier: dict[str, float] = {}
    best: dict[str, float] = defaultdict(float)
    for response in sorted(row.response_list, key=lambda r: (r.created_at, r.pk)):
        try:
            part = template.part(response.part_id)
        except KeyError:
            continue
        if response.try_number is None:
            continue
        if kinds.kind_for(part).graded_by_staff:
            # A person's grade (or its wait for one) is no grader's to redo: it is kept, and
            # counts as it stands (services.manual_grading changes it, with its audit).
            best[part.id] = max(best[part.id], response.score)
            continue
        grade = engine.grade_part(
            template,
            variant,
            part.id,
            _response_input(part, response.raw),
            earlier=earlier,
        )
        if grade.status == "invalid":
            # A counted try stays a counted try (a wrong dimension, graded "incorrect" when it
            # was sent, now costs no try): regrading never rewrites the try history.
            grade = dataclasses.replace(grade, status="incorrect", score=0.0)
        if grade.value is not None:
            earlier[part.id] = grade.value
        best[part.id] = max(best[part.id], grade.score)
        updates.append((response, grade))
        if grade.status != response.status or abs(grade.score - response.score) > 1e-9:
            changes.append(
                {
                    "response": response.pk,
                    "variant": row.pk,
                    "attempt": row.attempt_id,
                    "student": row.attempt.student.username,
                    "part": part.id,
                    "raw": response.raw[:80],
                    "old_status": response.status,
                    "new_status": grade.status,
                    "old": round(response.score, 4),
                    "new": round(grade.score, 4),
                }
            )
    score = scoring.weighted_score({p.id: p.points for p in template.parts}, best)
    answers = stored_answers(variant) if recompute else None
    parameters = variant.to_json()["params"] if recompute else None
    return VariantRegrade(
        answers, variant.outcome or "", score, updates, changes, parameters, moved
    )


def _variants(run: RegradeRun):
    """The run's variants: its template's, in its own offering's quizzes only."""
    return Variant.objects.filter(
        item__template_id=run.template_id, item__quiz__offering_id=run.offering_id
    ).order_by("pk")


def _with_responses(variants) -> list[Variant]:
    rows = list(variants.select_related("attempt__student"))
    by_id = {row.pk: row for row in rows}
    for row in rows:
        row.response_list = []
    for response in Response.objects.filter(variant_id__in=list(by_id)):
        by_id[response.variant_id].response_list.append(response)
    return rows


# ---------------------------------------------------------------- the run


def queue_preview(
    *,
    offering,
    template: QuestionTemplate,
    target_version: TemplateVersion,
    recompute_answers: bool,
    by,
) -> RegradeRun:
    """Record a regrade of the offering's responses to `template` whose preview is still to be
    computed (`compute_preview`, in a task)."""
    if target_version.template_id != template.pk:
        raise ValidationError("That version belongs to another template.")
    if template.course_id != offering.course_id:
        raise ValidationError("That template is not in this offering's question bank.")
    return RegradeRun.objects.create(
        offering=offering,
        template=template,
        target_version=target_version,
        recompute_answers=recompute_answers,
        status=RegradeStatus.PREVIEWING,
        created_by=by,
    )


def compute_preview(*, run_id: int) -> RegradeRun:
    """Compute every score change a previewing run would make; store them, write nothing else."""
    run = RegradeRun.objects.select_related("target_version").get(pk=run_id)
    if run.status != RegradeStatus.PREVIEWING:
        return run
    parsed = engine_template(run.target_version)
    changes, moved, checked = [], [], 0
    rows = _variants(run)
    total = rows.count()
    for start in range(0, total, 500):
        for row in _with_responses(rows[start : start + 500]):
            result = regrade_variant(row, parsed, recompute=run.recompute_answers)
            checked += len(result.updates)
            changes.extend(result.changes)
            moved.extend(result.answer_changes)
    run.status = RegradeStatus.PREVIEWED
    run.total, run.changed = total, len(changes)
    run.preview, run.answer_changes = changes[:PREVIEW_LIMIT], moved[:PREVIEW_LIMIT]
    run.note = preview_note(checked=checked, variants=total)
    run.save(update_fields=["status", "total", "changed", "preview", "answer_changes", "note"])
    return run


def preview_regrade(
    *,
    offering,
    template: QuestionTemplate,
    target_version: TemplateVersion,
    recompute_answers: bool,
    by,
) -> RegradeRun:
    """Queue and compute a preview in this process (the pages run it as a task)."""
    run = queue_preview(
        offering=offering,
        template=template,
        target_version=target_version,
        recompute_answers=recompute_answers,
        by=by,
    )
    return compute_preview(run_id=run.pk)


def fail_run(*, run_id: int, error: str) -> None:
    """Keep why a run's task stopped; a failed preview can never be applied."""
    run = RegradeRun.objects.get(pk=run_id)
    fields = {"error": error[:2000]}
    if run.status == RegradeStatus.PREVIEWING:
        fields["status"] = RegradeStatus.FAILED
    RegradeRun.objects.filter(pk=run_id).update(**fields)


def preview_note(*, checked: int, variants: int) -> str:
    """What the preview looked at, kept with the run: "Checked 48 responses in 24 variants."."""
    responses = f"{checked} response{'' if checked == 1 else 's'}"
    return f"Checked {responses} in {variants} variant{'' if variants == 1 else 's'}."


def start_regrade(*, run: RegradeRun) -> RegradeRun:
    """Mark a previewed run as running (a stopped one as resumed); `advance_regrade` applies the
    batches."""
    updated = RegradeRun.objects.filter(pk=run.pk, status=RegradeStatus.PREVIEWED).update(
        status=RegradeStatus.RUNNING
    )
    if not updated and run.status not in (RegradeStatus.RUNNING, RegradeStatus.APPLIED):
        raise ValidationError("This regrade can no longer be applied.")
    RegradeRun.objects.filter(pk=run.pk).update(error="")
    run.refresh_from_db()
    return run


def apply_regrade(*, run_id: int, batch: int = BATCH) -> RegradeRun:
    """Apply every remaining batch of a running regrade, each in its own transaction."""
    while True:
        run = advance_regrade(run_id=run_id, batch=batch)
        if run.status != RegradeStatus.RUNNING:
            return run


def advance_regrade(*, run_id: int, batch: int = BATCH) -> RegradeRun:
    """Apply the next batch of a running regrade and return the run.

    The run row is locked for the batch, so two polling tabs never apply the same batch at once;
    the batch is chosen by the run's `processed` count over variants in id order.
    """
    # Each attempt's page stamp and each quiz's statistics are raised once for the batch
    # (quizzes/stamps.py), open attempts' too.
    with transaction.atomic(), caching.batch():
        run = RegradeRun.objects.select_for_update().select_related("target_version").get(pk=run_id)
        if run.status != RegradeStatus.RUNNING:
            return run
        parsed = engine_template(run.target_version)
        rows = _with_responses(_variants(run)[run.processed : run.processed + batch])
        now = timezone.now()
        parts = {part.id for part in parsed.parts}
        for row in rows:
            result = regrade_variant(row, parsed, recompute=run.recompute_answers)
            _apply(row, result, run, now, moves=_gradable(row, result, parts))
        attempts = list(Attempt.objects.filter(pk__in={row.attempt_id for row in rows}))
        for attempt in attempts:
            recompute_attempt_score(attempt)
        run.processed = min(run.total, run.processed + len(rows))
        if not rows or run.processed >= run.total:
            run.status = RegradeStatus.APPLIED
            run.applied_at = now
            run.processed = run.total
        run.save(update_fields=["processed", "status", "applied_at"])
    return run


def _gradable(row: Variant, result: VariantRegrade, parts: set[str]) -> bool:
    """Whether the target version can grade the variant: its answers were recomputed, or every
    part of the target is among the answers it keeps (a version that added or renamed a part
    leaves a variant whose answers were kept on its own version)."""
    return result.answers is not None or parts <= set(questions.correct_answers(row))


def _apply(row: Variant, result: VariantRegrade, run: RegradeRun, now, *, moves: bool) -> None:
    Response.objects.bulk_update(
        [regrade_response(response, grade, now=now) for response, grade in result.updates],
        [*GRADE_FIELDS, "regraded_at"],
    )
    # Every variant the run covers moves to the target version, even when its answers are
    # kept: the run graded it with that version, and an attempt still open (an exam with no
    # responses yet, a homework part not yet checked) must be graded the corrected way too.
    # Without recomputing, the seed, parameters and stored answers stay as they were.
    row.score = result.score
    fields = ["score"]
    if moves:
        row.version = run.target_version
        fields.append("version")
    if result.answers is not None:
        row.answers = result.answers
        row.parameters = result.parameters
        row.outcome = result.outcome
        fields += ["answers", "parameters", "outcome"]
    row.save(update_fields=fields)
