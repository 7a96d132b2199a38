"""One bank pipeline: sync publishes only through the publication gate, every command reads
the one QUESTIONS_DIR setting, and a recorded pass spares only that very text."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from quizzes.engine import validate
from quizzes.management.commands import validate_questions
from quizzes.models import QuestionTemplate, Quiz
from quizzes.services.bank import content_hash, gate, read_bank
from tests.quizzes.test_bank import TEMPLATE, write_bank

pytestmark = pytest.mark.django_db


class _Runs(list):
    fail = None


@pytest.fixture
def gate_runs(monkeypatch):
    """Every validation the gate asks for, as (slug, seeds); `fail` makes a slug fail seed 57."""
    runs = _Runs()
    failing: set[str] = set()

    def fake(template, seeds, **kwargs):
        runs.append((template.slug, seeds))
        report = validate.ValidationReport(template.slug, template.source, seeds, variants=seeds)
        if template.slug in failing:
            report.failures.append(
                validate.ValidationFailure("answer", "the answer is not finite", seed=57)
            )
        return report

    real = gate.sandbox.run_limited

    # The gate hands its validation to the sandbox's process; the fake answers in this one.
    def run(function, /, seconds, **kwargs):
        if function is validate.validate_template:
            return fake(kwargs.pop("template"), kwargs.pop("seeds"), **kwargs)
        return real(function, seconds, **kwargs)

    monkeypatch.setattr(gate.sandbox, "run_limited", run)
    runs.fail = failing.add
    return runs


def sync(root) -> str:
    out = io.StringIO()
    call_command("sync_questions", dir=str(root), stdout=out)
    return out.getvalue()


def test_sync_publishes_only_what_passes_the_gate_over_its_seeds(tmp_path, course, gate_runs):
    root = write_bank(tmp_path)
    gate_runs.fail("floor-b")
    with pytest.raises(CommandError) as refused:
        sync(root)
    message = str(refused.value)
    assert "nothing was changed" in message
    assert "inference/floor-b.yaml: validation: answer: the answer is not finite [seed 57]" in (
        message
    )
    assert not QuestionTemplate.objects.exists()
    assert sorted(gate_runs) == [("floor-a", 200), ("floor-b", 200), ("floor-c", 200)]


def test_sync_gates_only_new_and_changed_texts(tmp_path, course, gate_runs):
    root = write_bank(tmp_path)
    sync(root)
    assert QuestionTemplate.objects.filter(current_version__isnull=False).count() == 3
    gate_runs.clear()
    sync(root)
    assert gate_runs == []  # unchanged: nothing to publish, nothing to check
    (root / "inference" / "floor-a.yaml").write_text(TEMPLATE.format(slug="floor-a", rtol="0.03"))
    gate_runs.fail("floor-a")
    with pytest.raises(CommandError, match="floor-a.yaml: validation"):
        sync(root)
    assert gate_runs == [("floor-a", 200)]
    assert QuestionTemplate.objects.get(slug="floor-a").current_version.number == 1


def test_a_recorded_pass_spares_only_that_text_under_that_catalog(
    tmp_path, course, gate_runs, settings
):
    root = write_bank(tmp_path / "bank")
    settings.QUESTIONS_DIR = root
    text = (root / "inference" / "floor-a.yaml").read_text()
    gate.record_passes({"floor-a": (content_hash(text), 200)}, keep=set())
    assert gate.recorded_passes() == {(content_hash(text), 200)}
    sync(root)
    assert sorted(gate_runs) == [("floor-b", 200), ("floor-c", 200)]
    # A record written under another catalog counts for nothing.
    record = gate.passes_path()
    record.write_text(record.read_text().replace(gate.catalog_snapshot.fingerprint(), "0" * 16))
    assert gate.recorded_passes() == frozenset()


def test_validate_questions_records_the_passes_that_sync_then_trusts(
    tmp_path, course, settings, gate_runs
):
    root = write_bank(tmp_path / "bank")
    settings.QUESTIONS_DIR = root
    out = io.StringIO()
    call_command("validate_questions", "--record", stdout=out, no_color=True)
    assert "recorded 3 passes" in out.getvalue()
    gate_runs.clear()
    sync(root)
    assert gate_runs == [] and QuestionTemplate.objects.count() == 3


def test_every_command_and_the_reader_follow_the_one_questions_dir(
    tmp_path, course, settings, gate_runs
):
    root = write_bank(tmp_path / "elsewhere")
    settings.QUESTIONS_DIR = root
    assert {t.slug for t in read_bank().templates} == {"floor-a", "floor-b", "floor-c"}
    templates, errors = validate_questions.templates_to_validate()
    assert {t.slug for t in templates} == {"floor-a", "floor-b", "floor-c"} and not errors
    out = io.StringIO()
    call_command("sync_questions", stdout=out)
    assert "created 3" in out.getvalue()
    assert gate.passes_path().parent == root


def test_a_quiz_file_error_reads_like_a_template_error_with_its_line():
    from quizzes.engine import TemplateError, parse_template
    from quizzes.services.bank import read_files, read_quiz_text

    quiz = "slug: q\ntitle: Q\nmdoe: exam\nitems:\n  - template: x\n    points: -1\n"
    with pytest.raises(TemplateError) as caught:
        read_quiz_text(quiz, source="q.yaml")
    assert [(i.line, i.field) for i in caught.value.errors] == [(3, "mdoe"), (6, "points")]
    assert str(caught.value).splitlines() == [
        "q.yaml, line 3, mdoe: unknown field in a quiz file; did you mean 'mode'?",
        "q.yaml, line 6, points: must be a positive number, at most 1000",
    ]
    # The same shape as a template's own error, through the same reader.
    with pytest.raises(TemplateError, match=r"t.yaml, line 1, yaml: anchors and aliases"):
        parse_template("a: &x 1\nb: *x\n", source="t.yaml")
    _, problems = read_files([("quizzes/q.yaml", quiz)], is_quiz=lambda path: True)
    assert problems[0] == (
        "quizzes/q.yaml, line 3, mdoe: unknown field in a quiz file; did you mean 'mode'?"
    )


@pytest.mark.parametrize("quiz", [False, True])
def test_a_lone_uploaded_file_is_parsed_once(course, author, monkeypatch, quiz):
    import yaml
    from django.core.files.uploadedfile import SimpleUploadedFile

    from quizzes.services import authoring

    # Every YAML parse, composed (`yamlnodes.compose`) or loaded (`safe_load`), builds the
    # document's node tree once through `get_single_node` (the guard before it only scans).
    parsed: list[str] = []
    real = yaml.SafeLoader.get_single_node

    def counting(self):
        parsed.append(self.buffer.rstrip("\0"))
        return real(self)

    monkeypatch.setattr(yaml.SafeLoader, "get_single_node", counting)
    if quiz:
        authoring.import_upload(
            SimpleUploadedFile("t.yaml", TEMPLATE.format(slug="floor-a", rtol="0.02").encode()),
            course=course,
            user=author,
        )
        text = "slug: week-1\ntitle: Week 1\nchapter: inference\nitems:\n  - template: floor-a\n"
    else:
        text = TEMPLATE.format(slug="floor-a", rtol="0.02")
    parsed.clear()
    authoring.import_upload(
        SimpleUploadedFile("one.yaml", text.encode()), course=course, user=author
    )
    # Once to tell a quiz from a template; the reader parses that same composition.
    assert parsed.count(text) == 1
    model = Quiz if quiz else QuestionTemplate
    assert model.objects.filter(slug="week-1" if quiz else "floor-a").exists()
