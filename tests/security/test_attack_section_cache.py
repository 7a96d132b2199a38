"""Attacks on the attempt page's memoised question sections (`presenters.fragments`).

A section is kept under everything it shows and served with the request's own CSRF token and
form keys. Each test reads the page twice (the second read is served from the memo) and checks
that nothing crosses students, sessions or the quiz's release policy, that what changes a
section changes its key, and that bad cache contents only cost a re-render.
"""

from __future__ import annotations

import re

import pytest
from django.core.cache import cache
from django.middleware.csrf import _unmask_cipher_token
from django.test import Client
from django.utils import timezone

from courseware import caching
from quizzes.models import AnswerRelease, Response
from quizzes.presenters import attempt as attempt_presenter
from quizzes.presenters import display, fragments, page_memo
from quizzes.services import attempts as service
from quizzes.services.questions import correct_answers
from tests.factories import EnrollmentFactory, check_answer, make_quiz

pytestmark = pytest.mark.django_db
# Every CSRF token on a page: the forms' and the one htmx sends in its headers.
TOKENS = re.compile(r'(?:name="csrfmiddlewaretoken" value="|"X-CSRFToken": ")([A-Za-z0-9]+)"')
KEYS = re.compile(r'name="idempotency_key" id="[^"]+" value="([^"]+)"')
# The exam timer's server clock, in seconds: two reads may fall in different seconds.
CLOCK = re.compile(r'data-server-now="[0-9]+"')
ANSWER = 'class="correct-answer"'


@pytest.fixture(autouse=True)
def empty_caches(monkeypatch):
    monkeypatch.setenv("GRADING_INLINE", "1")
    # These attack the sections' memo, so every page is drawn: the whole-page memo over it
    # (keyed on the attempt's stamp, which the raw updates below do not raise) has its own
    # attacks in test_attack_page_memo.py.
    monkeypatch.setattr(page_memo, "served", lambda request, key: None)
    cache.clear()
    display.clear_local_cache()
    fragments.clear_local_cache()
    yield
    cache.clear()
    fragments.clear_local_cache()


def _client(user, **kwargs) -> Client:
    client = Client(**kwargs)
    client.force_login(user)
    return client


def _page(client, attempt) -> str:
    got = client.get(attempt.get_absolute_url())
    assert got.status_code == 200, got.status_code
    return got.content.decode()


def _twice(client, attempt) -> str:
    """The page as drawn, then as served from the memo (asserted to be the same page)."""
    first = _page(client, attempt)
    assert fragments._local  # noqa: SLF001 - the section was kept
    second = _page(client, attempt)
    assert KEYS.sub("", TOKENS.sub("", CLOCK.sub("", first))) == KEYS.sub(
        "", TOKENS.sub("", CLOCK.sub("", second))
    )
    assert fragments._MARK not in second  # noqa: SLF001 - no placeholder ever leaves
    return second


def _wrong(variant) -> str:
    return f"{float(correct_answers(variant)['t']) * 7:.4g} s"


def test_a_served_section_carries_this_sessions_csrf_token_never_anothers(course, student):
    other = EnrollmentFactory(course=course, role="student").user
    quiz = make_quiz(course)
    mine = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    theirs = service.start_attempt(quiz=quiz, student=other, now=timezone.now())
    me, them = _client(student), _client(other)
    page = _twice(me, mine)
    their_page = _twice(them, theirs)
    tokens, their_tokens = TOKENS.findall(page), TOKENS.findall(their_page)
    assert len(tokens) >= 4  # htmx's, the page's own forms' and the section's Check form's
    secret = me.cookies["csrftoken"].value
    their_secret = them.cookies["csrftoken"].value
    assert secret != their_secret
    assert {_unmask_cipher_token(t) for t in tokens} == {secret}
    assert {_unmask_cipher_token(t) for t in their_tokens} == {their_secret}


def test_a_check_posted_from_a_served_section_passes_the_csrf_check(course, student):
    quiz = make_quiz(course)
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    variant = attempt.variants.get()
    client = _client(student, enforce_csrf_checks=True)
    page = _twice(client, attempt)
    form = page[page.index('class="answer-form"') :]
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form).group(1)
    key = KEYS.search(form).group(1)
    url = attempt_presenter.PartLinks(attempt).url("submit_part", variant.pk, "t")
    assert f'action="{url}"' in page
    got = client.post(
        url, {"csrfmiddlewaretoken": token, "idempotency_key": key, "answer": _wrong(variant)}
    )
    assert got.status_code in (200, 302), got.status_code
    assert Response.objects.filter(variant=variant, idempotency_key=key).exists()


def test_one_students_answers_and_feedback_never_reach_another(course, student):
    other = EnrollmentFactory(course=course, role="student").user
    quiz = make_quiz(course)
    mine = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    theirs = service.start_attempt(quiz=quiz, student=other, now=timezone.now())
    check_answer(mine.variants.get(), student, "123.456789 ms")
    assert "123.456789 ms" in _twice(_client(student), mine)
    assert "123.456789" not in _twice(_client(other), theirs)
    # Even blocks that showed the very same facts are kept apart by attempt and student.
    block = attempt_presenter.attempt_blocks(mine, released=False)[0]
    key = fragments.block_key(block, mine)
    mine.student_id = other.pk
    assert fragments.block_key(block, mine) != key


def test_a_homework_answer_stays_hidden_while_tries_are_left(course, student):
    quiz = make_quiz(course, tries_per_variant=2)
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    variant = attempt.variants.get()
    client = _client(student)
    check_answer(variant, student, _wrong(variant))
    assert ANSWER not in _twice(client, attempt)
    check_answer(variant, student, _wrong(variant))  # the last try: now the answer may show
    assert ANSWER in _twice(client, attempt)


def test_a_release_withdrawn_after_a_section_was_kept_hides_the_answer_again(course, student):
    quiz = make_quiz(course, tries_per_variant=1)
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    check_answer(attempt.variants.get(), student, "1 s")
    client = _client(student)
    assert ANSWER in _twice(client, attempt)
    assert "Worked solution" in _page(client, attempt)
    quiz.show_answers = AnswerRelease.NEVER
    quiz.save()
    page = _twice(client, attempt)
    assert ANSWER not in page
    assert "Worked solution" not in page


def test_an_exam_section_shows_no_answer_or_verdict_before_release(course, student):
    quiz = make_quiz(course, mode="exam", time_limit_minutes=30)
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    variant = attempt.variants.get()
    right = f"{correct_answers(variant)['t']} s"
    service.autosave(variant=variant, part_id="t", raw=right, student=student, now=timezone.now())
    page = _twice(_client(student), attempt)
    assert right in page  # the student's own saved answer
    assert ANSWER not in page
    assert "Worked solution" not in page
    assert 'class="feedback correct"' not in page and "nav-correct" not in page


def test_a_regrade_changes_what_a_kept_section_shows(course, student):
    quiz = make_quiz(course)
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    response = check_answer(attempt.variants.get(), student, "2 s")
    client = _client(student)
    _twice(client, attempt)
    Response.objects.filter(pk=response.pk).update(feedback="Regraded: see the new key.")
    assert "Regraded: see the new key." in _twice(client, attempt)


def test_a_new_template_source_or_catalog_changes_the_key(course, student, monkeypatch):
    quiz = make_quiz(course)
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    block = attempt_presenter.attempt_blocks(attempt, released=False)[0]
    key = fragments.block_key(block, attempt)
    variant = block.variant
    variant.answers = {**variant.answers, "catalog": {"moved": {"figure": 1}}}
    variant.__dict__.pop("_catalog_stamp", None)
    assert fragments.block_key(block, attempt) != key
    variant.refresh_from_db()
    monkeypatch.setattr(fragments, "templates_digest", lambda: "edited")
    assert fragments.block_key(block, attempt) != key


@pytest.mark.parametrize(
    "junk",
    [
        "junk",
        42,
        ("not-hex", "<p>x</p>"),
        (fragments._MARK, f"<p>{fragments._MARK}k99_</p>"),  # noqa: SLF001
        (fragments._MARK, f"<p>{fragments._MARK}zz</p>"),  # noqa: SLF001
    ],
)
def test_bad_cache_contents_cost_a_render_not_the_page(course, student, junk):
    quiz = make_quiz(course)
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    client = _client(student)
    good = _page(client, attempt)
    keys = list(fragments._local)  # noqa: SLF001
    fragments.clear_local_cache()
    for key in keys:
        cache.set(key, junk, version=fragments.FRAGMENT_VERSION)
    page = _page(client, attempt)
    assert 'class="question panel"' in page
    assert KEYS.sub("", TOKENS.sub("", page)) == KEYS.sub("", TOKENS.sub("", good))


def test_an_unreadable_or_unreachable_shared_cache_is_a_miss(course, student, monkeypatch):
    quiz = make_quiz(course)
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())

    class Broken:
        def get(self, *args, **kwargs):
            raise ValueError("unpickling failed")

        def set(self, *args, **kwargs):
            raise ConnectionError("the cache is down")

    monkeypatch.setattr(caching, "cache", Broken())
    assert 'class="question panel"' in _page(_client(student), attempt)


def test_text_shaped_like_a_placeholder_is_shown_as_typed(course, student):
    quiz = make_quiz(course)
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    typed = "0123456789abcdef0123456789abcdefc k0_"
    check_answer(attempt.variants.get(), student, typed)
    assert typed in _twice(_client(student), attempt)


def test_only_plain_tokens_are_put_back_into_a_memoised_section():
    """The one mark_safe outside the sanitizer joins escaped template output with the CSRF
    token and form keys; anything else put back is refused, so it cannot carry markup."""
    from quizzes.presenters.fragments import _fill

    mark = "zzMARKzz"
    entry = (mark, f'<input name="csrfmiddlewaretoken" value="{mark}c"><i>{mark}k0_</i>')
    assert "abc123" in _fill(entry, "abc123", ["f00d"])
    with pytest.raises(ValueError):
        _fill(entry, '"><script>alert(1)</script>', ["f00d"])
    with pytest.raises(ValueError):
        _fill(entry, "abc123", ["<b>x</b>"])
