"""The results page's data: per item the variant that earned its points, with its answers,
and the other sets of numbers the student worked (practice, or a lower score) listed apart.

Built from the same three queries as the attempt page (`pages.load_attempt_rows`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from quizzes.models import QuizMode
from quizzes.views import pages
from quizzes.views.student_parts import present


@dataclass
class ResultItem:
    """One item on the results page: the scoring variant's block and the other sets."""

    block: pages.ItemBlock
    others: list[pages.ItemBlock] = field(default_factory=list)

    @property
    def number(self) -> int:
        return self.block.number


def scoring_variant(siblings):
    """The variant an item's score comes from: the best non-practice one; ties, the latest."""
    counting = [v for v in siblings if not v.is_practice] or list(siblings)
    return max(counting, key=lambda v: (v.score, v.index))


def result_items(attempt) -> list[ResultItem]:
    """Per item of a submitted attempt (in its order) what the results page shows."""
    quiz = attempt.quiz
    variants, responses, saved = pages.load_attempt_rows(attempt)
    by_item: dict[int, list] = {}
    for variant in variants:
        variant.attempt = attempt
        by_item.setdefault(variant.item_id, []).append(variant)
    tries = quiz.tries_per_variant if quiz.mode == QuizMode.HOMEWORK else 1
    items = []
    for number, item_id in enumerate(attempt.item_ids, start=1):
        siblings = by_item.get(item_id, [])
        if not siblings:
            continue
        main = scoring_variant(siblings)
        ordered = [main] + sorted((v for v in siblings if v is not main), key=lambda v: v.index)
        blocks = [
            pages._block(  # noqa: SLF001 - the one block builder the attempt page uses too
                number,
                variant,
                siblings,
                responses.get(variant.pk, []),
                saved,
                tries=tries,
                submitted=True,
                show=True,
                render_solutions=variant is main,
            )
            for variant in ordered
        ]
        present(blocks)
        items.append(ResultItem(block=blocks[0], others=blocks[1:]))
    return items
