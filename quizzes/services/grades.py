"""Writing a grade into a Response row: one home, so homework checks, exam submissions,
regrades and demo data store a `quizzes.grading.Grade` the same way.

`grade_fields` is the mapping from a Grade to the row's columns; `graded_response` builds an
unsaved row from it (saved one at a time, with `get_or_create`, or with `bulk_create`), and
`regrade_response` rewrites an existing row in place (for `bulk_update`).  None of them runs a
query: the workflows keep their own transactions and locks.  Writing the rows raises the
quiz's statistics counter by itself (`quizzes/stamps.py`), so the kept item statistics
(`services.instructor.statistics`) know they are out of date.
"""

from __future__ import annotations

from quizzes.models import QuizActivity, Response

# The columns a grade fills, for `bulk_update` after `regrade_response`.
GRADE_FIELDS = (
    "status",
    "score",
    "feedback",
    "diagnosis",
    "interpreted",
    "counterexample",
    "value",
)


def grade_fields(grade) -> dict:
    """The Response columns of `grade`: its verdict, score (kept within 0..1), the feedback
    and diagnosis, how the answer was read, where a formula differs, and the SI value."""
    return {
        "status": grade.status,
        "score": max(0.0, min(1.0, float(grade.score))),
        "feedback": grade.feedback or "",
        "diagnosis": grade.diagnosis or "",
        "interpreted": getattr(grade, "interpreted", None) or "",
        "counterexample": getattr(grade, "counterexample", None) or "",
        "value": getattr(grade, "value", None),
    }


def graded_response(*, part_id: str, raw: str, grade, try_number: int | None, **row) -> Response:
    """An unsaved Response for `grade` of the stored answer `raw`; `row` holds the rest
    (variant, source, idempotency_key, created_at).  An invalid answer is no try: pass
    `try_number=None` for it (`try_number_for` does)."""
    return Response(part_id=part_id, raw=raw, try_number=try_number, **grade_fields(grade), **row)


def try_number_for(grade, tries_used: int) -> int | None:
    """The try a grade counts as after `tries_used` counted tries: none when it is invalid."""
    return None if grade.status == "invalid" else tries_used + 1


def regrade_response(response: Response, grade, *, now) -> Response:
    """Rewrite `response` in place with `grade`, dated `now` (save with `bulk_update` over
    `GRADE_FIELDS` and ``regraded_at``)."""
    for name, value in grade_fields(grade).items():
        setattr(response, name, value)
    response.regraded_at = now
    return response


def ensure_statistics_counter(*, quiz_id: int) -> None:
    """Make the quiz's change counter exist before its first grade (one insert that yields to
    an existing row), so a grade's count is one UPDATE, not UPDATE, INSERT and UPDATE."""
    QuizActivity.objects.bulk_create([QuizActivity(quiz_id=quiz_id)], ignore_conflicts=True)
