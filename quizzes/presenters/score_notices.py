"""What changed a student's scores after they were recorded: an instructor's override, or a
regrade that was applied, each with its reason, for the My progress page (every submitted
attempt, 3 queries) and the results page (one attempt: no query of its own unless a regrade
touched the attempt, then 1)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.urls import reverse

from quizzes.models import Attempt, AttemptStatus, RegradeRun, RegradeStatus, ScoreOverride

# The newest applied runs of an offering a page reads for its notices.
RUNS_READ = 50
# A run's columns a notice reads (its preview is the changes; `answer_changes` and the target
# version's source, which can be large, are not read).
_RUN_COLUMNS = (
    "applied_at",
    "created_at",
    "preview",
    "template__title",
    "target_version__number",
    "target_version__note",
)


@dataclass(frozen=True)
class ScoreNotice:
    when: datetime
    kind: str  # "override" or "regrade"
    quiz: str
    where: str  # "the whole attempt", "question 3", "question 3, part t"
    old: str
    new: str
    reason: str
    results_url: str


def _points(value) -> str:
    return f"{float(value):.4g}" if value is not None else "—"


def _results(attempt) -> str:
    return reverse("quizzes:attempt_results", args=[attempt.quiz.offering.slug, attempt.pk])


def score_notices(
    student, attempt: Attempt | None = None, *, released_quiz_ids
) -> list[ScoreNotice]:
    """Newest first; with ``attempt``, only the changes to that attempt of the student. Only
    attempts at quizzes whose results are released to the student (`released_quiz_ids`, from
    the one release gate, `services.release`) count: an exam's changes, their reasons and its
    per-part verdicts wait for its results."""
    submitted = Attempt.objects.filter(
        student=student, status=AttemptStatus.SUBMITTED, quiz_id__in=list(released_quiz_ids)
    )
    if attempt is not None:
        submitted = submitted.filter(pk=attempt.pk)
    attempts = {a.pk: a for a in submitted.select_related("quiz__offering").order_by("pk")}
    overrides = ScoreOverride.objects.filter(attempt__in=list(attempts)).select_related("item")
    by_attempt: dict[int, list[ScoreOverride]] = {}
    for override in overrides:
        by_attempt.setdefault(override.attempt_id, []).append(override)
    notices = [
        notice for pk, rows in by_attempt.items() for notice in override_notices(attempts[pk], rows)
    ]
    notices += _regrade_notices(student, attempts)
    return sorted(notices, key=lambda n: n.when, reverse=True)


def attempt_score_notices(
    student, attempt: Attempt, *, overrides: list[ScoreNotice], regraded: bool
) -> list[ScoreNotice]:
    """The notices of one submitted attempt whose results are released (the results page,
    which checked both): its override notices as `override_notices` drew them (kept with the
    page's memo, whose key every override raises), and an applied regrade's only when one of
    its responses was regraded (`regraded`: no run lists a change to an attempt whose responses
    it did not regrade), so an attempt no regrade touched reads nothing here."""
    notices = list(overrides)
    if regraded:
        notices += _regrade_notices(student, {attempt.pk: attempt})
    return sorted(notices, key=lambda n: n.when, reverse=True)


def override_notices(attempt: Attempt, overrides: list[ScoreOverride]) -> list[ScoreNotice]:
    """The notices of `attempt`'s overrides (its rows, each with its item): no query."""
    # The override in force for the attempt or each question: a later one replaces an earlier
    # one, whose reason no longer describes the score (the results page shows only the latest).
    latest = {}
    for override in sorted(overrides, key=lambda o: (o.created_at, o.pk)):
        latest[override.item_id] = override
    notices = []
    for override in latest.values():
        if override.item_id is None:
            where, out_of = "the whole attempt", attempt.max_score
        else:
            ids = attempt.item_ids or []
            number = ids.index(override.item_id) + 1 if override.item_id in ids else None
            where = f"question {number}" if number else "one question"
            out_of = override.item.points
        notices.append(
            ScoreNotice(
                override.created_at,
                "override",
                attempt.quiz.title,
                where,
                _points(override.previous_score),
                f"{_points(override.score)} of {_points(out_of)} points",
                override.reason,
                _results(attempt),
            )
        )
    return notices


def _regrade_notices(student, attempts: dict[int, Attempt]) -> list[ScoreNotice]:
    """The applied regrades' changes to `attempts` of `student`: 1 query (none without
    attempts)."""
    if not attempts:
        return []
    # A run's preview lists each changed response with its student; runs are few (one per
    # corrected template), so they are read whole rather than searched inside their JSON.
    # Only the runs of the offerings these attempts belong to (one, from the page's offering).
    runs = (
        RegradeRun.objects.filter(
            status=RegradeStatus.APPLIED,
            offering_id__in={a.quiz.offering_id for a in attempts.values()},
        )
        .select_related("template", "target_version")
        .only(*_RUN_COLUMNS)
    )
    notices = []
    for run in runs.order_by("-applied_at")[:RUNS_READ]:
        version = run.target_version
        reason = f"The question was regraded against its version {version.number}" + (
            f": {version.note}" if getattr(version, "note", "") else "."
        )
        for change in run.preview or []:
            attempt = attempts.get(change.get("attempt"))
            if attempt is None or change.get("student") != student.username:
                continue
            notices.append(
                ScoreNotice(
                    run.applied_at or run.created_at,
                    "regrade",
                    attempt.quiz.title,
                    f"{run.template.title}, part {change.get('part')}",
                    change.get("old_status", ""),
                    change.get("new_status", ""),
                    reason,
                    _results(attempt),
                )
            )
    return notices
