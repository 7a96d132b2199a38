"""Chapters 04 and 05 after the ninth, structural pass (bk-d), on the eighth review of 03-05.

Chapter 04's napkin prices every row kernel by kernel and so gives one price per format (H-10,
H-15, H-9); its precision roofline names no single format on its y axis (H-14). Each test
recomputes from raw inputs (datasheet, config, the catalogued STREAM fraction) and fails on the
text at 195323b.
"""

from __future__ import annotations

import re

import pytest

from courseware.book_rooflines import precision_roofline_html
from tests.courseware.book_text import chapter_texts, q

H100_PEAK, H100_BW = 989.4e12, 3.35e12  # dense bf16 FLOP/s, HBM bytes/s (datasheet)
L70 = 70_553_706_496  # Llama-3-70B, the checkpoint
TABLE = 128256 * 8192  # its input table (looked up) and, untied, its output head
KV70 = 2 * 80 * 8 * 128  # elements per cached token


@pytest.fixture(scope="module")
def texts():
    return chapter_texts(("04-precision.md", "05-interconnect.md"))


def test_h10_the_4_bit_row_on_two_gpus_is_priced_kernel_by_kernel(texts):
    from content.physics import measurement

    text = texts["04-precision.md"]
    stream = measurement("h100-sxm/stream-dot").value / H100_BW  # the fraction a read reaches
    body = L70 - 2 * TABLE
    weights = body * (0.5 + 2 / 128 + 0.5 / 128) + 2 * TABLE  # int4, g=128, 16-bit head
    batch = 153
    assert "GPTQ int4, fp8 cache, H100 2 153" in text
    matmuls = max(weights / 2 / (H100_BW * stream), 2 * (L70 - TABLE) * batch / 2 / H100_PEAK)
    assert 2 * (L70 - TABLE) * batch / 2 / H100_PEAK > weights / 2 / (H100_BW * stream)
    cache = KV70 * 4096 * batch / 2 / (H100_BW * stream)  # fp8: one byte an element
    assert f"the pass lengthens to {q(matmuls + cache, 's', sig=2)}" in text
    assert "its bf16 matmuls turn compute-bound" in text


def test_h15_the_napkin_gives_one_price_per_row(texts):
    text = texts["04-precision.md"]
    napkin = text.split("The napkin: what a million tokens costs")[1].split("By the numbers")[0]
    assert not re.search(r"\$\d\.\d\d\s*–\s*\$", napkin)  # no price range
    assert "under either assumption" not in napkin
    assert "forecast plus the arithmetic" not in napkin
    assert "Each pass is priced kernel by kernel" in napkin


def test_h14_the_precision_roofline_names_no_single_format_on_its_y_axis():
    html = str(precision_roofline_html())
    assert "attainable FLOP/s (log scale)" in html
    assert "attainable fp8-e4m3 FLOP/s" not in html
    assert "fp8-e4m3 ridge point" in html or "fp8 ridge point" in html
