"""Formatting of quantities and numbers for the book, prompts and feedback."""

import pytest

from content.physics import format_number, format_quantity, to_unit, unit_label


@pytest.mark.parametrize(
    ("value", "unit", "kwargs", "expected"),
    [
        (3.35e12, "B/s", {}, "3.35 TB/s"),
        (0.0042, "s", {}, "4.2 ms"),
        (140e9, "B", {}, "140 GB"),
        (295.3, "FLOP/B", {}, "295 FLOP/byte"),
        (989.4e12, "FLOP/s", {"approx": True}, "~990 TFLOP/s"),
        (2.49, "$", {}, "$2.49"),
        (3.2, "USD", {}, "$3.20"),
        (4.2e-6, "s", {}, "4.2 µs"),
        (35e-9, "s", {}, "35 ns"),
        (300, "s", {}, "5 min"),
        (3 * 3600, "s", {}, "3 h"),
        (0.462, "J", {}, "462 mJ"),
        (700, "W", {}, "700 W"),
        (50e9, "bit/s", {}, "50 Gbit/s"),
        (2, "GPUs", {}, "2 GPUs"),
        (3.35e12, "GB/s", {"fixed": True}, "3,350 GB/s"),
        (13.476831232e9, "GB", {"fixed": True}, "13.5 GB"),
        (4.0229e-3, "ms", {"fixed": True, "sig": 2}, "4 ms"),
        (0, "B", {}, "0 B"),
    ],
)
def test_format_quantity_picks_an_engineers_prefix(value, unit, kwargs, expected):
    assert format_quantity(value, unit, **kwargs) == expected


def test_rounding_up_to_a_thousand_moves_to_the_next_prefix():
    assert format_quantity(999.96e9, "B") == "1 TB"
    assert format_quantity(999.96e-6, "s") == "1 ms"


def test_rounding_is_half_up_like_the_grader():
    assert format_quantity(1.125e9, "B") == "1.13 GB"
    assert format_quantity(2.675, "$") == "$2.68"


def test_prefixed_unit_without_fixed_still_auto_picks():
    assert format_quantity(3.35e12, "GB/s") == "3.35 TB/s"


@pytest.mark.parametrize(
    ("x", "expected"),
    [
        (819200, "819,200"),
        (68976648192, "68,976,648,192"),
        (4096, "4,096"),
        (65504, "65,504"),
        (15923.4, "15,923"),
        (295.343, "295"),
        (4.0229, "4.02"),
        (0.5, "0.5"),
        (3.35e12, "3.35×10¹²"),
        (1.5e-5, "1.5×10⁻⁵"),
        (0, "0"),
        (-2.5, "-2.5"),
    ],
)
def test_format_number(x, expected):
    assert format_number(x) == expected


def test_to_unit_converts_from_si_base():
    assert to_unit(3.35e12, "TB/s") == pytest.approx(3.35)
    assert to_unit(80e9, "GiB") == pytest.approx(80e9 / 2**30)
    assert to_unit(50e9, "Gbit/s") == pytest.approx(400)
    assert to_unit(4.2e-3, "ms") == pytest.approx(4.2)


def test_unit_labels():
    assert unit_label("FLOP/B") == "FLOP/byte"
    assert unit_label("USD") == "$"
    assert unit_label("B/s") == "B/s"


def test_non_finite_values_are_refused():
    with pytest.raises(ValueError):
        format_quantity(float("nan"), "B")
    with pytest.raises(ValueError):
        format_number(float("inf"))


# The book's one rule for digits (docs/review.md, "Eighth pass: number formatting"); each test
# fails on the formatter before it, which printed 1024.0 as "1020", 4096/3 as "1370" and 4096
# without its comma.


def test_an_exact_integer_prints_in_full_even_when_it_arrives_as_a_float():
    # b = N = 1024 FLOP/byte for a 1,024-token prompt's projections (E-19).
    assert format_quantity(1024.0, "FLOP/B") == "1,024 FLOP/byte"
    assert format_quantity(1024.0, "tokens") == "1,024 tokens"
    assert format_number(122880.0) == "122,880"


def test_a_derived_value_never_rounds_its_whole_digits_into_zeros():
    # n/3 for the 4096³ and 16384³ products (C00-4, C02-4): the figure the formula gives.
    assert format_quantity(4096 / 3, "FLOP/B") == "1,365 FLOP/byte"
    assert format_quantity(16384 / 3, "FLOP/B") == "5,461 FLOP/byte"
    assert format_quantity(12345.6, "$") == "$12,346"
    # Below 1,000, and after a prefix, significant figures rule as before.
    assert format_quantity(295.343, "FLOP/B") == "295 FLOP/byte"
    assert format_quantity(16.06e9, "B") == "16.1 GB"


def test_four_digit_figures_are_grouped_like_longer_ones():
    # F-8: "4096 wide and 14,336 tall" printed one dimension two ways.
    from content.expressions import format_value, parse_options

    mib = 2**20
    assert format_value(4096, parse_options("int")) == "4,096"
    assert format_value(7680.0, parse_options("int")) == "7,680"
    assert format_quantity(81559 * mib, "MiB", fixed=True, sig=5) == "81,559 MiB"
    assert format_quantity(15700, "FLOP/B") == "15,700 FLOP/byte"
    assert format_quantity(3.35e12, "GB/s", fixed=True) == "3,350 GB/s"


def test_a_year_is_a_label_and_never_takes_a_separator():
    from content.expressions import format_value, parse_options
    from content.physics import accelerator
    from content.physics.formatting import Year

    year = accelerator("H100").year
    assert isinstance(year, Year) and year == 2022
    assert format_value(year, parse_options("int")) == "2022"
    assert format_value(year, parse_options("")) == "2022"
    assert format_number(year) == "2022"
    # The years between two parts are a count, a plain integer.
    assert type(year - accelerator("V100").year) is int


def test_about_is_the_one_place_a_large_figure_is_rounded():
    from content.expressions import format_value, parse_options

    assert format_quantity(15923.4, "tokens/s", approx=True) == "~16,000 tokens/s"
    assert format_value(15923.4, parse_options("approx")) == "~15,900"
    assert format_value(15923.4, parse_options("")) == "15,923"


def test_group_false_prints_the_bare_digits_for_machine_readers():
    assert format_number(819200, group=False) == "819200"
    assert format_quantity(81559 * 2**20, "MiB", fixed=True, sig=5, group=False) == "81559 MiB"


def test_live_figures_group_in_text_and_in_math_but_not_in_formula_answers():
    from types import SimpleNamespace

    from content.expressions import format_value, parse_options
    from quizzes.engine.kinds.formula import exact_formula
    from quizzes.engine.model import Text

    assert format_value(131072, parse_options("int")) == "131,072"
    assert format_value(131072, parse_options("int"), in_math=True) == "131{,}072"
    assert format_value(81559 * 2**20, parse_options("in MiB | sig=5"), in_math=True) == (
        "81{,}559\\,\\text{MiB}"
    )
    assert format_value(131072, parse_options("int"), group=False) == "131072"
    template = SimpleNamespace(source="t.yaml")
    answer = exact_formula(template, Text("{{ d | int }} * b", 1), {"d": 16384.0})
    assert answer == "16384 * b"  # the formula parser reads it back: no commas


def test_a_grouped_number_in_math_is_one_mathml_number():
    from courseware.rendering import math_to_mathml

    mathml = math_to_mathml("6{,}738{,}415{,}616 = 81{,}559", display=False)
    assert "<mn>6,738,415,616</mn>" in mathml and "<mn>81,559</mn>" in mathml
    # A comma an author writes between arguments stays an operator.
    assert "<mn>1</mn><mo>&#x0002C;</mo><mn>234</mn>" in math_to_mathml("f(1,234)", display=False)
