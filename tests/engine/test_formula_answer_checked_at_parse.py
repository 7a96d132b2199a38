"""An expected formula is checked when its template is parsed: an author-facing error naming
the template and the part, caught by validate_questions, instead of a grader exception when a
student answers."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from quizzes.engine import TemplateError, generate_variant, grade_part, parse_template

from .test_bounded_formula_grading import FORMULA


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        ("pi/2 - atanh(n)", "Unknown name 'atanh'"),
        ("gamma({{ k }} * n)", "Unknown name 'gamma'"),
        ("{{ k }} * n * m", "Unknown name 'm'"),
        ("n^({{ k }}", "not closed"),
        ("n.real", "point"),
        ("1/2n", "parentheses"),
    ],
)
def test_unreadable_formula_answer_is_a_template_error_naming_the_part(answer, reason):
    with pytest.raises(TemplateError) as caught:
        parse_template(FORMULA.format(answer=answer), source="angles.yaml")
    message = str(caught.value)
    assert message.startswith("angles.yaml, line 13, answer: part 'f'")
    assert reason in message
    assert "livevalue" not in message


@pytest.mark.parametrize(
    "answer", ["pi/2 - atan({{ k }} n)", "{{ k }} * n^2", "n^{{ k }} + 1", "log({{ k }}) * n"]
)
def test_readable_formula_answers_with_live_values_parse_and_grade(answer):
    template = parse_template(FORMULA.format(answer=answer), source="ok.yaml")
    variant = generate_variant(template, 1)
    expected = variant.answers["f"]
    assert grade_part(template, variant, "f", expected, grade_fn=_inline).status == "correct"


def _inline(kind, **kwargs):
    from quizzes.grading.formula.grade import grade_symbolic_inline

    return grade_symbolic_inline(**kwargs)


def test_validate_questions_reports_the_unknown_function(tmp_path, settings):
    folder = tmp_path / "questions"
    folder.mkdir()
    (folder / "angles.yaml").write_text(FORMULA.format(answer="pi/2 - atanh(n)"))
    settings.QUESTIONS_DIR = folder
    out = StringIO()
    with pytest.raises(CommandError, match="1 failures"):
        call_command("validate_questions", "--seeds", "3", stdout=out, no_color=True)
    assert "angles.yaml, line 13, answer: part 'f'" in out.getvalue()
    assert "atanh" in out.getvalue()
