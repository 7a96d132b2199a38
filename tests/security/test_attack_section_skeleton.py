"""Attacks on the fresh question section drawn once per template version
(`quizzes.presenters.skeletons`, perf-j), as a hostile student and as a hostile author.

The skeleton is checked once, against the second section of its key; every later student's is
filled without a check. So the attacks that matter put two students who agree before a third
who does not: the third's saved text is markup, template syntax, the process's own slot marker
and the first student's ids, in every kind of text input. Also: a section that shows a result,
an answer or a solution is never drawn from a skeleton and no skeleton holds one; a roofline,
whose chart draws its slotted names, is never filled; an author's title and prompt full of
template syntax, markup, markers and bulk come back as the section drawn whole."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.utils import timezone

import content
from quizzes.engine import kinds
from quizzes.presenters import fragments, skeletons
from quizzes.services import attempts as service
from quizzes.services import questions
from quizzes.services.questions import correct_answers
from tests.factories import (
    QuestionTemplateFactory,
    QuizFactory,
    QuizItemFactory,
    check_answer,
    make_quiz,
)
from tests.quizzes import test_section_skeleton
from tests.quizzes.test_section_skeleton import TOKENS, _skeletons, _student
from tests.security.payloads import page_active_content

pytestmark = pytest.mark.django_db
# Every page drawn (no whole-page memo) with the same form keys, the skeletons' fills counted.
pages = test_section_skeleton.pages
QUESTIONS = Path(content.__file__).resolve().parent / "questions"
# One template of each text-input kind: formula, interval, explain, numeric.
TEXT_INPUTS = (
    "roofline-batched-matvec-formula",
    "roofline-estimate-matmul-time",
    "roofline-explain-which-lever",
    "roofline-ridge-point-of-a-chip",
)
AGREED = "12 TB/s"
POSTS = re.compile(r'(?:hx-post|action)="([^"]*/attempts/[^"]+)"')
DOMS = re.compile(r'id="part-([^"]+)"')


def _quiz(course, slugs, mode: str, **fields):
    quiz = QuizFactory(course=course, mode=mode, **fields)
    for position, slug in enumerate(slugs, start=1):
        (path,) = QUESTIONS.rglob(f"{slug}.yaml")
        template = QuestionTemplateFactory(
            course=quiz.offering.course, slug=slug, draft_source=path.read_text()
        )
        QuizItemFactory(quiz=quiz, template=template, position=position)
    return quiz


def _typed_parts(attempt):
    for variant in attempt.variants.select_related("version"):
        for part in questions.template_for(variant.version).parts:
            if isinstance(kinds.kind_for(part).input_state({}, "typed"), str):
                yield variant, part


def _save(attempt, user, text: str) -> int:
    saved = 0
    for variant, part in _typed_parts(attempt):
        limit = kinds.max_answer_length(part.kind)
        service.autosave(
            variant=variant, part_id=part.id, raw=text[:limit], student=user, now=timezone.now()
        )
        saved += 1
    return saved


def _hostile(first_page: str) -> str:
    """What the third student types: an attribute break, a text-area break, template syntax,
    this process's slot and token markers and the first student's own form address."""
    url = next(url for url in POSTS.findall(first_page) if "/variants/" in url)
    return (
        f'" autofocus onfocus=alert(1) x="</textarea><script>alert(2)</script>'
        f"{{{{ block.variant.pk }}}}{{% csrf_token %}}{fragments.MARK}S0_{fragments.MARK}c"
        f"{fragments.MARK}k0_ {url}"
    )


def test_a_third_student_sees_only_their_own_text_and_ids_after_two_that_agree(course, pages):
    quiz = _quiz(course, TEXT_INPUTS, "exam")
    students = [_student(quiz) for _ in range(3)]
    attempts = [
        service.start_attempt(quiz=quiz, student=user, now=timezone.now()) for user, _ in students
    ]
    (one, one_client), (two, two_client), (three, three_client) = students
    assert _save(attempts[0], one, AGREED) >= len(TEXT_INPUTS)
    _save(attempts[1], two, AGREED)
    first = pages.draw(one_client, attempts[0])
    pages.draw(one_client, attempts[0])  # the skeletons drawn and checked on the same values
    hostile = _hostile(first)
    _save(attempts[2], three, hostile)
    pages.draw(two_client, attempts[1])
    pages.draw(three_client, attempts[2], skeleton=False)  # its questions drawn (form keys)
    del pages.fills[:]
    page = pages.draw(three_client, attempts[2])
    assert len(pages.fills) >= len(TEXT_INPUTS)  # every section came from a skeleton
    drawn = pages.draw(three_client, attempts[2], skeleton=False)
    assert TOKENS.sub("", page) == TOKENS.sub("", drawn)
    assert page_active_content(page, svg_allowed=True) == []
    assert "<script>alert(2)" not in page and 'x="</textarea>' not in page
    # The third student's own forms and parts only; the first's address only as typed text.
    assert set(POSTS.findall(page)) == set(POSTS.findall(drawn))
    assert not set(POSTS.findall(page)) & set(POSTS.findall(first))
    assert not set(DOMS.findall(page)) & set(DOMS.findall(first))
    assert AGREED not in page
    again = pages.draw(one_client, attempts[0])
    assert "alert(" not in again and "onfocus" not in again
    for _key, entry in _skeletons():
        html = entry[1]
        assert AGREED not in html and "alert(" not in html
        for url in POSTS.findall(first) + POSTS.findall(page):
            assert url not in html


def test_a_section_with_a_result_or_an_answer_is_drawn_whole_and_no_skeleton_holds_one(
    course, pages, monkeypatch
):
    monkeypatch.setenv("GRADING_INLINE", "1")
    quiz = make_quiz(course, tries_per_variant=1)
    students = [_student(quiz) for _ in range(4)]
    attempts = [
        service.start_attempt(quiz=quiz, student=user, now=timezone.now()) for user, _ in students
    ]
    for (_user, client), attempt in zip(students[:2], attempts[:2], strict=True):
        pages.draw(client, attempt)
        pages.draw(client, attempt)
    assert [entry for _key, entry in _skeletons() if entry[0]]  # a skeleton was kept
    # The third student spends the one try: the result and the correct answer show.
    user, client = students[2]
    variant = attempts[2].variants.get()
    wrong = f"{float(correct_answers(variant)['t']) * 7:.6g} s"
    check_answer(variant, user, wrong)
    pages.draw(client, attempts[2], skeleton=False)  # a new form key for the next try's form
    del pages.fills[:]
    page = pages.draw(client, attempts[2])
    assert 'class="correct-answer"' in page and wrong in page and not pages.fills
    assert TOKENS.sub("", page) == TOKENS.sub("", pages.draw(client, attempts[2], skeleton=False))
    # The fourth, fresh, is filled from the skeleton and shows none of it.
    pages.draw(students[3][1], attempts[3], skeleton=False)
    del pages.fills[:]
    fresh = pages.draw(students[3][1], attempts[3])
    assert pages.fills and 'class="correct-answer"' not in fresh and wrong not in fresh
    for _key, entry in _skeletons():
        assert 'class="correct-answer"' not in entry[1] and "Worked solution" not in entry[1]
        assert wrong not in entry[1]


def test_a_roofline_section_is_never_filled_from_a_skeleton(course, pages):
    """Its chart draws the slotted names and the title with `p.dom` (the slot scan's one
    exemption): the skeleton is refused at its check, whoever views it."""
    quiz = _quiz(course, ["roofline-place-a-matmul"], "homework")
    user, client = _student(quiz)
    attempt = service.start_attempt(quiz=quiz, student=user, now=timezone.now())
    pages.draw(client, attempt)
    pages.draw(client, attempt)
    assert [entry for _key, entry in _skeletons()] == [skeletons._REFUSED]  # noqa: SLF001


AUTHOR_TEMPLATE = """\
slug: hostile-author-skeleton
title: "{{{{ block.variant.pk }}}} {{% csrf_token %}} <script>alert(1)</script> {mark}S0_ {mark}c"
chapter: inference
objectives: [Read a time off a bandwidth]
difficulty: 1
parameters:
  size: {{range: [10, 40], step: 10}}
prompt: |
  Copy {{{{ size }}}} GB at 2 TB/s. {{% csrf_token %}} <img src=x onerror=alert(1)> `{mark}S1_`
  {bulk}
parts:
  - id: t
    kind: numeric
    prompt: "How long? {mark}k0_ {{{{ size }}}} <b onmouseover=alert(1)>x</b>"
    answer: "size * 1e9 / 2e12"
    unit: s
    plausible: [1.0e-4, 1.0]
solution: It takes {{{{ part_t | s }}}}.
"""


@pytest.mark.parametrize("with_marker", [False, True])
def test_an_authors_title_and_prompt_full_of_syntax_markers_and_bulk_draw_as_they_would(
    course, pages, with_marker
):
    # The process's marker is never sent; were an author to guess it, the skeleton would
    # not give back its section and is refused.
    mark = fragments.MARK if with_marker else "0123456789abcdef0123456789abcdef"
    source = AUTHOR_TEMPLATE.format(mark=mark, bulk="A long paragraph of words. " * 700)
    quiz = QuizFactory(course=course, mode="exam")
    template = QuestionTemplateFactory(
        course=quiz.offering.course, slug="hostile-author-skeleton", draft_source=source
    )
    QuizItemFactory(quiz=quiz, template=template, position=1)
    students = [_student(quiz) for _ in range(3)]
    attempts = [
        service.start_attempt(quiz=quiz, student=user, now=timezone.now()) for user, _ in students
    ]
    pages.draw(students[0][1], attempts[0])
    pages.draw(students[0][1], attempts[0])
    assert [entry[0] == "" for _key, entry in _skeletons()] == [with_marker]
    for (_user, client), attempt in zip(students[1:], attempts[1:], strict=True):
        pages.draw(client, attempt, skeleton=False)
        drawn = pages.draw(client, attempt, skeleton=False)
        del pages.fills[:]
        page = pages.draw(client, attempt)
        assert len(pages.fills) == (0 if with_marker else 1)
        assert TOKENS.sub("", page) == TOKENS.sub("", drawn)
        assert page_active_content(page, svg_allowed=True) == []
        assert page.count("A long paragraph of words.") >= 700
