"""The question page reuses each variant's rendered prompt and parts instead of rendering them on
every request, gives every page fresh form keys, and never caches the worked solution before
the variant is final."""

from __future__ import annotations

import re
import uuid

import pytest
from django.core.cache import cache
from django.utils import timezone

from quizzes import engine
from quizzes.presenters import display
from quizzes.services import attempts as service
from quizzes.services.questions import correct_answers
from tests.factories import PASSWORD, check_answer, make_quiz

pytestmark = pytest.mark.django_db


@pytest.fixture
def logged_in(client, student):
    client.login(username=student.username, password=PASSWORD)
    return client


@pytest.fixture(autouse=True)
def empty_caches():
    cache.clear()
    display.clear_local_cache()
    yield
    cache.clear()
    display.clear_local_cache()


@pytest.fixture
def prompt_renders(monkeypatch):
    calls = []
    # The question view renders a prompt through `prompt_pieces` (its slotted text).
    real = engine.prompt_pieces

    def counting(template, variant):
        calls.append(variant)
        return real(template, variant)

    monkeypatch.setattr(engine, "prompt_pieces", counting)
    return calls


def _keys(html: str) -> list[str]:
    return re.findall(r'name="idempotency_key" id="[^"]+" value="([0-9a-f]+)"', html)


def test_a_variant_is_rendered_once_and_each_page_gets_fresh_form_keys(
    logged_in, course, student, prompt_renders
):
    quiz = make_quiz(course)
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    first = logged_in.get(attempt.get_absolute_url()).content.decode()
    second = logged_in.get(attempt.get_absolute_url()).content.decode()

    assert len(prompt_renders) == 1
    assert _keys(first) and _keys(second)
    assert set(_keys(first)).isdisjoint(_keys(second))
    # The cached page shows the same question text.
    prompts = r'<div class="(?:part-)?prompt">.*?</div>'
    assert re.findall(prompts, first, re.S) == re.findall(prompts, second, re.S)
    assert re.findall(prompts, first, re.S)


def test_the_shared_cache_serves_a_process_that_has_not_rendered_the_variant(
    logged_in, course, student, prompt_renders
):
    quiz = make_quiz(course)
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    logged_in.get(attempt.get_absolute_url())
    display.clear_local_cache()  # as if another app server answered the next request
    assert logged_in.get(attempt.get_absolute_url()).status_code == 200
    assert len(prompt_renders) == 1


def test_the_solution_is_neither_rendered_nor_cached_before_the_variant_is_final(
    logged_in, course, student, monkeypatch
):
    solutions = []
    real = engine.render_solution
    monkeypatch.setattr(engine, "render_solution", lambda t, v: solutions.append(v) or real(t, v))
    quiz = make_quiz(course)
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    variant = attempt.variants.get()
    logged_in.get(attempt.get_absolute_url())
    assert solutions == []
    assert not [key for key in display._local if ":solution:" in key]  # noqa: SLF001

    service.submit_response(
        variant=variant,
        part_id="t",
        raw=f"{correct_answers(variant)['t']} s",
        student=student,
        idempotency_key=uuid.uuid4().hex,
        now=timezone.now(),
    )
    html = logged_in.get(attempt.get_absolute_url()).content.decode()
    assert "Worked solution" in html
    assert [key for key in display._local if ":solution:" in key]  # noqa: SLF001


def test_a_reused_primary_key_with_other_content_is_not_served_stale(course, student):
    quiz = make_quiz(course)
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    variant = attempt.variants.select_related("version").get()
    display.question_view(variant)
    # A rolled-back test database can hand the same keys to another variant or source.
    variant.seed = "00" * 16
    variant.parameters = {**variant.parameters, "drawn": "other numbers"}
    assert display._cached("question", variant, lambda: "rebuilt") == "rebuilt"  # noqa: SLF001
    variant.refresh_from_db()
    variant.version.content_hash = "another-source"
    assert display._cached("question", variant, lambda: "again") == "again"  # noqa: SLF001


def test_students_whose_numbers_coincide_share_one_rendering(course, student, prompt_renders):
    from quizzes.models import Variant
    from tests.factories import EnrollmentFactory

    other = EnrollmentFactory(course=course, role="student").user
    quiz = make_quiz(course)
    mine = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    theirs = service.start_attempt(quiz=quiz, student=other, now=timezone.now())
    first = mine.variants.select_related("version").get()
    Variant.objects.filter(attempt=theirs).update(
        parameters=first.parameters, answers=first.answers
    )
    second = theirs.variants.select_related("version").get()
    assert display.question_view(first).prompt_html == display.question_view(second).prompt_html
    assert len(prompt_renders) == 1
    # Other numbers are rendered for themselves.
    third = EnrollmentFactory(course=course, role="student").user
    attempt = service.start_attempt(quiz=quiz, student=third, now=timezone.now())
    Variant.objects.filter(attempt=attempt).update(parameters={**first.parameters, "x": 1})
    display.question_view(attempt.variants.select_related("version").get())
    assert len(prompt_renders) == 2


def test_an_exams_saved_answer_is_read_back_once_not_on_every_view(
    logged_in, course, student, monkeypatch
):
    from quizzes.services import questions

    reads = []
    real = questions.saved_state
    monkeypatch.setattr(questions, "saved_state", lambda *a: reads.append(a) or real(*a))
    quiz = make_quiz(course, mode="exam", time_limit_minutes=30)
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    variant = attempt.variants.get()
    raw = f"{uuid.uuid4().int % 10**6}.25 ms"  # a text no other test's page has read
    service.autosave(variant=variant, part_id="t", raw=raw, student=student, now=timezone.now())
    first = logged_in.get(attempt.get_absolute_url()).content.decode()
    second = logged_in.get(attempt.get_absolute_url()).content.decode()
    assert "Read as" in first and "Read as" in second
    assert len(reads) == 1


def _coinciding(course, quiz, first_student):
    """A second student whose variant has `first_student`'s numbers (as two students whose
    draws coincide do), and their attempts."""
    from quizzes.models import Variant
    from tests.factories import EnrollmentFactory

    other = EnrollmentFactory(course=course, role="student").user
    mine = service.start_attempt(quiz=quiz, student=first_student, now=timezone.now())
    theirs = service.start_attempt(quiz=quiz, student=other, now=timezone.now())
    first = mine.variants.select_related("version").get()
    Variant.objects.filter(attempt=theirs).update(
        parameters=first.parameters, answers=first.answers
    )
    return other, mine, theirs


def test_a_shared_rendering_never_shows_one_students_work_or_answer_to_another(
    client, course, student, prompt_renders
):
    """Student A saves an answer and sees the page; student B, whose numbers coincide, is
    served A's rendering of the question (no second render) and none of A's work: not A's
    saved text, its reading, A's form ids, nor the correct answer."""
    quiz = make_quiz(course, mode="exam", time_limit_minutes=30)
    other, mine, theirs = _coinciding(course, quiz, student)
    variant = mine.variants.get()
    raw = f"{uuid.uuid4().int % 10**6}.375 ms"  # a text no other page has
    service.autosave(variant=variant, part_id="t", raw=raw, student=student, now=timezone.now())
    client.force_login(student)
    page_a = client.get(mine.get_absolute_url()).content.decode()
    assert raw in page_a and "Read as" in page_a
    client.force_login(other)
    page_b = client.get(theirs.get_absolute_url()).content.decode()
    assert len(prompt_renders) == 1  # B's question came from A's rendering
    own = theirs.variants.get()
    assert f'id="part-{own.pk}-t"' in page_b and f'id="part-{variant.pk}-t"' not in page_b
    assert raw not in page_b and raw.split()[0] not in page_b and "Read as" not in page_b
    answer = correct_answers(own)["t"]
    for shown in (f"{answer:.6g}", f"{answer * 1000:.6g}", f"{answer * 1e6:.6g}"):
        assert shown not in page_b


def test_coinciding_numbers_with_other_catalog_figures_are_rendered_apart(
    course, student, prompt_renders
):
    """The shared rendering is keyed on the catalog figures the variant shows (its snapshot's
    entries, through their digest), not only its parameters."""
    from quizzes.models import Variant

    quiz = make_quiz(course)
    _other, mine, theirs = _coinciding(course, quiz, student)
    first = mine.variants.select_related("version").get()
    snapshot = first.answers.get("catalog")
    assert snapshot and snapshot["entries"]
    moved = [{**entry, "fields": {**entry["fields"], "moved": 1}} for entry in snapshot["entries"]]
    answers = {**first.answers, "catalog": {**snapshot, "entries": moved}}
    Variant.objects.filter(attempt=theirs).update(answers=answers)
    display.question_view(first)
    display.question_view(theirs.variants.select_related("version").get())
    assert len(prompt_renders) == 2


def test_a_first_view_renders_no_hint(logged_in, course, student, monkeypatch):
    """No wrong try yet: no hint is earned, so none is rendered; one wrong try earns the
    template's hint, rendered."""
    renders = []
    real = engine.render_scoped_hints
    monkeypatch.setattr(
        engine, "render_scoped_hints", lambda *args: renders.append(args) or real(*args)
    )
    quiz = make_quiz(course)  # decode-step-memory-floor: a hint after one wrong try
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    page = logged_in.get(attempt.get_absolute_url())
    assert page.status_code == 200 and not renders
    check_answer(attempt.variants.get(), student, "1 s")
    logged_in.get(attempt.get_absolute_url())
    assert len(renders) == 1


def test_a_first_view_stores_each_question_once_in_the_shared_cache(logged_in, course, student):
    """Under its content's key only (the row's key stays in this process): a second pickle
    per question of every first view bought nothing another server could not find."""
    quiz = make_quiz(course)
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    cache.clear()
    display.clear_local_cache()
    assert logged_in.get(attempt.get_absolute_url()).status_code == 200
    shared = [key for key in cache._cache if ":quizzes:question:" in key]  # noqa: SLF001
    assert len(shared) == 1 and ":content:" in shared[0], shared
