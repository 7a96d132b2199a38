"""Studio pages: who may see them, the list and its filters, the editor, saving and conflicts."""

from __future__ import annotations

import pytest
from django.urls import reverse

from quizzes.models import QuestionTemplate, Quiz, QuizItem, TemplateStatus
from quizzes.services import authoring
from quizzes.services.bank import publish_version
from tests.factories import offering_of

pytestmark = pytest.mark.django_db


def make_template(course, slug="floor-time", kind="numeric", *, publish=False, user=None):
    template = authoring.create_template(course=course, user=user, kind=kind, slug=slug)
    if publish:
        publish_version(
            template=template, text=template.draft_source, title=template.title, origin="studio"
        )
        template.refresh_from_db()
    return template


@pytest.fixture
def author_client(client, author):
    client.force_login(author)
    return client


@pytest.fixture
def instructor_client(client, instructor):
    """A quiz's items are its offering's instructors' to change (not the site's authors')."""
    client.force_login(instructor)
    return client


AUTHOR_PAGES = [
    ("studio:template_list", False),
    ("studio:template_create", False),
    ("studio:template_detail", True),
    ("studio:template_edit", True),
    ("studio:template_duplicate", True),
    ("studio:template_validate", True),
    ("studio:template_diff", True),
    ("studio:bank_import", False),
    ("studio:bank_export", False),
]


@pytest.mark.parametrize(("name", "needs_slug"), AUTHOR_PAGES)
@pytest.mark.parametrize("role", ["student", "instructor"])
def test_author_pages_refuse_students_and_instructors(client, course, name, needs_slug, role):
    from tests.factories import EnrollmentFactory

    make_template(course)
    client.force_login(EnrollmentFactory(course=course, role=role).user)
    url = reverse(name, args=["floor-time"] if needs_slug else [])
    assert client.get(url).status_code == 403


@pytest.mark.parametrize("name", ["template_preview", "template_publish", "template_retire"])
def test_author_posts_refuse_instructors(client, course, instructor, name):
    make_template(course)
    client.force_login(instructor)
    assert client.post(reverse(f"studio:{name}", args=["floor-time"])).status_code == 403


def test_anonymous_visitors_are_sent_to_log_in(client, course):
    response = client.get(reverse("studio:template_list"))
    assert response.status_code == 302
    assert "/accounts/login/" in response["Location"]


@pytest.mark.parametrize(("name", "needs_slug"), AUTHOR_PAGES)
def test_author_pages_open_for_authors(author_client, course, name, needs_slug):
    make_template(course)
    url = reverse(name, args=["floor-time"] if needs_slug else [])
    assert author_client.get(url).status_code == 200


def test_list_shows_status_usage_and_filters(author_client, course):
    used = make_template(course, "floor-time", publish=True)
    make_template(course, "which-wall", kind="choice")
    quiz = Quiz.objects.create(offering=offering_of(course), slug="q1", title="Decode quiz")
    QuizItem.objects.create(quiz=quiz, template=used, position=1)
    page = author_client.get(reverse("studio:template_list")).content.decode()
    assert "floor-time" in page and "which-wall" in page
    assert "Decode quiz" in page
    filtered = author_client.get(reverse("studio:template_list"), {"status": "draft"})
    assert "which-wall" in filtered.content.decode()
    assert "floor-time" not in filtered.content.decode()
    by_kind = author_client.get(reverse("studio:template_list"), {"kind": "choice", "q": "wall"})
    assert "which-wall" in by_kind.content.decode()


def test_list_htmx_request_gets_only_the_table(author_client, course):
    make_template(course)
    response = author_client.get(reverse("studio:template_list"), HTTP_HX_REQUEST="true")
    body = response.content.decode()
    assert 'id="template-table"' in body
    assert "<html" not in body


def test_list_keeps_a_fixed_number_of_queries(author_client, course, django_assert_max_num_queries):
    def grow(start, count):
        for n in range(start, start + count):
            t = make_template(course, f"t-{n}", publish=True)
            quiz = Quiz.objects.create(
                offering=offering_of(course), slug=f"quiz-{n}", title=f"Quiz {n}"
            )
            QuizItem.objects.create(quiz=quiz, template=t, position=1)

    grow(0, 2)
    with django_assert_max_num_queries(8):
        author_client.get(reverse("studio:template_list"))
    grow(2, 8)
    with django_assert_max_num_queries(8):
        response = author_client.get(reverse("studio:template_list"))
    assert response.content.decode().count("Quiz ") >= 10


def test_create_from_each_starter_gives_a_valid_draft(author_client, course):
    for kind in authoring.STARTERS:
        slug = f"new-{kind.replace('_', '-')}"
        response = author_client.post(
            reverse("studio:template_create"), {"kind": kind, "slug": slug}
        )
        assert response.status_code == 302
        template = QuestionTemplate.objects.get(slug=slug)
        assert template.status == TemplateStatus.DRAFT
        assert template.kind == kind
        assert authoring.read_draft(template.draft_source, slug=template.slug)[1] == []


def test_create_refuses_a_bad_or_taken_slug(author_client, course):
    make_template(course)
    taken = author_client.post(
        reverse("studio:template_create"), {"kind": "numeric", "slug": "floor-time"}
    )
    assert taken.status_code == 400 and "already taken" in taken.content.decode()
    bad = author_client.post(
        reverse("studio:template_create"), {"kind": "numeric", "slug": "Bad Slug"}
    )
    assert bad.status_code == 400 and "lowercase" in bad.content.decode()
    unknown = author_client.post(
        reverse("studio:template_create"), {"kind": "essay", "slug": "x-1"}
    )
    assert unknown.status_code == 400
    assert QuestionTemplate.objects.count() == 1


def test_duplicate_asks_for_a_new_slug(author_client, course):
    original = make_template(course)
    response = author_client.post(
        reverse("studio:template_duplicate", args=[original.slug]), {"slug": "floor-time-b"}
    )
    assert response.status_code == 302
    copy = QuestionTemplate.objects.get(slug="floor-time-b")
    assert "slug: floor-time-b" in copy.draft_source
    assert copy.draft_source.replace("floor-time-b", "floor-time") == original.draft_source


def test_editor_shows_errors_with_line_and_field(author_client, course):
    template = make_template(course)
    broken = template.draft_source.replace("w / acc.memory_bandwidth", "w / ridge_pont(acc, dt)", 1)
    response = author_client.post(
        reverse("studio:template_preview", args=[template.slug]),
        {"source": broken, "seed": "3", "draft_revision": template.draft_revision},
        HTTP_HX_REQUEST="true",
    )
    body = response.content.decode()
    line = (
        broken.splitlines().index(
            next(line for line in broken.splitlines() if "ridge_pont" in line)
        )
        + 1
    )
    assert f'data-line="{line}"' in body
    assert "ridge_pont" in body and "did you mean" in body
    assert "<html" not in body


def test_preview_renders_a_variant_and_grades_a_try(author_client, course):
    template = make_template(course)
    url = reverse("studio:template_preview", args=[template.slug])
    data = {"source": template.draft_source, "seed": "5", "draft_revision": 1}
    preview = authoring.build_preview(template.draft_source, 5)
    answer = preview.parts[0].answer
    response = author_client.post(url, {**data, "response_t": answer, "try": "t"})
    body = response.content.decode()
    assert "<html" in body  # without htmx: the whole editor page
    assert "feedback correct" in body
    wrong = author_client.post(url, {**data, "response_t": "12 parsecs"}, HTTP_HX_REQUEST="true")
    assert (
        "feedback invalid" in wrong.content.decode()
        or "feedback incorrect" in wrong.content.decode()
    )


def test_two_seeds_give_different_numbers(author_client, course):
    template = make_template(course)
    a = authoring.build_preview(template.draft_source, 1)
    seeds = (s for s in range(2, 60))
    b = next(
        p
        for p in (authoring.build_preview(template.draft_source, s) for s in seeds)
        if p.parameters != a.parameters
    )
    assert a.prompt != b.prompt


def test_save_with_errors_keeps_the_text_and_the_published_version(author_client, course):
    template = make_template(course, publish=True)
    version = template.current_version
    broken = template.draft_source + "\nsoluton: typo\n"
    response = author_client.post(
        reverse("studio:template_edit", args=[template.slug]),
        {"source": broken, "draft_revision": template.draft_revision},
    )
    assert response.status_code == 302
    template.refresh_from_db()
    assert template.draft_source == broken
    assert template.current_version == version
    assert template.status == TemplateStatus.PUBLISHED
    page = author_client.get(response["Location"]).content.decode()
    assert "soluton" in page and "saved with 1 error" in page


def test_save_refuses_a_stale_revision_and_shows_both_texts(author_client, course, author):
    template = make_template(course)
    url = reverse("studio:template_edit", args=[template.slug])
    theirs = template.draft_source.replace("difficulty: 2", "difficulty: 3")
    authoring.save_draft(template=template, text=theirs, revision=1, user=author)
    mine = template.draft_source.replace("difficulty: 3", "difficulty: 4")
    response = author_client.post(url, {"source": mine, "draft_revision": "1"})
    assert response.status_code == 409
    body = response.content.decode()
    assert "difficulty: 3" in body and "difficulty: 4" in body
    template.refresh_from_db()
    assert template.draft_source == theirs
    overwrite = author_client.post(url, {"source": mine, "draft_revision": "2"})
    assert overwrite.status_code == 302
    template.refresh_from_db()
    assert template.draft_source == mine and template.draft_revision == 3


def test_changing_the_slug_in_the_text_is_an_error(author_client, course):
    template = make_template(course)
    _, issues = authoring.read_draft(
        template.draft_source.replace("slug: floor-time", "slug: other"), slug=template.slug
    )
    assert issues and issues[0].field == "slug" and issues[0].line == 1


def test_bad_input_never_gives_a_500(author_client, course):
    template = make_template(course)
    edit = reverse("studio:template_edit", args=[template.slug])
    assert author_client.get(edit, {"seed": "banana"}).status_code == 200
    assert author_client.post(edit, {"source": "x", "draft_revision": "nope"}).status_code == 302
    preview = reverse("studio:template_preview", args=[template.slug])
    for source in ["", "\x01", "[", "slug: floor-time\n" * 3, "a: " + "x" * 200_000]:
        assert author_client.post(preview, {"source": source, "seed": "-4"}).status_code == 200
    # A NUL character is refused before any view, with a message (courseware.middleware).
    refused = author_client.post(preview, {"source": "\x00\x01", "seed": "-4"})
    assert refused.status_code == 400
    assert "NUL character" in refused.content.decode()
    diff = reverse("studio:template_diff", args=[template.slug])
    assert author_client.get(diff, {"a": "99", "b": "zz"}).status_code == 400
    assert author_client.get(reverse("studio:template_edit", args=["no-such"])).status_code == 404


def test_new_numbers_empty_the_try_boxes_instead_of_grading_them_again(
    author_client, course, monkeypatch
):
    monkeypatch.setattr(authoring, "random_seed", lambda: 7)
    template = make_template(course)
    url = reverse("studio:template_preview", args=[template.slug])
    data = {"source": template.draft_source, "draft_revision": 1, "response_t": "3 ms"}
    same = author_client.post(url, {**data, "seed": "5", "tried_seed": "5"}, HTTP_HX_REQUEST="true")
    assert 'class="feedback' in same.content.decode()
    moved = author_client.post(
        url, {**data, "seed": "6", "tried_seed": "5"}, HTTP_HX_REQUEST="true"
    )
    body = moved.content.decode()
    assert 'class="feedback' not in body and 'value="3 ms"' not in body
    fresh = author_client.post(
        url, {**data, "seed": "5", "tried_seed": "5", "new_seed": "1"}, HTTP_HX_REQUEST="true"
    )
    assert 'class="feedback' not in fresh.content.decode()


def test_the_editors_reference_is_json_for_authors_only(author_client, client, course, student):
    url = reverse("studio:editor_reference")
    data = author_client.get(url).json()
    assert "ridge_point" in {f["name"] for f in data["functions"]}
    assert "interval" in data["kinds"] and "unit" in data["kinds"]["numeric"]
    client.force_login(student)
    assert client.get(url).status_code in (302, 403)
