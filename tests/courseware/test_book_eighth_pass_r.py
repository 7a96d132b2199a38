"""The eighth pass's book-wide fixes (book-r; docs/review.md, "Eighth pass: number formatting,
the L2 label, chapter-driven sources, chapters 04-05"): the one rule for digits as the chapters
print it. Each test fails on the tree before the pass."""

from __future__ import annotations

import re

import pytest

from tests.courseware.book_text import chapter_texts, q


@pytest.fixture(scope="module")
def text():
    return chapter_texts(["00-intro.md", "02-roofline.md", "03-inference.md", "04-precision.md"])


# ---- the one rule for digits (E-19, C00-4, C02-4, F-8) --------------------------------------


def test_e19_a_prompt_of_1024_tokens_sits_at_1024_flop_per_byte(text):
    from courseware.book_rooflines import block_roofline_html

    # b = N: the projections' intensity is the prompt's length, exactly
    assert "1,024 FLOP/byte" in str(block_roofline_html())
    assert "1020 FLOP/byte" not in text["02-roofline.md"]
    assert "1,024 FLOP/byte" in text["02-roofline.md"]


def test_c00_4_c02_4_n_over_3_prints_the_figure_the_formula_gives(text):
    assert f"{q(4096 / 3, 'FLOP/B')}" == "1,365 FLOP/byte"
    for name in ("00-intro.md", "02-roofline.md"):
        assert "1,365 FLOP/byte" in text[name] and "1370 FLOP/byte" not in text[name]


def test_f8_four_digit_counts_take_their_comma_like_five_digit_ones(text):
    # "4096 wide and 14,336 tall" (chapter 03): one dimension printed two ways
    t = text["03-inference.md"]
    assert not re.search(r"(?<![\d,.$-])[1-9]\d{3}(?= wide| tall| prompt tokens| tokens)", t)
    assert "4,096" in t


def test_years_stay_bare_in_the_part_table(text):
    t = text["00-intro.md"]
    assert "2,022" not in t and "2022" in t
