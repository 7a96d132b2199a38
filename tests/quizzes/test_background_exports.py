"""Large exports run as a background task (issue 34): progress on the exports page, a download
link when ready, the file for the offering's staff only, removed after its time, written row by
row; a small class still downloads at once."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from quizzes import tasks
from quizzes.models import ExportRun
from quizzes.services.instructor import response_export
from tests.factories import EnrollmentFactory, OfferingFactory, offering_of
from tests.quizzes.test_instructor_helpers import make_class, make_quiz

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _exports_root(settings, tmp_path):
    settings.EXPORTS_ROOT = tmp_path / "exports"


@pytest.fixture
def answered(course):
    quiz, items = make_quiz(course)
    make_class(course, quiz, items, 3)
    return offering_of(course)


def _body(response) -> str:
    return b"".join(response.streaming_content).decode()


def _start(client, offering, kind="responses.csv"):
    return client.post(reverse("instructor:start_export", args=[offering.slug]), {"kind": kind})


@pytest.mark.parametrize("kind", ["responses.csv", "responses.json"])
def test_a_prepared_export_is_the_same_file_as_the_direct_download(
    client, instructor, answered, kind
):
    client.force_login(instructor)
    assert _start(client, answered, kind).status_code == 302
    run = ExportRun.objects.get()
    assert (run.status, run.rows_done, run.rows_total) == ("done", 6, 6)
    page = client.get(reverse("instructor:exports", args=[answered.slug])).content.decode()
    download = reverse("instructor:download_export", args=[answered.slug, run.pk])
    assert download in page and "Download" in page
    prepared = client.get(download)
    assert prepared.status_code == 200 and prepared["Cache-Control"] == "private, no-store"
    assert f'filename="responses-{answered.slug}-' in prepared["Content-Disposition"]
    direct = client.get(
        reverse(f"instructor:export_{kind.replace('.', '_')}", args=[answered.slug])
    )
    body = _body(prepared)
    assert body == _body(direct) and "bits-for-bytes" in body


def test_only_the_offerings_staff_can_download_it(client, instructor, student, answered, course):
    client.force_login(instructor)
    _start(client, answered)
    run = ExportRun.objects.get()
    url = reverse("instructor:download_export", args=[answered.slug, run.pk])
    client.force_login(student)
    assert client.get(url).status_code == 403
    assert client.get(reverse("instructor:exports", args=[answered.slug])).status_code == 403
    assert _start(client, answered).status_code == 403
    other = OfferingFactory(course=course, slug="spring")
    for role in ("ta", "instructor"):
        stranger = EnrollmentFactory(offering=other, role=role).user
        client.force_login(stranger)
        assert client.get(url).status_code == 403  # not staff of this offering
        # Through their own offering's address, this offering's export does not exist.
        theirs = reverse("instructor:download_export", args=[other.slug, run.pk])
        assert client.get(theirs).status_code == 404


def test_an_export_is_removed_after_its_time(client, instructor, answered):
    client.force_login(instructor)
    _start(client, answered)
    run = ExportRun.objects.get()
    path = response_export.path_of(run)
    assert path.is_file()
    url = reverse("instructor:download_export", args=[answered.slug, run.pk])
    later = run.expires_at + timedelta(seconds=1)
    assert run.expires_at - run.finished_at == timedelta(hours=24)
    assert response_export.remove_expired(now=later - timedelta(hours=1)) == 0
    assert response_export.remove_expired(now=later) == 1
    assert not path.exists() and not ExportRun.objects.exists()
    assert client.get(url).status_code == 404


def test_the_worker_sweep_removes_expired_exports(client, instructor, answered):
    client.force_login(instructor)
    _start(client, answered)
    run = ExportRun.objects.get()
    ExportRun.objects.filter(pk=run.pk).update(expires_at=timezone.now() - timedelta(minutes=1))
    tasks.close_expired_exams.call()
    assert not ExportRun.objects.exists() and not response_export.path_of(run).exists()


def test_the_file_is_written_row_by_row_with_its_progress(instructor, answered, monkeypatch):
    """CHUNK rows at a time: the rows are read in chunks and the progress kept after each."""
    monkeypatch.setattr(response_export, "CHUNK", 2)
    seen = []
    real_update = ExportRun.objects.filter

    def spy(*args, **kwargs):
        rows = real_update(*args, **kwargs)
        original = rows.update

        def update(**fields):
            if "rows_done" in fields:
                seen.append(fields["rows_done"])
            return original(**fields)

        rows.update = update
        return rows

    monkeypatch.setattr(ExportRun.objects, "filter", spy)
    run, _ = response_export.queue(offering=answered, kind="responses.csv", by=instructor)
    response_export.build(run_id=run.pk)
    assert seen == [2, 4, 6, 6]  # after each chunk, then the final count
    assert response_export.path_of(ExportRun.objects.get()).read_text().count("\n") == 7


def test_a_waiting_export_shows_progress_and_polls(client, instructor, answered, database_tasks):
    client.force_login(instructor)
    _start(client, answered)
    _start(client, answered)  # a second click joins the export being prepared
    run = ExportRun.objects.get()
    assert run.status == "queued"
    page = client.get(reverse("instructor:exports", args=[answered.slug])).content.decode()
    assert 'hx-trigger="every 2s"' in page and "Waiting for the background worker" in page
    assert ">Refresh</a>" in page  # without JavaScript, a plain link reloads the page
    partial = client.get(
        reverse("instructor:exports", args=[answered.slug]), HTTP_HX_REQUEST="true"
    )
    assert partial.content.decode().lstrip().startswith('<div id="export-runs"')
    tasks.build_export.call(run.pk)
    page = client.get(reverse("instructor:exports", args=[answered.slug])).content.decode()
    assert "every 2s" not in page and "Download" in page


def test_a_large_class_is_sent_to_the_background_export(client, instructor, answered, monkeypatch):
    monkeypatch.setattr(response_export, "DIRECT_MAX", 5)  # the class has 6 responses
    client.force_login(instructor)
    for name in ("export_responses_csv", "export_responses_json"):
        response = client.get(reverse(f"instructor:{name}", args=[answered.slug]))
        assert response.status_code == 302
        assert response["Location"] == reverse("instructor:exports", args=[answered.slug])
    monkeypatch.setattr(response_export, "DIRECT_MAX", 6)
    assert client.get(reverse("instructor:export_responses_csv", args=[answered.slug])).streaming


def test_an_unknown_export_kind_is_refused(client, instructor, answered):
    client.force_login(instructor)
    response = _start(client, answered, kind="../../etc/passwd")
    assert response.status_code == 302 and not ExportRun.objects.exists()
    page = client.get(response["Location"]).content.decode()
    assert "Choose an export" in page


def test_a_failed_export_says_so_and_offers_no_download(client, instructor, answered):
    ExportRun.objects.create(
        offering=answered,
        kind=ExportRun.Kind.RESPONSES_CSV,
        status=ExportRun.Status.FAILED,
        error="The worker stopped while writing row 2000.",
    )
    client.force_login(instructor)
    page = client.get(reverse("instructor:exports", args=[answered.slug])).content.decode()
    assert 'role="alert">The worker stopped while writing row 2000.' in page
    assert "Download</a>" not in page
