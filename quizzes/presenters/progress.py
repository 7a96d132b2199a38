"""Summaries for the quiz list, the results page and My progress, each in a fixed number of queries
(the rows come from `services.student_progress`).

Reads only: per quiz the student's attempts and best score, per chapter the reading status, and
the misconceptions the grader recognised in the student's responses, linked (when the
misconception catalogue knows the code) to the section of the book that explains it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from decimal import Decimal

from django.urls import NoReverseMatch, reverse
from django.utils import timezone

from courseware.models import Chapter
from courseware.services import section_heading
from quizzes.models import AttemptStatus, Quiz
from quizzes.services import questions, scoring
from quizzes.services import student_progress as rows_of
from quizzes.services.availability import window_for
from quizzes.services.release import results_released


@dataclass
class QuizRow:
    quiz: Quiz
    attempts: list = field(default_factory=list)
    best: Decimal | None = None
    max_score: Decimal | None = None
    questions: int = 0  # how many questions one attempt asks (pools draw some of theirs)
    due_at: object = None  # the student's due date: the quiz's, or their extension's
    window: object = None  # the student's QuizWindow (their time limit with any multiplier)
    released: bool = True  # whether its results (scores, verdicts, changes) may be shown now

    @property
    def open_attempt(self):
        return next((a for a in self.attempts if a.status == AttemptStatus.IN_PROGRESS), None)

    @property
    def submitted(self) -> list:
        return [a for a in self.attempts if a.status == AttemptStatus.SUBMITTED]

    @property
    def status(self) -> str:
        if self.open_attempt is not None:
            return "In progress"
        if self.submitted:
            return "Submitted"
        return "Not started"

    @property
    def percent(self) -> int | None:
        if self.best is None or not self.max_score:
            return None
        return round(100 * float(self.best) / float(self.max_score))


def questions_per_attempt(quiz, pools: list[str]) -> int:
    """How many questions an attempt asks, given the pool of each of the quiz's items: every
    unpooled item, `quiz.pools[name]` of a named pool, all of a pool the quiz does not name
    (the same rule as `attempts.draw_items`)."""
    sizes = Counter(pools)
    named = quiz.pools or {}
    total = sizes.pop("", 0)
    for pool, size in sizes.items():
        total += min(int(named[pool]), size) if pool in named else size
    return total


def quiz_rows(offering, student) -> list[QuizRow]:
    """The offering's published quizzes (chapter order) with this student's attempts, best
        released score, questions per attempt, due date and their own window (extensions, their
    groups' extensions, their time multiplier): 7 queries."""
    quizzes = rows_of.visible_quizzes(offering)
    for quiz in quizzes:
        quiz.offering = offering  # their links name it
    rows = {quiz.pk: QuizRow(quiz) for quiz in quizzes}
    overrides = rows_of.attempt_overrides(student)
    extensions = rows_of.extensions_by_quiz(student, quizzes)
    groups = rows_of.group_terms_by_quiz(student, quizzes)
    multiplier = rows_of.time_multiplier(student, offering)
    now = timezone.now()
    windows = {
        quiz.pk: window_for(
            quiz, extensions.get(quiz.pk), groups=groups.get(quiz.pk), multiplier=multiplier
        )
        for quiz in quizzes
    }
    released = {quiz.pk: results_released(quiz, windows[quiz.pk], now) for quiz in quizzes}
    pools = rows_of.item_pools(quizzes)
    for quiz in quizzes:
        rows[quiz.pk].questions = questions_per_attempt(quiz, pools[quiz.pk])
        rows[quiz.pk].due_at = windows[quiz.pk].due_at
        rows[quiz.pk].window = windows[quiz.pk]
        rows[quiz.pk].released = released[quiz.pk]
    by_id = {quiz.pk: quiz for quiz in quizzes}
    for attempt in rows_of.attempts_of(student, quizzes):
        attempt.quiz = by_id[attempt.quiz_id]
        row = rows[attempt.quiz_id]
        row.attempts.append(attempt)
        if attempt.status == AttemptStatus.SUBMITTED and released[attempt.quiz_id]:
            shown = scoring.shown_score(attempt, overrides.get(attempt.pk, ()))
            if shown is not None and (row.best is None or shown > row.best):
                row.best, row.max_score = shown, attempt.max_score
    return list(rows.values())


def attempt_score(attempt) -> Decimal | None:
    return scoring.shown_score(attempt, rows_of.whole_attempt_overrides(attempt))


# -- roofline charts on the results page ----------------------------------------------------


def _roofline_point(block) -> tuple | None:
    """(accelerator key, dtype, intensity) of a roofline question's variant, if it has them."""
    try:
        template = questions.template_for(block.variant.version)
    except questions.QuestionUnavailable:
        return None
    if template.chapter != "roofline":
        return None
    params = block.variant.parameters or {}
    acc = next(
        (
            v["key"]
            for v in params.values()
            if isinstance(v, dict) and v.get("catalog") == "accelerator"
        ),
        None,
    )
    intensity = next(
        (v for k, v in params.items() if "intensity" in k and isinstance(v, (int, float))), None
    )
    dt = params.get("dt")
    if isinstance(dt, dict):
        dt = dt.get("key")
    if acc is None or not intensity or intensity <= 0:
        return None
    return acc, dt if isinstance(dt, str) else "bf16", float(intensity)


def roofline_charts(blocks) -> dict[int, object]:
    """Inline SVG rooflines by item number, for roofline questions (none if charts are absent)."""
    try:
        from courseware.charts import roofline_pair_html
    except ImportError:
        return {}
    charts = {}
    for block in blocks:
        point = _roofline_point(block)
        if point is None:
            continue
        acc, dt, intensity = point
        try:
            charts[block.number] = roofline_pair_html(
                acc,
                dt,
                [("your kernel", intensity, None)],
                examples=False,
                title=f"Your kernel on the {acc} roofline ({dt})",
            )
        except (KeyError, ValueError):
            continue
    return charts


# -- my progress -----------------------------------------------------------------------------


@dataclass
class MisconceptionRow:
    code: str
    count: int
    title: str
    explanation: str = ""
    url: str = ""
    place: str = ""  # "Numeric precision: Bits and bytes", the link's text


def _misconception(code: str, count: int, chapters: dict[str, Chapter]) -> MisconceptionRow:
    row = MisconceptionRow(code=code, count=count, title=code.replace("-", " ").capitalize())
    try:
        from content.misconceptions import misconception

        entry = misconception(code)
    except (ImportError, KeyError):
        return row
    row.title, row.explanation = entry.title, entry.explanation
    chapter = chapters.get(entry.chapter)
    if chapter is not None:
        try:
            row.url = reverse("courseware:chapter_detail", args=[chapter.slug]) + (
                f"#{entry.anchor}" if entry.anchor else ""
            )
        except NoReverseMatch:
            row.url = ""
        heading = section_heading(chapter.source, entry.anchor)
        row.place = f"{chapter.title}: {heading}" if heading else chapter.title
    return row


def progress_context(offering, student) -> dict:
    """Per chapter: read or not, the offering's quizzes with best scores; and the student's
    misconceptions in the offering."""
    chapters, read = rows_of.chapters_and_reading(offering.course_id, student)
    rows = quiz_rows(offering, student)
    by_chapter: dict[int | None, list[QuizRow]] = {}
    for row in rows:
        by_chapter.setdefault(row.quiz.chapter_id, []).append(row)
    # The one release gate (`services.release`): what an unreleased exam taught the grader
    # about this student's mistakes waits with its scores.
    released = {row.quiz.pk for row in rows if row.released}
    counts = rows_of.diagnosis_counts(student, quiz_ids=released)
    by_slug = {chapter.slug: chapter for chapter in chapters}
    misconceptions = [_misconception(code, n, by_slug) for code, n in counts.most_common()]
    sections = [
        {"chapter": c, "read": c.pk in read, "quizzes": by_chapter.get(c.pk, [])} for c in chapters
    ]
    return {
        "sections": sections,
        "other_quizzes": by_chapter.get(None, []),
        "misconceptions": misconceptions,
        "chapters_read": len(read),
        "chapter_count": len(chapters),
        "quizzes_done": sum(1 for r in rows if r.submitted),
        "quiz_count": len(rows),
        "released_quiz_ids": released,
    }
