"""Hostile input: every one is answered "invalid" quickly, and none of it is executed."""

import builtins

import pytest
import sympy.parsing.sympy_parser

from quizzes.grading import grade_numeric, grade_symbolic, preview_formula

HOSTILE = [
    "__import__('os')",
    "__import__('os').system('touch /tmp/grading-was-here')",
    "().__class__",
    "().__class__.__bases__[0].__subclasses__()",
    "lambda: 1",
    "open('/etc/passwd')",
    "eval('1')",
    "exec",
    "n.__class__",
    "'n'",
    '"n"',
    "9**9**9**9",
    "factorial(10^9)",
    "factorial(10**9)",
    "10!!!!",
    "(10!)!",
    "10^10^10",
    "2^(10^10)",
    "n^(10^9)",
    "exp(10^10)",
    "(" * 5000 + "n" + ")" * 5000,
    "(" * 200 + "n" + ")" * 200,
    "-" * 300 + "n",
    "n" + "+n" * 5000,
    "1e999999",
    "1" * 40,
    "n\x00",
    "n\u200b",
    "n\u202e",
    "n\ufeff",
    "_",
    "n; import os",
    "n\n__import__",
]


@pytest.fixture
def nothing_executes(monkeypatch, tmp_path):
    def refuse(*args, **kwargs):
        raise AssertionError("student text reached an evaluator")

    monkeypatch.setattr(builtins, "eval", refuse)
    monkeypatch.setattr(builtins, "exec", refuse)
    monkeypatch.setattr(sympy.parsing.sympy_parser, "parse_expr", refuse)


@pytest.mark.parametrize("response", HOSTILE, ids=lambda text: repr(text[:40]))
def test_hostile_formula_is_invalid(response, nothing_executes):
    grade = grade_symbolic(response, "n", variables=["n"])
    assert grade.status == "invalid"
    assert grade.feedback.endswith(".")
    assert not preview_formula(response, ["n"]).ok


# a long run of digits is a fine (wrong) number, but too long a literal for a formula
HOSTILE_NUMBERS = [text for text in HOSTILE if not text.isdigit()]


@pytest.mark.parametrize("response", HOSTILE_NUMBERS, ids=lambda text: repr(text[:40]))
def test_hostile_number_is_invalid(response, nothing_executes):
    assert grade_numeric(response, 3.0).status == "invalid"


def test_nothing_written_to_disk(tmp_path, nothing_executes):
    target = tmp_path / "pwned"
    grade_symbolic(f"__import__('os').system('touch {target}')", "n", variables=["n"])
    grade_numeric(f"__import__('os').system('touch {target}')", 1.0)
    assert not target.exists()


def test_ten_thousand_characters_are_refused_by_length():
    grade = grade_symbolic("n+" * 5000, "n", variables=["n"])
    assert "limit is 500" in grade.feedback
    assert "limit is 200" in grade_numeric("1" * 10_000, 1.0).feedback
