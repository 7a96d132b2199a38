"""A quiz as a student would meet it, for its instructor: nothing is stored.

A preview seed stands for a student's attempt: it draws each pool's questions (as
`attempts.draw_items` does for an attempt, `quiz.pools[name]` of each pool) and each question's
numbers, from the version a new attempt would use. Answers typed are graded by the studio's
preview machinery (`authoring.build_preview`: the kind's own cleaning, then its grader), so no
Attempt, Variant or Response row is made, no gradebook row appears, and no statistic counts it.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass
from typing import Any

from quizzes.models import Quiz, QuizItem
from quizzes.services.authoring import MAX_SEED, Preview, build_preview


@dataclass
class PreviewQuestion:
    number: int
    item: QuizItem
    preview: Preview


def default_seed(*, quiz: Quiz, user) -> int:
    """The seed an instructor's preview of a quiz starts with: the same each visit."""
    digest = hashlib.sha256(f"preview:{quiz.pk}:{user.pk}".encode()).digest()
    return int.from_bytes(digest[:4], "big") % (MAX_SEED + 1)


def drawn_items(quiz: Quiz, items: list[QuizItem], seed: int) -> list[QuizItem]:
    """The items one attempt under `seed` asks: each unpooled item and `quiz.pools[name]` of
    each pool (a pool that draws nothing holds retired items), in the quiz's order."""
    chosen = [item for item in items if not item.pool]
    named = quiz.pools or {}
    for pool, count in sorted(named.items()):
        members = [item for item in items if item.pool == pool]
        rng = random.Random(f"{seed}:{pool}")
        chosen += rng.sample(members, min(int(count), len(members)))
    chosen += [item for item in items if item.pool and item.pool not in named]
    return sorted(chosen, key=lambda item: item.position)


def item_seed(seed: int, item: QuizItem) -> int:
    digest = hashlib.sha256(f"{seed}:{item.pk}".encode()).digest()
    return int.from_bytes(digest[:4], "big") % (MAX_SEED + 1)


def preview_quiz(
    *, quiz: Quiz, seed: int, responses: dict[int, dict[str, Any]] | None = None
) -> list[PreviewQuestion]:
    """Each question one attempt under `seed` asks, drawn, with `responses[position]` (a
    question's answers by part id) graded; nothing is saved."""
    items = list(
        quiz.items.select_related("template__current_version", "pinned_version").order_by(
            "position"
        )
    )
    questions = []
    for number, item in enumerate(drawn_items(quiz, items, seed), start=1):
        version = item.version_for_new_variants
        if version is None:
            preview = Preview(seed=seed, error="This question has no published version yet.")
        else:
            preview = build_preview(
                version.source, item_seed(seed, item), (responses or {}).get(item.position)
            )
        questions.append(PreviewQuestion(number, item, preview))
    return questions
