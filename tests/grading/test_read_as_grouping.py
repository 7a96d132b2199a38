"""The grader's "read as" text groups digits as the book prints them: a prompt that says
"81,559 MiB" and a reading of "81559 MiB" beside it looked like two different numbers."""

from fractions import Fraction

import pytest

from content.physics import format_number as book_number
from quizzes.grading import grade_numeric
from quizzes.grading.numbers import format_number


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (81559, "81,559"),
        (-123456, "-123,456"),
        (Fraction(163185, 2), "81,592.5"),
        (4096, "4,096"),  # four digits take their comma too (eighth pass)
        (999, "999"),
        (Fraction(1, 20), "0.05"),
        (3350000000000, "3.35×10¹²"),
    ],
)
def test_the_grader_groups_a_whole_part_of_four_or_more_digits(value, shown):
    assert format_number(Fraction(value)) == shown


@pytest.mark.parametrize("value", [81559, 15900, 4096, 819200, 295])
def test_the_grouping_is_the_books(value):
    assert format_number(Fraction(value)) == book_number(value)


def test_group_false_gives_the_bare_digits():
    assert format_number(Fraction(81559), group=False) == "81559"


def test_a_plain_number_answer_is_read_back_grouped():
    grade = grade_numeric("81559", 81559)
    assert grade.status == "correct"
    assert grade.interpreted == "81,559"


def test_a_comma_grouped_answer_with_a_unit_is_read_back_grouped():
    grade = grade_numeric("81,559 s", 81559, unit="s")
    assert grade.status == "correct"
    assert grade.interpreted == "81,559 s"
