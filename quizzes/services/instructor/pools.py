"""A quiz's pools made in the browser: "draw N of these M templates", the same points each.

A pool is what a quiz file's `{pool, draw, points, templates}` item is (docs/quiz-format.md):
its members are items of the quiz sharing a pool name, `Quiz.pools[name]` is how many each new
attempt draws. The same bounds as a file: at least two templates, a draw from 1 to their
number, points above 0 and at most 1,000, and a template in at most one place of the quiz.

Attempts already started keep the questions they drew (a variant refers to its item), so a
change reaches only new attempts; still, when the quiz has attempts the change is shown first
and saved only when confirmed, as a settings change is. A template students were given stays:
it cannot leave its pool, and a pool holding one cannot be removed.
"""

from __future__ import annotations

import re
from decimal import Decimal

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F

from quizzes.models import Attempt, AttemptStatus, QuestionTemplate, Quiz, QuizItem, Variant
from quizzes.services.bank.quizfiles import MAX_POINTS
from quizzes.services.offerings import RETIRED_POOL

from .quiz_settings import mark_edited

POOL_NAME = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")


class NeedsConfirmation(Exception):
    """The quiz has attempts: say what the change does to them, and ask again."""

    def __init__(self, started: int, in_progress: int):
        super().__init__("confirm")
        self.started, self.in_progress = started, in_progress


def check_pool(*, name: str, draw: int, points: Decimal, templates: list) -> None:
    """Raise ValidationError (every problem) unless the pool could be written to a file."""
    problems = []
    if not POOL_NAME.fullmatch(name or "") or len(name) > 50:
        problems.append("A pool's name: lowercase letters, digits and hyphens, at most 50.")
    elif name == RETIRED_POOL:
        problems.append(f"“{RETIRED_POOL}” holds questions a quiz file dropped: choose another.")
    if len(templates) < 2:
        problems.append("A pool draws from at least two templates: choose two or more.")
    elif not 1 <= draw <= len(templates):
        problems.append(f"Draw from 1 to {len(templates)} (the templates chosen) per attempt.")
    if not Decimal(0) < Decimal(points) <= MAX_POINTS:
        problems.append(f"Points must be more than 0 and at most {MAX_POINTS}.")
    if problems:
        raise ValidationError(problems)


def _attempt_check(quiz: Quiz, confirmed: bool) -> None:
    started = Attempt.objects.filter(quiz=quiz)
    if not confirmed and started.exists():
        raise NeedsConfirmation(
            started.count(), started.filter(status=AttemptStatus.IN_PROGRESS).count()
        )


@transaction.atomic
def save_pool(
    *,
    quiz: Quiz,
    name: str,
    draw: int,
    points: Decimal,
    templates: list[QuestionTemplate],
    by,
    confirmed: bool = False,
) -> None:
    """Make the pool `name` of `quiz` draw `draw` of `templates`, each worth `points`: new
    members join (a template already in the quiz on its own moves into the pool), members
    not chosen leave. Raises ValidationError or NeedsConfirmation; stores nothing then."""
    check_pool(name=name, draw=draw, points=points, templates=templates)
    quiz = Quiz.objects.select_for_update().get(pk=quiz.pk)
    items = {
        i.template_id: i for i in QuizItem.objects.filter(quiz=quiz).select_related("template")
    }
    chosen = {t.pk for t in templates}
    problems = []
    for template in templates:
        item = items.get(template.pk)
        if item is not None and item.pool and item.pool != name:
            problems.append(f"'{template.slug}' is in the pool “{item.pool}” already.")
        if item is None and template.current_version_id is None:
            problems.append(f"'{template.slug}' is not published, so it cannot join a quiz.")
    leaving = [i for i in items.values() if i.pool == name and i.template_id not in chosen]
    given = set(
        Variant.objects.filter(item__in=leaving).values_list("item__template__slug", flat=True)
    )
    problems += [
        f"Students were given '{slug}', so it stays in the pool." for slug in sorted(given)
    ]
    if problems:
        raise ValidationError(problems)
    _attempt_check(quiz, confirmed)
    QuizItem.objects.filter(pk__in=[i.pk for i in leaving]).delete()
    last = max((i.position for i in items.values()), default=0)
    for template in templates:
        item = items.get(template.pk)
        if item is None:
            last += 1
            QuizItem.objects.create(
                quiz=quiz, template=template, position=last, points=points, pool=name
            )
        else:
            QuizItem.objects.filter(pk=item.pk).update(pool=name, points=points)
    quiz.pools = {**(quiz.pools or {}), name: draw}
    quiz.save(update_fields=["pools"])
    renumber(quiz)
    mark_edited(quiz, by)


@transaction.atomic
def remove_pool(*, quiz: Quiz, name: str, by, confirmed: bool = False) -> None:
    """Remove the pool and its templates from the quiz, unless students were given one."""
    quiz = Quiz.objects.select_for_update().get(pk=quiz.pk)
    members = QuizItem.objects.filter(quiz=quiz, pool=name)
    if name not in (quiz.pools or {}) or name == RETIRED_POOL:
        raise ValidationError(f"This quiz has no pool “{name}”.")
    if Variant.objects.filter(item__in=members).exists():
        raise ValidationError(
            f"Students were given questions of “{name}”, so it stays: change what it draws "
            "instead (new attempts only)."
        )
    _attempt_check(quiz, confirmed)
    members.delete()
    quiz.pools = {k: v for k, v in quiz.pools.items() if k != name}
    quiz.save(update_fields=["pools"])
    renumber(quiz)
    mark_edited(quiz, by)


def renumber(quiz: Quiz) -> None:
    """Positions 1, 2, ... in the order a quiz file lists the items: each pool's members
    together where its first member stands (so the quiz written as a file reads back alike)."""
    items = list(QuizItem.objects.filter(quiz=quiz).order_by("position"))
    ordered, done = [], set()
    for item in items:
        if not item.pool:
            ordered.append(item)
        elif item.pool not in done:
            done.add(item.pool)
            ordered += [i for i in items if i.pool == item.pool]
    if [i.position for i in ordered] == list(range(1, len(ordered) + 1)):
        return
    # Positions are unique per quiz: move every row out of the way first.
    QuizItem.objects.filter(quiz=quiz).update(position=F("position") + items[-1].position)
    for position, item in enumerate(ordered, start=1):
        QuizItem.objects.filter(pk=item.pk).update(position=position)


def pools_of(quiz: Quiz, items) -> list[dict]:
    """The quiz's pools for its page: name, draw, points, member templates (file order)."""
    pools = []
    for name, draw in (quiz.pools or {}).items():
        members = [i for i in items if i.pool == name]
        if name == RETIRED_POOL or not members:
            continue
        pools.append(
            {
                "name": name,
                "draw": draw,
                # 1.50 reads 1.5, 2.00 reads 2
                "points": format(members[0].points.normalize(), "f"),
                "members": members,
                "answered": any(getattr(i, "variant_count", 0) for i in members),
                # A quiz file may name a pool freely ("Week 3 practice"); the browser changes
                # only pools whose name it could have made (it is in their address).
                "editable": bool(POOL_NAME.fullmatch(name)) and len(name) <= 50,
            }
        )
    return pools
