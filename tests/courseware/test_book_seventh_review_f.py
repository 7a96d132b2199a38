"""Chapters 03-05, the seventh independent review (bookrev-f, /work/reviews/book-03-05-seventh.md):
its findings fixed in the rendered text (book-n).

Every figure is recomputed here from raw inputs (model configurations, datasheet and measured
rates, the benchmark table as printed), not by the function the chapter calls, and looked for in
the text a reader sees; each test fails on the text the review read (8145c76).
"""

from __future__ import annotations

import math
import re

import pytest

import content.physics as physics
from content.physics import format_number
from tests.courseware.book_text import authored, chapter_texts, q
from tests.courseware.test_book_forecasts import TRTLLM, forecast
from tests.courseware.test_book_sixth_pass import (
    BANDWIDTH,
    KV8,
    L70,
    MATMUL8,
    PEAK,
    full_batch,
)
from tests.courseware.test_book_sixth_review_d import TABLE70, _gptq_row

HOURLY = physics.price("H100").dollars_per_hour
FLOPS70 = 2 * (L70.params - TABLE70)  # a decode token multiplies by all but the input table

L8_PARAMS = physics.model("llama-3-8b").params


@pytest.fixture(scope="module")
def text():
    return chapter_texts(("03-inference.md", "04-precision.md", "05-interconnect.md"))


def test_f1_the_napkin_tpot_is_a_range_and_breaks_the_promise_without_overlap(text):
    t = text["03-inference.md"]
    batch = full_batch()
    memory = (2 * MATMUL8 + KV8 * 2500 * batch) / BANDWIDTH
    prompts = 2000 * batch / 499  # prompt tokens each pass prefills in steady state
    # Eighth review of 03-05 (H-1): the pass priced kernel by kernel; the matmuls carry the
    # prompts and turn compute-bound, so the batch that keeps 25 ms solves the compute branch.
    arithmetic = (batch + prompts) * 2 * MATMUL8 / PEAK
    by_kernel = max(2 * MATMUL8 / BANDWIDTH, arithmetic) + KV8 * 2500 * batch / BANDWIDTH
    largest = math.floor(25e-3 / (KV8 * 2500 / BANDWIDTH + (1 + 2000 / 499) * 2 * MATMUL8 / PEAK))
    assert largest * (1 + 2000 / 499) * 2 * MATMUL8 / PEAK > 2 * MATMUL8 / BANDWIDTH
    assert by_kernel > 25e-3 > memory and largest < batch
    # ninth pass (bk-c): the napkin is a table, one TPOT; the prompts' load is the chunked-
    # prefill section's step 3
    assert f"time per output token {q(by_kernel, 's', sig=2)} weights, prompts' arithmetic" in t
    # bk-c3: the decode pass grows to the service's pass; the load is "about 700" a pass
    assert f"{q(memory, 's', sig=2)}, grows to {q(by_kernel, 's', sig=2)} : our time per" in t
    assert f"must prefill about {authored(prompts, 2)} prompt tokens a pass" in t
    assert "The 25 ms promise is broken: keeping it on this server" in t  # bk-c3: stated up top
    # bk-c4 (pre-03c): a floor at datasheet rates, so real kernels allow fewer
    assert f"means a batch of at most {largest}, fewer at real rates, or prompts on GPUs" in t


def test_f2_the_benchmark_check_says_the_no_overlap_forecast_is_closer(text):
    t = text["03-inference.md"]
    for (batch, prompt, out), measured in TRTLLM.items():
        overlap, serial = forecast(batch, prompt, out), forecast(batch, prompt, out, overlap=False)
        assert abs(serial / measured - 1) < abs(overlap / measured - 1)
    # ninth pass (bk-c): the main text forecasts kernel by kernel; the bracket and its verdict
    # moved to the reference, without the overlap claim the rows cannot carry (H-2)
    reference = t[t.index("The benchmark's bracket") :]
    assert "On the A100 rows the sum lands closest" in reference
    assert "In all three rows the no-overlap forecast is the closer one" not in t
    assert "the no-overlap forecast is the one that holds" not in t


def test_f3_the_stream_fraction_is_stated_as_a_best_case_with_other_measurements(text):
    t = text["03-inference.md"]
    assert "really streams" not in t and "really sustains" not in t
    rrze = 3.89e12 / 4.8e12  # RRZE gpu-benches: H200 read bandwidth over its datasheet
    assert f"RRZE's read benchmark reaches {format_number(100 * rrze, 2)}% on the H200" in t
    assert "decode steps at batch 1 reaching 55–60%" in t
    assert "the forecast is the fastest a real kernel runs, not a typical time" in t


def test_f11_the_four_bit_rows_are_priced_kernel_by_kernel(text):
    # Ninth pass (bk-d, H-10/H-15): the seventh review's range (forecast to forecast plus the
    # arithmetic) is gone; each row is priced kernel by kernel, so it has one price.
    from tests.courseware.test_book_sixth_review_d import KV70, STREAM_H100

    t = text["04-precision.md"]
    one_batch, one_cost = _gptq_row(1)
    assert one_batch * FLOPS70 / PEAK < (one_batch / (HOURLY / 3600 / one_cost * 1e6))
    assert f"GPTQ int4, fp8 cache, H100 1 {one_batch} " in t
    assert f"{q(one_cost, 'USD')} ≈ int8" in t  # memory-bound matmuls: the read's forecast
    two_batch, _ = _gptq_row(2)
    checkpoint = (L70.params - 2 * TABLE70) * (4 + 20 / 128) / 8 + 2 * TABLE70 * 2
    weights = (checkpoint - 2 * TABLE70) / 2 / STREAM_H100
    arithmetic = two_batch * FLOPS70 / (2 * PEAK)
    assert arithmetic > weights  # compute-bound matmuls at batch 153
    pass_time = arithmetic + KV70 / 2 * 4096 * two_batch / 2 / STREAM_H100
    two_cost = 2 * HOURLY / 3600 / (two_batch / pass_time) * 1e6
    assert f"GPTQ int4, fp8 cache, H100 2 {two_batch} {q(pass_time, 's', sig=2)} " in t
    assert f"{q(two_cost, 'USD')} ≈ int8" in t
    assert f"at {q(two_cost, 'USD')} it is the cheapest H100 row" in t


def test_f16_the_napkins_all_reduces_are_priced_at_the_measured_rate(text):
    t = text["05-interconnect.md"]
    alpha = physics.step_latency("nccl-8xh200-32kib")
    derate = (2**34 / 275.58e9) / (2 * alpha + 2**34 / 450e9)  # the 16 GiB NVLS run / its model
    assert f"the 16 GiB in-switch run took {format_number(derate, 3)}× the model's time" in t
    added = []
    for gpus in (4, 8):
        budget = 0.9 * physics.accelerator("H100").memory_runtime_bytes - (1.26 + 3.58) * 2**30
        batch = math.floor((gpus * budget - 2 * L70.params) / (2 * 80 * 8 * 128 * 2 * 4096))
        added.append(derate * 2 * 80 * (2 * alpha + batch * 8192 * 2 / 450e9))
    # ninth pass (bk-d): the napkin's table has a column for them
    napkin = t.split("The napkin: our model across GPUs")[1].split("By the numbers")[0]
    for gpus, time in zip((4, 8), added, strict=True):
        assert re.search(rf" {gpus} \d+ {re.escape(q(time, 's', sig=2))} ", napkin)


# ---- Imprecise and style findings -------------------------------------------------------------


def test_f4_the_embedding_footnote_states_the_overstatement_on_the_right_base(text):
    t = text["03-inference.md"]
    table = 128256 * 4096  # Llama-3-8B's input table
    share, over = table / L8_PARAMS, L8_PARAMS / (L8_PARAMS - table) - 1
    assert format_number(100 * share, 2) == "6.5" and format_number(100 * over, 2) == "7"
    assert "would overstate the floor by 7%." in t
    assert "would overstate the floor by that much" not in t


def test_f5_the_roofline_puts_prefill_at_the_texts_intensity():
    from courseware.book_figures import serving_points

    points = {label: intensity for label, intensity, _ in serving_points()}
    assert points["prefill, 2,000 tokens"] == pytest.approx(2000)  # n FLOP per byte in 16 bits


def test_f12_f13_one_critical_batch_for_the_checkpoint_and_one_symbol_for_bytes(text):
    t = text["04-precision.md"]
    checkpoint = math.floor(PEAK / BANDWIDTH * _gptq_read_bytes() / FLOPS70)
    assert f"past the checkpoint's weight-only critical batch of about {checkpoint} and" in t
    assert "That batch, R · s / 2 with s bytes per number" in t
    assert "R · b / 2" not in t and "b weight" not in t


def test_f18_f22_no_unsupported_superlative_and_no_doubled_count(text):
    t = text["05-interconnect.md"]
    assert "the largest published deployment" not in t
    # ninth pass (bk-d): the opening names DeepSeek-V3 without a superlative at all
    assert "explains how DeepSeek-V3 serves a mixture of experts" in t
    assert "need two (2)" not in t
    assert "so the bf16 weights need 2 GPUs: the driver's" in t


def _gptq_read_bytes() -> float:
    """Llama-3-70B's GPTQ int4 g128 pass: the blocks at 4 + 20/128 bits, the output head in bf16."""
    return (L70.params - 2 * TABLE70) * (4 + 20 / 128) / 8 + TABLE70 * 2
