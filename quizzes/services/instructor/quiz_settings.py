"""A quiz made and set in the browser: create it, change its settings, publish or unpublish it.

A change that reaches students already at work is never silent: `open_attempt_impact` lists
each attempt in progress and what the change does to it (its new deadline, a limit it now
exceeds), the page shows that list, and `save_settings` applies the change only with the
confirmation of that same set of attempts (`impact_key`). A quiz's mode cannot change once
anyone has started it: its variants were drawn and its answers kept for the other mode.

Every change marks the quiz as edited in the browser (`mark_edited`), so `sync_questions` no
longer overwrites it from its file: it reports the conflict by slug instead, and
`--prefer-files` takes the file.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from quizzes.models import Attempt, AttemptStatus, Quiz
from quizzes.services.availability import student_window

from .writes import refresh_open_deadlines

# What each setting does to an attempt already in progress, said once above the list.
EFFECTS = {
    "due_at": "Answers submitted after the new due date count as late.",
    "closes_at": "Submissions after the new closing date are refused.",
    "late_policy": "The new late policy applies to every submission from now on.",
    "late_penalty": "The new late penalty applies to late submissions from now on.",
    "release": "When scores are shown changes for every submitted attempt too.",
    "show_answers": "When correct answers are shown changes for every attempt too.",
    "tries_per_variant": "Open attempts count tries against the new number from now on.",
}


@dataclass(frozen=True)
class AttemptImpact:
    attempt: Attempt
    before: object  # its deadline now
    after: object  # its deadline with the change
    note: str

    @property
    def deadline_moves(self) -> bool:
        return self.before != self.after


def mark_edited(quiz: Quiz, by) -> None:
    Quiz.objects.filter(pk=quiz.pk).update(edited_in_browser_at=timezone.now(), edited_by=by)


@transaction.atomic
def create_quiz(*, offering, by, fields: dict) -> Quiz:
    """A new quiz of the offering, unpublished (students see it once it has questions and is
    published)."""
    quiz = Quiz.objects.create(
        offering=offering,
        is_published=False,
        edited_in_browser_at=timezone.now(),
        edited_by=by,
        **fields,
    )
    return quiz


def changed_fields(quiz: Quiz, fields: dict) -> dict:
    """The settings in `fields` that differ from the quiz's."""
    return {name: value for name, value in fields.items() if getattr(quiz, name) != value}


# Settings that change what an attempt in progress may do or how it is scored (a new title,
# description, chapter or place in the list does not).
REACHES_ATTEMPTS = {
    "mode",
    "time_limit_minutes",
    "max_attempts",
    "tries_per_variant",
    "opens_at",
    "due_at",
    "closes_at",
    "late_policy",
    "late_penalty",
    "release",
    "show_answers",
}


def open_attempt_impact(*, quiz: Quiz, changes: dict) -> list[AttemptImpact]:
    """Each attempt in progress at `quiz`, with its deadline now and under `changes` (none
    when no change reaches an attempt)."""
    if not REACHES_ATTEMPTS & set(changes):
        return []
    attempts = list(
        Attempt.objects.filter(quiz=quiz, status=AttemptStatus.IN_PROGRESS)
        .select_related("student")
        .order_by("student__last_name", "student__username")
    )
    if not attempts:
        return []
    proposed = Quiz(**{f.attname: getattr(quiz, f.attname) for f in Quiz._meta.concrete_fields})
    for name, value in changes.items():
        setattr(proposed, name, value)
    used = {}
    if "max_attempts" in changes and changes["max_attempts"]:
        for attempt in attempts:
            used[attempt.pk] = attempt.number
    impacts = []
    for attempt in attempts:
        after = student_window(proposed, attempt.student).deadline_for(attempt.started_at)
        note = ""
        limit = changes.get("max_attempts")
        if limit and used.get(attempt.pk, 0) >= limit:
            note = "this is their last attempt under the new limit"
        impacts.append(AttemptImpact(attempt, attempt.deadline, after, note))
    return impacts


def impact_key(impacts: list[AttemptImpact]) -> str:
    """Which attempts (and deadlines) a confirmation was given for."""
    text = repr([(i.attempt.pk, str(i.after)) for i in impacts])
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def effects_of(changes: dict) -> list[str]:
    return [sentence for name, sentence in EFFECTS.items() if name in changes]


class NeedsConfirmation(Exception):
    """The change reaches attempts in progress: show them, and ask again."""

    def __init__(self, impacts: list[AttemptImpact]):
        super().__init__("confirm")
        self.impacts = impacts


@transaction.atomic
def save_settings(*, quiz: Quiz, fields: dict, by, confirmed_key: str = "") -> dict:
    """Apply the settings that changed; the changes. Raises NeedsConfirmation when attempts
    are in progress and `confirmed_key` is not the key of exactly their impact now, and
    ValidationError for a mode change once anyone has started the quiz."""
    quiz = Quiz.objects.select_for_update().get(pk=quiz.pk)
    changes = changed_fields(quiz, fields)
    if not changes:
        return {}
    if "mode" in changes and Attempt.objects.filter(quiz=quiz).exists():
        raise ValidationError(
            "Students have started this quiz, so it stays "
            f"{quiz.get_mode_display().lower()}: make a new quiz for the other mode."
        )
    impacts = open_attempt_impact(quiz=quiz, changes=changes)
    if impacts and confirmed_key != impact_key(impacts):
        raise NeedsConfirmation(impacts)
    for name, value in changes.items():
        setattr(quiz, name, value)
    quiz.edited_in_browser_at, quiz.edited_by = timezone.now(), by
    quiz.save()
    if impacts:
        refresh_open_deadlines(quizzes=Quiz.objects.filter(pk=quiz.pk))
    return changes


@transaction.atomic
def set_published(*, quiz: Quiz, published: bool, by) -> None:
    """Publish (students see it) or unpublish (gone from the students' list and pages; their
    work is kept)."""
    if published and not quiz.items.exists():
        raise ValidationError("Add at least one question before publishing the quiz.")
    Quiz.objects.filter(pk=quiz.pk).update(
        is_published=published, edited_in_browser_at=timezone.now(), edited_by=by
    )
