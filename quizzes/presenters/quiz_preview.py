"""A quiz's preview as the student page draws it: each question's prompt and parts, each part
with its kind's own input; the inputs are named per question, so one form holds them all."""

from __future__ import annotations

from dataclasses import dataclass

from quizzes.presenters.studio import StudioPart, preview_html
from quizzes.services.instructor.preview import PreviewQuestion


@dataclass
class PreviewQuestionPart(StudioPart):
    question: int = 0

    @property
    def dom(self) -> str:
        return f"q{self.question}-{self.view.id}"

    @property
    def input_name(self) -> str:
        return f"q{self.question}-response_{self.view.id}"


def question_blocks(questions: list[PreviewQuestion]) -> list[dict]:
    blocks = []
    for question in questions:
        position = question.item.position
        block = {
            "number": question.number,
            "item": question.item,
            "error": question.preview.error,
            "tried": False,
        }
        if not question.preview.error:
            html = preview_html(question.preview)
            parts = [PreviewQuestionPart(**vars(p), question=position) for p in html["parts"]]
            block.update(html, parts=parts, tried=any(p.part.tried for p in parts))
        blocks.append(block)
    return blocks
