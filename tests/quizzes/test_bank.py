"""Loading the question bank and quiz files: checked first, all or nothing, idempotent."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from quizzes.engine import TemplateError
from quizzes.models import QuestionTemplate, Quiz, QuizItem, TemplateVersion
from quizzes.services.bank import BankError, read_bank, read_quiz_text, sync_bank

pytestmark = pytest.mark.django_db

TEMPLATE = """\
slug: {slug}
title: The memory floor of one decode step
chapter: inference
objectives:
  - Compute the time to stream a model's weights once from memory
difficulty: 2
parameters:
  acc: {{choice: [A100, H100, H200], catalog: accelerator}}
  m: {{choice: [llama-2-7b, llama-3-8b], catalog: model}}
  w: {{value: "weights_bytes(m, 'fp16')"}}
plausible:
  - check: fits_memory
    model: m
    accelerator: acc
    dtype: "'fp16'"
    batch: 1
    context: 0
prompt: |
  {{{{ m }}}} in fp16 on one {{{{ acc }}}} ({{{{ acc.memory_bandwidth | B/s }}}}).
parts:
  - id: t
    kind: numeric
    prompt: Shortest time for one decode step at batch 1?
    answer: "w / acc.memory_bandwidth"
    unit: s
    rtol: {rtol}
    plausible: [1.0e-4, 0.1]
solution: |
  {{{{ w | B }}}} at {{{{ acc.memory_bandwidth | B/s }}}}: {{{{ part_t | s }}}}.
"""

QUIZ = """\
slug: inference-quiz
title: "Quiz: inference"
chapter: inference
mode: homework
tries_per_variant: 2
late_penalty: 0.25
due: 2030-01-15T23:59:00Z
items:
  - template: floor-a
    points: 2
  - pool: floors
    draw: 1
    points: 1
    templates: [floor-b, floor-c]
"""


def write_bank(root: Path, *, rtol="0.02", quiz=QUIZ, extra: dict | None = None) -> Path:
    (root / "inference").mkdir(parents=True, exist_ok=True)
    (root / "quizzes").mkdir(exist_ok=True)
    for slug in ("floor-a", "floor-b", "floor-c"):
        (root / "inference" / f"{slug}.yaml").write_text(TEMPLATE.format(slug=slug, rtol=rtol))
    (root / "quizzes" / "inference.yaml").write_text(quiz)
    for name, text in (extra or {}).items():
        (root / name).write_text(text)
    return root


def test_sync_creates_templates_versions_and_quizzes_with_pools(tmp_path, course):
    bank = read_bank(write_bank(tmp_path))
    report = sync_bank(bank=bank, course=course)
    assert sorted(report.created) == ["floor-a", "floor-b", "floor-c"]
    assert report.quizzes_created == ["inference-quiz"]
    quiz = Quiz.objects.get(slug="inference-quiz")
    assert quiz.pools == {"floors": 1}
    assert str(quiz.late_penalty) == "0.250"
    assert quiz.tries_per_variant == 2
    items = list(quiz.items.order_by("position").values_list("template__slug", "points", "pool"))
    assert [(s, float(p), pool) for s, p, pool in items] == [
        ("floor-a", 2.0, ""),
        ("floor-b", 1.0, "floors"),
        ("floor-c", 1.0, "floors"),
    ]
    template = QuestionTemplate.objects.get(slug="floor-a")
    assert template.status == "published"
    assert template.kind == "numeric"
    assert template.current_version.number == 1


def test_sync_twice_changes_nothing(tmp_path, course):
    root = write_bank(tmp_path)
    sync_bank(bank=read_bank(root), course=course)
    report = sync_bank(bank=read_bank(root), course=course)
    assert report.created == [] and report.updated == []
    assert sorted(report.unchanged) == ["floor-a", "floor-b", "floor-c"]
    assert report.quizzes_unchanged == ["inference-quiz"]
    assert TemplateVersion.objects.count() == 3
    assert QuizItem.objects.count() == 3


def test_changed_file_gets_a_new_version_and_keeps_the_old(tmp_path, course):
    root = write_bank(tmp_path)
    sync_bank(bank=read_bank(root), course=course)
    write_bank(tmp_path, rtol="0.05")
    report = sync_bank(bank=read_bank(root), course=course)
    assert sorted(report.updated) == ["floor-a", "floor-b", "floor-c"]
    template = QuestionTemplate.objects.get(slug="floor-a")
    assert list(template.versions.values_list("number", flat=True).order_by("number")) == [1, 2]
    assert "rtol: 0.05" in template.current_version.source
    assert "rtol: 0.02" in template.versions.get(number=1).source
    assert "rtol: 0.05" in template.draft_source


def test_a_studio_edited_draft_is_not_overwritten_by_a_file_change(tmp_path, course):
    root = write_bank(tmp_path)
    sync_bank(bank=read_bank(root), course=course)
    template = QuestionTemplate.objects.get(slug="floor-a")
    template.draft_source = template.draft_source.replace("Shortest", "Least")
    template.save()
    write_bank(tmp_path, rtol="0.05")
    sync_bank(bank=read_bank(root), course=course)
    template.refresh_from_db()
    assert "Least time" in template.draft_source
    assert template.current_version.number == 2


def test_one_broken_file_refuses_the_whole_load_and_names_file_and_line(tmp_path, course):
    root = write_bank(tmp_path)
    sync_bank(bank=read_bank(root), course=course)
    broken = TEMPLATE.format(slug="floor-d", rtol="0.02").replace(
        "w / acc.memory_bandwidth", "w / acc.memory_bandwidht"
    )
    write_bank(tmp_path, rtol="0.05", extra={"inference/floor-d.yaml": broken})
    with pytest.raises(CommandError) as excinfo:
        call_command("sync_questions", dir=str(root), stdout=io.StringIO())
    message = str(excinfo.value)
    assert "inference/floor-d.yaml" in message
    assert "did you mean 'memory_bandwidth'?" in message
    assert "nothing was changed" in message
    assert not QuestionTemplate.objects.filter(slug="floor-d").exists()
    assert TemplateVersion.objects.count() == 3  # the rtol change was not applied either


def test_unknown_function_is_reported_with_its_line(tmp_path):
    broken = TEMPLATE.format(slug="floor-a", rtol="0.02").replace("weights_bytes", "weights_byts")
    (tmp_path / "floor-a.yaml").write_text(broken)
    with pytest.raises(BankError) as excinfo:
        read_bank(tmp_path)
    assert any(
        p.startswith("floor-a.yaml, line 10") and "did you mean 'weights_bytes'" in p
        for p in excinfo.value.problems
    ), excinfo.value.problems


def test_quiz_naming_an_unknown_template_is_refused_with_a_suggestion(tmp_path):
    root = write_bank(tmp_path, quiz=QUIZ.replace("template: floor-a", "template: flor-a"))
    with pytest.raises(BankError) as excinfo:
        read_bank(root)
    assert any(
        "unknown template 'flor-a'; did you mean 'floor-a'?" in p for p in excinfo.value.problems
    )


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ("mode: homework", "mode: must be one of"),
        ("late_penalty: 0.25", "late_penalty: must be a fraction"),
        ("due: 2030-01-15T23:59:00Z", "due: must be an ISO date"),
        (
            "tries_per_variant: 2",
            "tries_per_varient: unknown field in a quiz file; did you mean 'tries_per_variant'?",
        ),
    ],
)
def test_malformed_quiz_fields_are_reported_with_their_line(change, expected):
    bad = {
        "mode: homework": "mode: quiz",
        "late_penalty: 0.25": "late_penalty: 1.5",
        "due: 2030-01-15T23:59:00Z": "due: next tuesday",
        "tries_per_variant: 2": "tries_per_varient: 2",
    }[change]
    with pytest.raises(TemplateError) as excinfo:
        read_quiz_text(QUIZ.replace(change, bad), source="q.yaml")
    problems = str(excinfo.value).splitlines()
    assert any(expected in p and "q.yaml, line" in p for p in problems), problems


def test_dropped_item_with_answers_is_kept_but_no_longer_drawn(tmp_path, course):
    root = write_bank(tmp_path)
    sync_bank(bank=read_bank(root), course=course)
    quiz = Quiz.objects.get(slug="inference-quiz")
    kept = quiz.items.get(template__slug="floor-a")
    dropped = quiz.items.get(template__slug="floor-c")
    write_bank(
        tmp_path,
        quiz=QUIZ.replace("templates: [floor-b, floor-c]", "templates: [floor-b, floor-a]").replace(
            "  - template: floor-a\n    points: 2\n", ""
        ),
    )
    sync_bank(bank=read_bank(root), course=course)
    assert not QuizItem.objects.filter(pk=dropped.pk).exists()  # no answers: deleted
    kept.refresh_from_db()
    assert kept.pool == "floors"


def test_an_answered_item_dropped_from_the_file_is_kept_but_never_drawn(tmp_path, course, student):
    from django.utils import timezone

    from quizzes.models import Variant
    from quizzes.services.attempts import draw_items, start_attempt

    root = write_bank(tmp_path)
    sync_bank(bank=read_bank(root), course=course)
    quiz = Quiz.objects.get(slug="inference-quiz")
    start_attempt(quiz=quiz, student=student, now=timezone.now())
    answered = quiz.items.get(template__slug="floor-a")
    assert Variant.objects.filter(item=answered).exists()
    write_bank(tmp_path, quiz=QUIZ.replace("  - template: floor-a\n    points: 2\n", ""))
    sync_bank(bank=read_bank(root), course=course)
    answered.refresh_from_db()
    quiz.refresh_from_db()
    assert answered.pool == "retired" and quiz.pools["retired"] == 0
    for number in range(1, 6):
        drawn = draw_items(quiz, list(quiz.items.all()), student=student, number=number)
        assert answered not in drawn
        assert len(drawn) == 1  # one of the pool's two
