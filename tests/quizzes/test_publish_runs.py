"""Publishing runs as a background task: the page never waits on the 200-seed gate, shows its
progress, and can cancel it; a version appears only if the gate passes on the revision seen."""

from __future__ import annotations

import pytest
from django.urls import reverse

from quizzes.engine.validate import ProgressFile, ValidationCancelled
from quizzes.models import PublishRun, PublishStatus, TemplateVersion
from quizzes.services import authoring
from quizzes.services.authoring import publication
from tests.quizzes.test_studio_views import make_template

pytestmark = pytest.mark.django_db


@pytest.fixture
def author_client(client, author):
    from tests.factories import PASSWORD

    client.login(username=author.username, password=PASSWORD)
    return client


def _publish(client, template, revision=1, **extra):
    url = reverse("studio:template_publish", args=[template.slug])
    return client.post(url, {"draft_revision": str(revision), **extra})


def test_publish_queues_a_run_and_the_page_answers_before_the_gate(
    author_client, course, database_tasks
):
    template = make_template(course)
    response = _publish(author_client, template, note="first")
    assert response.status_code == 302 and response["Location"].endswith("#publish")
    run = PublishRun.objects.get()
    assert (run.status, run.seeds_done, run.revision, run.note) == ("queued", 0, 1, "first")
    assert not TemplateVersion.objects.exists()
    page = author_client.get(reverse("studio:template_detail", args=[template.slug]))
    html = page.content.decode()
    assert '<progress id="publish-progress" max="200" value="0"' in html
    assert "Cancel publishing" in html and 'hx-trigger="every 1s"' in html
    assert 'class="button" disabled>Publish version 1' in html


def test_the_worker_runs_the_gate_with_progress_and_publishes(
    author_client, course, author, task_worker
):
    template = make_template(course)
    _publish(author_client, template)
    task_worker()
    run = PublishRun.objects.get()
    assert (run.status, run.seeds_done) == ("published", 200)
    version = run.version
    assert (version.number, version.origin, version.published_by) == (1, "studio", author)
    # The page's poll, once the run is over, reloads the whole page: its versions changed too.
    poll = author_client.get(
        reverse("studio:template_publish_status", args=[template.slug, run.pk]),
        HTTP_HX_REQUEST="true",
    )
    assert poll["HX-Refresh"] == "true"
    page = author_client.get(reverse("studio:template_detail", args=[template.slug]))
    html = page.content.decode()
    assert "Published version 1" in html and "every 1s" not in html
    assert '<span class="badge correct">current</span>' in html
    template.refresh_from_db()
    assert template.last_validation["ok"] and template.last_validation["revision"] == 1


def test_progress_is_copied_to_the_run_while_the_gate_runs(course, author, monkeypatch):
    template = make_template(course)
    run = authoring.queue_publication(template=template, revision=1, user=author)
    seen = []
    original = publication._report

    def spy(run_, tracker):
        original(run_, tracker)
        seen.append(PublishRun.objects.get(pk=run_.pk).seeds_done)

    monkeypatch.setattr(publication, "POLL_SECONDS", 0.01)
    monkeypatch.setattr(publication, "_report", spy)
    authoring.run_publication(run_id=run.pk)
    assert seen and seen == sorted(seen) and max(seen) <= 200
    assert PublishRun.objects.get(pk=run.pk).status == PublishStatus.PUBLISHED


def test_cancel_stops_a_running_gate_and_publishes_nothing(course, author, monkeypatch):
    # The gate runs in the sandbox's own process: the stop sign (the progress file's ".cancel",
    # left by the task's poll once the author pressed Cancel) must reach it there.
    template = make_template(course)
    run = authoring.queue_publication(template=template, revision=1, user=author)

    def stop_sign_already_left(path):
        tracker = ProgressFile(path)
        tracker.cancel()
        return tracker

    monkeypatch.setattr(publication, "ProgressFile", stop_sign_already_left)
    finished = authoring.run_publication(run_id=run.pk)
    assert finished.status == PublishStatus.CANCELLED and finished.seeds_done == 0
    assert finished.message == "Cancelled; nothing was published."
    assert not TemplateVersion.objects.exists()


def test_the_poll_turns_the_authors_cancel_into_the_gates_stop_sign(
    course, author, tmp_path, author_client
):
    template = make_template(course)
    run = authoring.queue_publication(template=template, revision=1, user=author)
    run.status = PublishStatus.RUNNING
    run.save()
    tracker = ProgressFile(str(tmp_path / "progress"), every_s=0)
    tracker(120, 200)
    url = reverse("studio:template_publish_cancel", args=[template.slug, run.pk])
    fragment = author_client.post(url, HTTP_HX_REQUEST="true").content.decode()
    assert "stopping…" in fragment
    publication._report(run, tracker)
    assert PublishRun.objects.get(pk=run.pk).seeds_done == 120
    with pytest.raises(ValidationCancelled):
        tracker(121, 200)
    tracker.remove()


def test_cancel_of_a_queued_run_is_immediate_and_the_task_then_does_nothing(
    author_client, course, database_tasks, task_worker
):
    template = make_template(course)
    _publish(author_client, template)
    run = PublishRun.objects.get()
    url = reverse("studio:template_publish_cancel", args=[template.slug, run.pk])
    assert author_client.post(url, HTTP_HX_REQUEST="true")["HX-Refresh"] == "true"
    page = author_client.get(reverse("studio:template_detail", args=[template.slug]))
    assert "Publishing was cancelled after 0 of 200 seeds" in page.content.decode()
    task_worker()
    assert PublishRun.objects.get().status == "cancelled"
    assert not TemplateVersion.objects.exists()


def test_a_second_publish_while_one_runs_is_refused_with_a_message(
    author_client, course, database_tasks
):
    template = make_template(course)
    _publish(author_client, template)
    response = _publish(author_client, template)
    assert PublishRun.objects.count() == 1
    page = author_client.get(response["Location"]).content.decode()
    assert "being published already" in page


def test_a_draft_saved_while_queued_is_not_published_unseen(
    author_client, course, author, database_tasks, task_worker
):
    template = make_template(course)
    _publish(author_client, template)
    text = template.draft_source.replace("rtol: 0.02", "rtol: 0.03")
    authoring.save_draft(template=template, text=text, revision=1, user=author)
    task_worker()
    run = PublishRun.objects.get()
    assert run.status == "refused" and "saved again" in run.message
    assert not TemplateVersion.objects.exists()


def test_a_draft_failing_the_gate_is_refused_and_the_report_says_why(author_client, course, author):
    template = make_template(course)
    text = template.draft_source.replace("plausible: [1.0e-4, 0.1]", "plausible: [1.0, 2.0]")
    authoring.save_draft(template=template, text=text, revision=1, user=author)
    _publish(author_client, template, revision=2)
    run = PublishRun.objects.get()
    assert run.status == "refused" and "fails validation over 200 seeds" in run.message
    page = author_client.get(reverse("studio:template_detail", args=[template.slug]))
    assert "Not published" in page.content.decode()


def test_a_crash_in_the_task_marks_the_run_failed(course, author, monkeypatch, database_tasks):
    from quizzes import tasks

    template = make_template(course)
    run = authoring.queue_publication(template=template, revision=1, user=author)

    def broken(**kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(authoring, "run_publication", broken)
    with pytest.raises(RuntimeError):
        tasks.publish_draft_run.call(run.pk)
    run.refresh_from_db()
    assert run.status == "failed" and "disk full" in run.message


def test_another_authors_template_run_is_not_found(author_client, course):
    template = make_template(course)
    url = reverse("studio:template_publish_status", args=[template.slug, 999])
    assert author_client.get(url).status_code == 404


def test_the_progress_file_stops_the_engine_at_the_next_seed(tmp_path):
    tracker = ProgressFile(str(tmp_path / "p"), every_s=0)
    tracker(3, 10)
    assert tracker.read() == (3, 10)
    tracker.cancel()
    with pytest.raises(ValidationCancelled):
        tracker(4, 10)
    tracker.remove()
    assert tracker.read() is None


def test_a_template_that_passed_the_gate_at_sync_is_not_listed_as_never_validated(
    author_client, course, author
):
    template = make_template(course)
    authoring.publish_draft(template=template, revision=1, user=author)
    QuestionTemplateModel = type(template)
    QuestionTemplateModel.objects.filter(pk=template.pk).update(last_validation=None)
    listing = author_client.get(reverse("studio:template_list")).content.decode()
    row = listing.split(template.slug, 1)[1].split("</tr>", 1)[0]
    assert "never" not in row and "the publication gate, for v1" in row
    editor = author_client.get(reverse("studio:template_edit", args=[template.slug]))
    assert "which passed the publication gate" in editor.content.decode()
