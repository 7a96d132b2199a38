"""The chapter page: body, contents, previous and next, mark as read, the quiz link, queries."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.test import Client
from django.urls import reverse

from courseware.models import ReadingProgress
from tests.factories import (
    OFFERING,
    PASSWORD,
    ChapterFactory,
    EnrollmentFactory,
    OfferingFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db

BODY = """# Ignored title

Intro with $x^2$ and {{ ridge_point("H100", "bf16") | FLOP/B }}.

## First section {#first}

> **Worked example: one**
>
> Text.

## Second section

{% sources %}
"""


@pytest.fixture
def book(course):
    cache.clear()
    return [
        ChapterFactory(part__course=course, slug="one", title="One", order=0, source=BODY),
        ChapterFactory(part__course=course, slug="two", title="Two", order=1, source=BODY),
        ChapterFactory(part__course=course, slug="three", title="Three", order=2, source=BODY),
    ]


def _url(slug: str) -> str:
    return reverse("courseware:chapter_detail", args=[slug])


def test_anonymous_visitor_reads_a_chapter_with_mathml_and_contents(client, book):
    response = client.get(_url("two"))
    html = response.content.decode()
    assert response.status_code == 200
    assert '<h1 id="chapter-title">Two</h1>' in html
    assert "Ignored title" not in html
    assert "<math" in html
    assert 'href="#first"' in html and 'href="#second-section"' in html
    assert 'class="worked-example"' in html
    assert "Log in</a> to record your reading" in html


def test_previous_and_next_follow_the_reading_order(client, book):
    middle = client.get(_url("two")).content.decode()
    assert f'rel="prev" href="{_url("one")}"' in middle
    assert f'rel="next" href="{_url("three")}"' in middle
    first = client.get(_url("one")).content.decode()
    assert 'rel="prev"' not in first and f'rel="next" href="{_url("two")}"' in first
    last = client.get(_url("three")).content.decode()
    assert 'rel="next"' not in last


def test_unknown_chapter_is_a_404(client, book):
    assert client.get(_url("nope")).status_code == 404


def test_chapter_page_query_count_does_not_grow_with_the_book(
    client, course, student, django_assert_max_num_queries
):
    cache.clear()
    for n in range(12):
        ChapterFactory(part__course=course, slug=f"c{n}", order=n, source=BODY)
    client.force_login(student)
    client.get(_url("c5"))  # the first view renders and caches the body
    # session, user, course, chapter, outline, reading progress, enrolment role
    with django_assert_max_num_queries(7):
        response = client.get(_url("c6"))
    assert response.status_code == 200


def test_anonymous_chapter_page_query_count(client, book, django_assert_max_num_queries):
    client.get(_url("one"))
    with django_assert_max_num_queries(3):
        client.get(_url("one"))


def test_mark_read_records_progress_and_redirects_back(client, book, student):
    client.force_login(student)
    response = client.post(reverse("courseware:mark_read", args=["two"]))
    assert response.status_code == 302 and response["Location"] == _url("two")
    assert ReadingProgress.objects.filter(user=student, chapter=book[1]).count() == 1
    client.post(reverse("courseware:mark_read", args=["two"]))
    assert ReadingProgress.objects.filter(user=student).count() == 1
    assert "✓ Read" in client.get(_url("two")).content.decode()


def test_mark_read_with_htmx_returns_only_the_status_fragment(client, book, student):
    client.force_login(student)
    response = client.post(reverse("courseware:mark_read", args=["one"]), HTTP_HX_REQUEST="true")
    html = response.content.decode()
    assert response.status_code == 200
    assert 'id="read-status"' in html and "✓ Read" in html
    assert "<html" not in html and "chapter-body" not in html


def test_mark_read_refuses_get(client, book, student):
    client.force_login(student)
    assert client.get(reverse("courseware:mark_read", args=["one"])).status_code == 405
    assert not ReadingProgress.objects.exists()


def test_mark_read_needs_a_login(client, book):
    response = client.post(reverse("courseware:mark_read", args=["one"]))
    assert response.status_code == 302 and response["Location"].startswith(reverse("login"))
    assert not ReadingProgress.objects.exists()


def test_mark_read_needs_the_csrf_token(book, student):
    client = Client(enforce_csrf_checks=True)
    client.force_login(student)
    response = client.post(reverse("courseware:mark_read", args=["one"]))
    assert response.status_code == 403
    assert not ReadingProgress.objects.exists()


def test_signed_in_user_outside_the_course_cannot_mark_read(client, book):
    outsider = UserFactory()
    client.login(username=outsider.username, password=PASSWORD)
    assert client.post(reverse("courseware:mark_read", args=["one"])).status_code == 403


def test_home_page_counts_chapters_marked_read(client, book, course):
    reader = EnrollmentFactory(course=course).user
    client.force_login(reader)
    client.post(reverse("courseware:mark_read", args=["one"]))
    html = client.get(reverse("courseware:home")).content.decode()
    assert "You have read 1 of 3 chapters." in html


def test_chapter_page_links_the_quiz_of_each_offering_the_reader_studies_in(client, book, course):
    """The book is site-wide; a chapter's quiz is each offering's."""
    assert "Take the chapter quiz" not in client.get(_url("one")).content.decode()
    reader = EnrollmentFactory(course=course).user
    client.force_login(reader)
    html = client.get(_url("one")).content.decode()
    assert f'href="{reverse("quizzes:chapter_quiz", args=[OFFERING, "one"])}"' in html
    assert html.count("Take the chapter quiz") == 1
    other = OfferingFactory(course=course, slug="section-2", title="Section 2")
    EnrollmentFactory(user=reader, offering=other)
    html = client.get(_url("one")).content.decode()
    assert f'href="{reverse("quizzes:chapter_quiz", args=["section-2", "one"])}"' in html
    assert "Take the chapter quiz in Section 2" in html


def test_a_chapter_whose_figures_no_longer_evaluate_shows_a_message(client, course):
    cache.clear()
    ChapterFactory(part__course=course, slug="broken", source="{{ accelerator('Z9000') }}\n")
    response = client.get(_url("broken"))
    assert response.status_code == 500
    assert "cannot be shown right now" in response.content.decode()


def test_rendered_chapter_is_cached_by_content_hash(client, book, monkeypatch):
    import courseware.rendering.chapter as chapter_module

    client.get(_url("one"))
    calls = []
    monkeypatch.setattr(chapter_module, "render_body", lambda *a, **k: calls.append(a))
    client.get(_url("one"))
    assert calls == []


def test_a_corrected_figure_reaches_a_cached_chapter_at_once(client, book, monkeypatch):
    from content.physics import accelerator, format_quantity, ridge_point
    from tests.catalog_patching import patch_entry

    before = format_quantity(ridge_point("H100", "bf16"), "FLOP/B")
    assert before in client.get(_url("one")).content.decode()
    h100 = accelerator("H100")
    patch_entry(monkeypatch, "accelerator", h100.key, memory_bandwidth=h100.memory_bandwidth * 2)
    after = format_quantity(ridge_point("H100", "bf16"), "FLOP/B")
    html = client.get(_url("one")).content.decode()
    assert after in html and before not in html


def test_a_new_catalog_version_renders_afresh(client, book, monkeypatch):
    import courseware.rendering.chapter as chapter_module

    client.get(_url("one"))
    monkeypatch.setattr(chapter_module, "catalog_version", lambda: "another-catalog")
    original = chapter_module.render_body
    calls = []

    def counting(*args, **kwargs):
        calls.append(args)
        return original(*args, **kwargs)

    monkeypatch.setattr(chapter_module, "render_body", counting)
    client.get(_url("one"))
    assert len(calls) == 1
