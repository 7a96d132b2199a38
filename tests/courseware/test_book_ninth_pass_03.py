"""Chapter 03, ninth pass (bk-c): the per-kernel model through the whole chapter, one number per
quantity in the main text (H-6), few live figures per sentence (H-7), the napkin as a table.

Findings of the eighth review of 03-05 (docs/reviews/book-03-05-eighth.md, section 5 and H-4 to
H-7); each test fails on the text before this pass.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from courseware.rendering import render_chapter_text
from tests.courseware.book_text import chapter_text, q

SOURCE = Path(__file__).resolve().parents[2] / "content" / "book" / "03-inference.md"
H100_BW, H100_PEAK = 3.35e12, 989.4e12  # datasheet: HBM3, dense bf16
L8_MATMUL = 8_030_261_248 - 128_256 * 4_096  # every weight but the input table
KV_TOKEN = 2 * 32 * 8 * 128 * 2  # 128 KiB
BATCH = 174  # the chapter's operating point (vLLM's budget, test_book_serving_chapters)


def _main_markdown() -> str:
    text = SOURCE.read_text()
    return text[text.index("# Why LLM inference") : text.index("## Key takeaways")]


@pytest.fixture(scope="module")
def main():
    text = chapter_text("03-inference.md")
    return text[: text.index("Key takeaways")]


def _pass(extra: float = 0) -> float:
    weights = 2 * L8_MATMUL / H100_BW
    arithmetic = (BATCH + extra) * 2 * L8_MATMUL / H100_PEAK
    return max(weights, arithmetic) + KV_TOKEN * 2500 * BATCH / H100_BW


def test_h7_no_main_text_sentence_carries_more_than_three_live_figures():
    prose = re.sub(r"\$\$.*?\$\$", "", _main_markdown(), flags=re.S)
    lines = [line for line in prose.split("\n") if not line.lstrip("> ").startswith("|")]
    # numbered and bulleted steps are one result each: split on them as on sentences
    flat = " ".join(
        re.sub(r"^>?\s*(?:\d+\.|-)\s", "\n", line.lstrip(">").strip()) for line in lines
    )
    flat = re.sub(r"\{\{.*?\}\}", "§", flat)
    crowded = [
        sentence
        for sentence in re.split(r"(?<=[.:;])\s+(?=[A-Z*0-9])|\n", flat)
        if sentence.count("§") > 3 and "Worked example" not in sentence
    ]
    assert crowded == []


def test_h6_one_time_per_output_token_and_one_cost_unit(main):
    tpot = q(_pass(2000 * BATCH / 499), "s", sig=2)
    assert tpot == "30 ms"
    assert f"{tpot} : our time per output token" in main  # the service's pass (bk-c3)
    assert f"time per output token {tpot} " in main  # the napkin's row
    # one unit for cost in the main text since pre-03c item 6 (bk-c4): cents per million output
    # tokens, a 1/174 share of the decode pass at $3.20 an hour; per thousand requests is the
    # reference table's (the colocated bill, 499 passes' share of the service's pass)
    assert "cents per thousand requests" not in main and "a thousand requests cost" not in main
    out = 1e8 * 3.20 / 3600 * _pass() / BATCH
    assert f"cost {out:.2g} cents per million output tokens" in main  # the napkin's row
    cents = 1e5 * 3.20 / 3600 * 499 * _pass(2000 * BATCH / 499) / BATCH
    reference = chapter_text("03-inference.md").split("The bill at the forecast")[1]
    assert f"in the decode passes {cents:.2g} " in reference
    # neither the overlap bound nor the floor/forecast pair of the answer's time remains
    assert "a bound of 22 ms per pass" not in main and "11 s forecast" not in main


def test_h7_the_napkin_is_a_table_of_one_value_per_quantity():
    html = str(render_chapter_text(SOURCE.read_text(), source="03-inference.md").html)
    # the benchmark follows the napkin since the second fresh-eyes edit (bk-c3, item 4)
    napkin = html.split('id="napkin"')[1].split('id="benchmark"')[0]
    assert "<table" in napkin
    rows = re.findall(r"<tr>\s*<td>(.*?)</td>", napkin, flags=re.S)
    assert [re.sub(r"<[^>]+>", "", r).strip() for r in rows] == [
        "memory",
        "time per output token",
        "time to first token",
        "throughput",
        "cost",
    ]


def test_the_main_text_is_down_a_fifth_from_the_eighth_pass(main):
    # rendered words before "Key takeaways": 5,412 at the eighth pass's end (book-t)
    assert len(main.split()) <= 0.8 * 5412


def test_exercise_2_twice_the_flops_speed_the_colocated_pass_only_by_its_arithmetic():
    # the chapter's TPOT is the colocated pass, whose matmuls are compute-bound: twice the FLOP/s
    # halves their 13 ms but not the caches' 17 ms (the old answer said TPOT "does not move")
    text = chapter_text("03-inference.md")
    arithmetic = (BATCH + 2000 * BATCH / 499) * 2 * L8_MATMUL / H100_PEAK
    weights = 2 * L8_MATMUL / H100_BW
    faster = max(weights, arithmetic / 2) + KV_TOKEN * 2500 * BATCH / H100_BW
    assert "Time per output token does not move" not in text
    assert (
        f"the time per output token falls from {q(_pass(2000 * BATCH / 499), 's', sig=2)} to "
        f"{q(faster, 's', sig=2)}, far from half" in text
    )
