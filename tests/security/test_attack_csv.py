"""Second attack review: spreadsheet formulas behind blanks that `str.strip` knows but a short
list of blanks does not (no-break, ideographic, vertical tab, form feed), full-width formula
signs, and the gradebook's header, which names quizzes by their slug."""

from __future__ import annotations

import pytest

from quizzes.views.instructor_exports import _csv_stream, safe_cell

SNEAKY = [
    "\u00a0=1+1",
    "\u3000=1+1",
    "\x0b=1+1",
    "\x0c+1",
    "\u2003@SUM(A1)",
    "\uff1d1+1",  # full-width equals sign
    "\uff0b1",
    "\uff0d1+cmd",
    "\uff20SUM(A1)",
    " \u00a0\uff1d1",
]


@pytest.mark.parametrize("value", SNEAKY, ids=repr)
def test_formulas_behind_other_blanks_or_in_full_width_are_quoted(value):
    assert safe_cell(value) == "'" + value


@pytest.mark.parametrize("value", ["1.5", "Ada", "kv-cache", "a=b", "\u00a0text"])
def test_ordinary_cells_stay_as_they_are(value):
    assert safe_cell(value) == value


def test_the_header_is_guarded_too():
    header = ["username", "-1+1 best", "=cmd out of"]
    first = next(_csv_stream(header, []))
    assert "'-1+1 best" in first and "'=cmd out of" in first
    assert first.startswith("username,")
