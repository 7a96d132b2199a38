"""The gradebook as rows for its CSV export: the students the gradebook shows (its search,
filter and sort, every page), their course total by the gradebook's own rule (`totals`), and
each quiz's best submitted score with any override's value and reason beside it.

Students are read in chunks with one attempts query and one overrides query per chunk, so a
large class never sits in memory and the queries stay few.
"""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from itertools import islice

from courseware.models import Enrollment, Role
from quizzes.models import Attempt, AttemptStatus, Quiz, ScoreOverride
from quizzes.services.instructor import totals
from quizzes.services.instructor.book import gradebook_students, time_multipliers

STUDENT_CHUNK = 500
# "awaiting grading": parts of the best attempt a person has still to grade (its score is
# provisional while this is above 0).
PER_QUIZ = (
    "best",
    "out of",
    "attempts",
    "late",
    "override",
    "override reason",
    "awaiting grading",
)
PER_STUDENT = (
    "course total",
    "course total out of",
    "course total %",
    "time multiplier",
    "deactivated",
)


def gradebook_header(quizzes) -> list[str]:
    header = ["username", "first_name", "last_name", *PER_STUDENT]
    for quiz in quizzes:
        header += [f"{quiz.slug} {column}" for column in PER_QUIZ]
    return header


def _override_text(overrides: list, items: dict) -> tuple[Decimal | str, str]:
    """The override value and reason of one attempt's overrides (newest first): the latest
    whole-attempt score, else each overridden item's latest points ("Q2: 1.5")."""
    whole = next((o for o in overrides if o[0] is None), None)
    if whole is not None:
        return whole[1], whole[2]
    latest: dict = {}
    for item_id, score, reason in overrides:
        latest.setdefault(item_id, (score, reason))
    ordered = sorted(latest.items(), key=lambda kv: items.get(kv[0], 0))
    value = "; ".join(f"Q{items.get(item, '?')}: {_plain(score)}" for item, (score, _) in ordered)
    reason = "; ".join(f"Q{items.get(item, '?')}: {why}" for item, (_, why) in ordered)
    return value, reason


def _percent(total: Decimal, out_of: Decimal) -> str:
    if not out_of:
        return ""
    return f"{(total / out_of * 100).quantize(Decimal('0.1'))}"


def _plain(value: Decimal) -> str:
    text = f"{value:f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def gradebook_rows(offering, **choices) -> tuple[list[str], Iterator[list]]:
    """The CSV header, and one row per student the gradebook shows with these `choices`."""
    quizzes = list(Quiz.objects.for_offering(offering).prefetch_related("items"))
    positions = {item.pk: item.position for quiz in quizzes for item in quiz.items.all()}
    scheme = totals.scheme(offering, quizzes)
    out_of = scheme.total_max
    students, _ = gradebook_students(offering, quizzes=quizzes, scheme=scheme, **choices)

    def rows() -> Iterator[list]:
        people = students.values_list("pk", "username", "first_name", "last_name").iterator(
            chunk_size=STUDENT_CHUNK
        )
        while chunk := list(islice(people, STUDENT_CHUNK)):
            ids = [p[0] for p in chunk]
            cells: dict = {}
            for pk, student, quiz, status, score, top, late, awaiting in (
                Attempt.objects.filter(student_id__in=ids, quiz__offering=offering)
                .order_by("number", "pk")
                .values_list(
                    "pk",
                    "student_id",
                    "quiz_id",
                    "status",
                    "score",
                    "max_score",
                    "is_late",
                    "awaiting_grading",
                )
            ):
                cell = cells.setdefault(
                    (student, quiz), {"n": 0, "best": None, "top": None, "late": False}
                )
                cell["n"] += 1
                if top is not None and (cell["top"] is None or top > cell["top"]):
                    cell["top"] = top
                if status != AttemptStatus.SUBMITTED:
                    continue
                cell["late"] = cell["late"] or late
                if score is not None and (cell["best"] is None or score > cell["best"]):
                    cell.update(best=score, attempt=pk, awaiting=awaiting)
            overrides: dict = {}
            for attempt, item, score, reason in (
                ScoreOverride.objects.filter(
                    attempt__student_id__in=ids, attempt__quiz__offering=offering
                )
                .order_by("-created_at", "-pk")
                .values_list("attempt_id", "item_id", "score", "reason")
            ):
                overrides.setdefault(attempt, []).append((item, score, reason))
            inactive = set(
                Enrollment.objects.filter(
                    offering=offering, role=Role.STUDENT, is_active=False, user_id__in=ids
                )
                .order_by()
                .values_list("user_id", flat=True)
            )
            multipliers = time_multipliers(offering, ids)
            for pk, username, first, last in chunk:
                total = scheme.total(
                    {quiz.pk: cells.get((pk, quiz.pk), {}).get("best") for quiz in quizzes}
                )
                row = [
                    username,
                    first,
                    last,
                    total,
                    out_of,
                    _percent(total, out_of),
                    multipliers.get(pk, ""),
                    "yes" if pk in inactive else "",
                ]
                for quiz in quizzes:
                    cell = cells.get((pk, quiz.pk), {"n": 0, "best": None})
                    value, reason = "", ""
                    if cell.get("attempt") in overrides:
                        value, reason = _override_text(overrides[cell["attempt"]], positions)
                    row += [
                        cell["best"],
                        cell.get("top"),
                        cell["n"],
                        "yes" if cell.get("late") else "",
                        value,
                        reason,
                        cell.get("awaiting") or "",
                    ]
                yield row

    return gradebook_header(quizzes), rows()
