"""CSV exports: no cell reaches a spreadsheet that it would run as a formula."""

from __future__ import annotations

import pytest

from quizzes.views.instructor_exports import safe_cell

DANGEROUS = [
    "=1+1",
    "+1",
    "-1+cmd",
    "@SUM(A1)",
    "\t=1",
    "\r=1",
    "\t",
    "\r",
    ' =HYPERLINK("http://x")',
    "  +1",
    "\t+1",
    "\n=1",
    "\r\n@x",
    " \t\n-2",
]


@pytest.mark.parametrize("value", DANGEROUS, ids=repr)
def test_formula_like_cells_are_quoted(value):
    guarded = safe_cell(value)
    assert guarded == "'" + value


@pytest.mark.parametrize("value", ["3.2 TB/s", "a = b", "x-1", "", " plain", "n log n"])
def test_ordinary_cells_are_left_alone(value):
    assert safe_cell(value) == value


def test_numbers_are_left_alone():
    assert safe_cell(-1.5) == -1.5 and safe_cell(3) == 3
