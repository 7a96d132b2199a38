"""The whole attempt page's memo (`presenters.page_memo`): never stale, never crossed.

A warm page is served from the memo keyed on the attempt's row (its `page_stamp` raised by
every write that changes the page), the quiz, the student's dates and what the release policy
allows now. Each test warms the page (the second read is asserted to come from the memo, in
fewer queries), then makes one change through the code path that makes it in the site, and
reads the page again: it fails if the memoised page were served.
"""

from __future__ import annotations

import hashlib
import re
from datetime import timedelta

import pytest
from django.contrib.messages.storage.fallback import FallbackStorage
from django.db import connection
from django.middleware.csrf import _unmask_cipher_token
from django.test import Client, RequestFactory
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from quizzes.models import AnswerRelease, Attempt, QuizItem, RegradeStatus
from quizzes.presenters import fragments, page_memo
from quizzes.services import attempts as service
from quizzes.services import regrade
from quizzes.services.instructor import grant_extension, override_score
from quizzes.services.questions import correct_answers
from tests.factories import (
    OFFERING,
    EnrollmentFactory,
    OfferingFactory,
    TemplateVersionFactory,
    check_answer,
    example_source,
    make_quiz,
    offering_of,
)

pytestmark = pytest.mark.django_db
TOKENS = re.compile(r'(?:name="csrfmiddlewaretoken" value="|"X-CSRFToken": ")([A-Za-z0-9]+)"')
KEYS = re.compile(r'name="idempotency_key" id="[^"]+" value="([^"]+)"')
# The exam timer's server clock, in seconds: two reads may fall in different seconds.
CLOCK = re.compile(r'data-server-now="[0-9]+"')
ANSWER = 'class="correct-answer"'
SLUG = "decode-step-memory-floor"


@pytest.fixture(autouse=True)
def inline_grading(monkeypatch):
    monkeypatch.setenv("GRADING_INLINE", "1")


def _client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _get(client, attempt) -> tuple[str, int]:
    with CaptureQueriesContext(connection) as queries:
        got = client.get(attempt.get_absolute_url())
    assert got.status_code == 200, got.status_code
    return got.content.decode(), len(queries)


def _warm(client, attempt) -> str:
    """Draw the page, then read it from the memo: the same page, fresh tokens, fewer queries."""
    first, drawn = _get(client, attempt)
    second, served = _get(client, attempt)
    assert served < drawn, (served, drawn)  # the second came from the memo
    assert KEYS.sub("", TOKENS.sub("", CLOCK.sub("", first))) == KEYS.sub(
        "", TOKENS.sub("", CLOCK.sub("", second))
    )
    assert fragments.MARK not in second
    return second


def _right(variant) -> str:
    return f"{correct_answers(variant)['t']} s"


def test_a_warm_page_has_fresh_tokens_and_keys_and_fewer_queries(course, student):
    attempt = service.start_attempt(quiz=make_quiz(course), student=student, now=timezone.now())
    client = _client(student)
    first, drawn = _get(client, attempt)
    second, served = _get(client, attempt)
    third, _ = _get(client, attempt)
    # session, user, role, then the attempt with the student's extension, group terms and
    # time multiplier in one query (the course row is kept a minute per process)
    assert (drawn, served) == (6, 4)
    tokens = [TOKENS.findall(page) for page in (first, second, third)]
    assert all(tokens) and len({t[0] for t in tokens}) == 3  # a fresh mask every request
    secrets = {_unmask_cipher_token(token) for page in tokens for token in page}
    assert len(secrets) == 1  # ...of this session's one secret
    keys = [KEYS.findall(page) for page in (first, second, third)]
    assert all(keys) and not set(keys[0]) & set(keys[1]) and not set(keys[1]) & set(keys[2])
    assert fragments.MARK not in second + third


def test_an_exam_page_is_served_in_four_queries(course, student):
    quiz = make_quiz(course, mode="exam", time_limit_minutes=30)
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    client = _client(student)
    assert [_get(client, attempt)[1] for _ in range(2)] == [7, 4]


def test_another_student_never_gets_the_page(course, student):
    attempt = service.start_attempt(quiz=make_quiz(course), student=student, now=timezone.now())
    _warm(_client(student), attempt)
    other = EnrollmentFactory(course=course).user
    assert _client(other).get(attempt.get_absolute_url()).status_code == 404


def test_a_new_answer_shows(course, student):
    attempt = service.start_attempt(quiz=make_quiz(course), student=student, now=timezone.now())
    client = _client(student)
    assert "Not quite" not in _warm(client, attempt)
    check_answer(attempt.variants.get(), student, "2 s")
    assert "Not quite" in _get(client, attempt)[0]


def test_a_homework_check_through_the_page_shows(course, student):
    attempt = service.start_attempt(quiz=make_quiz(course), student=student, now=timezone.now())
    variant = attempt.variants.get()
    client = _client(student)
    page = _warm(client, attempt)
    url = reverse("quizzes:submit_part", args=[OFFERING, attempt.pk, variant.pk, "t"])
    key = KEYS.findall(page)[0]
    posted = client.post(url, {"answer": "2 s", "idempotency_key": key}, HTTP_HX_REQUEST="true")
    assert posted.status_code == 200
    page, _ = _get(client, attempt)
    assert "Not quite" in page and "2 s" in page


def test_an_unreadable_answer_shows(course, student):
    attempt = service.start_attempt(quiz=make_quiz(course), student=student, now=timezone.now())
    client = _client(student)
    _warm(client, attempt)
    check_answer(attempt.variants.get(), student, "two seconds please")
    assert "Could not read this answer" in _get(client, attempt)[0]


def test_a_new_autosave_shows(course, student):
    quiz = make_quiz(course, mode="exam", time_limit_minutes=30)
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    variant = attempt.variants.get()
    client = _client(student)
    service.autosave(variant=variant, part_id="t", raw="1.5 s", student=student, now=timezone.now())
    assert 'value="1.5 s"' in _warm(client, attempt)
    service.autosave(
        variant=variant, part_id="t", raw="2.5 s", student=student, now=timezone.now(), sequence=5
    )
    page, _ = _get(client, attempt)
    assert 'value="2.5 s"' in page and 'value="1.5 s"' not in page


def test_new_numbers_show(course, student):
    quiz = make_quiz(course, tries_per_variant=1)
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    variant = attempt.variants.get()
    client = _client(student)
    check_answer(variant, student, "2 s")
    assert "numbers set 2" not in _warm(client, attempt)
    service.new_variant(variant=variant, student=student, now=timezone.now())
    assert "numbers set 2" in _get(client, attempt)[0]


def test_a_regrade_shows(course, student):
    attempt = service.start_attempt(quiz=make_quiz(course), student=student, now=timezone.now())
    variant = attempt.variants.get()
    check_answer(variant, student, f"{correct_answers(variant)['t'] * 1.03!r} s")  # 3 % off: wrong
    client = _client(student)
    assert "Not quite" in _warm(client, attempt)
    template = variant.item.template
    source = example_source(SLUG).replace("rtol: 0.02", "rtol: 0.05")
    wider = TemplateVersionFactory(
        template=template,
        number=max(template.versions.values_list("number", flat=True), default=0) + 1,
        source=source,
        content_hash=hashlib.sha256(source.encode()).hexdigest(),
    )
    run = regrade.preview_regrade(
        offering=offering_of(course),
        template=template,
        target_version=wider,
        recompute_answers=False,
        by=None,
    )
    regrade.start_regrade(run=run)
    assert regrade.apply_regrade(run_id=run.pk).status == RegradeStatus.APPLIED
    page, _ = _get(client, attempt)
    assert "Not quite" not in page and 'class="feedback correct"' in page


def test_an_override_raises_the_stamp(course, student, instructor):
    # A submitted attempt's page sends the student to its results; the stamp still follows.
    attempt = service.start_attempt(quiz=make_quiz(course), student=student, now=timezone.now())
    check_answer(attempt.variants.get(), student, "2 s")
    service.submit_attempt(attempt=attempt, student=student, now=timezone.now())
    stamp = Attempt.objects.get(pk=attempt.pk).page_stamp
    fresh = Attempt.objects.get(pk=attempt.pk)
    override_score(attempt=fresh, score=1, reason="typo", by=instructor)
    assert Attempt.objects.get(pk=attempt.pk).page_stamp > stamp


def _final_before_the_due_date(course, student, now):
    """A quiz that shows answers after its due date (an hour from `now`), and the student's
    attempt whose one part is final (its one try spent)."""
    quiz = make_quiz(course, tries_per_variant=1, show_answers=AnswerRelease.AFTER_DUE, due_at=now)
    quiz.due_at = now + timedelta(hours=1)
    quiz.closes_at = now + timedelta(days=3)
    quiz.save()
    attempt = service.start_attempt(quiz=quiz, student=student, now=now)
    check_answer(attempt.variants.get(), student, "2 s")
    return quiz, attempt


def test_an_extension_and_the_due_date_passing_release_answers(
    course, student, instructor, monkeypatch
):
    now = timezone.now()
    quiz, attempt = _final_before_the_due_date(course, student, now)
    client = _client(student)
    assert ANSWER not in _warm(client, attempt)  # not yet: the due date is ahead
    later = now + timedelta(hours=2)
    monkeypatch.setattr(timezone, "now", lambda: later)
    assert ANSWER in _get(client, attempt)[0]  # the due date passed: released
    assert _get(client, attempt)[1] == 4  # kept again
    grant_extension(quiz=quiz, student=student, by=instructor, due_at=now + timedelta(days=1))
    assert ANSWER not in _get(client, attempt)[0]  # this student's due date moved ahead


def test_a_groups_extension_holds_answers_back_on_the_attempt_page(
    course, student, instructor, monkeypatch
):
    """The attempt page reads the student's terms in its attempt query (views/targets.py):
    a group's later due date must still count there, and another student's attempt is not
    reachable through it."""
    from courseware.models import GroupMembership, StudentGroup
    from quizzes.services.instructor import accommodations

    now = timezone.now()
    quiz, attempt = _final_before_the_due_date(course, student, now)
    group = StudentGroup.objects.create(offering=quiz.offering, name="Section 2")
    GroupMembership.objects.create(group=group, user=student)
    accommodations.set_group_extension(
        quiz=quiz, group=group, by=instructor, due_at=now + timedelta(days=1)
    )
    client = _client(student)
    later = now + timedelta(hours=2)  # past the class's due date, before the group's
    monkeypatch.setattr(timezone, "now", lambda: later)
    page, queries = _get(client, attempt)
    assert ANSWER not in page and queries == 6
    GroupMembership.objects.filter(group=group, user=student).delete()
    assert ANSWER in _get(client, attempt)[0]  # out of the group: the class's date counts
    other = EnrollmentFactory(offering=quiz.offering).user
    assert _client(other).get(attempt.get_absolute_url()).status_code == 404


def test_an_item_points_change_shows(course, student):
    quiz = make_quiz(course)
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    client = _client(student)
    assert "7 points" not in _warm(client, attempt)
    item = QuizItem.objects.get(quiz=quiz)
    item.points = 7
    item.save(update_fields=["points"])  # as the bank sync and the admin save it
    assert "7 points" in _get(client, attempt)[0]


def test_a_quiz_setting_change_shows(course, student):
    quiz = make_quiz(course, tries_per_variant=3)
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    client = _client(student)
    assert "3 tries per part" in _warm(client, attempt)
    type(quiz).objects.filter(pk=quiz.pk).update(tries_per_variant=5)
    assert "5 tries per part" in _get(client, attempt)[0]


def test_a_page_with_messages_is_drawn_and_not_kept(course, student):
    attempt = service.start_attempt(quiz=make_quiz(course), student=student, now=timezone.now())
    variant = attempt.variants.get()
    client = _client(student)
    _warm(client, attempt)
    # A plain post refused with a message (the part is not finished) lands on the page.
    client.post(reverse("quizzes:new_variant", args=[OFFERING, attempt.pk, variant.pk]))
    page, queries = _get(client, attempt)
    assert "Finish every part" in page and queries > 4  # drawn, with its message
    again, queries = _get(client, attempt)
    assert "Finish every part" not in again and queries == 4  # shown once; the memo's page


def test_the_key_follows_language_templates_and_user(course, student, monkeypatch):
    from django.utils import translation

    attempt = service.start_attempt(quiz=make_quiz(course), student=student, now=timezone.now())
    request = RequestFactory().get(attempt.get_absolute_url())
    request.user, request.session, request.offering_role = student, {}, "student"
    request._messages = FallbackStorage(request)
    args = {"window": None, "gate": None, "refusal": None}
    key = page_memo.page_key(request, attempt, **args)
    name = student.first_name
    with translation.override("de"):
        assert page_memo.page_key(request, attempt, **args) != key
    student.first_name = "Renamed"
    assert page_memo.page_key(request, attempt, **args) != key
    student.first_name = name
    assert page_memo.page_key(request, attempt, **args) == key
    request.offering_role = "instructor"
    assert page_memo.page_key(request, attempt, **args) != key
    request.offering_role = "student"
    # The header lists the student's offerings (the switcher): joining another moves the key.
    assert page_memo.page_key(request, attempt, **args) == key
    other = OfferingFactory(course=course, slug="another-offering", title="Another offering")
    EnrollmentFactory(user=student, offering=other)
    student.__dict__.pop("_enrollments", None)  # a new request reads them again
    moved = page_memo.page_key(request, attempt, **args)
    assert moved != key
    monkeypatch.setattr(fragments, "templates_digest", lambda: "edited")
    assert page_memo.page_key(request, attempt, **args) != moved


def test_a_kept_page_that_does_not_fill_is_drawn_again(course, student):
    attempt = service.start_attempt(quiz=make_quiz(course), student=student, now=timezone.now())
    client = _client(student)
    good = _warm(client, attempt)
    for key in list(page_memo._memo):  # noqa: SLF001 - damage what is kept
        page_memo._memo[key] = (fragments.MARK, f"<p>{fragments.MARK}k99_</p>", 1)  # noqa: SLF001
    page, queries = _get(client, attempt)
    assert queries == 6 and KEYS.sub("", TOKENS.sub("", page)) == KEYS.sub("", TOKENS.sub("", good))


def test_a_kept_exam_page_carries_the_server_clock_of_its_own_request(course, student, monkeypatch):
    quiz = make_quiz(course, mode="exam", time_limit_minutes=30)
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    client = _client(student)
    _warm(client, attempt)
    later = timezone.now() + timedelta(minutes=7)
    monkeypatch.setattr(timezone, "now", lambda: later)
    page, queries = _get(client, attempt)
    assert queries == 4  # served from the memo...
    assert f'data-server-now="{int(later.timestamp())}"' in page  # ...with this request's clock
