"""Chapters 03-05, the sixth independent review (bookrev-d, /work/reviews/book-03-05-sixth.md):
its misleading findings D04-1, D03-1 and D05-1 fixed in the rendered text (book-i).

Every figure is recomputed here from raw inputs (model configurations, the GPTQ layout, datasheet
and measured rates, the catalog's hourly price), not by the function the chapter calls, and looked
for in the text a reader sees; each test fails on the text the review read.
"""

from __future__ import annotations

import math

import pytest

import content.physics as physics
from tests.courseware.book_text import authored, chapter_texts, q
from tests.courseware.test_book_sixth_pass import (
    BANDWIDTH,
    KV8,
    KV70,
    L70,
    MATMUL8,
    PEAK,
    SPLIT_ENGINE,
    STREAM_H100,
    full_batch,
    n,
)

HOURLY = physics.price("H100").dollars_per_hour
TABLE70 = 128256 * 8192  # Llama-3-70B's input and output tables, V x d each
H100_RUNTIME = physics.accelerator("H100").memory_runtime_bytes
ENGINE = (1.26 + 1.79) * 2**30  # one GPU's reserve: vLLM's activation peak and non-torch memory


@pytest.fixture(scope="module")
def text():
    return chapter_texts(("03-inference.md", "04-precision.md", "05-interconnect.md"))


def _dollars_per_million(gpus: int, batch: int, read: float) -> float:
    """The napkin's forecast: the pass streams ``read`` bytes over ``gpus`` at STREAM's rate."""
    tokens_per_second = batch / (read / gpus / STREAM_H100)
    return gpus * HOURLY / 3600 / tokens_per_second * 1e6


def _gptq_row(gpus: int) -> tuple[int, float]:
    # GPTQ int4 g128: 4 + 20/128 bits for the blocks, both tables in bf16; an fp8 cache
    checkpoint = (L70.params - 2 * TABLE70) * (4 + 20 / 128) / 8 + 2 * TABLE70 * 2
    budget = 0.9 * H100_RUNTIME - (SPLIT_ENGINE if gpus > 1 else ENGINE)
    batch = math.floor((gpus * budget - checkpoint) / (KV70 / 2 * 4096))
    read = checkpoint - TABLE70 * 2 + KV70 / 2 * 4096 * batch  # the input table is looked up
    return batch, _dollars_per_million(gpus, batch, read)


def test_d04_1_four_bits_are_compared_like_for_like(text):
    t = text["04-precision.md"]
    one_batch, one_cost = _gptq_row(1)
    two_batch, two_cost = _gptq_row(2)
    assert (one_batch, two_batch) == (49, 153)  # the review's counts, from raw inputs
    assert f"GPTQ int4, fp8 cache, H100 2 {two_batch} " in t
    # fp8 on two: linear layers in fp8, both tables in bf16
    fp8 = (L70.params - 2 * TABLE70) + 2 * TABLE70 * 2
    fp8_batch = math.floor((2 * (0.9 * H100_RUNTIME - SPLIT_ENGINE) - fp8) / (KV70 / 2 * 4096))
    fp8_cost = _dollars_per_million(2, fp8_batch, fp8 - TABLE70 * 2 + KV70 / 2 * 4096 * fp8_batch)
    # ninth pass (bk-d): one price a row, priced kernel by kernel; at batch 49 the matmuls are
    # memory-bound, so the one-GPU row is the read's forecast (the two-GPU row's compute-bound
    # price is recomputed in test_book_seventh_review_f.py)
    assert one_cost > fp8_cost
    # pre-45c (bk-d4): the bullet's title states the comparison; the prices are the table's
    assert "4-bit on one GPU loses to fp8 on two" in t
    assert "GPTQ int4, fp8 cache, H100 1 49 " in t
    assert (
        t.split("GPTQ int4, fp8 cache, H100 1 ")[1].split(" ≈ int8")[0].endswith(q(one_cost, "USD"))
    )
    assert f"On two H100s it holds {two_batch}, so many that its bf16 matmuls turn" in t
    assert "Fewer bits do not always mean a smaller bill" not in t


def test_d03_1_chunked_prefill_states_its_overlap_and_gives_the_range(text):
    t = text["03-inference.md"]
    flops = 2 * MATMUL8  # per token, the matmul weights

    def memory(batch):
        return (2 * MATMUL8 + KV8 * 2500 * batch) / BANDWIDTH

    assert "The pass is memory-bound, so its idle tensor cores absorb the piece for free" not in t
    # Since the eighth pass (F-7) the section works at the one operating point: the prompt
    # tokens a pass must carry in steady state, not a 512-token chunk beside a batch of 64.
    batch = full_batch()
    prompt = 2000 * batch / 499
    slow = memory(batch) + (batch + prompt) * flops / PEAK
    cents = 1e5 * HOURLY / 3600 * 499 / batch
    assert (n(cents * memory(batch), 2), n(cents * slow, 2)) == ("5.5", "8.9")  # the review's
    # Eighth review of 03-05 (H-1): neither bound is the estimate any more; the pass is priced
    # kernel by kernel (test_book_eighth_review_h.py) and perfect overlap is named as a bound.
    assert (
        "That assumes the kernels overlap the prompt's arithmetic with the pass's memory" not in t
    )
    # second fresh-eyes edit (bk-c3, item 1): the bound, explained in no sentence, left the
    # figure; the chapter prices the kernels in turn
    assert "last bar is the bound" not in t and "prompt tokens, bound" not in t
    assert (
        f"without overlap the {int(prompt)} prompt tokens make a pass {q(slow, 's', sig=2)}"
        not in t
    )
    assert f"{n(cents * memory(batch), 2)} cents with perfect overlap" not in t


def test_d05_1_the_ring_and_the_one_shot_kernels_are_not_timed_alike(text):
    t = text["05-interconnect.md"]
    # ninth pass (bk-d, H-22): the ring's column is gone; its limit is a note
    assert "a decode step captured in a CUDA graph pays neither" in t
    steps = [2 * (gpus - 1) for gpus in (4, 8)]  # a ring's steps per all-reduce
    assert f"A ring's steps per all-reduce go from {steps[0]} to {steps[1]}, so its start-ups" in t
    assert "eight H100s barely beat four" not in t
    assert "Time the ring that way before choosing it" in t


def test_d04_2_the_split_budget_comes_before_the_table_that_uses_it(text):
    t = text["04-precision.md"]
    split = 0.9 * H100_RUNTIME - SPLIT_ENGINE
    assert q(split, "B", sig=3) == "71.3 GB"
    # pre-45b (bk-d3): one round figure for one GPU, the split's reserve as a difference
    one_gpu = 0.9 * H100_RUNTIME - ENGINE
    assert f"may use about {q(one_gpu, 'B', sig=2)} of one H100" in t
    assert f"{q(one_gpu - split, 'B', sig=1)} less per GPU when the model is split" in t
    bf16 = 2 * L70.params
    one = math.floor((2 * split - bf16) / (KV70 * 4096))
    two = math.floor((2 * split - bf16) / (KV70 / 2 * 4096))
    assert (one, two) == (1, 2)
    assert f"room for only {one} long conversation ({two} with an fp8 cache)" in t
    assert "a handful of long conversations" not in t


def test_d04_3_the_one_gpu_fp8_fit_is_on_paper(text):
    t = text["04-precision.md"]
    fp8 = (L70.params - 2 * TABLE70) + 2 * TABLE70 * 2
    spare = 0.9 * H100_RUNTIME - ENGINE - fp8
    # pre-45 (bk-d2): one sentence, "on paper" once (as the link)
    assert (
        f"fp8 fits on one GPU with {q(spare, 'B', sig=2)} to spare, "
        f"{authored(spare / (KV70 / 2), 2)} tokens of fp8 cache: not enough for one long "
        "conversation, a fit on paper" in t
    )
    assert t.count("on paper") == 1
