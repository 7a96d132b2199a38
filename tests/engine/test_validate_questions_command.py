"""manage.py validate_questions: one line per template, the summary line, the exit status."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from .samples import NUMERIC


@pytest.fixture
def bank(tmp_path, settings):
    folder = tmp_path / "questions"
    (folder / "quizzes").mkdir(parents=True)
    (folder / "bandwidth-time.yaml").write_text(NUMERIC)
    (folder / "quizzes" / "chapter.yaml").write_text("not: a template\n")
    settings.QUESTIONS_DIR = folder
    return folder


def run(*args: str) -> str:
    out = StringIO()
    call_command("validate_questions", *args, stdout=out, no_color=True)
    return out.getvalue()


def test_summary_line_counts_templates_and_variants(bank):
    output = run("--seeds", "30")
    lines = output.strip().splitlines()
    assert lines[0].startswith("bandwidth-time: 12 distinct variants, t in [")
    assert lines[-1] == "validated 1 templates (30 variants): 0 failures"


def test_failures_exit_non_zero_after_the_summary(bank):
    (bank / "broken.yaml").write_text(
        NUMERIC.replace("slug: bandwidth-time", "slug: broken").replace(
            "min_variants: 3", "min_variants: 50"
        )
    )
    out = StringIO()
    with pytest.raises(CommandError, match="1 failures"):
        call_command("validate_questions", "--seeds", "20", stdout=out, no_color=True)
    assert out.getvalue().strip().splitlines()[-1] == (
        "validated 2 templates (40 variants): 1 failures"
    )


def test_parse_errors_are_failures_with_lines(bank):
    (bank / "bad.yaml").write_text(
        NUMERIC.replace("slug: bandwidth-time", "slug: bad").replace(
            'answer: "w /', 'answer: "ridge_pont(acc) * w /'
        )
    )
    out = StringIO()
    with pytest.raises(CommandError):
        call_command("validate_questions", "--seeds", "5", stdout=out, no_color=True)
    assert "did you mean 'ridge_point'" in out.getvalue()
    line = next(i for i, text in enumerate(NUMERIC.splitlines(), 1) if 'answer: "w /' in text)
    assert f"questions/bad.yaml, line {line}, answer" in out.getvalue()


def test_slug_arguments_select_templates_and_typos_get_a_suggestion(bank):
    output = run("--seeds", "12", "bandwidth-time")
    assert output.strip().endswith("validated 1 templates (12 variants): 0 failures")
    with pytest.raises(CommandError, match="did you mean 'bandwidth-time'"):
        run("bandwidth-tme")


def test_files_are_read_by_the_banks_one_reader(bank):
    # Only the bank's reader refuses binary data and draws a few variants while reading, so a
    # command that walked the folder with a reader of its own would say something else here.
    (bank / "binary.yaml").write_bytes(b"slug: binary\x00\n")
    (bank / "same.yml").write_text(NUMERIC)
    out = StringIO()
    with pytest.raises(CommandError, match="2 failures"):
        call_command("validate_questions", "--seeds", "5", stdout=out, no_color=True)
    assert "questions/binary.yaml, file: contains binary data" in out.getvalue()
    assert "questions/same.yml, slug: 'bandwidth-time' is also used by" in out.getvalue()
    assert "chapter.yaml" not in out.getvalue()
