"""One publication gate with one seed policy: the studio's Publish, the studio's upload,
`import_questions` and `validate_questions` validate over `QUIZ_PUBLICATION_SEEDS` seeds."""

from __future__ import annotations

import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command

from quizzes.engine import validate
from quizzes.models import QuestionTemplate
from quizzes.services import authoring
from quizzes.services.bank import gate
from tests.quizzes.test_studio_views import make_template

pytestmark = pytest.mark.django_db


@pytest.fixture
def seeds_used(settings, monkeypatch):
    settings.QUIZ_PUBLICATION_SEEDS = 7
    seen: list[int] = []
    real = gate.sandbox.run_limited

    # The gate validates in the sandbox's process: the spy sits where the parent hands it over.
    def spy(function, /, seconds, **kwargs):
        if function is validate.validate_template:
            seen.append(kwargs["seeds"])
        return real(function, seconds, **kwargs)

    monkeypatch.setattr(gate.sandbox, "run_limited", spy)
    return seen


def test_the_studio_publishes_after_the_gates_seed_count(course, author, seeds_used):
    template = make_template(course)
    authoring.publish_draft(template=template, revision=1, user=author)
    assert seeds_used == [7]
    assert QuestionTemplate.objects.get(pk=template.pk).last_validation["seeds"] == 7


def test_an_upload_is_gated_over_the_same_seeds(course, author, seeds_used):
    text = authoring.with_fields(authoring.starter_source("numeric"), slug="uploaded-q")
    upload = SimpleUploadedFile("uploaded-q.yaml", text.encode())
    authoring.import_upload(upload, course=course, user=author)
    assert seeds_used == [7]
    assert QuestionTemplate.objects.filter(slug="uploaded-q").exists()


def test_import_questions_defaults_to_the_gates_seeds(tmp_path, course, seeds_used):
    folder = tmp_path / "bank" / "roofline"
    folder.mkdir(parents=True)
    text = authoring.with_fields(authoring.starter_source("choice"), slug="imported-q")
    (folder / "imported-q.yaml").write_text(text)
    call_command("import_questions", str(tmp_path / "bank"), stdout=io.StringIO())
    assert seeds_used == [7]


def test_spread_checks_count_only_over_many_seeds():
    class Failure:
        check = "outcomes"

    assert not gate.counts_at(Failure(), 50) and gate.counts_at(Failure(), 200)


def test_a_publish_parses_the_draft_once(course, author, monkeypatch):
    from quizzes.services.bank import reading

    template = make_template(course)
    calls = []
    real = reading.parse_template
    monkeypatch.setattr(
        reading, "parse_template", lambda *a, **kw: calls.append(1) or real(*a, **kw)
    )
    authoring.publish_draft(template=template, revision=1, user=author)
    assert len(calls) == 1  # it was three: the check, the summary's check, the validation


def test_one_reader_serves_any_pairs_and_keeps_the_parsed_template():
    from quizzes.services.bank import read_files

    text = authoring.with_fields(authoring.starter_source("numeric"), slug="paired-q")
    bank, problems = read_files(
        [("t/paired-q.yaml", text), ("t/bad.yaml", None)], is_quiz=lambda path: False
    )
    assert problems == ["t/bad.yaml: cannot be read as UTF-8 text"]
    (only,) = bank.templates
    assert only.slug == "paired-q" and only.template.slug == "paired-q"
