"""What the issue's "done when" asks of every answer kind: an author on a fresh site writes a
template of that kind in the studio (from its starter), previews it with the kind's own input
validates it and publishes it, all through the pages."""

from __future__ import annotations

import pytest
from django.urls import reverse

from quizzes.models import PublishRun, QuestionTemplate

pytestmark = pytest.mark.django_db


@pytest.fixture
def author_client(client, author):
    from tests.factories import PASSWORD

    client.login(username=author.username, password=PASSWORD)
    return client


@pytest.mark.parametrize(
    ("kind", "its_input"),
    [
        ("ordering", 'class="order-position"'),
        ("matching", 'class="match-category"'),
        ("roofline_point", "data-roofline-input"),
        ("explain", "<textarea"),
    ],
)
def test_an_author_writes_previews_validates_and_publishes_a_new_kind(
    author_client, course, kind, its_input, task_worker, settings
):
    settings.QUIZ_PUBLICATION_SEEDS = 40
    slug = f"my-{kind.replace('_', '-')}"
    created = author_client.post(reverse("studio:template_create"), {"kind": kind, "slug": slug})
    assert created.status_code == 302
    template = QuestionTemplate.objects.get(slug=slug)
    editor = author_client.get(reverse("studio:template_edit", args=[slug]))
    assert editor.status_code == 200
    # The preview draws the kind's own input (its template, as the student's page does).
    preview_url = reverse("studio:template_preview", args=[slug])
    preview = author_client.post(preview_url, {"source": template.draft_source, "seed": "3"})
    html = preview.content.decode()
    assert preview.status_code == 200 and "The draft has errors" not in html
    assert its_input in html and 'name="response_' in html
    validated = author_client.post(
        reverse("studio:template_validate", args=[slug]), {"seeds": "20"}
    )
    assert validated.status_code in (200, 302)
    template.refresh_from_db()
    assert template.last_validation["ok"], template.last_validation
    published = author_client.post(
        reverse("studio:template_publish", args=[slug]),
        {"draft_revision": str(template.draft_revision), "note": "first"},
    )
    assert published.status_code == 302
    task_worker()
    run = PublishRun.objects.get(template=template)
    assert run.status == "published", run.message
    template.refresh_from_db()
    assert template.current_version.number == 1 and template.kind == kind
