"""One source of truth: each version records where it came from, and a sync of the bank's files
never silently replaces a version made in the studio (the walkthrough's H2)."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from quizzes.models import QuestionTemplate, TemplateVersion
from quizzes.services import authoring
from quizzes.services.authoring import files
from quizzes.services.bank import read_bank, sync_bank
from tests.factories import UserFactory, site_role
from tests.quizzes.test_bank import write_bank

pytestmark = pytest.mark.django_db


@pytest.fixture
def synced(tmp_path, course, settings):
    settings.QUIZ_PUBLICATION_SEEDS = 20
    root = write_bank(tmp_path / "bank")
    sync_bank(bank=read_bank(root), course=course)
    return root


def _sync(root, **options) -> str:
    out = io.StringIO()
    call_command("sync_questions", dir=str(root), stdout=out, **options)
    return out.getvalue()


def _publish_in_the_studio(course, slug: str, old: str, new: str):
    """What the walkthrough did: edit the draft in the studio and publish it with a note."""
    author = UserFactory()
    site_role(author, "author")
    template = QuestionTemplate.objects.get(slug=slug)
    authoring.save_draft(
        template=template,
        text=template.draft_source.replace(old, new),
        revision=template.draft_revision,
        user=author,
    )
    template.refresh_from_db()
    return authoring.publish_draft(
        template=template, revision=template.draft_revision, user=author, note="5% is fair"
    )


def test_each_version_records_its_origin_and_its_file(synced, course):
    version = QuestionTemplate.objects.get(slug="floor-a").current_version
    assert (version.origin, version.origin_path) == ("file", "inference/floor-a.yaml")
    studio = _publish_in_the_studio(course, "floor-a", "rtol: 0.02", "rtol: 0.05")
    assert (studio.origin, studio.origin_path) == ("studio", "")


def test_a_studio_version_survives_a_sync_of_the_unchanged_file_and_is_reported(synced, course):
    studio = _publish_in_the_studio(course, "floor-a", "rtol: 0.02", "rtol: 0.05")
    out = _sync(synced)
    template = QuestionTemplate.objects.get(slug="floor-a")
    assert template.current_version == studio and "rtol: 0.05" in template.current_version.source
    assert template.versions.count() == 2
    assert "1 template(s) kept their current version" in out
    assert (
        "floor-a: v2 (from the studio) differs from inference/floor-a.yaml; "
        "the file has not changed since the last sync" in out
    )


def test_a_changed_file_does_not_replace_a_studio_version_but_is_reported(synced, course):
    _publish_in_the_studio(course, "floor-a", "Shortest", "Least")
    write_bank(synced, rtol="0.05")
    report = sync_bank(bank=read_bank(synced), course=course)
    assert [c.slug for c in report.conflicts] == ["floor-a"]
    assert report.conflicts[0].file_changed
    assert sorted(report.updated) == ["floor-b", "floor-c"]  # their files still rule them
    current = QuestionTemplate.objects.get(slug="floor-a").current_version
    assert (current.number, current.origin) == (2, "studio") and "Least" in current.source


def test_prefer_files_takes_the_file_over_the_studio_version(synced, course):
    _publish_in_the_studio(course, "floor-a", "rtol: 0.02", "rtol: 0.05")
    out = _sync(synced, prefer_files=True)
    current = QuestionTemplate.objects.get(slug="floor-a").current_version
    assert (current.number, current.origin) == (3, "file") and "rtol: 0.02" in current.source
    assert "kept their current version" not in out
    assert "updated 1" in out


def test_a_file_change_over_a_file_version_is_published_as_before(synced, course):
    write_bank(synced, rtol="0.05")
    report = sync_bank(bank=read_bank(synced), course=course)
    assert sorted(report.updated) == ["floor-a", "floor-b", "floor-c"] and not report.conflicts


def test_export_then_sync_of_an_unchanged_bank_makes_no_new_version(synced, course, tmp_path):
    _publish_in_the_studio(course, "floor-a", "rtol: 0.02", "rtol: 0.05")
    before = TemplateVersion.objects.count()
    exported = tmp_path / "exported"
    call_command("export_questions", str(exported), stdout=io.StringIO())
    report = sync_bank(bank=read_bank(exported), course=course)
    assert TemplateVersion.objects.count() == before
    assert report.created == [] and report.updated == [] and report.conflicts == []
    # The exported file is now the synced text: later syncs of it stay quiet.
    assert "kept their current version" not in _sync(exported)
    assert TemplateVersion.objects.count() == before


def test_an_upload_and_an_import_publish_what_they_bring_and_say_so(synced, course, tmp_path):
    _publish_in_the_studio(course, "floor-a", "Shortest", "Least")
    write_bank(synced, rtol="0.05")
    report = authoring.import_dir(synced, course=course, seeds=20)
    assert sorted(report.sync.updated) == ["floor-a", "floor-b", "floor-c"]
    current = QuestionTemplate.objects.get(slug="floor-a").current_version
    assert (current.origin, current.origin_path) == ("import", "inference/floor-a.yaml")
    text = (synced / "inference" / "floor-b.yaml").read_text().replace("0.05", "0.03")
    files.import_files([("floor-b.yaml", text)], course=course)
    current = QuestionTemplate.objects.get(slug="floor-b").current_version
    assert (current.origin, current.origin_path) == ("upload", "floor-b.yaml")


def test_make_runs_setup_site_keeps_a_studio_edit_and_names_it(synced, course, settings):
    # The walkthrough's H2 exactly: `make run` runs setup_site, which syncs QUESTIONS_DIR.
    settings.QUESTIONS_DIR = str(synced)
    studio = _publish_in_the_studio(course, "floor-a", "rtol: 0.02", "rtol: 0.05")
    out = io.StringIO()
    call_command("setup_site", students=0, stdout=out)
    template = QuestionTemplate.objects.get(slug="floor-a")
    assert template.current_version == studio and "rtol: 0.05" in template.current_version.source
    assert "floor-a: v2 (from the studio) differs from inference/floor-a.yaml" in out.getvalue()
