"""Chapter 03, fresh-eyes edit (bk-c2): /work/reviews-out/pre-03.md, statements A-G and the
structural items. Each test recomputes its figures from datasheet inputs and fails on the text
bk-c left (8a0f5c1).
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from courseware.rendering import render_chapter_text
from tests.courseware.book_text import chapter_text, main_text, q

SOURCE = Path(__file__).resolve().parents[2] / "content" / "book" / "03-inference.md"
H100_BW, H100_PEAK = 3.35e12, 989.4e12  # datasheet: HBM3, dense bf16
L8_MATMUL = 8_030_261_248 - 128_256 * 4_096  # every weight but the input table
KV_TOKEN = 2 * 32 * 8 * 128 * 2  # 128 KiB
BATCH = 174  # the chapter's operating point
CRITICAL = H100_PEAK / H100_BW  # R · s / 2 with s = 2 bytes: 295 tokens


def _weights() -> float:
    return 2 * L8_MATMUL / H100_BW


def _caches(batch: int = BATCH, context: int = 2500) -> float:
    return KV_TOKEN * context * batch / H100_BW


def _arithmetic(tokens: float) -> float:
    return tokens * 2 * L8_MATMUL / H100_PEAK


@pytest.fixture(scope="module")
def text():
    return chapter_text("03-inference.md")


@pytest.fixture(scope="module")
def main(text):
    return main_text(text)


def test_g_the_thesis_names_the_caches_read_that_dominates_the_operating_point(main):
    # at 174 conversations the caches' read is most of the pass: a batch is not "nearly free"
    assert _caches() > 3 * _weights()
    assert "a batch that is nearly free until the KV cache fills memory" not in main
    assert "each new token needs every weight, and every cached key and value, read from" in main
    assert "a batch that shares the weights' read for free but pays for every sequence's" in main


def test_a_speculation_pays_on_the_extra_arithmetic_not_on_memory_bound_matmuls(text, main):
    # k = 1 at batch 174 sends 348 tokens through the matmuls, past the critical batch:
    # compute-bound, yet the worked example gains 1.71x because the caches' read dominates
    assert 2 * BATCH > CRITICAL and _arithmetic(2 * BATCH) > _weights()
    assert "while the verification pass's matmuls stay memory-bound" not in text
    assert "Speculation pays while the verification's extra arithmetic is small next to" in main


def test_b_the_printed_speed_up_follows_from_the_printed_formula_and_steps(main):
    assert "S = E [ tokens ] k c + t verify / t pass" in main
    c = float(re.search(r"a fraction c ≈ ([0-9.]+) of the model's pass", main).group(1))
    ratio = float(re.search(r"t verify / t pass ≈ ([0-9.]+) \.", main).group(1))
    printed = float(re.search(r"the speed-up is ([0-9.]+)× : the caches", main).group(1))
    plain = _weights() + _caches()
    verify = max(_weights(), _arithmetic(2 * BATCH)) + _caches()
    assert ratio == pytest.approx(verify / plain, abs=5e-4)
    # a reader's check, from the printed figures: E = 1 + 0.85 at k = 1
    assert f"{1.85 / (c + ratio):.3g}" == f"{printed:.3g}" == "1.71"
    # the old denominator, kc + 1, gives another number
    assert f"{1.85 / (c + 1):.3g}" != f"{printed:.3g}"


def test_c_idle_flops_are_claimed_for_the_decode_only_pass_it_prices(main):
    assert "A decode pass leaves nearly all the FLOPs idle" not in main
    assert "A decode pass without prompts in it leaves most of the FLOPs idle" in main
    # the colocated pass's matmuls are compute-bound: 13 ms of arithmetic in 30 ms
    assert _arithmetic(BATCH + 2000 * BATCH / 499) > _weights()
    decode_only = q(_weights() + _caches(), "s", sig=2)
    # bk-c3: one name per pass, "the decode pass" (22 ms) and "the service's pass" (30 ms)
    # bk-c4 (pre-03c, 9 and the draft's memory): "timed", and the batch held at 174
    assert f"time it on the decode pass, {decode_only}, with the batch held at {BATCH}" in main


def test_d_ttft_is_compute_only_when_prefill_runs_alone(main):
    assert "set by prefill and so by compute" not in main
    # bk-c3 (item 9): the busy-pass case opens the chunked-prefill section instead
    assert "time to first token (TTFT), set by prefill, and" in main
    assert "and its TTFT is set by the passes it rides in" in main
    # the napkin's TTFT is three colocated passes, most of each the caches' read
    colocated = _arithmetic(BATCH + 2000 * BATCH / 499) + _caches()
    assert _caches() > colocated / 2


def test_e_the_napkin_calls_its_entries_worst_context_bounds(main):
    napkin = main[main.index("Our service on one napkin") :]
    assert "Every entry is a floor" not in main
    # bk-c3 (items 7, 13): "floor" keeps one meaning; the napkin says what it prices
    # bk-c4 (pre-03c, 8): one qualification before the table, the mean length in a note
    assert "Floors at datasheet rates, every conversation at its final 2,500 tokens" in napkin
    # the mean context, prompt plus half the answer, reads a tenth less cache
    assert _caches(context=2000 + 500 // 2) == pytest.approx(0.9 * _caches())
    notes = chapter_text("03-inference.md").split("Sources")[-1]
    assert "At the mean length the caches' read is a tenth shorter" in notes


def test_f_the_batch_of_384_misses_on_its_matmul_rate_not_on_two_ceilings(main):
    # row 2 (52 x 2,048 in, 128 out) also has a compute-bound and a memory-bound phase of
    # about equal length, and lands at 9%: "two ceilings" does not explain 384's 16%
    a100_bw, a100_rate = 2.039e12, 312e12
    l2_matmul = 6_738_415_616 - 32_000 * 4_096
    prefill = 52 * 2048 * 2 * l2_matmul / a100_rate
    decode = 127 * (2 * l2_matmul + 2 * 32 * 32 * 128 * 2 * (2048 + 64) * 52) / a100_bw
    assert 0.8 < prefill / decode < 1.25
    assert "two ceilings share the run" not in main
    assert "At batch 384 the matmuls are past the ridge, where the best rate depends on" in main


def test_174_is_derived_in_the_kv_section_before_the_pass_uses_it(main):
    kv = main[main.index("The KV cache #") : main.index("Continuous batching and the paged")]
    derived = kv.index("So memory admits 174 conversations")
    assert derived < kv.index("Worked example: a pass of our batch")
    assert "Worked example: how many" not in main[main.index("Continuous batching and the") :]


def test_one_name_per_thing(main):
    for retired in ("serving level", "usable memory", "what the engine may use", "decode step"):
        assert retired not in main, retired
    assert "It counts tokens through the matmuls; in plain decode that is one per sequence" in main
    # bk-c3 (item 6): the decode pass reads 15 GB; the 16.1 GB checkpoint is the memory count's
    assert "reads M = 15 GB of weights" in main and "The checkpoint takes 16.1 GB" in main
    assert main.index("16.1 GB") > main.index("The KV cache #")
    # one number for the batch-1 time in the main text: the floor, not also STREAM's forecast
    assert "4.7 ms" not in main and "295× longer" not in main


def test_prefix_caching_says_what_the_saved_memory_buys(main):
    from tests.courseware.test_book_serving_chapters import serving_memory

    budget = serving_memory("H100")  # vLLM's budget, recomputed there from its log
    assert q(budget, "B", sig=3) == "73.3 GB"
    weights = 2 * 8_030_261_248
    held = math.floor((budget - weights - KV_TOKEN * 1500) / (KV_TOKEN * 1000))
    assert held > CRITICAL
    # bk-c3 (3b): memory admits them, latency does not (test_book_second_fresh_edit_03)
    assert f"the serving budget admits {held} conversations. The latency promise does not" in main
    assert "still reads the shared blocks once per sequence" in main


def test_the_roofline_figure_draws_only_this_chapters_subjects():
    html = str(render_chapter_text(SOURCE.read_text(), source="03-inference.md").html)
    figure = html[html.index('class="book-figure serving-roofline"') :]
    figure = figure[: figure.index("</figure>")]
    assert "fp32 lanes" not in figure and "L2 (H200)" not in figure
    assert "batch 295" not in figure  # the ridge marks the critical batch
    assert '<details class="figure-data">' in figure  # folded, like the other figures


def test_pass_time_against_batch_is_drawn_from_the_physics():
    from courseware.book_serving import pass_batch_html, pass_batch_rows

    rows = {r["batch"]: r for r in pass_batch_rows()}
    assert set(rows) == {1, 64, 128, BATCH, math.floor(CRITICAL)}
    for batch, r in rows.items():
        assert r["weights"] == pytest.approx(_weights())
        assert r["caches"] == pytest.approx(_caches(batch))
        assert r["pass"] == pytest.approx(max(_weights(), _arithmetic(batch)) + _caches(batch))
        assert r["fits"] == (batch <= BATCH)
    html = str(pass_batch_html())
    assert "batch 174, the most memory holds" in html
    assert "batch 295, the critical batch: does not fit" in html
    assert "arithmetic 59% of them" in html  # B / B_crit, the chapter's 59%
    assert "{% pass_batch %}" in SOURCE.read_text()


def test_the_main_text_stays_within_five_percent_of_bk_c(main):
    assert len(main.split()) <= 1.05 * 4293
