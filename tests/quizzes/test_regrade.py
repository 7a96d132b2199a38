"""Regrades: the preview lists every score change, applying it changes scores in batches and
leaves an audit record; the pages drive it and poll its progress."""

from __future__ import annotations

import hashlib
import re
from decimal import Decimal

import pytest
from django.urls import reverse

from quizzes.models import RegradeRun, RegradeStatus, Response, Variant
from quizzes.services import regrade
from tests.factories import OFFERING, PASSWORD, TemplateVersionFactory, example_source, offering_of
from tests.quizzes.test_instructor_helpers import (
    make_quiz,
    make_student,
    respond,
    submitted_attempt,
)

pytestmark = pytest.mark.django_db
SLUG = "decode-step-memory-floor"


def _version(template, source: str):
    version = TemplateVersionFactory(
        template=template,
        number=template.versions.count() + 1,
        source=source,
        content_hash=hashlib.sha256(source.encode()).hexdigest(),
    )
    template.current_version = version
    template.save(update_fields=["current_version"])
    return version


@pytest.fixture
def graded(course):
    """Two students: one 3% off (wrong at a 2% tolerance), one exactly right."""
    quiz, (item,) = make_quiz(course, examples=(SLUG,), slug="q")
    out = {}
    for name, factor in (("near", 1.03), ("exact", 1.0)):
        student = make_student(course, name)
        attempt = submitted_attempt(quiz, student, {item: 1.0 if factor == 1.0 else 0.0})
        variant = attempt.variant_for[item.pk]
        value = variant.answers["answers"]["t"] * factor
        status = "correct" if factor == 1.0 else "incorrect"
        out[name] = respond(variant, "t", f"{value!r} s", status)
    return item, out


def _run_to_the_end(run):
    regrade.start_regrade(run=run)
    for _ in range(10):
        run = regrade.advance_regrade(run_id=run.pk, batch=1)
        if run.status == RegradeStatus.APPLIED:
            return run
    raise AssertionError("the regrade never finished")


def test_preview_lists_changes_and_writes_nothing(graded, instructor):
    item, responses = graded
    wider = _version(item.template, example_source(SLUG).replace("rtol: 0.02", "rtol: 0.05"))
    run = regrade.preview_regrade(
        offering=offering_of(item.template.course),
        template=item.template,
        target_version=wider,
        recompute_answers=False,
        by=instructor,
    )
    assert run.status == RegradeStatus.PREVIEWED and run.total == 2 and run.changed == 1
    (change,) = run.preview
    assert change["student"] == "near" and change["part"] == "t"
    assert (change["old_status"], change["new_status"]) == ("incorrect", "correct")
    assert (change["old"], change["new"]) == (0.0, 1.0)
    responses["near"].refresh_from_db()
    assert responses["near"].status == "incorrect"


def test_apply_changes_scores_recomputes_attempts_and_keeps_the_audit(graded, instructor):
    item, responses = graded
    wider = _version(item.template, example_source(SLUG).replace("rtol: 0.02", "rtol: 0.05"))
    run = regrade.preview_regrade(
        offering=offering_of(item.template.course),
        template=item.template,
        target_version=wider,
        recompute_answers=False,
        by=instructor,
    )
    run = _run_to_the_end(run)
    assert run.processed == run.total == 2 and run.applied_at and run.created_by == instructor
    near = Response.objects.get(pk=responses["near"].pk)
    assert near.status == "correct" and near.score == 1.0 and near.regraded_at is not None
    variant = near.variant
    assert variant.score == 1.0
    variant.attempt.refresh_from_db()
    assert variant.attempt.score == Decimal("1.000")
    # Applying again is a no-op: the run is finished.
    again = regrade.advance_regrade(run_id=run.pk)
    assert again.processed == 2 and Response.objects.filter(status="correct").count() == 2


def test_recomputing_answers_uses_the_stored_parameters(graded, instructor):
    item, responses = graded
    old = Variant.objects.get(pk=responses["exact"].variant_id)
    doubled = example_source(SLUG).replace(
        'answer: "w / acc.memory_bandwidth"', 'answer: "2 * w / acc.memory_bandwidth"'
    )
    fixed = _version(item.template, doubled)
    run = regrade.preview_regrade(
        offering=offering_of(item.template.course),
        template=item.template,
        target_version=fixed,
        recompute_answers=True,
        by=instructor,
    )
    # Both answers were at most 3% from the old key, so both are wrong against a doubled one.
    assert {c["student"] for c in run.preview} == {"exact"}
    _run_to_the_end(run)
    new = Variant.objects.get(pk=old.pk)
    assert new.parameters == old.parameters and new.version == fixed
    assert new.answers["answers"]["t"] == pytest.approx(2 * old.answers["answers"]["t"])
    assert Response.objects.get(pk=responses["exact"].pk).status == "incorrect"


def test_regrade_pages_preview_apply_and_poll(client, graded, instructor):
    item, _ = graded
    wider = _version(item.template, example_source(SLUG).replace("rtol: 0.02", "rtol: 0.05"))
    client.login(username=instructor.username, password=PASSWORD)
    response = client.post(
        reverse("instructor:regrade", args=[OFFERING]),
        {"template": item.template.pk, "target_version": wider.pk, "recompute_answers": ""},
    )
    run = RegradeRun.objects.get()
    assert response.status_code == 302 and response["Location"].endswith(f"/regrade/{run.pk}/")
    page = client.get(response["Location"]).content.decode()
    assert "near" in page and "Apply 1 change" in page
    client.post(reverse("instructor:regrade_apply", args=[OFFERING, run.pk]))
    progress = reverse("instructor:regrade_progress", args=[OFFERING, run.pk])
    fragment = client.post(progress, HTTP_HX_REQUEST="true").content.decode()
    assert fragment.strip().startswith('<div id="progress"')
    run.refresh_from_db()
    assert run.status == RegradeStatus.APPLIED
    assert "every 1s" not in fragment  # polling stops once applied


def test_regrade_form_refuses_a_version_of_another_template(client, graded, course, instructor):
    item, _ = graded
    other_quiz, (other,) = make_quiz(course, examples=("kv-cache-fits",), slug="other")
    client.login(username=instructor.username, password=PASSWORD)
    response = client.post(
        reverse("instructor:regrade", args=[OFFERING]),
        {"template": item.template.pk, "target_version": other.template.current_version.pk},
    )
    assert response.status_code == 200
    assert "Choose a version of the chosen template" in response.content.decode()
    assert not RegradeRun.objects.exists()


def _option_values(html: str, name: str) -> set[str]:
    select = re.search(rf'<select name="{name}"[^>]*>(.*?)</select>', html, re.S)
    return set(re.findall(r'<option value="(\d+)"', select.group(1))) if select else set()


def test_regrade_form_offers_only_the_chosen_templates_versions(client, graded, course, instructor):
    item, _ = graded
    wider = _version(item.template, example_source(SLUG).replace("rtol: 0.02", "rtol: 0.05"))
    _, (other,) = make_quiz(course, examples=("kv-cache-fits",), slug="other")
    _version(other.template, example_source("kv-cache-fits"))
    client.login(username=instructor.username, password=PASSWORD)
    url = reverse("instructor:regrade", args=[OFFERING])
    first = client.get(url).content.decode()
    assert _option_values(first, "template") == {str(item.template.pk), str(other.template.pk)}
    assert _option_values(first, "target_version") == set()  # step 2 waits for a template
    second = client.get(url, {"template": item.template.pk}).content.decode()
    own = {str(pk) for pk in item.template.versions.values_list("pk", flat=True)}
    assert _option_values(second, "target_version") == own and str(wider.pk) in own
    assert f'<option value="{wider.pk}" selected>' in second  # the current version first
    fragment = client.get(url, {"template": other.template.pk}, HTTP_HX_REQUEST="true")
    html = fragment.content.decode()
    assert html.strip().startswith('<div id="regrade-versions"') and "<html" not in html
    theirs = {str(pk) for pk in other.template.versions.values_list("pk", flat=True)}
    assert _option_values(html, "target_version") == theirs


def test_regrade_post_without_a_template_asks_for_one(client, graded, instructor):
    client.login(username=instructor.username, password=PASSWORD)
    response = client.post(
        reverse("instructor:regrade", args=[OFFERING]), {"template": "x"}, follow=True
    )
    assert "Choose a template first" in response.content.decode()
    assert not RegradeRun.objects.exists()


def test_preview_says_how_many_responses_it_checked(client, graded, instructor):
    item, _ = graded
    same = _version(item.template, example_source(SLUG))
    run = regrade.preview_regrade(
        offering=offering_of(item.template.course),
        template=item.template,
        target_version=same,
        recompute_answers=False,
        by=instructor,
    )
    assert run.changed == 0 and run.note == "Checked 2 responses in 2 variants."
    client.login(username=instructor.username, password=PASSWORD)
    page = client.get(
        reverse("instructor:regrade_detail", args=[OFFERING, run.pk])
    ).content.decode()
    assert "Checked 2 responses in 2 variants." in page and "No score would change" in page
    assert "0 of 2 variants" not in page


def test_recomputing_skips_a_common_error_that_is_none_in_a_variant(graded, instructor):
    item, _ = graded
    source = example_source(SLUG).replace(
        "value: \"weights_bytes(m, 'fp32') / acc.memory_bandwidth\"", 'value: "None"'
    )
    assert source != example_source(SLUG)
    version = _version(item.template, source)
    run = regrade.preview_regrade(
        offering=offering_of(item.template.course),
        template=item.template,
        target_version=version,
        recompute_answers=True,
        by=instructor,
    )
    assert run.total == 2 and run.changed == 0
    _run_to_the_end(run)
    for variant in Variant.objects.filter(item=item):
        assert set(variant.answers["common_errors"]["t"]) == {"bits-for-bytes", "reciprocal"}


def test_a_counted_try_that_now_grades_as_free_stays_a_counted_incorrect_try(course, instructor):
    # "12 GB" for a time was a counted incorrect try; it now costs no try when sent, but a
    # regrade must not turn a counted try into an uncounted one
    quiz, (item,) = make_quiz(course, examples=(SLUG,), slug="dims")
    student = make_student(course, "dims")
    attempt = submitted_attempt(quiz, student, {item: 0.0})
    variant = attempt.variant_for[item.pk]
    response = respond(variant, "t", "12 GB", "incorrect")
    same = _version(item.template, example_source(SLUG))
    run = regrade.preview_regrade(
        offering=offering_of(item.template.course),
        template=item.template,
        target_version=same,
        recompute_answers=False,
        by=instructor,
    )
    _run_to_the_end(run)
    response.refresh_from_db()
    assert response.status == "incorrect" and response.try_number is not None
