"""Integrity: own attempts only, no answer leaks, one response per submission, CSRF, staff."""

from __future__ import annotations

import re
import threading
import uuid

import pytest
from django.db import connection
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from content.physics import format_quantity
from quizzes.engine import render_solution
from quizzes.models import Attempt, Response
from quizzes.services import attempts as service
from quizzes.services.questions import (
    common_error_values,
    correct_answers,
    engine_variant,
    template_for,
)
from tests.factories import OFFERING, PASSWORD, EnrollmentFactory, make_quiz

EXAMPLES = ["decode-step-memory-floor", "kv-cache-fits", "kv-cache-bytes-formula"]


def _client(user, **kwargs) -> Client:
    client = Client(**kwargs)
    client.login(username=user.username, password=PASSWORD)
    return client


@pytest.mark.django_db
def test_another_students_attempt_answers_404(course, student):
    quiz = make_quiz(course)
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    variant = attempt.variants.get()
    intruder = _client(EnrollmentFactory(course=course).user)
    urls = [
        ("get", reverse("quizzes:attempt_detail", args=[OFFERING, attempt.pk])),
        ("get", reverse("quizzes:attempt_results", args=[OFFERING, attempt.pk])),
        ("post", reverse("quizzes:submit_part", args=[OFFERING, attempt.pk, variant.pk, "t"])),
        ("post", reverse("quizzes:autosave", args=[OFFERING, attempt.pk, variant.pk, "t"])),
        ("post", reverse("quizzes:new_variant", args=[OFFERING, attempt.pk, variant.pk])),
        ("post", reverse("quizzes:submit_attempt", args=[OFFERING, attempt.pk])),
    ]
    for method, url in urls:
        data = {"answer": "1 ms", "idempotency_key": uuid.uuid4().hex}
        response = getattr(intruder, method)(url, data)
        assert response.status_code == 404, url
    assert not Response.objects.exists()
    assert Attempt.objects.get(pk=attempt.pk).status == "in_progress"


def _formattings(value, unit) -> set[str]:
    if isinstance(value, str):
        return {value, value.replace(" ", "")}
    if isinstance(value, (list, tuple)) or value is None:
        return set()
    value = float(value)
    if value.is_integer() and abs(value) < 1000:
        return set()  # small counts appear everywhere on a page; they reveal nothing
    found = {repr(value), f"{value:.6g}", f"{value:.5g}", f"{value:.4g}"}
    if unit:
        for sig in (3, 4):
            found.add(format_quantity(value, unit, sig=sig))
    return {f for f in found if len(f) >= 4}


def _secrets(variant) -> dict[str, set[str]]:
    """Per part: every formatting of its correct answer and its common-error values."""
    template = template_for(variant.version)
    common = common_error_values(variant)
    secrets = {}
    for part in template.parts:
        values = {correct_answers(variant)[part.id]} | set(common.get(part.id, {}).values())
        strings = set()
        for value in values:
            strings |= _formattings(value, getattr(part.settings, "unit", None))
        secrets[part.id] = strings
    return secrets


class LeakScanner:
    def __init__(self, variants):
        self.open = {}  # (variant pk, part id) -> strings that must not appear yet
        # Worked solutions of finished questions are public; a number in one of them (the
        # weights of a model, say) may equal a secret of another question without leaking it.
        self.revealed = ""
        self.seeds = {v.seed for v in variants}
        for variant in variants:
            for part_id, strings in _secrets(variant).items():
                self.open[(variant.pk, part_id)] = strings

    def finish(self, variant, part_id):
        self.open.pop((variant.pk, part_id), None)
        if not any(key[0] == variant.pk for key in self.open):
            self.revealed += render_solution(template_for(variant.version), engine_variant(variant))

    def scan(self, response):
        body = response.content.decode()
        for seed in self.seeds:
            assert seed not in body
        for (variant_pk, part_id), strings in self.open.items():
            for secret in strings:
                pattern = r"(?<![\d.])" + re.escape(secret) + r"(?![\d])"
                if re.search(pattern, self.revealed):
                    continue
                assert not re.search(pattern, body), (variant_pk, part_id, secret)
        return response


@pytest.mark.django_db
def test_answers_seeds_and_slips_never_reach_the_browser_before_the_part_is_final(course, student):
    quiz = make_quiz(course, examples=EXAMPLES, tries_per_variant=2)
    client = _client(student)
    start = client.post(reverse("quizzes:start_attempt", args=[OFFERING, quiz.slug]), follow=True)
    attempt = Attempt.objects.get()
    variants = {v.item.template.slug: v for v in attempt.variants.select_related("item__template")}
    scanner = LeakScanner(variants.values())
    scanner.scan(start)
    page = reverse("quizzes:attempt_detail", args=[OFFERING, attempt.pk])

    def post(variant, part, answer, htmx):
        url = reverse("quizzes:submit_part", args=[OFFERING, attempt.pk, variant.pk, part])
        data = {"answer": answer, "idempotency_key": uuid.uuid4().hex}
        extra = {"HTTP_HX_REQUEST": "true"} if htmx else {}
        scanner.scan(client.post(url, data, follow=not htmx, **extra))

    decode, kv, formula = (variants[slug] for slug in EXAMPLES)
    preview = reverse("quizzes:preview_part", args=[OFFERING, attempt.pk, formula.pk, "kv"])
    scanner.scan(client.get(preview, {"answer": "4 n b"}, HTTP_HX_REQUEST="true"))
    scanner.scan(client.get(preview, {"answer": "4 n b"}))
    # Wrong and unreadable answers, through htmx and plain posts: every body is scanned.
    post(decode, "t", "0,5 s", htmx=True)
    post(decode, "t", "1 s", htmx=False)
    post(kv, "kv", "12 kB", htmx=True)
    post(kv, "total", "3 GB", htmx=False)
    post(formula, "kv", "n*b", htmx=True)
    scanner.scan(client.get(page))
    scanner.scan(client.get(reverse("quizzes:quiz_detail", args=[OFFERING, quiz.slug])))
    scanner.scan(client.get(reverse("quizzes:progress", args=[OFFERING])))
    # Right answers, one part at a time: the others stay secret until they are final.
    answers = {slug: correct_answers(v) for slug, v in variants.items()}
    scanner.finish(decode, "t")
    post(decode, "t", f"{answers['decode-step-memory-floor']['t']!r} s", htmx=True)
    scanner.finish(kv, "kv")
    post(kv, "kv", f"{answers['kv-cache-fits']['kv']!r} B", htmx=False)
    scanner.scan(client.get(page))
    scanner.finish(formula, "kv")
    post(formula, "kv", answers["kv-cache-bytes-formula"]["kv"], htmx=True)
    scanner.scan(client.get(page))
    assert Response.objects.filter(status="correct").count() == 3


@pytest.mark.django_db
def test_the_same_idempotency_key_twice_records_one_response(course, student):
    quiz = make_quiz(course)
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    variant = attempt.variants.get()
    client = _client(student)
    url = reverse("quizzes:submit_part", args=[OFFERING, attempt.pk, variant.pk, "t"])
    data = {"answer": "1 ms", "idempotency_key": uuid.uuid4().hex}
    first = client.post(url, data, HTTP_HX_REQUEST="true")
    second = client.post(url, data, HTTP_HX_REQUEST="true")
    assert first.status_code == second.status_code == 200
    response = Response.objects.get()
    assert response.try_number == 1
    assert "2 tries left" in second.content.decode()  # the repeat did not spend a try


def _concurrent_double_submit(student, variant, *, threads=4):
    key = uuid.uuid4().hex
    barrier = threading.Barrier(threads)
    results, errors = [], []

    def submit():
        try:
            barrier.wait(timeout=10)
            results.append(
                service.submit_response(
                    variant=variant,
                    part_id="t",
                    raw="1 ms",
                    student=student,
                    idempotency_key=key,
                    now=timezone.now(),
                ).pk
            )
        except Exception as error:  # noqa: BLE001 - reported below
            errors.append(error)
        finally:
            connection.close()

    workers = [threading.Thread(target=submit) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=30)
    return results, errors


@pytest.mark.django_db(transaction=True)
def test_concurrent_double_submission_records_exactly_one_response(course, student):
    quiz = make_quiz(course)
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    variant = attempt.variants.get()
    results, errors = _concurrent_double_submit(student, variant)
    assert not errors, errors
    assert Response.objects.count() == 1
    assert set(results) == {Response.objects.get().pk}


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_double_submission_on_postgresql_uses_the_row_lock(course, student):
    quiz = make_quiz(course)
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    variant = attempt.variants.get()
    results, errors = _concurrent_double_submit(student, variant, threads=8)
    assert not errors, errors
    assert Response.objects.count() == 1
    assert Response.objects.get().try_number == 1
    assert len(results) == 8


@pytest.mark.django_db(transaction=True)
def test_concurrent_different_forms_never_share_a_try_number(course, student):
    quiz = make_quiz(course, tries_per_variant=5)
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    variant = attempt.variants.get()
    barrier = threading.Barrier(3)
    errors = []

    def submit(answer):
        try:
            barrier.wait(timeout=10)
            service.submit_response(
                variant=variant,
                part_id="t",
                raw=answer,
                student=student,
                idempotency_key=uuid.uuid4().hex,
                now=timezone.now(),
            )
        except service.QuizRuleError as error:
            errors.append(error)
        finally:
            connection.close()

    workers = [threading.Thread(target=submit, args=(f"{n} s",)) for n in (1, 2, 3)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=30)
    tries = list(Response.objects.values_list("try_number", flat=True))
    assert len(tries) == len(set(tries))  # never two "try 2"s
    assert len(tries) + len(errors) == 3


@pytest.mark.django_db
def test_every_form_is_csrf_protected(course, student):
    quiz = make_quiz(course, examples=["decode-step-memory-floor"])
    guarded = _client(student, enforce_csrf_checks=True)
    start = reverse("quizzes:start_attempt", args=[OFFERING, quiz.slug])
    assert guarded.post(start).status_code == 403
    assert not Attempt.objects.exists()
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    variant = attempt.variants.get()
    posts = [
        reverse("quizzes:submit_part", args=[OFFERING, attempt.pk, variant.pk, "t"]),
        reverse("quizzes:autosave", args=[OFFERING, attempt.pk, variant.pk, "t"]),
        reverse("quizzes:new_variant", args=[OFFERING, attempt.pk, variant.pk]),
        reverse("quizzes:submit_attempt", args=[OFFERING, attempt.pk]),
    ]
    for url in posts:
        data = {"answer": "1 ms", "idempotency_key": uuid.uuid4().hex}
        assert guarded.post(url, data).status_code == 403, url
    assert not Response.objects.exists()
    # With the token from the rendered page the same post goes through.
    html = guarded.get(attempt.get_absolute_url()).content.decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html).group(1)
    data = {"answer": "1 ms", "idempotency_key": uuid.uuid4().hex, "csrfmiddlewaretoken": token}
    assert guarded.post(posts[0], data).status_code == 302
    assert Response.objects.count() == 1


@pytest.mark.django_db
@pytest.mark.parametrize("role", ["instructor", "ta"])
def test_staff_may_read_a_quiz_but_not_start_an_attempt(course, role):
    quiz = make_quiz(course)
    staff = _client(EnrollmentFactory(course=course, role=role).user)
    page = staff.get(reverse("quizzes:quiz_detail", args=[OFFERING, quiz.slug]))
    assert page.status_code == 200
    assert "Only students take quizzes" in page.content.decode()
    assert (
        staff.post(reverse("quizzes:start_attempt", args=[OFFERING, quiz.slug])).status_code == 403
    )
    assert not Attempt.objects.exists()


@pytest.mark.django_db
def test_anonymous_visitors_are_sent_to_log_in(course):
    quiz = make_quiz(course)
    response = Client().get(reverse("quizzes:quiz_detail", args=[OFFERING, quiz.slug]))
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
