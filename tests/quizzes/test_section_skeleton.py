"""A first view's question sections drawn from one skeleton per template version
(`presenters.skeletons`): the same page, byte for byte, as drawing each section through the
templates, for every template of the bank in homework and in an exam at several seeds; what a
student typed goes into its slot escaped and nowhere else; the skeleton's key names the
template version, the site's templates and the language; and a first view's queries."""

from __future__ import annotations

import hashlib
import itertools
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
from django.core.cache import cache
from django.test import Client
from django.utils import timezone, translation

import content
from courseware import caching
from quizzes.engine import template_paths
from quizzes.models import TemplateVersion
from quizzes.presenters import display, fragments, page_memo, skeletons
from quizzes.presenters.attempt import attempt_blocks
from quizzes.services import attempts as service
from quizzes.services import questions
from quizzes.services.release import answer_gate
from tests.factories import (
    EnrollmentFactory,
    QuestionTemplateFactory,
    QuizFactory,
    QuizItemFactory,
    make_quiz,
)

pytestmark = pytest.mark.django_db
QUESTIONS = Path(content.__file__).resolve().parent / "questions"
# The CSRF token differs on every response (Django masks it anew): the only thing normalised.
TOKENS = re.compile(r'(?:name="csrfmiddlewaretoken" value="|"X-CSRFToken": ")([A-Za-z0-9]+)"')
HOSTILE = '</textarea><script>alert(1)</script>"{{ attempt.student }}{% csrf_token %}'


@pytest.fixture
def pages(monkeypatch):
    """Every page drawn (no whole-page memo), each with the same form keys and clock, so a
    page drawn twice differs only in its CSRF token; and the skeletons' fills counted."""
    monkeypatch.setattr(page_memo, "served", lambda request, key: None)
    monkeypatch.setattr(page_memo, "keep", lambda *args, **kwargs: None)
    monkeypatch.setattr(page_memo, "server_now", lambda: "1700000000")
    counter = [itertools.count()]
    monkeypatch.setattr(
        display,
        "uuid",
        SimpleNamespace(uuid4=lambda: SimpleNamespace(hex=f"{next(counter[0]):032x}")),
    )
    fills = []
    real_fill = skeletons.fill
    monkeypatch.setattr(skeletons, "fill", lambda *a: fills.append(1) or real_fill(*a))

    def draw(client, attempt, *, skeleton=True) -> str:
        counter[0] = itertools.count()
        with monkeypatch.context() as patch:
            if not skeleton:
                patch.setattr(skeletons, "fresh", lambda block: False)
            got = client.get(attempt.get_absolute_url())
        assert got.status_code == 200, got.status_code
        return got.content.decode()

    caching.clear_all()
    cache.clear()
    yield SimpleNamespace(draw=draw, fills=fills)
    caching.clear_all()
    cache.clear()


def _student(quiz) -> tuple[object, Client]:
    user = EnrollmentFactory(course=quiz.offering, role="student").user
    client = Client()
    client.force_login(user)
    return user, client


def _bank_quiz(course, mode: str):
    quiz = QuizFactory(course=course, mode=mode, tries_per_variant=3)
    for position, path in enumerate(template_paths(QUESTIONS), start=1):
        template = QuestionTemplateFactory(
            course=quiz.offering.course, slug=path.stem, draft_source=path.read_text()
        )
        QuizItemFactory(quiz=quiz, template=template, position=position)
    return quiz


@pytest.mark.parametrize("mode", ["homework", "exam"])
def test_every_templates_first_view_is_the_same_page_drawn_either_way(course, pages, mode):
    quiz = _bank_quiz(course, mode)
    students = [_student(quiz) for _ in range(3)]
    attempts = [
        service.start_attempt(quiz=quiz, student=user, now=timezone.now()) for user, _ in students
    ]
    sections = sum(1 for _ in attempts[0].variants.all())
    assert sections > 100  # the whole bank
    # The first student's view sees each shape, the second draws its skeleton (and checks it).
    pages.draw(students[0][1], attempts[0])
    pages.draw(students[0][1], attempts[0])
    for (_user, client), attempt in zip(students[1:], attempts[1:], strict=True):
        # Its questions drawn first: building a question view takes form keys of its own.
        pages.draw(client, attempt, skeleton=False)
        drawn = pages.draw(client, attempt, skeleton=False)
        del pages.fills[:]
        filled = pages.draw(client, attempt)
        assert TOKENS.sub("", filled) == TOKENS.sub("", drawn)
        assert fragments.MARK not in filled
        # Not vacuous: many sections came from a skeleton (94-105 of 165 measured; a choice
        # whose options show the variant's numbers, a roofline's chart, have a shape per
        # variant and are drawn as before).
        assert len(pages.fills) > sections // 3, (len(pages.fills), sections)


def _exam(course):
    return make_quiz(
        course,
        examples=["explain-why-decode-is-memory-bound", "decode-step-memory-floor"],
        mode="exam",
    )


def _save_everywhere(attempt, user, text: str) -> None:
    for variant in attempt.variants.select_related("version"):
        for part in questions.template_for(variant.version).parts:
            service.autosave(
                variant=variant, part_id=part.id, raw=text, student=user, now=timezone.now()
            )


def test_hostile_saved_text_goes_into_its_slot_escaped_and_nowhere_else(course, pages):
    quiz = _exam(course)
    (first, first_client), (second, second_client) = _student(quiz), _student(quiz)
    mine = service.start_attempt(quiz=quiz, student=first, now=timezone.now())
    theirs = service.start_attempt(quiz=quiz, student=second, now=timezone.now())
    _save_everywhere(mine, first, "first student's own words 4.25 ms")
    # A marker as a student might guess it: still only text.
    hostile = HOSTILE + fragments.MARK + "S0_" + fragments.MARK + "c"
    _save_everywhere(theirs, second, hostile)
    pages.draw(first_client, mine)
    pages.draw(first_client, mine)  # the skeletons are drawn (and checked) here
    pages.draw(second_client, theirs, skeleton=False)  # its questions drawn (form keys)
    del pages.fills[:]
    page = pages.draw(second_client, theirs)
    assert len(pages.fills) == 2  # both sections came from the first student's skeletons
    assert "<script>alert(1)" not in page and "</textarea><script>" not in page
    escaped = "&lt;/textarea&gt;&lt;script&gt;alert(1)&lt;/script&gt;&quot;{{ attempt.student }}"
    assert page.count(escaped) >= 2  # in the text box and the text area, as typed
    assert fragments.MARK + "S0_" + fragments.MARK + "c" in page  # written out, not read
    assert "first student's own words" not in page
    assert TOKENS.sub("", page) == TOKENS.sub("", pages.draw(second_client, theirs, skeleton=False))
    again = pages.draw(first_client, mine)
    assert "alert(1)" not in again and "first student&#x27;s own words 4.25 ms" in again
    # No skeleton holds either student's text.
    held = _skeletons()
    assert len(held) == 2
    for _key, (_mark, html) in held:
        assert "own words" not in html and "alert(1)" not in html


def _skeletons() -> list[tuple[str, tuple[str, str]]]:
    """(key, entry) of every skeleton (or marker) this process keeps."""
    return [
        (key, fragments._local.get(key))  # noqa: SLF001
        for key in fragments._local  # noqa: SLF001
        if key.startswith("quizzes:skeleton:")
    ]


def _first_block(attempt):
    attempt.quiz.refresh_from_db()
    return attempt_blocks(attempt, released=False, gate=answer_gate(attempt))[0]


def test_the_skeleton_key_names_the_template_version_the_templates_and_the_language(
    course, monkeypatch
):
    quiz = make_quiz(course, examples=["decode-step-memory-floor"])
    users = [EnrollmentFactory(course=quiz.offering, role="student").user for _ in range(3)]
    one, two = (
        service.start_attempt(quiz=quiz, student=user, now=timezone.now()) for user in users[:2]
    )
    key = skeletons.key_of(_first_block(one), one)
    # Shared: another student's fresh section of the same version has the same key.
    assert skeletons.key_of(_first_block(two), two) == key
    with translation.override("fr"):
        assert skeletons.key_of(_first_block(one), one) != key
    with monkeypatch.context() as patch:
        patch.setattr(fragments, "templates_digest", lambda: "another site's templates")
        assert skeletons.key_of(_first_block(one), one) != key
    template = quiz.items.get().template
    old = template.current_version
    template.current_version = TemplateVersion.objects.create(
        template=template,
        number=old.number + 1,
        source=old.source.replace("?", "? ", 1) if "?" in old.source else old.source + "\n",
        content_hash=hashlib.sha256(b"another version").hexdigest(),
        title=old.title,
    )
    template.save()
    three = service.start_attempt(quiz=quiz, student=users[2], now=timezone.now())
    assert three.variants.get().version_id != old.pk
    assert skeletons.key_of(_first_block(three), three) != key


def test_a_skeleton_that_does_not_give_back_its_section_is_never_used(course, pages, monkeypatch):
    quiz = make_quiz(course, examples=["decode-step-memory-floor"])
    (first, first_client), (second, second_client) = _student(quiz), _student(quiz)
    mine = service.start_attempt(quiz=quiz, student=first, now=timezone.now())
    theirs = service.start_attempt(quiz=quiz, student=second, now=timezone.now())
    pages.draw(first_client, mine)
    real = skeletons.fill
    # A skeleton that loses a value (as a filter on a slot would): refused when it is checked.
    monkeypatch.setattr(
        skeletons,
        "fill",
        lambda entry, csrf, keys, values: real(entry, csrf, keys, ["" for _ in values]),
    )
    pages.draw(first_client, mine)
    assert _skeletons() == [(_skeletons()[0][0], skeletons._REFUSED)]  # remembered ...
    monkeypatch.setattr(skeletons, "fill", real)
    pages.draw(second_client, theirs, skeleton=False)  # its questions drawn (form keys)
    page = pages.draw(second_client, theirs)  # ... and its sections are drawn as before
    assert TOKENS.sub("", page) == TOKENS.sub("", pages.draw(second_client, theirs, skeleton=False))


@pytest.mark.parametrize(("mode", "most"), [("homework", 6), ("exam", 7)])
def test_a_first_view_from_skeletons_runs_a_fixed_number_of_queries(
    course, mode, most, django_assert_max_num_queries
):
    quiz = make_quiz(
        course,
        # Two templates whose sections have one shape whatever the numbers (a choice whose
        # options show the variant's numbers has a shape per variant: drawn as before).
        examples=["decode-step-memory-floor", "explain-why-decode-is-memory-bound"],
        mode=mode,
    )
    users = [_student(quiz) for _ in range(3)]
    started = [service.start_attempt(quiz=quiz, student=u, now=timezone.now()) for u, _ in users]
    for (_user, client), attempt in zip(users[:2], started[:2], strict=True):
        client.get(attempt.get_absolute_url())  # the shapes seen, then their skeletons drawn
    fills = []
    real = skeletons.fill
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(skeletons, "fill", lambda *a: fills.append(1) or real(*a))
        with django_assert_max_num_queries(most):
            assert users[2][1].get(started[2].get_absolute_url()).status_code == 200
    assert len(fills) == 2
