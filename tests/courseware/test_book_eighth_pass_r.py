"""The eighth pass's book-wide fixes (book-r; docs/review.md, "Eighth pass: number formatting,
the L2 label, chapter-driven sources, chapters 04-05"): the one rule for digits as the chapters
print it and the L2 bandwidth labelled with the part it was measured on. Each test fails on the
tree before the pass."""

from __future__ import annotations

import re

import pytest

from content.physics import accelerator, memory_hierarchy
from tests.courseware.book_text import chapter_texts, q

H100 = accelerator("H100")


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


# ---- the L2 label (F-6, F-19) -------------------------------------------------------------


def test_f6_the_h100s_l2_bandwidth_names_the_part_it_was_measured_on():
    l2 = memory_hierarchy(H100)[2]
    assert l2.bandwidth == 10e12 and l2.measured_on == {"bandwidth": "h200"}
    # The label is read from the entry, never typed: another part gives another label.
    from courseware.chart_labels import measured_name

    moved = type(l2)(**{**l2.__dict__, "measured_on": {"bandwidth": "b200"}})
    assert measured_name("L2", moved) == "L2 (B200)"
    assert measured_name("L2", memory_hierarchy("A100")[2]) == "L2"


def test_f6_f19_every_l2_label_says_h200():
    from courseware.book_anatomy import anatomy
    from courseware.book_bars import staircase_rows
    from courseware.book_figures import serving_roofline_html

    roofline = str(serving_roofline_html())
    assert "L2 (H200): 10 TB/s" in roofline and "L2: 10 TB/s" not in roofline
    row = next(r for r in staircase_rows() if r["name"].startswith("L2"))
    assert row["name"] == "L2 cache (H200)"
    assert "L2 (H200): about 10 TB/s" in anatomy()["l2_text"]


def test_a_measured_on_entry_must_give_the_figure_it_names():
    from content.physics.catalog.hierarchy import MEASURED, MeasuredLevel

    for entry in MEASURED.all():
        for figure, key in entry.measured_on.items():
            assert getattr(entry, figure) is not None
            assert accelerator(key).key != entry.part
    with pytest.raises(ValueError, match="measured_on"):
        MeasuredLevel(
            "h100-sxm",
            "l2",
            latency=1e-7,
            sources={"latency": "rrze-gpu-benches"},
            measured_on={"bandwidth": "h200"},
        )
