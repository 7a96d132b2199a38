"""Reading numbers: every accepted notation, every refused form and its message."""

from decimal import Decimal
from fractions import Fraction

import pytest

from quizzes.grading import ResponseError, parse_number

ACCEPTED = [
    ("3.35e12", Decimal("3.35e12")),
    ("3.35E+12", Decimal("3.35e12")),
    ("3.35×10^12", Decimal("3.35e12")),
    ("3.35x10^12", Decimal("3.35e12")),
    ("3.35 × 10^12", Decimal("3.35e12")),
    ("3.35*10**12", Decimal("3.35e12")),
    ("3.35·10¹²", Decimal("3.35e12")),
    ("1.5×10⁻³", Decimal("0.0015")),
    ("10^-3", Decimal("0.001")),
    ("2^10", Decimal(1024)),
    ("1/4", Decimal("0.25")),
    ("5%", Decimal("0.05")),
    ("12.5 %", Decimal("0.125")),
    ("+7", Decimal(7)),
    ("\u22127.5", Decimal("-7.5")),
    ("-7.5", Decimal("-7.5")),
    ("３．３５", Decimal("3.35")),
    ("3\u2009350\u2009000", Decimal(3350000)),
    ("3\u202f350\u202f000", Decimal(3350000)),
    ("3 350 000", Decimal(3350000)),
    ("3.141 592", Decimal("3.141592")),
    ("3.", Decimal(3)),
    (".5", Decimal("0.5")),
    ("  42  ", Decimal(42)),
    ("1e-300", Decimal("1e-300")),
    ("0", Decimal(0)),
    # Thousands commas, as the book prints figures of five or more digits.
    ("81,559", Decimal(81559)),
    ("1,000", Decimal(1000)),
    ("3,350,000.5", Decimal("3350000.5")),
    ("-12,345", Decimal(-12345)),
    ("1,234.5e3", Decimal(1234500)),
]


@pytest.mark.parametrize(("text", "value"), ACCEPTED)
def test_accepted_notation_reads_the_exact_value(text, value):
    assert parse_number(text) == value


def test_one_third_is_read_to_many_digits():
    assert abs(Fraction(parse_number("1/3")) - Fraction(1, 3)) < Fraction(1, 10**40)


def test_decimal_is_exact_not_binary():
    assert parse_number("0.1") * 3 == Decimal("0.3")


REFUSED = [
    ("", "Enter"),
    ("   ", "Enter"),
    ("3,35", "comma"),
    ("0,004", "comma"),
    ("1,0000", "comma"),
    ("1,00,000", "comma"),
    ("3.141,592", "comma"),
    ("12,345,67", "comma"),
    ("1_000", "underscore"),
    ("0x1F", "decimal"),
    ("--3", "single sign"),
    ("+-3", "single sign"),
    ("inf", "finite"),
    ("-Infinity", "finite"),
    ("NaN", "finite"),
    ("∞", "finite"),
    ("1e999999", "too large"),
    ("1e309", "too large"),
    ("1e-999", "too small"),
    ("2^0.5", "whole number"),
    ("9^9^9", "single power"),
    ("2^100000", "too large"),
    ("12 34", "three"),
    ("1/0", "zero"),
    ("abc", "number"),
    ("3 apples", "apples"),
    ("3\u200b5", "U+200B"),
    ("3\x005", "U+0000"),
    ("\ufeff35", "U+FEFF"),
    ("3\u202e5", "invisible"),
    ("1" * 201, "limit is 200"),
]


@pytest.mark.parametrize(("text", "fragment"), REFUSED)
def test_refused_form_gets_a_message_that_points_at_the_problem(text, fragment):
    with pytest.raises(ResponseError) as caught:
        parse_number(text)
    assert fragment.lower() in caught.value.message.lower()


def test_a_figure_copied_from_the_book_reads_with_its_unit():
    from quizzes.grading.numbers import read_number
    from quizzes.grading.quantities import parse_quantity

    with_commas, without = parse_quantity("81,559 MiB"), parse_quantity("81559 MiB")
    assert with_commas.magnitude == without.magnitude == 81559
    assert with_commas.unit == without.unit
    assert read_number("15,900").sigfigs == read_number("15900").sigfigs == 3
