"""grade_symbolic and preview_formula: notations, equivalence, near misses, diagnosis."""

import pytest

from quizzes.grading import CommonError, grade_symbolic, preview_formula

N = ["n"]


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        ("2n^3/(3n^2)", "2*n/3"),
        ("2*n**3/(3*n**2)", "2*n/3"),
        ("n log n", "n*log(n)"),
        ("nlogn", "n*log(n)"),
        ("n·log(n)", "n*log(n)"),
        ("n × n", "n^2"),
        ("n²", "n^2"),
        ("n³ - n²", "n^2*(n - 1)"),
        ("2ⁿ", "2^n"),
        ("2^2^n", "2^(2^n)"),
        ("0.5n", "n/2"),
        ("(1/2)n", "n/2"),
        ("1/(2n)", "1/(2*n)"),
        ("ln(n)", "log(n)"),
        ("log2(n)", "log(n)/log(2)"),
        ("log_2(n)", "log(n)/log(2)"),
        ("log10(1000 n)", "3 + log10(n)"),
        ("log(n, 2)", "log2(n)"),
        ("sqrt(n)", "n^(1/2)"),
        ("exp(2 log n)", "n^2"),
        ("e^(log n)", "n"),
        ("|n - 3|", "abs(3 - n)"),
        ("n!/(n-1)!", "n"),
        ("factorial(n)/n", "factorial(n - 1)"),
        ("sin n", "sin(n)"),
        ("pi n^2", "π*n^2"),
        ("-n + 2n", "n"),
        ("+n", "n"),
        ("n^-1", "1/n"),
        ("2e-1 n", "n/5"),
        ("max(n, 2n)", "2n"),
        ("（n＋1）", "n + 1"),
        ("n \u2212 1", "n - 1"),
    ],
)
def test_equivalent_form_is_correct(response, expected):
    grade = grade_symbolic(response, expected, variables=N)
    assert grade.status == "correct", grade.feedback


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        ("n^2/2 + 1e-9", "n^2/2"),
        ("0.333n", "n/3"),
        ("n^2", "n^3"),
        ("n log n", "n log2 n"),
        ("2^n", "n^2"),
        ("(n+1)^2", "n^2 + 1"),
        ("n + 1/10^30", "n"),
    ],
)
def test_near_miss_is_incorrect(response, expected):
    assert grade_symbolic(response, expected, variables=N).status == "incorrect"


def test_log_of_product_equals_sum_of_logs_for_positive_variables():
    grade = grade_symbolic("log(a*b)", "log(a) + log(b)", variables=["a", "b"])
    assert grade.status == "correct"


def test_log_of_product_differs_from_sum_of_logs_for_real_variables():
    grade = grade_symbolic("log(a*b)", "log(a) + log(b)", variables={"a": "real", "b": "real"})
    assert grade.status == "incorrect"


def test_square_root_of_square_is_n_only_for_positive_n():
    assert grade_symbolic("sqrt(n^2)", "n", variables=N).status == "correct"
    assert grade_symbolic("sqrt(n^2)", "n", variables={"n": "real"}).status == "incorrect"
    assert grade_symbolic("sqrt(n^2)", "|n|", variables={"n": "real"}).status == "correct"


def test_integer_domain_decides_floor_identities():
    domain = {"n": "positive integer"}
    assert grade_symbolic("floor(n/2) + ceil(n/2)", "n", variables=domain).status == "correct"
    assert grade_symbolic("floor(n/2)", "n/2", variables=domain).status == "incorrect"


def test_missing_factor_of_two_is_diagnosed():
    grade = grade_symbolic("m n k", "2 m n k", variables=["m", "n", "k"])
    assert (grade.status, grade.diagnosis) == ("incorrect", "constant-factor")
    assert "2" in grade.feedback


def test_extra_factor_of_two_is_diagnosed():
    grade = grade_symbolic("4 m n k", "2 m n k", variables=["m", "n", "k"])
    assert grade.diagnosis == "constant-factor"
    assert "2×" in grade.feedback


def test_named_formula_error_is_recognised():
    error = CommonError("one-direction", "n*b", "Count both the read and the write.")
    grade = grade_symbolic("b n", "2 n b", variables=["n", "b"], common_errors=[error])
    assert (grade.status, grade.diagnosis) == ("incorrect", "one-direction")
    assert grade.feedback == "Count both the read and the write."


def test_interpreted_shows_how_the_formula_was_read():
    grade = grade_symbolic("2n^3/(3n^2)", "2n/3", variables=N)
    assert grade.interpreted == "2*n^3/(3*n^2)"


@pytest.mark.parametrize(
    ("response", "fragment"),
    [
        ("1/2n", "(1/2)n or 1/(2n)"),
        ("1/2 n", "(1/2)n or 1/(2n)"),
        ("e^2n", "e^(2n)"),
        ("log 2n", "log(…)"),
        ("log^2 n", "(log n)^2"),
        ("n 2", "2n"),
        ("n2", "2n"),
        ("x + n", "Unknown name 'x'"),
        ("n = 2", "without '='"),
        ("[n]", "round parentheses"),
        ("(n", "')'"),
        ("n)", "'('"),
        ("n +", "ends too early"),
        ("", "Enter a formula"),
        ("sqrt(n, 2)", "takes 1"),
        ("n__x", "Underscores"),
        ("1/0", "divides by zero"),
        ("(-1)!", "whole numbers"),
    ],
)
def test_refused_formula_is_invalid_with_a_hint(response, fragment):
    grade = grade_symbolic(response, "n", variables=N)
    assert grade.status == "invalid"
    assert fragment in grade.feedback


def test_listed_variable_may_contain_underscore_and_digits():
    grade = grade_symbolic("2 d_model n_1", "2*n_1*d_model", variables=["d_model", "n_1"])
    assert grade.status == "correct"


def test_variable_named_e_shadows_the_constant():
    assert grade_symbolic("e + 1", "1 + e", variables=["e"]).status == "correct"
    assert grade_symbolic("log(e)", "1", variables=["e"]).status == "incorrect"


def test_preview_shows_plain_and_latex_without_grading():
    preview = preview_formula("1/(2n) + sqrt(n)", ["n"])
    assert preview.ok
    assert preview.interpreted == "1/(2*n) + sqrt(n)"
    assert r"\frac{1}{2 n}" in preview.latex and r"\sqrt{n}" in preview.latex


def test_preview_reports_the_error_for_an_unreadable_formula():
    preview = preview_formula("1/2n", ["n"])
    assert not preview.ok
    assert "parentheses" in preview.error


def test_unknown_domain_is_a_fault_of_the_question_not_an_exception():
    grade = grade_symbolic("n", "n", variables={"n": "complex"})
    assert grade.status == "invalid"
    assert "fault is in the question" in grade.feedback
