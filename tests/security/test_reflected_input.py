"""Reflected input: query parameters that pages echo (forms, searches, filters, previews) come
back as escaped text, never as markup, on the page and in its htmx fragment."""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils import timezone

from quizzes.services import attempts as service
from tests.factories import OFFERING, PASSWORD, make_quiz
from tests.security.payloads import page_active_content

pytestmark = pytest.mark.django_db

REFLECTED = [
    "\"><img src=x onerror=alert(1)>'><svg onload=alert(1)>",
    "</textarea><script>alert(1)</script>",
    "javascript:alert(1)",
    "$\\text{<img src=x onerror=alert(1)>}$",
]


def _pages(course):
    return {
        None: [
            ("courseware:roofline_chart", ("accelerator", "dtype")),
            ("courseware:calculator", ("accelerator", "dtype", "model", "tokens", "batch")),
        ],
        "instructor": [
            ("instructor:gradebook", ("q", "sort", "quiz", "page")),
            ("instructor:variant_search", ("template", "params")),
            ("instructor:regrade", ("template",)),
        ],
        "author": [
            ("studio:template_list", ("q", "chapter", "status", "kind")),
            ("studio:template_create", ("kind",)),
        ],
    }


@pytest.mark.parametrize("payload", REFLECTED)
@pytest.mark.parametrize("htmx", [False, True], ids=["page", "fragment"])
def test_query_parameters_come_back_as_text(client, course, instructor, author, payload, htmx):
    users = {"instructor": instructor, "author": author}
    headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    for role, pages in _pages(course).items():
        client.logout()
        if role:
            assert client.login(username=users[role].username, password=PASSWORD)
        for name, params in pages:
            args = [OFFERING] if name.startswith("instructor:") else []
            url = reverse(name, args=args)
            response = client.get(url, {p: payload for p in params}, **headers)
            assert response.status_code in (200, 400), (name, response.status_code)
            html = response.content.decode()
            assert page_active_content(html, svg_allowed=True) == [], name


@pytest.mark.parametrize("payload", REFLECTED)
def test_the_formula_preview_echoes_the_answer_as_text(client, course, student, payload):
    quiz = make_quiz(course, examples=["kv-cache-bytes-formula"])
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    variant = attempt.variants.get()
    assert client.login(username=student.username, password=PASSWORD)
    url = reverse("quizzes:preview_part", args=[OFFERING, attempt.pk, variant.pk, "kv"])
    response = client.get(url, {"answer": payload}, HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    assert page_active_content(response.content.decode()) == []
