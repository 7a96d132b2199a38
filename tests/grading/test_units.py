"""Reading quantities: prefixes (SI and IEC), rate symbols, refusals with suggestions."""

from fractions import Fraction

import pytest

from quizzes.grading import ResponseError, parse_quantity

GB = Fraction(10**9)
GIB = Fraction(2**30)

SAME_RATE = [
    ("2.1 GB/s", Fraction(21, 10) * GB),
    ("2100 MB/s", Fraction(2100) * 10**6),
    ("2.1e9 B/s", Fraction(21, 10) * GB),
    ("16.8 Gbit/s", Fraction(168, 10) * GB / 8),
    ("16.8 Gb/s", Fraction(168, 10) * GB / 8),
    ("16.8 Gbps", Fraction(168, 10) * GB / 8),
    ("2.1 GBps", Fraction(21, 10) * GB),
    ("1.95 GiB/s", Fraction(195, 100) * GIB),
    ("2 MiB/s", Fraction(2 * 2**20)),
    ("3 KiB/s", Fraction(3 * 1024)),
    ("3 kB/s", Fraction(3000)),
    ("1 TiB/s", Fraction(2**40)),
    ("1 PiB/s", Fraction(2**50)),
    ("1 EB/s", Fraction(10**18)),
    ("2.1 GB per s", Fraction(21, 10) * GB),
    ("2.1 GB/ms", Fraction(21, 10) * GB * 1000),
    ("2.1 GB/us", Fraction(21, 10) * GB * 10**6),
    ("2.1 GB/µs", Fraction(21, 10) * GB * 10**6),
]


@pytest.mark.parametrize(("text", "bytes_per_second"), SAME_RATE)
def test_data_rate_in_any_prefix_is_converted_exactly(text, bytes_per_second):
    assert parse_quantity(text).in_base_of(parse_quantity("1 B/s").unit) == bytes_per_second


@pytest.mark.parametrize(
    ("text", "unit", "value"),
    [
        ("3 TFLOPS", "FLOP/s", Fraction(3 * 10**12)),
        ("3 TFLOP/s", "FLOP/s", Fraction(3 * 10**12)),
        ("3 Tflop/s", "FLOP/s", Fraction(3 * 10**12)),
        ("5 GFLOPs", "FLOP", Fraction(5 * 10**9)),
        ("5 Gflop", "FLOP", Fraction(5 * 10**9)),
        ("312 FLOP/B", "FLOP/B", Fraction(312)),
        ("39 FLOP/bit", "FLOP/B", Fraction(312)),
        ("90 tokens/s", "tokens/s", Fraction(90)),
        ("90 tok/s", "tokens/s", Fraction(90)),
        ("90 tokens per second", "tokens/s", Fraction(90)),
        ("20 ms", "s", Fraction(1, 50)),
        ("20 us", "s", Fraction(20, 10**6)),
        ("20 µs", "s", Fraction(20, 10**6)),
        ("20 ns", "s", Fraction(20, 10**9)),
        ("2 min", "s", Fraction(120)),
        ("$3.20", "USD", Fraction(32, 10)),
        ("3.20 USD", "USD", Fraction(32, 10)),
        ("700 W", "W", Fraction(700)),
        ("1 kWh", "J", Fraction(3_600_000)),
        ("4 GB", "B", Fraction(4 * 10**9)),
        ("4 GiB", "B", Fraction(4 * 2**30)),
        ("32 Gbit", "B", Fraction(4 * 10**9)),
    ],
)
def test_quantity_converts_to_si_base_of_expected_unit(text, unit, value):
    target = parse_quantity(f"1 {unit}").unit
    quantity = parse_quantity(text)
    assert quantity.dimensions == target.dimensions
    assert quantity.in_base_of(target) == value


def test_frequency_is_not_a_data_rate():
    assert parse_quantity("3 GHz").dimensions != parse_quantity("3 GB/s").dimensions


def test_flops_in_capitals_is_a_rate_but_flops_plural_is_a_count():
    assert parse_quantity("1 TFLOPS").dimensions == parse_quantity("1 FLOP/s").dimensions
    assert parse_quantity("1 TFLOPs").dimensions == parse_quantity("1 FLOP").dimensions


@pytest.mark.parametrize(
    ("text", "fragments"),
    [
        ("3 KB", ["ambiguous", "kB", "KiB"]),
        ("3 KB/s", ["ambiguous", "kB", "KiB"]),
        ("3 Tbs", ["'TB/s'", "'Tbit/s'"]),
        ("3 gb", ["'GB'", "'Gb'"]),
        ("3 mB", ["MB", "case-sensitive"]),
        ("3 mb/s", ["Mb", "case-sensitive"]),
        ("3 Kflop", ["small k"]),
        ("3 furlongs", ["Unknown unit 'furlongs'"]),
        ("3 GB/", ["unit"]),
        ("3 (GB", ["parenthesis"]),
        ("GB/s", ["number before the unit"]),
        ("$3 USD", ["either $"]),
    ],
)
def test_refused_unit_message_suggests_what_to_type(text, fragments):
    with pytest.raises(ResponseError) as caught:
        parse_quantity(text)
    for fragment in fragments:
        assert fragment in caught.value.message


def test_units_are_case_sensitive_bit_versus_byte():
    byte = parse_quantity("1 B").in_base_of(parse_quantity("1 bit").unit)
    assert byte == 8


def test_missing_unit_is_refused_when_a_unit_is_expected():
    with pytest.raises(ResponseError) as caught:
        parse_quantity("3.35", "B/s")
    assert "Add a unit" in caught.value.message


def test_plain_number_needs_no_unit_when_none_is_expected():
    assert parse_quantity("3.35").unit is None


def test_the_unit_parser_is_public_with_exact_factors():
    from quizzes.grading import ParsedUnit, parse_unit

    unit = parse_unit("TB/s")
    assert isinstance(unit, ParsedUnit) and unit.base_text == "B/s"
    assert unit.factor / unit.base_factor == 10**12
    with pytest.raises(ValueError, match="ambiguous"):
        parse_unit("KB")
