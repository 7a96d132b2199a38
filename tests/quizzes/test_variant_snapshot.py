"""Stored variants never disagree with their answers: after a catalog correction an old variant
renders its old figures beside its old answers, a new one the new figures, the render cache can
never serve a mix, and a regrade that recomputes answers is the explicit way to move, with a
preview of exactly which answers change."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.urls import reverse
from django.utils import timezone

from content.physics import accelerator, format_quantity, weights_bytes
from content.physics.catalog import snapshot as catalog_snapshot
from quizzes.models import Variant
from quizzes.presenters import display
from quizzes.services import attempts as service
from quizzes.services import regrade
from quizzes.services.questions import catalog_stamp, correct_answers, engine_variant
from tests.catalog_patching import patch_entry
from tests.factories import OFFERING, PASSWORD, make_quiz, offering_of
from tests.quizzes.test_instructor_helpers import make_quiz as make_quiz_items
from tests.quizzes.test_instructor_helpers import make_student, respond, submitted_attempt

pytestmark = pytest.mark.django_db
PARTS = ("A100", "H100", "H200")


@pytest.fixture(autouse=True)
def empty_caches():
    cache.clear()
    display.clear_local_cache()
    yield
    cache.clear()
    display.clear_local_cache()


def _faster_memory(monkeypatch):
    for name in PARTS:
        acc = accelerator(name)
        patch_entry(monkeypatch, "accelerator", acc.key, memory_bandwidth=2 * acc.memory_bandwidth)


def _bandwidth(row) -> str:
    return format_quantity(engine_variant(row).params["acc"].memory_bandwidth, "B/s")


def _start(course, username):
    quiz = make_quiz(course, slug=f"quiz-{username}")
    student = make_student(course, username)
    attempt = service.start_attempt(quiz=quiz, student=student, now=timezone.now())
    return attempt.variants.select_related("version").get()


def test_the_stored_row_carries_its_snapshot(course):
    row = _start(course, "ann")
    snap = row.answers["catalog"]
    assert snap["fingerprint"] == catalog_snapshot.fingerprint()
    assert any(e["kind"] == "accelerator" for e in snap["entries"])
    assert "catalog" not in row.parameters  # what the page shows stays the drawn values


def test_old_variant_old_figures_new_variant_new_figures(course, monkeypatch):
    old = _start(course, "ann")
    old_html = str(display.question_view(old).prompt_html)
    old_bandwidth = _bandwidth(old)
    assert old_bandwidth in old_html
    old_answer = correct_answers(old)["t"]

    _faster_memory(monkeypatch)
    cache.clear()
    display.clear_local_cache()  # even rendered afresh, the old variant shows its own figures
    old.refresh_from_db()
    assert str(display.question_view(old).prompt_html) == old_html
    acc = engine_variant(old).params["acc"]
    m, dt = engine_variant(old).params["m"], engine_variant(old).params["dt"]
    assert old_answer == pytest.approx(weights_bytes(m, dt) / acc.memory_bandwidth)

    new = _start(course, "ben")
    new_acc = engine_variant(new).params["acc"]
    assert new_acc.memory_bandwidth == accelerator(new_acc.key).memory_bandwidth
    assert _bandwidth(new) in str(display.question_view(new).prompt_html)
    assert catalog_stamp(new) != catalog_stamp(old)


def test_the_cache_key_follows_the_figures_a_variant_shows(course, monkeypatch):
    row = _start(course, "ann")
    key_parts = []
    real_get = cache.get

    def spy(key, *args, **kwargs):
        key_parts.append(key)
        return real_get(key, *args, **kwargs)

    monkeypatch.setattr(cache, "get", spy)
    display.question_view(row)
    assert catalog_stamp(row) in key_parts[-1]

    # A row stored before snapshots renders from the live catalog: its key follows the catalog.
    row.answers = {k: v for k, v in row.answers.items() if k != "catalog"}
    row.save(update_fields=["answers"])
    before = catalog_stamp(row)
    display.question_view(row)
    _faster_memory(monkeypatch)
    assert catalog_stamp(row) != before
    html = str(display.question_view(row).prompt_html)
    assert _bandwidth(row) in html  # not the page cached under the old catalog


def _graded_class(course):
    quiz, (item,) = make_quiz_items(course, examples=("decode-step-memory-floor",), slug="q")
    responses = {}
    for name in ("near", "exact"):
        student = make_student(course, name)
        attempt = submitted_attempt(quiz, student, {item: 1.0})
        variant = attempt.variant_for[item.pk]
        responses[name] = respond(variant, "t", f"{variant.answers['answers']['t']!r} s", "correct")
    return item, responses


def test_regrade_preview_lists_exactly_the_answers_that_change(course, instructor, monkeypatch):
    item, responses = _graded_class(course)
    old = {
        name: Variant.objects.get(pk=r.variant_id).answers["answers"]["t"]
        for name, r in responses.items()
    }
    old_fingerprint = catalog_snapshot.fingerprint()
    _faster_memory(monkeypatch)

    kept = regrade.preview_regrade(
        offering=offering_of(course),
        template=item.template,
        target_version=item.template.current_version,
        recompute_answers=False,
        by=instructor,
    )
    assert kept.answer_changes == [] and kept.changed == 0  # stored answers still hold

    run = regrade.preview_regrade(
        offering=offering_of(course),
        template=item.template,
        target_version=item.template.current_version,
        recompute_answers=True,
        by=instructor,
    )
    by_student = {c["student"]: c for c in run.answer_changes}
    assert set(by_student) == {"near", "exact"}
    for name, change in by_student.items():
        assert change["part"] == "t"
        assert change["old"] == old[name]
        assert change["new"] == pytest.approx(old[name] / 2)
        assert change["catalog_from"] == old_fingerprint
        assert change["catalog_to"] == catalog_snapshot.fingerprint()
    # The students answered the old figures: under the new ones those answers are wrong.
    assert run.changed == 2
    for response in responses.values():
        response.refresh_from_db()
        assert response.status == "correct"  # a preview writes nothing

    regrade.start_regrade(run=run)
    regrade.advance_regrade(run_id=run.pk, batch=10)
    row = Variant.objects.get(pk=responses["near"].variant_id)
    assert row.answers["answers"]["t"] == pytest.approx(old["near"] / 2)
    assert row.answers["catalog"]["fingerprint"] == catalog_snapshot.fingerprint()
    assert _bandwidth(row) in str(display.question_view(row).prompt_html)


def test_the_regrade_page_shows_the_answer_changes(client, course, instructor, monkeypatch):
    item, _ = _graded_class(course)
    _faster_memory(monkeypatch)
    run = regrade.preview_regrade(
        offering=offering_of(course),
        template=item.template,
        target_version=item.template.current_version,
        recompute_answers=True,
        by=instructor,
    )
    client.login(username=instructor.username, password=PASSWORD)
    page = client.get(
        reverse("instructor:regrade_detail", args=[OFFERING, run.pk])
    ).content.decode()
    assert "Correct answers that change (2)" in page
    table = page.split('id="answer-changes"', 1)[1].split("</table>", 1)[0]
    assert table.count("<tr>") == 3  # header and both students
    assert str(run.answer_changes[0]["new"]) in table
