"""The bench harness's pure helpers: percentiles, summaries, growth, report cells, form parsing."""

import pytest

from bench.browser import forms
from bench.report import ms, spread, table
from bench.stats import growth_exponent, percentile, summarize


def test_percentile_interpolates_between_closest_ranks():
    samples = [10, 20, 30, 40]
    assert percentile(samples, 0) == 10
    assert percentile(samples, 100) == 40
    assert percentile(samples, 50) == 25  # halfway between 20 and 30
    assert percentile(samples, 25) == pytest.approx(17.5)


def test_percentile_ignores_input_order():
    assert percentile([5, 1, 4, 2, 3], 50) == 3


def test_percentile_of_one_sample_is_that_sample():
    assert percentile([7.5], 99) == 7.5


def test_percentile_refuses_no_samples_and_out_of_range_q():
    with pytest.raises(ValueError):
        percentile([], 50)
    with pytest.raises(ValueError):
        percentile([1, 2], 101)


def test_summary_is_in_milliseconds_with_spread():
    summary = summarize([0.001, 0.002, 0.003, 0.004, 0.005])
    assert summary["n"] == 5
    assert summary["median_ms"] == pytest.approx(3.0)
    assert summary["p25_ms"] == pytest.approx(2.0)
    assert summary["p75_ms"] == pytest.approx(4.0)
    assert summary["min_ms"] == pytest.approx(1.0)
    assert summary["max_ms"] == pytest.approx(5.0)
    assert summary["p25_ms"] <= summary["median_ms"] <= summary["p99_ms"] <= summary["max_ms"]


def test_growth_exponent_is_one_for_linear_and_zero_for_flat():
    sizes = [100, 1000, 10000]
    assert growth_exponent(sizes, [1.0, 10.0, 100.0]) == pytest.approx(1.0)
    assert growth_exponent(sizes, [5.0, 5.0, 5.0]) == pytest.approx(0.0)
    assert growth_exponent(sizes, [1.0, 100.0, 10000.0]) == pytest.approx(2.0)


def test_growth_exponent_needs_two_usable_points():
    assert growth_exponent([100], [1.0]) is None
    assert growth_exponent([100, 1000], [0.0, 2.0]) is None


def test_milliseconds_are_shown_with_precision_that_fits_their_size():
    assert ms(0.0312) == "0.031"
    assert ms(2.414) == "2.41"
    assert ms(37.25) == "37.2"
    assert ms(1204.4) == "1 204"
    assert ms(None) == "–"


def test_spread_shows_median_then_interquartile_range():
    assert spread({"median_ms": 3.0, "p25_ms": 2.0, "p75_ms": 4.5}) == "3.00 (2.00–4.50)"


def test_table_is_markdown_with_one_row_per_entry():
    text = table(["a", "b"], [["1", "2"], ["3", "4"]])
    lines = text.splitlines()
    assert lines[0] == "| a | b |"
    assert lines[1].count("---") == 2
    assert lines[2:] == ["| 1 | 2 |", "| 3 | 4 |"]


def test_forms_are_parsed_with_hidden_fields_and_answer_inputs():
    page = """
    <form method="post" action="/attempts/4/variants/9/parts/a/" class="answer-form">
      <input type="hidden" name="csrfmiddlewaretoken" value="tok&amp;en">
      <input type="hidden" name="idempotency_key" value="k123456789">
      <input class="answer-input" type="text" name="answer" value="">
    </form>
    <form method="post" action="/attempts/4/variants/9/parts/b/">
      <input type="radio" name="answer" value="compute">
      <input type="radio" name="answer" value="memory">
    </form>"""
    first, second = forms(page)
    assert first.action == "/attempts/4/variants/9/parts/a/"
    assert first.fields == {"csrfmiddlewaretoken": "tok&en", "idempotency_key": "k123456789"}
    assert first.text_answer and not first.choices
    assert second.choices == ["compute", "memory"]
    assert not second.text_answer
