"""Attack review of the compiled lookups (`courseware/prepared.PreparedLookup`: the attempt
pages', the answer posts' and the enrolments'): the rows they build are the ORM's, field by
field (Django's private `from_db`, populators and converters: this fails on an upgrade that
changes them), every value is a bound parameter, an id no column holds finds nothing, and one
compiled statement serves every thread and connection. The review:
/work/reviews/attack-own-attempt.md.
"""

from __future__ import annotations

import threading
from datetime import timedelta
from decimal import Decimal

import pytest
from django.db import DatabaseError, connection, connections, transaction
from django.utils import timezone

from courseware.models import GroupMembership, Role, StudentGroup
from courseware.prepared import PreparedLookup
from courseware.roles import _ENROLLMENTS
from quizzes.models import Attempt
from quizzes.services import attempts as service
from quizzes.services.availability import student_window
from quizzes.services.instructor import accommodations, grant_extension
from quizzes.views.targets import (
    _OFFERING_QUIZ,
    _OWN_ATTEMPT,
    _OWN_VARIANT,
    _attempt_lookup,
    _lookup,
    _quiz_lookup,
    offering_quiz,
    own_attempt,
)
from tests.factories import OFFERING, make_quiz
from tests.security.attempt_world import HUGE, as_user, attempt_urls

pytestmark = pytest.mark.django_db

# -- the compiled queries: what they return, what they bind, where they run -------------------


def _values(instance) -> list:
    """Every stored field of a row with its Python type (what a page or a rule would read)."""
    if instance is None:
        return [None]
    return [
        (f.attname, value, type(value))
        for f in instance._meta.concrete_fields
        for value in [f.value_from_object(instance)]
    ]


TERMS = ("terms_opens", "terms_due", "terms_closes", "terms_minutes", "terms_attempts")


def _terms(row) -> list:
    names = (*TERMS, "terms_multiplier")
    return [(name, getattr(row, name), type(getattr(row, name))) for name in names]


@pytest.fixture
def every_term(course, student, instructor):
    """A student with their own extension, a group's extension and two time multipliers (their
    own and their group's) on one quiz: every value the lookups read is set, none is None."""
    now = timezone.now().replace(microsecond=0)
    quiz = make_quiz(course, time_limit_minutes=20, due_at=now + timedelta(days=1))
    group = StudentGroup.objects.create(offering=quiz.offering, name="Section 9")
    GroupMembership.objects.create(group=group, user=student)
    accommodations.set_group_extension(
        quiz=quiz,
        group=group,
        by=instructor,
        opens_at=now - timedelta(days=2),
        due_at=now + timedelta(days=3),
        closes_at=now + timedelta(days=4),
        extra_minutes=7,
        extra_attempts=2,
    )
    accommodations.set_accommodation(
        offering=quiz.offering, by=instructor, time_multiplier="1.25", group=group
    )
    accommodations.set_accommodation(
        offering=quiz.offering, by=instructor, time_multiplier="1.5", student=student
    )
    grant_extension(
        quiz=quiz,
        student=student,
        by=instructor,
        due_at=now + timedelta(days=2),
        closes_at=now + timedelta(days=5),
        extra_minutes=3,
        reason="flu",
    )
    attempt = service.start_attempt(quiz=quiz, student=student, now=now)
    return quiz, attempt


def test_the_prepared_attempt_row_is_the_orms_row_field_by_field(every_term, student):
    """The compiled lookup builds instances with Django's private `from_db`, populators and
    converters: a Django upgrade that changes them must fail here, on every value and type
    (aware datetimes and Decimals from SQLite's converters included)."""

    quiz, attempt = every_term
    values = {"user_id": student.pk, "offering_id": quiz.offering_id, "attempt_id": attempt.pk}
    got = _OWN_ATTEMPT.first(**values)
    orm = _attempt_lookup(**values).get()
    assert _values(got) == _values(orm)
    assert _values(got.quiz) == _values(orm.quiz)
    assert got.own_extension.reason == "flu"
    assert _values(got.own_extension) == _values(orm.own_extension)
    assert _terms(got) == _terms(orm)
    assert got.terms_multiplier == Decimal("1.5") and got.terms_minutes == 7
    assert Attempt.quiz.is_cached(got)
    # What the page does with the row: the window from the remembered terms is the window
    # read afresh from the database.
    request = type("Request", (), {"user": student, "offering": quiz.offering})()
    remembered = own_attempt(request, attempt.pk)
    assert student_window(remembered.quiz, student) == student_window(
        type(quiz).objects.get(pk=quiz.pk), student
    )
    assert student_window(remembered.quiz, student).total_minutes == 33  # 20 x 1.5 + 3


def test_the_prepared_variant_row_is_the_orms_row_field_by_field(
    every_term, student, django_assert_num_queries
):

    quiz, attempt = every_term
    variant = attempt.variants.get()
    values = {
        "user_id": student.pk,
        "offering_slug": OFFERING,
        "attempt_id": attempt.pk,
        "variant_id": variant.pk,
    }
    got = _OWN_VARIANT.first(**values)
    orm = _lookup(**values).get()
    for path in ("", "attempt", "attempt.quiz", "attempt.quiz.offering", "item", "version"):
        pair = [got, orm]
        for name in filter(None, path.split(".")):
            pair = [getattr(row, name) for row in pair]
        assert _values(pair[0]) == _values(pair[1]), path
    assert _values(got.attempt.quiz.offering.course) == _values(orm.attempt.quiz.offering.course)
    assert _values(got.own_extension) == _values(orm.own_extension)
    assert _terms(got) == _terms(orm)
    assert got.offering_role == orm.offering_role == Role.STUDENT
    # The answer services take the row as loaded (no second read of the variant).
    with django_assert_num_queries(0):
        assert service._owned(got, student) is got


def test_the_prepared_quiz_row_is_the_orms_row_field_by_field(every_term, student):
    """The quiz page's and Start's lookup (`offering_quiz`): the quiz, its chapter, the
    student's extension and terms as the ORM reads them, and the window they give is the one
    read afresh; a hostile slug finds nothing."""
    quiz, _ = every_term
    values = {"user_id": student.pk, "offering_id": quiz.offering_id, "slug": quiz.slug}
    got = _OFFERING_QUIZ.first(**values)
    orm = _quiz_lookup(**values).get()
    assert _values(got) == _values(orm)
    assert _values(got.chapter) == _values(orm.chapter)
    assert _values(got.own_extension) == _values(orm.own_extension)
    assert _terms(got) == _terms(orm)
    request = type("Request", (), {"user": student, "offering": quiz.offering})()
    remembered = offering_quiz(request, quiz.slug)
    assert student_window(remembered, student) == student_window(
        type(quiz).objects.get(pk=quiz.pk), student
    )
    for slug in HOSTILE_SLUGS + [quiz.slug.upper(), quiz.slug + "%", "%"]:
        assert _OFFERING_QUIZ.first(**{**values, "slug": slug}) is None, slug
    for sql, order, *_ in _OFFERING_QUIZ._compiled.values():
        assert "stand-in" not in sql and "900000" not in sql
        assert set(order) == set(_OFFERING_QUIZ.names)


def test_without_any_terms_the_rows_carry_none(course, student):
    attempt = service.start_attempt(quiz=make_quiz(course), student=student, now=timezone.now())
    got = _OWN_ATTEMPT.first(
        user_id=student.pk, offering_id=attempt.quiz.offering_id, attempt_id=attempt.pk
    )
    assert getattr(got, "own_extension", None) is None
    assert all(value is None for _, value, _ in _terms(got))


HOSTILE_SLUGS = [
    f"{OFFERING}' OR '1'='1",
    f"{OFFERING}' --",
    f'{OFFERING}"; DROP TABLE quizzes_attempt; --',
    "%",
    "_" * len(OFFERING),
    OFFERING.upper(),
    OFFERING + " ",
    "~stand-in-1~",
]


def test_every_request_value_is_a_bound_parameter(course, student):
    """No value reaches the SQL text: the compiled statements hold none of the stand-ins they
    were built with (each became a placeholder), and a slug made of SQL finds nothing."""
    attempt = service.start_attempt(quiz=make_quiz(course), student=student, now=timezone.now())
    variant = attempt.variants.get()
    client = as_user(student)
    assert client.get(attempt.get_absolute_url()).status_code == 200
    client.get(attempt_urls(attempt.pk, variant.pk)[4][1])  # a part's preview: all three compiled
    for lookup in (_OWN_ATTEMPT, _OWN_VARIANT, _ENROLLMENTS):
        assert lookup._compiled
        for sql, order, *_ in lookup._compiled.values():
            assert "stand-in" not in sql and "900000" not in sql
            assert set(order) == set(lookup.names)
    for slug in HOSTILE_SLUGS:
        found = _OWN_VARIANT.first(
            user_id=student.pk, offering_slug=slug, attempt_id=attempt.pk, variant_id=variant.pk
        )
        assert found is None, slug
    assert Attempt.objects.filter(pk=attempt.pk).exists()
    found = _OWN_VARIANT.first(
        user_id=student.pk, offering_slug=OFFERING, attempt_id=attempt.pk, variant_id=variant.pk
    )
    assert found.pk == variant.pk


@pytest.mark.django_db(transaction=True)
def test_one_compiled_lookup_serves_every_thread_and_connection(course, student):
    """Compiled once per process, used by every gunicorn thread, each on its own connection,
    and across reconnections (CONN_MAX_AGE, a connection dropped after an error). On
    PostgreSQL the settings bind parameters on the server and prepare a statement run twice
    on a connection: the lookup must survive a failed statement and a new connection."""

    attempt = service.start_attempt(quiz=make_quiz(course), student=student, now=timezone.now())
    values = {
        "user_id": student.pk,
        "offering_id": attempt.quiz.offering_id,
        "attempt_id": attempt.pk,
    }
    expected = _values(_attempt_lookup(**values).get())
    lookup = PreparedLookup(_attempt_lookup, "user_id", "offering_id", "attempt_id")
    found, errors = [], []

    def read():
        try:
            mine = _values(lookup.first(**values))
            found.append((mine, lookup.first(**{**values, "user_id": student.pk + 1000})))
        except Exception as error:  # noqa: BLE001 - reported below, with the thread's error
            errors.append(error)
        finally:
            connections.close_all()  # this thread's connections, as a finished request's

    # Compiled in one thread, whose connection is then closed...
    first = threading.Thread(target=read)
    first.start()
    first.join()
    assert not errors and found == [(expected, None)]
    # ...used by this one, and by several at once on a fresh lookup.
    assert _values(lookup.first(**values)) == expected
    lookup, found = PreparedLookup(_attempt_lookup, *values), []
    threads = [threading.Thread(target=read) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors and found == [(expected, None)] * 4
    # Run often enough to be prepared on PostgreSQL, then a failed statement, then a new
    # connection: the same answer each time.
    for _ in range(3):
        assert _values(lookup.first(**values)) == expected
    with pytest.raises(DatabaseError), transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SELECT no_such_column FROM quizzes_attempt")
    assert _values(lookup.first(**values)) == expected
    connection.close()
    assert _values(lookup.first(**values)) == expected


@pytest.mark.parametrize("huge", [*HUGE, -(2**63) - 1])
def test_a_prepared_lookup_finds_no_row_for_a_number_past_64_bits(course, student, huge):
    attempt = service.start_attempt(quiz=make_quiz(course), student=student, now=timezone.now())
    offering_id = attempt.quiz.offering_id
    assert _OWN_ATTEMPT.first(user_id=student.pk, offering_id=offering_id, attempt_id=huge) is None
    assert _OWN_ATTEMPT.first(user_id=huge, offering_id=offering_id, attempt_id=attempt.pk) is None
    found = _OWN_VARIANT.first(
        user_id=student.pk, offering_slug=OFFERING, attempt_id=attempt.pk, variant_id=huge
    )
    assert found is None
    assert _ENROLLMENTS.all(user_id=huge) == []
    # The largest id a column holds is still asked of the database (and is not there).
    largest = 2**63 - 1
    assert (
        _OWN_ATTEMPT.first(user_id=student.pk, offering_id=offering_id, attempt_id=largest) is None
    )
    mine = _OWN_ATTEMPT.first(user_id=student.pk, offering_id=offering_id, attempt_id=attempt.pk)
    assert mine.pk == attempt.pk
